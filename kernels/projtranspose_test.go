package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// checkProjTranspose runs ProjTransposeScaled and the ProjDots and
// TransposeScaled calls it stands for on copies of src and requires the same
// bits in dst and src, guards untouched.
func checkProjTranspose(t *testing.T, name string, src *matrix, rows, cols, j0 int, s, sc *matrix, ldd, align int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(rows), uint64(cols)))
	b := rows - j0
	src2 := &matrix{buf: append([]float64(nil), src.buf...), off: src.off, rows: rows, cols: cols, ld: src.ld}
	dst := newMatrix(rng, cols, rows, ldd, align, true)
	dst2 := newMatrix(rng, cols, rows, ldd, align, true)
	sb, scb := s.bits(), sc.bits()
	ProjTransposeScaled(dst.data(), ldd, src.data(), src.ld, rows, cols, sc.data(), j0, s.data())
	s.checkUnchanged(t, name+": S", sb)
	sc.checkUnchanged(t, name+": scale", scb)
	src.checkGuards(t, name+": src")
	dst.checkGuards(t, name+": dst")
	if cols > 0 {
		ProjDots(src2.data()[j0*src2.ld:], src2.ld, b, src2.data(), src2.ld, j0, s.data(), b, nil, 0, 0, nil, 0, cols)
	}
	TransposeScaled(dst2.data(), ldd, src2.data(), src2.ld, rows, cols, sc.data())
	for i := range src.buf {
		if math.Float64bits(src.buf[i]) != math.Float64bits(src2.buf[i]) {
			t.Fatalf("%s: src[%d] = %v, separate calls %v", name, i-src.off, src.buf[i], src2.buf[i])
		}
	}
	for i := range dst.buf {
		if math.Float64bits(dst.buf[i]) != math.Float64bits(dst2.buf[i]) {
			t.Fatalf("%s: dst[%d] = %v, separate calls %v", name, i-dst.off, dst.buf[i], dst2.buf[i])
		}
	}
}

// TestProjTransposeScaled: every row count up to 20 (the AVX-512 kernel
// takes 1..16 with the last panel starting at a multiple of 4; other
// starts and more rows take the separate calls), column tails around the
// 8-column chunks, strides with and without padding, every alignment,
// guards; the same bits as ProjDots then TransposeScaled on every path.
func TestProjTransposeScaled(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 14))
		ci := 0
		for rows := 1; rows <= 20; rows++ {
			for _, cols := range []int{0, 1, 7, 8, 9, 16, 23, 31, 33, 784} {
				for _, j0 := range []int{4 * ((rows - 1) / 4), rows - 1, max(rows-4, 0)} {
					ci++
					lds, ldd := ldFor(cols, ci), ldFor(rows, ci/5+1)
					b := rows - j0
					src := newMatrix(rng, rows, cols, lds, ci%4, false)
					s := newMatrix(rng, max(j0*b, 1), 1, 1, ci/3%4, false)
					for i := 0; i < j0*b; i++ {
						s.buf[s.off+i] *= 0.1
					}
					sc := newMatrix(rng, 1, rows, rows, ci/4%4, false)
					name := fmt.Sprintf("rows=%d cols=%d j0=%d lds=%d ldd=%d", rows, cols, j0, lds, ldd)
					checkProjTranspose(t, name, src, rows, cols, j0, s, sc, ldd, (ci/2+1)%4)
				}
			}
		}
	})
}

func TestProjTransposeScaledAllocs(t *testing.T) {
	src, dst := make([]float64, 12*784), make([]float64, 784*16)
	s, sc := make([]float64, 32), make([]float64, 12)
	forEachImpl(t, func(t *testing.T) {
		if a := testing.AllocsPerRun(10, func() { ProjTransposeScaled(dst, 16, src, 784, 12, 784, sc, 8, s) }); a != 0 {
			t.Fatalf("%v allocations", a)
		}
	})
	mustPanicK(t, func() { ProjTransposeScaled(dst, 16, src, 784, 12, 784, sc, 7, s) })
	mustPanicK(t, func() { ProjTransposeScaled(dst, 16, src, 784, 12, 784, sc, 12, s) })
}
