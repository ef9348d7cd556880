package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// projDotsMaxNR is, per instruction set and panel width b (index), the most
// dot products per panel column one call keeps in registers: the panel's
// vectors (b*projDotsU), the broadcasts or the temporary, and nr*b
// accumulators must fit.
var projDotsMaxNR = map[string][]int{
	"AVX512": {0, 24, 13, 9, 4},
	"AVX2":   {0, 11, 5, 3, 2},
}

// projDotsU is the number of row vectors per panel column in one iteration
// (b*U <= 4): with narrow panels several chunks of rows keep enough FMA
// chains in flight and share the loop overhead.
//
// On AVX-512, b = 4 takes two vectors per column too: the update is a
// chain of nq dependent FMAs per vector, and four chains are just enough
// to keep one FMA per cycle in flight (AMD Zen 4, 4-cycle latency), eight
// leave slack.
var projDotsU = map[string][]int{
	"AVX512": {0, 4, 2, 1, 2},
	"AVX2":   {0, 4, 2, 1, 1},
}

// genProjDots writes, for panel widths b = 1..4,
//
//	func projDotsB<b><ISA>(p *float64, ldp int, q *float64, ldq int, s *float64, lds int, nq int, r *float64, ldr int, gm *float64, ldg int, nr int, n int)
//
// the column-major Gram–Schmidt sweep: for the b columns of P (column c at
// p + c*ldp, n rows, n a multiple of the vector length), P -= Q S (nq
// columns of Q, S nq x b row-major), then G = Rᵀ P (nr columns of R, G nr x
// b row-major) with the updated P, in one pass over the rows: each chunk of
// rows of P is loaded once, updated in registers (one FMA chain per column
// over i, S(i, c) as an embedded broadcast on AVX-512), stored, and then
// multiplied into the nr*b accumulators, so R may be P itself (norms) or Q
// (the second projection's coefficients).
func genProjDots(s isa) {
	for b := 1; b <= 4; b++ {
		genProjDotsB(s, b)
	}
}

func genProjDotsB(s isa, b int) {
	name := fmt.Sprintf("projDotsB%d%s", b, s.name)
	maxNR := projDotsMaxNR[s.name][b]
	TEXT(name, NOSPLIT, "func(p *float64, ldp int, q *float64, ldq int, s *float64, lds int, nq int, r *float64, ldr int, gm *float64, ldg int, nr int, n int)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s computes, for c < %d: p[c*ldp+i] -= Σ_{l<nq} s[l*lds+c] * q[l*ldq+i] (i < n), then", name, b),
		"gm[k*ldg+c] = Σ_{i<n} r[k*ldr+i] * p[c*ldp+i] for k < nr with the updated p.",
		fmt.Sprintf("n must be a multiple of %d, nr at most %d.", s.lanes, maxNR))

	// DI: p rows, R8: ldp bytes, SI: q rows, R9: ldq bytes, R10: s,
	// R11: lds bytes, R12: end of s (s + nq*lds), BX: r rows, R13: ldr bytes,
	// CX: rows left, AX and DX: scratch.
	Load(Param("p"), RDI)
	Load(Param("ldp"), R8)
	SHLQ(U8(3), R8)
	Load(Param("q"), RSI)
	Load(Param("ldq"), R9)
	SHLQ(U8(3), R9)
	Load(Param("s"), R10)
	Load(Param("lds"), R11)
	SHLQ(U8(3), R11)
	Load(Param("nq"), R12)
	IMULQ(R11, R12)
	ADDQ(R10, R12)
	Load(Param("r"), RBX)
	Load(Param("ldr"), R13)
	SHLQ(U8(3), R13)
	Load(Param("nr"), RDX)
	Load(Param("n"), RCX)
	done := name + "_done"
	for nr := 0; nr <= maxNR; nr++ {
		CMPQ(RDX, U8(nr))
		JE(LabelRef(fmt.Sprintf("%s_nr%d", name, nr)))
	}
	JMP(LabelRef(done))
	for nr := 0; nr <= maxNR; nr++ {
		projDotsVariant(s, b, nr, fmt.Sprintf("%s_nr%d", name, nr))
		JMP(LabelRef(done))
	}
	Label(done)
	VZEROUPPER()
	RET()
}

