package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// impl is one implementation of the kernels: set switches the dispatch to
// it; ok says whether this CPU can run it.
type impl struct {
	name string
	ok   bool
	set  func()
}

// forEachImpl runs f as a subtest once per implementation (avx512, avx2,
// generic on amd64; generic elsewhere), with the dispatch switched to it,
// and restores the dispatch afterwards.
func forEachImpl(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	defer restoreImpl()
	for _, im := range impls() {
		if !im.ok {
			t.Run(im.name, func(t *testing.T) { t.Skipf("this CPU cannot run %s", im.name) })
			continue
		}
		im.set()
		t.Run(im.name, f)
	}
}

// Relative tolerance against the plain loop, scaled by Σ|products|: the
// kernels sum in another order and fuse products into FMAs.
const tol = 1e-14

var (
	// guard fills everything around and between the logical elements of
	// every slice: a NaN payload no arithmetic produces, so a kernel that
	// writes it is caught bit for bit and one that reads it gets NaN.
	guard = math.Float64frombits(0x7ff8_0000_dead_beef)
	// poison fills output elements before a call: each must be overwritten.
	poison = math.Float64frombits(0x7ff8_0000_0bad_f00d)
)

// guardLen is the number of guard values before and after each slice: more
// than one vector, so an overrun by a whole vector is caught too.
const guardLen = 17

// matrix is a rows x cols row-major matrix with stride ld, stored from
// index off of buf; everything in buf that is not a logical element is
// guard. data() is exactly as long as the contract requires,
// (rows-1)*ld+cols, so the stride padding after the last row does not exist.
type matrix struct {
	buf                 []float64
	off, rows, cols, ld int
}

// newMatrix returns a matrix filled with N(0,1) values (or poison when
// output is set) whose first element sits align float64s past a guard block.
func newMatrix(rng *rand.Rand, rows, cols, ld, align int, output bool) *matrix {
	m := &matrix{off: guardLen + align, rows: rows, cols: cols, ld: ld}
	m.buf = make([]float64, m.off+m.size()+guardLen)
	for i := range m.buf {
		m.buf[i] = guard
	}
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			v := poison
			if !output {
				v = rng.NormFloat64()
			}
			m.buf[m.off+r*ld+c] = v
		}
	}
	return m
}

func (m *matrix) size() int {
	if m.rows == 0 {
		return 0
	}
	return (m.rows-1)*m.ld + m.cols
}

func (m *matrix) data() []float64 {
	n := m.off + m.size()
	return m.buf[m.off:n:n]
}

func (m *matrix) at(r, c int) float64 { return m.buf[m.off+r*m.ld+c] }

func (m *matrix) logical(i int) bool {
	i -= m.off
	if i < 0 || i >= m.size() {
		return false
	}
	return m.ld > 0 && i%m.ld < m.cols
}

// checkGuards reports any non-logical element of m that is not guard.
func (m *matrix) checkGuards(t *testing.T, name string) {
	t.Helper()
	for i, v := range m.buf {
		if !m.logical(i) && math.Float64bits(v) != math.Float64bits(guard) {
			t.Fatalf("%s: guard at buffer index %d (element offset %d) overwritten with %v", name, i, i-m.off, v)
		}
	}
}

func (m *matrix) bits() []uint64 {
	b := make([]uint64, len(m.buf))
	for i, v := range m.buf {
		b[i] = math.Float64bits(v)
	}
	return b
}

// checkUnchanged reports any change to a read-only input.
func (m *matrix) checkUnchanged(t *testing.T, name string, before []uint64) {
	t.Helper()
	for i, v := range m.buf {
		if math.Float64bits(v) != before[i] {
			t.Fatalf("%s: read-only input changed at buffer index %d", name, i)
		}
	}
}

// near reports whether got is within tol*scale of want (exactly want when
// scale is 0); false for NaN.
func near(got, want, scale float64) bool {
	return math.Abs(got-want) <= tol*scale
}

// ldFor returns one of the strides the tests try for a matrix of cols
// columns: cols, cols+1..3, Stride(cols).
func ldFor(cols, sel int) int {
	switch sel % 5 {
	case 0:
		return cols
	case 4:
		return Stride(cols)
	}
	return cols + sel%5
}

// ---------------------------------------------------------------------------
// Vectors.

