//go:build amd64 && !purego

package svd

import (
	"math"
	"unsafe"
)

// maxSmall32 is the largest n of the float32 kernels: sixteen pairs, one
// vector of 16 float32 lanes a half row.
const maxSmall32 = 32

// Layout of the float32 kernels' params (float32 index): the scalars at
// sTol2..sNeg2 as in the float64 kernels, then the permutation tables and
// the outputs (see ../asm/jacobi/single.go).
const (
	s32IdxL = 16
	s32IdxR = 32
	s32Negl = 96 // jacobi1Pack32AVX512: each lane's negligible threshold
	s32Len  = 112
)

// row32 and dualRow32 are the float32 of a row of the single and the dual
// kernels' buffers: L R (16 lanes each), L_0 L_1 R_0 R_1.
const (
	row32     = 32
	dualRow32 = 64
)

// neglF32 is the negligible threshold of the float32 kernels relative to
// ‖A‖_F² of the scaled matrix: a column of norm below 2^-24 ‖A‖_F is below
// the float32 rounding of the matrix's entries (float64 kernels: 2^-120).
const neglF32 = 0x1p-48

// finishNegl32 is the negligible threshold finish takes for a float32
// kernel's result whose own threshold was float32(negl): a little above
// it, so that a column the kernel left alone as negligible (never rotated
// against the others: its float32 α, within about n·2^-24 of its squared
// norm, at most float32(negl)) is one finish completes, never one it
// normalises as it is, unorthogonalised: ‖x‖² <= negl (1+2^-24)/(1 -
// 32·2^-24) < negl (1+2^-10). A column between the two thresholds was
// rotated and is completed instead, which is as accurate.
func finishNegl32(negl float64) float64 { return negl * (1 + 0x1p-10) }

// small32Asm is the workspace of Small.Factorize32 on AVX-512: one matrix,
// its n'/2 column pairs in the 16 float32 lanes of one vector a half row
// (jacobi1S32AVX512; the layout of smallAsm with one vector, 16 lanes).
type small32Asm struct {
	m      int // n rounded up to even
	buf    []float32
	pos    []int // lane of column c in a row
	params [s32Len]float32
}

// factorize32Native reports whether Factorize32 of n x n matrices runs in
// float32 lanes on this CPU.
func factorize32Native(n int) bool { return (useAVX512 || useAVX2) && n >= 3 && n <= maxSmall32 }

func newSmall32Asm(n int) *small32Asm {
	if !useAVX512Possible || n < 3 || n > maxSmall32 {
		return nil
	}
	m := n + n&1
	h := m / 2
	x := &small32Asm{m: m, pos: make([]int, n)}
	x.buf = aligned64f32(make([]float32, 2*n*row32+16), 2*n*row32)
	circlePos(x.pos, 0, 16)
	kernelParams32(&x.params, n, h)
	return x
}

// aligned64f32 returns n float32 of buf from a 64-byte boundary (buf has
// 15 spare).
func aligned64f32(buf []float32, n int) []float32 {
	off := int((64-uintptr(unsafe.Pointer(&buf[0]))%64)%64) / 4
	return buf[off : off+n : off+n]
}

// kernelParams32 writes the constants of the float32 kernels' params for
// n x n matrices of h pairs: the permutation indices (one vector of 16
// lanes), tol² with tol = max(n, 8)·2^-23 (the float64 kernels' tolerance
// in float32's epsilon), 1 and the sign masks.
func kernelParams32(params *[s32Len]float32, n, h int) {
	var idxL, idxR [16]int64
	permTables(idxL[:], idxR[:], h, 1, 16)
	for i := range idxL {
		params[s32IdxL+i] = math.Float32frombits(uint32(idxL[i]))
		params[s32IdxR+i] = math.Float32frombits(uint32(idxR[i]))
	}
	tol := float32(max(n, 8)) * 0x1p-23
	params[sTol2] = tol * tol
	params[sOne] = 1
	params[sAbs] = math.Float32frombits(1<<31 - 1)
	params[sSign] = math.Float32frombits(1 << 31)
}

