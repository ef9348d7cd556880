package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// guard32 fills everything around the logical elements of float32 inputs:
// a NaN payload, so a kernel that reads it into a result gets NaN.
var guard32 = math.Float32frombits(0x7fc0_beef)

// matrix32 is matrix for float32 inputs: rows x cols with stride ld from
// index off of buf, everything else guard32; data() is exactly as long as
// the contract requires.
type matrix32 struct {
	buf                 []float32
	off, rows, cols, ld int
}

func newMatrix32(rng *rand.Rand, rows, cols, ld, align int) *matrix32 {
	m := &matrix32{off: guardLen + align, rows: rows, cols: cols, ld: ld}
	size := 0
	if rows > 0 {
		size = (rows-1)*ld + cols
	}
	m.buf = make([]float32, m.off+size+guardLen)
	for i := range m.buf {
		m.buf[i] = guard32
	}
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			m.buf[m.off+r*ld+c] = float32(rng.NormFloat64())
		}
	}
	return m
}

func (m *matrix32) data() []float32 {
	n := m.off
	if m.rows > 0 {
		n += (m.rows-1)*m.ld + m.cols
	}
	return m.buf[m.off:n:n]
}

func (m *matrix32) at(r, c int) float64 { return float64(m.buf[m.off+r*m.ld+c]) }

// checkOutput checks an n x d float32 result in m bit for bit against
// want (stride d), and every other element of m's buffer (guards, the
// columns beyond d) against before.
func (m *matrix32) checkOutput(t *testing.T, name string, n, d int, want, before []float32) {
	t.Helper()
	for i, v := range m.buf {
		r, j := (i-m.off)/max(m.ld, 1), (i-m.off)%max(m.ld, 1)
		if i >= m.off && r < n && j < d && n > 0 {
			if g, w := math.Float32bits(v), math.Float32bits(want[r*d+j]); g != w {
				t.Fatalf("%s: C[%d,%d] = %v (%#x), want %v (%#x)", name, r, j, v, g, want[r*d+j], w)
			}
		} else if math.Float32bits(v) != math.Float32bits(before[i]) {
			t.Fatalf("%s: buffer index %d (not an output) changed", name, i)
		}
	}
}

func (m *matrix32) checkUnchanged(t *testing.T, name string, before []float32) {
	t.Helper()
	for i, v := range m.buf {
		if math.Float32bits(v) != math.Float32bits(before[i]) {
			t.Fatalf("%s: read-only input changed at buffer index %d", name, i)
		}
	}
}

// near32 reports whether got is within the float32 kernels' bound of want
// (the float64 sum of the float32 products): a float32 chain over at most
// Chunk32 rows, then a float64 sum of ⌈n/Chunk32⌉ terms, with a factor 2
// to spare: 2·(min(n, Chunk32)+1)·2^-24·Σ|products| + the float64 part.
func near32(got, want, scale float64, n int) bool {
	k := float64(min(n, Chunk32) + 1)
	b := 2*k*0x1p-24*scale + float64(n/Chunk32+2)*0x1p-52*scale
	return math.Abs(got-want) <= b
}

// n32List: around the chunk (64), the groups (4) and real D.
var n32List = []int{0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 63, 64, 65, 127, 128, 129, 400, 784}

var someCols32 = []int{1, 3, 5, 8, 12, 15, 16, 17, 24, 25, 31, 32, 33, 40, 47, 48, 49, 63, 64, 65, 96, 100}

func TestAtB32(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 1))
		var shapes []shape3
		for _, n := range []int{1, 9, 65} {
			for p := 1; p <= 26; p++ {
				for q := 1; q <= 33; q++ {
					shapes = append(shapes, shape3{n, p, q})
				}
			}
		}
		cols := someCols32
		if testing.Short() {
			cols = []int{1, 12, 17, 65}
		}
		for _, n := range n32List {
			for _, p := range []int{1, 5, 6, 7, 12, 13, 17, 25} {
				for _, q := range cols {
					shapes = append(shapes, shape3{n, p, q})
				}
			}
		}
		shapes = append(shapes, shape3{0, 0, 5}, shape3{5, 0, 5}, shape3{5, 5, 0},
			shape3{784, 12, 96}, shape3{400, 25, 200}, shape3{1024, 5, 40}, shape3{4099, 25, 25})
		for ci, s := range shapes {
			n, da, db := s.n, s.p, s.q
			lda, ldb, ldm := ldFor(da, ci), ldFor(db, ci/5+1), ldFor(db, ci/25+2)
			a := newMatrix32(rng, n, da, lda, ci%4)
			b := newMatrix32(rng, n, db, ldb, (ci/4+1)%4)
			m := newMatrix(rng, da, db, ldm, (ci/16+2)%4, true)
			mg := newMatrix(rng, da, db, ldm, 0, true)
			ab := append([]float32(nil), a.buf...)
			bb := append([]float32(nil), b.buf...)
			name := fmt.Sprintf("n=%d da=%d db=%d lda=%d ldb=%d ldm=%d", n, da, db, lda, ldb, ldm)

			AtB32(m.data(), ldm, a.data(), lda, b.data(), ldb, n, da, db)
			atb32Generic(mg.data(), ldm, a.data(), lda, b.data(), ldb, n, da, db)

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
					if !near32(got, want, scale, n) || !near32(mg.at(i, j), want, scale, n) {
						t.Fatalf("%s: M[%d,%d] = %v, float64 loop %v, generic %v", name, i, j, got, want, mg.at(i, j))
					}
				}
			}
		}
	})
}