func TestDot(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 1))
		for n := 0; n <= 300; n++ {
			for off := 0; off < 4; off++ {
				x := newMatrix(rng, 1, n, n, off, false)
				y := newMatrix(rng, 1, n, n, (off+n)%4, false)
				xb, yb := x.bits(), y.bits()
				got := Dot(x.data(), y.data())
				var want, scale float64
				for i := 0; i < n; i++ {
					want += x.at(0, i) * y.at(0, i)
					scale += math.Abs(x.at(0, i) * y.at(0, i))
				}
				if !near(got, want, scale) {
					t.Fatalf("n=%d off=%d: Dot = %v, plain loop %v", n, off, got, want)
				}
				if g := dotGeneric(x.data(), y.data()); !near(got, g, scale) {
					t.Fatalf("n=%d off=%d: Dot = %v, generic %v", n, off, got, g)
				}
				x.checkUnchanged(t, "x", xb)
				y.checkUnchanged(t, "y", yb)
			}
		}
	})
}

func TestDotLongerY(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		x := []float64{1, 2, 3}
		y := []float64{4, 5, 6, math.NaN(), math.NaN()}
		if got := Dot(x, y); got != 32 {
			t.Fatalf("Dot = %v, want 32 (len(y) > len(x) must not be read)", got)
		}
	})
}

func TestAxpy(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 2))
		for n := 0; n <= 300; n++ {
			for off := 0; off < 4; off++ {
				alpha := rng.NormFloat64()
				x := newMatrix(rng, 1, n, n, off, false)
				y := newMatrix(rng, 1, n, n, (off+3*n)%4, false)
				y0 := append([]float64(nil), y.data()...)
				yg := append([]float64(nil), y.data()...)
				xb := x.bits()
				Axpy(alpha, x.data(), y.data())
				axpyGeneric(alpha, x.data(), yg)
				for i := 0; i < n; i++ {
					p := alpha * x.at(0, i)
					want := y0[i] + p
					scale := math.Abs(y0[i]) + math.Abs(p)
					if got := y.at(0, i); !near(got, want, scale) || !near(got, yg[i], scale) {
						t.Fatalf("n=%d off=%d: y[%d] = %v, plain loop %v, generic %v", n, off, i, got, want, yg[i])
					}
				}
				x.checkUnchanged(t, "x", xb)
				y.checkGuards(t, "y")
			}
		}
	})
}

func TestScale(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 3))
		for n := 0; n <= 300; n++ {
			for off := 0; off < 4; off++ {
				alpha := rng.NormFloat64()
				x := newMatrix(rng, 1, n, n, off, false)
				x0 := append([]float64(nil), x.data()...)
				Scale(alpha, x.data())
				for i := 0; i < n; i++ {
					// One rounded product per element: bit-exact on every path.
					if got, want := x.at(0, i), x0[i]*alpha; got != want {
						t.Fatalf("n=%d off=%d: x[%d] = %v, want %v", n, off, i, got, want)
					}
				}
				x.checkGuards(t, "x")
			}
		}
	})
}

// ---------------------------------------------------------------------------
// Matrices.

// nList is the set of long (reduction or row) dimensions every matrix
// kernel is tried with: around the unroll and block sizes, and real sizes.
var nList = []int{0, 1, 2, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 400, 784}

// someCols are the short dimensions tried with every n: around 4, 8, 16,
// 32 (vector and block widths) and the real d = 12, 25.
var someCols = []int{1, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 25, 31, 32, 33}

// shape3 is (n, p, q): AtB (n, da, db), AB (n, k, d).
type shape3 struct{ n, p, q int }

// shapes3 covers the full p, q grid 1..33 for a few n (the block kernels'
// column vectors, masks and row remainders) and nList x someCols x someCols,
// then the real shapes.
func shapes3(fullN []int, testingShort bool) []shape3 {
	var s []shape3
	for _, n := range fullN {
		for p := 1; p <= 33; p++ {
			for q := 1; q <= 33; q++ {
				s = append(s, shape3{n, p, q})
			}
		}
	}
	cols := someCols
	if testingShort {
		cols = []int{1, 8, 12, 25, 33}
	}
	for _, n := range nList {
		for _, p := range cols {
			for _, q := range cols {
				s = append(s, shape3{n, p, q})
			}
		}
	}
	s = append(s, shape3{0, 0, 5}, shape3{5, 0, 5}, shape3{5, 5, 0}, shape3{0, 0, 0})
	return append(s, shape3{784, 12, 12}, shape3{400, 25, 25}, shape3{4096, 25, 25})
}

