package reference

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestChordalDistances checks the chordal distance against its
// definitions: Σ λ_k sin²θ_k of the angles, Σ λ_k (1 − σ_k²) of the
// singular values, and, unweighted, ‖P Pᵀ − W Wᵀ‖²_F / 2 (the projection
// metric); for images sin²θ_1 = 1 − ‖Wᵀx‖²/‖x‖².
func TestChordalDistances(t *testing.T) {
	rng := newRand(30)
	for _, local := range []bool{false, true} {
		m := randModel(rng, 15, 4, 5, 3, local)
		m.Chordal = true
		m.Prototypes[2] = near(rng, m.Prototypes[0], 1e-3)
		P := near(rng, m.Prototypes[0], 0.3)
		dist := m.Distances(P)
		angles := m.Angles(P)
		for j, W := range m.Prototypes {
			l := m.lambda(j)
			var M mat.Dense
			M.Mul(P.T(), W)
			var svd mat.SVD
			if !svd.Factorize(&M, mat.SVDNone) {
				t.Fatal("svd")
			}
			var fromSigma, fromAngles, sum float64
			for k, s := range svd.Values(nil) {
				fromSigma += l[k] * (1 - s*s)
				sn := math.Sin(angles[j][k])
				fromAngles += l[k] * sn * sn
				sum += 1 - s*s
			}
			if math.Abs(dist[j]-fromSigma) > 1e-14 || math.Abs(dist[j]-fromAngles) > 1e-15 {
				t.Errorf("local=%v proto %d: %g; Σ λ(1 − σ²) %g, Σ λ sin²θ %g", local, j, dist[j], fromSigma, fromAngles)
			}
			var a, b mat.Dense
			a.Mul(P, P.T())
			b.Mul(W, W.T())
			a.Sub(&a, &b)
			f := mat.Norm(&a, 2)
			if math.Abs(sum-f*f/2) > 1e-13 {
				t.Errorf("proto %d: Σ sin²θ %g, ‖PPᵀ − WWᵀ‖²_F/2 %g", j, sum, f*f/2)
			}
		}
		x := make([]float64, 15)
		for i := range x {
			x[i] = rng.NormFloat64()
		}
		xv := mat.NewVecDense(15, x)
		for j, v := range m.ImageDistances(x) {
			var y mat.VecDense
			y.MulVec(m.Prototypes[j].T(), xv)
			c := mat.Norm(&y, 2) / mat.Norm(xv, 2)
			if want := 1 - c*c; math.Abs(v-want) > 1e-14 {
				t.Errorf("image, proto %d: %g, want %g", j, v, want)
			}
		}
	}
}

// TestChordalStepImage checks the chordal image step's gradient against
// central differences of the cost along a tangent direction of each
// winner.
func TestChordalStepImage(t *testing.T) {
	rng := newRand(31)
	const D, d = 10, 3
	m := randModel(rng, D, d, 6, 3, false)
	m.Chordal = true
	x := make([]float64, D)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	const eta = 1e-7
	y := 1
	dist := m.ImageDistances(x)
	plus, minus, _, _ := m.winners(dist, y)
	costAt := func(mm *Model) float64 {
		dd := mm.ImageDistances(x)
		return (dd[plus] - dd[minus]) / (dd[plus] + dd[minus])
	}
	c0 := costAt(m)
	mm := m.Clone()
	if _, err := mm.StepImage(x, y, eta, 1); err != nil {
		t.Fatal(err)
	}
	// A gradient step of size η lowers the cost by about η‖∇E‖² > 0.
	if c1 := costAt(mm); !(c1 < c0) {
		t.Errorf("chordal image step: cost %g -> %g", c0, c1)
	}
}
