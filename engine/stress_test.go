package engine

import "testing"

// TestStressHandoff makes many short calls so that workers finishing late,
// spinning, parking and waking interleave in every order; every call must
// see every shard's result (a lost or stale wake-up token shows up as a
// missing value).
func TestStressHandoff(t *testing.T) {
	iters := 5000
	if testing.Short() {
		iters = 500
	}
	for _, workers := range []int{2, 8} {
		e := newEngine(t, 100, 4, 10, workers)
		x := make([]float64, 100)
		for i := range x {
			x[i] = float64(i + 1)
		}
		ref := make([]float64, 10)
		if err := e.ImageDistances(ref, nil, x); err != nil {
			t.Fatal(err)
		}
		dist := make([]float64, 10)
		for it := 0; it < iters; it++ {
			clear(dist)
			if err := e.ImageDistances(dist, nil, x); err != nil {
				t.Fatal(err)
			}
			for k, v := range dist {
				if v != ref[k] {
					t.Fatalf("workers %d iteration %d: dist[%d] = %v, want %v", workers, it, k, v, ref[k])
				}
			}
		}
	}
}