func TestAtB(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 4))
		for ci, s := range shapes3([]int{0, 1, 7, 17, 65}, testing.Short()) {
			n, da, db := s.n, s.p, s.q
			lda, ldb, ldm := ldFor(da, ci), ldFor(db, ci/5+1), ldFor(db, ci/25+2)
			a := newMatrix(rng, n, da, lda, ci%4, false)
			b := newMatrix(rng, n, db, ldb, (ci/4+1)%4, false)
			m := newMatrix(rng, da, db, ldm, (ci/16+2)%4, true)
			mg := newMatrix(rng, da, db, ldm, 0, true)
			ab, bb := a.bits(), b.bits()
			name := fmt.Sprintf("n=%d da=%d db=%d lda=%d ldb=%d ldm=%d", n, da, db, lda, ldb, ldm)

			AtB(m.data(), ldm, a.data(), lda, b.data(), ldb, n, da, db)
			atbGeneric(mg.data(), ldm, a.data(), lda, b.data(), ldb, n, da, db)

			a.checkUnchanged(t, name+": A", ab)
			b.checkUnchanged(t, name+": B", bb)
			m.checkGuards(t, name+": M")
			for i := 0; i < da; i++ {
				for j := 0; j < db; j++ {
					var want, scale float64
					for r := 0; r < n; r++ {
						p := a.at(r, i) * b.at(r, j)
						want += p
						scale += math.Abs(p)
					}
					got := m.at(i, j)
					if !near(got, want, scale) || !near(got, mg.at(i, j), scale) {
						t.Fatalf("%s: M[%d,%d] = %v, plain loop %v, generic %v", name, i, j, got, want, mg.at(i, j))
					}
				}
			}
		}
	})
}

// TestAtBChain checks the bits the package doc promises for AtB: every
// output is one chain over the reduction index in order, starting from +0:
// m = FMA(a, b, m) on the assembly paths, m += a*b (rounded product) on
// the generic one, whatever the blocking of rows, columns and rows of A and
// B (n up to a few thousand: every split of the reduction the AVX2 path
// makes), strides, offsets and tails.
func TestAtBChain(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		fused := Implementation() != "generic"
		rng := rand.New(rand.NewPCG(1, 11))
		var shapes []shape3
		for _, n := range []int{1, 5, 31, 32, 33, 63, 64, 65, 95, 96, 97, 127, 128, 129, 200, 400, 784, 1000, 4099} {
			for _, d := range []int{1, 3, 4, 5, 8, 9, 12, 13, 16, 17, 24, 25, 28, 33} {
				shapes = append(shapes, shape3{n, d, d})
			}
			shapes = append(shapes, shape3{n, 12, 120}, shape3{n, 25, 7}, shape3{n, 7, 25}, shape3{n, 40, 5},
				shape3{n, 8, 5}, shape3{n, 2, 5}, shape3{n, 6, 17}, shape3{n, 28, 13}, shape3{n, 29, 13}, shape3{n, 27, 1},
				// AVX-512's 40-column blocks (da <= 5): full, a half last
				// vector, a masked one, two blocks.
				shape3{n, 5, 40}, shape3{n, 5, 36}, shape3{n, 3, 37}, shape3{n, 4, 79}, shape3{n, 1, 80}, shape3{n, 5, 41}, shape3{n, 6, 40})
		}
		for ci, s := range shapes {
			n, da, db := s.n, s.p, s.q
			lda, ldb, ldm := ldFor(da, ci), ldFor(db, ci/5+1), ldFor(db, ci/25+2)
			a := newMatrix(rng, n, da, lda, ci%4, false)
			b := newMatrix(rng, n, db, ldb, (ci/4+1)%4, false)
			m := newMatrix(rng, da, db, ldm, (ci/16+2)%4, true)
			name := fmt.Sprintf("n=%d da=%d db=%d lda=%d ldb=%d ldm=%d", n, da, db, lda, ldb, ldm)
			AtB(m.data(), ldm, a.data(), lda, b.data(), ldb, n, da, db)
			m.checkGuards(t, name+": M")
			for i := 0; i < da; i++ {
				for j := 0; j < db; j++ {
					var want float64
					for r := 0; r < n; r++ {
						if fused {
							want = math.FMA(a.at(r, i), b.at(r, j), want)
						} else {
							want += float64(a.at(r, i) * b.at(r, j))
						}
					}
					if got := m.at(i, j); math.Float64bits(got) != math.Float64bits(want) {
						t.Fatalf("%s: M[%d,%d] = %v (%#x), chain %v (%#x)", name, i, j, got, math.Float64bits(got), want, math.Float64bits(want))
					}
				}
			}
		}
	})
}

