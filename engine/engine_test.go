package engine

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/svd"
	"gonum.org/v1/gonum/mat"
)

func rng(stream uint64) *rand.Rand { return rand.New(rand.NewPCG(99, stream)) }

func randomBasis(t testing.TB, dim, d int, r *rand.Rand) *linalg.Dense {
	t.Helper()
	q := linalg.NewDense(dim, d)
	if err := linalg.RandomOrthonormal(q, r); err != nil {
		t.Fatal(err)
	}
	return q
}

// newEngine returns an engine whose prototypes are random orthonormal bases
// drawn from a fixed stream (the same for every worker count).
func newEngine(t testing.TB, dim, d, p, workers int) *Engine {
	t.Helper()
	e, err := New(dim, d, p, workers)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	r := rng(1)
	for k := 0; k < p; k++ {
		if err := e.SetPrototype(k, randomBasis(t, dim, d, r)); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

func toMat(a *linalg.Dense) *mat.Dense {
	m := mat.NewDense(a.Rows, a.Cols, nil)
	for r := 0; r < a.Rows; r++ {
		for c := 0; c < a.Cols; c++ {
			m.Set(r, c, a.At(r, c))
		}
	}
	return m
}

// gonumAngles is the reference: θ = arccos(clamp(σ)) of the singular values
// of Pᵀ W (gonum Mul and SVD), and Σ λ_i θ_i².
func gonumAngles(P, W *linalg.Dense, lambda []float64) (theta []float64, dist float64, m *mat.Dense) {
	m = &mat.Dense{}
	m.Mul(toMat(P).T(), toMat(W))
	var s mat.SVD
	if !s.Factorize(m, mat.SVDNone) {
		panic("gonum SVD failed")
	}
	for i, v := range s.Values(nil) {
		th := math.Acos(math.Min(math.Max(v, 0), 1))
		theta = append(theta, th)
		dist += lambda[i] * th * th
	}
	return theta, dist, m
}

func uniform(d int) []float64 {
	l := make([]float64, d)
	for i := range l {
		l[i] = 1 / float64(d)
	}
	return l
}

func TestNewErrors(t *testing.T) {
	for _, c := range [][3]int{{10, 0, 1}, {3, 4, 1}, {10, 2, 0}, {100, svd.MaxSmall + 1, 1}} {
		if _, err := New(c[0], c[1], c[2], 1); !errors.Is(err, ErrShape) {
			t.Errorf("New%v: got %v", c, err)
		}
	}
	e, err := New(20, 3, 5, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if w := e.Workers(); w != min(5, runtime.GOMAXPROCS(0)) {
		t.Errorf("workers <= 0 gave %d workers", w)
	}
	e2, err := New(20, 3, 2, 8)
	if err != nil {
		t.Fatal(err)
	}
	defer e2.Close()
	if e2.Workers() != 2 {
		t.Errorf("workers not capped at p: %d", e2.Workers())
	}
}

func TestDistancesMatchGonum(t *testing.T) {
	const dim, d, p = 200, 6, 7
	for _, workers := range []int{1, 3} {
		e := newEngine(t, dim, d, p, workers)
		r := rng(2)
		P := randomBasis(t, dim, d, r)
		// Per-prototype relevances, and one prototype sharing 3 directions
		// with P (three angles near 0).
		lambda := make([]float64, p*d)
		for i := range lambda {
			lambda[i] = r.Float64()
		}
		w := e.Prototype(4)
		for row := 0; row < dim; row++ {
			for c := 0; c < 3; c++ {
				w.Set(row, c, P.At(row, c))
			}
		}
		if err := linalg.NewOrthonormalizer(dim, d).Orthonormalize(w); err != nil {
			t.Fatal(err)
		}
		dist := make([]float64, p)
		theta := make([]float64, p*d)
		if err := e.Distances(dist, theta, P, lambda); err != nil {
			t.Fatal(err)
		}
		for k := 0; k < p; k++ {
			wantTheta, wantDist, m := gonumAngles(P, e.Prototype(k), lambda[k*d:])
			// arccos resolves angles near 0 only to about 1e-8.
			for i, want := range wantTheta {
				tol := 1e-12
				if want < 1e-4 {
					tol = 1e-7
				}
				if got := theta[k*d+i]; !(math.Abs(got-want) <= tol) {
					t.Errorf("workers %d, prototype %d, θ_%d = %v, gonum %v", workers, k, i, got, want)
				}
			}
			if !(math.Abs(dist[k]-wantDist) <= 1e-12) {
				t.Errorf("workers %d, prototype %d: dist %v, gonum %v", workers, k, dist[k], wantDist)
			}
			proj := e.Projection(k)
			for i := 0; i < d; i++ {
				for j := 0; j < d; j++ {
					if got := proj[i*e.ProjStride()+j]; !(math.Abs(got-m.At(i, j)) <= 1e-13) {
						t.Fatalf("Projection(%d)[%d,%d] = %v, gonum %v", k, i, j, got, m.At(i, j))
					}
				}
			}
			for i := 1; i < d; i++ {
				if theta[k*d+i] < theta[k*d+i-1] {
					t.Errorf("prototype %d: angles not ascending: %v", k, theta[k*d:k*d+d])
				}
			}
		}
		if theta[4*d+2] > 1e-7 {
			t.Errorf("shared directions: θ = %v", theta[4*d:5*d])
		}
	}
}

func TestImageDistancesMatchGonum(t *testing.T) {
	const dim, d, p = 150, 5, 6
	e := newEngine(t, dim, d, p, 2)
	r := rng(3)
	x := make([]float64, dim)
	for i := range x {
		x[i] = r.NormFloat64() * 3
	}
	// Prototype 2 contains x: angle 0.
	w := e.Prototype(2)
	for row := 0; row < dim; row++ {
		w.Set(row, 0, x[row])
	}
	if err := linalg.NewOrthonormalizer(dim, d).Orthonormalize(w); err != nil {
		t.Fatal(err)
	}
	dist, theta := make([]float64, p), make([]float64, p)
	if err := e.ImageDistances(dist, theta, x); err != nil {
		t.Fatal(err)
	}
	xv := mat.NewVecDense(dim, append([]float64(nil), x...))
	for k := 0; k < p; k++ {
		var y mat.VecDense
		y.MulVec(toMat(e.Prototype(k)).T(), xv)
		want := math.Acos(math.Min(mat.Norm(&y, 2)/mat.Norm(xv, 2), 1))
		tol := 1e-12
		if want < 1e-4 {
			tol = 1e-7
		}
		if !(math.Abs(theta[k]-want) <= tol) || dist[k] != theta[k]*theta[k] {
			t.Errorf("prototype %d: θ %v dist %v, gonum θ %v", k, theta[k], dist[k], want)
		}
	}
	if theta[2] > 1e-7 {
		t.Errorf("image in span: θ = %v", theta[2])
	}
}

func sameBits(t *testing.T, what string, a, b []float64) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%s: lengths %d, %d", what, len(a), len(b))
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			t.Fatalf("%s: element %d differs: %v vs %v", what, i, a[i], b[i])
		}
	}
}

