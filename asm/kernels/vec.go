package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// genDot writes dot<ISA>(x, y []float64) float64: four accumulators over
// blocks of 4 vectors, then whole vectors, then the tail (a masked vector on
// AVX-512, scalar FMAs after the reduction on AVX2). Reads x[:len(x)] and
// y[:len(x)] only.
func genDot(s isa) {
	TEXT("dot"+s.name, NOSPLIT, "func(x, y []float64) float64")
	Pragma("noescape")
	Doc("dot" + s.name + " returns Σ x[i]*y[i] for i < len(x), with FMAs.")
	Load(Param("x").Base(), RSI)
	Load(Param("y").Base(), RDI)
	Load(Param("x").Len(), RCX)
	r := s.regs
	for i := 0; i < 4; i++ {
		VXORPD(r[i], r[i], r[i])
	}
	w := s.lanes
	Label("dot" + s.name + "_loop4")
	CMPQ(RCX, U8(4*w))
	JB(LabelRef("dot" + s.name + "_loop1"))
	for i := 0; i < 4; i++ {
		VMOVUPD(Mem{Base: RSI, Disp: i * s.bytes}, r[4+i])
	}
	for i := 0; i < 4; i++ {
		VFMADD231PD(Mem{Base: RDI, Disp: i * s.bytes}, r[4+i], r[i])
	}
	ADDQ(U32(4*s.bytes), RSI)
	ADDQ(U32(4*s.bytes), RDI)
	SUBQ(U8(4*w), RCX)
	JMP(LabelRef("dot" + s.name + "_loop4"))

	Label("dot" + s.name + "_loop1")
	CMPQ(RCX, U8(w))
	JB(LabelRef("dot" + s.name + "_tail"))
	VMOVUPD(Mem{Base: RSI}, r[4])
	VFMADD231PD(Mem{Base: RDI}, r[4], r[0])
	ADDQ(U8(s.bytes), RSI)
	ADDQ(U8(s.bytes), RDI)
	SUBQ(U8(w), RCX)
	JMP(LabelRef("dot" + s.name + "_loop1"))

	Label("dot" + s.name + "_tail")
	if s.is512() {
		TESTQ(RCX, RCX)
		JE(LabelRef("dot" + s.name + "_reduce"))
		kmaskFromCount()
		VMOVUPD_Z(Mem{Base: RSI}, K1, r[4])
		VFMADD231PD(Mem{Base: RDI}, r[4], K1, r[1])
	}
	Label("dot" + s.name + "_reduce")
	VADDPD(r[1], r[0], r[0])
	VADDPD(r[3], r[2], r[2])
	VADDPD(r[2], r[0], r[0])
	if s.is512() {
		hsum512(r[0], r[1])
	} else {
		hsum256(r[0], r[1])
		// Scalar tail, after the reduction: VEX scalar ops zero the upper lanes.
		Label("dot" + s.name + "_scalar")
		TESTQ(RCX, RCX)
		JE(LabelRef("dot" + s.name + "_done"))
		VMOVSD(Mem{Base: RSI}, X1)
		VFMADD231SD(Mem{Base: RDI}, X1, X0)
		ADDQ(U8(8), RSI)
		ADDQ(U8(8), RDI)
		DECQ(RCX)
		JMP(LabelRef("dot" + s.name + "_scalar"))
	}
	Label("dot" + s.name + "_done")
	VZEROUPPER()
	Store(X0, ReturnIndex(0))
	RET()
}