func TestAB(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 5))
		for ci, s := range shapes3([]int{1, 17, 29}, testing.Short()) {
			n, k, d := s.n, s.p, s.q
			lda, ldb, ldc := ldFor(k, ci), ldFor(d, ci/5+1), ldFor(d, ci/25+2)
			a := newMatrix(rng, n, k, lda, ci%4, false)
			b := newMatrix(rng, k, d, ldb, (ci/4+1)%4, false)
			c := newMatrix(rng, n, d, ldc, (ci/16+2)%4, true)
			cg := newMatrix(rng, n, d, ldc, 0, true)
			ab, bb := a.bits(), b.bits()
			name := fmt.Sprintf("n=%d k=%d d=%d lda=%d ldb=%d ldc=%d", n, k, d, lda, ldb, ldc)

			AB(c.data(), ldc, a.data(), lda, b.data(), ldb, n, k, d)
			abGeneric(cg.data(), ldc, a.data(), lda, b.data(), ldb, n, k, d)

			a.checkUnchanged(t, name+": A", ab)
			b.checkUnchanged(t, name+": B", bb)
			c.checkGuards(t, name+": C")
			for r := 0; r < n; r++ {
				for j := 0; j < d; j++ {
					var want, scale float64
					for l := 0; l < k; l++ {
						p := a.at(r, l) * b.at(l, j)
						want += p
						scale += math.Abs(p)
					}
					got := c.at(r, j)
					if !near(got, want, scale) || !near(got, cg.at(r, j), scale) {
						t.Fatalf("%s: C[%d,%d] = %v, plain loop %v, generic %v", name, r, j, got, want, cg.at(r, j))
					}
				}
			}
		}
	})
}

func TestAtX(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 6))
		type shape struct{ n, d int }
		var shapes []shape
		for _, n := range nList {
			for d := 0; d <= 33; d++ {
				shapes = append(shapes, shape{n, d})
			}
		}
		shapes = append(shapes, shape{784, 12}, shape{400, 25}, shape{4096, 25}, shape{1000, 70})
		for ci, s := range shapes {
			n, d := s.n, s.d
			lda := ldFor(d, ci)
			a := newMatrix(rng, n, d, lda, ci%4, false)
			x := newMatrix(rng, 1, n, n, (ci/4+1)%4, false)
			y := newMatrix(rng, 1, d, d, (ci/16+2)%4, true)
			yg := newMatrix(rng, 1, d, d, 0, true)
			ab, xb := a.bits(), x.bits()
			name := fmt.Sprintf("n=%d d=%d lda=%d", n, d, lda)

			AtX(y.data(), a.data(), lda, x.data(), n, d)
			atxGeneric(yg.data(), a.data(), lda, x.data(), n, d)

			a.checkUnchanged(t, name+": A", ab)
			x.checkUnchanged(t, name+": x", xb)
			y.checkGuards(t, name+": y")
			for j := 0; j < d; j++ {
				var want, scale float64
				for r := 0; r < n; r++ {
					p := a.at(r, j) * x.at(0, r)
					want += p
					scale += math.Abs(p)
				}
				got := y.at(0, j)
				if !near(got, want, scale) || !near(got, yg.at(0, j), scale) {
					t.Fatalf("%s: y[%d] = %v, plain loop %v, generic %v", name, j, got, want, yg.at(0, j))
				}
			}
		}
	})
}

// TestAtBWide covers more than one column block of the block kernels and
// the AVX2 row blocks with db > 12 (several calls into the assembly).
func TestAtBWide(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 7))
		for _, s := range []shape3{{50, 70, 65}, {9, 40, 97}, {130, 31, 64}} {
			n, da, db := s.n, s.p, s.q
			a := newMatrix(rng, n, da, Stride(da), 1, false)
			b := newMatrix(rng, n, db, db+1, 2, false)
			m := newMatrix(rng, da, db, db, 3, true)
			AtB(m.data(), db, a.data(), Stride(da), b.data(), db+1, n, da, db)
			m.checkGuards(t, "M")
			for i := 0; i < da; i++ {
				for j := 0; j < db; j++ {
					var want, scale float64
					for r := 0; r < n; r++ {
						p := a.at(r, i) * b.at(r, j)
						want += p
						scale += math.Abs(p)
					}
					if got := m.at(i, j); !near(got, want, scale) {
						t.Fatalf("%v: M[%d,%d] = %v, want %v", s, i, j, got, want)
					}
				}
			}
		}
	})
}

