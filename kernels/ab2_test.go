package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// ab2Shapes are the (n, k, d) of the AB2 tests: every k, d in 1..33 for a
// few n (around the row blocks 4, 6, 12 of AVX2 and 7, 9, 14, 15 of
// AVX-512), the long n of nList with some column counts, the model's
// shapes, and the in-place row chunks of MaxAB2InPlaceK (n a few chunks
// long for k = 25, 33).
func ab2Shapes(short bool) []shape3 {
	var s []shape3
	ns := []int{1, 5, 13, 29}
	if short {
		ns = []int{1, 13}
	}
	for _, n := range ns {
		for k := 1; k <= 33; k++ {
			for d := 1; d <= 33; d++ {
				s = append(s, shape3{n, k, d})
			}
		}
	}
	cols := someCols
	if short {
		cols = []int{1, 8, 12, 25, 33}
	}
	for _, n := range nList {
		for _, k := range cols {
			for _, d := range cols {
				s = append(s, shape3{n, k, d})
			}
		}
	}
	s = append(s, shape3{0, 0, 5}, shape3{5, 0, 5}, shape3{5, 5, 0}, shape3{0, 0, 0}, shape3{3, 0, 13})
	return append(s, shape3{784, 12, 12}, shape3{400, 25, 25}, shape3{784, 5, 5}, shape3{1000, 25, 25},
		shape3{1000, 33, 33}, shape3{121, 40, 70}, shape3{97, 100, 13})
}

// ab2Reference is AB on [A1 A2] and [B1; B2] built explicitly (strides
// 2k + extra and d + extra), on the implementation in use: the result AB2
// must match bit for bit.
func ab2Reference(a1, b1, a2, b2 *matrix, n, k, d, extra int) *matrix {
	lda, ldb := 2*k+extra, d+extra
	a := &matrix{buf: make([]float64, max(n*lda, 1)), rows: n, cols: 2 * k, ld: lda}
	b := &matrix{buf: make([]float64, max(2*k*ldb, 1)), rows: 2 * k, cols: d, ld: ldb}
	for r := 0; r < n; r++ {
		for l := 0; l < k; l++ {
			a.buf[r*lda+l] = a1.at(r, l)
			a.buf[r*lda+k+l] = a2.at(r, l)
		}
	}
	for l := 0; l < k; l++ {
		for j := 0; j < d; j++ {
			b.buf[l*ldb+j] = b1.at(l, j)
			b.buf[(k+l)*ldb+j] = b2.at(l, j)
		}
	}
	c := &matrix{buf: make([]float64, max(n*d, 1)), rows: n, cols: d, ld: d}
	AB(c.buf, d, a.buf, lda, b.buf, ldb, n, 2*k, d)
	return c
}

// TestAB2 checks AB2 against AB on the explicitly built [A1 A2] and [B1;
// B2], bit for bit, on every implementation: every n, k, d of ab2Shapes,
// strides, alignments, guards around every matrix, inputs left as they
// were, and the update in place (c = a1, with k <= d and k > d, whose
// extra columns must stay as they were).
func TestAB2(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 12))
		for ci, s := range ab2Shapes(testing.Short()) {
			n, k, d := s.n, s.p, s.q
			lda1, ldb1, lda2, ldb2 := ldFor(k, ci), ldFor(d, ci/5+1), ldFor(k, ci/7+3), ldFor(d, ci/25+2)
			a1 := newMatrix(rng, n, k, lda1, ci%4, false)
			b1 := newMatrix(rng, k, d, ldb1, (ci/4+1)%4, false)
			a2 := newMatrix(rng, n, k, lda2, (ci/3+2)%4, false)
			b2 := newMatrix(rng, k, d, ldb2, (ci/16+3)%4, false)
			want := ab2Reference(a1, b1, a2, b2, n, k, d, ci%3)
			a1b, b1b, a2b, b2b := a1.bits(), b1.bits(), a2.bits(), b2.bits()

			// Into a separate C.
			ldc := ldFor(d, ci/9+1)
			c := newMatrix(rng, n, d, ldc, (ci/2+1)%4, true)
			name := fmt.Sprintf("n=%d k=%d d=%d lda1=%d ldb1=%d lda2=%d ldb2=%d ldc=%d", n, k, d, lda1, ldb1, lda2, ldb2, ldc)
			AB2(c.data(), ldc, a1.data(), lda1, b1.data(), ldb1, a2.data(), lda2, b2.data(), ldb2, n, k, d)
			a1.checkUnchanged(t, name+": A1", a1b)
			b1.checkUnchanged(t, name+": B1", b1b)
			a2.checkUnchanged(t, name+": A2", a2b)
			b2.checkUnchanged(t, name+": B2", b2b)
			c.checkGuards(t, name+": C")
			checkAB2Bits(t, name, c, want, n, d)

			// In place: W = [A1 | rest] with max(k, d) columns, C = its first d.
			if k == 0 || n == 0 || d == 0 {
				continue
			}
			wc := max(k, d)
			ldw := ldFor(wc, ci/11)
			w := newMatrix(rng, n, wc, ldw, (ci/6)%4, false)
			for r := 0; r < n; r++ {
				for l := 0; l < k; l++ {
					w.buf[w.off+r*ldw+l] = a1.at(r, l)
				}
			}
			wb := w.bits()
			name = fmt.Sprintf("in place: n=%d k=%d d=%d ldw=%d ldb1=%d lda2=%d ldb2=%d", n, k, d, ldw, ldb1, lda2, ldb2)
			AB2(w.data(), ldw, w.data(), ldw, b1.data(), ldb1, a2.data(), lda2, b2.data(), ldb2, n, k, d)
			b1.checkUnchanged(t, name+": B1", b1b)
			a2.checkUnchanged(t, name+": A2", a2b)
			b2.checkUnchanged(t, name+": B2", b2b)
			w.checkGuards(t, name+": W")
			checkAB2Bits(t, name, w, want, n, d)
			for r := 0; r < n; r++ {
				for j := d; j < wc; j++ {
					if i := w.off + r*ldw + j; math.Float64bits(w.buf[i]) != wb[i] {
						t.Fatalf("%s: W[%d,%d] beyond the d outputs changed", name, r, j)
					}
				}
			}
		}
	})
}

