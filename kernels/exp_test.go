package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestExp: Exp is within 2 ulp of math.Exp over [-700, 700], exact at
// the special values, and the same as Go's portable algorithm (which
// math.Exp is on the architectures without assembly).
func TestExp(t *testing.T) {
	for _, c := range []struct{ x, want float64 }{
		// Pinned bits (the same on every architecture: see Exp).
		{-0.7310585786300049, 0.48139912144732316}, {5.8461322059200675, 345.8939433360514}, {-37.25, 6.64554417291507e-17},
		{0, 1}, {math.Inf(1), math.Inf(1)}, {math.Inf(-1), 0}, {710, math.Inf(1)}, {-746, 0}, {1e-300, 1},
	} {
		if got := Exp(c.x); got != c.want {
			t.Errorf("Exp(%g) = %g, want %g", c.x, got, c.want)
		}
	}
	if v := Exp(math.NaN()); !math.IsNaN(v) {
		t.Errorf("Exp(NaN) = %g", v)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 200000 {
		x := (rng.Float64()*2 - 1) * 700 // math.Exp's amd64 assembly overflows a little early
		if i%2 == 0 {
			x = (rng.Float64()*2 - 1) * 30 // softmax's range
		}
		got, want := Exp(x), math.Exp(x)
		if ulps := math.Abs(got-want) / (math.Nextafter(want, math.Inf(1)) - want); ulps > 2 { // math.Exp's amd64 assembly is itself up to 1 ulp off
			t.Fatalf("Exp(%v) = %v, math.Exp %v: %.1f ulp apart", x, got, want, ulps)
		}
	}
}
