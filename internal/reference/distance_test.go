package reference

import (
	"math"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// The cosines of the principal angles are the singular values of Pᵀ W, so
// Σ cos² θ_k = ‖Pᵀ W‖_F² (computed here with plain loops), and their sines are
// the singular values of (I - P Pᵀ) W.
func TestAnglesIdentities(t *testing.T) {
	rng := newRand(1)
	for _, sz := range []struct{ D, d int }{{5, 1}, {12, 3}, {30, 7}, {6, 6}} {
		m := randModel(rng, sz.D, sz.d, 4, 2, false)
		P := randOrtho(rng, sz.D, sz.d)
		all := m.Angles(P)
		for j, W := range m.Prototypes {
			theta := all[j]
			if !sort.Float64sAreSorted(theta) {
				t.Errorf("D=%d d=%d proto %d: angles not ascending: %v", sz.D, sz.d, j, theta)
			}
			sumCos2 := 0.0
			for _, th := range theta {
				if th < 0 || th > math.Pi/2 {
					t.Errorf("angle %g outside [0, π/2]", th)
				}
				sumCos2 += math.Cos(th) * math.Cos(th)
			}
			frob := 0.0
			for a := 0; a < sz.d; a++ {
				for b := 0; b < sz.d; b++ {
					s := 0.0
					for i := 0; i < sz.D; i++ {
						s += P.At(i, a) * W.At(i, b)
					}
					frob += s * s
				}
			}
			if math.Abs(sumCos2-frob) > 1e-12 {
				t.Errorf("D=%d d=%d proto %d: Σcos²θ = %.17g, ‖PᵀW‖_F² = %.17g", sz.D, sz.d, j, sumCos2, frob)
			}

			// sin θ from the residual R = W - P (Pᵀ W): singular values
			// ascending in θ means descending order of sines reversed.
			var M, R mat.Dense
			M.Mul(P.T(), W)
			R.Mul(P, &M)
			R.Sub(W, &R)
			var svd mat.SVD
			if !svd.Factorize(&R, mat.SVDNone) {
				t.Fatal("svd failed")
			}
			sines := svd.Values(nil) // descending = largest angle first
			for k := range theta {
				want := math.Asin(math.Min(1, sines[sz.d-1-k]))
				// arccos resolves θ to ~1e-8 near 0; asin to ~1e-8 near π/2.
				if math.Abs(theta[k]-want) > 1e-7 {
					t.Errorf("D=%d d=%d proto %d angle %d: arccos %.12g, arcsin %.12g", sz.D, sz.d, j, k, theta[k], want)
				}
			}

			// d = 1: θ = arccos |pᵀ w|.
			if sz.d == 1 {
				want := math.Acos(math.Min(1, math.Sqrt(frob)))
				if math.Abs(theta[0]-want) > 1e-14 {
					t.Errorf("d=1: θ = %g, want %g", theta[0], want)
				}
			}
		}
	}
}

func TestDistancesWeighted(t *testing.T) {
	rng := newRand(2)
	for _, local := range []bool{false, true} {
		m := randModel(rng, 15, 4, 5, 3, local)
		P := randOrtho(rng, 15, 4)
		dist := m.Distances(P)
		angles := m.Angles(P)
		for j := range m.Prototypes {
			l := m.Lambda
			if local {
				l = m.LocalLambda[j]
			}
			want := 0.0
			for k, th := range angles[j] {
				want += l[k] * th * th
			}
			if math.Abs(dist[j]-want) > 1e-15 {
				t.Errorf("local=%v proto %d: distance %g, want %g", local, j, dist[j], want)
			}
		}
	}
}

func TestDistanceToItselfAndOrthogonal(t *testing.T) {
	rng := newRand(3)
	D, d := 10, 3
	m := randModel(rng, D, d, 2, 2, false)
	// A subspace spanned by the prototype's columns in another basis.
	var rot mat.Dense
	rot.Mul(m.Prototypes[0], randOrtho(rng, d, d))
	dist := m.Distances(&rot)
	if dist[0] > 1e-14 {
		t.Errorf("distance to own span = %g", dist[0])
	}
	// A subspace orthogonal to prototype 0: distance Σλ (π/2)² = (π/2)².
	B := randGauss(rng, D, d)
	var proj, M mat.Dense
	M.Mul(m.Prototypes[0].T(), B)
	proj.Mul(m.Prototypes[0], &M)
	B.Sub(B, &proj)
	Q := orthoMGS2(B)
	if got, want := m.Distances(Q)[0], math.Pi*math.Pi/4; math.Abs(got-want) > 1e-12 {
		t.Errorf("orthogonal: %g, want %g", got, want)
	}
}

func TestImageDistances(t *testing.T) {
	rng := newRand(4)
	D, d := 20, 4
	m := randModel(rng, D, d, 3, 3, false)
	x := make([]float64, D)
	for i := range x {
		x[i] = 3 * rng.NormFloat64()
	}
	got := m.ImageDistances(x)
	for j, W := range m.Prototypes {
		// Independent: cos = ‖W Wᵀ x‖/‖x‖, sin = ‖x - W Wᵀ x‖/‖x‖, θ = atan2.
		c := make([]float64, d)
		for k := 0; k < d; k++ {
			for i := 0; i < D; i++ {
				c[k] += W.At(i, k) * x[i]
			}
		}
		var nc, nr float64
		for i := 0; i < D; i++ {
			p := 0.0
			for k := 0; k < d; k++ {
				p += W.At(i, k) * c[k]
			}
			nc += p * p
			nr += (x[i] - p) * (x[i] - p)
		}
		th := math.Atan2(math.Sqrt(nr), math.Sqrt(nc))
		if math.Abs(got[j]-th*th) > 1e-12 {
			t.Errorf("proto %d: %g, want %g", j, got[j], th*th)
		}
	}
	// An image inside the span of prototype 1 is at distance ~0 and wins.
	for i := range x {
		x[i] = 0
		for k := 0; k < d; k++ {
			x[i] += m.Prototypes[1].At(i, k) * float64(k+1)
		}
	}
	label, dist := m.PredictImage(x)
	if label != m.Labels[1] || dist[1] > 1e-14 {
		t.Errorf("image in span of prototype 1: label %d, dists %v", label, dist)
	}
	// Zero image: NaN distances, label -1.
	for i := range x {
		x[i] = 0
	}
	if label, dist := m.PredictImage(x); label != -1 || !math.IsNaN(dist[0]) {
		t.Errorf("zero image: label %d, dists %v", label, dist)
	}
}

func TestWinnersTiesAndMissing(t *testing.T) {
	rng := newRand(5)
	D, d := 8, 2
	W := randOrtho(rng, D, d)
	other := randOrtho(rng, D, d)
	m := &Model{
		Prototypes: []*mat.Dense{other, mat.DenseCopyOf(W), mat.DenseCopyOf(W), mat.DenseCopyOf(W), mat.DenseCopyOf(W)},
		Labels:     []int{0, 1, 1, 2, 2},
		Lambda:     UniformLambda(d),
	}
	P := near(rng, W, 0.1)
	plus, minus, dp, dm := m.Winners(P, 1)
	if plus != 1 || minus != 3 || dp != dm {
		t.Errorf("ties: plus %d minus %d (%g, %g), want 1, 3", plus, minus, dp, dm)
	}
	if label, _ := m.PredictSet(P); label != 1 {
		t.Errorf("predict with tie: label %d, want 1 (lowest index)", label)
	}
	plus, minus, _, _ = m.Winners(P, 7) // no prototype of class 7
	if plus != -1 || minus != 1 {
		t.Errorf("missing class: plus %d minus %d", plus, minus)
	}
	// NaN sample: NaN distances, label -1, no winners.
	P.Set(0, 0, math.NaN())
	if label, dist := m.PredictSet(P); label != -1 || !math.IsNaN(dist[0]) {
		t.Errorf("NaN sample: label %d dists %v", label, dist)
	}
}

func TestThetaOverSin(t *testing.T) {
	if v := thetaOverSin(0); v != 1 {
		t.Errorf("θ/sinθ at 0 = %g", v)
	}
	// Continuity across the series threshold and accuracy on both sides.
	for _, th := range []float64{1e-8, 1e-5, 9.999e-4, 1e-3, 1.0001e-3, 0.1, 1, math.Pi / 2} {
		want := th / math.Sin(th)
		if got := thetaOverSin(th); math.Abs(got-want) > 4e-16*want {
			t.Errorf("θ/sinθ(%g) = %.17g, want %.17g", th, got, want)
		}
	}
}
