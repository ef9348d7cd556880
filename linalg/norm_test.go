package linalg

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/grlgq/grlgq/kernels"
)

// TestNorm: in range, Norm is sqrt of one kernels.Dot (the engine's bits);
// out of range (tiny, huge) it is the scaled norm, within rounding of the
// exact value; zero is 0; a NaN or ±Inf entry is named by an ErrNotFinite.
func TestNorm(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x := make([]float64, 785)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	n, err := Norm(x)
	if err != nil || n != math.Sqrt(kernels.Dot(x, x)) {
		t.Fatalf("Norm = %v, %v; want sqrt(Dot) = %v", n, err, math.Sqrt(kernels.Dot(x, x)))
	}
	for _, s := range []float64{0x1p-600, 0x1p+600, 0x1p-1000} {
		y := make([]float64, len(x))
		for i, v := range x {
			y[i] = v * s
		}
		got, err := Norm(y)
		if want := n * s; err != nil || math.Abs(got-want) > 1e-13*want {
			t.Errorf("scale %g: Norm = %v, %v; want %v", s, got, err, want)
		}
	}
	if got, err := Norm(make([]float64, 9)); got != 0 || err != nil {
		t.Errorf("zero: Norm = %v, %v; want 0, nil", got, err)
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		y := append([]float64(nil), x...)
		y[17] = bad
		if _, err := Norm(y); !errors.Is(err, ErrNotFinite) {
			t.Errorf("%v: err = %v, want ErrNotFinite", bad, err)
		}
	}
}