// loadLanes32 writes the n x n matrix a, scaled by the power of two 2^-e
// that brings its largest entry into [0.5, 1) and rounded to float32,
// into the rows (row float32 each) of buf, column c at lane pos[c], with V
// = I in the n rows after them, and returns e and the negligible
// threshold neglF32 ‖A‖_F² of the rounded, scaled matrix; false if a has
// a NaN or Inf. The rest of buf is as it was.
func loadLanes32(buf []float32, row int, pos []int, a []float64, lda, n int) (int, float64, bool) {
	const absMask, expMask = 1<<63 - 1, 0x7ff << 52
	var mb uint64
	for r := 0; r < n; r++ {
		for _, v := range a[r*lda : r*lda+n] {
			mb = max(mb, math.Float64bits(v)&absMask)
		}
	}
	if mb >= expMask {
		return 0, 0, false
	}
	e := 0
	if mb >= 1<<52 {
		e = int(mb>>52) - 1022
	} else if mb > 0 {
		_, e = math.Frexp(math.Float64frombits(mb))
	}
	var f float64
	sc, scaled := 1.0, e > -1000 && e < 1000
	if scaled {
		sc = math.Float64frombits(uint64(1023-e) << 52) // 2^-e
	}
	for r := 0; r < n; r++ {
		br := buf[r*row : r*row+row]
		for c, v := range a[r*lda : r*lda+n] {
			y := v * sc
			if !scaled {
				y = math.Ldexp(v, -e)
			}
			y32 := float32(y)
			br[pos[c]] = y32
			f += float64(y32) * float64(y32)
		}
	}
	for c, q := range pos {
		buf[(n+c)*row+q] = 1
	}
	return e, f * neglF32, true
}

// factorize32Asm is Factorize32 on jacobi1S32AVX512; false, having
// written nothing, where a has a NaN or Inf or the run did not converge.
func (w *Small) factorize32Asm(u []float64, ldu int, s []float64, v []float64, ldv int, a []float64, lda int) bool {
	x, n := w.f32, w.n
	clear(x.buf)
	e, negl, ok := loadLanes32(x.buf, row32, x.pos, a, lda, n)
	if !ok {
		return false
	}
	x.params[sNegl] = float32(negl)
	if jacobi1S32AVX512(&x.buf[0], n, n, x.m-1, &x.params, MaxSweeps) != 0 {
		return false
	}
	w.unpack32(x.buf, row32, x.pos, n)
	w.finish(u, ldu, s, v, ldv, e, finishNegl32(negl))
	return true
}

// unpack32 widens the converged columns of A and V of a float32 kernel's
// buffer (rows of row float32, column c at lane pos[c]) into w.g and w.v.
func (w *Small) unpack32(buf []float32, row int, pos []int, n int) {
	for c, q := range pos {
		gc, vc := w.g[c*n:c*n+n], w.v[c*n:c*n+n]
		for r := range gc {
			gc[r] = float64(buf[r*row+q])
			vc[r] = float64(buf[(n+r)*row+q])
		}
	}
}

// dual32Asm is the workspace of Pair.Factorize32 on AVX-512: both
// matrices in one run of jacobi1Dual32AVX512, matrix i's pairs in vector
// i of each half row (row r: L_0 L_1 R_0 R_1), each with the bits
// jacobi1S32AVX512 gives it alone.
type dual32Asm struct {
	m      int
	buf    []float32
	pos    [2][]int
	params [s32Len]float32
}

func newDual32Asm(n int) *dual32Asm {
	if !useAVX512Possible || n < 3 || n > maxSmall32 {
		return nil
	}
	m := n + n&1
	h := m / 2
	x := &dual32Asm{m: m, pos: [2][]int{make([]int, n), make([]int, n)}}
	x.buf = aligned64f32(make([]float32, 2*n*dualRow32+16), 2*n*dualRow32)
	for k := range x.pos {
		circlePos(x.pos[k], 16*k, 32)
	}
	kernelParams32(&x.params, n, h)
	return x
}

