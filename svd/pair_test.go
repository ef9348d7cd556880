package svd

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// pairMatrices returns the n x n test inputs of the pair tests: the hard
// matrices of the other tests, products of orthonormal bases with the
// principal angles of angleCases (the trainer's inputs), and inputs with
// negative zeros and subnormal entries (where a rotation by c = 1, s = 0
// would turn -0 into +0: each lane must leave them as it does alone).
func pairMatrices(rng *rand.Rand, n int) []testMatrix {
	ms := hardMatrices(rng, n, n)
	add := func(name string, a []float64) {
		ms = append(ms, testMatrix{name, n, n, a})
	}
	cases := angleCases(rng, n)
	for _, name := range []string{"random", "tiny angles", "small angles", "near orthogonal", "orthogonal", "identical", "repeated", "rank-deficient", "clustered"} {
		add("angles "+name, projection(rng, n, cases[name]))
	}
	negID := make([]float64, n*n)
	for i := range negID {
		negID[i] = math.Copysign(0, -1)
	}
	for i := 0; i < n; i++ {
		negID[i*n+i] = -1
	}
	add("-identity", negID)
	g := gaussian(rng, n, n, n)
	for i := range g {
		if rng.IntN(3) == 0 {
			g[i] = math.Copysign(0, -g[i])
		}
	}
	add("-0 entries", g)
	r := gaussian(rng, n, n, n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			if (i+j)%2 == 1 {
				r[i*n+j] = math.Copysign(0, -1)
			}
		}
	}
	add("checkerboard -0", r)
	sub := gaussian(rng, n, n, n)
	for i := range sub {
		if rng.IntN(2) == 0 {
			sub[i] *= 0x1p-1070 // subnormal: rotations underflow to ±0
		}
	}
	add("subnormal", sub)
	return ms
}

// smallFactorizer is Small.Factorize or Small.Factorize32; pairFactorizer
// Pair's.
type (
	smallFactorizer func(u []float64, ldu int, s []float64, v []float64, ldv int, a []float64, lda int) error
	pairFactorizer  func(u [2][]float64, ldu int, s, v [2][]float64, ldv int, a [2][]float64, lda int) error
)

// factorizeApart is what Pair.Factorize must equal: two calls of
// Small.Factorize (f), the second only if the first succeeded.
func factorizeApart(f smallFactorizer, u [2][]float64, ldu int, s, v [2][]float64, ldv int, a [2][]float64, lda int) error {
	for i := range a {
		if err := f(u[i], ldu, s[i], v[i], ldv, a[i], lda); err != nil {
			return &BatchError{Index: i, Err: err}
		}
	}
	return nil
}

// pairBuffers holds guarded outputs of a pair.
type pairBuffers struct {
	ub, sb, vb [2][]float64
}

func newPairBuffers(n, ldu, ldv int) *pairBuffers {
	b := &pairBuffers{}
	for i := 0; i < 2; i++ {
		b.ub[i], b.sb[i], b.vb[i] = guarded(n*ldu), guarded(n), guarded(n*ldv)
	}
	return b
}

func (b *pairBuffers) outs(n, ldu, ldv int) (u, s, v [2][]float64) {
	for i := 0; i < 2; i++ {
		u[i], s[i], v[i] = b.ub[i][3:3+n*ldu], b.sb[i][3:3+n], b.vb[i][3:3+n*ldv]
	}
	return u, s, v
}

// checkPair runs Pair.Factorize on (a0, a1) and compares every output
// element (and the guards around them) and the error with two calls of
// Small.Factorize.
func checkPair(t *testing.T, name string, p *Pair, w *Small, a0, a1 []float64) {
	t.Helper()
	checkPairBy(t, name, p.N(), p.Factorize, w.Factorize, a0, a1)
}

// checkPairBy is checkPair of the pair factoriser pf against two calls of
// sf.
func checkPairBy(t *testing.T, name string, n int, pf pairFactorizer, sf smallFactorizer, a0, a1 []float64) {
	t.Helper()
	lda, ldu, ldv := n+1, n+3, n+2
	b0, off0 := padded(a0, n, n, lda)
	b1, off1 := padded(a1, n, n, lda)
	orig0, orig1 := append([]float64(nil), b0...), append([]float64(nil), b1...)
	a := [2][]float64{b0[off0:], b1[off1:]}
	got, want := newPairBuffers(n, ldu, ldv), newPairBuffers(n, ldu, ldv)
	gu, gs, gv := got.outs(n, ldu, ldv)
	wu, ws, wv := want.outs(n, ldu, ldv)
	errGot := pf(gu, ldu, gs, gv, ldv, a, lda)
	errWant := factorizeApart(sf, wu, ldu, ws, wv, ldv, a, lda)
	if !sameBits(b0, orig0) || !sameBits(b1, orig1) {
		t.Errorf("%s: input modified", name)
	}
	if (errGot == nil) != (errWant == nil) {
		t.Fatalf("%s: error %v, apart %v", name, errGot, errWant)
	}
	if errGot != nil {
		var bg, bw *BatchError
		if !errors.As(errGot, &bg) || !errors.As(errWant, &bw) || bg.Index != bw.Index || bg.Err != bw.Err {
			t.Errorf("%s: error %v, apart %v", name, errGot, errWant)
		}
	}
	for i := 0; i < 2; i++ {
		if errGot != nil && i >= errGot.(*BatchError).Index {
			break // outputs of the failed matrix and after it: unspecified
		}
		for _, c := range []struct {
			what string
			g, w []float64
		}{{"U", got.ub[i], want.ub[i]}, {"s", got.sb[i], want.sb[i]}, {"V", got.vb[i], want.vb[i]}} {
			if !sameBits(c.g, c.w) {
				for k := range c.g {
					if math.Float64bits(c.g[k]) != math.Float64bits(c.w[k]) {
						t.Errorf("%s: matrix %d: %s element %d is %g, apart %g", name, i, c.what, k-3, c.g[k], c.w[k])
						break
					}
				}
			}
		}
	}
}

