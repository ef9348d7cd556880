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

// perturbed returns an orthonormal basis of span(P + scale·G), G Gaussian:
// a subspace at principal angles of about scale from P (scale 0: P).
func perturbed(t testing.TB, P *linalg.Dense, scale float64, r *rand.Rand) *linalg.Dense {
	t.Helper()
	w := linalg.NewDense(P.Rows, P.Cols)
	for i := 0; i < P.Rows; i++ {
		for j := 0; j < P.Cols; j++ {
			w.Set(i, j, P.At(i, j)+scale*r.NormFloat64())
		}
	}
	if scale != 0 {
		if err := linalg.NewOrthonormalizer(P.Rows, P.Cols).Orthonormalize(w); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

// searchCase is a sample and p prototypes around it: random subspaces (all
// angles near 90° in high dimension), subspaces at angles of 1e-9 to 1
// from the sample, exact duplicates (ties) and near-duplicates (1e-13).
type searchCase struct {
	name   string
	P      *linalg.Dense
	protos []*linalg.Dense
}

func searchCases(t testing.TB, dim, d, p int, r *rand.Rand) []searchCase {
	P := randomBasis(t, dim, d, r)
	var cases []searchCase
	add := func(name string, f func(k int) *linalg.Dense) {
		c := searchCase{name: name, P: P}
		for k := 0; k < p; k++ {
			c.protos = append(c.protos, f(k))
		}
		cases = append(cases, c)
	}
	add("random", func(int) *linalg.Dense { return randomBasis(t, dim, d, r) })
	scales := []float64{1e-9, 1e-6, 1e-3, 0.05, 0.3, 1}
	add("near", func(k int) *linalg.Dense { return perturbed(t, P, scales[k%len(scales)], r) })
	var base []*linalg.Dense
	add("ties", func(k int) *linalg.Dense {
		if k%3 == 0 || len(base) == 0 {
			base = append(base, perturbed(t, P, 0.2*r.Float64(), r))
		}
		w := linalg.NewDense(dim, d)
		w.CopyFrom(base[len(base)-1])
		if k%3 == 2 {
			w = perturbed(t, w, 1e-13, r)
		}
		return w
	})
	add("mixed", func(k int) *linalg.Dense {
		if k%2 == 0 {
			return randomBasis(t, dim, d, r)
		}
		return perturbed(t, P, math.Pow(10, -float64(r.IntN(8))), r)
	})
	return cases
}

// relevanceCases returns uniform, random, and skewed relevances (sum 1),
// global (len d) or local (len p·d).
func relevanceCases(d, p int, r *rand.Rand) map[string][]float64 {
	norm := func(l []float64) []float64 {
		for k := 0; k < len(l); k += d {
			var s float64
			for _, v := range l[k : k+d] {
				s += v
			}
			for i := k; i < k+d; i++ {
				l[i] /= s
			}
		}
		return l
	}
	rnd := make([]float64, d)
	skew := make([]float64, d)
	local := make([]float64, p*d)
	for i := range rnd {
		rnd[i] = r.Float64()
		skew[i] = math.Pow(1e-4, float64(i)/float64(max(d-1, 1)))
	}
	for i := range local {
		local[i] = r.Float64() + 1e-4
	}
	return map[string][]float64{"uniform": uniform(d), "random": norm(rnd), "skewed": norm(skew), "local": norm(local)}
}

// exhaustiveWinners scans dist like the trainer did before the searches.
func exhaustiveWinners(dist []float64, labels []int, y int) (plus, minus int) {
	plus, minus = -1, -1
	dp, dm := math.Inf(1), math.Inf(1)
	for k, dk := range dist {
		if labels[k] == y {
			if dk < dp {
				plus, dp = k, dk
			}
		} else if dk < dm {
			minus, dm = k, dk
		}
	}
	return plus, minus
}

// TestSearchBounds checks that both tiers' bounds contain the distance
// Distances computes, for every prototype of every case (the bounds are
// forced for all of them), and logs how tight tier 2 is.
func TestSearchBounds(t *testing.T) { testSearchBounds(t) }

// searchF32 runs the search tests' engines in float32 mode.
var searchF32 bool

// TestSearchFloat32 runs TestSearchBounds and TestWinnersExhaustive on
// engines in float32 mode: the bounds are proven for the projection as
// stored, so they hold for float32 products too.
func TestSearchFloat32(t *testing.T) {
	searchF32 = true
	defer func() { searchF32 = false }()
	t.Run("bounds", testSearchBounds)
	t.Run("winners", TestWinnersExhaustive)
}

// searchShadow runs the search tests' engines with the float32 shadow on
// (SetShadow32) at every d and p.
var searchShadow bool

// TestSearchShadow runs TestSearchBounds and TestWinnersExhaustive with
// the float32 shadow on: the bounds from the float32 products, widened by
// their error, contain the distances of the float64 products, and Winners
// finds the winners of a scan of Distances, with Distances' bits (the
// distances, ExactDistance, and the projections afterwards).
func TestSearchShadow(t *testing.T) {
	searchShadow = true
	savedP := shadowMinP
	shadowMinP = 1
	defer func() { searchShadow, shadowMinP = false, savedP }()
	t.Run("bounds", testSearchBounds)
	saved := gramMinDim
	gramMinDim = 1 // shadowWorth at every d
	defer func() { gramMinDim = saved }()
	t.Run("winners", testWinnersExhaustive)
}

// setShadow turns the shadow on for the shadow tests, and checks that it
// is.
func setShadow(t *testing.T, e *Engine) {
	t.Helper()
	if searchShadow && !e.SetShadow32(true) {
		t.Fatal("SetShadow32(true) did not turn the shadow on")
	}
}

func testSearchBounds(t *testing.T) {
	saved := gramMinDim
	gramMinDim = 1
	defer func() { gramMinDim = saved }()
	r := rng(40)
	var worst float64
	for _, sh := range [][3]int{{40, 1, 6}, {40, 2, 9}, {60, 3, 12}, {200, 5, 16}, {300, 12, 12}, {400, 25, 10}} {
		dim, d, p := sh[0], sh[1], sh[2]
		for _, c := range searchCases(t, dim, d, p, r) {
			e, err := New(dim, d, p, 1)
			if err != nil {
				t.Fatal(err)
			}
			e.SetFloat32(searchF32)
			setShadow(t, e)
			for k, w := range c.protos {
				if err := e.SetPrototype(k, w); err != nil {
					t.Fatal(err)
				}
			}
			for lname, lambda := range relevanceCases(d, p, r) {
				name := fmt.Sprintf("D=%d,d=%d,p=%d/%s/%s", dim, d, p, c.name, lname)
				dist := make([]float64, p)
				if err := e.Distances(dist, nil, c.P, lambda); err != nil {
					t.Fatal(err)
				}
				e.searchSpace()
				e.project(c.P, lambda, true)
				if e.shadowed != searchShadow {
					t.Fatalf("%s: shadowed %v", name, e.shadowed)
				}
				lo1, hi1 := append([]float64(nil), e.blo...), append([]float64(nil), e.bhi...)
				e.cand = e.cand[:0]
				for k := 0; k < p; k++ {
					e.cand = append(e.cand, int32(k))
				}
				if err := e.refine(lambda); err != nil {
					t.Fatal(err)
				}
				for k, dk := range dist {
					if !(lo1[k] <= dk && dk <= hi1[k]) {
						t.Errorf("%s: prototype %d: tier 1 [%.17g, %.17g] misses %.17g", name, k, lo1[k], hi1[k], dk)
					}
					if !(e.blo[k] <= dk && dk <= e.bhi[k]) {
						t.Errorf("%s: prototype %d: tier 2 [%.17g, %.17g] misses %.17g", name, k, e.blo[k], e.bhi[k], dk)
					}
					if c.name == "random" && dk > 0 {
						worst = max(worst, (e.bhi[k]-e.blo[k])/dk)
					}
				}
			}
			e.Close()
		}
	}
	t.Logf("tier 2 on random subspaces: widest interval %.3g of the distance", worst)
}

// TestWinnersExhaustive checks Winners against a scan of Distances: the
// same winners for every sample, label layout and class, the distances
// bit for bit where Winners computed them, and bounds that contain them,
// with 1, 2 and 3 workers, with tier 2 by the enclosures at every d and by
// the values below gramMinDim.
func TestWinnersExhaustive(t *testing.T) {
	for _, g := range []int{1, gramMinDim} {
		saved := gramMinDim
		gramMinDim = g
		t.Run(fmt.Sprintf("gramMinDim=%d", g), testWinnersExhaustive)
		gramMinDim = saved
	}
}

func testWinnersExhaustive(t *testing.T) {
	r := rng(41)
	for _, sh := range [][3]int{{40, 1, 6}, {60, 3, 12}, {200, 5, 16}, {300, 12, 20}, {400, 25, 10}} {
		dim, d, p := sh[0], sh[1], sh[2]
		for _, c := range searchCases(t, dim, d, p, r) {
			for _, workers := range []int{1, 2, 3} {
				e, err := New(dim, d, p, workers)
				if err != nil {
					t.Fatal(err)
				}
				e.SetFloat32(searchF32)
				setShadow(t, e)
				for k, w := range c.protos {
					if err := e.SetPrototype(k, w); err != nil {
						t.Fatal(err)
					}
				}
				proj := make([][]float64, p)
				rounded := make([]float32, dim*d)
				for i := 0; i < dim; i++ {
					for j := 0; j < d; j++ {
						rounded[i*d+j] = float32(c.P.At(i, j))
					}
				}
				if err := e.WinnersRounded(new(Winners), c.P, rounded[1:], make([]float64, d), make([]int, p), 0); !errors.Is(err, ErrShape) {
					t.Fatalf("WinnersRounded with %d values: %v, want ErrShape", len(rounded)-1, err)
				}
				for _, per := range []int{1, 2, 3} { // prototypes per class
					labels := make([]int, p)
					for k := range labels {
						labels[k] = (k / per) % max(p/per, 2)
					}
					for lname, lambda := range relevanceCases(d, p, r) {
						dist := make([]float64, p)
						if err := e.Distances(dist, nil, c.P, lambda); err != nil {
							t.Fatal(err)
						}
						for k := range proj {
							proj[k] = append(proj[k][:0], e.Projection(k)...)
						}
						for _, y := range []int{labels[0], labels[p/2], labels[p-1]} {
							name := fmt.Sprintf("D=%d,d=%d,p=%d/%s/w%d/per%d/%s/y%d", dim, d, p, c.name, workers, per, lname, y)
							var w Winners
							if err := e.Winners(&w, c.P, lambda, labels, y); err != nil {
								t.Fatalf("%s: %v", name, err)
							}
							// The same search given the sample's float32
							// rounding (a trainer's, once per set): the
							// same Winners (on several workers the bounds
							// of a call depend on whether it was split, and
							// that on the engine's timing); the checks
							// below then run on its state.
							var wr Winners
							if err := e.WinnersRounded(&wr, c.P, rounded, lambda, labels, y); err != nil {
								t.Fatalf("%s: WinnersRounded: %v", name, err)
							}
							if workers == 1 && !sameWinners(wr, w) || wr.Plus != w.Plus || wr.Minus != w.Minus {
								t.Errorf("%s: WinnersRounded %+v, Winners %+v", name, wr, w)
							}
							plus, minus := exhaustiveWinners(dist, labels, y)
							if w.Plus != plus || w.Minus != minus {
								t.Errorf("%s: winners %d, %d; scan %d, %d", name, w.Plus, w.Minus, plus, minus)
								continue
							}
							for g, k := range [2]int{plus, minus} {
								if w.Exact[g] && math.Float64bits(w.Dist[g]) != math.Float64bits(dist[k]) {
									t.Errorf("%s: winner %d: distance %.17g, Distances %.17g", name, g, w.Dist[g], dist[k])
								}
								if !(w.Lo[g] <= dist[k] && dist[k] <= w.Hi[g]) {
									t.Errorf("%s: winner %d: [%g, %g] misses %g", name, g, w.Lo[g], w.Hi[g], dist[k])
								}
								if got, err := e.ExactDistance(k, lambda); err != nil || math.Float64bits(got) != math.Float64bits(dist[k]) {
									t.Errorf("%s: ExactDistance(%d) = %v, %v; Distances %v", name, k, got, err, dist[k])
								}
							}
							// Every projection afterwards is Distances'
							// (float64's where the search had float32's).
							for k := range proj {
								m, ld := e.Projection(k), e.ProjStride()
								for i := 0; i < d*ld; i++ {
									if i%ld < d && math.Float64bits(m[i]) != math.Float64bits(proj[k][i]) {
										t.Fatalf("%s: Projection(%d)[%d] = %v, Distances' %v", name, k, i, m[i], proj[k][i])
									}
								}
							}
						}
					}
				}
				e.Close()
			}
		}
	}
}

// sameWinners reports whether a and b are the same, bit for bit.
func sameWinners(a, b Winners) bool {
	if a.Plus != b.Plus || a.Minus != b.Minus || a.Exact != b.Exact {
		return false
	}
	for g := 0; g < 2; g++ {
		for _, v := range [3][2]float64{{a.Lo[g], b.Lo[g]}, {a.Hi[g], b.Hi[g]}, {a.Dist[g], b.Dist[g]}} {
			if math.Float64bits(v[0]) != math.Float64bits(v[1]) {
				return false
			}
		}
	}
	return true
}

// TestWinnersExhaustiveRoute checks the inputs the bounds do not cover: a
// negative relevance takes the exhaustive route (same winners), a NaN in
// the sample gives Distances' error, and a class without prototypes
// ErrNoGroup.
func TestWinnersExhaustiveRoute(t *testing.T) {
	r := rng(42)
	const dim, d, p = 50, 3, 6
	e := newEngine(t, dim, d, p, 2)
	P := randomBasis(t, dim, d, r)
	labels := []int{0, 0, 1, 1, 2, 2}
	lambda := []float64{0.7, 0.5, -0.2}
	dist := make([]float64, p)
	if err := e.Distances(dist, nil, P, lambda); err != nil {
		t.Fatal(err)
	}
	var w Winners
	before := e.Stats().Exhaustive
	if err := e.Winners(&w, P, lambda, labels, 1); err != nil {
		t.Fatal(err)
	}
	if plus, minus := exhaustiveWinners(dist, labels, 1); w.Plus != plus || w.Minus != minus || !w.Exact[0] || !w.Exact[1] {
		t.Errorf("negative λ: %+v, scan %d %d", w, plus, minus)
	}
	if e.Stats().Exhaustive != before+1 {
		t.Errorf("negative λ did not take the exhaustive route")
	}
	bad := linalg.NewDense(dim, d)
	bad.CopyFrom(P)
	bad.Set(3, 1, math.NaN())
	werr := e.Winners(&w, bad, uniform(d), labels, 1)
	derr := e.Distances(dist, nil, bad, uniform(d))
	if werr == nil || derr == nil || werr.Error() != derr.Error() || !errors.Is(werr, ErrNotFinite) {
		t.Errorf("NaN sample: Winners %v, Distances %v", werr, derr)
	}
	if err := e.Winners(&w, P, uniform(d), labels, 7); !errors.Is(err, ErrNoGroup) {
		t.Errorf("class without prototypes: %v", err)
	}
	if err := e.Winners(&w, P, uniform(d), []int{0, 0, 0, 0, 0, 0}, 0); !errors.Is(err, ErrNoGroup) {
		t.Errorf("no other class: %v", err)
	}
	if err := e.Winners(&w, P, uniform(d), labels[:3], 0); !errors.Is(err, ErrShape) {
		t.Errorf("short labels: %v", err)
	}
}

// TestWinnersAllocs checks that Winners allocates nothing after its first
// call, with and without the float32 shadow.
func TestWinnersAllocs(t *testing.T) {
	r := rng(43)
	const dim = 100
	for _, c := range []struct {
		d, p, workers int
		shadow        bool
	}{{5, 12, 1, false}, {5, 12, 2, false}, {12, 16, 1, true}, {12, 16, 2, true}} {
		d, p, workers := c.d, c.p, c.workers
		e := newEngine(t, dim, d, p, workers)
		if c.shadow && !e.SetShadow32(true) {
			t.Fatalf("no shadow at d = %d, p = %d on this kernel path", d, p)
		}
		P := randomBasis(t, dim, d, r)
		labels := make([]int, p)
		for k := range labels {
			labels[k] = k % 4
		}
		var w Winners
		lambda := uniform(d)
		f := func() {
			if err := e.Winners(&w, P, lambda, labels, 1); err != nil {
				t.Fatal(err)
			}
		}
		f()
		if got := testing.AllocsPerRun(20, f); got != 0 {
			t.Errorf("workers=%d, shadow %v: %v allocations per Winners", workers, c.shadow, got)
		}
		if c.shadow && e.Stats().Reprojected == 0 {
			t.Errorf("workers=%d: the shadow was not used", workers)
		}
	}
}

// TestFusedProjectionBits checks that the projections of a chunk, computed
// by one kernels.AtB over the prototypes' side-by-side columns, have the
// bits of one AtB per prototype (Projection after Distances and after
// Winners), for shard layouts of 1 to 3 workers and d = 1..13.
func TestFusedProjectionBits(t *testing.T) {
	r := rng(44)
	for _, d := range []int{1, 2, 3, 4, 5, 7, 8, 12, 13} {
		const dim, p = 57, 19
		for _, workers := range []int{1, 2, 3} {
			e := newEngine(t, dim, d, p, workers)
			P := randomBasis(t, dim, d, r)
			labels := make([]int, p)
			for k := range labels {
				labels[k] = k % 3
			}
			dist := make([]float64, p)
			want := make([]float64, d*d)
			for _, call := range []string{"Distances", "Winners"} {
				if call == "Distances" {
					if err := e.Distances(dist, nil, P, uniform(d)); err != nil {
						t.Fatal(err)
					}
				} else {
					var w Winners
					if err := e.Winners(&w, P, uniform(d), labels, 1); err != nil {
						t.Fatal(err)
					}
				}
				for k := 0; k < p; k++ {
					wk := e.protos[k]
					kernels.AtB(want, d, P.Data, P.Stride, wk.Data, wk.Stride, dim, d, d)
					got := make([]float64, d*d)
					e.copyProj(got, k)
					for i := range want {
						if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
							t.Fatalf("d=%d workers=%d %s: prototype %d: projection entry %d is %v, one AtB gives %v", d, workers, call, k, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// TestShadowHostile checks the float32 shadow on prototypes float32
// cannot hold: entries beyond float32's range (Inf when rounded: the
// search takes the exhaustive route), below its subnormals (0 when
// rounded: the widening's absolute term), NaN (Distances' error), and a
// prototype rewritten through its view and Sync'ed between searches:
// Winners against a scan of Distances every time.
func TestShadowHostile(t *testing.T) {
	r := rng(45)
	const dim, d, p = 80, 12, 16
	saved := shadowMinP
	shadowMinP = 1
	defer func() { shadowMinP = saved }()
	P := randomBasis(t, dim, d, r)
	labels := make([]int, p)
	for k := range labels {
		labels[k] = k % 5
	}
	lambda := uniform(d)
	for _, c := range []struct {
		name  string
		scale float64
	}{{"huge", 1e200}, {"tiny", 1e-300}, {"nan", math.NaN()}, {"rewritten", 1}} {
		e := newEngine(t, dim, d, p, 1)
		if !e.SetShadow32(true) {
			t.Fatal("no shadow")
		}
		for k := 0; k < p; k++ {
			if err := e.SetPrototype(k, randomBasis(t, dim, d, r)); err != nil {
				t.Fatal(err)
			}
		}
		check := func(when string) {
			dist := make([]float64, p)
			derr := e.Distances(dist, nil, P, lambda)
			var w Winners
			werr := e.Winners(&w, P, lambda, labels, 1)
			if (derr == nil) != (werr == nil) {
				t.Fatalf("%s %s: Winners %v, Distances %v", c.name, when, werr, derr)
			}
			if derr != nil {
				return
			}
			if plus, minus := exhaustiveWinners(dist, labels, 1); w.Plus != plus || w.Minus != minus {
				t.Errorf("%s %s: winners %d, %d; scan %d, %d", c.name, when, w.Plus, w.Minus, plus, minus)
			}
		}
		check("before")
		view := e.Prototype(3)
		for i := 0; i < dim; i++ {
			for j := 0; j < d; j++ {
				if c.name == "rewritten" {
					view.Set(i, j, P.At(i, j)) // prototype 3 becomes the sample
				} else {
					view.Set(i, j, view.At(i, j)*c.scale)
				}
			}
		}
		e.Sync(3)
		check("after")
		e.Close()
	}
}

// TestChunkProj: chunkProj gives the candidates' projections where they
// lie (matrix i of its view is Projection(ks[i]), entry for entry) exactly
// when they are consecutive prototypes of one chunk of one shard, and nil
// otherwise, over engines of 1 to 3 workers and every run of candidates.
func TestChunkProj(t *testing.T) {
	r := rng(41)
	const dim, d = 30, 3
	for _, p := range []int{1, 3, 8, 12, 17, 30} {
		for workers := 1; workers <= 3; workers++ {
			e, err := New(dim, d, p, workers)
			if err != nil {
				t.Fatal(err)
			}
			for k := 0; k < p; k++ {
				if err := e.SetPrototype(k, randomBasis(t, dim, d, r)); err != nil {
					t.Fatal(err)
				}
			}
			e.searchSpace()
			P := randomBasis(t, dim, d, r)
			e.project(P, uniform(d), true)
			check := func(ks []int32) {
				t.Helper()
				s := e.shards[e.owner[ks[0]]]
				want := true
				for i, k := range ks {
					j := int(k) - s.lo
					if int(k) != int(ks[0])+i || int(k) >= s.hi || j/chunk != (int(ks[0])-s.lo)/chunk {
						want = false
					}
				}
				a, lda, step := e.chunkProj(ks)
				if (a != nil) != want {
					t.Fatalf("p %d workers %d ks %v: view %v, want %v", p, workers, ks, a != nil, want)
				}
				if a == nil {
					return
				}
				for i, k := range ks {
					m := e.Projection(int(k))
					for row := 0; row < d; row++ {
						for c := 0; c < d; c++ {
							if got, w := a[i*step+row*lda+c], m[row*chunk*d+c]; got != w {
								t.Fatalf("p %d workers %d ks %v: matrix %d (%d, %d) = %g, want %g", p, workers, ks, i, row, c, got, w)
							}
						}
					}
				}
			}
			for a := 0; a < p; a++ {
				for b := a + 1; b <= p; b++ {
					ks := make([]int32, 0, b-a)
					for k := a; k < b; k++ {
						ks = append(ks, int32(k))
					}
					check(ks)
				}
				if a+2 < p {
					check([]int32{int32(a), int32(a + 2)})
				}
			}
			e.Close()
		}
	}
}
