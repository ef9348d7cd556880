//go:build amd64 && !purego

package svd

import (
	"testing"

	"github.com/grlgq/grlgq/internal/cpu"
)

// forEachImpl runs f once per implementation this machine runs, up to the
// cap of GRLGQ_KERNELS (cpu.AVX512, cpu.AVX2: with GRLGQ_KERNELS=avx2 the
// AVX-512 subtests are left out).
func forEachImpl(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	saved, saved2 := useAVX512, useAVX2
	defer func() { useAVX512, useAVX2 = saved, saved2 }()
	useAVX512, useAVX2 = false, false
	t.Run("purego", f)
	if cpu.AVX2 {
		useAVX2 = true
		t.Run("avx2", f)
	}
	if cpu.AVX512 {
		useAVX512, useAVX2 = true, false
		t.Run("avx512", f)
	}
}
