package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// atxGroups is the number of independent partial sums of AtX: rows r with
// the same r%4 accumulate together, so four FMA chains per column vector
// run at once (one chain would wait on the FMA latency every row).
const atxGroups = 4

// genAtX writes
//
//	func atxKernel<ISA>(y *float64, a *float64, lda int, x *float64, n, nc int)
//
// computing y[j] = Σ_{r<n} a[r*lda+j] * x[r] for j < nc (0 < nc <=
// lanes*maxNB). The last column vector is masked.
func genAtX(s isa) {
	name := "atxKernel" + s.name
	TEXT(name, NOSPLIT, "func(y *float64, a *float64, lda int, x *float64, n, nc int)")
	Pragma("noescape")
	Doc(name+" computes y[j] = Σ_{r<n} a[r*lda+j] * x[r] for j < nc.",
		fmt.Sprintf("nc must be in 1..%d.", s.lanes*s.maxNB))

	// DI: y, SI: a row, R9: lda in bytes, R13: 3*lda in bytes, R11: x,
	// CX: rows left, BX: nb-1.
	Load(Param("y"), RDI)
	Load(Param("a"), RSI)
	Load(Param("lda"), R9)
	SHLQ(U8(3), R9)
	LEAQ(Mem{Base: R9, Index: R9, Scale: 2}, R13)
	Load(Param("x"), R11)

	columnDispatch(s, name, "n", func(nb int, half bool, pfx, done string) {
		atxVariant(s, nb, half, pfx)
		JMP(LabelRef(done))
	})
}

// atxVariant emits AtX for nb column vectors; with half set (AVX-512 only)
// the last one is a YMM register.
func atxVariant(s isa, nb int, half bool, pfx string) {
	r := s.regs
	w := vecAs(nb, half)
	acc := func(u, v int) Register { return w(r[u*nb+v], v) }
	// AVX-512: broadcast temporaries r[16..19]. AVX2: r[12], r[14]
	// broadcasts, r[13] the masked last A vector, r[15] the mask.
	bcst := func(u int) VecPhysical {
		if s.is512() {
			return r[16+u]
		}
		return r[12+2*(u%2)]
	}
	aRow := func(u, v int) Mem {
		m := Mem{Base: RSI, Disp: v * s.bytes}
		switch u {
		case 1:
			m.Index, m.Scale = R9, 1
		case 2:
			m.Index, m.Scale = R9, 2
		case 3:
			m.Index, m.Scale = R13, 1
		}
		return m
	}
	// row u of the current group: y += a[r+u, :] * x[r+u]
	row := func(u int) {
		t := bcst(u)
		VBROADCASTSD(Mem{Base: R11, Disp: 8 * u}, t)
		for v := 0; v < nb; v++ {
			switch {
			case v < nb-1:
				VFMADD231PD(aRow(u, v), t, acc(u, v))
			case s.is512():
				VFMADD231PD(aRow(u, v), w(t, v), K1, acc(u, v))
			default:
				VMASKMOVPD(aRow(u, v), r[15], r[13])
				VFMADD231PD(r[13], t, acc(u, v))
			}
		}
	}

	Label(pfx)
	for u := 0; u < atxGroups; u++ {
		for v := 0; v < nb; v++ {
			a := r[u*nb+v]
			VXORPD(a, a, a)
		}
	}
	Label(pfx + "_loop4")
	CMPQ(RCX, U8(atxGroups))
	JB(LabelRef(pfx + "_loop1"))
	for u := 0; u < atxGroups; u++ {
		row(u)
	}
	LEAQ(Mem{Base: RSI, Index: R9, Scale: 4}, RSI)
	ADDQ(U8(8*atxGroups), R11)
	SUBQ(U8(atxGroups), RCX)
	JMP(LabelRef(pfx + "_loop4"))

	Label(pfx + "_loop1")
	TESTQ(RCX, RCX)
	JE(LabelRef(pfx + "_store"))
	row(0)
	ADDQ(R9, RSI)
	ADDQ(U8(8), R11)
	DECQ(RCX)
	JMP(LabelRef(pfx + "_loop1"))

	Label(pfx + "_store")
	for v := 0; v < nb; v++ {
		VADDPD(acc(1, v), acc(0, v), acc(0, v))
		VADDPD(acc(3, v), acc(2, v), acc(2, v))
		VADDPD(acc(2, v), acc(0, v), acc(0, v))
		m := Mem{Base: RDI, Disp: v * s.bytes}
		switch {
		case v < nb-1:
			VMOVUPD(acc(0, v), m)
		case s.is512():
			VMOVUPD(acc(0, v), K1, m)
		default:
			VMASKMOVPD(acc(0, v), r[15], m)
		}
	}
}
