package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// panelPassVariants lists the (b, c, before) cases of panelPassAVX512 in
// the order of its variant argument (kernels.panelPassVariant must agree):
// first the passes whose dots are with the columns before c (c = 1..3),
// then those whose dots are with columns c..b-1, by c then b.
func panelPassVariants() (vs [][3]int) {
	for c := 1; c <= 3; c++ {
		vs = append(vs, [3]int{c + 1, c, 1})
	}
	for c := 1; c <= 3; c++ {
		for b := c + 1; b <= 4; b++ {
			vs = append(vs, [3]int{b, c, 0})
		}
	}
	return vs
}

// genPanelPass writes
//
//	func panelPassAVX512(p *float64, ldp int, s *float64, lds int, g *float64, n int, variant int)
//
// one pass of Gram–Schmidt inside a column-major panel of b <= 4 columns
// (column k at p + k*ldp, n rows, n a multiple of 8): column c is updated
// with the columns before it, p_c -= Σ_{l<c} s[l*lds] p_l (l in order,
// one FMA chain per vector, s as embedded broadcasts), then the dot
// products of the updated p_c with columns 0..c-1 (before) or c..b-1 are
// written to g. Every panel column a pass touches is loaded once per chunk
// of rows and used from registers for both the update and the dots (the
// generic ProjDots loads the columns of Q and of R separately), four
// vectors per column at a time with one accumulator per vector; the
// coefficients are broadcast into registers once per call.
func genPanelPass() {
	name := "panelPassAVX512"
	TEXT(name, NOSPLIT, "func(p *float64, ldp int, s *float64, lds int, gm *float64, n int, variant int)")
	Pragma("noescape")
	Doc(name+" updates column c of the panel at p with the columns before it and",
		"writes the dots of the result with the columns before it or with columns",
		"c..b-1 (see panelPassVariants for (b, c, before) by variant). n must be a",
		"multiple of 8.")
	// DI: panel rows, R8: ldp bytes, AX: DI + 2*ldp, R10: s, R11: lds
	// bytes, CX: rows left, DX: scratch.
	Load(Param("p"), RDI)
	Load(Param("ldp"), R8)
	SHLQ(U8(3), R8)
	Load(Param("s"), R10)
	Load(Param("lds"), R11)
	SHLQ(U8(3), R11)
	Load(Param("n"), RCX)
	Load(Param("variant"), RDX)
	done := name + "_done"
	vs := panelPassVariants()
	for i := range vs {
		CMPQ(RDX, U8(i))
		JE(LabelRef(fmt.Sprintf("%s_v%d", name, i)))
	}
	JMP(LabelRef(done))
	for i, v := range vs {
		panelPassVariant(fmt.Sprintf("%s_v%d", name, i), v[0], v[1], v[2] == 1)
		JMP(LabelRef(done))
	}
	Label(done)
	VZEROUPPER()
	RET()
}

func panelPassVariant(pfx string, b, c int, before bool) {
	const U = 4
	k0, k1 := c, b
	if before {
		k0, k1 = 0, c
	}
	ncol := max(c+1, k1) // columns 0..ncol-1 are loaded
	r := avx512.regs
	v := func(k, u int) VecPhysical { return r[k*U+u] }
	nd := k1 - k0
	accs := r[ncol*U : ncol*U+nd*U]
	acc := func(j, u int) VecPhysical { return accs[j*U+u] }
	addr := func(k, u int) Mem {
		m := Mem{Disp: u * 64}
		switch k {
		case 0:
			m.Base = RDI
		case 1:
			m.Base, m.Index, m.Scale = RDI, R8, 1
		case 2:
			m.Base = RAX
		default:
			m.Base, m.Index, m.Scale = RAX, R8, 1
		}
		return m
	}
	sAddr := func(l int) Mem {
		switch l {
		case 0:
			return Mem{Base: R10}
		case 1:
			return Mem{Base: R10, Index: R11, Scale: 1}
		default:
			return Mem{Base: R10, Index: R11, Scale: 2}
		}
	}

	// The c coefficients are broadcast once, after the accumulators (an
	// embedded broadcast per FMA would double the loads of a chunk).
	bc := r[ncol*U+nd*U : ncol*U+nd*U+c]
	Label(pfx)
	for _, a := range accs {
		VXORPD(a, a, a)
	}
	for l := 0; l < c; l++ {
		VBROADCASTSD(sAddr(l), bc[l])
	}
	for _, uu := range []int{U, 1} {
		body := fmt.Sprintf("%s_u%d", pfx, uu)
		Label(body)
		CMPQ(RCX, U8(8*uu))
		if uu > 1 {
			JB(LabelRef(fmt.Sprintf("%s_u1", pfx)))
		} else {
			JB(LabelRef(pfx + "_store"))
		}
		LEAQ(Mem{Base: RDI, Index: R8, Scale: 2}, RAX)
		for k := 0; k < ncol; k++ {
			for u := 0; u < uu; u++ {
				VMOVUPD(addr(k, u), v(k, u))
			}
		}
		for l := 0; l < c; l++ {
			for u := 0; u < uu; u++ {
				VFNMADD231PD(bc[l], v(l, u), v(c, u))
			}
		}
		for u := 0; u < uu; u++ {
			VMOVUPD(v(c, u), addr(c, u))
		}
		for k := k0; k < k1; k++ {
			for u := 0; u < uu; u++ {
				VFMADD231PD(v(k, u), v(c, u), acc(k-k0, u))
			}
		}
		ADDQ(U32(uu*64), RDI)
		SUBQ(U8(8*uu), RCX)
		JMP(LabelRef(body))
	}

	Label(pfx + "_store")
	Load(Param("gm"), RDX)
	tmp := r[31]
	for j := 0; j < nd; j++ {
		VADDPD(acc(j, 1), acc(j, 0), acc(j, 0))
		VADDPD(acc(j, 3), acc(j, 2), acc(j, 2))
		VADDPD(acc(j, 2), acc(j, 0), acc(j, 0))
		hsum512EVEX(acc(j, 0), tmp)
		VMOVSD(acc(j, 0).AsX(), Mem{Base: RDX, Disp: 8 * j})
	}
}
