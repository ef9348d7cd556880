package cpu

import (
	"os"
	"testing"
)

func TestChoose(t *testing.T) {
	for _, c := range []struct {
		v            string
		avx512, avx2 bool
	}{
		{"", HasAVX512, HasAVX2},
		{"avx512", HasAVX512, HasAVX2},
		{"bogus", HasAVX512, HasAVX2},
		{"avx2", false, HasAVX2},
		{"generic", false, false},
	} {
		if a, b := Choose(c.v); a != c.avx512 || b != c.avx2 {
			t.Errorf("Choose(%q) = %v, %v; want %v, %v", c.v, a, b, c.avx512, c.avx2)
		}
	}
	if a, b := Choose(os.Getenv(EnvVar)); a != AVX512 || b != AVX2 {
		t.Errorf("AVX512, AVX2 = %v, %v; Choose(%s=%q) = %v, %v", AVX512, AVX2, EnvVar, os.Getenv(EnvVar), a, b)
	}
}

// TestHalfWidth512: only an AVX-512 CPU splits its 512-bit operations.
func TestHalfWidth512(t *testing.T) {
	if HalfWidth512 && !HasAVX512 {
		t.Errorf("HalfWidth512 without AVX-512")
	}
	t.Logf("AVX-512 %v, half width %v", HasAVX512, HalfWidth512)
}