// TestPairFactorize checks that Pair.Factorize gives, for each matrix, the
// bits of Small.Factorize alone, on every implementation, for n = 1..64
// and pairs of random and hard inputs: the same input twice, inputs that
// converge after very different numbers of sweeps (identity or zero beside
// random), and -0 and subnormal entries.
func TestPairFactorize(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(21, 1))
		for n := 1; n <= MaxSmall; n++ {
			p, w := NewPair(n), NewSmall(n)
			ms := pairMatrices(rng, n)
			rnd := gaussian(rng, n, n, n)
			for k, m := range ms {
				next := ms[(k+1)%len(ms)]
				name := fmt.Sprintf("n=%d/%s", n, m.name)
				checkPair(t, name+"+"+next.name, p, w, m.a, next.a)
				checkPair(t, name+"+random", p, w, m.a, rnd)
				if n <= 16 || n == 25 || n == 64 {
					checkPair(t, name+"+itself", p, w, m.a, m.a)
					checkPair(t, "random+"+name, p, w, rnd, m.a)
				}
			}
		}
	})
}

// TestPairNotFinite checks that a NaN or Inf in either matrix gives the
// error of Small.Factorize, with the index of the matrix, and the outputs
// of matrix 0 when only matrix 1 is bad.
func TestPairNotFinite(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(22, 1))
		for _, n := range []int{1, 2, 3, 12, 25, 64} {
			p, w := NewPair(n), NewSmall(n)
			checkPairNotFinite(t, rng, n, p.Factorize, w.Factorize, math.NaN(), math.Inf(1), math.Inf(-1))
		}
	})
}

// checkPairNotFinite checks the pair factoriser pf on matrices with one
// entry bad (each of bads) in either or both against two calls of sf
// (checkPairBy), and that its error is ErrNotFinite with the index of the
// first bad matrix.
func checkPairNotFinite(t *testing.T, rng *rand.Rand, n int, pf pairFactorizer, sf smallFactorizer, bads ...float64) {
	t.Helper()
	for _, bad := range bads {
		good := gaussian(rng, n, n, n)
		nf := gaussian(rng, n, n, n)
		nf[rng.IntN(n*n)] = bad
		for _, c := range []struct {
			name   string
			a0, a1 []float64
			index  int
		}{{"bad+good", nf, good, 0}, {"good+bad", good, nf, 1}, {"bad+bad", nf, nf, 0}} {
			name := fmt.Sprintf("n=%d/%g/%s", n, bad, c.name)
			checkPairBy(t, name, n, pf, sf, c.a0, c.a1)
			s := [2][]float64{make([]float64, n), make([]float64, n)}
			u := [2][]float64{make([]float64, n*n), make([]float64, n*n)}
			v := [2][]float64{make([]float64, n*n), make([]float64, n*n)}
			err := pf(u, n, s, v, n, [2][]float64{c.a0, c.a1}, n)
			var be *BatchError
			if !errors.Is(err, ErrNotFinite) || !errors.As(err, &be) || be.Index != c.index {
				t.Errorf("%s: %v, want ErrNotFinite at index %d", name, err, c.index)
			}
		}
	}
}

// TestPairAllocs checks that Pair.Factorize and Pair.FactorizeValues
// allocate nothing, the latter from its first call.
func TestPairAllocs(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(23, 1))
		for _, n := range []int{1, 5, 12, 25, 64} {
			p := NewPair(n)
			a := [2][]float64{gaussian(rng, n, n, n), projection(rng, n, angleCases(rng, n)["small angles"])}
			var u, s, v [2][]float64
			for i := range u {
				u[i], s[i], v[i] = make([]float64, n*n), make([]float64, n), make([]float64, n*n)
			}
			bv := [2][]float64{make([]float64, n), make([]float64, n)}
			values := func() {
				if err := p.FactorizeValues(u, n, s, v, bv, n, a, n); err != nil {
					t.Fatal(err)
				}
			}
			// FactorizeValues' first call too: a trainer's first step
			// that needs the values may come after its warm-up. The
			// count is the process's, so the fewest of three new pairs.
			first := uint64(math.MaxUint64)
			for range 3 {
				p = NewPair(n)
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				values()
				runtime.ReadMemStats(&after)
				first = min(first, after.Mallocs-before.Mallocs)
			}
			if first != 0 {
				t.Errorf("n=%d: FactorizeValues' first call: %d allocations", n, first)
			}
			if got := testing.AllocsPerRun(5, func() {
				if err := p.Factorize(u, n, s, v, n, a, n); err != nil {
					t.Fatal(err)
				}
			}); got != 0 {
				t.Errorf("n=%d: %v allocations", n, got)
			}
			if got := testing.AllocsPerRun(5, values); got != 0 {
				t.Errorf("n=%d: FactorizeValues: %v allocations", n, got)
			}
		}
	})
}
