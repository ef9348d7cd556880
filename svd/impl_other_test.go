//go:build !amd64 || purego

package svd

import "testing"

func forEachImpl(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	t.Run("purego", f)
}
