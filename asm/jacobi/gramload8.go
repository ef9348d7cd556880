package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// gramLoad48 writes gramLoad48AVX2: gramLoad4AVX2 into half of the 8-lane
// layout of the AVX-512 kernels (gram8.go).
func gramLoad48() {
	TEXT("gramLoad48AVX2", NOSPLIT, "func(at *float64, n int, src *[4]*float64, lda int, scale *[4]float64, tail *[4]uint64, fro *[4]float64)")
	Pragma("noescape")
	Doc(
		"gramLoad48AVX2 is gramLoad4AVX2 writing element (r, c) of matrix l to",
		"at[(c*n+r)*8+l] (l < 4: the caller passes the 8-lane array, or its fifth",
		"element for lanes 4-7), the layout of gram8AVX512.",
	)
	at := Load(Param("at"), GP64())
	n := Load(Param("n"), GP64())
	srcp := Load(Param("src"), GP64())
	ldaB := Load(Param("lda"), GP64())
	SHLQ(Imm(3), ldaB)
	scalep := Load(Param("scale"), GP64())
	tail := Load(Param("tail"), GP64())
	scale, mask := Y15, Y14
	fro := []VecPhysical{Y12, Y13}
	VMOVUPD(Mem{Base: scalep}, scale)
	VMOVDQU(Mem{Base: tail}, mask)
	VXORPD(fro[0], fro[0], fro[0])
	VXORPD(fro[1], fro[1], fro[1])
	s := []GPVirtual{GP64(), GP64(), GP64(), GP64()}
	for l := range s {
		MOVQ(Mem{Base: srcp, Disp: 8 * l}, s[l])
	}
	colB := GP64() // bytes between columns of at: n*64
	MOVQ(n, colB)
	SHLQ(Imm(6), colB)
	colB3 := GP64()
	LEAQ(Mem{Base: colB, Index: colB, Scale: 2}, colB3)
	blk := GP64() // bytes between column blocks of at: 4n*64
	MOVQ(colB, blk)
	SHLQ(Imm(2), blk)
	full := GP64()
	MOVQ(n, full)
	ANDQ(I32(-4), full)
	SHLQ(Imm(3), full)
	rem := GP64()
	MOVQ(n, rem)
	ANDQ(Imm(3), rem)
	r, c, q := GP64(), GP64(), GP64()
	MOVQ(n, r)
	x := []VecPhysical{Y0, Y1, Y2, Y3}
	t := []VecPhysical{Y4, Y5, Y6, Y7}
	y := []VecPhysical{Y8, Y9, Y10, Y11}
	transpose := func() {
		VUNPCKLPD(x[1], x[0], t[0])
		VUNPCKHPD(x[1], x[0], t[1])
		VUNPCKLPD(x[3], x[2], t[2])
		VUNPCKHPD(x[3], x[2], t[3])
		VPERM2F128(Imm(0x20), t[2], t[0], y[0])
		VPERM2F128(Imm(0x20), t[3], t[1], y[1])
		VPERM2F128(Imm(0x31), t[2], t[0], y[2])
		VPERM2F128(Imm(0x31), t[3], t[1], y[3])
		for u := range y {
			VMULPD(scale, y[u], y[u])
		}
	}
	Label("glr")
	XORQ(c, c)
	MOVQ(at, q)
	Label("glc")
	CMPQ(c, full)
	JGE(LabelRef("glt"))
	for l := range x {
		VMOVUPD(Mem{Base: s[l], Index: c, Scale: 1}, x[l])
	}
	transpose()
	stores := []Mem{{Base: q}, {Base: q, Index: colB, Scale: 1}, {Base: q, Index: colB, Scale: 2}, {Base: q, Index: colB3, Scale: 1}}
	for u := range y {
		VMOVUPD(y[u], stores[u])
		VFMADD231PD(y[u], y[u], fro[u%2])
	}
	ADDQ(blk, q)
	ADDQ(Imm(32), c)
	JMP(LabelRef("glc"))
	Label("glt")
	TESTQ(rem, rem)
	JZ(LabelRef("glnext"))
	for l := range x {
		VMASKMOVPD(Mem{Base: s[l], Index: c, Scale: 1}, mask, x[l])
	}
	transpose()
	// Columns past n are zero (masked loads): adding their squares
	// changes nothing, but they are not stored.
	VMOVUPD(y[0], stores[0])
	VFMADD231PD(y[0], y[0], fro[0])
	CMPQ(rem, Imm(2))
	JL(LabelRef("glnext"))
	VMOVUPD(y[1], stores[1])
	VFMADD231PD(y[1], y[1], fro[1])
	CMPQ(rem, Imm(3))
	JL(LabelRef("glnext"))
	VMOVUPD(y[2], stores[2])
	VFMADD231PD(y[2], y[2], fro[0])
	Label("glnext")
	for l := range s {
		ADDQ(ldaB, s[l])
	}
	ADDQ(Imm(64), at)
	DECQ(r)
	JNZ(LabelRef("glr"))
	VADDPD(fro[1], fro[0], fro[0])
	frop := Load(Param("fro"), GP64())
	VMOVUPD(fro[0], Mem{Base: frop})
	VZEROUPPER()
	RET()
}
