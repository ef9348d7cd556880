//go:build amd64 && !purego

package svd

import "testing"

// forEachImpl runs f once per implementation available on this machine.
func forEachImpl(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	saved := useAVX512
	defer func() { useAVX512 = saved }()
	useAVX512 = false
	t.Run("purego", f)
	if hasAVX512 {
		useAVX512 = true
		t.Run("avx512", f)
	}
}
