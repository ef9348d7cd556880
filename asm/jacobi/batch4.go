package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// jacobi4AVX2 is the AVX2 (+FMA) form of jacobi8AVX512 for CPUs without
// AVX-512: a group of 4 matrices, one per 64-bit lane of a YMM register,
// column c row r in the 32-byte vector c*n+r. The sweep, round and pair
// structure is the one of jacobi8AVX512 (dot of pair k+1, parameters of pair
// k, rotation of pair k-1); AVX2 has no mask registers, so the lanes that
// rotate are a compare result ANDed into t (t = 0 gives c = 1, s = 0
// exactly), and VMOVMSKPD tells whether any lane rotates. The parameters
// use VSQRTPD and VDIVPD (AVX2 has no double-precision reciprocal
// estimates). Sixteen YMM registers: constants Y12-Y15, the values carried
// between stages Y6-Y11, temporaries Y0-Y5.
var (
	ones4  = Y15 // 1.0
	tol4   = Y14 // tol²
	negl4  = Y13 // per-lane negligible threshold on squared column norms
	absM4  = Y12 // ^sign bit
	gNext4 = Y11 // γ of the pair after the current one
	gCur4  = Y10 // γ of the current pair
	cNext4 = Y9  // c, s of the current pair
	sNext4 = Y8
	cRot4  = Y7 // c, s of the pair being rotated
	sRot4  = Y6
)

// Layout of the params array of jacobi4AVX2 (float64 index).
const (
	qNegl = 0 // [0:4] per-lane negligible threshold
	qTol  = 4 // tol²
	qOne  = 5 // 1
	qAbs  = 6 // all bits but the sign
)

