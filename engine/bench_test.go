package engine

import (
	"fmt"
	"testing"
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
