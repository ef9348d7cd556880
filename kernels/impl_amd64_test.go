//go:build amd64 && !purego

package kernels

import (
	"testing"

	"github.com/grlgq/grlgq/internal/cpu"
)

// impls lists every implementation this build has, fastest first, each
// with the dispatch booleans that select it and whether it runs here: the
// CPU supports it and GRLGQ_KERNELS does not cap it away. restoreImpl
// puts back the choice init made.
func impls() []impl {
	return []impl{
		{name: "avx512", ok: cpu.AVX512, set: func() { useAVX512, useAVX2, bcast512 = true, true, true }},
		// Zen 4's variant of the AVX-512 block kernels (bcast512 false),
		// run wherever AVX-512 is.
		{name: "avx512-zen4", ok: cpu.AVX512, set: func() { useAVX512, useAVX2, bcast512 = true, true, false }},
		{name: "avx2", ok: cpu.AVX2, set: func() { useAVX512, useAVX2 = false, true }},
		{name: "generic", ok: true, set: func() { useAVX512, useAVX2 = false, false }},
	}
}

func restoreImpl() { useAVX512, useAVX2, bcast512 = cpu.AVX512, cpu.AVX2, !cpu.HalfWidth512 }

func TestChooseEnv(t *testing.T) {
	defer restoreImpl()
	for _, c := range []struct {
		v            string
		avx512, avx2 bool
	}{
		{"", cpu.HasAVX512, cpu.HasAVX2},
		{"avx512", cpu.HasAVX512, cpu.HasAVX2},
		{"bogus", cpu.HasAVX512, cpu.HasAVX2},
		{"avx2", false, cpu.HasAVX2},
		{"generic", false, false},
	} {
		a, b := cpu.Choose(c.v)
		if a != c.avx512 || b != c.avx2 {
			t.Errorf("choose(%q) = %v, %v; want %v, %v", c.v, a, b, c.avx512, c.avx2)
		}
		useAVX512, useAVX2 = a, b
		want := "generic"
		if a {
			want = "avx512"
		} else if b {
			want = "avx2"
		}
		if got := Implementation(); got != want {
			t.Errorf("%s=%q: Implementation() = %q, want %q", EnvVar, c.v, got, want)
		}
	}
}
