package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Layout of the params array of jacobi1 (float64 index; the index vectors
// hold int64 bits).
const (
	sTol2 = 0  // tol²
	sNegl = 1  // negligible threshold on squared column norms
	sOne  = 2  // 1
	sAbs  = 3  // all bits but the sign
	sSign = 4  // sign bit
	sNeg2 = 5  // jacobi1DualAVX512: the second matrix's negligible threshold
	sIdxL = 8  // [8:24] VPERMT2PD indices of the new left vectors (W of 8)
	sIdxR = 24 // [24:40] indices of the new right vectors
	sOutA = 40 // [40:56] out: squared norms of the left columns
	sOutB = 56 // [56:72] out: squared norms of the right columns
)

// jacobi1 generates the kernel for ONE matrix whose n/2 column pairs of a
// round-robin round sit in the lanes of W ZMM vectors.
//
// Layout: row r of buf is 2W vectors: the left columns L_0..L_{W-1} (lane i
// of the row = entry r of the left column of pair i), then the right
// columns R_0..R_{W-1}. The rows of A come first (rowsA of them), then the
// rows of V (rowsV, 0 for values only): the same rotations apply to both,
// the dots only to A. Lanes beyond the h pairs are zero and stay zero.
//
// One round: (1) rotation parameters of all pairs from α = Σ L², β = Σ R²,
// γ = Σ L R (computed while the previous round was applied), (2) for each
// row: rotate, permute to the next round's pairing (circle method: the
// first left column stays, the others move one place round the circle),
// store, and accumulate the next round's α, β, γ. After n'-1 rounds (a
// sweep) the columns are back in place. A sweep with no rotation in any
// lane ends the iteration; α, β then hold the exact squared column norms.
func jacobi1(W int) { jacobi1Gen(W, false, false, f64Ops) }

// jacobi1S32 generates jacobi1S32AVX512: jacobi1(1) in float32 lanes
// (sixteen pairs in one ZMM vector, n <= 32), params a [112]float32 of
// the layout s32*.
func jacobi1S32() { jacobi1Gen(1, false, false, f32Ops) }

// jacobi1Dual32 generates jacobi1Dual32AVX512: jacobi1Dual in float32
// lanes (each matrix's sixteen pairs in one vector, n <= 32); each
// matrix gets the bits jacobi1S32AVX512 gives it alone.
func jacobi1Dual32() { jacobi1Gen(2, true, false, f32Ops) }

// jacobi1Pack32 generates jacobi1Pack32AVX512: jacobi1S32 on TWO matrices
// of the same order up to 16 x 16 in ONE vector a half row, the first's
// eight pairs in lanes 0-7, the second's in lanes 8-15 (each half moving
// by its own circle: the tables of params), each with its own negligible
// threshold (params[s32Negl:] per lane); a round rotates or only
// permutes each half by that matrix's own lanes (a rotated half of a
// matrix that does not rotate is put back from the loaded row), so that
// each matrix gets the bits jacobi1S32AVX512 gives it alone.
func jacobi1Pack32() { jacobi1Gen(1, false, true, f32Ops) }

// fpOps are the instructions of one element type of the lane kernels.
type fpOps struct {
	suffix   string // of the kernel's name ("" for float64)
	size     int    // bytes an element
	lanes    int    // elements a ZMM vector
	params   int    // elements of the params array
	idxL     int    // params' index of the left permutation table
	idxR     int    // of the right one
	outA     int    // of the left columns' squared norms (out)
	outB     int    // of the right columns'
	elem     string // Go type of buf and params
	bcast    func(...Op)
	mova     func(...Op)
	movaZ    func(Op, Op, Op)
	movu     func(...Op)
	movIdx   func(...Op)
	mul      func(...Op)
	add      func(...Op)
	sub      func(...Op)
	div      func(...Op)
	sqrt     func(...Op)
	fmadd231 func(...Op)
	fmsub231 func(...Op)
	cmp      func(...Op)
	blendm   func(...Op)
	permt2   func(...Op)
}

var f64Ops = fpOps{
	size: 8, lanes: 8, params: 72, idxL: sIdxL, idxR: sIdxR, outA: sOutA, outB: sOutB, elem: "float64",
	bcast: VBROADCASTSD, mova: VMOVAPD, movaZ: VMOVAPD_Z, movu: VMOVUPD, movIdx: VMOVDQU64,
	mul: VMULPD, add: VADDPD, sub: VSUBPD, div: VDIVPD, sqrt: VSQRTPD,
	fmadd231: VFMADD231PD, fmsub231: VFMSUB231PD, cmp: VCMPPD, blendm: VBLENDMPD, permt2: VPERMT2PD,
}

// Layout of the float32 kernels' params (float32 index; the index
// vectors hold int32 bits): the scalars as sTol2..sNeg2, then 16 entries
// a permutation table and 32 (two vectors) an output.
const (
	s32IdxL = 16
	s32IdxR = 32
	s32OutA = 48
	s32OutB = 80
	s32Negl = 96 // jacobi1Pack32AVX512: the negligible threshold of each lane
	s32Len  = 112
)

var f32Ops = fpOps{
	suffix: "32", size: 4, lanes: 16, params: s32Len, idxL: s32IdxL, idxR: s32IdxR, outA: s32OutA, outB: s32OutB, elem: "float32",
	bcast: VBROADCASTSS, mova: VMOVAPS, movaZ: VMOVAPS_Z, movu: VMOVUPS, movIdx: VMOVDQU32,
	mul: VMULPS, add: VADDPS, sub: VSUBPS, div: VDIVPS, sqrt: VSQRTPS,
	fmadd231: VFMADD231PS, fmsub231: VFMSUB231PS, cmp: VCMPPS, blendm: VBLENDMPS, permt2: VPERMT2PS,
}

// jacobi1Dual generates jacobi1DualAVX512: jacobi1 on TWO matrices of the
// same order (at most 16 x 16), one per vector of W = 2: vector 0's lanes
// hold the first matrix's pairs, vector 1's the second's, each vector
// moving by the circle of one vector (W = 1's permutation), each with its
// own negligible threshold; a round rotates or only permutes each
// matrix's vector by that matrix's own lanes, so that each matrix gets
// the bits jacobi1W1AVX512 gives it alone (its sweeps after it converged
// rotate nothing and recompute the same norms). It ends when a sweep
// rotates nothing in either; their two dependency chains interleave.
func jacobi1Dual() { jacobi1Gen(2, true, false, f64Ops) }

func jacobi1Gen(W int, dual, packed bool, o fpOps) {
	name := fmt.Sprintf("jacobi1W%dAVX512", W)
	switch {
	case packed:
		name = "jacobi1Pack32AVX512"
	case dual:
		name = "jacobi1Dual" + o.suffix + "AVX512"
	case o.size == 4:
		name = "jacobi1S32AVX512"
	}
	TEXT(name, NOSPLIT, fmt.Sprintf("func(buf *%s, rowsA, rowsV, rounds int, params *[%d]%s, maxSweeps int) uint64", o.elem, o.params, o.elem))
	Pragma("noescape")
	switch {
	case packed:
		Doc(
			name+" runs jacobi1S32AVX512 on two matrices of the same order up to",
			"16 x 16 at once in one vector a half row (each row L R): the first",
			"matrix's pairs in lanes 0-7, the second's in lanes 8-15, each half",
			"moving by its own circle (params' tables), params[96:112] each lane's",
			"negligible threshold; each matrix's result has jacobi1S32AVX512's bits.",
			"It returns 0 when a sweep rotated nothing in either within maxSweeps",
			"sweeps, else 1.",
		)
	case o.size == 4 && dual:
		Doc(
			name+" runs jacobi1S32AVX512 on two matrices of the same order at once,",
			"as jacobi1DualAVX512 runs jacobi1W1AVX512: vector 0 of each half row holds",
			"the first matrix's 16 lanes, vector 1 the second's, params[1] and",
			"params[5] their negligible thresholds; each matrix's result has",
			"jacobi1S32AVX512's bits. It returns 0 when a sweep rotated nothing in",
			"either within maxSweeps sweeps, else 1.",
		)
	case o.size == 4:
		Doc(
			name+" is jacobi1W1AVX512 in float32 lanes: one-sided Jacobi on one",
			"matrix whose column pairs of a round-robin round are the 16 lanes of one",
			"ZMM vector: rowsA rows of A then rowsV rows of V, each row 2 vectors",
			"(left columns, right columns), 64-byte aligned; rounds rounds per sweep.",
			"params: tol², negligible threshold, 1, abs and sign masks, the permutation",
			"indices (int32, in), the squared column norms at convergence (out). It",
			"returns 0 when a sweep rotated nothing within maxSweeps sweeps, else 1.",
		)
	case dual:
		Doc(
			name+" runs jacobi1W1AVX512 on two matrices of the same order at once:",
			"vector 0 of each half row holds the first matrix's lanes, vector 1 the",
			"second's (each row L_0 L_1 R_0 R_1), each moving by the one-vector",
			"permutation of params' first index tables, params[1] and params[5] their",
			"negligible thresholds; each matrix's result has jacobi1W1AVX512's bits.",
			"It returns 0 when a sweep rotated nothing in either within maxSweeps",
			"sweeps, else 1.",
		)
	default:
		Doc(
			name+" runs one-sided Jacobi on one matrix whose column pairs of a",
			fmt.Sprintf("round-robin round are the lanes of %d ZMM vector(s) (see the generator", W),
			"for the layout): rowsA rows of A then rowsV rows of V, each row 2W vectors",
			"(left columns, right columns), 64-byte aligned; rounds rounds per sweep.",
			"params: tol², negligible threshold, 1, abs and sign masks, the permutation",
			"indices (in), the squared column norms at convergence (out). It returns 0",
			"when a sweep rotated nothing within maxSweeps sweeps, else 1.",
		)
	}
	ones, absM, signM, tol2, negl := Z31, Z30, Z29, Z28, Z27
	idxL := make([]VecPhysical, W)
	idxR := make([]VecPhysical, W)
	cs := make([]VecPhysical, W)
	ss := make([]VecPhysical, W)
	alpha := make([]VecPhysical, W)
	beta := make([]VecPhysical, W)
	gamma := make([]VecPhysical, W)
	next := 26
	take := func() VecPhysical { r := zreg(next); next--; return r }
	for w := 0; w < W; w++ {
		idxL[w] = take()
		idxR[w] = take()
	}
	for w := 0; w < W; w++ {
		cs[w] = take()
		ss[w] = take()
	}
	for w := 0; w < W; w++ {
		alpha[w], beta[w], gamma[w] = zreg(3*w), zreg(3*w+1), zreg(3*w+2)
	}
	cn := make([]VecPhysical, W) // next round's c, s (computed while V is rotated)
	sn := make([]VecPhysical, W)
	for w := 0; w < W; w++ {
		cn[w] = take()
		sn[w] = take()
	}
	tmp0 := 3 * W // first free temporary
	if tmp0+7 > next+1 || tmp0+4*W > next+1 {
		panic("jacobi1: out of registers")
	}
	rowBytes := 128 * W

	buf := Load(Param("buf"), GP64())
	params := Load(Param("params"), GP64())
	o.bcast(Mem{Base: params, Disp: o.size * sOne}, ones)
	o.bcast(Mem{Base: params, Disp: o.size * sAbs}, absM)
	o.bcast(Mem{Base: params, Disp: o.size * sSign}, signM)
	o.bcast(Mem{Base: params, Disp: o.size * sTol2}, tol2)
	if packed {
		o.movu(Mem{Base: params, Disp: o.size * s32Negl}, negl)
		// K4: the first matrix's lanes, K3: the second's.
		kr := GP32()
		MOVL(U32(0x00ff), kr)
		KMOVW(kr, K4)
		MOVL(U32(0xff00), kr)
		KMOVW(kr, K3)
	} else {
		o.bcast(Mem{Base: params, Disp: o.size * sNegl}, negl)
	}
	negls := []VecPhysical{negl, negl}
	if dual {
		negls[1] = idxL[1] // the second vector moves by the first's tables
		o.bcast(Mem{Base: params, Disp: o.size * sNeg2}, negls[1])
	}
	for w := 0; w < W; w++ {
		if dual && w > 0 {
			continue
		}
		o.movIdx(Mem{Base: params, Disp: o.size * (o.idxL + o.lanes*w)}, idxL[w])
		o.movIdx(Mem{Base: params, Disp: o.size * (o.idxR + o.lanes*w)}, idxR[w])
	}
	rowsA := Load(Param("rowsA"), GP64())
	sweeps := Load(Param("maxSweeps"), GP64())
	p := GP64()
	cnt := GP64()
	rnd := GP64()

	zeroAcc := func() {
		for w := 0; w < W; w++ {
			VPXORQ(alpha[w], alpha[w], alpha[w])
			VPXORQ(beta[w], beta[w], beta[w])
			VPXORQ(gamma[w], gamma[w], gamma[w])
		}
	}
	accumulate := func(l, r []VecPhysical) {
		for w := 0; w < W; w++ {
			o.fmadd231(l[w], l[w], alpha[w])
			o.fmadd231(r[w], r[w], beta[w])
			o.fmadd231(r[w], l[w], gamma[w])
		}
	}

	Comment("dots of the first round")
	zeroAcc()
	MOVQ(buf, p)
	MOVQ(rowsA, cnt)
	Label("d0")
	{
		l := make([]VecPhysical, W)
		r := make([]VecPhysical, W)
		for w := 0; w < W; w++ {
			l[w], r[w] = zreg(tmp0+2*w), zreg(tmp0+2*w+1)
			o.mova(Mem{Base: p, Disp: 64 * w}, l[w])
			o.mova(Mem{Base: p, Disp: 64 * (W + w)}, r[w])
		}
		accumulate(l, r)
	}
	ADDQ(U32(rowBytes), p)
	DECQ(cnt)
	JNZ(LabelRef("d0"))

	// params emits the rotation parameters of all pairs from alpha, beta,
	// gamma into cn, sn, and K1 (K3): the lanes that rotate.
	masks := []OpmaskPhysical{K1, K3}
	emitParams := func() {
		for w := 0; w < W; w++ {
			a, b, g := alpha[w], beta[w], gamma[w]
			k := masks[w]
			t := func(i int) VecPhysical { return zreg(tmp0 + i) }
			o.mul(g, g, t(0))
			o.mul(b, a, t(1))
			o.mul(tol2, t(1), t(1))
			o.cmp(Imm(0x1e), t(1), t(0), k) // γ² > tol² α β
			o.cmp(Imm(0x1e), negls[w], a, k, k)
			o.cmp(Imm(0x1e), negls[w], b, k, k)
			Comment("t = sign(d) 2γ / (|d| + sqrt(d² + 4γ²)), d = β - α; c = 1/sqrt(1+t²), s = c t")
			o.sub(a, b, t(2))
			o.add(g, g, t(3))
			o.mul(t(3), t(3), t(4))
			o.fmadd231(t(2), t(2), t(4))
			o.sqrt(t(4), t(4))
			VPANDQ(t(2), absM, t(5))
			o.add(t(5), t(4), t(4))
			VPANDQ(t(2), signM, t(5))
			VPXORQ(t(5), t(3), t(3))
			o.div(t(4), t(3), t(3))
			o.mova(ones, t(4))
			o.fmadd231(t(3), t(3), t(4))
			o.sqrt(t(4), t(4))
			o.div(t(4), ones, t(5))
			o.mul(t(3), t(5), t(6))
			o.blendm(t(5), ones, k, cn[w])
			o.movaZ(t(6), k, sn[w])
		}
		if W == 1 {
			KMOVW(K1, K5)
		} else {
			KORW(K1, K3, K5)
		}
	}
	// advance moves the next round's parameters into c, s.
	advance := func() {
		for w := 0; w < W; w++ {
			o.mova(cn[w], cs[w])
			o.mova(sn[w], ss[w])
		}
		KMOVW(K5, K6) // K6: lanes of the current round that rotate
		if dual {
			KMOVW(K1, K4) // each matrix's rotating lanes of the current round
			KMOVW(K3, K7)
		}
	}

	// rows emits the loop over cnt rows from p: load, (rotate), permute,
	// store, (accumulate).
	// keep (packed) names the lanes of a rotated vector put back from the
	// loaded row: the half of a matrix that does not rotate this round.
	rows := func(label string, rot []bool, dots bool, keep Op) {
		Label(label)
		x := make([]VecPhysical, W)
		y := make([]VecPhysical, W)
		xr := make([]VecPhysical, W)
		yr := make([]VecPhysical, W)
		for w := 0; w < W; w++ {
			x[w], y[w] = zreg(tmp0+4*w), zreg(tmp0+4*w+1)
			xr[w], yr[w] = zreg(tmp0+4*w+2), zreg(tmp0+4*w+3)
			if rot[w] {
				o.mova(Mem{Base: p, Disp: 64 * w}, x[w])
				o.mova(Mem{Base: p, Disp: 64 * (W + w)}, y[w])
				o.mul(y[w], ss[w], xr[w])
				o.mul(x[w], ss[w], yr[w])
				o.fmsub231(x[w], cs[w], xr[w]) // c x - s y
				o.fmadd231(y[w], cs[w], yr[w]) // c y + s x
				if keep != nil {
					o.mova(x[w], keep, xr[w])
					o.mova(y[w], keep, yr[w])
				}
			} else {
				o.mova(Mem{Base: p, Disp: 64 * w}, xr[w])
				o.mova(Mem{Base: p, Disp: 64 * (W + w)}, yr[w])
			}
		}
		// New left vectors: L'_0 from (L_0, R_0), L'_w from (L_{w-1}, L_w);
		// new right vectors: R'_w from (R_w, R_{w+1}), the last from
		// (R_{W-1}, L_{W-1}). Outputs go to x, y (free now).
		for w := 0; w < W; w++ {
			if dual {
				o.mova(xr[w], x[w])
				o.permt2(yr[w], idxL[0], x[w])
				o.mova(yr[w], y[w])
				o.permt2(xr[w], idxR[0], y[w])
				continue
			}
			if w == 0 {
				o.mova(xr[0], x[0])
				o.permt2(yr[0], idxL[0], x[0])
			} else {
				o.mova(xr[w-1], x[w])
				o.permt2(xr[w], idxL[w], x[w])
			}
			if w < W-1 {
				o.mova(yr[w], y[w])
				o.permt2(yr[w+1], idxR[w], y[w])
			} else {
				o.mova(yr[w], y[w])
				o.permt2(xr[w], idxR[w], y[w])
			}
		}
		for w := 0; w < W; w++ {
			o.mova(x[w], Mem{Base: p, Disp: 64 * w})
			o.mova(y[w], Mem{Base: p, Disp: 64 * (W + w)})
		}
		if dots {
			accumulate(x, y)
		}
		ADDQ(U32(rowBytes), p)
		DECQ(cnt)
		JNZ(LabelRef(label))
	}
	Comment("parameters of the first round")
	emitParams()
	advance()

	Label("sweep")
	KXORW(K2, K2, K2)
	Load(Param("rounds"), rnd)

	Label("round")
	Comment("K2 |= lanes rotating in this round; A rows, then the next round's")
	Comment("parameters (their latency overlaps the V rows), then V rows")
	KORW(K6, K2, K2)
	zeroAcc()
	MOVQ(buf, p)
	MOVQ(rowsA, cnt)
	// rowsBy emits the row loops of one part (A: dots) for the round's
	// masks: one loop rotating or only permuting all vectors, or (dual)
	// one per combination of the two matrices' own masks (K4, K7).
	rowsBy := func(part string, dots bool, done string) {
		if packed {
			// Each half's rotating lanes: K6 ∧ K4 (first), K6 ∧ K3.
			KANDW(K6, K4, K7)
			KORTESTW(K7, K7)
			JZ(LabelRef(part + "a0"))
			KANDW(K6, K3, K7)
			KORTESTW(K7, K7)
			JZ(LabelRef(part + "only0"))
			JMP(LabelRef(part + "both"))
			Label(part + "a0")
			KANDW(K6, K3, K7)
			KORTESTW(K7, K7)
			JZ(LabelRef(part + "none"))
			rows(part+"only1", []bool{true}, dots, K4)
			JMP(LabelRef(done))
			rows(part+"only0", []bool{true}, dots, K3)
			JMP(LabelRef(done))
			rows(part+"both", []bool{true}, dots, nil)
			JMP(LabelRef(done))
			rows(part+"none", []bool{false}, dots, nil)
			return
		}
		if !dual {
			all := make([]bool, W)
			for w := range all {
				all[w] = true
			}
			KORTESTW(K6, K6)
			JZ(LabelRef("perm" + part))
			rows("rot"+part, all, dots, nil)
			JMP(LabelRef(done))
			rows("perm"+part, make([]bool, W), dots, nil)
			return
		}
		combos := [][]bool{{true, true}, {true, false}, {false, true}, {false, false}}
		lbl := func(c []bool) string { return fmt.Sprintf("%s%v%v", part, c[0], c[1]) }
		KORTESTW(K4, K4)
		JZ(LabelRef(part + "a0"))
		KORTESTW(K7, K7)
		JZ(LabelRef(lbl(combos[1])))
		JMP(LabelRef(lbl(combos[0])))
		Label(part + "a0")
		KORTESTW(K7, K7)
		JZ(LabelRef(lbl(combos[3])))
		JMP(LabelRef(lbl(combos[2])))
		for i, c := range combos {
			rows(lbl(c), c, dots, nil)
			if i < len(combos)-1 {
				JMP(LabelRef(done))
			}
		}
	}
	rowsBy("a", true, "adone")
	Label("adone")
	emitParams()
	Load(Param("rowsV"), cnt)
	TESTQ(cnt, cnt)
	JZ(LabelRef("next"))
	rowsBy("v", false, "next")
	Label("next")
	advance()
	DECQ(rnd)
	JNZ(LabelRef("round"))

	endSweep(sweeps, params, alpha, beta, o.outA, o.outB, o)
}

// endSweep emits the end of a sweep of the lane kernels (jacobi1,
// jacobi1b): another sweep ("sweep") if some lane rotated (K2) and sweeps
// are left, else return 1; at convergence the squared norms of the left
// and right columns (l, r) go to params[outL+8w:], params[outR+8w:] and
// it returns 0.
func endSweep(sweeps, params Register, l, r []VecPhysical, outL, outR int, o fpOps) {
	KORTESTW(K2, K2)
	JZ(LabelRef("converged"))
	DECQ(sweeps)
	JNZ(LabelRef("sweep"))
	ret := GP64()
	MOVQ(U32(1), ret)
	Store(ret, ReturnIndex(0))
	VZEROUPPER()
	RET()

	Label("converged")
	for w := range l {
		o.movu(l[w], Mem{Base: params, Disp: o.size * (outL + o.lanes*w)})
		o.movu(r[w], Mem{Base: params, Disp: o.size * (outR + o.lanes*w)})
	}
	XORQ(ret, ret)
	Store(ret, ReturnIndex(0))
	VZEROUPPER()
	RET()
}
