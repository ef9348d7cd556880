package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestAB2F32 checks AB2F32 against its definition on every
// implementation, bit for bit: A1 widened (float64 of each float32), AB2
// into a separate float64 matrix, each output rounded to float32 by Go's
// conversion. Every shape of the AB2 tests, strides, alignments, guards
// around the output, inputs left as they were, and the update in place
// (c = a1 with k <= d and k > d: the columns beyond d stay as they were).
func TestAB2F32(t *testing.T) { testAB2F32(t, false) }

// TestAB2F32F32 is TestAB2F32 for AB2F32F32 (A2 float32 too, widened in
// the definition as A1 is).
func TestAB2F32F32(t *testing.T) { testAB2F32(t, true) }

func testAB2F32(t *testing.T, a2f32 bool) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 32))
		for ci, s := range ab2Shapes(testing.Short()) {
			n, k, d := s.n, s.p, s.q
			lda1, ldb1, lda2, ldb2 := ldFor(k, ci), ldFor(d, ci/5+1), ldFor(k, ci/7+3), ldFor(d, ci/25+2)
			a1 := newMatrix32(rng, n, k, lda1, ci%4)
			b1 := newMatrix(rng, k, d, ldb1, (ci/4+1)%4, false)
			a2 := newMatrix(rng, n, k, lda2, (ci/3+2)%4, false)
			b2 := newMatrix(rng, k, d, ldb2, (ci/16+3)%4, false)
			a232 := newMatrix32(rng, n, k, lda2, (ci/3+2)%4)
			if a2f32 {
				// The definition's A2: A2 widened.
				for r := 0; r < n; r++ {
					for l := 0; l < k; l++ {
						a2.buf[a2.off+r*lda2+l] = a232.at(r, l)
					}
				}
			}
			call := func(c []float32, ldc int, a1 []float32, lda1 int) {
				if a2f32 {
					AB2F32F32(c, ldc, a1, lda1, b1.data(), ldb1, a232.data(), lda2, b2.data(), ldb2, n, k, d)
				} else {
					AB2F32(c, ldc, a1, lda1, b1.data(), ldb1, a2.data(), lda2, b2.data(), ldb2, n, k, d)
				}
			}
			// The definition: widen, AB2 (the implementation in use), round.
			w := &matrix{buf: make([]float64, max(n*max(k, 1), 1)), rows: n, cols: k, ld: max(k, 1)}
			for r := 0; r < n; r++ {
				for l := 0; l < k; l++ {
					w.buf[r*w.ld+l] = a1.at(r, l)
				}
			}
			want := make([]float32, n*d)
			if n > 0 && d > 0 {
				u := make([]float64, n*d)
				AB2(u, d, w.buf, w.ld, b1.data(), ldb1, a2.data(), lda2, b2.data(), ldb2, n, k, d)
				for i, v := range u {
					want[i] = float32(v)
				}
			}
			a1b := append([]float32(nil), a1.buf...)
			b1b, a2b, b2b := b1.bits(), a2.bits(), b2.bits()
			a232b := append([]float32(nil), a232.buf...)

			check := func(name string, c *matrix32, before []float32, cols int) {
				t.Helper()
				b1.checkUnchanged(t, name+": B1", b1b)
				a2.checkUnchanged(t, name+": A2", a2b)
				a232.checkUnchanged(t, name+": A2 (float32)", a232b)
				b2.checkUnchanged(t, name+": B2", b2b)
				c.checkOutput(t, name, n, d, want, before)
			}

			// Into a separate C.
			ldc := ldFor(d, ci/9+1)
			c := newMatrix32(rng, n, d, ldc, (ci/2+1)%4)
			cb := append([]float32(nil), c.buf...)
			name := fmt.Sprintf("n=%d k=%d d=%d lda1=%d ldb1=%d lda2=%d ldb2=%d ldc=%d", n, k, d, lda1, ldb1, lda2, ldb2, ldc)
			call(c.data(), ldc, a1.data(), lda1)
			a1.checkUnchanged(t, name+": A1", a1b)
			check(name, c, cb, d)

			// In place: W = [A1 | rest] with max(k, d) columns, C = its first d.
			if k == 0 || n == 0 || d == 0 {
				continue
			}
			wc := max(k, d)
			ldw := ldFor(wc, ci/11)
			w32 := newMatrix32(rng, n, wc, ldw, (ci/6)%4)
			for r := 0; r < n; r++ {
				for l := 0; l < k; l++ {
					w32.buf[w32.off+r*ldw+l] = a1.buf[a1.off+r*lda1+l]
				}
			}
			wb := append([]float32(nil), w32.buf...)
			name = fmt.Sprintf("in place: n=%d k=%d d=%d ldw=%d ldb1=%d lda2=%d ldb2=%d", n, k, d, ldw, ldb1, lda2, ldb2)
			call(w32.data(), ldw, w32.data(), ldw)
			check(name, w32, wb, d)
		}
	})
}

// TestAB2F32Allocs: AB2F32 allocates nothing on any path, in place or
// not (its stack blocks stay on the stack).
func TestAB2F32Allocs(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for _, s := range []struct{ n, d int }{{400, 5}, {784, 12}, {400, 25}} {
			rng := rand.New(rand.NewPCG(2, 32))
			ld := Stride(s.d)
			w := newMatrix32(rng, s.n, s.d, ld, 0)
			p := newMatrix(rng, s.n, s.d, ld, 0, false)
			p32 := newMatrix32(rng, s.n, s.d, ld, 0)
			c1 := newMatrix(rng, s.d, s.d, ld, 0, false)
			c2 := newMatrix(rng, s.d, s.d, ld, 0, false)
			out := make([]float32, s.n*s.d)
			for _, inPlace := range []bool{false, true} {
				c, ldc := out, s.d
				if inPlace {
					c, ldc = w.data(), ld
				}
				if n := testing.AllocsPerRun(5, func() {
					AB2F32(c, ldc, w.data(), ld, c1.data(), ld, p.data(), ld, c2.data(), ld, s.n, s.d, s.d)
					AB2F32F32(c, ldc, w.data(), ld, c1.data(), ld, p32.data(), ld, c2.data(), ld, s.n, s.d, s.d)
				}); n != 0 {
					t.Errorf("n=%d d=%d in place %v: %v allocations", s.n, s.d, inPlace, n)
				}
			}
		}
	})
}
