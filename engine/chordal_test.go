package engine

import (
	"math"
	"testing"

	"github.com/grlgq/grlgq/linalg"
	"gonum.org/v1/gonum/mat"
)

// withKind runs f with every new Engine and Shared computing distances
// of kind k.
func withKind(t *testing.T, k DistanceKind, f func(t *testing.T)) {
	saved := newKind
	newKind = k
	defer func() { newKind = saved }()
	f(t)
}

// TestChordalSearches runs the searches' tests (bounds of both tiers and
// of the pivots against Distances, Winners and Nearest against a scan of
// Distances, bit for bit, with 1, 2 and 3 workers, Shared against Engine,
// no allocations) on the chordal distance.
func TestChordalSearches(t *testing.T) {
	withKind(t, Chordal, func(t *testing.T) {
		t.Run("SearchBounds", TestSearchBounds)
		t.Run("WinnersExhaustive", TestWinnersExhaustive)
		t.Run("WinnersExhaustiveRoute", TestWinnersExhaustiveRoute)
		t.Run("WinnersAllocs", TestWinnersAllocs)
		t.Run("NearestExhaustive", TestNearestExhaustive)
		t.Run("NearestPivots", TestNearestPivots)
		t.Run("PivotBounds", TestPivotBounds)
		t.Run("SharedNearest", TestSharedNearest)
		t.Run("NearestAllocs", TestNearestAllocs)
	})
}

// TestChordalBitIdentical runs the determinism tests (every form, 1, 2
// and 8 workers, Engine and Shared) on the chordal distance.
func TestChordalBitIdentical(t *testing.T) {
	withKind(t, Chordal, func(t *testing.T) {
		t.Run("AcrossWorkers", TestBitIdenticalAcrossWorkers)
		t.Run("Shared", TestSharedBitIdentical)
		t.Run("Allocs", TestAllocs)
	})
}

// gonumSines is the chordal reference: Σ λ_i (1 − σ_i²) of the singular
// values of Pᵀ W (gonum), and ‖P Pᵀ − W Wᵀ‖²_F / 2 (gonum), which equals
// Σ sin²θ_i.
func gonumSines(P, W *linalg.Dense, lambda []float64) (dist, proj float64) {
	m := &mat.Dense{}
	m.Mul(toMat(P).T(), toMat(W))
	var s mat.SVD
	if !s.Factorize(m, mat.SVDNone) {
		panic("gonum SVD failed")
	}
	for i, v := range s.Values(nil) {
		v = math.Min(math.Max(v, 0), 1)
		dist += lambda[i] * (1 - v*v)
	}
	var a, b mat.Dense
	a.Mul(toMat(P), toMat(P).T())
	b.Mul(toMat(W), toMat(W).T())
	a.Sub(&a, &b)
	f := mat.Norm(&a, 2)
	return dist, f * f / 2
}

