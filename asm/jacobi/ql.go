package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Layout of a group's 256 bytes of the QL kernels' scratch (byte offsets):
// per lane m - 1 and m (int64), the deflation threshold tol² (float64),
// the active mask, the shift σ, the mask of p = 0, and d[m].
const (
	qlM1, qlM, qlTol, qlAct, qlSig, qlZero, qlDm = 0, 32, 64, 96, 128, 160, 192
)

// qlRootFree writes the QL kernel of Gram's enclosures on groups (1 or 2)
// groups of 4 lane-interleaved tridiagonal matrices: ql4AVX2 and ql8AVX2.
//
// The iteration is the root-free implicit QL of Pal, Walker and Kahan
// (LAPACK's dsterf) with the Wilkinson shift: it works on the squares e²
// of the off-diagonal entries, and a step of the chase from m-1 down to l
//
//	r = p + e²[i];  e²[i+1] = s r;  c, s = p/r, e²[i]/r
//	γ' = c (d[i] - σ) - s γ;  d[i+1] = γ + (d[i] - γ');  p = γ'²/c (c_old e²[i] if c = 0)
//
// takes no square root; p' is formed as γ'² (r/p) with r/p divided out
// beside 1/r at the start of the step (p/c = r exactly in real arithmetic;
// a quotient, not r times 1/p, so that a tiny p gives what γ'²/c gives),
// so that one division, not two, lies on the chain from p to p'. Every lane has its own split point m (the first
// e²[m] <= tol²) and its own chase; lanes outside theirs keep their values
// by blends. A group's masks and per-lane values live in its 256 bytes of
// scratch; with two groups, their chains are interleaved.
func qlRootFree(groups int) {
	name := "ql4AVX2"
	sig := "func(d, e2 *float64, n int, params *[8]float64, scratch *float64) uint64"
	doc := []string{
		"ql4AVX2 runs the root-free implicit QL iteration with Wilkinson shifts",
		"(Pal, Walker and Kahan: LAPACK's dsterf, eigenvalues only) on 4",
		"lane-interleaved symmetric tridiagonal matrices: diagonal d[i*4:], squared",
		"subdiagonal e2[i*4:] (e2[n-1] = 0), overwriting d with eigenvalue",
		"estimates (unsorted) and e2. Each lane has its own split point m (the first",
		"e2[m] <= tol², the lane's threshold at scratch[8:12]) and its own chase",
		"from m-1 down to l; lanes outside their chase or converged at l keep their",
		"values by blends. It returns the mask of the lanes in which an eigenvalue",
		"did not converge within params[6] iterations (their estimates are not to be",
		"trusted). scratch: 32 float64.",
	}
	if groups == 2 {
		name = "ql8AVX2"
		sig = "func(dA, eA, dB, eB *float64, n int, params *[8]float64, scratch *float64) uint64"
		doc = []string{
			"ql8AVX2 is ql4AVX2 on two groups of 4 lane-interleaved tridiagonal",
			"matrices at once (dA, eA: lanes 0-3; dB, eB: lanes 4-7; eA and eB the",
			"squared subdiagonals), one control flow (each lane's split and chase",
			"masked as in ql4AVX2), the two groups' chains interleaved. scratch: 64",
			"float64, the deflation thresholds tol² of group h at scratch[h*32+8:]. It",
			"returns the mask of the lanes (bits 0-7) in which an eigenvalue did not",
			"converge within params[6] iterations.",
		}
	}
	TEXT(name, NOSPLIT, sig)
	Pragma("noescape")
	Doc(doc...)
	var dp, ep []Register
	if groups == 1 {
		dp = []Register{Load(Param("d"), GP64())}
		ep = []Register{Load(Param("e2"), GP64())}
	} else {
		dp = []Register{Load(Param("dA"), GP64()), Load(Param("dB"), GP64())}
		ep = []Register{Load(Param("eA"), GP64()), Load(Param("eB"), GP64())}
	}
	n := Load(Param("n"), GP64())
	params := Load(Param("params"), GP64())
	scratch := Load(Param("scratch"), GP64())
	ones, absM := Y15, Y14
	VBROADCASTSD(Mem{Base: params, Disp: 8 * gOne}, ones)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * gAbs}, absM)
	// State of group h: s, c, p, γ.
	st := [2][4]VecPhysical{{Y0, Y1, Y2, Y3}, {Y4, Y5, Y6, Y7}}
	mem := func(h, off int) Mem { return Mem{Base: scratch, Disp: h*256 + off} }
	lb := func(s string) string { return name + "_" + s }
	failed := GP64()
	XORQ(failed, failed)
	nm1 := GP64()
	MOVQ(n, nm1)
	DECQ(nm1)
	l, iter, m, i, t, t2 := GP64(), GP64(), GP64(), GP64(), GP64(), GP64()
	XORQ(l, l)

	Label(lb("l"))
	CMPQ(l, nm1)
	JGE(LabelRef(lb("done")))
	XORQ(iter, iter)

	Label(lb("iter"))
	Comment("per group: m per lane (the first m >= l with e²[m] <= tol², else n-1), dm = d[m], active = m != l")
	anyAct := GP64()
	XORQ(anyAct, anyAct)
	for h := 0; h < groups; h++ {
		mvec, dm, found := Y8, Y9, Y10
		VMOVQ(nm1, X8)
		VPBROADCASTQ(X8, mvec)
		MOVQ(nm1, t)
		SHLQ(Imm(5), t)
		VMOVUPD(Mem{Base: dp[h], Index: t, Scale: 1}, dm)
		VXORPD(found, found, found)
		MOVQ(l, m)
		ms := lb(fmt.Sprintf("ms%d", h))
		Label(ms)
		CMPQ(m, nm1)
		JGE(LabelRef(ms + "done"))
		MOVQ(m, t)
		SHLQ(Imm(5), t)
		VMOVUPD(Mem{Base: ep[h], Index: t, Scale: 1}, Y11)
		VCMPPD(Imm(0x12), mem(h, qlTol), Y11, Y11) // LE_OQ: e²[m] <= tol²
		VANDNPD(Y11, found, Y12)                   // negligible, not found before
		VMOVQ(m, X13)
		VPBROADCASTQ(X13, Y13)
		VBLENDVPD(Y12, Y13, mvec, mvec)
		VBLENDVPD(Y12, Mem{Base: dp[h], Index: t, Scale: 1}, dm, dm)
		VORPD(Y11, found, found)
		INCQ(m)
		JMP(LabelRef(ms))
		Label(ms + "done")
		VMOVQ(l, X12)
		VPBROADCASTQ(X12, Y12)
		VPCMPEQQ(Y12, mvec, Y12)
		VPCMPEQQ(Y11, Y11, Y11) // -1
		VXORPD(Y11, Y12, Y12)   // active
		VPADDQ(Y11, mvec, Y13)
		VMOVDQU(Y13, mem(h, qlM1))
		VMOVDQU(mvec, mem(h, qlM))
		VMOVUPD(Y12, mem(h, qlAct))
		VMOVUPD(dm, mem(h, qlDm))
		VMOVMSKPD(Y12, t.As32())
		if h == 1 {
			SHLQ(Imm(4), t)
		}
		ORQ(t, anyAct)
	}
	TESTQ(anyAct, anyAct)
	JZ(LabelRef(lb("nextl")))
	CMPQ(iter, Mem{Base: params, Disp: 8 * gMaxIter})
	JL(LabelRef(lb("shift")))
	ORQ(anyAct, failed)
	JMP(LabelRef(lb("nextl")))

	Label(lb("shift"))
	INCQ(iter)
	Comment("per group: σ = d[l] - rte/(g0 + sign(g0) sqrt(g0² + 1)), g0 = (d[l+1] - d[l])/(2 rte), rte = sqrt(e²[l]) (e²[l] := 1 where not active); c = 1, s = 0, γ = d[m] - σ, p = γ²")
	MOVQ(l, t)
	SHLQ(Imm(5), t)
	for h := 0; h < groups; h++ {
		s, c, p, g := st[h][0], st[h][1], st[h][2], st[h][3]
		VMOVUPD(mem(h, qlAct), Y8)
		VBLENDVPD(Y8, Mem{Base: ep[h], Index: t, Scale: 1}, ones, Y10)
		VSQRTPD(Y10, Y10) // rte
		VMOVUPD(Mem{Base: dp[h], Index: t, Scale: 1, Disp: 32}, Y11)
		VSUBPD(Mem{Base: dp[h], Index: t, Scale: 1}, Y11, Y11)
		VADDPD(Y10, Y10, Y12)
		VDIVPD(Y12, Y11, Y11) // g0
		VMOVAPD(ones, Y12)
		VFMADD231PD(Y11, Y11, Y12)
		VSQRTPD(Y12, Y12)
		VANDNPD(Y11, absM, Y13) // sign of g0
		VORPD(Y13, Y12, Y12)
		VADDPD(Y11, Y12, Y12)
		VDIVPD(Y12, Y10, Y12)
		VMOVUPD(Mem{Base: dp[h], Index: t, Scale: 1}, Y9)
		VSUBPD(Y12, Y9, Y9) // σ
		VMOVUPD(Y9, mem(h, qlSig))
		VMOVUPD(mem(h, qlDm), g)
		VSUBPD(Y9, g, g) // γ
		VMULPD(g, g, p)
		VMOVAPD(ones, c)
		VXORPD(s, s, s)
	}
	mmax := GP64()
	MOVQ(mem(0, qlM), mmax)
	for h := 0; h < groups; h++ {
		for u := 0; u < 4; u++ {
			if h == 0 && u == 0 {
				continue
			}
			MOVQ(mem(h, qlM+8*u), t)
			CMPQ(t, mmax)
			CMOVQGT(t, mmax)
		}
	}
	MOVQ(mmax, i)
	DECQ(i)

	Label(lb("chase"))
	CMPQ(i, l)
	JL(LabelRef(lb("chasedone")))
	MOVQ(i, t)
	SHLQ(Imm(5), t)
	for h := 0; h < groups; h++ {
		s, c, p, g := st[h][0], st[h][1], st[h][2], st[h][3]
		e, d := ep[h], dp[h]
		Comment(fmt.Sprintf("group %d: live = active and i < m", h))
		VMOVQ(i, X8)
		VPBROADCASTQ(X8, Y8)
		VPCMPGTQ(mem(h, qlM1), Y8, Y8)
		VANDNPD(mem(h, qlAct), Y8, Y8) // live
		Comment("r = p + e²[i], e²[i+1] = s r (0 at i = m-1, where s = 0), 1/r and r/p")
		VMOVUPD(Mem{Base: e, Index: t, Scale: 1}, Y9) // bb
		VADDPD(Y9, p, Y10)                            // r
		VMULPD(Y10, s, Y11)
		VMOVUPD(Mem{Base: e, Index: t, Scale: 1, Disp: 32}, Y12)
		VBLENDVPD(Y8, Y11, Y12, Y12)
		VMOVUPD(Y12, Mem{Base: e, Index: t, Scale: 1, Disp: 32})
		VDIVPD(Y10, ones, Y12) // 1/r
		VDIVPD(p, Y10, Y10)    // r/p
		VXORPD(Y13, Y13, Y13)
		VCMPPD(Imm(0x00), Y13, p, Y13) // p = 0 (then c' = 0)
		VMOVUPD(Y13, mem(h, qlZero))
		VMULPD(Y9, c, Y11) // c bb: p' where c' = 0
		Comment("c' = p/r, s' = e²[i]/r (into c and s where live)")
		VMULPD(Y12, p, Y13)
		VMULPD(Y12, Y9, Y12)
		VBLENDVPD(Y8, Y13, c, c)
		VBLENDVPD(Y8, Y12, s, s)
		Comment("γ' = c' (d[i] - σ) - s' γ, d[i+1] = γ + (d[i] - γ')")
		VMOVUPD(Mem{Base: d, Index: t, Scale: 1}, Y9)
		VSUBPD(mem(h, qlSig), Y9, Y12)
		VMULPD(c, Y12, Y12)
		VFNMADD231PD(s, g, Y12) // γ'
		VSUBPD(Y12, Y9, Y9)
		VADDPD(g, Y9, Y9)
		VMOVUPD(Mem{Base: d, Index: t, Scale: 1, Disp: 32}, Y13)
		VBLENDVPD(Y8, Y9, Y13, Y13)
		VMOVUPD(Y13, Mem{Base: d, Index: t, Scale: 1, Disp: 32})
		VBLENDVPD(Y8, Y12, g, g)
		Comment("p' = γ'² (r/p), or c bb where p = 0")
		VMULPD(Y12, Y12, Y12)
		VMULPD(Y10, Y12, Y12)
		VMOVUPD(mem(h, qlZero), Y13)
		VBLENDVPD(Y13, Y11, Y12, Y12)
		VBLENDVPD(Y8, Y12, p, p)
	}
	DECQ(i)
	JMP(LabelRef(lb("chase")))
	Label(lb("chasedone"))

	Comment("per group, active lanes: e²[l] = s p, d[l] = σ + γ, e²[m] = 0")
	MOVQ(l, t)
	SHLQ(Imm(5), t)
	for h := 0; h < groups; h++ {
		s, p, g := st[h][0], st[h][2], st[h][3]
		e, d := ep[h], dp[h]
		VMOVUPD(mem(h, qlAct), Y9)
		VMOVUPD(mem(h, qlSig), Y11)
		VADDPD(g, Y11, Y11)
		VMOVUPD(Mem{Base: d, Index: t, Scale: 1}, Y10)
		VBLENDVPD(Y9, Y11, Y10, Y10)
		VMOVUPD(Y10, Mem{Base: d, Index: t, Scale: 1})
		VMULPD(p, s, Y11)
		VMOVUPD(Mem{Base: e, Index: t, Scale: 1}, Y10)
		VBLENDVPD(Y9, Y11, Y10, Y10)
		VMOVUPD(Y10, Mem{Base: e, Index: t, Scale: 1})
		VMOVDQU(mem(h, qlM), Y8)
		VXORPD(Y11, Y11, Y11)
		MOVQ(l, m)
		em := lb(fmt.Sprintf("em%d", h))
		Label(em)
		INCQ(m)
		CMPQ(m, mmax)
		JG(LabelRef(em + "done"))
		VMOVQ(m, X12)
		VPBROADCASTQ(X12, Y12)
		VPCMPEQQ(Y12, Y8, Y12)
		VANDPD(Y9, Y12, Y12)
		MOVQ(m, t2)
		SHLQ(Imm(5), t2)
		VMOVUPD(Mem{Base: e, Index: t2, Scale: 1}, Y10)
		VBLENDVPD(Y12, Y11, Y10, Y10)
		VMOVUPD(Y10, Mem{Base: e, Index: t2, Scale: 1})
		JMP(LabelRef(em))
		Label(em + "done")
	}
	JMP(LabelRef(lb("iter")))

	Label(lb("nextl"))
	INCQ(l)
	JMP(LabelRef(lb("l")))
	Label(lb("done"))
	Store(failed, ReturnIndex(0))
	VZEROUPPER()
	RET()
}
