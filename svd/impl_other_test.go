//go:build !amd64 || purego

package svd

import "testing"

func forEachImpl(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	t.Run("purego", f)
}

// setGramAVX2 does nothing: this build has no AVX2 kernels.
func setGramAVX2(on bool) func() { return func() {} }
