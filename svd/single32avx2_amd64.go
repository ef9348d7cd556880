//go:build amd64 && !purego

package svd

import (
	"math"

	"github.com/grlgq/grlgq/internal/cpu"
)

// Layout of the params of the AVX2 float32 kernels (float32 index; see
// ../asm/jacobi/single2.go).
const (
	a32Up    = 0
	a32Down  = 8
	a32MaskH = 16
	a32Real  = 24
	a32Tol2  = 40
	a32One   = 48
	a32Abs   = 56
	a32Sign  = 64
	a32Negl  = 72
	a32Len   = 88
)

// maxW1AVX2 is the largest n of jacobi1S32AVX2 (eight pairs, one YMM
// vector a half row); jacobi1S32W2AVX2 takes the rest up to maxSmall32.
// maxPackAVX2 is the largest n of jacobi1Pack32AVX2 (a Pair's matrices
// four pairs each, both in one vector).
const (
	maxW1AVX2   = 16
	maxPackAVX2 = 8
)

// small32AVX2 is the workspace of Factorize32 on AVX2 (3 <= n <= 32):
// mats (1 for a Small, 2 for a Pair) matrices, each the layout of
// small32Asm with the h = n'/2 pairs in the 8 float32 lanes of W = 1 (n
// <= 16) or 2 YMM vectors a half row (row r: L_0 .. L_{W-1} R_0 ..
// R_{W-1}), rows of A then of V, the second matrix's rows after the
// first's; or, packed (a Pair up to 8 x 8, jacobi1Pack32AVX2), both in
// the rows of one, matrix k's pairs in lanes 4k..4k+3 of each vector.
type small32AVX2 struct {
	wv     int  // W: YMM vectors a half row
	packed bool // jacobi1Pack32AVX2
	m      int  // n rounded up to even
	row    int  // float32 a row: 16 W
	mat    int  // float32 a matrix: 2 n row
	off    int  // float32 from matrix 0's rows to matrix 1's (0 packed)
	buf    []float32
	pos    [2][]int // lane of column c of matrix k in a row
	params [a32Len]float32
	state  [256]float32
}

func newSmall32AVX2(n, mats int) *small32AVX2 {
	if !cpu.HasAVX2 || n < 3 || n > maxSmall32 {
		return nil
	}
	m := n + n&1
	h := m / 2
	wv := 1
	if n > maxW1AVX2 {
		wv = 2
	}
	x := &small32AVX2{wv: wv, m: m, row: 16 * wv, packed: mats == 2 && n <= maxPackAVX2}
	x.mat = 2 * n * x.row
	size, lanes, half := mats*x.mat, 8, 0 // lanes: a circle's
	x.off = x.mat
	if x.packed {
		size, lanes, half, x.off = x.mat, 4, 4, 0
	}
	x.buf = aligned64f32(make([]float32, size+16), size)
	for k := range x.pos {
		x.pos[k] = make([]int, n)
		circlePos(x.pos[k], half*k, 8*wv)
	}
	ones := math.Float32frombits(1<<32 - 1)
	for j := 0; j < 8; j++ {
		// Each circle of lanes: up W = 1: 0, 0, 1, ..., W = 2: 7, 0, 1,
		// ..., 6; down: 1, 2, ..., 0.
		b, i := j/lanes*lanes, j%lanes
		up := i - 1
		if up < 0 {
			up = 7
			if wv == 1 {
				up = 0
			}
		}
		x.params[a32Up+j] = math.Float32frombits(uint32(b + up))
		x.params[a32Down+j] = math.Float32frombits(uint32(b + (i+1)%lanes))
	}
	for b := 0; b < 8; b += lanes {
		x.params[a32MaskH+b+(h-1)%8] = ones
		for i := 0; i < h; i++ {
			x.params[a32Real+b+i] = ones
		}
	}
	tol := float32(max(n, 8)) * 0x1p-23
	for j := 0; j < 8; j++ {
		x.params[a32Tol2+j] = tol * tol
		x.params[a32One+j] = 1
		x.params[a32Abs+j] = math.Float32frombits(1<<31 - 1)
		x.params[a32Sign+j] = math.Float32frombits(1 << 31)
	}
	return x
}

// run runs the kernel on the first mats matrices of x.buf, matrix i with
// the negligible threshold negl[i], and returns the mask of those that
// did not converge.
func (x *small32AVX2) run(n, mats int, negl [2]float64) uint64 {
	for i := 0; i < 2; i++ {
		for j := 0; j < 8; j++ {
			x.params[a32Negl+8*i+j] = float32(negl[i])
		}
	}
	if x.packed {
		for j := 4; j < 8; j++ {
			x.params[a32Negl+j] = float32(negl[1])
		}
		return jacobi1Pack32AVX2(&x.buf[0], n, n, x.m-1, &x.params, &x.state, 1, MaxSweeps)
	}
	if x.wv == 1 {
		return jacobi1S32AVX2(&x.buf[0], n, n, x.m-1, &x.params, &x.state, mats, MaxSweeps)
	}
	return jacobi1S32W2AVX2(&x.buf[0], n, n, x.m-1, &x.params, &x.state, mats, MaxSweeps)
}

// factorize32AVX2 is Factorize32 on the AVX2 float32 kernel; false,
// having written nothing, where a has a NaN or Inf or the run did not
// converge.
func (w *Small) factorize32AVX2(u []float64, ldu int, s []float64, v []float64, ldv int, a []float64, lda int) bool {
	x, n := w.f32x2, w.n
	buf := x.buf[:x.mat]
	clear(buf)
	e, negl, ok := loadLanes32(buf, x.row, x.pos[0], a, lda, n)
	if !ok {
		return false
	}
	if x.run(n, 1, [2]float64{negl}) != 0 {
		return false
	}
	w.unpack32(buf, x.row, x.pos[0], n)
	w.finish(u, ldu, s, v, ldv, e, finishNegl32(negl))
	return true
}

// factorize32AVX2 is Pair.Factorize32 on AVX2: both matrices in one run
// of the float32 kernel (up to 8 x 8 both in one vector; each with the bits of Small.factorize32AVX2 on
// it alone); false, having written nothing, where a matrix has a NaN or
// Inf or the run did not converge for one of them.
func (p *Pair) factorize32AVX2(u [2][]float64, ldu int, s, v [2][]float64, ldv int, a [2][]float64, lda int) bool {
	x, n := p.f32x2, p.n
	return p.factorize32Pair(x.buf, x.row, x.off, &x.pos, func(negl [2]float64) bool {
		return x.run(n, 2, negl) == 0
	}, u, ldu, s, v, ldv, a, lda)
}