// results runs every form on the same inputs.
type results struct{ dist, theta, proj, idist, itheta, bdist, bidist []float64 }

func runAll(t *testing.T, e *Engine, sets []*linalg.Dense, images []float64, lambda []float64) results {
	dim, d, p := e.Dims()
	n := len(sets)
	res := results{
		dist: make([]float64, n*p), theta: make([]float64, n*p*d), proj: make([]float64, 0, n*p*d*d),
		idist: make([]float64, n*p), itheta: make([]float64, n*p),
		bdist: make([]float64, n*p), bidist: make([]float64, n*p),
	}
	for i, s := range sets {
		if err := e.Distances(res.dist[i*p:(i+1)*p], res.theta[i*p*d:(i+1)*p*d], s, lambda); err != nil {
			t.Fatal(err)
		}
		for k := 0; k < p; k++ {
			m := make([]float64, d*d)
			e.copyProj(m, k)
			res.proj = append(res.proj, m...)
		}
		if err := e.ImageDistances(res.idist[i*p:(i+1)*p], res.itheta[i*p:(i+1)*p], images[i*dim:(i+1)*dim]); err != nil {
			t.Fatal(err)
		}
	}
	if err := e.DistancesBatch(res.bdist, sets, lambda); err != nil {
		t.Fatal(err)
	}
	if err := e.ImageDistancesBatch(res.bidist, images, dim, n); err != nil {
		t.Fatal(err)
	}
	return res
}

