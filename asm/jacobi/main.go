// Command jacobi generates the AVX-512 one-sided Jacobi kernels of package
// svd (../../svd/jacobi_amd64.s and ../../svd/stubs_amd64.go). Run it via
// `go generate ./svd` from the module root.
//
// Layout of a group: 8 matrices, one per 64-bit lane of a ZMM register.
// Column c of the matrices (the Jacobi "vector" rotated by the iteration) is
// n consecutive 64-byte vectors, row r of that column in vector c*n+r, lane
// l holding matrix l. Every lane goes through the same sequence of pairs;
// a lane whose pair needs no rotation gets c = 1, s = 0 (an exact identity).
//
// A sweep is n'-1 rounds of n/2 disjoint pairs (round-robin order). A round
// is software-pipelined over its pairs k, with the values passed on in
// registers (no scratch memory: the kernel is bound by loads and stores,
// 512-bit stores take two cycles on Zen 4): the dot product γ = x·y of pair
// k+1, the rotation (c, s) of pair k from γ and the squared column norms
// α, β (recomputed at the start of each sweep and updated after each
// rotation: α - tγ, β + tγ), and the rotation of pair k-1, so that the long
// dependency chain of the parameters overlaps with the other two.
// A lane is converged after a sweep without rotation; in such a sweep its
// norms are the exact recomputed ones, so every pair passed the exact test.
package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Constant registers of jacobi8, live through the whole kernel.
var (
	ones   = Z31 // 1.0
	half   = Z30 // 0.5
	tol    = Z29 // tol²: convergence threshold on cos²
	negl   = Z28 // per-lane threshold on squared column norms
	signM  = Z27 // -0.0 (sign bit)
	absM   = Z26 // ^sign bit
	threeH = Z25 // 1.5
)

// Layout of params (float64 index).
const (
	pNegl   = 0  // [0:8] per-lane negligible threshold (written by load8)
	pTol    = 8  // tol²: squared threshold on cos² of the angle of a pair
	pOne    = 9  // 1
	pHalf   = 10 // 0.5
	pThreeH = 11 // 1.5
	pSign   = 12 // sign bit
	pAbs    = 13 // all bits but the sign
	pMaxF   = 14 // largest finite float64
	pNeglF  = 15 // 2^-120: negligible threshold relative to ‖A‖_F²
	pExp    = 16 // [16:24] per-lane scaling exponent (written by load8)
)

func main() {
	ConstraintExpr("amd64,!purego")
	load8()
	jacobi8()
	jacobi8s()
	jacobi4()
	jacobi4x2()
	jacobi4s()
	norms8()
	sort8()
	jacobi1(1)
	jacobi1(2)
	jacobi1Dual()
	jacobi1S32()
	jacobi1Dual32()
	jacobi1Pack32()
	jacobi1b(1)
	jacobi1b(2)
	jacobi1bDual()
	transpose()
	dots4()
	axpy4()
	gram(gram4w)
	absMax4()
	gramLoad(gram4w)
	tridiag(gram4w)
	qlRootFree(1)
	qlRootFree(2)
	qlRootFree512(2)
	qlRootFree512(4)
	sturm(gram4w)
	gramLoad(gram8w)
	gram(gram8w)
	tridiag(gram8w)
	sturm(gram8w)
	jacobi1S32AVX2(1)
	jacobi1S32AVX2(2)
	jacobi1Pack32AVX2()
	absMax4x512()
	Generate()
}