// checkAB2Bits compares the n x d outputs of c with want bit for bit.
func checkAB2Bits(t *testing.T, name string, c, want *matrix, n, d int) {
	t.Helper()
	for r := 0; r < n; r++ {
		for j := 0; j < d; j++ {
			got, w := c.at(r, j), want.at(r, j)
			if math.Float64bits(got) != math.Float64bits(w) {
				t.Fatalf("%s: C[%d,%d] = %v (%#x), AB on [A1 A2] %v (%#x)", name, r, j, got, math.Float64bits(got), w, math.Float64bits(w))
			}
		}
	}
}

// TestAB2Chain checks the chain the package doc promises, on the model's
// shapes: each output is one chain over the k terms of A1 B1, then the k
// of A2 B2, from +0 (FMAs on the assembly, rounded products on the
// generic twin).
func TestAB2Chain(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		fused := Implementation() != "generic"
		rng := rand.New(rand.NewPCG(1, 13))
		for ci, s := range []shape3{{784, 12, 12}, {400, 25, 25}, {400, 5, 5}, {65, 13, 13}, {65, 33, 33}} {
			n, k, d := s.n, s.p, s.q
			ld := Stride(d)
			w := newMatrix(rng, n, d, ld, ci%4, false)
			p := newMatrix(rng, n, d, ld, 0, false)
			b1 := newMatrix(rng, k, d, d, 0, false)
			b2 := newMatrix(rng, k, d, d, 0, false)
			w0 := newMatrix(rng, n, d, ld, 0, false)
			copy(w0.buf, w.buf)
			w0.off = w.off
			AB2(w.data(), ld, w.data(), ld, b1.data(), d, p.data(), ld, b2.data(), d, n, k, d)
			for r := 0; r < n; r++ {
				for j := 0; j < d; j++ {
					var want float64
					for i, a := range [2]*matrix{w0, p} {
						b := [2]*matrix{b1, b2}[i]
						for l := 0; l < k; l++ {
							if fused {
								want = math.FMA(a.at(r, l), b.at(l, j), want)
							} else {
								want += float64(a.at(r, l) * b.at(l, j))
							}
						}
					}
					if got := w.at(r, j); math.Float64bits(got) != math.Float64bits(want) {
						t.Fatalf("n=%d k=%d d=%d: W[%d,%d] = %v, chain %v", n, k, d, r, j, got, want)
					}
				}
			}
		}
	})
}

// TestAB2InPlacePanics: in place needs ldc = lda1 and k <= MaxAB2InPlaceK.
func TestAB2InPlacePanics(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for _, c := range []struct {
			name         string
			ldc, lda1, k int
		}{
			{"ldc != lda1", 40, 41, 3},
			{"k too large", MaxAB2InPlaceK + 1, MaxAB2InPlaceK + 1, MaxAB2InPlaceK + 1},
		} {
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("%s: no panic", c.name)
					}
				}()
				n, d := 2, 40
				w := make([]float64, 2*max(c.ldc, c.lda1)+c.k)
				b := make([]float64, c.k*d)
				p := make([]float64, 2*c.k)
				AB2(w, c.ldc, w, c.lda1, b, d, p, c.k, b, d, n, c.k, d)
			}()
		}
	})
}

// TestAB2NoAllocs: AB2 allocates nothing, in place included.
func TestAB2NoAllocs(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for _, d := range []int{12, 25} {
			n, ld := 400, Stride(d)
			w := make([]float64, n*ld)
			p := make([]float64, n*ld)
			b := make([]float64, 2*d*d)
			if allocs := testing.AllocsPerRun(20, func() { AB2(w, ld, w, ld, b, d, p, ld, b[d*d:], d, n, d, d) }); allocs != 0 {
				t.Errorf("d=%d: %v allocations per call", d, allocs)
			}
		}
	})
}
