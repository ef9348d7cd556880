package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// jacobi4AVX2 is the AVX2 (+FMA) form of jacobi8AVX512 for CPUs without
// AVX-512: a group of 4 matrices, one per 64-bit lane of a YMM register,
// column c row r in the 32-byte vector c*n+r. AVX2 has no mask registers:
// the lanes that rotate are a compare result ANDed into t (t = 0 gives
// c = 1, s = 0 exactly), and VMOVMSKPD tells whether any lane rotates. The
// rotation c x - s y, s x + c y with c = 1, s = 0 keeps x and y except the
// sign of a zero (-0 - (-0) = +0): where the lanes must give the same bits
// as each one alone (params[7], the exact lanes: a Small pair), a pair
// that rotates in some but not all of those lanes is rotated with a blend
// that keeps the lanes that do not rotate. The
// parameters use VSQRTPD and VDIVPD (AVX2 has no double-precision
// reciprocal estimates). A round is done in three passes (dots,
// parameters, rotations), so that the parameter chains of its n/2 disjoint
// pairs (about 70 cycles of latency each on Zen 3) are in flight together.
// Constants in Y12-Y15.
var (
	ones4 = Y15 // 1.0
	tol4  = Y14 // tol²
	negl4 = Y13 // per-lane negligible threshold on squared column norms
	absM4 = Y12 // ^sign bit
)

// Layout of the params array of jacobi4AVX2 (float64 index).
const (
	qNegl = 0 // [0:4] per-lane negligible threshold
	qTol  = 4 // tol²
	qOne  = 5 // 1
	qAbs  = 6 // all bits but the sign
	qLive = 7 // the exact lanes (an integer bit mask, not a float64)
)

func jacobi4() { jacobi4Gen(false, 1) }

// jacobi4x2 is jacobi4 on two groups of 4 matrices at once (Batch.Values
// of 5 to 8 matrices): each pass of a round does a pair of the first group
// and then the same pair of the second, so that the latency-bound chains
// of small matrices' rotation parameters (d = 5: two pairs a round) have
// twice as many independent chains in flight. Each lane's operations are
// jacobi4's: the same bits.
func jacobi4x2() { jacobi4Gen(false, 2) }

// jacobi4s is jacobi4 on the split layout: each matrix in two adjacent
// lanes, its even rows in the first, its odd rows in the second (column c,
// rows 2k and 2k+1 in the 32-byte vector c*(n+nv)+k, n and nv now counting
// vectors). Each lane's arithmetic is the same sequence of operations as
// in jacobi4, so a matrix gets jacobi4's bits in half the vector
// instructions for its dots and rotations:
//   - jacobi4's norm sums two chains, the even rows and the odd rows, then
//     adds them: here the chains are the two lanes, added across them;
//   - its dot product sums four chains, rows 4j+u in chain u (u < 4), then
//     the last rows mod 4 into chain 0 one by one, and returns
//     (c0 + c1) + (c2 + c3): here chains 0 and 1 are the lanes of one
//     accumulator (the even vectors), 2 and 3 of another (the odd ones),
//     and the last rows are added into the first lane alone (a blend), the
//     second of them moved there by a permute;
//   - the rotations are element by element.
//
// A lane pair past the last row holds zeros, which stay zero and are
// added only to the sums of squares (x + 0 = x there: those sums are
// never -0).
func jacobi4s() { jacobi4Gen(true, 1) }