func load8() {
	TEXT("load8AVX512", NOSPLIT, "func(buf *float64, a *float64, offs *[8]int64, n, lda int, lanes uint64, params *[32]float64) uint64")
	Pragma("noescape")
	Doc(
		"load8AVX512 gathers the n x n matrices at byte offsets offs[l] from a",
		"(row stride lda float64) into the lanes l set in the mask lanes (the others",
		"are zeroed), transposed: element (r, c) of matrix l to buf[(c*n+r)*8+l]. It",
		"scales each lane by the power of two 2^-e_l that brings its largest entry",
		"into [0.5, 1), and writes e_l to params[16+l] and 2^-120 ‖A_l‖_F² (scaled)",
		"to params[l]. It returns the mask of the lanes with a NaN or Inf entry.",
	)
	buf := Load(Param("buf"), GP64())
	a := Load(Param("a"), GP64())
	offs := Load(Param("offs"), GP64())
	n := Load(Param("n"), GP64())
	lda := Load(Param("lda"), GP64())
	lanes := GP64()
	Load(Param("lanes"), lanes)
	params := Load(Param("params"), GP64())

	// The gather index in a low register: Bochs 2.7, the emulator AVX-512
	// code is tested in, refuses EVEX gathers indexed by Z16-Z31 (#UD).
	idx, amax, maxF, absv := Z8, Z21, Z22, Z23
	VMOVDQU64(Mem{Base: offs}, idx)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * pMaxF}, maxF)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * pAbs}, absv)
	VPXORQ(amax, amax, amax)
	KMOVW(lanes.As32(), K3)
	KMOVW(K3, K4) // K4: lanes all finite so far
	SHLQ(Imm(3), lda)
	colStride := GP64()
	MOVQ(n, colStride)
	SHLQ(Imm(6), colStride)

	r := GP64()
	c := GP64()
	src := GP64()
	dst := GP64()
	rowDst := GP64()
	MOVQ(buf, rowDst)
	MOVQ(n, r)
	froG := Z28 // ‖A‖_F² unscaled, for the common case where no scaling is needed
	VPXORQ(froG, froG, froG)
	Label("lrow")
	MOVQ(a, src)
	MOVQ(rowDst, dst)
	MOVQ(n, c)
	Label("lcol")
	KMOVW(K3, K5)
	VPXORQ(Z0, Z0, Z0)
	VGATHERQPD(Mem{Base: src, Index: idx, Scale: 1}, K5, Z0)
	VMOVUPD(Z0, Mem{Base: dst})
	VPANDQ(Z0, absv, Z1)
	VMAXPD(Z1, amax, amax)
	VFMADD231PD(Z0, Z0, froG)
	VCMPPD(Imm(0x12), maxF, Z1, K4, K4) // LE_OQ: |x| <= MaxFloat64, false on NaN
	ADDQ(Imm(8), src)
	ADDQ(colStride, dst)
	DECQ(c)
	JNZ(LabelRef("lcol"))
	ADDQ(lda, a)
	ADDQ(Imm(64), rowDst)
	DECQ(r)
	JNZ(LabelRef("lrow"))

	Comment("e = getexp(amax) + 1 (0 for a zero lane); scale by 2^-e, accumulate ‖A‖_F²")
	e, ne, fro := Z24, Z25, Z26
	VGETEXPPD(amax, e)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * pOne}, Z2)
	VADDPD(Z2, e, e)
	VPXORQ(Z3, Z3, Z3)
	VCMPPD(Imm(0x04), Z3, amax, K1) // NEQ_UQ: amax != 0
	VMOVAPD_Z(e, K1, e)
	VSUBPD(e, Z3, ne)
	VPXORQ(Z27, Z27, Z27)
	Comment("no scaling when every |e| <= 100: squares and products of squares of")
	Comment("the entries that matter then neither overflow nor underflow in the kernel")
	Comment("(scaling by a power of two would only keep subnormal entries, far below")
	Comment("2^-60 ‖A‖_F, from underflowing)")
	VPANDQ(e, absv, Z4)
	t := GP64()
	MOVQ(U64(0x4059000000000000), t) // 100
	VPBROADCASTQ(t, Z5)
	VCMPPD(Imm(0x1e), Z5, Z4, K6) // |e| > 100
	KORTESTW(K6, K6)
	JNZ(LabelRef("lscale"))
	VMOVUPD(Z27, Mem{Base: params, Disp: 8 * pExp})
	VMOVAPD(froG, fro)
	JMP(LabelRef("lscaled"))
	Label("lscale")
	VMOVUPD(e, Mem{Base: params, Disp: 8 * pExp})
	VPXORQ(fro, fro, fro)
	cnt := GP64()
	MOVQ(n, cnt)
	IMULQ(n, cnt)
	Label("lscale2")
	CMPQ(cnt, Imm(2))
	JL(LabelRef("lscale1"))
	VMOVUPD(Mem{Base: buf}, Z0)
	VMOVUPD(Mem{Base: buf, Disp: 64}, Z1)
	VSCALEFPD(ne, Z0, Z0) // x * 2^-e, exact
	VSCALEFPD(ne, Z1, Z1)
	VMOVUPD(Z0, Mem{Base: buf})
	VMOVUPD(Z1, Mem{Base: buf, Disp: 64})
	VFMADD231PD(Z0, Z0, fro)
	VFMADD231PD(Z1, Z1, Z27)
	ADDQ(Imm(128), buf)
	SUBQ(Imm(2), cnt)
	JMP(LabelRef("lscale2"))
	Label("lscale1")
	TESTQ(cnt, cnt)
	JZ(LabelRef("lscaled"))
	VMOVUPD(Mem{Base: buf}, Z0)
	VSCALEFPD(ne, Z0, Z0)
	VMOVUPD(Z0, Mem{Base: buf})
	VFMADD231PD(Z0, Z0, fro)
	Label("lscaled")
	VADDPD(Z27, fro, fro)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * pNeglF}, Z2)
	VMULPD(Z2, fro, fro)
	VMOVUPD(fro, Mem{Base: params, Disp: 8 * pNegl})

	ret := GP64()
	KANDNW(K3, K4, K4) // lanes in K3 but not finite
	KMOVW(K4, ret.As32())
	Store(ret, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

func jacobi8() { jacobi8Gen(false) }

// jacobi8s is jacobi8 on the split layout: up to four matrices, matrix m
// in the lanes 2m and 2m+1, its even rows in the first and its odd rows in
// the second (column c, rows 2k and 2k+1 in the 64-byte vector c*nv+k,
// nv = ceil(n/2); a last odd row's partner is zero). Each lane pair goes
// through jacobi8's operations on its matrix in the same order, so that a
// matrix gets the bits jacobi8 gives it in one lane, in half the vector
// instructions of its dots and rotations:
//   - jacobi8's norm sums two chains, the even rows and the odd rows, then
//     adds them: here the chains are the two lanes, added across them
//     (both lanes get the sum; x + y = y + x);
//   - its dot product sums four chains, rows 4j+u in chain u (u < 4), then
//     the last rows mod 4 into chain 0 one by one, and returns
//     (c0 + c1) + (c2 + c3): here chains 0 and 1 are the lanes of one
//     accumulator (the even vectors), 2 and 3 of another (the odd ones),
//     and the last rows are added into the first lane alone (a mask), the
//     second of them moved there by a permute;
//   - the rotation parameters and the norms' updates are lane by lane, on
//     the same α, β and γ in both lanes of a pair, and the rotations
//     element by element.
//
// The zero partner of a last odd row stays zero and enters only the sums
// of squares (x + 0 = x there: those sums are never -0).
func jacobi8s() { jacobi8Gen(true) }

func jacobi8Gen(split bool) {
	rows := "n" // the parameter counting a column's vectors
	if split {
		rows = "nv"
		TEXT("jacobi8sAVX512", NOSPLIT, "func(buf *float64, n, nv int, pairs *int64, ppr, rounds int, params *[32]float64, norms *float64, maxSweeps int) uint64")
		Pragma("noescape")
		Doc(
			"jacobi8sAVX512 is jacobi8AVX512 on up to four matrices split over the lane",
			"pairs (2m, 2m+1): rows 2k and 2k+1 of column c of matrix m in the lanes of",
			"its pair of the 64-byte vector c*nv+k, nv = (n+1)/2; pairs holds offsets",
			"(p*nv*64, q*nv*64, p*64, q*64). A matrix's result, norms included (in both",
			"lanes of its pair), has the bits jacobi8AVX512 gives it in one lane.",
		)
	} else {
		TEXT("jacobi8AVX512", NOSPLIT, "func(buf *float64, n int, pairs *int64, ppr, rounds int, params *[32]float64, norms *float64, maxSweeps int) uint64")
		Pragma("noescape")
		Doc(
			"jacobi8AVX512 runs one-sided Jacobi on a group of 8 lane-interleaved n x n",
			"matrices (see the generator for the layout) until a whole sweep rotates",
			"nothing in any lane, or for maxSweeps sweeps. pairs holds rounds x ppr",
			"quadruples of byte offsets (p*n*64, q*n*64, p*64, q*64): the disjoint column",
			"pairs of each round of a sweep and their entries in norms (n vectors, the",
			"squared column norms: recomputed at the start of each sweep, updated after",
			"each rotation). norms is 64-byte aligned.",
			"params: see the generator. It returns the mask of the lanes that rotated",
			"in the last sweep (0: all converged).",
		)
	}
	buf := Load(Param("buf"), GP64())
	params := Load(Param("params"), GP64())
	VMOVUPD(Mem{Base: params, Disp: 8 * pNegl}, negl)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * pTol}, tol)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * pOne}, ones)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * pHalf}, half)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * pThreeH}, threeH)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * pSign}, signM)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * pAbs}, absM)

	// The loop bounds n, ppr and norms are reloaded from the frame where
	// needed: there are not enough general registers to keep them.
	pairsEnd := GP64() // pairs + rounds*ppr*16: end of one sweep's pair list
	Load(Param("rounds"), pairsEnd)
	ppr := Load(Param("ppr"), GP64())
	IMULQ(ppr, pairsEnd)
	SHLQ(Imm(5), pairsEnd)
	pairs := Load(Param("pairs"), GP64())
	ADDQ(pairs, pairsEnd)

	sweeps := GP64() // sweeps left
	Load(Param("maxSweeps"), sweeps)
	cur := GP64() // first pair of the current round
	pp := GP64()  // pair cursor
	i := GP64()   // pair counter
	x := GP64()
	y := GP64()
	r := GP64()

	Label("sweep")
	Comment("K2 = lanes that rotated in this sweep")
	KXORW(K2, K2, K2)
	Load(Param("pairs"), cur)

	Comment("norms[c] = Σ_r buf[c][r]², exact at the start of every sweep")
	MOVQ(buf, x)
	Load(Param("norms"), y)
	Load(Param("n"), i)
	if split {
		MOVQ(U32(0x55), r)
		KMOVW(r.As32(), K5) // the first lane of each pair
		splitNorms(x, y, i, r)
	} else {
		batchNorms(x, y, i, r)
	}

	Label("round")
	Comment("one round, software-pipelined over its pairs k with the values carried")
	Comment("in registers: γ of pair k+1, the parameters of pair k (latency hidden")
	Comment("by the other two), the rotation of pair k-1")
	MOVQ(cur, pp)
	Load(Param("ppr"), i)
	dot := pairDot
	if split {
		dot = pairDot8s
	}
	dot(buf, pp, 0, x, y, r, "0")
	VMOVAPD(Z8, gNext)
	VMOVAPD(gNext, gCur)
	DECQ(i)
	JZ(LabelRef("p0"))
	dot(buf, pp, 32, x, y, r, "1")
	VMOVAPD(Z8, gNext)
	Label("p0")
	Load(Param("norms"), x)
	batchParams(pp, x, y, r, "pskip0")
	advancePair()
	TESTQ(i, i)
	JZ(LabelRef("rotlast"))
	Label("pairs")
	ADDQ(Imm(32), pp)
	CMPQ(i, Imm(1))
	JE(LabelRef("nodot"))
	dot(buf, pp, 32, x, y, r, "")
	VMOVAPD(Z8, gNext)
	Label("nodot")
	Load(Param("norms"), x)
	batchParams(pp, x, y, r, "pskip")
	rotatePair(buf, pp, -32, x, y, r, rows, "")
	advancePair()
	DECQ(i)
	JNZ(LabelRef("pairs"))
	Label("rotlast")
	rotatePair(buf, pp, 0, x, y, r, rows, "last")
	ADDQ(Imm(32), pp)

	MOVQ(pp, cur) // the next round's pairs follow
	CMPQ(cur, pairsEnd)
	JL(LabelRef("round"))

	KORTESTW(K2, K2)
	JZ(LabelRef("done"))
	DECQ(sweeps)
	JNZ(LabelRef("sweep"))

	Label("done")
	ret := GP64()
	KMOVW(K2, ret.As32())
	Store(ret, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// rotateRow rotates one 64-byte row of columns x and y, using the four
// temporary registers from zreg(base).
func rotateRow(x, y Register, disp int, base int, c, s VecPhysical) {
	zx, zy, t1, t2 := zreg(base), zreg(base+1), zreg(base+2), zreg(base+3)
	VMOVUPD(Mem{Base: x, Disp: disp}, zx)
	VMOVUPD(Mem{Base: y, Disp: disp}, zy)
	VMULPD(zy, s, t1)
	VMULPD(zx, s, t2)
	VFMSUB231PD(zx, c, t1) // c x - s y
	VFMADD231PD(zy, c, t2) // c y + s x
	VMOVUPD(t1, Mem{Base: x, Disp: disp})
	VMOVUPD(t2, Mem{Base: y, Disp: disp})
}

// batchNorms emits jacobi8's norms: for each of the i columns at x (n
// vectors each), its squared norm in two chains (even rows, odd rows)
// added, stored at y.
func batchNorms(x, y, i, r Register) {
	Label("norm")
	Load(Param("n"), r)
	sumSquares2(x, r, "norm2", "norm1", "normdone")
	VMOVAPD(Z0, Mem{Base: y})
	ADDQ(Imm(64), y)
	DECQ(i)
	JNZ(LabelRef("norm"))
}

// splitNorms emits jacobi8s's norms: per column (nv vectors), one chain
// per lane (the even rows in the first lane of a pair, the odd rows in
// the second), added across the lanes of each pair.
func splitNorms(x, y, i, r Register) {
	Label("norm")
	VPXORQ(Z0, Z0, Z0)
	Load(Param("nv"), r)
	Label("normrow")
	VMOVUPD(Mem{Base: x}, Z2)
	VFMADD231PD(Z2, Z2, Z0)
	ADDQ(Imm(64), x)
	DECQ(r)
	JNZ(LabelRef("normrow"))
	VPERMILPD(Imm(0x55), Z0, Z1) // each lane's partner
	VADDPD(Z1, Z0, Z0)
	VMOVAPD(Z0, Mem{Base: y})
	ADDQ(Imm(64), y)
	DECQ(i)
	JNZ(LabelRef("norm"))
}

// pairDot8s emits pairDot's γ on the split layout (into Z8, in both lanes
// of each pair): rows 4j, 4j+1 in the lanes of accumulator Z8 (chains 0
// and 1), rows 4j+2, 4j+3 in Z9 (chains 2 and 3), the last n mod 4 rows
// into the first lane of Z8 one by one (K5: the first lanes), then
// (c0 + c1) + (c2 + c3).
func pairDot8s(buf, pp Register, off int, x, y, r Register, suffix string) {
	MOVQ(Mem{Base: pp, Disp: off}, x)
	MOVQ(Mem{Base: pp, Disp: off + 8}, y)
	ADDQ(buf, x)
	ADDQ(buf, y)
	VPXORQ(Z8, Z8, Z8)
	VPXORQ(Z9, Z9, Z9)
	Load(Param("n"), r)
	Label("sdot4" + suffix)
	CMPQ(r, Imm(4))
	JL(LabelRef("sdot1" + suffix))
	VMOVUPD(Mem{Base: x}, Z12)
	VFMADD231PD(Mem{Base: y}, Z12, Z8)
	VMOVUPD(Mem{Base: x, Disp: 64}, Z13)
	VFMADD231PD(Mem{Base: y, Disp: 64}, Z13, Z9)
	ADDQ(Imm(128), x)
	ADDQ(Imm(128), y)
	SUBQ(Imm(4), r)
	JMP(LabelRef("sdot4" + suffix))
	Label("sdot1" + suffix)
	TESTQ(r, r)
	JZ(LabelRef("sdotdone" + suffix))
	Comment("row 4q: the first lanes of the next vector")
	VMOVUPD(Mem{Base: x}, Z12)
	VMOVUPD(Mem{Base: y}, Z13)
	VFMADD231PD(Z13, Z12, K5, Z8)
	CMPQ(r, Imm(2))
	JL(LabelRef("sdotdone" + suffix))
	Comment("row 4q+1: the second lanes, moved to the first")
	VPERMILPD(Imm(0x55), Z12, Z14)
	VPERMILPD(Imm(0x55), Z13, Z15)
	VFMADD231PD(Z15, Z14, K5, Z8)
	CMPQ(r, Imm(3))
	JL(LabelRef("sdotdone" + suffix))
	Comment("row 4q+2: the first lanes of the vector after")
	VMOVUPD(Mem{Base: x, Disp: 64}, Z12)
	VMOVUPD(Mem{Base: y, Disp: 64}, Z13)
	VFMADD231PD(Z13, Z12, K5, Z8)
	Label("sdotdone" + suffix)
	VPERMILPD(Imm(0x55), Z8, Z10)
	VPERMILPD(Imm(0x55), Z9, Z11)
	VADDPD(Z10, Z8, Z8)
	VADDPD(Z11, Z9, Z9)
	VADDPD(Z9, Z8, Z8)
}

// sumSquares2 emits Z0 = the sums of squares of the r vectors at x (x
// advances past them, r is used up) in two chains, the even rows in Z0 and
// the odd rows in Z1, added: the batch kernel's column norms, which
// norms8 repeats so that the values have the kernel's bits. The labels
// name its loop, its tail and its end.
func sumSquares2(x, r Register, loop, tail, done string) {
	VPXORQ(Z0, Z0, Z0)
	VPXORQ(Z1, Z1, Z1)
	Label(loop)
	CMPQ(r, Imm(2))
	JL(LabelRef(tail))
	VMOVUPD(Mem{Base: x}, Z2)
	VMOVUPD(Mem{Base: x, Disp: 64}, Z3)
	VFMADD231PD(Z2, Z2, Z0)
	VFMADD231PD(Z3, Z3, Z1)
	ADDQ(U32(128), x)
	SUBQ(Imm(2), r)
	JMP(LabelRef(loop))
	Label(tail)
	TESTQ(r, r)
	JZ(LabelRef(done))
	VMOVUPD(Mem{Base: x}, Z2)
	VFMADD231PD(Z2, Z2, Z0)
	ADDQ(Imm(64), x)
	Label(done)
	VADDPD(Z1, Z0, Z0)
}

func norms8() {
	TEXT("norms8AVX512", NOSPLIT, "func(sv *float64, buf *float64, n int, params *[32]float64)")
	Pragma("noescape")
	Doc(
		"norms8AVX512 sets sv[8c+l] = 2^e_l sqrt(Σ_r buf[(c n + r) 8 + l]²) for c < n:",
		"the column norms of the 8 lane-interleaved matrices, scaled back by the",
		"exponents e_l in params[16:24].",
	)
	sv := Load(Param("sv"), GP64())
	g := Load(Param("buf"), GP64())
	n := Load(Param("n"), GP64())
	params := Load(Param("params"), GP64())
	VMOVUPD(Mem{Base: params, Disp: 8 * pExp}, Z5)
	c := GP64()
	r := GP64()
	MOVQ(n, c)
	Label("col")
	MOVQ(n, r)
	sumSquares2(g, r, "row2", "row1", "store")
	VSQRTPD(Z0, Z0)
	VSCALEFPD(Z5, Z0, Z0)
	VMOVUPD(Z0, Mem{Base: sv})
	ADDQ(Imm(64), sv)
	DECQ(c)
	JNZ(LabelRef("col"))
	VZEROUPPER()
	RET()
}

var zregs = []VecPhysical{Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15,
	Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23, Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31}

func zreg(i int) VecPhysical { return zregs[i] }

// exactParams selects VSQRTPD/VDIVPD for the rotation parameters of the
// batch kernel (else approximate reciprocals refined by Newton steps).
const exactParams = false

// batchParams emits the rotation of the pair at pp: α, β from the norms at x
// (y and r: offsets), γ from gCur; it sets K1 (lanes that rotate), cNext,
// sNext, and updates the norms. If no lane rotates it jumps to skip.
func batchParams(pp, x, y, r Register, skip string) {
	alpha, beta, gamma := Z0, Z1, Z2
	MOVQ(Mem{Base: pp, Disp: 16}, y)
	MOVQ(Mem{Base: pp, Disp: 24}, r)
	VMOVAPD(Mem{Base: x, Index: y, Scale: 1}, alpha)
	VMOVAPD(Mem{Base: x, Index: r, Scale: 1}, beta)
	VMOVAPD(gCur, gamma)
	Comment("K1 = γ² > tol² α β && α > negl && β > negl")
	VMULPD(gamma, gamma, Z3)
	VMULPD(beta, alpha, Z4)
	VMULPD(tol, Z4, Z4)
	VCMPPD(Imm(0x1e), Z4, Z3, K1)
	VCMPPD(Imm(0x1e), negl, alpha, K1, K1)
	VCMPPD(Imm(0x1e), negl, beta, K1, K1)
	KORW(K1, K2, K2)
	KORTESTW(K1, K1)
	JZ(LabelRef(skip))
	Comment("t = sign(d) g2 / (|d| + sqrt(d² + g2²)), d = β - α, g2 = 2γ (masked: 0)")
	VSUBPD(alpha, beta, Z4) // d
	VADDPD(gamma, gamma, Z5)
	VMULPD(Z5, Z5, Z6)
	VFMADD231PD(Z4, Z4, Z6)
	if exactParams {
		VSQRTPD(Z6, Z8)
	} else {
		VRSQRT14PD(Z6, Z7)
		VMULPD(Z7, Z6, Z8) // h y
		VMULPD(Z7, Z8, Z9) // h y²
		VFNMADD213PD(threeH, half, Z9)
		VMULPD(Z9, Z8, Z8) // sqrt(h)
	}
	VPANDQ(Z4, absM, Z10)
	VADDPD(Z10, Z8, Z10)
	VPANDQ(Z4, signM, Z13)
	VPXORQ(Z13, Z5, Z5)
	if exactParams {
		VDIVPD(Z10, Z5, Z12)
	} else {
		VRCP14PD(Z10, Z11)
		VFNMADD213PD(ones, Z11, Z10) // 1 - den r
		VFMADD231PD(Z10, Z11, Z11)   // r += r (1 - den r)
		VMULPD(Z11, Z5, Z12)
	}
	VMOVAPD_Z(Z12, K1, Z12) // t
	Comment("c = 1/sqrt(1 + t²) (exactly 1 where no rotation), s = c t")
	VMOVAPD(ones, Z13)
	VFMADD231PD(Z12, Z12, Z13) // q
	if exactParams {
		VSQRTPD(Z13, Z14)
		VDIVPD(Z14, ones, Z14)
	} else {
		VRSQRT14PD(Z13, Z14)
		VMULPD(Z14, Z14, Z15)
		VMULPD(Z13, Z15, Z15)
		VFNMADD213PD(threeH, half, Z15)
		VMULPD(Z15, Z14, Z14)
		VMULPD(Z14, Z14, Z15)
		VFNMADD213PD(ones, Z13, Z15) // e = 1 - x y²
		VMULPD(half, Z14, Z16)
		VFMADD231PD(Z15, Z16, Z14) // c = y + (y/2) e
	}
	VBLENDMPD(Z14, ones, K1, cNext)
	VMULPD(Z12, cNext, sNext) // s
	Comment("α' = α - t γ, β' = β + t γ")
	VFNMADD231PD(gamma, Z12, alpha)
	VFMADD231PD(gamma, Z12, beta)
	VMOVAPD(alpha, Mem{Base: x, Index: y, Scale: 1})
	VMOVAPD(beta, Mem{Base: x, Index: r, Scale: 1})
	Label(skip)
}

// Registers carried between the stages of the batch kernel's round.
var (
	gNext = Z17 // γ of the pair after the current one
	gCur  = Z18 // γ of the current pair
	cNext = Z22 // c, s of the current pair (K1: lanes that rotate)
	sNext = Z23
	cRot  = Z20 // c, s of the pair being rotated (K3: lanes that rotate)
	sRot  = Z21
)

// advancePair moves the carried values one pair on.
func advancePair() {
	VMOVAPD(gNext, gCur)
	VMOVAPD(cNext, cRot)
	VMOVAPD(sNext, sRot)
	KMOVW(K1, K3)
}

// pairDot emits γ = x·y (into Z8) of the pair at pp+off.
func pairDot(buf, pp Register, off int, x, y, r Register, suffix string) {
	MOVQ(Mem{Base: pp, Disp: off}, x)
	MOVQ(Mem{Base: pp, Disp: off + 8}, y)
	ADDQ(buf, x)
	ADDQ(buf, y)
	for k := 8; k < 12; k++ {
		VPXORQ(zreg(k), zreg(k), zreg(k))
	}
	Load(Param("n"), r)
	Label("dot4" + suffix)
	CMPQ(r, Imm(4))
	JL(LabelRef("dot1" + suffix))
	for u := 0; u < 4; u++ {
		zx := zreg(12 + u)
		VMOVUPD(Mem{Base: x, Disp: 64 * u}, zx)
		VFMADD231PD(Mem{Base: y, Disp: 64 * u}, zx, zreg(8+u))
	}
	ADDQ(U32(256), x)
	ADDQ(U32(256), y)
	SUBQ(Imm(4), r)
	JMP(LabelRef("dot4" + suffix))
	Label("dot1" + suffix)
	TESTQ(r, r)
	JZ(LabelRef("dotdone" + suffix))
	VMOVUPD(Mem{Base: x}, Z12)
	VFMADD231PD(Mem{Base: y}, Z12, Z8)
	ADDQ(Imm(64), x)
	ADDQ(Imm(64), y)
	DECQ(r)
	JMP(LabelRef("dot1" + suffix))
	Label("dotdone" + suffix)
	VADDPD(Z9, Z8, Z8)
	VADDPD(Z11, Z10, Z10)
	VADDPD(Z10, Z8, Z8)
}

// rotatePair emits x, y = c x - s y, s x + c y (cRot, sRot) for the pair at
// pp+off if it rotates in some lane (K3), over the vectors of a column that
// the parameter rows counts.
func rotatePair(buf, pp Register, off int, x, y, r Register, rows, suffix string) {
	KORTESTW(K3, K3)
	JZ(LabelRef("rotnext" + suffix))
	MOVQ(Mem{Base: pp, Disp: off}, x)
	MOVQ(Mem{Base: pp, Disp: off + 8}, y)
	ADDQ(buf, x)
	ADDQ(buf, y)
	Load(Param(rows), r)
	Label("rot2" + suffix)
	CMPQ(r, Imm(2))
	JL(LabelRef("rot1" + suffix))
	for u := 0; u < 2; u++ {
		rotateRow(x, y, 64*u, 4*u, cRot, sRot)
	}
	ADDQ(U32(128), x)
	ADDQ(U32(128), y)
	SUBQ(Imm(2), r)
	JMP(LabelRef("rot2" + suffix))
	Label("rot1" + suffix)
	TESTQ(r, r)
	JZ(LabelRef("rotnext" + suffix))
	rotateRow(x, y, 0, 0, cRot, sRot)
	Label("rotnext" + suffix)
}

// sort8 generates sort8AVX512: a sorting network on n vectors of 8 lanes
// (descending in every lane), comparators given as byte-offset pairs.
func sort8() {
	TEXT("sort8AVX512", NOSPLIT, "func(sv *float64, net *int32, ncmp int)")
	Pragma("noescape")
	Doc(
		"sort8AVX512 applies the comparators net[2k], net[2k+1] (byte offsets of",
		"vectors of 8 float64 in sv), k < ncmp: the first gets the lane-wise max, the",
		"second the min. With a sorting network it sorts every lane descending.",
		"No NaNs. ncmp >= 1.",
	)
	sv := Load(Param("sv"), GP64())
	net := Load(Param("net"), GP64())
	k := Load(Param("ncmp"), GP64())
	i, j := GP64(), GP64()
	Label("cmp")
	MOVLQSX(Mem{Base: net}, i)
	MOVLQSX(Mem{Base: net, Disp: 4}, j)
	VMOVUPD(Mem{Base: sv, Index: i, Scale: 1}, Z0)
	VMOVUPD(Mem{Base: sv, Index: j, Scale: 1}, Z1)
	VMAXPD(Z1, Z0, Z2)
	VMINPD(Z1, Z0, Z3)
	VMOVUPD(Z2, Mem{Base: sv, Index: i, Scale: 1})
	VMOVUPD(Z3, Mem{Base: sv, Index: j, Scale: 1})
	ADDQ(Imm(8), net)
	DECQ(k)
	JNZ(LabelRef("cmp"))
	VZEROUPPER()
	RET()
}
