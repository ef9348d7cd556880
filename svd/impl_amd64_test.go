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
	saved, saved2, saved3, saved4 := useAVX512, useAVX2, useGramAVX2, useQL16
	defer func() { useAVX512, useAVX2, useGramAVX2, useQL16 = saved, saved2, saved3, saved4 }()
	useAVX512, useAVX2, useGramAVX2, useQL16 = false, false, false, false
	t.Run("purego", f)
	if cpu.AVX2 {
		useAVX2, useGramAVX2 = true, true
		t.Run("avx2", f)
	}
	if cpu.AVX512 {
		useAVX512, useAVX2, useGramAVX2, useQL16 = true, false, true, true
		t.Run("avx512", f)
	}
}

// setGramAVX2 sets useGramAVX2 and returns the function that restores it.
func setGramAVX2(on bool) func() {
	saved := useGramAVX2
	useGramAVX2 = on && (cpu.AVX2 || cpu.AVX512)
	return func() { useGramAVX2 = saved }
}