// projDotsVariant emits the sweep for nr dot products per column: a loop
// over U row vectors per column, then one over single vectors.
func projDotsVariant(s isa, b, nr int, pfx string) {
	U := projDotsU[s.name][b]
	r := s.regs
	// With few dot products, each row vector u of a column gets its own
	// accumulator (nu = U): the U FMAs into one accumulator per iteration
	// would otherwise be a dependent chain. Summed before the reduction.
	nu := 1
	if U > 1 && nr*b*U+b*U+b <= len(r) {
		nu = U
	}
	nacc := nr * b * nu
	accs := r[:nacc] // accs[(k*b+c)*nu+u]: Σ r_k * p_c over vector u
	acc := func(k, c, u int) VecPhysical { return accs[(k*b+c)*nu+u%nu] }
	pv := func(c, u int) VecPhysical { return r[nacc+c*U+u] }
	// With U == 1 on AVX-512: one temporary for the Q or R vector, S(l, c)
	// an embedded broadcast. Otherwise b broadcast registers for S(l, c)
	// (Q a memory operand) and one temporary for R.
	rest := r[nacc+b*U:]
	tmp := rest[0]
	var bcst []VecPhysical
	if !s.is512() || U > 1 {
		bcst = rest[:b]
	}
	// On AVX-512 with U > 1 and b > 1, when the registers allow, the U
	// vectors of Q are loaded once into qv and each used b times (a memory
	// operand would load them b times).
	var qv []VecPhysical
	if s.is512() && U > 1 && b > 1 && len(rest) >= b+U {
		qv = rest[b : b+U]
	}
	pAddr := func(c, u int) Mem {
		m := Mem{Disp: u * s.bytes}
		switch c {
		case 0:
			m.Base = RDI
		case 1:
			m.Base, m.Index, m.Scale = RDI, R8, 1
		case 2:
			m.Base, m.Index, m.Scale = RDI, R8, 2
		default:
			m.Base, m.Index, m.Scale = RAX, R8, 1 // AX = DI + 2*ldp
		}
		return m
	}

	Label(pfx)
	for _, a := range accs {
		VXORPD(a, a, a)
	}
	for pass, uu := range []int{U, 1} {
		body := fmt.Sprintf("%s_u%d", pfx, uu)
		if pass == 1 && U == 1 {
			break
		}
		panel := func(store bool) {
			if b > 3 {
				LEAQ(Mem{Base: RDI, Index: R8, Scale: 2}, RAX)
			}
			for c := 0; c < b; c++ {
				for u := 0; u < uu; u++ {
					if store {
						VMOVUPD(pv(c, u), pAddr(c, u))
					} else {
						VMOVUPD(pAddr(c, u), pv(c, u))
					}
				}
			}
		}
		Label(body)
		CMPQ(RCX, U8(uu*s.lanes))
		if uu > 1 {
			JB(LabelRef(fmt.Sprintf("%s_u1", pfx)))
		} else {
			JB(LabelRef(pfx + "_store"))
		}
		panel(false)
		// P -= Q S, one chain per vector over l.
		MOVQ(RSI, RAX)
		MOVQ(R10, RDX)
		Label(body + "_upd")
		CMPQ(RDX, R12)
		JAE(LabelRef(body + "_dots"))
		if s.is512() && U == 1 {
			VMOVUPD(Mem{Base: RAX}, tmp)
			for c := 0; c < b; c++ {
				VFNMADD231PD_BCST(Mem{Base: RDX, Disp: 8 * c}, tmp, pv(c, 0))
			}
		} else {
			for c := 0; c < b; c++ {
				VBROADCASTSD(Mem{Base: RDX, Disp: 8 * c}, bcst[c])
			}
			for u := 0; u < uu; u++ {
				var q Op = Mem{Base: RAX, Disp: u * s.bytes}
				if qv != nil {
					VMOVUPD(q, qv[u])
					q = qv[u]
				}
				for c := 0; c < b; c++ {
					VFNMADD231PD(q, bcst[c], pv(c, u))
				}
			}
		}
		ADDQ(R9, RAX)
		ADDQ(R11, RDX)
		JMP(LabelRef(body + "_upd"))

		Label(body + "_dots")
		// Store the updated panel before the dots (R may be P); with no
		// projection (nq == 0: s == end of s) the panel is unchanged and the
		// stores, the bottleneck of such a pass, are skipped.
		CMPQ(R10, R12)
		JE(LabelRef(body + "_nostore"))
		panel(true)
		Label(body + "_nostore")
		MOVQ(RBX, RAX)
		for k := 0; k < nr; k++ {
			for u := 0; u < uu; u++ {
				VMOVUPD(Mem{Base: RAX, Disp: u * s.bytes}, tmp)
				for c := 0; c < b; c++ {
					VFMADD231PD(tmp, pv(c, u), acc(k, c, u))
				}
			}
			if k < nr-1 {
				ADDQ(R13, RAX)
			}
		}
		ADDQ(U32(uu*s.bytes), RDI)
		ADDQ(U32(uu*s.bytes), RSI)
		ADDQ(U32(uu*s.bytes), RBX)
		SUBQ(U8(uu*s.lanes), RCX)
		JMP(LabelRef(body))
	}

	Label(pfx + "_store")
	if nr == 0 {
		return
	}
	Load(Param("gm"), RDX)
	Load(Param("ldg"), RAX)
	SHLQ(U8(3), RAX)
	for k := 0; k < nr; k++ {
		for c := 0; c < b; c++ {
			a := acc(k, c, 0)
			if nu == 4 {
				VADDPD(acc(k, c, 1), a, a)
				VADDPD(acc(k, c, 3), acc(k, c, 2), acc(k, c, 2))
				VADDPD(acc(k, c, 2), a, a)
			} else if nu == 2 {
				VADDPD(acc(k, c, 1), a, a)
			}
			if s.is512() {
				hsum512EVEX(a, tmp)
			} else {
				hsum256(a, tmp)
			}
			VMOVSD(a.AsX(), Mem{Base: RDX, Disp: 8 * c})
		}
		if k < nr-1 {
			ADDQ(RAX, RDX)
		}
	}
}

// hsum512EVEX is hsum512 for any ZMM register (VEXTRACTF64X2 instead of the
// VEX-only VEXTRACTF128).
func hsum512EVEX(z, tmpz VecPhysical) {
	y, ty := z.AsY(), tmpz.AsY()
	x, tx := z.AsX(), tmpz.AsX()
	VEXTRACTF64X4(U8(1), z, ty)
	VADDPD(ty, y, y)
	VEXTRACTF64X2(U8(1), y, tx)
	VADDPD(tx, x, x)
	VPERMILPD(U8(1), x, tx)
	VADDSD(tx, x, x)
}
