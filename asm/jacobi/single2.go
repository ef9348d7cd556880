package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Layout of the params of the AVX2 float32 kernels (float32 index; the
// permutation tables hold int32 bits, the masks all-ones lanes).
const (
	a32Up    = 0  // [0:8] VPERMPS indices moving the left columns up a lane
	a32Down  = 8  // [8:16] moving the right columns down a lane
	a32MaskH = 16 // [16:24] the lane of the last right vector that takes the last left column
	a32Real  = 24 // [24:40] the lanes of the h pairs (W vectors)
	a32Tol2  = 40 // [40:48] tol²
	a32One   = 48 // [48:56] 1
	a32Abs   = 56 // [56:64] all bits but the sign
	a32Sign  = 64 // [64:72] the sign bit
	a32Negl  = 72 // [72:80] matrix 0's negligible threshold, [80:88] matrix 1's
	a32Len   = 88
)

// Layout of a matrix's block of the state of the AVX2 float32 kernels
// (bytes; 320 a matrix).
const (
	a32CurC  = 0   // slot 0: a round's c (W vectors)
	a32CurS  = 64  // its s
	a32NextC = 128 // slot 1 (the rounds alternate between the two)
	a32NextS = 192
	a32Flag  = 256 // int64: slot 0's mask of lanes that rotate
	a32Swept = 264 // int64: lanes that rotated in this sweep
	a32NextF = 272 // slot 1's mask
	a32Done  = 280 // int64: the matrix converged (a sweep without rotation)
	a32Alpha = 320 // the next round's α (W vectors), summed over the A rows
	a32Beta  = 384 // its β
	a32Gamma = 448 // its γ
	a32Block = 512
)

// jacobi1S32AVX2 generates jacobi1S32AVX2 (W = 1, n <= 16) and
// jacobi1S32W2AVX2 (W = 2, n <= 32): the float32 one-sided Jacobi of
// jacobi1S32AVX512 for CPUs with AVX2 and FMA, the n'/2 column pairs of
// a round in the 8 float32 lanes of W YMM vectors a half row (row r: L_0
// .. L_{W-1} R_0 .. R_{W-1}, 32W float32; the rows of A, then those of
// V), moving by the same circle (the first left column stays, the others
// move a place: L'_0 = L_0, L'_1 = R_0, L'_i = L_{i-1}, R'_i = R_{i+1},
// R'_{h-1} = L_{h-1}). AVX2 has no two-source permute: a new vector is a
// VPERMPS of one or two vectors by a fixed table (up or down a lane)
// and a blend (VBLENDPS, fixed lanes; the last pair's lane by VBLENDVPS
// with params' mask). Lanes past the h pairs take copies of other lanes
// and never rotate (params' lane mask), so the pairs never see them.
//
// It runs mats (1 or 2) matrices of the same order at buf a round at a
// time: each matrix's A rows (rotated by the round's c and s, or only
// permuted where no lane of THAT matrix rotates, and summed into the next
// round's α, β, γ, kept in the matrix's state), then each one's next
// parameters (the two chains overlap each other and the V rows; written
// to the other of two slots), then each one's V rows. A matrix whose
// sweep rotated nothing has converged and is left as it is. Each
// matrix's operations are those of a run on it alone: the same bits.
func jacobi1S32AVX2(W int) { jacobi1S32AVX2Gen(W, false) }

// jacobi1Pack32AVX2 generates jacobi1Pack32AVX2: jacobi1S32AVX2 on TWO
// matrices up to 8 x 8 in ONE vector a half row, the first's pairs in
// lanes 0-3, the second's in lanes 4-7, each half moving by its own
// circle (the tables of params), each lane with its matrix's threshold;
// a round rotates or only permutes each half by that matrix's own lanes
// (a rotated half of a matrix that does not rotate is put back from the
// loaded row), so that each matrix gets the bits jacobi1S32AVX2 gives it
// alone, in the instructions of one matrix.
func jacobi1Pack32AVX2() { jacobi1S32AVX2Gen(1, true) }

func jacobi1S32AVX2Gen(W int, packed bool) {
	name := "jacobi1S32AVX2"
	if W == 2 {
		name = "jacobi1S32W2AVX2"
	}
	if packed {
		name = "jacobi1Pack32AVX2"
	}
	TEXT(name, NOSPLIT, fmt.Sprintf("func(buf *float32, rowsA, rowsV, rounds int, params *[%d]float32, state *[%d]float32, mats, maxSweeps int) uint64", a32Len, 2*a32Block/4))
	Pragma("noescape")
	if packed {
		Doc(
			name+" runs jacobi1S32AVX2 on two matrices of the same order up to 8 x 8",
			"at once in one vector a half row (each row L R): the first matrix's pairs",
			"in lanes 0-3, the second's in lanes 4-7, each half moving by its own",
			"circle (params' tables), params[72:80] each lane's negligible threshold;",
			"each matrix's result has jacobi1S32AVX2's bits. mats must be 1. It returns",
			"the mask of the matrices that rotated in the last of maxSweeps sweeps (0",
			"when a sweep rotated nothing in either).",
		)
	} else {
		Doc(
			name+" is jacobi1S32AVX512 for AVX2 and FMA: one-sided Jacobi in float32",
			fmt.Sprintf("lanes on mats (1 or 2) matrices whose column pairs of a round are the 8 lanes of %d", W),
			"YMM vector(s) a half row (see the generator): each matrix rowsA rows of A then",
			fmt.Sprintf("rowsV rows of V, each row %d float32 (left columns, right columns), the", 16*W),
			"second matrix after the first; rounds rounds per sweep. params: the",
			"permutation tables and masks, tol², 1, abs and sign masks, each matrix's",
			"negligible threshold; state: scratch (512 bytes a matrix). Each matrix",
			"gets the bits a run on it alone gives. It returns the mask of the matrices",
			"that had not converged (a sweep without rotation) within maxSweeps sweeps.",
		)
	}
	up, down, maskH := Y15, Y14, Y13
	var alpha, beta, gamma, tmp []VecPhysical
	var cReg, sReg VecPhysical
	if W == 1 {
		alpha, beta, gamma = []VecPhysical{Y0}, []VecPhysical{Y1}, []VecPhysical{Y2}
		cReg, sReg = Y12, Y11
		tmp = []VecPhysical{Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10}
	} else {
		alpha, beta, gamma = []VecPhysical{Y0, Y1}, []VecPhysical{Y2, Y3}, []VecPhysical{Y4, Y5}
		tmp = []VecPhysical{Y6, Y7, Y8, Y9, Y10, Y11, Y12}
	}
	rowBytes := 64 * W
	vec := func(p Register, i int) Mem { return Mem{Base: p, Disp: 32 * i} }

	params := Load(Param("params"), GP64())
	VMOVUPS(Mem{Base: params, Disp: 4 * a32Up}, up)
	VMOVUPS(Mem{Base: params, Disp: 4 * a32Down}, down)
	VMOVUPS(Mem{Base: params, Disp: 4 * a32MaskH}, maskH)
	mstride := GP64()
	Load(Param("rowsA"), mstride)
	rv := GP64()
	Load(Param("rowsV"), rv)
	ADDQ(rv, mstride)
	SHLQ(Imm(uint64(5+W)), mstride) // rowBytes = 64 W
	sweeps := Load(Param("maxSweeps"), GP64())
	bp, sp, np, mi, p, cnt, rnd, flag := GP64(), GP64(), GP64(), GP64(), GP64(), GP64(), GP64(), GP64()
	// cur: 0 or 16, the slot of the round's c, s and mask in each state
	// block (at 8 cur bytes, the mask at cur); nxt = cur ^ 16, the next
	// round's.
	cur, nxt := GP64(), GP64()
	MOVQ(U32(16), cur)
	XORQ(nxt, nxt)

	zeroAcc := func() {
		for w := 0; w < W; w++ {
			VXORPS(alpha[w], alpha[w], alpha[w])
			VXORPS(beta[w], beta[w], beta[w])
			VXORPS(gamma[w], gamma[w], gamma[w])
		}
	}
	// matLoop emits body for each matrix not yet converged (skipDone),
	// with bp, sp, np at its rows, state block and threshold.
	matLoop := func(label string, skipDone bool, body func()) {
		Load(Param("buf"), bp)
		Load(Param("state"), sp)
		LEAQ(Mem{Base: params, Disp: 4 * a32Negl}, np)
		Load(Param("mats"), mi)
		Label(label)
		if skipDone {
			CMPQ(Mem{Base: sp, Disp: a32Done}, Imm(0))
			JNE(LabelRef(label + "next"))
		}
		body()
		Label(label + "next")
		ADDQ(mstride, bp)
		ADDQ(U32(a32Block), sp)
		ADDQ(Imm(32), np)
		DECQ(mi)
		JNZ(LabelRef(label))
	}
	// saveAcc stores the matrix's α, β, γ in its state.
	saveAcc := func() {
		if packed {
			return
		}
		for w := 0; w < W; w++ {
			VMOVUPS(alpha[w], Mem{Base: sp, Disp: a32Alpha + 32*w})
			VMOVUPS(beta[w], Mem{Base: sp, Disp: a32Beta + 32*w})
			VMOVUPS(gamma[w], Mem{Base: sp, Disp: a32Gamma + 32*w})
		}
	}
	// emitParams writes the next round's c and s of the matrix from its α,
	// β, γ to its state, and the mask of its lanes that rotate.
	emitParams := func() {
		t := tmp
		XORQ(flag, flag)
		for w := 0; w < W; w++ {
			a, b, g := alpha[w], beta[w], gamma[w]
			if !packed { // packed: one run of the matrix loop, α, β, γ kept in registers
				VMOVUPS(Mem{Base: sp, Disp: a32Alpha + 32*w}, a)
				VMOVUPS(Mem{Base: sp, Disp: a32Beta + 32*w}, b)
				VMOVUPS(Mem{Base: sp, Disp: a32Gamma + 32*w}, g)
			}
			Comment("mask = γ² > tol² α β && α > negl && β > negl, in the pairs' lanes")
			VMULPS(g, g, t[0])
			VMULPS(b, a, t[1])
			VMULPS(Mem{Base: params, Disp: 4 * a32Tol2}, t[1], t[1])
			VCMPPS(Imm(0x1e), t[1], t[0], t[0])
			VCMPPS(Imm(0x1e), Mem{Base: np}, a, t[1])
			VANDPS(t[1], t[0], t[0])
			VCMPPS(Imm(0x1e), Mem{Base: np}, b, t[1])
			VANDPS(t[1], t[0], t[0])
			VANDPS(Mem{Base: params, Disp: 4 * (a32Real + 8*w)}, t[0], t[0])
			mb := GP64()
			VMOVMSKPS(t[0], mb.As32())
			if w > 0 {
				SHLQ(Imm(8), mb)
			}
			ORQ(mb, flag)
			Comment("t = sign(d) 2γ / (|d| + sqrt(d² + 4γ²)), d = β - α, 0 where no rotation; c = 1/sqrt(1+t²), s = t/sqrt(1+t²)")
			VSUBPS(a, b, t[2])
			VADDPS(g, g, t[3])
			VMULPS(t[3], t[3], t[4])
			VFMADD231PS(t[2], t[2], t[4])
			VSQRTPS(t[4], t[4])
			VANDPS(Mem{Base: params, Disp: 4 * a32Abs}, t[2], t[5])
			VADDPS(t[5], t[4], t[4])
			VANDPS(Mem{Base: params, Disp: 4 * a32Sign}, t[2], t[5])
			VXORPS(t[5], t[3], t[3])
			VDIVPS(t[4], t[3], t[3])
			VANDPS(t[0], t[3], t[3])
			VMOVUPS(Mem{Base: params, Disp: 4 * a32One}, t[4])
			VFMADD231PS(t[3], t[3], t[4])
			VSQRTPS(t[4], t[4])
			VMOVUPS(Mem{Base: params, Disp: 4 * a32One}, t[5])
			VDIVPS(t[4], t[5], t[5])
			VDIVPS(t[4], t[3], t[6]) // s = t / sqrt(1+t²), beside c
			VMOVUPS(t[5], Mem{Base: sp, Index: nxt, Scale: 8, Disp: a32CurC + 32*w})
			VMOVUPS(t[6], Mem{Base: sp, Index: nxt, Scale: 8, Disp: a32CurS + 32*w})
		}
		MOVQ(flag, Mem{Base: sp, Index: nxt, Scale: 1, Disp: a32Flag})
	}
	// keep (packed) names the lanes of the rotated vectors put back from
	// the loaded row: the half of a matrix that does not rotate.
	lBlend := uint64(0b10)
	if packed {
		lBlend = 0x22 // lane 1 of each half
	}
	rows := func(label string, rot, dots bool, keep uint64) {
		Label(label)
		if W == 1 {
			x, y := tmp[0], tmp[1]
			VMOVUPS(vec(p, 0), x)
			VMOVUPS(vec(p, 1), y)
			xr, yr := x, y
			if rot {
				xr, yr = tmp[2], tmp[3]
				VMULPS(y, sReg, xr)
				VMULPS(x, sReg, yr)
				VFMSUB231PS(x, cReg, xr) // c x - s y
				VFMADD231PS(y, cReg, yr) // c y + s x
				if keep != 0 {
					VBLENDPS(Imm(keep), x, xr, xr)
					VBLENDPS(Imm(keep), y, yr, yr)
				}
			}
			l, r := tmp[4], tmp[6]
			Comment("L' = L_0, R_0, L_1 .. (up: 0, 0, 1, ..., 6); R' = R_1, R_2, .., L_{h-1} at lane h-1")
			VPERMPS(xr, up, l)
			VPERMPS(yr, up, tmp[5])
			VBLENDPS(Imm(lBlend), tmp[5], l, l)
			VPERMPS(yr, down, r)
			VBLENDVPS(maskH, xr, r, r)
			VMOVUPS(l, vec(p, 0))
			VMOVUPS(r, vec(p, 1))
			if dots {
				VFMADD231PS(l, l, alpha[0])
				VFMADD231PS(r, r, beta[0])
				VFMADD231PS(r, l, gamma[0])
			}
		} else {
			xr0, yr0, xr1, yr1 := tmp[2], tmp[3], tmp[4], tmp[5]
			if rot {
				x, y := tmp[0], tmp[1]
				for w, o := range [][2]VecPhysical{{xr0, yr0}, {xr1, yr1}} {
					VMOVUPS(vec(p, w), x)
					VMOVUPS(vec(p, 2+w), y)
					cm := Mem{Base: sp, Index: cur, Scale: 8, Disp: a32CurC + 32*w}
					sm := Mem{Base: sp, Index: cur, Scale: 8, Disp: a32CurS + 32*w}
					VMULPS(sm, y, o[0])
					VMULPS(sm, x, o[1])
					VFMSUB231PS(cm, x, o[0]) // c x - s y
					VFMADD231PS(cm, y, o[1]) // c y + s x
				}
			} else {
				VMOVUPS(vec(p, 0), xr0)
				VMOVUPS(vec(p, 1), xr1)
				VMOVUPS(vec(p, 2), yr0)
				VMOVUPS(vec(p, 3), yr1)
			}
			Comment("L'_0 = L_0, R_0, L_1 .. L_6; L'_1 = L_7 .. L_14 (up: 7, 0, 1, ..., 6)")
			p0, l0, l1 := tmp[0], tmp[6], tmp[1]
			VPERMPS(xr0, up, p0)
			VPERMPS(yr0, up, l1)
			VBLENDPS(Imm(0b01), xr0, p0, l0)
			VBLENDPS(Imm(0b10), l1, l0, l0)
			VPERMPS(xr1, up, l1)
			VBLENDPS(Imm(0b01), p0, l1, l1)
			VMOVUPS(l0, vec(p, 0))
			VMOVUPS(l1, vec(p, 1))
			Comment("R'_0 = R_1 .. R_8; R'_1 = R_9 .., L_{h-1} at lane h-9 (down: 1, ..., 7, 0)")
			r0, r1 := tmp[0], xr0
			VPERMPS(yr0, down, r0)
			VPERMPS(yr1, down, r1)
			VBLENDPS(Imm(0x80), r1, r0, r0)
			VBLENDVPS(maskH, xr1, r1, r1)
			VMOVUPS(r0, vec(p, 2))
			VMOVUPS(r1, vec(p, 3))
			if dots {
				VFMADD231PS(l0, l0, alpha[0])
				VFMADD231PS(l1, l1, alpha[1])
				VFMADD231PS(r0, r0, beta[0])
				VFMADD231PS(r1, r1, beta[1])
				VFMADD231PS(r0, l0, gamma[0])
				VFMADD231PS(r1, l1, gamma[1])
			}
		}
		ADDQ(U32(rowBytes), p)
		DECQ(cnt)
		JNZ(LabelRef(label))
	}

	Comment("each matrix: the dots and parameters of the first round")
	matLoop("init", false, func() {
		zeroAcc()
		MOVQ(bp, p)
		Load(Param("rowsA"), cnt)
		Label("d0")
		for w := 0; w < W; w++ {
			VMOVUPS(vec(p, w), tmp[0])
			VMOVUPS(vec(p, W+w), tmp[1])
			VFMADD231PS(tmp[0], tmp[0], alpha[w])
			VFMADD231PS(tmp[1], tmp[1], beta[w])
			VFMADD231PS(tmp[1], tmp[0], gamma[w])
		}
		ADDQ(U32(rowBytes), p)
		DECQ(cnt)
		JNZ(LabelRef("d0"))
		saveAcc()
		MOVQ(U32(0), Mem{Base: sp, Disp: a32Done})
	})
	matLoop("init2", false, emitParams)
	XORQ(Imm(16), cur)
	MOVQ(U32(16), nxt)

	Label("sweep")
	matLoop("clear", false, func() {
		MOVQ(U32(0), Mem{Base: sp, Disp: a32Swept})
	})
	Load(Param("rounds"), rnd)
	Label("round")
	// rowsBy emits the row loops of part (a or v) for the round's mask of
	// rotating lanes (flag): rotate, or only permute; packed, by each
	// half's own lanes.
	rowsBy := func(part string, dots bool) {
		loadCS := func() {
			if W == 1 {
				VMOVUPS(Mem{Base: sp, Index: cur, Scale: 8, Disp: a32CurC}, cReg)
				VMOVUPS(Mem{Base: sp, Index: cur, Scale: 8, Disp: a32CurS}, sReg)
			}
		}
		done := part + "done"
		if !packed {
			TESTQ(flag, flag)
			JZ(LabelRef(part + "perm"))
			loadCS()
			rows(part+"rot", true, dots, 0)
			JMP(LabelRef(done))
			rows(part+"perm", false, dots, 0)
			return
		}
		TESTQ(U32(0x0f), flag)
		JZ(LabelRef(part + "no0"))
		TESTQ(U32(0xf0), flag)
		JZ(LabelRef(part + "only0"))
		loadCS()
		rows(part+"rot", true, dots, 0)
		JMP(LabelRef(done))
		Label(part + "only0")
		loadCS()
		rows(part+"only0l", true, dots, 0xf0)
		JMP(LabelRef(done))
		Label(part + "no0")
		TESTQ(U32(0xf0), flag)
		JZ(LabelRef(part + "perm"))
		loadCS()
		rows(part+"only1", true, dots, 0x0f)
		JMP(LabelRef(done))
		rows(part+"perm", false, dots, 0)
	}
	Comment("a round: each matrix's A rows (rotated if a lane of THAT matrix rotates,")
	Comment("else only permuted), then each one's next parameters (the two chains")
	Comment("overlap each other and the V rows), then each one's V rows")
	matLoop("mata", true, func() {
		MOVQ(Mem{Base: sp, Index: cur, Scale: 1, Disp: a32Flag}, flag)
		ORQ(flag, Mem{Base: sp, Disp: a32Swept})
		zeroAcc()
		MOVQ(bp, p)
		Load(Param("rowsA"), cnt)
		rowsBy("a", true)
		Label("adone")
		saveAcc()
	})
	matLoop("matp", true, emitParams)
	matLoop("matv", true, func() {
		MOVQ(bp, p)
		Load(Param("rowsA"), cnt)
		SHLQ(Imm(uint64(6+W/2)), cnt) // rowBytes = 64 W
		ADDQ(cnt, p)
		Load(Param("rowsV"), cnt)
		TESTQ(cnt, cnt)
		JZ(LabelRef("vdone"))
		MOVQ(Mem{Base: sp, Index: cur, Scale: 1, Disp: a32Flag}, flag)
		rowsBy("v", false)
		Label("vdone")
	})
	Comment("the next round's parameters are in the other slot")
	XORQ(Imm(16), cur)
	MOVQ(cur, nxt)
	XORQ(Imm(16), nxt)
	DECQ(rnd)
	JNZ(LabelRef("round"))

	Comment("a matrix whose sweep rotated nothing has converged; ret: the others")
	ret, bit := GP64(), GP64()
	XORQ(ret, ret)
	MOVQ(U32(1), bit)
	if packed {
		Comment("packed: each half's lanes that rotated in this sweep")
		Load(Param("state"), sp)
		MOVQ(Mem{Base: sp, Disp: a32Swept}, bit)
		TESTQ(U32(0x0f), bit)
		JZ(LabelRef("end1"))
		ORQ(Imm(1), ret)
		Label("end1")
		TESTQ(U32(0xf0), bit)
		JZ(LabelRef("end2"))
		ORQ(Imm(2), ret)
		Label("end2")
	} else {
		matLoop("end", false, func() {
			CMPQ(Mem{Base: sp, Disp: a32Done}, Imm(0))
			JNE(LabelRef("endbit"))
			CMPQ(Mem{Base: sp, Disp: a32Swept}, Imm(0))
			JNE(LabelRef("endlive"))
			MOVQ(U32(1), Mem{Base: sp, Disp: a32Done})
			JMP(LabelRef("endbit"))
			Label("endlive")
			ORQ(bit, ret)
			Label("endbit")
			SHLQ(Imm(1), bit)
		})
	}
	TESTQ(ret, ret)
	JZ(LabelRef("out"))
	DECQ(sweeps)
	JNZ(LabelRef("sweep"))
	Label("out")
	Store(ret, ReturnIndex(0))
	VZEROUPPER()
	RET()
}
