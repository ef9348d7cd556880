package engine

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/grlgq/grlgq/kernels"
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
		for _, lw := range layoutsAndWorkers() {
			setOwnBlockMinDim(t, lw.ownFrom)
			w := lw.workers
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
			if first.dist == nil {
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

// TestUpdateExact checks UpdateExact: in float64 mode kernels.AB2 in
// place on the prototype; in float32 mode the float32 copy gets what AB2
// on the float64 prototype and Sync give, bit for bit, while the float64
// prototype keeps its values (Stale) until Fresh, which brings exactly
// the float32 values; Sync leaves a stale prototype alone; the image
// distances bring every prototype up to date first; SetFloat32(false)
// too. Shapes with tails and with prototypes side by side in shards.
func TestUpdateExact(t *testing.T) {
	for _, tc := range []struct{ dim, d, p, workers int }{{400, 5, 8, 1}, {100, 12, 10, 2}, {64, 25, 3, 2}, {30, 1, 4, 3}} {
		r := rng(41)
		dim, d := tc.dim, tc.d
		c1, c2 := updateCoefficients(r, d)
		P := randomBasis(t, dim, d, r)
		k := tc.p - 1
		// The reference: AB2 on a copy of the float64 prototype, rounded.
		e64 := newEngine(t, dim, d, tc.p, tc.workers)
		e := f32Engine(t, dim, d, tc.p, tc.workers)
		before := linalg.NewDense(dim, d)
		before.CopyFrom(e.Prototype(k))
		want := linalg.NewDense(dim, d)
		want.CopyFrom(before)
		kernels.AB2(want.Data, want.Stride, want.Data, want.Stride, c1, d, P.Data, P.Stride, c2, d, dim, d, d)
		w64 := linalg.NewDense(dim, d)
		w64.CopyFrom(e64.Prototype(k))
		kernels.AB2(w64.Data, w64.Stride, w64.Data, w64.Stride, c1, d, P.Data, P.Stride, c2, d, dim, d, d)
		if err := e64.UpdateExact(k, c1, d, P, c2, d, false); err != nil {
			t.Fatal(err)
		}
		sameEntries(t, "float64 mode", e64.Prototype(k), w64)
		if err := e.UpdateExact(k, c1, d, P, c2, d, true); err != nil {
			t.Fatal(err)
		}
		if !e.Stale(k) || e.Stale(0) && k != 0 {
			t.Fatalf("%v: Stale after UpdateExact: %v, of another prototype %v", tc, e.Stale(k), e.Stale(0))
		}
		sameEntries(t, "stale float64 prototype", e.Prototype(k), before)
		e.Sync(k) // a stale prototype: nothing
		s := e.shards[e.owner[k]]
		o := s.col32(k, d)
		for i := 0; i < dim; i++ {
			for j := 0; j < d; j++ {
				if got, w := s.protos32[o+i*s.ld32+j], float32(want.At(i, j)); math.Float32bits(got) != math.Float32bits(w) {
					t.Fatalf("%v: float32 copy (%d, %d) = %v, want %v", tc, i, j, got, w)
				}
			}
		}
		e.Fresh(k)
		if e.Stale(k) {
			t.Fatal("stale after Fresh")
		}
		for i := 0; i < dim; i++ {
			for j := 0; j < d; j++ {
				if got, w := e.Prototype(k).At(i, j), float64(float32(want.At(i, j))); math.Float64bits(got) != math.Float64bits(w) {
					t.Fatalf("%v: fresh prototype (%d, %d) = %v, want %v", tc, i, j, got, w)
				}
			}
		}
		// Without copy32: in place on the float64 prototype, made fresh
		// first, left for Sync to round.
		if err := e.UpdateExact(k, c1, d, P, c2, d, true); err != nil {
			t.Fatal(err)
		}
		if err := e.UpdateExact(k, c1, d, P, c2, d, false); err != nil {
			t.Fatal(err)
		}
		if e.Stale(k) {
			t.Fatal("stale after UpdateExact without copy32")
		}
		twice := linalg.NewDense(dim, d)
		for i := 0; i < dim; i++ {
			for j := 0; j < d; j++ {
				twice.Set(i, j, float64(float32(want.At(i, j))))
			}
		}
		kernels.AB2(twice.Data, twice.Stride, twice.Data, twice.Stride, c1, d, P.Data, P.Stride, c2, d, dim, d, d)
		for i := 0; i < dim; i++ {
			for j := 0; j < d; j++ {
				twice.Set(i, j, float64(float32(twice.At(i, j))))
			}
		}
		kernels.AB2(twice.Data, twice.Stride, twice.Data, twice.Stride, c1, d, P.Data, P.Stride, c2, d, dim, d, d)
		sameEntries(t, "in place without copy32", e.Prototype(k), twice)

		// The image distances and SetFloat32(false) bring stale prototypes up to date.
		if err := e.UpdateExact(0, c1, d, P, c2, d, true); err != nil {
			t.Fatal(err)
		}
		img := make([]float64, dim)
		img[0] = 1
		if err := e.ImageDistances(make([]float64, tc.p), nil, img); err != nil {
			t.Fatal(err)
		}
		if e.Stale(0) {
			t.Fatal("stale after ImageDistances")
		}
		if err := e.UpdateExact(1%tc.p, c1, d, P, c2, d, true); err != nil {
			t.Fatal(err)
		}
		e.SetFloat32(false)
		if e.Stale(1 % tc.p) {
			t.Fatal("stale after SetFloat32(false)")
		}
		e.Close()
		e64.Close()
	}
}

// sameEntries fails unless a and b (same shape) hold the same bits.
func sameEntries(t *testing.T, what string, a, b *linalg.Dense) {
	t.Helper()
	for i := 0; i < a.Rows; i++ {
		for j := 0; j < a.Cols; j++ {
			if math.Float64bits(a.At(i, j)) != math.Float64bits(b.At(i, j)) {
				t.Fatalf("%s: (%d, %d) = %v, want %v", what, i, j, a.At(i, j), b.At(i, j))
			}
		}
	}
}

// updateCoefficients returns the d x d coefficients of an exact update,
// C1 near the identity and C2 small, as a training step's.
func updateCoefficients(r *rand.Rand, d int) (c1, c2 []float64) {
	c1, c2 = make([]float64, d*d), make([]float64, d*d)
	for i := range c1 {
		c1[i], c2[i] = 1e-2*r.NormFloat64(), 1e-2*r.NormFloat64()
	}
	for i := 0; i < d; i++ {
		c1[i*d+i]++
	}
	return c1, c2
}

// TestUpdateExactRounded checks UpdateExactRounded against its
// definition, bit for bit, and a stale float64 prototype: where
// kernels.AB2S32 runs in one kernel (the asm paths, d <= 32), AB2S32 on the
// float32 copy with the coefficients (c1 − I, c2) rounded to float32, within a few
// float32 ulps of the float64 route; elsewhere UpdateExact on the
// sample's rounding exactly widened. And its errors: a wrong length,
// float64 mode.
func TestUpdateExactRounded(t *testing.T) {
	for _, tc := range []struct{ dim, d, p, workers int }{{400, 5, 8, 1}, {100, 12, 10, 2}, {64, 25, 3, 2}, {30, 1, 4, 3}} {
		r := rng(43)
		dim, d := tc.dim, tc.d
		c1, c2 := updateCoefficients(r, d)
		P := randomBasis(t, dim, d, r)
		p32 := make([]float32, dim*d)
		wide := linalg.NewDense(dim, d)
		for i := 0; i < dim; i++ {
			for j := 0; j < d; j++ {
				p32[i*d+j] = float32(P.At(i, j))
				wide.Set(i, j, float64(p32[i*d+j]))
			}
		}
		k := tc.p - 1
		want, got := f32Engine(t, dim, d, tc.p, tc.workers), f32Engine(t, dim, d, tc.p, tc.workers)
		if err := want.UpdateExact(k, c1, d, wide, c2, d, true); err != nil {
			t.Fatal(err)
		}
		if err := got.UpdateExactRounded(k, c1, d, p32, c2, d); err != nil {
			t.Fatal(err)
		}
		if !got.Stale(k) {
			t.Fatalf("%v: not stale after UpdateExactRounded", tc)
		}
		got.Fresh(k)
		want.Fresh(k)
		if kernels.AB2S32Native(d, d) {
			// The definition: AB2S32 on the prototype's float32 rounding.
			w0 := f32Engine(t, dim, d, tc.p, tc.workers).Prototype(k)
			w32, b1, b2 := make([]float32, dim*d), make([]float32, d*d), make([]float32, d*d)
			kernels.Round32Rows(w32, d, w0.Data, w0.Stride, dim, d)
			for i := 0; i < d; i++ {
				for j := 0; j < d; j++ {
					v := c1[i*d+j]
					if i == j {
						v--
					}
					b1[i*d+j] = float32(v)
				}
			}
			kernels.Round32Rows(b2, d, c2, d, d, d)
			kernels.AB2S32(w32, d, w32, d, b1, d, p32, d, b2, d, dim, d, d)
			def := linalg.NewDense(dim, d)
			kernels.Widen32Rows(def.Data, def.Stride, w32, d, dim, d)
			sameEntries(t, fmt.Sprintf("%v: UpdateExactRounded (float32 lanes)", tc), got.Prototype(k), def)
			// Within the float32 chain's bound of the float64 route:
			// 2d+2 roundings of 2^-24 of the magnitudes summed.
			for i := 0; i < dim; i++ {
				for j := 0; j < d; j++ {
					g, w := got.Prototype(k).At(i, j), want.Prototype(k).At(i, j)
					scale := math.Abs(w) + math.Abs(w0.At(i, j))
					for l := 0; l < d; l++ {
						scale += math.Abs(w0.At(i, l)*float64(b1[l*d+j])) + math.Abs(P.At(i, l)*c2[l*d+j])
					}
					if math.Abs(g-w) > float64(2*d+2)*0x1p-24*scale {
						t.Fatalf("%v: (%d, %d) = %v in float32 lanes, %v from float64", tc, i, j, g, w)
					}
				}
			}
		} else {
			sameEntries(t, fmt.Sprintf("%v: UpdateExactRounded", tc), got.Prototype(k), want.Prototype(k))
		}
		if err := got.UpdateExactRounded(k, c1, d, p32[1:], c2, d); !errors.Is(err, ErrShape) {
			t.Errorf("%v: %d values: %v, want ErrShape", tc, len(p32)-1, err)
		}
		e64 := newEngine(t, dim, d, tc.p, tc.workers)
		if err := e64.UpdateExactRounded(k, c1, d, p32, c2, d); !errors.Is(err, ErrShape) {
			t.Errorf("%v: float64 mode: %v, want ErrShape", tc, err)
		}
	}
}
