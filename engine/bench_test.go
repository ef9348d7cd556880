package engine

import (
	"fmt"
	"testing"

	"github.com/grlgq/grlgq/linalg"
)

// BenchmarkDistancesWorkers shows the parallel speed-up of Distances (run
// it with -count and compare the workers=1 and workers=2 lines of one run).
func BenchmarkDistancesWorkers(b *testing.B) {
	for _, p := range []int{10, 40} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("p=%d/workers=%d", p, workers), func(b *testing.B) {
				e := newEngine(b, 784, 12, p, workers)
				P := randomBasis(b, 784, 12, rng(3))
				dist := make([]float64, p)
				lam := uniform(12)
				b.ReportAllocs()
				for b.Loop() {
					if err := e.Distances(dist, nil, P, lam); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkImageSparse measures the crossover of the sparse image path:
// D = 784, d = 12, p = 10 on 1 and 2 workers, images whose pixels are
// nonzero in runs (20% .. 100% of them), with the sparse path (as chosen)
// and forced dense.
func BenchmarkImageSparse(b *testing.B) {
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) { benchImageSparse(b, workers) })
	}
}

func benchImageSparse(b *testing.B, workers int) {
	const dim, d, p = 784, 12, 10
	e := newEngine(b, dim, d, p, workers)
	dist := make([]float64, p)
	r := rng(40)
	for _, pct := range []int{20, 50, 80, 90, 95, 100} {
		x := make([]float64, dim)
		nz := 0
		for i := 0; i < dim; {
			n := 1 + r.IntN(8)
			on := r.IntN(100) < pct
			for ; n > 0 && i < dim; n, i = n-1, i+1 {
				if on {
					x[i] = r.NormFloat64()
					nz++
				}
			}
		}
		for _, sparse := range []bool{true, false} {
			b.Run(fmt.Sprintf("nonzero=%d%%/sparse=%v", 100*nz/dim, sparse), func(b *testing.B) {
				defer func(old bool) { sparseImages = old }(sparseImages)
				sparseImages = sparse
				for b.Loop() {
					if err := e.ImageDistances(dist, nil, x); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkSharedBatch: the batch forms of a Shared with 1 and 2 workers
// (goroutines started per call), large and small batches: a split must pay
// where it happens, and small batches must not be slower than one worker.
func BenchmarkSharedBatch(b *testing.B) {
	for _, tc := range []struct {
		name      string
		dim, d, p int
		n         int
		images    bool
	}{
		{"images/D=784,d=12,p=10", 784, 12, 10, 10000, true},
		{"images/D=784,d=12,p=10", 784, 12, 10, 64, true},
		{"sets/D=400,d=5,p=8", 400, 5, 8, 200, false},
		{"sets/D=400,d=5,p=8", 400, 5, 8, 4, false},
		{"sets/D=784,d=12,p=10", 784, 12, 10, 4, false},
	} {
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s,n=%d/workers=%d", tc.name, tc.n, workers), func(b *testing.B) {
				sh, _ := newShared(b, tc.dim, tc.d, tc.p, workers)
				r := rng(50)
				dist := make([]float64, tc.n*tc.p)
				var run func() error
				if tc.images {
					x := make([]float64, tc.n*tc.dim)
					for i := range x {
						x[i] = r.NormFloat64()
					}
					run = func() error { return sh.ImageDistancesBatch(dist, x, tc.dim, tc.n) }
				} else {
					sets := make([]*linalg.Dense, tc.n)
					for i := range sets {
						sets[i] = randomBasis(b, tc.dim, tc.d, r)
					}
					lam := uniform(tc.d)
					run = func() error { return sh.DistancesBatch(dist, sets, lam) }
				}
				b.ReportAllocs()
				for b.Loop() {
					if err := run(); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
