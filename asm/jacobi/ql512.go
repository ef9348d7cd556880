package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Layout of a group's 512 bytes of ql16AVX512's scratch (byte offsets):
// per lane m - 1 and m (int64), the deflation threshold tol² (float64),
// the shift σ and d[m] (64 bytes each), the active mask (a 16-bit K
// value).
const (
	ql5M1, ql5M, ql5Tol, ql5Sig, ql5Dm, ql5Act = 0, 64, 128, 192, 256, 320
)

// qlRootFree512 writes ql16AVX512: qlRootFree's iteration (see there) on
// two groups of 8 lane-interleaved tridiagonal matrices in ZMM registers,
// their chains interleaved, the lanes' control flow masked by K registers
// instead of blends of vector masks. Its estimates need not be
// ql8AVX2's bits: the Sturm counts certify them, whichever kernel made
// them (svd.Gram's enclosures).
func qlRootFree512(groups int) {
	name := fmt.Sprintf("ql%dAVX512", 8*groups)
	TEXT(name, NOSPLIT, "func(d, e *[4]*float64, n int, params *[8]float64, scratch *float64) uint64")
	Pragma("noescape")
	Doc(
		fmt.Sprintf("%s is ql8AVX2 on %d groups of 8 lane-interleaved tridiagonal", name, groups),
		"matrices (group h's diagonal at d[h], squared subdiagonal at e[h], element i",
		"of its lane l at [i*8+l]; lane l of group h is bit 8h+l), in ZMM registers,",
		"each lane's split and chase masked by K registers, the groups' chains",
		fmt.Sprintf("interleaved. scratch: %d float64, the deflation thresholds tol² of group", 64*groups),
		"h at scratch[h*64+16:]. It returns the mask of the lanes in which an",
		"eigenvalue did not converge within params[6] iterations.",
	)
	dpp := Load(Param("d"), GP64())
	epp := Load(Param("e"), GP64())
	// Group h's d and e pointers, loaded where its code starts (ptrs(h)):
	// two registers for all groups.
	dr, er := GP64(), GP64()
	ptrs := func(h int) (Register, Register) {
		MOVQ(Mem{Base: dpp, Disp: 8 * h}, dr)
		MOVQ(Mem{Base: epp, Disp: 8 * h}, er)
		return dr, er
	}
	n := Load(Param("n"), GP64())
	params := Load(Param("params"), GP64())
	scratch := Load(Param("scratch"), GP64())
	ones, absM := Z15, Z14
	VBROADCASTSD(Mem{Base: params, Disp: 8 * gOne}, ones)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * gAbs}, absM)
	// State of group h: s, c, p, γ.
	st := [4][4]VecPhysical{{Z0, Z1, Z2, Z3}, {Z4, Z5, Z6, Z7}, {Z16, Z17, Z18, Z19}, {Z20, Z21, Z22, Z23}}
	mem := func(h, off int) Mem { return Mem{Base: scratch, Disp: h*512 + off} }
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
		dph, eph := ptrs(h)
		mvec, dm := Z8, Z9
		VPBROADCASTQ(nm1, mvec)
		MOVQ(nm1, t)
		SHLQ(Imm(6), t)
		VMOVUPD(Mem{Base: dph, Index: t, Scale: 1}, dm)
		KXORW(K1, K1, K1) // found
		MOVQ(l, m)
		ms := lb(fmt.Sprintf("ms%d", h))
		Label(ms)
		CMPQ(m, nm1)
		JGE(LabelRef(ms + "done"))
		MOVQ(m, t)
		SHLQ(Imm(6), t)
		VMOVUPD(Mem{Base: eph, Index: t, Scale: 1}, Z11)
		VCMPPD(Imm(0x12), mem(h, ql5Tol), Z11, K2) // LE_OQ: e²[m] <= tol²
		KANDNW(K2, K1, K3)                         // negligible, not found before
		VPBROADCASTQ(m, Z13)
		VPBLENDMQ(Z13, mvec, K3, mvec)
		VBLENDMPD(Mem{Base: dph, Index: t, Scale: 1}, dm, K3, dm)
		KORW(K2, K1, K1)
		INCQ(m)
		JMP(LabelRef(ms))
		Label(ms + "done")
		VPBROADCASTQ(l, Z12)
		VPCMPEQQ(Z12, mvec, K4)
		KNOTW(K4, K5)
		KMOVW(K5, t.As32())
		ANDL(U32(0xff), t.As32())
		KMOVW(t.As32(), K5)                  // active: the 8 lanes' bits only
		VPTERNLOGQ(Imm(0xff), Z11, Z11, Z11) // -1
		VPADDQ(Z11, mvec, Z13)
		VMOVDQU64(Z13, mem(h, ql5M1))
		VMOVDQU64(mvec, mem(h, ql5M))
		KMOVW(K5, mem(h, ql5Act))
		VMOVUPD(dm, mem(h, ql5Dm))
		if h > 0 {
			SHLQ(Imm(uint64(8*h)), t)
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
	SHLQ(Imm(6), t)
	for h := 0; h < groups; h++ {
		dph, eph := ptrs(h)
		s, c, p, g := st[h][0], st[h][1], st[h][2], st[h][3]
		KMOVW(mem(h, ql5Act), K6)
		VBLENDMPD(Mem{Base: eph, Index: t, Scale: 1}, ones, K6, Z10)
		VSQRTPD(Z10, Z10) // rte
		VMOVUPD(Mem{Base: dph, Index: t, Scale: 1, Disp: 64}, Z11)
		VSUBPD(Mem{Base: dph, Index: t, Scale: 1}, Z11, Z11)
		VADDPD(Z10, Z10, Z12)
		VDIVPD(Z12, Z11, Z11) // g0
		VMOVAPD(ones, Z12)
		VFMADD231PD(Z11, Z11, Z12)
		VSQRTPD(Z12, Z12)
		VPANDNQ(Z11, absM, Z13) // sign of g0
		VPORQ(Z13, Z12, Z12)
		VADDPD(Z11, Z12, Z12)
		VDIVPD(Z12, Z10, Z12)
		VMOVUPD(Mem{Base: dph, Index: t, Scale: 1}, Z9)
		VSUBPD(Z12, Z9, Z9) // σ
		VMOVUPD(Z9, mem(h, ql5Sig))
		VMOVUPD(mem(h, ql5Dm), g)
		VSUBPD(Z9, g, g) // γ
		VMULPD(g, g, p)
		VMOVAPD(ones, c)
		VPXORQ(s, s, s)
	}
	mmax := GP64()
	MOVQ(mem(0, ql5M), mmax)
	for h := 0; h < groups; h++ {
		for u := 0; u < 8; u++ {
			if h == 0 && u == 0 {
				continue
			}
			MOVQ(mem(h, ql5M+8*u), t)
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
	SHLQ(Imm(6), t)
	VPBROADCASTQ(i, Z8)
	for h := 0; h < groups; h++ {
		s, c, p, g := st[h][0], st[h][1], st[h][2], st[h][3]
		d, e := ptrs(h)
		live, zero := K1, K3
		if h%2 == 1 {
			live, zero = K4, K5
		}
		Comment(fmt.Sprintf("group %d: live = active and i < m", h))
		VPCMPGTQ(mem(h, ql5M1), Z8, K2) // i > m - 1
		KMOVW(mem(h, ql5Act), live)
		KANDNW(live, K2, live)
		Comment("r = p + e²[i], e²[i+1] = s r (0 at i = m-1, where s = 0), 1/r and r/p")
		VMOVUPD(Mem{Base: e, Index: t, Scale: 1}, Z9) // bb
		VADDPD(Z9, p, Z10)                            // r
		VMULPD(Z10, s, Z11)
		VMOVUPD(Mem{Base: e, Index: t, Scale: 1, Disp: 64}, Z12)
		VBLENDMPD(Z11, Z12, live, Z12)
		VMOVUPD(Z12, Mem{Base: e, Index: t, Scale: 1, Disp: 64})
		VDIVPD(Z10, ones, Z12) // 1/r
		VDIVPD(p, Z10, Z10)    // r/p
		VPXORQ(Z13, Z13, Z13)
		VCMPPD(Imm(0x00), Z13, p, zero) // p = 0 (then c' = 0)
		VMULPD(Z9, c, Z11)              // c bb: p' where c' = 0
		Comment("c' = p/r, s' = e²[i]/r (into c and s where live)")
		VMULPD(Z12, p, Z13)
		VMULPD(Z12, Z9, Z12)
		VBLENDMPD(Z13, c, live, c)
		VBLENDMPD(Z12, s, live, s)
		Comment("γ' = c' (d[i] - σ) - s' γ, d[i+1] = γ + (d[i] - γ')")
		VMOVUPD(Mem{Base: d, Index: t, Scale: 1}, Z9)
		VSUBPD(mem(h, ql5Sig), Z9, Z12)
		VMULPD(c, Z12, Z12)
		VFNMADD231PD(s, g, Z12) // γ'
		VSUBPD(Z12, Z9, Z9)
		VADDPD(g, Z9, Z9)
		VMOVUPD(Mem{Base: d, Index: t, Scale: 1, Disp: 64}, Z13)
		VBLENDMPD(Z9, Z13, live, Z13)
		VMOVUPD(Z13, Mem{Base: d, Index: t, Scale: 1, Disp: 64})
		VBLENDMPD(Z12, g, live, g)
		Comment("p' = γ'² (r/p), or c bb where p = 0")
		VMULPD(Z12, Z12, Z12)
		VMULPD(Z10, Z12, Z12)
		VBLENDMPD(Z11, Z12, zero, Z12)
		VBLENDMPD(Z12, p, live, p)
	}
	DECQ(i)
	JMP(LabelRef(lb("chase")))
	Label(lb("chasedone"))

	Comment("per group, active lanes: e²[l] = s p, d[l] = σ + γ, e²[m] = 0")
	MOVQ(l, t)
	SHLQ(Imm(6), t)
	for h := 0; h < groups; h++ {
		s, p, g := st[h][0], st[h][2], st[h][3]
		d, e := ptrs(h)
		KMOVW(mem(h, ql5Act), K2)
		VMOVUPD(mem(h, ql5Sig), Z11)
		VADDPD(g, Z11, Z11)
		VMOVUPD(Mem{Base: d, Index: t, Scale: 1}, Z10)
		VBLENDMPD(Z11, Z10, K2, Z10)
		VMOVUPD(Z10, Mem{Base: d, Index: t, Scale: 1})
		VMULPD(p, s, Z11)
		VMOVUPD(Mem{Base: e, Index: t, Scale: 1}, Z10)
		VBLENDMPD(Z11, Z10, K2, Z10)
		VMOVUPD(Z10, Mem{Base: e, Index: t, Scale: 1})
		VMOVDQU64(mem(h, ql5M), Z8)
		VPXORQ(Z11, Z11, Z11)
		MOVQ(l, m)
		em := lb(fmt.Sprintf("em%d", h))
		Label(em)
		INCQ(m)
		CMPQ(m, mmax)
		JG(LabelRef(em + "done"))
		VPBROADCASTQ(m, Z12)
		VPCMPEQQ(Z12, Z8, K4)
		KANDW(K2, K4, K4)
		MOVQ(m, t2)
		SHLQ(Imm(6), t2)
		VMOVUPD(Mem{Base: e, Index: t2, Scale: 1}, Z10)
		VBLENDMPD(Z11, Z10, K4, Z10)
		VMOVUPD(Z10, Mem{Base: e, Index: t2, Scale: 1})
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
