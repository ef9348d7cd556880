package engine

import (
	"errors"
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/grlgq/grlgq/linalg"
)

// TestCrewBitIdentical: a Shared's crew gives the Shared's bits in the
// single-sample forms (sets, dense and sparse images), for 2, 3 and 8
// workers, geodesic and chordal, float64 and float32, whether calls are
// split (CrewMinWork 0) or not (as shipped, and +Inf), and repeated calls
// (workers still spinning) give the same bits again. Run it under
// GRLGQ_KERNELS=avx2|generic and -tags purego too.
func TestCrewBitIdentical(t *testing.T) {
	forEachLayout(t, testCrewBitIdentical)
}

// testCrewBitIdentical is TestCrewBitIdentical for the current
// sharedOwnMin.
func testCrewBitIdentical(t *testing.T) {
	defer SetCrewMinWork(CrewMinWork())
	for _, tc := range []struct{ dim, d, p, n int }{{784, 12, 10, 12}, {100, 5, 13, 9}, {64, 3, 2, 6}, {37, 1, 9, 5}, {200, 13, 17, 7}, {64, 5, 70, 4}} {
		r := rng(41)
		sets, images := samplesAndImages(t, r, tc.dim, tc.d, tc.n)
		lambda := make([]float64, tc.p*tc.d)
		for i := range lambda {
			lambda[i] = r.Float64()
		}
		for _, f32 := range []bool{false, true} {
			for _, kind := range []DistanceKind{Geodesic, Chordal} {
				base, _ := newShared(t, tc.dim, tc.d, tc.p, 1)
				sh := base
				if f32 {
					var err error
					if sh, err = NewShared32(tc.dim, tc.d, base.protos, 1); err != nil {
						t.Fatal(err)
					}
				}
				if err := sh.SetDistanceKind(kind); err != nil {
					t.Fatal(err)
				}
				want := crewRun(t, sh, sets, images, lambda)
				for _, workers := range []int{2, 3, 8} {
					for _, minWork := range []float64{0, 20e3, inf()} {
						SetCrewMinWork(minWork)
						c := sh.Crew(workers)
						name := fmt.Sprintf("%v f32=%v kind=%d workers=%d min=%g", tc, f32, kind, workers, minWork)
						for range 2 {
							got := crewRun(t, c, sets, images, lambda)
							sameBits(t, name+" dist", got.dist, want.dist)
							sameBits(t, name+" theta", got.theta, want.theta)
							sameBits(t, name+" idist", got.idist, want.idist)
							sameBits(t, name+" itheta", got.itheta, want.itheta)
						}
						c.Close()
					}
				}
			}
		}
	}
}

func inf() float64 { return 1 / zero }

var zero float64

// crewRun runs the single-sample forms of eng on every set and image.
func crewRun(t *testing.T, eng interface {
	Dims() (int, int, int)
	Distances(dist, theta []float64, P *linalg.Dense, lambda []float64) error
	ImageDistances(dist, theta []float64, x []float64) error
}, sets []*linalg.Dense, images []float64, lambda []float64) results {
	t.Helper()
	dim, d, p := eng.Dims()
	n := len(sets)
	res := results{dist: make([]float64, n*p), theta: make([]float64, n*p*d), idist: make([]float64, n*p), itheta: make([]float64, n*p)}
	for i, s := range sets {
		if err := eng.Distances(res.dist[i*p:(i+1)*p], res.theta[i*p*d:(i+1)*p*d], s, lambda); err != nil {
			t.Fatal(err)
		}
		if err := eng.ImageDistances(res.idist[i*p:(i+1)*p], res.itheta[i*p:(i+1)*p], images[i*dim:(i+1)*dim]); err != nil {
			t.Fatal(err)
		}
	}
	return res
}

// TestCrewReadOnly: a crew refuses to write the Shared's prototypes, and
// SetFloat32 and Sync leave them alone.
func TestCrewReadOnly(t *testing.T) {
	sh, _ := newShared(t, 50, 4, 6, 1)
	c := sh.Crew(2)
	defer c.Close()
	before := append([]float64(nil), sh.data...)
	w := linalg.NewDense(50, 4)
	if err := c.SetPrototype(0, w); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("SetPrototype on a crew: %v, want ErrReadOnly", err)
	}
	c.SetFloat32(true)
	c.Sync(0)
	if c.Float32() {
		t.Fatal("SetFloat32(true) turned a float64 Shared's crew to float32")
	}
	sameBits(t, "prototypes", sh.data, before)
}

// TestCrewClose: Close stops the crew's goroutines (parked or spinning).
func TestCrewClose(t *testing.T) {
	sh, _ := newShared(t, 100, 5, 8, 1)
	before := settledGoroutines()
	c := sh.Crew(4)
	if got := runtime.NumGoroutine(); got < before+3 {
		t.Fatalf("%d goroutines after Crew(4), want at least %d", got, before+3)
	}
	dist := make([]float64, 8)
	if err := c.ImageDistances(dist, nil, make([]float64, 100)); err == nil {
		t.Fatal("zero image accepted")
	}
	r := rng(3)
	if err := c.Distances(dist, nil, randomBasis(t, 100, 5, r), uniform(5)); err != nil {
		t.Fatal(err)
	}
	c.Close()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines 5 s after Close, want %d", runtime.NumGoroutine(), before)
		}
		time.Sleep(time.Millisecond)
	}
}

// settledGoroutines returns runtime.NumGoroutine once it has held still
// for 20 ms (at most 2 s): the workers of earlier tests' closed engines
// may still be on their way out, which under the race detector takes a
// while, and a count taken meanwhile would undercount what a new crew
// adds.
func settledGoroutines() int {
	n := runtime.NumGoroutine()
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		m := runtime.NumGoroutine()
		if m == n {
			break
		}
		n = m
	}
	return n
}
