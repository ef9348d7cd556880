package engine

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// sparseImage returns an image of dim pixels with the given pattern of
// exact zeros; every other pixel is N(0,1) (or tiny/subnormal).
func sparseImage(r *rand.Rand, dim int, pattern string) []float64 {
	x := make([]float64, dim)
	switch pattern {
	case "strokes": // runs of 2..8 nonzero pixels, about 20% of them
		for i := 0; i < dim; {
			n := 2 + r.IntN(7)
			on := r.IntN(5) == 0
			for ; n > 0 && i < dim; n, i = n-1, i+1 {
				if on {
					x[i] = r.NormFloat64()
				}
			}
		}
	case "one":
		x[r.IntN(dim)] = r.NormFloat64()
	case "first-last":
		x[0], x[dim-1] = r.NormFloat64(), r.NormFloat64()
	case "alternating":
		for i := 0; i < dim; i += 2 {
			x[i] = r.NormFloat64()
		}
	case "negative-zeros": // strokes on a background of -0
		for i := range x {
			x[i] = math.Copysign(0, -1)
		}
		for i := r.IntN(8); i < dim; i += 9 + r.IntN(9) {
			x[i] = r.NormFloat64()
			if i+1 < dim {
				x[i+1] = -r.Float64()
			}
		}
	case "subnormal": // strokes of tiny values, some subnormal
		for i := r.IntN(5); i < dim; i += 3 + r.IntN(5) {
			x[i] = math.Ldexp(r.NormFloat64(), -1040+r.IntN(60))
		}
		x[dim/2], x[dim/3] = 1e-100, 0.5 // ‖x‖² must not underflow
	case "mostly-dense": // 1 pixel in 10 zero: dense by the sample test, or listed and dense by count
		for i := range x {
			if i%10 != 3 {
				x[i] = r.NormFloat64()
			}
		}
	case "dense":
		for i := range x {
			x[i] = r.NormFloat64()
		}
	}
	for _, v := range x {
		if v != 0 {
			return x
		}
	}
	x[dim/2] = 1 // strokes may miss a small image
	return x
}

var sparsePatterns = []string{"strokes", "one", "first-last", "alternating", "negative-zeros", "subnormal", "mostly-dense", "dense"}

// imageDists runs ImageDistances with the sparse path on or off.
func imageDists(t *testing.T, e *Engine, x []float64, sparse bool) (dist, theta []float64) {
	t.Helper()
	defer func(old bool) { sparseImages = old }(sparseImages)
	sparseImages = sparse
	_, _, p := e.Dims()
	dist, theta = make([]float64, p), make([]float64, p)
	if err := e.ImageDistances(dist, theta, x); err != nil {
		t.Fatal(err)
	}
	return dist, theta
}

// TestImageSparseSameBits: skipping the zero pixels gives the bits of the
// dense path, for every worker count, and the batch form (dense GEMM)
// agrees. Run it under GRLGQ_KERNELS=avx2|generic and -tags purego too for
// the other implementations.
func TestImageSparseSameBits(t *testing.T) {
	for _, tc := range []struct{ dim, d, p int }{{784, 12, 10}, {784, 12, 40}, {100, 5, 13}, {64, 3, 1}, {37, 1, 9}, {200, 13, 17}} {
		r := rng(30)
		var images []float64
		for _, pat := range sparsePatterns {
			images = append(images, sparseImage(r, tc.dim, pat)...)
		}
		n := len(sparsePatterns)
		var ref [][]float64
		for _, workers := range []int{1, 2, 8} {
			e := newEngine(t, tc.dim, tc.d, tc.p, workers)
			bidist := make([]float64, n*tc.p)
			if err := e.ImageDistancesBatch(bidist, images, tc.dim, n); err != nil {
				t.Fatal(err)
			}
			for i, pat := range sparsePatterns {
				x := images[i*tc.dim : (i+1)*tc.dim]
				name := fmt.Sprintf("dim=%d d=%d p=%d workers=%d %s", tc.dim, tc.d, tc.p, workers, pat)
				wantSparse := pat != "mostly-dense" && pat != "dense" && !(pat == "alternating" && tc.dim < 64)
				if got := e.imageSparse(x) > 0; pat != "alternating" && got != wantSparse {
					t.Errorf("%s: sparse path %v, want %v", name, got, wantSparse)
				}
				sd, st := imageDists(t, e, x, true)
				dd, dt := imageDists(t, e, x, false)
				sameBits(t, name+": dist sparse vs dense", sd, dd)
				sameBits(t, name+": theta sparse vs dense", st, dt)
				sameBits(t, name+": batch vs single", bidist[i*tc.p:(i+1)*tc.p], sd)
				if workers == 1 {
					ref = append(ref, sd, st)
					continue
				}
				sameBits(t, name+": dist vs 1 worker", sd, ref[2*i])
				sameBits(t, name+": theta vs 1 worker", st, ref[2*i+1])
			}
		}
	}
}

// TestImageSparseNonFinitePrototype: a NaN or Inf at a zero pixel is an
// error as on the dense path, however it got there.
func TestImageSparseNonFinitePrototype(t *testing.T) {
	const dim, d, p = 100, 4, 6
	x := sparseImage(rng(31), dim, "one")
	zero := 0
	for x[zero] != 0 {
		zero++
	}
	for _, how := range []string{"SetPrototype", "Prototype view"} {
		for _, bad := range []float64{math.NaN(), math.Inf(1)} {
			e := newEngine(t, dim, d, p, 2)
			if e.imageSparse(x) == 0 {
				t.Fatal("the test image should take the sparse path")
			}
			w := randomBasis(t, dim, d, rng(32))
			if how == "SetPrototype" {
				w.Set(zero, 1, bad)
				if err := e.SetPrototype(2, w); err != nil {
					t.Fatal(err)
				}
			} else {
				e.Prototype(2).Set(zero, 1, bad)
			}
			dist := make([]float64, p)
			if err := e.ImageDistances(dist, nil, x); !errors.Is(err, ErrNotFinite) {
				t.Errorf("%s %v: err = %v, want ErrNotFinite", how, bad, err)
			}
			if e.imageSparse(x) != 0 {
				t.Errorf("%s %v: sparse path still taken", how, bad)
			}
		}
	}
}

func TestImageSparseAllocs(t *testing.T) {
	const dim, d, p = 784, 12, 10
	e := newEngine(t, dim, d, p, 2)
	x := sparseImage(rng(33), dim, "strokes")
	if e.imageSparse(x) == 0 {
		t.Fatal("the test image should take the sparse path")
	}
	dist, theta := make([]float64, p), make([]float64, p)
	var err error
	if n := testing.AllocsPerRun(50, func() { err = e.ImageDistances(dist, theta, x) }); n != 0 {
		t.Errorf("%v allocations per call", n)
	}
	if err != nil {
		t.Error(err)
	}
}