// layoutsAndWorkers lists the training engines the bit-identity tests
// compare, the reference first (one worker, prototypes side by side):
// 1, 2 and 8 workers with the float64 prototypes side by side at every
// d, then each in its own block at every d (ownBlockMinDim).
func layoutsAndWorkers() []struct{ ownFrom, workers int } {
	var l []struct{ ownFrom, workers int }
	for _, own := range []int{math.MaxInt, 1} {
		for _, w := range []int{1, 2, 8} {
			l = append(l, struct{ ownFrom, workers int }{own, w})
		}
	}
	return l
}

// setOwnBlockMinDim sets ownBlockMinDim until the end of the test.
func setOwnBlockMinDim(t *testing.T, v int) {
	old := ownBlockMinDim
	t.Cleanup(func() { ownBlockMinDim = old })
	ownBlockMinDim = v
}

func TestBitIdenticalAcrossWorkers(t *testing.T) {
	for _, tc := range []struct{ dim, d, p int }{{784, 12, 10}, {100, 5, 13}, {64, 3, 1}, {120, 5, 70}} { // the last with rows wider than a page
		r := rng(4)
		const n = 9
		sets := make([]*linalg.Dense, n)
		images := make([]float64, n*tc.dim)
		for i := range sets {
			sets[i] = randomBasis(t, tc.dim, tc.d, r)
		}
		for i := range images {
			images[i] = r.Float64()
		}
		lambdas := [][]float64{uniform(tc.d), make([]float64, tc.p*tc.d)}
		for i := range lambdas[1] {
			lambdas[1][i] = r.Float64()
		}
		for li, lambda := range lambdas {
			var ref results
			for _, lw := range layoutsAndWorkers() {
				setOwnBlockMinDim(t, lw.ownFrom)
				workers := lw.workers
				e := newEngine(t, tc.dim, tc.d, tc.p, workers)
				got := runAll(t, e, sets, images, lambda)
				// The batch forms equal the single forms in a loop.
				sameBits(t, "DistancesBatch vs Distances", got.bdist, got.dist)
				sameBits(t, "ImageDistancesBatch vs ImageDistances", got.bidist, got.idist)
				if ref.dist == nil {
					ref = got
					continue
				}
				name := func(s string) string {
					return fmt.Sprintf("%s, %d workers, own blocks from d = %d, lambda %d", s, workers, lw.ownFrom, li)
				}
				sameBits(t, name("dist"), got.dist, ref.dist)
				sameBits(t, name("theta"), got.theta, ref.theta)
				sameBits(t, name("proj"), got.proj, ref.proj)
				sameBits(t, name("idist"), got.idist, ref.idist)
				sameBits(t, name("itheta"), got.itheta, ref.itheta)
				sameBits(t, name("bdist"), got.bdist, ref.bdist)
				sameBits(t, name("bidist"), got.bidist, ref.bidist)
			}
		}
	}
}