// factorize32Dual is Factorize32 of both matrices in one run of
// jacobi1Dual32AVX512, with the bits of factorize32Asm on each; false,
// having written nothing, where a matrix has a NaN or Inf or the run did
// not converge.
func (p *Pair) factorize32Dual(u [2][]float64, ldu int, s, v [2][]float64, ldv int, a [2][]float64, lda int) bool {
	x, n := p.dual32, p.n
	return p.factorize32Pair(x.buf, dualRow32, 0, &x.pos, func(negl [2]float64) bool {
		x.params[sNegl], x.params[sNeg2] = float32(negl[0]), float32(negl[1])
		return jacobi1Dual32AVX512(&x.buf[0], n, n, x.m-1, &x.params, MaxSweeps) == 0
	}, u, ldu, s, v, ldv, a, lda)
}

// factorize32Pair is a Pair's Factorize32 on one of the float32 pair
// kernels: it loads both matrices into buf (matrix i's rows from
// buf[i*off:], row float32 a row, its columns at the lanes pos[i]), runs
// the kernel by run (given each matrix's negligible threshold; false if
// it did not converge) and finishes both; false, having written nothing,
// where a matrix has a NaN or Inf or run reports false.
func (p *Pair) factorize32Pair(buf []float32, row, off int, pos *[2][]int, run func(negl [2]float64) bool, u [2][]float64, ldu int, s, v [2][]float64, ldv int, a [2][]float64, lda int) bool {
	n := p.n
	clear(buf)
	var e [2]int
	var negl [2]float64
	for i := range a {
		var ok bool
		if e[i], negl[i], ok = loadLanes32(buf[i*off:], row, pos[i], a[i], lda, n); !ok {
			return false
		}
	}
	if !run(negl) {
		return false
	}
	for i, w := range p.w {
		w.unpack32(buf[i*off:], row, pos[i], n)
		w.finish(u[i], ldu, s[i], v[i], ldv, e[i], finishNegl32(negl[i]))
	}
	return true
}

// maxPack32 is the largest n of jacobi1Pack32AVX512: eight pairs a matrix,
// both matrices in one vector.
const maxPack32 = 16

// pack32Asm is the workspace of Pair.Factorize32 on AVX-512 for n <= 16:
// both matrices in one vector of each half row (row r: L R, matrix i's
// pairs in lanes 8i..8i+7), each half moving by its own circle, one run
// of jacobi1Pack32AVX512, each matrix with the bits jacobi1S32AVX512
// gives it alone: half the vectors of the dual kernel's rows.
type pack32Asm struct {
	m      int
	buf    []float32
	pos    [2][]int
	params [s32Len]float32
}

func newPack32Asm(n int) *pack32Asm {
	if !useAVX512Possible || n < 3 || n > maxPack32 {
		return nil
	}
	m := n + n&1
	h := m / 2
	x := &pack32Asm{m: m, pos: [2][]int{make([]int, n), make([]int, n)}}
	x.buf = aligned64f32(make([]float32, 2*n*row32+16), 2*n*row32)
	for k := range x.pos {
		circlePos(x.pos[k], 8*k, 16)
	}
	kernelParams32(&x.params, n, h)
	// Each half's circle: the 8-lane tables (below 8 the first table's
	// lane, from 8 the second's) moved to the half's lanes.
	var idxL, idxR [8]int64
	permTables(idxL[:], idxR[:], h, 1, 8)
	at := func(k int, v int64) float32 {
		if v >= 8 {
			v += 8 // the second table: lanes 16..31
		}
		return math.Float32frombits(uint32(v + int64(8*k)))
	}
	for k := 0; k < 2; k++ {
		for j := 0; j < 8; j++ {
			x.params[s32IdxL+8*k+j] = at(k, idxL[j])
			x.params[s32IdxR+8*k+j] = at(k, idxR[j])
		}
	}
	return x
}

// factorize32Pack is factorize32Dual by jacobi1Pack32AVX512 (n <= 16).
func (p *Pair) factorize32Pack(u [2][]float64, ldu int, s, v [2][]float64, ldv int, a [2][]float64, lda int) bool {
	x, n := p.pack32, p.n
	return p.factorize32Pair(x.buf, row32, 0, &x.pos, func(negl [2]float64) bool {
		for i := range negl {
			for j := 0; j < 8; j++ {
				x.params[s32Negl+8*i+j] = float32(negl[i])
			}
		}
		return jacobi1Pack32AVX512(&x.buf[0], n, n, x.m-1, &x.params, MaxSweeps) == 0
	}, u, ldu, s, v, ldv, a, lda)
}
