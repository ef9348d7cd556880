package svd

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// checkEnclosure reports the exact values ref (descending, from ddValues)
// whose squares are outside [lo, hi], and returns the largest distance of
// a QL estimate (the middle of a one-value enclosure) from the exact square
// in units of n² u ‖A‖_2², and the widest enclosure relative to σ_1².
func checkEnclosure(t *testing.T, name string, n int, ref, lo, hi []float64) (est, width float64, certified bool) {
	t.Helper()
	if math.IsInf(hi[0], 1) {
		return 0, 0, false
	}
	s1 := ref[0] * ref[0]
	for j, r := range ref {
		// ref is within about 1e-30 of σ_1 of the exact value.
		sq, m := r*r, 1e-28*s1+0x1p-1074
		if !(lo[j] <= sq+m && sq-m <= hi[j]) {
			t.Errorf("%s: σ_%d² = %.17g outside [%.17g, %.17g]", name, j, sq, lo[j], hi[j])
		}
		if s1 > 0 && lo[j] > 0 {
			width = max(width, (hi[j]-lo[j])/s1)
			est = max(est, math.Abs((lo[j]+hi[j])/2-sq)/(float64(n*n)*ur*s1))
		}
	}
	return est, width, true
}

// scaledDDValues is ddValues on a scaled by a power of two into [1/2, 1)
// (ddValues squares its entries: at 1e150 that overflows), scaled back.
func scaledDDValues(n int, a []float64) []float64 {
	amax := maxAbs(a)
	if amax == 0 {
		return ddValues(n, a)
	}
	_, e := math.Frexp(amax)
	b := make([]float64, len(a))
	for i, x := range a {
		b[i] = math.Ldexp(x, -e)
	}
	s := ddValues(n, b)
	for i := range s {
		s[i] = math.Ldexp(s[i], e)
	}
	return s
}

// TestGramEnclose checks Gram.Enclose's enclosures against the exact
// singular values (double-double Jacobi) of the principal-angle products
// of every n up to MaxSmall and of the hard matrices (rank-deficient,
// clustered, graded, tiny, huge and tiny scales, parallel columns), and
// logs how many were certified, the widest enclosure relative to σ_1² and
// the largest distance of an enclosure's middle from the exact square in
// units of n² u σ_1² (the tridiagonal reduction's bound is 8 of them).
func TestGramEnclose(t *testing.T) {
	all := principalAngleCases11()
	forEachImpl(t, func(t *testing.T) { testGramEnclose(t, all) })
}

func testGramEnclose(t *testing.T, all map[int][]angleCase) {
	rng := rand.New(rand.NewPCG(26, 1))
	fallbacks := gramScalarFallbacks.Load()
	var est, width float64
	total, cert := 0, 0
	for n := 1; n <= MaxSmall; n++ {
		cases := all[n]
		if cases == nil {
			continue
		}
		w := NewGram(n)
		type tc struct {
			name string
			a    []float64
			ref  []float64
		}
		var tcs []tc
		for _, c := range cases {
			tcs = append(tcs, tc{c.name, c.m, c.ref})
		}
		if n <= 16 || n == 25 || n == 64 {
			for _, m := range hardMatrices(rng, n, n) {
				tcs = append(tcs, tc{m.name, m.a, scaledDDValues(n, m.a)})
			}
		}
		lda, ld := n+2, n+1
		lo, hi := make([]float64, ld), make([]float64, ld)
		for _, c := range tcs {
			a, off := padded(c.a, n, n, lda)
			if err := w.Enclose(lo, hi, ld, a[off:], lda, 0, 1); err != nil {
				t.Fatalf("n=%d %s: %v", n, c.name, err)
			}
			total++
			e, wd, ok := checkEnclosure(t, fmt.Sprintf("n=%d %s", n, c.name), n, c.ref, lo, hi)
			if !ok {
				t.Logf("n=%d %s: not certified", n, c.name)
			}
			if ok {
				cert++
				est, width = max(est, e), max(width, wd)
			}
		}
	}
	t.Logf("%d of %d certified (%d by the scalar certification); widest enclosure %.3g σ_1²; estimates within %.3g n² u σ_1² of the exact squares",
		cert, total, gramScalarFallbacks.Load()-fallbacks, width, est)
	if cert < total*9/10 {
		t.Errorf("only %d of %d enclosures certified", cert, total)
	}
}

// TestGramBatch checks that Enclose on a batch (strided, with steps) gives
// each matrix's enclosure alone, and its errors.
func TestGramBatch(t *testing.T) { forEachImpl(t, testGramBatch) }

