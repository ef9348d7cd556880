package engine

import (
	"math"
	"testing"

	"github.com/grlgq/grlgq/linalg"
)

// f32Engine is newEngine in float32 mode.
func f32Engine(t testing.TB, dim, d, p, workers int) *Engine {
	e := newEngine(t, dim, d, p, workers)
	e.SetFloat32(true)
	return e
}

// TestFloat32 checks float32 mode: the same bits for 1, 2 and 3 workers,
// for the single and batch forms and a Shared; prototypes rounded to
// float32 values; distances and angles within the float32 bound of the
// float64 engine's (see f32.go: a cosine within d·4e-6, so an angle
// within that over sin θ; random subspaces have θ far from 0); the
// searches' winners those of a scan of the float32 distances.
func TestFloat32(t *testing.T) {
	for _, tc := range []struct{ dim, d, p int }{{784, 12, 10}, {400, 5, 19}, {100, 25, 9}, {64, 3, 1}, {100, 7, 45}} {
		r := rng(40)
		n := 3
		sets := make([]*linalg.Dense, n)
		images := make([]float64, n*tc.dim)
		for i := range sets {
			sets[i] = randomBasis(t, tc.dim, tc.d, r)
			for j := 0; j < tc.dim; j++ {
				images[i*tc.dim+j] = r.NormFloat64() * 1e30 // scaled: float32 would overflow x·x
				if i == 1 && j%10 != 0 {
					images[i*tc.dim+j] = 0 // a sparse image: the float64 sparse path
				}
			}
		}
		lambda := uniform(tc.d)
		ref := runAll(t, newEngine(t, tc.dim, tc.d, tc.p, 1), sets, images, lambda)
		var first results
		for _, w := range []int{1, 2, 3} {
			e := f32Engine(t, tc.dim, tc.d, tc.p, w)
			for k := 0; k < tc.p; k++ {
				for _, v := range e.protos[k].Data[:tc.d] {
					if float64(float32(v)) != v {
						t.Fatalf("prototype %d not rounded to float32: %v", k, v)
					}
				}
			}
			res := runAll(t, e, sets, images, lambda)
			sameBits(t, "batch vs single", res.bdist, res.dist)
			sameBits(t, "image batch vs single", res.bidist, res.idist)
			if w == 1 {
				first = res
				for i, th := range res.theta {
					if e := math.Abs(th - ref.theta[i]); e > float64(tc.d)*4e-6/math.Sin(ref.theta[i])+1e-9 {
						t.Fatalf("%v: angle %d = %v, float64 %v", tc, i, th, ref.theta[i])
					}
				}
				for i, th := range res.itheta {
					if e := math.Abs(th - ref.itheta[i]); e > 4e-6/math.Sin(ref.itheta[i])+1e-9 {
						t.Fatalf("%v: image angle %d = %v, float64 %v", tc, i, th, ref.itheta[i])
					}
				}
				continue
			}
			sameBits(t, "dist across workers", res.dist, first.dist)
			sameBits(t, "theta across workers", res.theta, first.theta)
			sameBits(t, "proj across workers", res.proj, first.proj)
			sameBits(t, "image dist across workers", res.idist, first.idist)
		}
		// A Shared in float32 mode gives the Engine's bits.
		e := f32Engine(t, tc.dim, tc.d, tc.p, 1)
		sh, err := NewShared32(tc.dim, tc.d, e.protos, 2)
		if err != nil {
			t.Fatal(err)
		}
		p := tc.p
		dist, idist := make([]float64, n*p), make([]float64, n*p)
		for i, s := range sets {
			if err := sh.Distances(dist[i*p:(i+1)*p], nil, s, lambda); err != nil {
				t.Fatal(err)
			}
			if err := sh.ImageDistances(idist[i*p:(i+1)*p], nil, images[i*tc.dim:(i+1)*tc.dim]); err != nil {
				t.Fatal(err)
			}
		}
		sameBits(t, "Shared32 sets", dist, first.dist)
		sameBits(t, "Shared32 images", idist, first.idist)
		if err := sh.DistancesBatch(dist, sets, lambda); err != nil {
			t.Fatal(err)
		}
		sameBits(t, "Shared32 batch", dist, first.dist)
		if err := sh.ImageDistancesBatch(idist, images, tc.dim, n); err != nil {
			t.Fatal(err)
		}
		sameBits(t, "Shared32 image batch", idist, first.idist)

		// Searches: a scan of the float32 distances.
		if p >= 2 {
			labels := make([]int, p)
			for k := range labels {
				labels[k] = k % 2
			}
			for i, s := range sets {
				var w Winners
				if err := e.Winners(&w, s, lambda, labels, 0); err != nil {
					t.Fatal(err)
				}
				plus, minus := exhaustiveWinners(first.dist[i*p:(i+1)*p], labels, 0)
				if w.Plus != plus || w.Minus != minus {
					t.Fatalf("%v: winners %d, %d; scan %d, %d", tc, w.Plus, w.Minus, plus, minus)
				}
				var nr Nearest
				if err := sh.Nearest(&nr, s, lambda, labels, true); err != nil {
					t.Fatal(err)
				}
				if want := exhaustiveNearest(first.dist[i*p:(i+1)*p], labels); nr.First != want.First || nr.Second != want.Second {
					t.Fatalf("%v: nearest %d, %d; scan %d, %d", tc, nr.First, nr.Second, want.First, want.Second)
				}
			}
		}
	}
}

// TestFloat32Sync checks that a prototype written through its view is
// seen after Sync, and rounded.
func TestFloat32Sync(t *testing.T) {
	e := f32Engine(t, 50, 4, 3, 2)
	w := randomBasis(t, 50, 4, rng(41))
	e.Prototype(1).CopyFrom(w)
	e.Sync(1)
	dist := make([]float64, 3)
	if err := e.Distances(dist, nil, w, uniform(4)); err != nil {
		t.Fatal(err)
	}
	if dist[1] > 1e-6 {
		t.Fatalf("distance to itself %v after Sync", dist[1])
	}
	if v := e.Prototype(1).At(3, 2); float64(float32(v)) != v {
		t.Fatalf("not rounded: %v", v)
	}
}

func TestFloat32Allocs(t *testing.T) {
	e := f32Engine(t, 784, 12, 10, 2)
	P := randomBasis(t, 784, 12, rng(42))
	x := make([]float64, 784)
	for i := range x {
		x[i] = float64(i%7) + 1
	}
	dist := make([]float64, 10)
	lambda := uniform(12)
	for _, f := range []func(){
		func() { e.Distances(dist, nil, P, lambda) },
		func() { e.ImageDistances(dist, nil, x) },
	} {
		f()
		if a := testing.AllocsPerRun(20, f); a != 0 {
			t.Errorf("%v allocations per call", a)
		}
	}
}