// The engine's determinism relies on this property of svd.Batch: a
// matrix's singular values do not depend on where in a batch it sits or on
// its neighbours.
func TestSVDBatchPositionIndependent(t *testing.T) {
	const d, k = 12, 21
	r := rng(5)
	a := make([]float64, k*d*d)
	for i := range a {
		a[i] = r.NormFloat64()
	}
	ref := make([]float64, k*d)
	sv := svd.NewBatch(d)
	if err := sv.Values(ref, d, a, d, d*d, k); err != nil {
		t.Fatal(err)
	}
	for lo := 0; lo < k; lo++ {
		for hi := lo + 1; hi <= k; hi++ {
			s := make([]float64, (hi-lo)*d)
			if err := sv.Values(s, d, a[lo*d*d:], d, d*d, hi-lo); err != nil {
				t.Fatal(err)
			}
			sameBits(t, "svd batch sub-range", s, ref[lo*d:hi*d])
		}
	}
}

func TestPrototypeChangesSeen(t *testing.T) {
	const dim, d, p = 60, 4, 5
	e := newEngine(t, dim, d, p, 2)
	r := rng(6)
	P := randomBasis(t, dim, d, r)
	dist := make([]float64, p)
	if err := e.Distances(dist, nil, P, uniform(d)); err != nil {
		t.Fatal(err)
	}
	if dist[3] < 1e-3 {
		t.Fatal("random prototype unexpectedly close")
	}
	// Prototype 3 (in the second shard) becomes P itself.
	e.Prototype(3).CopyFrom(P)
	if err := e.Distances(dist, nil, P, uniform(d)); err != nil {
		t.Fatal(err)
	}
	if dist[3] > 1e-12 {
		t.Fatalf("modified prototype not seen: dist %v", dist[3])
	}
	x := make([]float64, dim)
	for i := range x {
		x[i] = P.At(i, 1)
	}
	idist := make([]float64, p)
	if err := e.ImageDistances(idist, nil, x); err != nil {
		t.Fatal(err)
	}
	if idist[3] > 1e-12 || idist[0] < 1e-3 {
		t.Fatalf("image distances %v", idist)
	}
}