// TestAtB32Bits checks the claims the engine relies on: an output of AtB32
// has the same bits whatever the other rows and columns of the call (its
// column blocks and row blocks), and the generic twin sums in float32
// blocks of Chunk32 rows (it is not the float64 sum).
func TestAtB32Bits(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 2))
		for _, s := range []shape3{{784, 12, 96}, {400, 25, 200}, {130, 5, 40}, {64, 17, 33}, {1, 3, 70}} {
			n, da, db := s.n, s.p, s.q
			a := newMatrix32(rng, n, da, Stride32(da), 0)
			b := newMatrix32(rng, n, db, Stride32(db), 0)
			m := make([]float64, da*db)
			AtB32(m, db, a.data(), Stride32(da), b.data(), Stride32(db), n, da, db)
			one := make([]float64, 1)
			for i := 0; i < da; i++ {
				for j := 0; j < db; j++ {
					AtB32(one, 1, a.data()[i:], Stride32(da), b.data()[j:], Stride32(db), n, 1, 1)
					if math.Float64bits(one[0]) != math.Float64bits(m[i*db+j]) {
						t.Fatalf("%v: M[%d,%d] = %v in the whole call, %v alone", s, i, j, m[i*db+j], one[0])
					}
				}
			}
			// Every column block of a prototype's width (the engine's
			// chunks of 8 side by side, any first prototype).
			for j0 := 0; j0+da <= db; j0 += da {
				sub := make([]float64, da*(db-j0))
				AtB32(sub, db-j0, a.data(), Stride32(da), b.data()[j0:], Stride32(db), n, da, db-j0)
				for i := 0; i < da; i++ {
					for j := j0; j < db; j++ {
						if math.Float64bits(sub[i*(db-j0)+j-j0]) != math.Float64bits(m[i*db+j]) {
							t.Fatalf("%v: M[%d,%d] from column %d differs", s, i, j, j0)
						}
					}
				}
			}
		}
	})
}

func TestAtX32(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 3))
		type shape struct{ n, d int }
		var shapes []shape
		for _, n := range n32List {
			for d := 0; d <= 70; d++ {
				shapes = append(shapes, shape{n, d})
			}
		}
		shapes = append(shapes, shape{784, 96}, shape{784, 120}, shape{400, 200}, shape{4099, 25}, shape{1000, 130})
		for ci, s := range shapes {
			n, d := s.n, s.d
			lda := ldFor(d, ci)
			a := newMatrix32(rng, n, d, lda, ci%4)
			x := newMatrix32(rng, 1, n, n, (ci/4+1)%4)
			y := newMatrix(rng, 1, d, d, (ci/16+2)%4, true)
			yg := newMatrix(rng, 1, d, d, 0, true)
			ab := append([]float32(nil), a.buf...)
			xb := append([]float32(nil), x.buf...)
			name := fmt.Sprintf("n=%d d=%d lda=%d", n, d, lda)

			AtX32(y.data(), a.data(), lda, x.data(), n, d)
			atx32Generic(yg.data(), a.data(), lda, x.data(), n, d)

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
				if !near32(got, want, scale, n) || !near32(yg.at(0, j), want, scale, n) {
					t.Fatalf("%s: y[%d] = %v, float64 loop %v, generic %v", name, j, got, want, yg.at(0, j))
				}
				// The same bits whatever the other columns of the call.
				if n == 0 {
					continue
				}
				one := []float64{0}
				AtX32(one, a.data()[j:], lda, x.data(), n, 1)
				if math.Float64bits(one[0]) != math.Float64bits(got) {
					t.Fatalf("%s: y[%d] = %v in the whole call, %v alone", name, j, got, one[0])
				}
			}
		}
	})
}

// TestF32Twins checks that the assembly and the generic twins agree to
// the bound on the engine's shapes with unit columns (where the bound is
// in absolute terms: at most 2·65·2^-24 ≈ 7.7e-6), and that summing in
// blocks beats one float32 chain on a long reduction.
func TestF32Twins(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, d = 4096, 4
	a := newMatrix32(rng, n, d, d, 0)
	for c := 0; c < d; c++ {
		var s float64
		for r := 0; r < n; r++ {
			s += a.at(r, c) * a.at(r, c)
		}
		for r := 0; r < n; r++ {
			a.buf[a.off+r*d+c] = float32(a.at(r, c) / math.Sqrt(s))
		}
	}
	m := make([]float64, d*d)
	AtB32(m, d, a.data(), d, a.data(), d, n, d, d)
	for i := 0; i < d; i++ {
		var want float64
		for r := 0; r < n; r++ {
			want += a.at(r, i) * a.at(r, i)
		}
		if e := math.Abs(m[i*d+i] - want); e > 2*65*0x1p-24 {
			t.Errorf("diag %d: error %g above the bound", i, e)
		}
	}
}

func TestF32NoAllocs(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 5))
		const n, d = 784, 12
		a := newMatrix32(rng, n, d, Stride32(d), 0).data()
		b := newMatrix32(rng, n, 8*d, 8*d, 0).data()
		x := newMatrix32(rng, 1, n, n, 0).data()
		m := make([]float64, d*8*d)
		y := make([]float64, 8*d)
		if allocs := testing.AllocsPerRun(20, func() { AtB32(m, 8*d, a, Stride32(d), b, 8*d, n, d, 8*d) }); allocs != 0 {
			t.Errorf("AtB32: %v allocations per call", allocs)
		}
		if allocs := testing.AllocsPerRun(20, func() { AtX32(y, b, 8*d, x, n, 8*d) }); allocs != 0 {
			t.Errorf("AtX32: %v allocations per call", allocs)
		}
	})
}
