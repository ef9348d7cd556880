package engine

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"

	"github.com/grlgq/grlgq/linalg"
)

// newShared returns a Shared with the prototypes of newEngine (the same
// stream), and that engine with one worker.
func newShared(t testing.TB, dim, d, p, workers int) (*Shared, *Engine) {
	t.Helper()
	e := newEngine(t, dim, d, p, 1)
	protos := make([]*linalg.Dense, p)
	for k := range protos {
		protos[k] = linalg.NewDense(dim, d)
		protos[k].CopyFrom(e.protos[k])
	}
	sh, err := NewShared(dim, d, protos, workers)
	if err != nil {
		t.Fatal(err)
	}
	return sh, e
}

// runShared is runAll for a Shared (no projections).
func runShared(t *testing.T, sh *Shared, sets []*linalg.Dense, images []float64, lambda []float64) results {
	dim, d, p := sh.Dims()
	n := len(sets)
	res := results{
		dist: make([]float64, n*p), theta: make([]float64, n*p*d),
		idist: make([]float64, n*p), itheta: make([]float64, n*p),
		bdist: make([]float64, n*p), bidist: make([]float64, n*p),
	}
	for i, s := range sets {
		if err := sh.Distances(res.dist[i*p:(i+1)*p], res.theta[i*p*d:(i+1)*p*d], s, lambda); err != nil {
			t.Fatal(err)
		}
		if err := sh.ImageDistances(res.idist[i*p:(i+1)*p], res.itheta[i*p:(i+1)*p], images[i*dim:(i+1)*dim]); err != nil {
			t.Fatal(err)
		}
	}
	if err := sh.DistancesBatch(res.bdist, sets, lambda); err != nil {
		t.Fatal(err)
	}
	if err := sh.ImageDistancesBatch(res.bidist, images, dim, n); err != nil {
		t.Fatal(err)
	}
	return res
}

// samplesAndImages draws n random dim x d bases and, after each, an image
// of dim pixels with the sparsity patterns in turn (images back to back).
func samplesAndImages(t *testing.T, r *rand.Rand, dim, d, n int) ([]*linalg.Dense, []float64) {
	t.Helper()
	sets := make([]*linalg.Dense, n)
	images := make([]float64, 0, n*dim)
	for i := range sets {
		sets[i] = randomBasis(t, dim, d, r)
		images = append(images, sparseImage(r, dim, sparsePatterns[i%len(sparsePatterns)])...)
	}
	return sets, images
}

// TestSharedBitIdentical: a Shared gives a one-worker Engine's bits in
// every form, for any number of batch workers, on dense and sparse images
// and with batches large enough to be split. Run it under
// GRLGQ_KERNELS=avx2|generic and -tags purego too.
func TestSharedBitIdentical(t *testing.T) {
	forEachLayout(t, testSharedBitIdentical)
}

// forEachLayout runs test once in each layout of a Shared's prototypes
// and its reference Engine's: both wide at every d (the Shared as shipped
// below PivotMinP), both as shipped (the Engine's own blocks from d =
// ownBlockMinDim; the Shared's blocks of sharedBlock from PivotMinP
// prototypes for smaller d), and the Shared's prototypes in blocks of
// sharedBlock, of 3 and of 1 at every p (sharedOwnMin forced to 1: a
// worker's range then starts inside a block).
func forEachLayout(t *testing.T, test func(t *testing.T)) {
	for _, l := range []struct{ ownFrom, ownDim, block int }{
		{PivotMinP, math.MaxInt, sharedBlock}, {PivotMinP, ownBlockMinDim, sharedBlock},
		{1, math.MaxInt, sharedBlock}, {1, math.MaxInt, 3}, {1, math.MaxInt, 1},
	} {
		t.Run(fmt.Sprintf("ownBlocksFrom=%d,d>=%d,block=%d", l.ownFrom, l.ownDim, l.block), func(t *testing.T) {
			defer func(p, d, b int) { sharedOwnMin, ownBlockMinDim, sharedBlock = p, d, b }(sharedOwnMin, ownBlockMinDim, sharedBlock)
			sharedOwnMin, ownBlockMinDim, sharedBlock = l.ownFrom, l.ownDim, l.block
			test(t)
		})
	}
}

// testSharedBitIdentical is TestSharedBitIdentical for the current
// sharedOwnMin (the layout: each prototype its own block from there on).
func testSharedBitIdentical(t *testing.T) {
	defer func(old float64) { splitWork = old }(splitWork)
	for _, tc := range []struct{ dim, d, p, n int }{{784, 12, 10, 70}, {100, 5, 13, 9}, {64, 3, 1, 40}, {37, 1, 9, 5}, {200, 13, 17, 33}, {60, 5, 61, 6}, {50, 6, 67, 5}} {
		r := rng(40)
		sets, images := samplesAndImages(t, r, tc.dim, tc.d, tc.n)
		lambdas := [][]float64{uniform(tc.d), make([]float64, tc.p*tc.d)}
		for i := range lambdas[1] {
			lambdas[1][i] = r.Float64()
		}
		for _, lambda := range lambdas {
			var want results
			for _, workers := range []int{1, 2, 8} {
				for _, split := range []float64{2e6, 0} { // as shipped; split whatever the size
					splitWork = split
					sh, e := newShared(t, tc.dim, tc.d, tc.p, workers)
					if want.dist == nil {
						want = runAll(t, e, sets, images, lambda)
					}
					got := runShared(t, sh, sets, images, lambda)
					sameBits(t, "dist", got.dist, want.dist)
					sameBits(t, "theta", got.theta, want.theta)
					sameBits(t, "idist", got.idist, want.idist)
					sameBits(t, "itheta", got.itheta, want.itheta)
					sameBits(t, "bdist", got.bdist, want.bdist)
					sameBits(t, "bidist", got.bidist, want.bidist)
				}
			}
		}
	}
}

