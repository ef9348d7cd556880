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
func jacobi1(W int) { jacobi1Gen(W, false) }

// jacobi1Dual generates jacobi1DualAVX512: jacobi1 on TWO matrices of the
// same order (at most 16 x 16), one per vector of W = 2: vector 0's lanes
// hold the first matrix's pairs, vector 1's the second's, each vector
// moving by the circle of one vector (W = 1's permutation), each with its
// own negligible threshold; a round rotates or only permutes each
// matrix's vector by that matrix's own lanes, so that each matrix gets
// the bits jacobi1W1AVX512 gives it alone (its sweeps after it converged
// rotate nothing and recompute the same norms). It ends when a sweep
// rotates nothing in either; their two dependency chains interleave.
func jacobi1Dual() { jacobi1Gen(2, true) }

func jacobi1Gen(W int, dual bool) {
	name := fmt.Sprintf("jacobi1W%dAVX512", W)
	if dual {
		name = "jacobi1DualAVX512"
	}
	TEXT(name, NOSPLIT, "func(buf *float64, rowsA, rowsV, rounds int, params *[72]float64, maxSweeps int) uint64")
	Pragma("noescape")
	if dual {
		Doc(
			name+" runs jacobi1W1AVX512 on two matrices of the same order at once:",
			"vector 0 of each half row holds the first matrix's lanes, vector 1 the",
			"second's (each row L_0 L_1 R_0 R_1), each moving by the one-vector",
			"permutation of params' first index tables, params[1] and params[5] their",
			"negligible thresholds; each matrix's result has jacobi1W1AVX512's bits.",
			"It returns 0 when a sweep rotated nothing in either within maxSweeps",
			"sweeps, else 1.",
		)
	} else {
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
	VBROADCASTSD(Mem{Base: params, Disp: 8 * sOne}, ones)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * sAbs}, absM)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * sSign}, signM)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * sTol2}, tol2)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * sNegl}, negl)
	negls := []VecPhysical{negl, negl}
	if dual {
		negls[1] = idxL[1] // the second vector moves by the first's tables
		VBROADCASTSD(Mem{Base: params, Disp: 8 * sNeg2}, negls[1])
	}
	for w := 0; w < W; w++ {
		if dual && w > 0 {
			continue
		}
		VMOVDQU64(Mem{Base: params, Disp: 8 * (sIdxL + 8*w)}, idxL[w])
		VMOVDQU64(Mem{Base: params, Disp: 8 * (sIdxR + 8*w)}, idxR[w])
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
			VFMADD231PD(l[w], l[w], alpha[w])
			VFMADD231PD(r[w], r[w], beta[w])
			VFMADD231PD(r[w], l[w], gamma[w])
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
			VMOVAPD(Mem{Base: p, Disp: 64 * w}, l[w])
			VMOVAPD(Mem{Base: p, Disp: 64 * (W + w)}, r[w])
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
			VMULPD(g, g, t(0))
			VMULPD(b, a, t(1))
			VMULPD(tol2, t(1), t(1))
			VCMPPD(Imm(0x1e), t(1), t(0), k) // γ² > tol² α β
			VCMPPD(Imm(0x1e), negls[w], a, k, k)
			VCMPPD(Imm(0x1e), negls[w], b, k, k)
			Comment("t = sign(d) 2γ / (|d| + sqrt(d² + 4γ²)), d = β - α; c = 1/sqrt(1+t²), s = c t")
			VSUBPD(a, b, t(2))
			VADDPD(g, g, t(3))
			VMULPD(t(3), t(3), t(4))
			VFMADD231PD(t(2), t(2), t(4))
			VSQRTPD(t(4), t(4))
			VPANDQ(t(2), absM, t(5))
			VADDPD(t(5), t(4), t(4))
			VPANDQ(t(2), signM, t(5))
			VPXORQ(t(5), t(3), t(3))
			VDIVPD(t(4), t(3), t(3))
			VMOVAPD(ones, t(4))
			VFMADD231PD(t(3), t(3), t(4))
			VSQRTPD(t(4), t(4))
			VDIVPD(t(4), ones, t(5))
			VMULPD(t(3), t(5), t(6))
			VBLENDMPD(t(5), ones, k, cn[w])
			VMOVAPD_Z(t(6), k, sn[w])
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
			VMOVAPD(cn[w], cs[w])
			VMOVAPD(sn[w], ss[w])
		}
		KMOVW(K5, K6) // K6: lanes of the current round that rotate
		if dual {
			KMOVW(K1, K4) // each matrix's rotating lanes of the current round
			KMOVW(K3, K7)
		}
	}

	// rows emits the loop over cnt rows from p: load, (rotate), permute,
	// store, (accumulate).
	rows := func(label string, rot []bool, dots bool) {
		Label(label)
		x := make([]VecPhysical, W)
		y := make([]VecPhysical, W)
		xr := make([]VecPhysical, W)
		yr := make([]VecPhysical, W)
		for w := 0; w < W; w++ {
			x[w], y[w] = zreg(tmp0+4*w), zreg(tmp0+4*w+1)
			xr[w], yr[w] = zreg(tmp0+4*w+2), zreg(tmp0+4*w+3)
			if rot[w] {
				VMOVAPD(Mem{Base: p, Disp: 64 * w}, x[w])
				VMOVAPD(Mem{Base: p, Disp: 64 * (W + w)}, y[w])
				VMULPD(y[w], ss[w], xr[w])
				VMULPD(x[w], ss[w], yr[w])
				VFMSUB231PD(x[w], cs[w], xr[w]) // c x - s y
				VFMADD231PD(y[w], cs[w], yr[w]) // c y + s x
			} else {
				VMOVAPD(Mem{Base: p, Disp: 64 * w}, xr[w])
				VMOVAPD(Mem{Base: p, Disp: 64 * (W + w)}, yr[w])
			}
		}
		// New left vectors: L'_0 from (L_0, R_0), L'_w from (L_{w-1}, L_w);
		// new right vectors: R'_w from (R_w, R_{w+1}), the last from
		// (R_{W-1}, L_{W-1}). Outputs go to x, y (free now).
		for w := 0; w < W; w++ {
			if dual {
				VMOVAPD(xr[w], x[w])
				VPERMT2PD(yr[w], idxL[0], x[w])
				VMOVAPD(yr[w], y[w])
				VPERMT2PD(xr[w], idxR[0], y[w])
				continue
			}
			if w == 0 {
				VMOVAPD(xr[0], x[0])
				VPERMT2PD(yr[0], idxL[0], x[0])
			} else {
				VMOVAPD(xr[w-1], x[w])
				VPERMT2PD(xr[w], idxL[w], x[w])
			}
			if w < W-1 {
				VMOVAPD(yr[w], y[w])
				VPERMT2PD(yr[w+1], idxR[w], y[w])
			} else {
				VMOVAPD(yr[w], y[w])
				VPERMT2PD(xr[w], idxR[w], y[w])
			}
		}
		for w := 0; w < W; w++ {
			VMOVAPD(x[w], Mem{Base: p, Disp: 64 * w})
			VMOVAPD(y[w], Mem{Base: p, Disp: 64 * (W + w)})
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
		if !dual {
			all := make([]bool, W)
			for w := range all {
				all[w] = true
			}
			KORTESTW(K6, K6)
			JZ(LabelRef("perm" + part))
			rows("rot"+part, all, dots)
			JMP(LabelRef(done))
			rows("perm"+part, make([]bool, W), dots)
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
			rows(lbl(c), c, dots)
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

	endSweep(sweeps, params, alpha, beta, sOutA, sOutB)
}

// endSweep emits the end of a sweep of the lane kernels (jacobi1,
// jacobi1b): another sweep ("sweep") if some lane rotated (K2) and sweeps
// are left, else return 1; at convergence the squared norms of the left
// and right columns (l, r) go to params[outL+8w:], params[outR+8w:] and
// it returns 0.
func endSweep(sweeps, params Register, l, r []VecPhysical, outL, outR int) {
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
		VMOVUPD(l[w], Mem{Base: params, Disp: 8 * (outL + 8*w)})
		VMOVUPD(r[w], Mem{Base: params, Disp: 8 * (outR + 8*w)})
	}
	XORQ(ret, ret)
	Store(ret, ReturnIndex(0))
	VZEROUPPER()
	RET()
}
