package svd

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestFactorizeValues checks, on every implementation and n = 1..16, 25,
// 33 and 64, that
// Small.FactorizeValues gives Factorize's U, s and V bit for bit, and in
// bv the bits of Batch.Values on the same matrix (alone and between
// neighbours in a batch), and that Pair.FactorizeValues gives, for each
// matrix, what Small.FactorizeValues gives for it alone. The inputs are
// the pair tests' (hard, rank-deficient, -0, subnormal, the trainer's
// products with tiny, clustered and right angles).
func TestFactorizeValues(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(24, 1))
		fallbacks := batchFallbacks.Load()
		defer func() { t.Logf("%d batch values not from the factorisation's run", batchFallbacks.Load()-fallbacks) }()
		for n := 1; n <= MaxSmall; n++ {
			if n > 16 && n != 25 && n != 33 && n != 64 || testing.Short() && n > 8 && n != 12 && n != 25 {
				continue
			}
			w, ref, p := NewSmall(n), NewSmall(n), NewPair(n)
			bt := NewBatch(n)
			ms := pairMatrices(rng, n)
			lda, ldu, ldv := n+1, n+2, n+3
			u, v := make([]float64, n*ldu), make([]float64, n*ldv)
			ru, rv := make([]float64, n*ldu), make([]float64, n*ldv)
			s, rs, bv := make([]float64, n), make([]float64, n), make([]float64, n)
			batch := make([]float64, 3*n)
			for k, m := range ms {
				name := fmt.Sprintf("n=%d/%s", n, m.name)
				a, off := padded(m.a, n, n, lda)
				a = a[off:]
				err := w.FactorizeValues(u, ldu, s, v, ldv, bv, a, lda)
				rerr := ref.Factorize(ru, ldu, rs, rv, ldv, a, lda)
				if (err == nil) != (rerr == nil) {
					t.Fatalf("%s: error %v, Factorize %v", name, err, rerr)
				}
				if err != nil {
					continue
				}
				if !sameBits(u, ru) || !sameBits(s, rs) || !sameBits(v, rv) {
					t.Errorf("%s: U, s, V differ from Factorize's", name)
				}
				// Batch.Values of the matrix between two neighbours.
				prev, next := ms[(k+len(ms)-1)%len(ms)], ms[(k+1)%len(ms)]
				three := make([]float64, 0, 3*n*n)
				three = append(append(append(three, prev.a...), m.a...), next.a...)
				if bt.Values(batch, n, three, n, n*n, 3) == nil && !sameBits(bv, batch[n:2*n]) {
					t.Errorf("%s: bv = %v, Batch.Values %v", name, bv, batch[n:2*n])
				}
				// The pair against the singles.
				a2, off2 := padded(next.a, n, n, lda)
				a2 = a2[off2:]
				var pu, ps, pv, pbv [2][]float64
				for i := range pu {
					pu[i], ps[i], pv[i], pbv[i] = make([]float64, n*ldu), make([]float64, n), make([]float64, n*ldv), make([]float64, n)
				}
				perr := p.FactorizeValues(pu, ldu, ps, pv, pbv, ldv, [2][]float64{a, a2}, lda)
				u2, s2, v2, bv2 := make([]float64, n*ldu), make([]float64, n), make([]float64, n*ldv), make([]float64, n)
				err2 := w.FactorizeValues(u2, ldu, s2, v2, ldv, bv2, a2, lda)
				if (perr == nil) != (err2 == nil) {
					t.Fatalf("%s: pair error %v, second alone %v", name, perr, err2)
				}
				if perr != nil {
					continue
				}
				if !sameBits(pu[0], u) || !sameBits(ps[0], s) || !sameBits(pv[0], v) || !sameBits(pbv[0], bv) {
					t.Errorf("%s: pair's first matrix differs from FactorizeValues alone", name)
				}
				if !sameBits(pu[1], u2) || !sameBits(ps[1], s2) || !sameBits(pv[1], v2) || !sameBits(pbv[1], bv2) {
					t.Errorf("%s+%s: pair's second matrix differs from FactorizeValues alone", name, next.name)
				}
			}
		}
	})
}

// TestFactorizeValuesAllocs checks that FactorizeValues and
// Pair.FactorizeValues allocate nothing after their first call.
func TestFactorizeValuesAllocs(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(25, 1))
		for _, n := range []int{1, 5, 12, 25} {
			w, p := NewSmall(n), NewPair(n)
			a := [2][]float64{gaussian(rng, n, n, n), make([]float64, n*n)} // the zero matrix takes the fallback
			var u, s, v, bv [2][]float64
			for i := range u {
				u[i], s[i], v[i], bv[i] = make([]float64, n*n), make([]float64, n), make([]float64, n*n), make([]float64, n)
			}
			f := func() {
				for i := range a {
					if err := w.FactorizeValues(u[i], n, s[i], v[i], n, bv[i], a[i], n); err != nil {
						t.Fatal(err)
					}
				}
				if err := p.FactorizeValues(u, n, s, v, bv, n, a, n); err != nil {
					t.Fatal(err)
				}
			}
			f()
			if got := testing.AllocsPerRun(10, f); got != 0 {
				t.Errorf("n=%d: %v allocations per run", n, got)
			}
		}
	})
}