// TestSharedConcurrent: many goroutines use one Shared at once, single and
// batch calls mixed (meant for -race), and all get the same bits.
func TestSharedConcurrent(t *testing.T) {
	defer func(old float64) { splitWork = old }(splitWork)
	splitWork = 0 // batch calls start helpers too
	const dim, d, p, n = 120, 4, 11, 40
	sh, e := newShared(t, dim, d, p, 3)
	r := rng(41)
	sets, images := samplesAndImages(t, r, dim, d, n)
	lam := uniform(d)
	want := runAll(t, e, sets, images, lam)
	var wg sync.WaitGroup
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dist, theta := make([]float64, p), make([]float64, p*d)
			bdist := make([]float64, n*p)
			for rep := 0; rep < 3; rep++ {
				for i := (g * 7) % n; i < n; i += 3 {
					if err := sh.Distances(dist, theta, sets[i], lam); err != nil {
						t.Error(err)
						return
					}
					if !equalBits(dist, want.dist[i*p:(i+1)*p]) || !equalBits(theta, want.theta[i*p*d:(i+1)*p*d]) {
						t.Errorf("goroutine %d: Distances of set %d differ", g, i)
						return
					}
					if err := sh.ImageDistances(dist, theta[:p], images[i*dim:(i+1)*dim]); err != nil {
						t.Error(err)
						return
					}
					if !equalBits(dist, want.idist[i*p:(i+1)*p]) {
						t.Errorf("goroutine %d: ImageDistances of image %d differ", g, i)
						return
					}
				}
				var err error
				if g%2 == 0 {
					err = sh.DistancesBatch(bdist, sets, lam)
				} else {
					err = sh.ImageDistancesBatch(bdist, images, dim, n)
				}
				if err != nil {
					t.Error(err)
					return
				}
				if w := [2][]float64{want.dist, want.idist}[g%2]; !equalBits(bdist, w) {
					t.Errorf("goroutine %d: batch differs", g)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func equalBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return false
		}
	}
	return true
}

// TestSharedErrors: the engine's errors, the lowest failing sample of a
// split batch whoever found it, and no goroutine left behind.
func TestSharedErrors(t *testing.T) {
	defer func(old float64) { splitWork = old }(splitWork)
	splitWork = 0
	const dim, d, p = 40, 3, 4
	before := runtime.NumGoroutine()
	sh, _ := newShared(t, dim, d, p, 4)
	r := rng(42)
	P := randomBasis(t, dim, d, r)
	lam := uniform(d)
	dist := make([]float64, p)
	x := make([]float64, dim)
	for i := range x {
		x[i] = r.NormFloat64()
	}
	check := func(name string, err, want error, text string) {
		t.Helper()
		if !errors.Is(err, want) {
			t.Errorf("%s: got %v, want %v", name, err, want)
		}
		if err != nil && text != "" && !contains(err.Error(), text) {
			t.Errorf("%s: %q does not say %q", name, err, text)
		}
	}
	_, err := NewShared(dim, d, []*linalg.Dense{P, linalg.NewDense(dim, d+1)}, 1)
	check("NewShared shape", err, ErrShape, "prototype 1")
	_, err = NewShared(dim, d, nil, 1)
	check("NewShared none", err, ErrShape, "")
	check("short dist", sh.Distances(dist[:p-1], nil, P, lam), ErrShape, "")
	check("lambda NaN", sh.Distances(dist, nil, P, []float64{1, math.NaN(), 0}), ErrNotFinite, "")
	check("zero image", sh.ImageDistances(dist, nil, make([]float64, dim)), ErrZeroImage, "")
	check("batch dist length", sh.DistancesBatch(dist, []*linalg.Dense{P, P}, lam), ErrShape, "")
	check("image batch ldx", sh.ImageDistancesBatch(make([]float64, 2*p), x, dim-1, 2), ErrShape, "")

	const n = 200
	bad := linalg.NewDense(dim, d)
	bad.CopyFrom(P)
	bad.Set(7, 1, math.NaN())
	sets := make([]*linalg.Dense, n)
	images := make([]float64, 0, n*dim)
	for i := range sets {
		sets[i] = P
		images = append(images, x...)
	}
	for _, i := range []int{150, 77, 199} {
		sets[i] = bad
		clear(images[i*dim : (i+1)*dim])
	}
	for rep := 0; rep < 20; rep++ {
		check("NaN sample batch", sh.DistancesBatch(make([]float64, n*p), sets, lam), ErrNotFinite, "sample 77:")
		check("zero image batch", sh.ImageDistancesBatch(make([]float64, n*p), images, dim, n), ErrZeroImage, "sample 77:")
	}
	for runtime.NumGoroutine() > before {
		runtime.Gosched() // the last helpers are returning
	}
}

// TestSharedAllocs: single-sample calls allocate nothing.
func TestSharedAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items under the race detector")
	}
	const dim, d, p = 100, 6, 8
	sh, _ := newShared(t, dim, d, p, 2)
	r := rng(43)
	P := randomBasis(t, dim, d, r)
	dense, sparse := sparseImage(r, dim, "dense"), sparseImage(r, dim, "strokes")
	lam := uniform(d)
	dist, theta := make([]float64, p), make([]float64, p*d)
	for name, f := range map[string]func() error{
		"Distances":             func() error { return sh.Distances(dist, theta, P, lam) },
		"ImageDistances":        func() error { return sh.ImageDistances(dist, dist, dense) },
		"ImageDistances/sparse": func() error { return sh.ImageDistances(dist, nil, sparse) },
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