// TestChordalDistancesMatchGonum checks the chordal Distances against
// gonum's singular values and the projection (Frobenius) distance, the
// angles against the geodesic engine's bit for bit, and single images
// against sin²θ_1 from gonum.
func TestChordalDistancesMatchGonum(t *testing.T) {
	const dim, d, p = 120, 5, 7
	for _, workers := range []int{1, 3} {
		geo := newEngine(t, dim, d, p, workers)
		ch := newEngine(t, dim, d, p, workers)
		if err := ch.SetDistanceKind(Chordal); err != nil {
			t.Fatal(err)
		}
		if ch.DistanceKind() != Chordal || geo.DistanceKind() != Geodesic {
			t.Fatalf("kinds %v %v", ch.DistanceKind(), geo.DistanceKind())
		}
		r := rng(70)
		P := randomBasis(t, dim, d, r)
		for k := 0; k < p; k++ {
			var w *linalg.Dense
			switch k {
			case 3:
				w = perturbed(t, P, 1e-6, r)
			case 4:
				w = perturbed(t, P, 0, r) // P itself: every angle 0
			default:
				w = perturbed(t, P, 0.3*float64(k), r)
			}
			for _, e := range []*Engine{geo, ch} {
				if err := e.SetPrototype(k, w); err != nil {
					t.Fatal(err)
				}
			}
		}
		lambda := make([]float64, p*d)
		for i := range lambda {
			lambda[i] = r.Float64()
		}
		dg, dc := make([]float64, p), make([]float64, p)
		tg, tc := make([]float64, p*d), make([]float64, p*d)
		if err := geo.Distances(dg, tg, P, lambda); err != nil {
			t.Fatal(err)
		}
		if err := ch.Distances(dc, tc, P, lambda); err != nil {
			t.Fatal(err)
		}
		sameBits(t, "chordal angles vs geodesic angles", tc, tg)
		for k := 0; k < p; k++ {
			lam := lambda[k*d : (k+1)*d]
			want, _ := gonumSines(P, ch.protos[k], lam)
			if !(math.Abs(dc[k]-want) <= 1e-13) {
				t.Errorf("workers %d, prototype %d: chordal %v, gonum %v", workers, k, dc[k], want)
			}
			_, frob := gonumSines(P, ch.protos[k], uniform(d))
			unif := make([]float64, p)
			if err := ch.Distances(unif, nil, P, uniform(d)); err != nil {
				t.Fatal(err)
			}
			if !(math.Abs(float64(d)*unif[k]-frob) <= 1e-12) {
				t.Errorf("prototype %d: d·chordal(1/d) %v, ‖PPᵀ − WWᵀ‖²_F/2 %v", k, float64(d)*unif[k], frob)
			}
			// The value form of the kind gives Distances' bits.
			sig := make([]float64, d)
			if err := ch.shards[0].sv.Values(sig, d, ch.Projection(k), ch.ProjStride(), d*d, 1); err != nil {
				t.Fatal(err)
			}
			if got := Chordal.Value(nil, sig, lam); math.Float64bits(got) != math.Float64bits(dc[k]) {
				t.Errorf("prototype %d: Chordal.Value %v, Distances %v", k, got, dc[k])
			}
			if got := Geodesic.Value(nil, sig, lam); math.Float64bits(got) != math.Float64bits(dg[k]) {
				t.Errorf("prototype %d: Geodesic.Value %v, Distances %v", k, got, dg[k])
			}
		}
		if dc[4] > 1e-15 {
			t.Errorf("identical subspaces: chordal %v", dc[4])
		}

		// Single images: sin²θ_1.
		x := make([]float64, dim)
		for i := range x {
			x[i] = r.NormFloat64()
		}
		di, ti := make([]float64, p), make([]float64, p)
		if err := ch.ImageDistances(di, ti, x); err != nil {
			t.Fatal(err)
		}
		xv := mat.NewVecDense(dim, append([]float64(nil), x...))
		for k := 0; k < p; k++ {
			var y mat.VecDense
			y.MulVec(toMat(ch.protos[k]).T(), xv)
			c := math.Min(mat.Norm(&y, 2)/mat.Norm(xv, 2), 1)
			if want := 1 - c*c; !(math.Abs(di[k]-want) <= 1e-14) {
				t.Errorf("image, prototype %d: chordal %v, gonum %v", k, di[k], want)
			}
			if want := math.Acos(c); !(math.Abs(ti[k]-want) <= 1e-7) {
				t.Errorf("image, prototype %d: θ %v, gonum %v", k, ti[k], want)
			}
		}
		geo.Close()
		ch.Close()
	}
	if err := (&Engine{}).SetDistanceKind(Chordal + 1); err == nil {
		t.Error("unknown kind accepted")
	}
}

// TestChordalMetric checks the chordal pivot metric's triangle inequality
// ρ_m(X, Z) <= ρ_m(X, Y) + ρ_m(Y, Z) on random and clustered triples,
// for nondecreasing weights m (the proof is in chordal.go), from gonum's
// singular values.
func TestChordalMetric(t *testing.T) {
	r := rng(71)
	rho := func(a, b *linalg.Dense, m []float64) float64 {
		var mm mat.Dense
		mm.Mul(toMat(a).T(), toMat(b))
		var s mat.SVD
		if !s.Factorize(&mm, mat.SVDNone) {
			t.Fatal("svd")
		}
		var sum float64
		for j, v := range s.Values(nil) { // descending σ: ascending angles
			v = math.Min(v, 1)
			sum += m[j] * (1 - v*v)
		}
		return math.Sqrt(sum)
	}
	worst := math.Inf(1)
	for _, sh := range [][2]int{{6, 2}, {8, 3}, {30, 4}, {5, 3}} { // 5, 3: D < 2d
		dim, d := sh[0], sh[1]
		for trial := 0; trial < 300; trial++ {
			m := make([]float64, d)
			run := 0.0
			for j := range m {
				run += r.Float64() * float64(trial%3)
				m[j] = run + 1e-3
			}
			X := randomBasis(t, dim, d, r)
			scale := []float64{0.05, 0.5, 3}[trial%3]
			Y, Z := perturbed(t, X, scale, r), perturbed(t, X, scale, r)
			for _, tr := range [][3]*linalg.Dense{{X, Y, Z}, {Y, X, Z}, {X, Z, Y}} {
				lhs := rho(tr[0], tr[2], m)
				rhs := rho(tr[0], tr[1], m) + rho(tr[1], tr[2], m)
				if lhs > rhs+1e-12 {
					t.Errorf("D=%d d=%d m=%v: ρ(X,Z) = %.17g > ρ(X,Y) + ρ(Y,Z) = %.17g", dim, d, m, lhs, rhs)
				}
				worst = min(worst, rhs-lhs)
			}
		}
	}
	t.Logf("least slack of the triangle inequality: %.3g", worst)
}