func TestErrors(t *testing.T) {
	const dim, d, p = 40, 3, 4
	e := newEngine(t, dim, d, p, 2)
	r := rng(7)
	P := randomBasis(t, dim, d, r)
	lam := uniform(d)
	dist, theta := make([]float64, p), make([]float64, p*d)
	x := make([]float64, dim)
	for i := range x {
		x[i] = r.NormFloat64()
	}
	check := func(name string, err, want error) {
		t.Helper()
		if !errors.Is(err, want) {
			t.Errorf("%s: got %v, want %v", name, err, want)
		}
	}
	check("short dist", e.Distances(dist[:p-1], nil, P, lam), ErrShape)
	check("short theta", e.Distances(dist, theta[:5], P, lam), ErrShape)
	check("wrong P", e.Distances(dist, nil, linalg.NewDense(dim, d+1), lam), ErrShape)
	check("nil P", e.Distances(dist, nil, nil, lam), ErrShape)
	check("lambda length", e.Distances(dist, nil, P, lam[:2]), ErrShape)
	check("lambda NaN", e.Distances(dist, nil, P, []float64{1, math.NaN(), 0}), ErrNotFinite)
	check("image length", e.ImageDistances(dist, nil, x[:dim-1]), ErrShape)
	check("zero image", e.ImageDistances(dist, nil, make([]float64, dim)), ErrZeroImage)
	check("batch dist length", e.DistancesBatch(dist, []*linalg.Dense{P, P}, lam), ErrShape)
	check("batch set shape", e.DistancesBatch(make([]float64, 2*p), []*linalg.Dense{P, linalg.NewDense(dim-1, d)}, lam), ErrShape)
	check("image batch ldx", e.ImageDistancesBatch(make([]float64, 2*p), x, dim-1, 2), ErrShape)
	check("image batch short x", e.ImageDistancesBatch(make([]float64, 2*p), x, dim, 2), ErrShape)

	bad := linalg.NewDense(dim, d)
	bad.CopyFrom(P)
	bad.Set(7, 1, math.NaN())
	check("NaN sample", e.Distances(dist, nil, bad, lam), ErrNotFinite)
	check("NaN sample batch", e.DistancesBatch(make([]float64, 2*p), []*linalg.Dense{P, bad}, lam), ErrNotFinite)
	xi := append([]float64(nil), x...)
	xi[3] = math.Inf(-1)
	check("Inf image", e.ImageDistances(dist, nil, xi), ErrNotFinite)
	images := append(append([]float64(nil), x...), make([]float64, dim)...)
	check("zero image in batch", e.ImageDistancesBatch(make([]float64, 2*p), images, dim, 2), ErrZeroImage)

	// A prototype that went bad (in the second shard) is named.
	e.Prototype(3).Set(0, 0, math.Inf(1))
	err := e.Distances(dist, nil, P, lam)
	check("Inf prototype", err, ErrNotFinite)
	if err == nil || !contains(err.Error(), "prototype 3") {
		t.Errorf("error does not name prototype 3: %v", err)
	}
	check("Inf prototype image", e.ImageDistances(dist, nil, x), ErrNotFinite)

	e.Close()
	e.Close()
	check("closed", e.Distances(dist, nil, P, lam), ErrClosed)
	check("closed image", e.ImageDistances(dist, nil, x), ErrClosed)
	check("closed batch", e.DistancesBatch(nil, nil, lam), ErrClosed)
	check("closed image batch", e.ImageDistancesBatch(nil, nil, dim, 0), ErrClosed)
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

func TestAllocs(t *testing.T) {
	const dim, d, p = 100, 6, 8
	e := newEngine(t, dim, d, p, 2)
	r := rng(8)
	P := randomBasis(t, dim, d, r)
	sets := []*linalg.Dense{P, randomBasis(t, dim, d, r), randomBasis(t, dim, d, r)}
	x := make([]float64, 3*dim)
	for i := range x {
		x[i] = r.NormFloat64()
	}
	lam := uniform(d)
	dist, theta, bdist := make([]float64, p), make([]float64, p*d), make([]float64, 3*p)
	for name, f := range map[string]func() error{
		"Distances":           func() error { return e.Distances(dist, theta, P, lam) },
		"ImageDistances":      func() error { return e.ImageDistances(dist, dist, x[:dim]) },
		"DistancesBatch":      func() error { return e.DistancesBatch(bdist, sets, lam) },
		"ImageDistancesBatch": func() error { return e.ImageDistancesBatch(bdist, x, dim, 3) },
	} {
		var err error
		if n := testing.AllocsPerRun(50, func() { err = f() }); n != 0 {
			t.Errorf("%s: %v allocations per call", name, n)
		}
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestParkedWorkers runs with no spinning, so every call wakes parked
// workers, interleaved with pauses longer than the spin time.
func TestParkedWorkers(t *testing.T) {
	for _, spin := range []time.Duration{0, time.Microsecond, 200 * time.Microsecond} {
		old := SpinTime()
		SetSpinTime(spin)
		e := newEngine(t, 50, 3, 9, 4)
		SetSpinTime(old)
		P := randomBasis(t, 50, 3, rng(9))
		ref := make([]float64, 9)
		if err := e.Distances(ref, nil, P, uniform(3)); err != nil {
			t.Fatal(err)
		}
		dist := make([]float64, 9)
		for i := 0; i < 200; i++ {
			if i%50 == 0 {
				time.Sleep(time.Millisecond)
			}
			if err := e.Distances(dist, nil, P, uniform(3)); err != nil {
				t.Fatal(err)
			}
			sameBits(t, "repeat", dist, ref)
		}
		e.Close()
	}
}

func TestCloseNoLeak(t *testing.T) {
	before := runtime.NumGoroutine()
	for i := 0; i < 5; i++ {
		e, err := New(30, 2, 8, 8)
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			time.Sleep(2 * time.Millisecond) // let the workers park
		}
		e.Close()
		e.Close()
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines before, %d after Close", before, n)
	}
}