func jacobi4Gen(split bool, groups int) {
	name, sig := "jacobi4AVX2", "func(buf *float64, n, nv int, pairs *int64, ppr, rounds int, params *[8]float64, norms *float64, scratch *float64, maxSweeps int) uint64"
	if split {
		name, sig = "jacobi4sAVX2", "func(buf *float64, n, nv int, pairs *int64, ppr, rounds int, params *[8]float64, norms *float64, scratch *float64, maxSweeps int, rows int) uint64"
	}
	if groups == 2 {
		name, sig = "jacobi4x2AVX2", "func(buf *float64, n, nv int, pairs *int64, ppr, rounds int, params *[8]float64, norms *float64, scratch *float64, maxSweeps int, buf2 *float64, params2 *[8]float64, norms2 *float64) uint64"
	}
	// A pair's slot of scratch: γ, c, s and the lanes that rotate of each
	// group, 128 bytes a group.
	var slotImm Op = Imm(128)
	if groups == 2 {
		slotImm = U32(256)
	}
	TEXT(name, NOSPLIT, sig)
	Pragma("noescape")
	if groups == 2 {
		Doc(
			"jacobi4x2AVX2 is jacobi4AVX2 on two groups of 4 matrices: the second group's",
			"matrices, per-lane thresholds (params2[0:4]) and norms at buf2, params2 and",
			"norms2, both groups' pairs in the same passes (scratch: 32*ppr float64).",
			"It returns the lanes that rotated in the last sweep, the second group's as",
			"bits 4-7; each lane's result has the bits jacobi4AVX2 gives it.",
		)
	} else if split {
		Doc(
			"jacobi4sAVX2 is jacobi4AVX2 on two matrices split over lane pairs (0, 1)",
			"and (2, 3): rows 2k and 2k+1 of column c of a matrix in the lanes of its",
			"pair of the 32-byte vector c*(n+nv)+k, n and nv counting vectors; rows is",
			"the order of the matrices. A matrix's result, norms included (in both",
			"lanes of its pair), has the bits jacobi4AVX2 gives it in one lane.",
		)
	} else {
		Doc(
			"jacobi4AVX2 runs one-sided Jacobi on a group of 4 lane-interleaved n x n",
			"matrices (column c, row r in the 32-byte vector c*(n+nv)+r, lane l holding",
			"matrix l; rows n..n+nv-1 of a column are rotated with it but not in its dot",
			"products and norms: V) until a whole sweep rotates nothing in any lane, or for maxSweeps",
			"sweeps. pairs holds rounds x ppr quadruples of byte offsets (p*(n+nv)*32,",
			"q*(n+nv)*32, p*32, q*32): the disjoint column pairs of each round of a sweep and",
			"their entries in norms (n vectors, the squared column norms: recomputed",
			"at the start of each sweep, updated after each rotation; at convergence",
			"the exact sums of squares of the last sweep). scratch: 16*ppr float64.",
			"params: [0:4] per-lane threshold on squared norms below which a column is",
			"not rotated, [4] tol², [5] 1, [6] the mask of all bits but the sign, [7]",
			"(the bits of an integer) the exact lanes: a pair of columns that rotates",
			"in some but not all of them keeps the others bit for bit (signs of zeros",
			"included), so that each of these lanes gives the bits it gives alone. It",
			"returns the mask of the lanes that rotated in the last sweep (0: all",
			"converged). ppr >= 1.",
		)
	}
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
	cur, pp, i, x, y, r, sc := GP64(), GP64(), GP64(), GP64(), GP64(), GP64(), GP64()
	anyRot := GP64() // lanes that rotated in this sweep
	flag := GP64()   // lanes that rotate in the current pair

	Label("sweep")
	XORQ(anyRot, anyRot)
	Load(Param("pairs"), cur)
	if split {
		norms4s(buf, x, y, i, r)
	} else {
		norms4(buf, "norms", x, y, i, r, "")
		if groups == 2 {
			norms4(paramMem("buf2"), "norms2", x, y, i, r, "g2")
		}
	}

	Label("round")
	Comment("a round in three passes over its disjoint pairs: the dot products, the")
	Comment("rotation parameters (independent chains of divisions and square roots")
	Comment("that overlap), the rotations; γ, c, s and the lanes that rotate of")
	Comment("pair k at scratch[16k:16k+13]")
	MOVQ(cur, pp)
	Load(Param("scratch"), sc)
	Load(Param("ppr"), i)
	Label("dots")
	if split {
		pairDot4s(buf, pp, x, y, r)
	} else {
		pairDot4(buf, pp, 0, x, y, r, "")
	}
	VMOVUPD(Y0, Mem{Base: sc})
	if groups == 2 {
		pairDot4(paramMem("buf2"), pp, 0, x, y, r, "g2")
		VMOVUPD(Y0, Mem{Base: sc, Disp: 128})
	}
	ADDQ(Imm(32), pp)
	ADDQ(slotImm, sc)
	DECQ(i)
	JNZ(LabelRef("dots"))

	MOVQ(cur, pp)
	Load(Param("scratch"), sc)
	Load(Param("ppr"), i)
	if groups == 1 {
		Load(Param("norms"), x)
	}
	Label("params")
	if groups == 2 {
		Load(Param("norms"), x)
	}
	batchParams4(pp, sc, 0, x, y, r, flag, anyRot, nil, 0, "pskip")
	if groups == 2 {
		Load(Param("norms2"), x)
		p2 := paramMem("params2")
		batchParams4(pp, sc, 128, x, y, r, flag, anyRot, &p2, 4, "pskipg2")
	}
	ADDQ(Imm(32), pp)
	ADDQ(slotImm, sc)
	DECQ(i)
	JNZ(LabelRef("params"))

	MOVQ(cur, pp)
	Load(Param("scratch"), sc)
	Load(Param("ppr"), i)
	Label("rots")
	rotatePair4(buf, pp, sc, 0, x, y, r, "")
	if groups == 2 {
		rotatePair4(paramMem("buf2"), pp, sc, 128, x, y, r, "g2")
	}
	ADDQ(Imm(32), pp)
	ADDQ(slotImm, sc)
	DECQ(i)
	JNZ(LabelRef("rots"))

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

// norms4 emits norms[c] = Σ_r buf[c][r]² for the n columns (buf a
// register or the frame's argument; norms the name of the argument).
func norms4(buf Op, norms string, x, y, i, r Register, suffix string) {
	Comment("norms[c] = Σ_r buf[c][r]², exact at the start of every sweep")
	MOVQ(buf, x)
	Load(Param(norms), y)
	Load(Param("n"), i)
	Label("norm" + suffix)
	VXORPD(Y0, Y0, Y0)
	VXORPD(Y1, Y1, Y1)
	Load(Param("n"), r)
	Label("norm2" + suffix)
	CMPQ(r, Imm(2))
	JL(LabelRef("norm1" + suffix))
	VMOVUPD(Mem{Base: x}, Y2)
	VMOVUPD(Mem{Base: x, Disp: 32}, Y3)
	VFMADD231PD(Y2, Y2, Y0)
	VFMADD231PD(Y3, Y3, Y1)
	ADDQ(Imm(64), x)
	SUBQ(Imm(2), r)
	JMP(LabelRef("norm2" + suffix))
	Label("norm1" + suffix)
	TESTQ(r, r)
	JZ(LabelRef("normdone" + suffix))
	VMOVUPD(Mem{Base: x}, Y2)
	VFMADD231PD(Y2, Y2, Y0)
	ADDQ(Imm(32), x)
	Label("normdone" + suffix)
	VADDPD(Y1, Y0, Y0)
	nextNorm(x, y, i, r, "norm"+suffix)
}

// nextNorm ends a column of norms4 or norms4s: it stores Y0 at y (the
// column's squared norm), moves y on, takes x past the column's V rows
// and loops to label while columns are left (i).
func nextNorm(x, y, i, r Register, label string) {
	VMOVUPD(Y0, Mem{Base: y})
	ADDQ(Imm(32), y)
	Load(Param("nv"), r)
	SHLQ(Imm(5), r)
	ADDQ(r, x) // skip the V rows
	DECQ(i)
	JNZ(LabelRef(label))
}

// norms4s is norms4 on the split layout: one chain per lane over the n
// vectors of a column, then the two lanes of a matrix added.
func norms4s(buf, x, y, i, r Register) {
	Comment("norms[c] = Σ_r buf[c][r]²: even rows + odd rows, exact at the start of every sweep")
	MOVQ(buf, x)
	Load(Param("norms"), y)
	Load(Param("rows"), i)
	Label("snorm")
	VXORPD(Y0, Y0, Y0)
	Load(Param("n"), r)
	Label("snorm1")
	VMOVUPD(Mem{Base: x}, Y2)
	VFMADD231PD(Y2, Y2, Y0)
	ADDQ(Imm(32), x)
	DECQ(r)
	JNZ(LabelRef("snorm1"))
	VPERMILPD(Imm(5), Y0, Y1)
	VADDPD(Y1, Y0, Y0)
	nextNorm(x, y, i, r, "snorm")
}

// pairDot4s emits pairDot4's γ on the split layout (into Y0, in both lanes
// of each matrix): chains 0 and 1 in Y0 (even vectors), 2 and 3 in Y1 (odd
// vectors), the rows mod 4 into lane 0 of each pair by blends.
func pairDot4s(buf, pp, x, y, r Register) {
	MOVQ(Mem{Base: pp}, x)
	MOVQ(Mem{Base: pp, Disp: 8}, y)
	ADDQ(buf, x)
	ADDQ(buf, y)
	VXORPD(Y0, Y0, Y0)
	VXORPD(Y1, Y1, Y1)
	Load(Param("rows"), r)
	SHRQ(Imm(2), r)
	JZ(LabelRef("sdot4done"))
	Label("sdot4")
	VMOVUPD(Mem{Base: x}, Y4)
	VFMADD231PD(Mem{Base: y}, Y4, Y0)
	VMOVUPD(Mem{Base: x, Disp: 32}, Y5)
	VFMADD231PD(Mem{Base: y, Disp: 32}, Y5, Y1)
	ADDQ(Imm(64), x)
	ADDQ(Imm(64), y)
	DECQ(r)
	JNZ(LabelRef("sdot4"))
	Label("sdot4done")
	Comment("the last rows mod 4, one by one into chain 0 (lanes 0 and 2)")
	Load(Param("rows"), r)
	ANDQ(Imm(3), r)
	JZ(LabelRef("sdotsum"))
	VMOVUPD(Mem{Base: x}, Y4)
	VMOVUPD(Mem{Base: y}, Y5)
	VMOVAPD(Y0, Y6)
	VFMADD231PD(Y5, Y4, Y6)
	VBLENDPD(Imm(0b0101), Y6, Y0, Y0)
	CMPQ(r, Imm(2))
	JL(LabelRef("sdotsum"))
	VPERMILPD(Imm(5), Y4, Y4)
	VPERMILPD(Imm(5), Y5, Y5)
	VMOVAPD(Y0, Y6)
	VFMADD231PD(Y5, Y4, Y6)
	VBLENDPD(Imm(0b0101), Y6, Y0, Y0)
	CMPQ(r, Imm(3))
	JL(LabelRef("sdotsum"))
	VMOVUPD(Mem{Base: x, Disp: 32}, Y4)
	VMOVAPD(Y0, Y6)
	VFMADD231PD(Mem{Base: y, Disp: 32}, Y4, Y6)
	VBLENDPD(Imm(0b0101), Y6, Y0, Y0)
	Label("sdotsum")
	Comment("(c0 + c1) + (c2 + c3)")
	VPERMILPD(Imm(5), Y0, Y2)
	VADDPD(Y2, Y0, Y0)
	VPERMILPD(Imm(5), Y1, Y3)
	VADDPD(Y3, Y1, Y1)
	VADDPD(Y1, Y0, Y0)
}

// pairDot4 emits γ = x·y (into Y0) of the pair at pp+off: rows in blocks
// of 4 (four accumulators, y as a memory operand), one index register.
func pairDot4(buf Op, pp Register, off int, x, y, r Register, suffix string) {
	MOVQ(Mem{Base: pp, Disp: off}, x)
	MOVQ(Mem{Base: pp, Disp: off + 8}, y)
	ADDQ(buf, x)
	ADDQ(buf, y)
	VXORPD(Y0, Y0, Y0)
	VXORPD(Y1, Y1, Y1)
	VXORPD(Y2, Y2, Y2)
	VXORPD(Y3, Y3, Y3)
	rowLoop4(x, y, r, "dot"+suffix, false, func(disp int, u int) {
		t := []VecPhysical{Y4, Y5, Y6, Y7}[u]
		VMOVUPD(Mem{Base: x, Disp: disp}, t)
		VFMADD231PD(Mem{Base: y, Disp: disp}, t, []VecPhysical{Y0, Y1, Y2, Y3}[u])
	})
	VADDPD(Y1, Y0, Y0)
	VADDPD(Y3, Y2, Y2)
	VADDPD(Y2, Y0, Y0)
}

// rowLoop4 emits body(disp, u) for the n rows of columns x and y (n, and
// if withV n+nv, from the frame): in blocks of 4 rows (u = 0..3, disp = 32u), then one row at a
// time (u = 0). x and y are advanced; r is clobbered.
func rowLoop4(x, y, r Register, name string, withV bool, body func(disp, u int)) {
	Load(Param("n"), r)
	if withV {
		nv := GP64()
		Load(Param("nv"), nv)
		ADDQ(nv, r)
	}
	CMPQ(r, Imm(4))
	JL(LabelRef(name + "1"))
	Label(name + "4")
	for u := 0; u < 4; u++ {
		body(32*u, u)
	}
	ADDQ(U32(128), x)
	ADDQ(U32(128), y)
	SUBQ(Imm(4), r)
	CMPQ(r, Imm(4))
	JGE(LabelRef(name + "4"))
	Label(name + "1")
	TESTQ(r, r)
	JZ(LabelRef(name + "done"))
	Label(name + "1l")
	body(0, 0)
	ADDQ(Imm(32), x)
	ADDQ(Imm(32), y)
	DECQ(r)
	JNZ(LabelRef(name + "1l"))
	Label(name + "done")
}

// batchParams4 emits the rotation of the pair at pp with γ at sc+so: α, β
// from the norms at x (y and r: offsets); it writes c and s to sc+so+32,
// sc+so+64, the lanes that rotate to sc+so+96 (0: none, then c and s are
// not written) and as a vector mask over γ at sc+so, ORs them (shifted
// left by shift) into anyRot and updates the norms. The lanes' negligible
// thresholds are negl4, or where negl is set the 4 float64 its frame
// argument points to.
func batchParams4(pp, sc Register, so int, x, y, r Register, flag GPVirtual, anyRot Register, negl *Mem, shift int, skip string) {
	alpha, beta, mask, gamma := Y0, Y1, Y2, Y6
	MOVQ(Mem{Base: pp, Disp: 16}, y)
	MOVQ(Mem{Base: pp, Disp: 24}, r)
	VMOVUPD(Mem{Base: sc, Disp: so}, gamma)
	VMOVUPD(Mem{Base: x, Index: y, Scale: 1}, alpha)
	VMOVUPD(Mem{Base: x, Index: r, Scale: 1}, beta)
	Comment("mask = γ² > tol² α β && α > negl && β > negl")
	VMULPD(gamma, gamma, mask)
	VMULPD(beta, alpha, Y3)
	VMULPD(tol4, Y3, Y3)
	VCMPPD(Imm(0x1e), Y3, mask, mask) // GT_OQ
	var nl Op = negl4
	if negl != nil {
		// The group's thresholds at the argument's [0:4] (flag is free
		// until the mask's bits go into it).
		MOVQ(*negl, flag)
		nl = Mem{Base: flag}
	}
	VCMPPD(Imm(0x1e), nl, alpha, Y3)
	VANDPD(Y3, mask, mask)
	VCMPPD(Imm(0x1e), nl, beta, Y3)
	VANDPD(Y3, mask, mask)
	VMOVMSKPD(mask, flag.As32())
	MOVQ(flag, Mem{Base: sc, Disp: so + 96})
	TESTQ(flag, flag)
	JZ(LabelRef(skip))
	if shift > 0 {
		SHLQ(Imm(uint64(shift)), flag)
	}
	ORQ(flag, anyRot)
	VMOVUPD(mask, Mem{Base: sc, Disp: so}) // for a blended rotation (γ is in a register)
	Comment("t = sign(d) g2 / (|d| + sqrt(d² + g2²)), d = β - α, g2 = 2γ; 0 where no rotation")
	VSUBPD(alpha, beta, Y3) // d
	VADDPD(gamma, gamma, Y4)
	VMULPD(Y4, Y4, Y5)
	VFMADD231PD(Y3, Y3, Y5)
	VSQRTPD(Y5, Y5)
	VANDPD(absM4, Y3, Y7) // |d|
	VADDPD(Y7, Y5, Y7)
	VANDNPD(Y3, absM4, Y3) // sign bit of d
	VXORPD(Y3, Y4, Y4)
	VDIVPD(Y7, Y4, Y4)
	VANDPD(mask, Y4, Y4) // t (NaN from 0/0 in a zero lane becomes 0)
	Comment("c = 1/sqrt(1 + t²) (exactly 1 where t = 0), s = c t")
	VMOVAPD(ones4, Y5)
	VFMADD231PD(Y4, Y4, Y5)
	VSQRTPD(Y5, Y5)
	VDIVPD(Y5, ones4, Y5)
	VMULPD(Y4, Y5, Y3)
	VMOVUPD(Y5, Mem{Base: sc, Disp: so + 32})
	VMOVUPD(Y3, Mem{Base: sc, Disp: so + 64})
	Comment("α' = α - t γ, β' = β + t γ")
	VFNMADD231PD(gamma, Y4, alpha)
	VFMADD231PD(gamma, Y4, beta)
	VMOVUPD(alpha, Mem{Base: x, Index: y, Scale: 1})
	VMOVUPD(beta, Mem{Base: x, Index: r, Scale: 1})
	Label(skip)
}

// rotatePair4 emits x, y = c x - s y, s x + c y for the pair at pp of the
// matrices at buf (a register or a frame argument) with c, s at sc+so+32,
// sc+so+64, if it rotates in some lane (sc+so+96 != 0); if it rotates in
// some but not all of the exact lanes (params[7]), the lanes that do not
// rotate (the mask at sc) keep x and y as they are.
func rotatePair4(buf Op, pp, sc Register, so int, x, y, r Register, suffix string) {
	c, s, keep := Y8, Y9, Y10
	CMPQ(Mem{Base: sc, Disp: so + 96}, Imm(0))
	JE(LabelRef("rotnext" + suffix))
	MOVQ(Mem{Base: pp}, x)
	MOVQ(Mem{Base: pp, Disp: 8}, y)
	ADDQ(buf, x)
	ADDQ(buf, y)
	VMOVUPD(Mem{Base: sc, Disp: so + 32}, c)
	VMOVUPD(Mem{Base: sc, Disp: so + 64}, s)
	Comment("flags & exact != exact: blend")
	f := GP64()
	MOVQ(Mem{Base: sc, Disp: so + 96}, f)
	Load(Param("params"), r)
	MOVQ(Mem{Base: r, Disp: 8 * qLive}, r)
	ANDQ(r, f)
	CMPQ(f, r)
	JNE(LabelRef("rotblend" + suffix))
	// One row: x and y as memory operands, six instructions (eight with
	// the blend, which keeps x and y in the lanes of keep).
	row := func(blend bool) func(disp, u int) {
		return func(disp, u int) {
			t1, t2 := []VecPhysical{Y0, Y2, Y4, Y6}[u], []VecPhysical{Y1, Y3, Y5, Y7}[u]
			VMULPD(Mem{Base: y, Disp: disp}, s, t1)
			VMULPD(Mem{Base: x, Disp: disp}, s, t2)
			VFMSUB231PD(Mem{Base: x, Disp: disp}, c, t1) // c x - s y
			VFMADD231PD(Mem{Base: y, Disp: disp}, c, t2) // c y + s x
			if blend {
				VBLENDVPD(keep, Mem{Base: x, Disp: disp}, t1, t1) // keep ? x : c x - s y
				VBLENDVPD(keep, Mem{Base: y, Disp: disp}, t2, t2)
			}
			VMOVUPD(t1, Mem{Base: x, Disp: disp})
			VMOVUPD(t2, Mem{Base: y, Disp: disp})
		}
	}
	rowLoop4(x, y, r, "rot"+suffix, true, row(false))
	JMP(LabelRef("rotnext" + suffix))

	Label("rotblend" + suffix)
	Comment("keep = the lanes that do not rotate")
	VPCMPEQQ(keep, keep, keep)
	VXORPD(Mem{Base: sc, Disp: so}, keep, keep)
	rowLoop4(x, y, r, "rotb"+suffix, true, row(true))
	Label("rotnext" + suffix)
}

// paramMem returns the frame slot of the argument name.
func paramMem(name string) Mem {
	b, err := Param(name).Resolve()
	if err != nil {
		panic(err)
	}
	return b.Addr
}
