package engine

import (
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/grlgq/grlgq/linalg"
)

// TestStressMixed interleaves every call kind with random pauses (so that
// workers are sometimes spinning, sometimes parked, sometimes just waking)
// and random spin budgets, and checks every result against the first one.
// A lost wake-up hangs the test (go test's timeout reports it); a stale one
// shows up as a wrong value. GRLGQ_STRESS=N multiplies the iterations.
func TestStressMixed(t *testing.T) {
	iters := 300
	if testing.Short() {
		iters = 60
	}
	if s := os.Getenv("GRLGQ_STRESS"); s != "" {
		if k, err := strconv.Atoi(s); err == nil {
			iters *= k
		}
	}
	defer SetSpinTime(SpinTime())
	const dim, d, p, n = 64, 3, 20, 7
	r := rng(7)
	sets := make([]*linalg.Dense, n)
	for i := range sets {
		sets[i] = randomBasis(t, dim, d, r)
	}
	imgs := make([]float64, n*dim)
	for i := range imgs {
		imgs[i] = r.Float64() + 0.1
	}
	lambda := []float64{0.5, 0.3, 0.2}
	for _, spin := range []time.Duration{0, time.Microsecond, 20 * time.Microsecond, 200 * time.Microsecond} {
		SetSpinTime(spin)
		for _, workers := range []int{2, 3, 8} {
			e := newEngine(t, dim, d, p, workers)
			want := make([][]float64, 4)
			got := make([][]float64, 4)
			call := func(kind int, dst []float64) error {
				switch kind {
				case 0:
					return e.Distances(dst[:p], nil, sets[0], lambda)
				case 1:
					return e.ImageDistances(dst[:p], nil, imgs[:dim])
				case 2:
					return e.DistancesBatch(dst[:n*p], sets, lambda)
				default:
					return e.ImageDistancesBatch(dst[:n*p], imgs, dim, n)
				}
			}
			for k := range want {
				want[k] = make([]float64, n*p)
				got[k] = make([]float64, n*p)
				if err := call(k, want[k]); err != nil {
					t.Fatal(err)
				}
			}
			pr := rand.New(rand.NewPCG(uint64(workers), uint64(spin)))
			for it := 0; it < iters; it++ {
				k := pr.IntN(4)
				clear(got[k])
				if err := call(k, got[k]); err != nil {
					t.Fatal(err)
				}
				for i, v := range got[k] {
					if v != want[k][i] {
						t.Fatalf("spin %v workers %d iteration %d kind %d: [%d] = %v, want %v", spin, workers, it, k, i, v, want[k][i])
					}
				}
				switch pr.IntN(4) {
				case 0:
					time.Sleep(time.Duration(pr.IntN(300)) * time.Microsecond)
				case 1:
					for j := 0; j < pr.IntN(2000); j++ {
						_ = j * j
					}
				}
			}
			e.Close()
		}
	}
}