func jacobi4() {
	TEXT("jacobi4AVX2", NOSPLIT, "func(buf *float64, n int, pairs *int64, ppr, rounds int, params *[8]float64, norms *float64, maxSweeps int) uint64")
	Pragma("noescape")
	Doc(
		"jacobi4AVX2 runs one-sided Jacobi on a group of 4 lane-interleaved n x n",
		"matrices (column c, row r in the 32-byte vector c*n+r, lane l holding",
		"matrix l) until a whole sweep rotates nothing in any lane, or for maxSweeps",
		"sweeps. pairs holds rounds x ppr quadruples of byte offsets (p*n*32,",
		"q*n*32, p*32, q*32): the disjoint column pairs of each round of a sweep and",
		"their entries in norms (n vectors, the squared column norms: recomputed",
		"at the start of each sweep, updated after each rotation; at convergence",
		"the exact sums of squares of the last sweep). params: [0:4] per-lane",
		"threshold on squared norms below which a column is not rotated, [4] tol²,",
		"[5] 1, [6] the mask of all bits but the sign. It returns the mask of the",
		"lanes that rotated in the last sweep (0: all converged). ppr >= 1.",
	)
	buf := Load(Param("buf"), GP64())
	params := Load(Param("params"), GP64())
	VBROADCASTSD(Mem{Base: params, Disp: 8 * qTol}, tol4)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * qOne}, ones4)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * qAbs}, absM4)
	VMOVUPD(Mem{Base: params, Disp: 8 * qNegl}, negl4)

	pairsEnd := GP64()
	Load(Param("rounds"), pairsEnd)
	ppr := Load(Param("ppr"), GP64())
	IMULQ(ppr, pairsEnd)
	SHLQ(Imm(5), pairsEnd)
	pairs := Load(Param("pairs"), GP64())
	ADDQ(pairs, pairsEnd)

	sweeps := GP64()
	Load(Param("maxSweeps"), sweeps)
	cur, pp, i, x, y, r := GP64(), GP64(), GP64(), GP64(), GP64(), GP64()
	anyRot := GP64() // lanes that rotated in this sweep
	flag := GP64()   // lanes that rotate in the current pair
	pend := GP64()   // lanes that rotate in the pair being rotated

	Label("sweep")
	XORQ(anyRot, anyRot)
	Load(Param("pairs"), cur)

	Comment("norms[c] = Σ_r buf[c][r]², exact at the start of every sweep")
	MOVQ(buf, x)
	Load(Param("norms"), y)
	Load(Param("n"), i)
	Label("norm")
	VXORPD(Y0, Y0, Y0)
	VXORPD(Y1, Y1, Y1)
	Load(Param("n"), r)
	Label("norm2")
	CMPQ(r, Imm(2))
	JL(LabelRef("norm1"))
	VMOVUPD(Mem{Base: x}, Y2)
	VMOVUPD(Mem{Base: x, Disp: 32}, Y3)
	VFMADD231PD(Y2, Y2, Y0)
	VFMADD231PD(Y3, Y3, Y1)
	ADDQ(Imm(64), x)
	SUBQ(Imm(2), r)
	JMP(LabelRef("norm2"))
	Label("norm1")
	TESTQ(r, r)
	JZ(LabelRef("normdone"))
	VMOVUPD(Mem{Base: x}, Y2)
	VFMADD231PD(Y2, Y2, Y0)
	ADDQ(Imm(32), x)
	Label("normdone")
	VADDPD(Y1, Y0, Y0)
	VMOVUPD(Y0, Mem{Base: y})
	ADDQ(Imm(32), y)
	DECQ(i)
	JNZ(LabelRef("norm"))

	Label("round")
	Comment("one round, software-pipelined over its pairs k: γ of pair k+1, the")
	Comment("parameters of pair k, the rotation of pair k-1")
	MOVQ(cur, pp)
	Load(Param("ppr"), i)
	pairDot4(buf, pp, 0, x, y, r, "0")
	VMOVAPD(Y0, gNext4)
	VMOVAPD(gNext4, gCur4)
	DECQ(i)
	JZ(LabelRef("p0"))
	pairDot4(buf, pp, 32, x, y, r, "1")
	VMOVAPD(Y0, gNext4)
	Label("p0")
	Load(Param("norms"), x)
	batchParams4(pp, x, y, r, flag, anyRot, "pskip0")
	advancePair4(flag, pend)
	TESTQ(i, i)
	JZ(LabelRef("rotlast"))
	Label("pairs")
	ADDQ(Imm(32), pp)
	CMPQ(i, Imm(1))
	JE(LabelRef("nodot"))
	pairDot4(buf, pp, 32, x, y, r, "")
	VMOVAPD(Y0, gNext4)
	Label("nodot")
	Load(Param("norms"), x)
	batchParams4(pp, x, y, r, flag, anyRot, "pskip")
	rotatePair4(buf, pp, -32, x, y, r, pend, "")
	advancePair4(flag, pend)
	DECQ(i)
	JNZ(LabelRef("pairs"))
	Label("rotlast")
	rotatePair4(buf, pp, 0, x, y, r, pend, "last")
	ADDQ(Imm(32), pp)

	MOVQ(pp, cur)
	CMPQ(cur, pairsEnd)
	JL(LabelRef("round"))

	TESTQ(anyRot, anyRot)
	JZ(LabelRef("done"))
	DECQ(sweeps)
	JNZ(LabelRef("sweep"))

	Label("done")
	Store(anyRot, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// advancePair4 moves the carried values one pair on.
func advancePair4(flag, pend Register) {
	VMOVAPD(gNext4, gCur4)
	VMOVAPD(cNext4, cRot4)
	VMOVAPD(sNext4, sRot4)
	MOVQ(flag, pend)
}

// pairDot4 emits γ = x·y (into Y0) of the pair at pp+off.
func pairDot4(buf, pp Register, off int, x, y, r Register, suffix string) {
	MOVQ(Mem{Base: pp, Disp: off}, x)
	MOVQ(Mem{Base: pp, Disp: off + 8}, y)
	ADDQ(buf, x)
	ADDQ(buf, y)
	VXORPD(Y0, Y0, Y0)
	VXORPD(Y1, Y1, Y1)
	VXORPD(Y2, Y2, Y2)
	VXORPD(Y3, Y3, Y3)
	Load(Param("n"), r)
	Label("dot4" + suffix)
	CMPQ(r, Imm(4))
	JL(LabelRef("dot1" + suffix))
	for u := 0; u < 4; u++ {
		t := []VecPhysical{Y4, Y5, Y4, Y5}[u]
		VMOVUPD(Mem{Base: x, Disp: 32 * u}, t)
		VFMADD231PD(Mem{Base: y, Disp: 32 * u}, t, []VecPhysical{Y0, Y1, Y2, Y3}[u])
	}
	ADDQ(U32(128), x)
	ADDQ(U32(128), y)
	SUBQ(Imm(4), r)
	JMP(LabelRef("dot4" + suffix))
	Label("dot1" + suffix)
	TESTQ(r, r)
	JZ(LabelRef("dotdone" + suffix))
	VMOVUPD(Mem{Base: x}, Y4)
	VFMADD231PD(Mem{Base: y}, Y4, Y0)
	ADDQ(Imm(32), x)
	ADDQ(Imm(32), y)
	DECQ(r)
	JMP(LabelRef("dot1" + suffix))
	Label("dotdone" + suffix)
	VADDPD(Y1, Y0, Y0)
	VADDPD(Y3, Y2, Y2)
	VADDPD(Y2, Y0, Y0)
}

// batchParams4 emits the rotation of the pair at pp: α, β from the norms at
// x (y and r: offsets), γ from gCur4; it sets flag (lanes that rotate),
// cNext4, sNext4, ORs flag into anyRot and updates the norms. If no lane
// rotates it jumps to skip (flag 0).
func batchParams4(pp, x, y, r Register, flag GPVirtual, anyRot Register, skip string) {
	alpha, beta, mask := Y0, Y1, Y2
	MOVQ(Mem{Base: pp, Disp: 16}, y)
	MOVQ(Mem{Base: pp, Disp: 24}, r)
	VMOVUPD(Mem{Base: x, Index: y, Scale: 1}, alpha)
	VMOVUPD(Mem{Base: x, Index: r, Scale: 1}, beta)
	Comment("mask = γ² > tol² α β && α > negl && β > negl")
	VMULPD(gCur4, gCur4, mask)
	VMULPD(beta, alpha, Y3)
	VMULPD(tol4, Y3, Y3)
	VCMPPD(Imm(0x1e), Y3, mask, mask) // GT_OQ
	VCMPPD(Imm(0x1e), negl4, alpha, Y3)
	VANDPD(Y3, mask, mask)
	VCMPPD(Imm(0x1e), negl4, beta, Y3)
	VANDPD(Y3, mask, mask)
	VMOVMSKPD(mask, flag.As32())
	TESTQ(flag, flag)
	JZ(LabelRef(skip))
	ORQ(flag, anyRot)
	Comment("t = sign(d) g2 / (|d| + sqrt(d² + g2²)), d = β - α, g2 = 2γ; 0 where no rotation")
	VSUBPD(alpha, beta, Y3) // d
	VADDPD(gCur4, gCur4, Y4)
	VMULPD(Y4, Y4, Y5)
	VFMADD231PD(Y3, Y3, Y5)
	VSQRTPD(Y5, Y5)
	VANDPD(absM4, Y3, alpha) // |d|
	VADDPD(alpha, Y5, alpha)
	VANDNPD(Y3, absM4, beta) // sign bit of d
	VXORPD(beta, Y4, Y4)
	VDIVPD(alpha, Y4, Y4)
	VANDPD(mask, Y4, Y4) // t (NaN from 0/0 in a zero lane becomes 0)
	Comment("c = 1/sqrt(1 + t²) (exactly 1 where t = 0), s = c t")
	VMOVAPD(ones4, Y5)
	VFMADD231PD(Y4, Y4, Y5)
	VSQRTPD(Y5, Y5)
	VDIVPD(Y5, ones4, cNext4)
	VMULPD(Y4, cNext4, sNext4)
	Comment("α' = α - t γ, β' = β + t γ")
	VMOVUPD(Mem{Base: x, Index: y, Scale: 1}, alpha)
	VMOVUPD(Mem{Base: x, Index: r, Scale: 1}, beta)
	VFNMADD231PD(gCur4, Y4, alpha)
	VFMADD231PD(gCur4, Y4, beta)
	VMOVUPD(alpha, Mem{Base: x, Index: y, Scale: 1})
	VMOVUPD(beta, Mem{Base: x, Index: r, Scale: 1})
	Label(skip)
}

// rotatePair4 emits x, y = c x - s y, s x + c y (cRot4, sRot4) for the pair at
// pp+off if it rotates in some lane (pend != 0).
func rotatePair4(buf, pp Register, off int, x, y, r, pend Register, suffix string) {
	TESTQ(pend, pend)
	JZ(LabelRef("rotnext" + suffix))
	MOVQ(Mem{Base: pp, Disp: off}, x)
	MOVQ(Mem{Base: pp, Disp: off + 8}, y)
	ADDQ(buf, x)
	ADDQ(buf, y)
	Load(Param("n"), r)
	Label("rot3" + suffix)
	CMPQ(r, Imm(3))
	JL(LabelRef("rot1" + suffix))
	for u := 0; u < 3; u++ {
		rotateRow4(x, y, 32*u, u)
	}
	ADDQ(U32(96), x)
	ADDQ(U32(96), y)
	SUBQ(Imm(3), r)
	JMP(LabelRef("rot3" + suffix))
	Label("rot1" + suffix)
	TESTQ(r, r)
	JZ(LabelRef("rotnext" + suffix))
	rotateRow4(x, y, 0, 0)
	ADDQ(Imm(32), x)
	ADDQ(Imm(32), y)
	DECQ(r)
	JMP(LabelRef("rot1" + suffix))
	Label("rotnext" + suffix)
}

// rotateRow4 rotates one 32-byte row of columns x and y with the two
// temporaries Y(2u), Y(2u+1), reading x and y twice from memory.
func rotateRow4(x, y Register, disp int, u int) {
	t1, t2 := []VecPhysical{Y0, Y2, Y4}[u], []VecPhysical{Y1, Y3, Y5}[u]
	VMULPD(Mem{Base: y, Disp: disp}, sRot4, t1)
	VMULPD(Mem{Base: x, Disp: disp}, sRot4, t2)
	VFMSUB231PD(Mem{Base: x, Disp: disp}, cRot4, t1) // c x - s y
	VFMADD231PD(Mem{Base: y, Disp: disp}, cRot4, t2) // c y + s x
	VMOVUPD(t1, Mem{Base: x, Disp: disp})
	VMOVUPD(t2, Mem{Base: y, Disp: disp})
}
