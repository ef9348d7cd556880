package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// sparseMaxNB is the widest column block (in vectors) of SparseAB: one
// accumulator per column vector, the whole row in registers (64 columns on
// AVX-512, 48 on AVX2, which keeps r[13..15] for the broadcast, the masked
// last B vector and the mask).
var sparseMaxNB = map[string]int{"AVX512": 8, "AVX2": 12}

// genSparseAB writes
//
//	func sparseABKernel<ISA>(c *float64, val *float64, idx *int32, nnz int, b *float64, ldb, rows, nc int) (bad int)
//
// computing c[j] = Σ_{i<nnz} val[i] * b[idx[i]*ldb+j] for j < nc (0 < nc
// <= lanes*sparseMaxNB), i in order: one FMA chain per output starting
// from zero, the chain AB computes for a row whose other entries are zero.
// Per listed row it broadcasts val[i] once and FMAs the nb vectors of that
// row of B (memory operands; the last vector masked) into the nb
// accumulators. An index outside [0, rows) stops it before anything is
// written and returns bad = 1 (the Go side panics); otherwise bad = 0.
func genSparseAB(s isa) {
	name := "sparseABKernel" + s.name
	TEXT(name, NOSPLIT, "func(c *float64, val *float64, idx *int32, nnz int, b *float64, ldb, rows, nc int) (bad int)")
	Pragma("noescape")
	s.maxNB = sparseMaxNB[s.name]
	Doc(name+" computes c[j] = Σ_{i<nnz} val[i] * b[idx[i]*ldb+j] for j < nc.",
		fmt.Sprintf("nc must be in 1..%d; bad = 1 (nothing written) if an index is outside [0, rows).", s.lanes*s.maxNB))

	// DI: c, SI: val[i], R8: idx[i], R11: b, R10: ldb in bytes, R12: rows,
	// R9: entries left, AX: the current row's byte offset.
	XORQ(RAX, RAX)
	Store(RAX, ReturnIndex(0))
	Load(Param("c"), RDI)
	Load(Param("val"), RSI)
	Load(Param("idx"), R8)
	Load(Param("b"), R11)
	Load(Param("ldb"), R10)
	SHLQ(U8(3), R10)
	Load(Param("rows"), R12)

	columnDispatch(s, name, "nnz", func(nb int, half bool, pfx, done string) {
		sparseVariant(s, nb, half, pfx, name+"_bad")
		JMP(LabelRef(done))
	})
	Label(name + "_bad")
	MOVQ(U32(1), RAX)
	Store(RAX, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// sparseVariant emits SparseAB for nb column vectors (CX holds nnz); with
// half set (AVX-512 only) the last vector is a YMM register.
func sparseVariant(s isa, nb int, half bool, pfx, bad string) {
	r := s.regs
	w := vecAs(nb, half)
	acc := func(v int) Register { return w(r[v], v) }
	// AVX-512: r[30] the broadcast, r[31] the masked last B vector.
	// AVX2: r[13] the broadcast, r[14] the masked last B vector, r[15] the
	// mask.
	bc, last := r[13], r[14]
	if s.is512() {
		bc, last = r[30], r[31]
	}
	bVec := func(v int) Mem { return Mem{Base: R11, Index: RAX, Scale: 1, Disp: v * s.bytes} }

	Label(pfx)
	for v := 0; v < nb; v++ {
		VXORPD(r[v], r[v], r[v])
	}
	MOVQ(RCX, R9)
	TESTQ(R9, R9)
	JE(LabelRef(pfx + "store"))
	Label(pfx + "loop")
	MOVL(Mem{Base: R8}, EAX) // zero-extends: a negative index is a huge row
	CMPQ(RAX, R12)
	JAE(LabelRef(bad))
	IMULQ(R10, RAX)
	VBROADCASTSD(Mem{Base: RSI}, bc)
	for v := 0; v < nb-1; v++ {
		VFMADD231PD(bVec(v), bc, acc(v))
	}
	if s.is512() {
		VMOVUPD_Z(bVec(nb-1), K1, w(last, nb-1))
	} else {
		VMASKMOVPD(bVec(nb-1), r[15], last)
	}
	VFMADD231PD(w(last, nb-1), w(bc, nb-1), acc(nb-1))
	ADDQ(U8(4), R8)
	ADDQ(U8(8), RSI)
	DECQ(R9)
	JNZ(LabelRef(pfx + "loop"))

	Label(pfx + "store")
	for v := 0; v < nb; v++ {
		m := Mem{Base: RDI, Disp: v * s.bytes}
		switch {
		case v < nb-1:
			VMOVUPD(acc(v), m)
		case s.is512():
			VMOVUPD(acc(v), K1, m)
		default:
			VMASKMOVPD(acc(v), r[15], m)
		}
	}
}