// genAxpy writes axpy<ISA>(alpha float64, x, y []float64):
// y[i] += alpha*x[i] for i < len(x), with FMAs.
func genAxpy(s isa) {
	n := "axpy" + s.name
	TEXT(n, NOSPLIT, "func(alpha float64, x, y []float64)")
	Pragma("noescape")
	Doc(n + " computes y[i] += alpha*x[i] for i < len(x), with FMAs.")
	Load(Param("x").Base(), RSI)
	Load(Param("y").Base(), RDI)
	Load(Param("x").Len(), RCX)
	r := s.regs
	alpha := r[0]
	Load(Param("alpha"), alpha.AsX())
	VBROADCASTSD(alpha.AsX(), alpha)
	w := s.lanes
	Label(n + "_loop4")
	CMPQ(RCX, U8(4*w))
	JB(LabelRef(n + "_loop1"))
	for i := 0; i < 4; i++ {
		VMOVUPD(Mem{Base: RDI, Disp: i * s.bytes}, r[1+i])
	}
	for i := 0; i < 4; i++ {
		VFMADD231PD(Mem{Base: RSI, Disp: i * s.bytes}, alpha, r[1+i])
	}
	for i := 0; i < 4; i++ {
		VMOVUPD(r[1+i], Mem{Base: RDI, Disp: i * s.bytes})
	}
	ADDQ(U32(4*s.bytes), RSI)
	ADDQ(U32(4*s.bytes), RDI)
	SUBQ(U8(4*w), RCX)
	JMP(LabelRef(n + "_loop4"))

	Label(n + "_loop1")
	CMPQ(RCX, U8(w))
	JB(LabelRef(n + "_tail"))
	VMOVUPD(Mem{Base: RDI}, r[1])
	VFMADD231PD(Mem{Base: RSI}, alpha, r[1])
	VMOVUPD(r[1], Mem{Base: RDI})
	ADDQ(U8(s.bytes), RSI)
	ADDQ(U8(s.bytes), RDI)
	SUBQ(U8(w), RCX)
	JMP(LabelRef(n + "_loop1"))

	Label(n + "_tail")
	TESTQ(RCX, RCX)
	JE(LabelRef(n + "_done"))
	if s.is512() {
		kmaskFromCount()
		VMOVUPD_Z(Mem{Base: RDI}, K1, r[1])
		VFMADD231PD(Mem{Base: RSI}, alpha, K1, r[1])
		VMOVUPD(r[1], K1, Mem{Base: RDI})
	} else {
		// y = alpha*x + y, one element at a time.
		VMOVSD(Mem{Base: RSI}, X1)
		VFMADD213SD(Mem{Base: RDI}, X0, X1)
		VMOVSD(X1, Mem{Base: RDI})
		ADDQ(U8(8), RSI)
		ADDQ(U8(8), RDI)
		DECQ(RCX)
		JMP(LabelRef(n + "_tail"))
	}
	Label(n + "_done")
	VZEROUPPER()
	RET()
}

// genScale writes scale<ISA>(alpha float64, x []float64): x[i] *= alpha.
func genScale(s isa) {
	n := "scale" + s.name
	TEXT(n, NOSPLIT, "func(alpha float64, x []float64)")
	Pragma("noescape")
	Doc(n + " computes x[i] *= alpha for i < len(x).")
	Load(Param("x").Base(), RSI)
	Load(Param("x").Len(), RCX)
	r := s.regs
	alpha := r[0]
	Load(Param("alpha"), alpha.AsX())
	VBROADCASTSD(alpha.AsX(), alpha)
	w := s.lanes
	Label(n + "_loop4")
	CMPQ(RCX, U8(4*w))
	JB(LabelRef(n + "_loop1"))
	for i := 0; i < 4; i++ {
		VMULPD(Mem{Base: RSI, Disp: i * s.bytes}, alpha, r[1+i])
	}
	for i := 0; i < 4; i++ {
		VMOVUPD(r[1+i], Mem{Base: RSI, Disp: i * s.bytes})
	}
	ADDQ(U32(4*s.bytes), RSI)
	SUBQ(U8(4*w), RCX)
	JMP(LabelRef(n + "_loop4"))

	Label(n + "_loop1")
	CMPQ(RCX, U8(w))
	JB(LabelRef(n + "_tail"))
	VMULPD(Mem{Base: RSI}, alpha, r[1])
	VMOVUPD(r[1], Mem{Base: RSI})
	ADDQ(U8(s.bytes), RSI)
	SUBQ(U8(w), RCX)
	JMP(LabelRef(n + "_loop1"))

	Label(n + "_tail")
	TESTQ(RCX, RCX)
	JE(LabelRef(n + "_done"))
	if s.is512() {
		kmaskFromCount()
		VMULPD_Z(Mem{Base: RSI}, alpha, K1, r[1])
		VMOVUPD(r[1], K1, Mem{Base: RSI})
	} else {
		VMULSD(Mem{Base: RSI}, X0, X1)
		VMOVSD(X1, Mem{Base: RSI})
		ADDQ(U8(8), RSI)
		DECQ(RCX)
		JMP(LabelRef(n + "_tail"))
	}
	Label(n + "_done")
	VZEROUPPER()
	RET()
}

// genPeak writes peakFMA<ISA>(iters int): iters times, `chains` independent
// VFMADD231PD on full-width registers (all operands zero, so no denormals).
func genPeak(s isa, chains int) {
	n := "peakFMA" + s.name
	TEXT(n, NOSPLIT, "func(iters int)")
	Doc(n + " runs iters iterations of independent VFMADD231PD chains, one per accumulator, to measure the FMA peak.")
	Load(Param("iters"), RCX)
	r := s.regs
	a, b := r[chains], r[chains+1]
	VXORPD(a, a, a)
	VXORPD(b, b, b)
	for i := 0; i < chains; i++ {
		VXORPD(r[i], r[i], r[i])
	}
	TESTQ(RCX, RCX)
	JLE(LabelRef(n + "_done"))
	Label(n + "_loop")
	for i := 0; i < chains; i++ {
		VFMADD231PD(a, b, r[i])
	}
	DECQ(RCX)
	JNZ(LabelRef(n + "_loop"))
	Label(n + "_done")
	VZEROUPPER()
	RET()
}