func testGramBatch(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 1))
	// k: groups of 4 partly filled, one and two groups in a QL run (ql4AVX2,
	// ql8AVX2), and more than one run.
	for _, nk := range [][2]int{{1, 11}, {2, 16}, {3, 27}, {5, 3}, {12, 9}, {12, 16}, {25, 27}, {25, 6}, {12, 32}, {25, 33}, {7, 21}} {
		n, k := nk[0], nk[1]
		w := NewGram(n)
		lda, ld := n+1, n+3
		step := n*lda + 2
		a := make([]float64, k*step)
		for i := 0; i < k; i++ {
			g := gaussian(rng, n, n, n)
			for r := 0; r < n; r++ {
				copy(a[i*step+r*lda:], g[r*n:(r+1)*n])
			}
		}
		lo, hi := make([]float64, k*ld), make([]float64, k*ld)
		if err := w.Enclose(lo, hi, ld, a, lda, step, k); err != nil {
			t.Fatal(err)
		}
		// EncloseEach on the same matrices in another order.
		perm := rng.Perm(k)
		mats := make([][]float64, k)
		for i, j := range perm {
			mats[i] = a[j*step : j*step+(n-1)*lda+n]
		}
		elo, ehi := make([]float64, k*ld), make([]float64, k*ld)
		if err := w.EncloseEach(elo, ehi, ld, mats, lda); err != nil {
			t.Fatal(err)
		}
		l1, h1 := make([]float64, n), make([]float64, n)
		for i := 0; i < k; i++ {
			if err := w.Enclose(l1, h1, n, a[i*step:], lda, 0, 1); err != nil {
				t.Fatal(err)
			}
			if !sameBits(l1, lo[i*ld:i*ld+n]) || !sameBits(h1, hi[i*ld:i*ld+n]) {
				t.Errorf("n=%d: matrix %d differs in the batch", n, i)
			}
		}
		for i, j := range perm {
			if !sameBits(elo[i*ld:i*ld+n], lo[j*ld:j*ld+n]) || !sameBits(ehi[i*ld:i*ld+n], hi[j*ld:j*ld+n]) {
				t.Errorf("n=%d: EncloseEach's matrix %d (Enclose's %d) differs", n, i, j)
			}
		}
		a[2*step] = math.NaN()
		err := w.Enclose(lo, hi, ld, a, lda, step, k)
		var be *BatchError
		if !errors.As(err, &be) || be.Index != 2 || !errors.Is(err, ErrNotFinite) {
			t.Errorf("n=%d: NaN in matrix 2: %v", n, err)
		}
		at := 0
		for i, j := range perm {
			if j == 2 {
				at = i
			}
		}
		err = w.EncloseEach(elo, ehi, ld, mats, lda)
		if !errors.As(err, &be) || be.Index != at || !errors.Is(err, ErrNotFinite) {
			t.Errorf("n=%d: NaN in EncloseEach's matrix %d: %v", n, at, err)
		}
	}
}

// TestGramAllocs checks that Enclose and EncloseEach allocate nothing.
func TestGramAllocs(t *testing.T) { forEachImpl(t, testGramAllocs) }

func testGramAllocs(t *testing.T) {
	rng := rand.New(rand.NewPCG(28, 1))
	for _, n := range []int{1, 5, 12, 25} {
		w := NewGram(n)
		a := gaussian(rng, n, n, n)
		lo, hi := make([]float64, n), make([]float64, n)
		if got := testing.AllocsPerRun(10, func() { _ = w.Enclose(lo, hi, n, a, n, 0, 1) }); got != 0 {
			t.Errorf("n=%d: %v allocations", n, got)
		}
		mats := [][]float64{a, a}
		lo2, hi2 := make([]float64, 2*n), make([]float64, 2*n)
		if got := testing.AllocsPerRun(10, func() { _ = w.EncloseEach(lo2, hi2, n, mats, n) }); got != 0 {
			t.Errorf("n=%d: EncloseEach: %v allocations", n, got)
		}
	}
}

func BenchmarkGramEnclose(b *testing.B) {
	for _, n := range []int{5, 8, 10, 12, 16, 25} {
		rng := rand.New(rand.NewPCG(29, 1))
		const k = 8
		a := make([]float64, 0, k*n*n)
		for i := 0; i < k; i++ {
			th := make([]float64, n)
			for j := range th {
				th[j] = 1.2 + 0.35*rng.Float64() // random high-dimensional subspaces: near 90°
			}
			a = append(a, projection(rng, n, th)...)
		}
		b.Run(fmt.Sprintf("n=%d/gram-generic", n), func(b *testing.B) {
			defer setGramAVX2(false)()
			w := NewGram(n)
			lo, hi := make([]float64, k*n), make([]float64, k*n)
			for b.Loop() {
				_ = w.Enclose(lo, hi, n, a, n, n*n, k)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(k*b.N), "ns/matrix")
		})
		b.Run(fmt.Sprintf("n=%d/gram", n), func(b *testing.B) {
			w := NewGram(n)
			lo, hi := make([]float64, k*n), make([]float64, k*n)
			for b.Loop() {
				_ = w.Enclose(lo, hi, n, a, n, n*n, k)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(k*b.N), "ns/matrix")
		})
		b.Run(fmt.Sprintf("n=%d/jacobi", n), func(b *testing.B) {
			w := NewBatch(n)
			s := make([]float64, k*n)
			for b.Loop() {
				_ = w.Values(s, n, a, n, n*n, k)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(k*b.N), "ns/matrix")
		})
	}
}
