package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Layout of the params array of jacobi1b (float64 index; the index vectors
// hold int64 bits).
const (
	bTol    = 0  // tol²
	bNegl   = 1  // negligible threshold on squared column norms
	bOne    = 2  // 1
	bHalf   = 3  // 0.5
	bThreeH = 4  // 1.5
	bSign   = 5  // sign bit
	bAbs    = 6  // all bits but the sign
	bNegl2  = 7  // the second matrix's threshold (jacobi1bDual)
	bIdxL   = 8  // [8:24] VPERMT2PD indices of the new left vectors (W of 8)
	bIdxR   = 24 // [24:40] indices of the new right vectors
	bOutL   = 40 // [40:56] out: squared norms of the left columns
	bOutR   = 56 // [56:72] out: squared norms of the right columns
)

// jacobi1b generates the values-only kernel for ONE matrix with the bits
// of the batch kernel (jacobi8AVX512) in one lane, in the layout of
// jacobi1: the n'/2 column pairs of a round-robin round in the lanes of W
// ZMM vectors, row r of buf holding the left columns L_0..L_{W-1}, then
// the right columns R_0..R_{W-1} (lane i of L and R: pair i). The batch
// kernel goes through the pairs of a round one by one; their columns are
// disjoint, so doing them all at once in lanes changes nothing, provided
// each pair sees jacobi8's operations on its own α, β, γ:
//
//   - the squared column norms are recomputed at the start of each sweep
//     in two chains (even rows, odd rows) added, and after a rotation
//     updated (α - tγ, β + tγ); here they live in registers, one lane per
//     column, and move with the columns from round to round;
//   - γ is summed in four chains (rows 4j+u in chain u, the last n mod 4
//     rows into chain 0 one by one) and returned as (c0 + c1) + (c2 + c3);
//   - the parameters are jacobi8's instruction sequence (batchParams);
//     jacobi8 takes the pair (p, q) with p < q as (x, y). Swapping x and y
//     negates d = β - α exactly and with it t and s, and the rotation with
//     -s and the norms' update with -t written for (y, x) are the same
//     roundings as for (x, y) (c y + s x = c y - (-s) x): the same bits,
//     except where d = 0, whose sign is + in both orders. So a lane whose
//     left column has the larger index (flips, per round) computes d from
//     (β, α) swapped and negates t: the bits of jacobi8's (x, y);
//   - the rotation is rotateRow's, element by element. A pair that does
//     not rotate gets c = 1, s = 0, which keeps every value (not always
//     the sign of a zero: values only, that changes no square and no
//     decision).
//
// After each round the columns move to the next round's pairs by the
// circle method of roundRobin (VPERMT2PD, each output from two inputs:
// W = 1: L' from (L, R), R' from (R, L); W = 2: L'_0 from (L_0, L_1), L'_1
// from (L_1, R_1), R'_0 from (R_0, L_0), R'_1 from (R_1, R_0)), the norms
// with them. A sweep with no rotation ends the iteration; the norms are
// then the exact sums of that sweep's start.
func jacobi1b(W int) { jacobi1bGen(W, false) }

// jacobi1bDual is jacobi1b on two matrices of up to 16 x 16 at once, each
// in one vector of the W = 2 layout (L_0, R_0 the first matrix's pairs,
// L_1, R_1 the second's), each vector moved by the W = 1 permutation, each
// with its own threshold; the same flips (the same n). The iteration runs
// until neither rotates; a matrix whose pairs no longer rotate gets c = 1,
// s = 0, which keeps its values (as in the batch kernel's groups).
func jacobi1bDual() { jacobi1bGen(2, true) }

func jacobi1bGen(W int, dual bool) {
	name := fmt.Sprintf("jacobi1bW%dAVX512", W)
	if dual {
		name = "jacobi1bDualAVX512"
	}
	TEXT(name, NOSPLIT, "func(buf *float64, rows, rounds int, params *[72]float64, flips *uint8, maxSweeps int) uint64")
	Pragma("noescape")
	if dual {
		Doc(
			name+" is jacobi1bW1AVX512 on two matrices at once (n <= 16): the first's",
			"pairs in the lanes of vectors L_0, R_0, the second's in L_1, R_1 (rows of",
			"four vectors), each moved by the W = 1 permutation, params[1] and params[7]",
			"their thresholds, one flips byte a round; each matrix's norms have the bits",
			"jacobi1bW1AVX512 gives it alone.",
		)
	} else {
		docLanesB(name, W)
	}
	tol, negl, one, hlf, thr, sgn, abs := Z31, Z30, Z29, Z28, Z27, Z26, Z25
	idxL := []VecPhysical{Z24, Z23}[:W]
	idxR := []VecPhysical{Z22, Z21}[:W]
	nl := []VecPhysical{Z20, Z19}[:W]
	nr := []VecPhysical{Z18, Z17}[:W]
	cs := []VecPhysical{Z16, Z15}[:W]
	ss := []VecPhysical{Z14, Z13}[:W]
	tmp := func(i int) VecPhysical { // Z0..Z12
		if i > 12 {
			panic("jacobi1b: out of registers")
		}
		return zreg(i)
	}
	rowBytes := 128 * W
	vec := func(p Register, row, v int) Mem { return Mem{Base: p, Disp: row*rowBytes + 64*v} }

	buf := Load(Param("buf"), GP64())
	params := Load(Param("params"), GP64())
	VBROADCASTSD(Mem{Base: params, Disp: 8 * bTol}, tol)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * bNegl}, negl)
	negls := []VecPhysical{negl, negl}
	if dual {
		negls[1] = Z21 // idxR[1]: not needed, both vectors move alike
		VBROADCASTSD(Mem{Base: params, Disp: 8 * bNegl2}, negls[1])
	}
	VBROADCASTSD(Mem{Base: params, Disp: 8 * bOne}, one)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * bHalf}, hlf)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * bThreeH}, thr)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * bSign}, sgn)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * bAbs}, abs)
	for w := 0; w < W; w++ {
		if dual && w > 0 {
			break
		}
		VMOVDQU64(Mem{Base: params, Disp: 8 * (bIdxL + 8*w)}, idxL[w])
		VMOVDQU64(Mem{Base: params, Disp: 8 * (bIdxR + 8*w)}, idxR[w])
	}
	rows := Load(Param("rows"), GP64())
	sweeps := Load(Param("maxSweeps"), GP64())
	p, cnt, rnd, fl, b := GP64(), GP64(), GP64(), GP64(), GP64()

	Label("sweep")
	KXORW(K2, K2, K2)
	Comment("norms: per vector two chains, the even rows and the odd rows, added")
	{
		even := make([]VecPhysical, 2*W)
		odd := make([]VecPhysical, 2*W)
		for v := 0; v < 2*W; v++ {
			even[v], odd[v] = tmp(2*v), tmp(2*v+1)
			VPXORQ(even[v], even[v], even[v])
			VPXORQ(odd[v], odd[v], odd[v])
		}
		ld := tmp(4 * W)
		MOVQ(buf, p)
		MOVQ(rows, cnt)
		Label("n2")
		CMPQ(cnt, Imm(2))
		JL(LabelRef("n1"))
		for v := 0; v < 2*W; v++ {
			VMOVAPD(vec(p, 0, v), ld)
			VFMADD231PD(ld, ld, even[v])
			VMOVAPD(vec(p, 1, v), ld)
			VFMADD231PD(ld, ld, odd[v])
		}
		ADDQ(U32(2*rowBytes), p)
		SUBQ(Imm(2), cnt)
		JMP(LabelRef("n2"))
		Label("n1")
		TESTQ(cnt, cnt)
		JZ(LabelRef("ndone"))
		for v := 0; v < 2*W; v++ {
			VMOVAPD(vec(p, 0, v), ld)
			VFMADD231PD(ld, ld, even[v])
		}
		Label("ndone")
		for w := 0; w < W; w++ {
			VADDPD(odd[w], even[w], nl[w])
			VADDPD(odd[W+w], even[W+w], nr[w])
		}
	}

	Load(Param("flips"), fl)
	Load(Param("rounds"), rnd)
	Label("round")
	Comment("γ: four chains (rows 4j+u), the last rows into chain 0, (c0 + c1) + (c2 + c3)")
	gam := make([]VecPhysical, W)
	{
		acc := func(u, w int) VecPhysical { return tmp(u*W + w) }
		for u := 0; u < 4; u++ {
			for w := 0; w < W; w++ {
				VPXORQ(acc(u, w), acc(u, w), acc(u, w))
			}
		}
		ld := tmp(4 * W)
		MOVQ(buf, p)
		MOVQ(rows, cnt)
		Label("g4")
		CMPQ(cnt, Imm(4))
		JL(LabelRef("g1"))
		for u := 0; u < 4; u++ {
			for w := 0; w < W; w++ {
				VMOVAPD(vec(p, u, w), ld)
				VFMADD231PD(vec(p, u, W+w), ld, acc(u, w))
			}
		}
		ADDQ(U32(4*rowBytes), p)
		SUBQ(Imm(4), cnt)
		JMP(LabelRef("g4"))
		Label("g1")
		TESTQ(cnt, cnt)
		JZ(LabelRef("gdone"))
		for w := 0; w < W; w++ {
			VMOVAPD(vec(p, 0, w), ld)
			VFMADD231PD(vec(p, 0, W+w), ld, acc(0, w))
		}
		ADDQ(U32(rowBytes), p)
		DECQ(cnt)
		JMP(LabelRef("g1"))
		Label("gdone")
		for w := 0; w < W; w++ {
			VADDPD(acc(1, w), acc(0, w), acc(0, w))
			VADDPD(acc(3, w), acc(2, w), acc(2, w))
			VADDPD(acc(2, w), acc(0, w), acc(0, w))
			gam[w] = acc(0, w)
		}
	}

	Comment("parameters: jacobi8's sequence lane by lane (K4: the flipped lanes)")
	masks := []OpmaskPhysical{K1, K3}
	for w := 0; w < W; w++ {
		a, bb, g, k := nl[w], nr[w], gam[w], masks[w]
		t := func(i int) VecPhysical { return tmp(W + i) } // after the γs
		fw := w
		if dual {
			fw = 0 // one table for both
		}
		MOVBQZX(Mem{Base: fl, Disp: fw}, b)
		KMOVW(b.As32(), K4)
		VMULPD(g, g, t(0))
		VMULPD(bb, a, t(1))
		VMULPD(tol, t(1), t(1))
		VCMPPD(Imm(0x1e), t(1), t(0), k) // γ² > tol² α β
		VCMPPD(Imm(0x1e), negls[w], a, k, k)
		VCMPPD(Imm(0x1e), negls[w], bb, k, k)
		Comment("d = β - α of (x, y): (α, β) swapped in the flipped lanes")
		VBLENDMPD(bb, a, K4, t(0)) // α of x
		VBLENDMPD(a, bb, K4, t(1)) // β of y
		VSUBPD(t(0), t(1), t(2))   // d
		VADDPD(g, g, t(3))         // g2
		VMULPD(t(3), t(3), t(4))
		VFMADD231PD(t(2), t(2), t(4))
		VRSQRT14PD(t(4), t(5))
		VMULPD(t(5), t(4), t(6)) // h y
		VMULPD(t(5), t(6), t(7)) // h y²
		VFNMADD213PD(thr, hlf, t(7))
		VMULPD(t(7), t(6), t(6)) // sqrt(d² + g2²)
		VPANDQ(t(2), abs, t(0))
		VADDPD(t(0), t(6), t(0))
		VPANDQ(t(2), sgn, t(2))
		VPXORQ(t(2), t(3), t(3))
		VRCP14PD(t(0), t(1))
		VFNMADD213PD(one, t(1), t(0)) // 1 - den r
		VFMADD231PD(t(0), t(1), t(1)) // r += r (1 - den r)
		VMULPD(t(1), t(3), t(8))      // t of (x, y)
		VPXORQ(sgn, t(8), K4, t(8))   // -t in the flipped lanes
		VMOVAPD_Z(t(8), k, t(8))
		Comment("c = 1/sqrt(1 + t²) (exactly 1 where no rotation), s = c t")
		VMOVAPD(one, t(4))
		VFMADD231PD(t(8), t(8), t(4)) // q
		VRSQRT14PD(t(4), t(5))
		VMULPD(t(5), t(5), t(6))
		VMULPD(t(4), t(6), t(6))
		VFNMADD213PD(thr, hlf, t(6))
		VMULPD(t(6), t(5), t(5))
		VMULPD(t(5), t(5), t(6))
		VFNMADD213PD(one, t(4), t(6)) // e = 1 - q y²
		VMULPD(hlf, t(5), t(7))
		VFMADD231PD(t(6), t(7), t(5)) // c = y + (y/2) e
		VBLENDMPD(t(5), one, k, cs[w])
		VMULPD(t(8), cs[w], ss[w])
		Comment("α' = α - t γ, β' = β + t γ (t = 0: unchanged)")
		VFNMADD231PD(g, t(8), a)
		VFMADD231PD(g, t(8), bb)
	}
	if W == 1 {
		KMOVW(K1, K5)
	} else {
		KORW(K1, K3, K5)
	}
	KORW(K5, K2, K2)

	// perm emits the circle's next layout of (l, r) into (lo, ro).
	perm := func(l, r, lo, ro []VecPhysical) {
		if dual {
			for w := 0; w < W; w++ {
				VMOVAPD(l[w], lo[w])
				VPERMT2PD(r[w], idxL[0], lo[w])
				VMOVAPD(r[w], ro[w])
				VPERMT2PD(l[w], idxR[0], ro[w])
			}
			return
		}
		if W == 1 {
			VMOVAPD(l[0], lo[0])
			VPERMT2PD(r[0], idxL[0], lo[0])
			VMOVAPD(r[0], ro[0])
			VPERMT2PD(l[0], idxR[0], ro[0])
			return
		}
		VMOVAPD(l[0], lo[0])
		VPERMT2PD(l[1], idxL[0], lo[0])
		VMOVAPD(l[1], lo[1])
		VPERMT2PD(r[1], idxL[1], lo[1])
		VMOVAPD(r[0], ro[0])
		VPERMT2PD(l[0], idxR[0], ro[0])
		VMOVAPD(r[1], ro[1])
		VPERMT2PD(r[0], idxR[1], ro[1])
	}
	rowLoop := func(label string, rotate bool) {
		x := make([]VecPhysical, W)
		y := make([]VecPhysical, W)
		xr := make([]VecPhysical, W)
		yr := make([]VecPhysical, W)
		for w := 0; w < W; w++ {
			x[w], y[w], xr[w], yr[w] = tmp(4*w), tmp(4*w+1), tmp(4*w+2), tmp(4*w+3)
		}
		Label(label)
		MOVQ(buf, p)
		MOVQ(rows, cnt)
		Label(label + "row")
		for w := 0; w < W; w++ {
			if rotate {
				VMOVAPD(vec(p, 0, w), x[w])
				VMOVAPD(vec(p, 0, W+w), y[w])
				VMULPD(y[w], ss[w], xr[w])
				VMULPD(x[w], ss[w], yr[w])
				VFMSUB231PD(x[w], cs[w], xr[w]) // c x - s y
				VFMADD231PD(y[w], cs[w], yr[w]) // c y + s x
			} else {
				VMOVAPD(vec(p, 0, w), xr[w])
				VMOVAPD(vec(p, 0, W+w), yr[w])
			}
		}
		perm(xr, yr, x, y)
		for w := 0; w < W; w++ {
			VMOVAPD(x[w], vec(p, 0, w))
			VMOVAPD(y[w], vec(p, 0, W+w))
		}
		ADDQ(U32(rowBytes), p)
		DECQ(cnt)
		JNZ(LabelRef(label + "row"))
	}
	Comment("rotate (if some pair rotates) and move to the next round's pairs")
	KORTESTW(K5, K5)
	JZ(LabelRef("permonly"))
	rowLoop("rot", true)
	JMP(LabelRef("moved"))
	rowLoop("permonly", false)
	Label("moved")
	{
		lo := make([]VecPhysical, W)
		ro := make([]VecPhysical, W)
		for w := 0; w < W; w++ {
			lo[w], ro[w] = tmp(2*w), tmp(2*w+1)
		}
		perm(nl, nr, lo, ro)
		for w := 0; w < W; w++ {
			VMOVAPD(lo[w], nl[w])
			VMOVAPD(ro[w], nr[w])
		}
	}
	if dual {
		ADDQ(Imm(1), fl)
	} else {
		ADDQ(Imm(uint64(W)), fl)
	}
	DECQ(rnd)
	JNZ(LabelRef("round"))

	endSweep(sweeps, params, nl, nr, bOutL, bOutR, f64Ops)
}

// docLanesB writes the doc comment of jacobi1bW1AVX512 and jacobi1bW2AVX512.
func docLanesB(name string, W int) {
	Doc(
		name+" computes the squared singular values of one matrix with the bits",
		"jacobi8AVX512 gives it in one lane: its column pairs of a round-robin round",
		fmt.Sprintf("in the lanes of %d ZMM vector(s) (see the generator for the layout), rows", W),
		"rows of 2W vectors, 64-byte aligned; rounds rounds per sweep; flips: per",
		"round, W bytes, the lanes whose left column has the larger index. params:",
		"tol², negligible threshold, constants, the permutation indices (in), the",
		"squared column norms at convergence (out). It returns 0 when a sweep rotated",
		"nothing within maxSweeps sweeps, else 1.",
	)
}