// ---------------------------------------------------------------------------
// Allocation, PeakFMA.

func TestNoAllocs(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 8))
		const n, d = 784, 12
		ld := Stride(d)
		a := newMatrix(rng, n, d, ld, 0, false).data()
		b := newMatrix(rng, n, d, ld, 0, false).data()
		q := newMatrix(rng, d, d, ld, 0, false).data()
		m := make([]float64, d*ld)
		c := make([]float64, n*ld)
		x := newMatrix(rng, 1, n, n, 0, false).data()
		y := make([]float64, n)
		make32 := make([]int32, n)
		for _, k := range []struct {
			name string
			f    func()
		}{
			{"Dot", func() { Dot(x, y) }},
			{"Axpy", func() { Axpy(0.5, x, y) }},
			{"Scale", func() { Scale(0.5, y) }},
			{"AtB", func() { AtB(m, ld, a, ld, b, ld, n, d, d) }},
			{"AtX", func() { AtX(y, a, ld, x, n, d) }},
			{"AB", func() { AB(c, ld, a, ld, q, ld, n, d, d) }},
			{"PeakFMA", func() { PeakFMA(10) }},
			{"Nonzeros", func() { Nonzeros(make32, y, x) }},
		} {
			if allocs := testing.AllocsPerRun(20, k.f); allocs != 0 {
				t.Errorf("%s: %v allocations per call, want 0", k.name, allocs)
			}
		}
	})
}

func TestPeakFMA(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		f1, f3 := PeakFMA(1000), PeakFMA(3000)
		if f1 <= 0 || f3 != 3*f1 {
			t.Fatalf("PeakFMA(1000) = %d, PeakFMA(3000) = %d: want a positive count proportional to iters", f1, f3)
		}
		if f := PeakFMA(0); f != 0 {
			t.Fatalf("PeakFMA(0) = %d, want 0", f)
		}
	})
}

// TestLayoutInvariance checks the claim of the package doc: for a given
// implementation the bits of a result do not depend on the strides or the
// alignment of the operands.
func TestLayoutInvariance(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for _, s := range []shape3{{784, 12, 12}, {400, 25, 25}, {65, 33, 17}} {
			n, p, q := s.n, s.p, s.q
			var ref []float64
			for li, lay := range []struct{ extra, off int }{{0, 0}, {1, 3}, {-1, 1}} {
				ld := func(c int) int {
					if lay.extra < 0 {
						return Stride(c)
					}
					return c + lay.extra
				}
				rng := rand.New(rand.NewPCG(9, 9)) // same values for every layout
				a := newMatrix(rng, n, p, ld(p), lay.off, false)
				b := newMatrix(rng, n, q, ld(q), (lay.off+1)%4, false)
				k := newMatrix(rng, p, q, ld(q), (lay.off+2)%4, false)
				m := newMatrix(rng, p, q, ld(q), (lay.off+3)%4, true)
				c := newMatrix(rng, n, q, ld(q), lay.off, true)
				y := newMatrix(rng, 1, p, p, (lay.off+1)%4, true)
				AtB(m.data(), m.ld, a.data(), a.ld, b.data(), b.ld, n, p, q)
				AB(c.data(), c.ld, a.data(), a.ld, k.data(), k.ld, n, p, q)
				// Dot on copies at an offset that changes with the layout.
				xv, av := make([]float64, n+4)[lay.off:][:n], make([]float64, n+4)[3-lay.off:][:n]
				for r := range xv {
					xv[r], av[r] = b.at(r, 0), a.at(r, 0)
				}
				AtX(y.data(), a.data(), a.ld, xv, n, p)
				var got []float64
				for i := 0; i < p; i++ {
					for j := 0; j < q; j++ {
						got = append(got, m.at(i, j))
					}
				}
				for r := 0; r < n; r++ {
					for j := 0; j < q; j++ {
						got = append(got, c.at(r, j))
					}
				}
				for j := 0; j < p; j++ {
					got = append(got, y.at(0, j))
				}
				got = append(got, Dot(av, xv))
				if li == 0 {
					ref = got
					continue
				}
				for i := range got {
					if math.Float64bits(got[i]) != math.Float64bits(ref[i]) {
						t.Fatalf("%v layout %d: result %d = %v, layout 0 gave %v", s, li, i, got[i], ref[i])
					}
				}
			}
		}
	})
}
