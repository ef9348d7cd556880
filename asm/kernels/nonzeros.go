package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// genNonzeros writes
//
//	func nonzerosAVX512(idx *int32, val *float64, x *float64, n int) (cnt int)
//
// listing the entries of x[:n] (n a multiple of 8) that compare unequal to
// zero (v != 0, so NaN is listed; +0 and -0 are not): idx[:cnt] gets their
// indices and val[:cnt] their values, in order. Per vector of 8 entries
// VCOMPRESSPD/VPCOMPRESSD pack the listed ones in registers, and whole
// vectors are stored at position cnt (the register forms: the memory forms
// are microcoded and slow on Zen 4). So idx and val are written up to
// index n-1 beyond cnt; cnt <= the block's start keeps every store inside
// [0, n).
func genNonzeros() {
	iota := GLOBL("nonzerosiota", RODATA|NOPTR)
	for i := 0; i < 8; i++ {
		DATA(4*i, U32(i))
	}
	for i := 0; i < 8; i++ {
		DATA(32+4*i, U32(8))
	}

	TEXT("nonzerosAVX512", NOSPLIT, "func(idx *int32, val *float64, x *float64, n int) (cnt int)")
	Pragma("noescape")
	Doc("nonzerosAVX512 lists the nonzero entries of x[:n] (n a multiple of 8) in idx[:cnt], val[:cnt];",
		"it may write idx[cnt:n] and val[cnt:n].")
	// DI: idx, SI: val, DX: x, CX: vectors left, AX: cnt, BX: popcount.
	// Y1: the indices of the current vector, Y2: eight 8s, Z0: zero.
	Load(Param("idx"), RDI)
	Load(Param("val"), RSI)
	Load(Param("x"), RDX)
	Load(Param("n"), RCX)
	SHRQ(U8(3), RCX)
	XORQ(RAX, RAX)
	VXORPD(Z0, Z0, Z0)
	VMOVDQU(iota, Y1)
	VMOVDQU(iota.Offset(32), Y2)
	TESTQ(RCX, RCX)
	JE(LabelRef("nonzeros_done"))
	Label("nonzeros_loop")
	VMOVUPD(Mem{Base: RDX}, Z3)
	VCMPPD(U8(4), Z0, Z3, K2) // NEQ_UQ: v != 0
	KMOVB(K2, EBX)
	POPCNTL(EBX, EBX)
	VCOMPRESSPD(Z3, K2, Z4)
	VPCOMPRESSD(Y1, K2, Y5)
	VMOVUPD(Z4, Mem{Base: RSI, Index: RAX, Scale: 8})
	VMOVDQU(Y5, Mem{Base: RDI, Index: RAX, Scale: 4})
	ADDQ(RBX, RAX)
	VPADDD(Y2, Y1, Y1)
	ADDQ(U8(64), RDX)
	DECQ(RCX)
	JNZ(LabelRef("nonzeros_loop"))
	Label("nonzeros_done")
	Store(RAX, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// genNonzerosAVX2 writes nonzerosAVX2, nonzerosAVX512 for AVX2 (n a
// multiple of 4), four entries per step without a compress instruction:
// the 4-bit mask of the nonzero entries (VCMPPD, VMOVMSKPD) selects a row
// of two tables, a VPERMPS pattern that packs the listed doubles to the
// front (as pairs of 32-bit halves) and their lane numbers, added to the
// index of the first entry. Whole vectors are stored at position cnt, as
// in nonzerosAVX512.
func genNonzerosAVX2() {
	// DATA writes into the global declared last.
	sel := func(m int) []int {
		var l []int
		for b := 0; b < 4; b++ {
			if m>>b&1 == 1 {
				l = append(l, b)
			}
		}
		return append(l, 0, 0, 0, 0)[:4] // unused positions: lane 0
	}
	perm := GLOBL("nonzerosperm", RODATA|NOPTR) // 16 x 8 dwords
	for m := 0; m < 16; m++ {
		for j, l := range sel(m) {
			DATA(32*m+8*j, U32(2*l))
			DATA(32*m+8*j+4, U32(2*l+1))
		}
	}
	lanes := GLOBL("nonzeroslane", RODATA|NOPTR) // 16 x 4 dwords, then four 4s
	for m := 0; m < 16; m++ {
		for j, l := range sel(m) {
			DATA(16*m+4*j, U32(l))
		}
	}
	for j := 0; j < 4; j++ {
		DATA(256+4*j, U32(4))
	}

	TEXT("nonzerosAVX2", NOSPLIT, "func(idx *int32, val *float64, x *float64, n int) (cnt int)")
	Pragma("noescape")
	Doc("nonzerosAVX2 lists the nonzero entries of x[:n] (n a multiple of 4) in idx[:cnt], val[:cnt];",
		"it may write idx[cnt:n] and val[cnt:n].")
	// DI: idx, SI: val, DX: x, CX: vectors left, AX: cnt, BX: mask then
	// popcount, R9: mask*32, R10: perm, R11: lanes. X1: four copies of the
	// index of the current vector's first entry, X2: four 4s, Y0: zero.
	Load(Param("idx"), RDI)
	Load(Param("val"), RSI)
	Load(Param("x"), RDX)
	Load(Param("n"), RCX)
	SHRQ(U8(2), RCX)
	XORQ(RAX, RAX)
	VXORPD(Y0, Y0, Y0)
	VPXOR(X1, X1, X1)
	LEAQ(perm, R10)
	LEAQ(lanes, R11)
	VMOVDQU(Mem{Base: R11, Disp: 256}, X2)
	TESTQ(RCX, RCX)
	JE(LabelRef("nonzeros2_done"))
	Label("nonzeros2_loop")
	VMOVUPD(Mem{Base: RDX}, Y3)
	VCMPPD(U8(4), Y0, Y3, Y4) // NEQ_UQ: v != 0
	VMOVMSKPD(Y4, EBX)
	MOVQ(RBX, R9)
	SHLQ(U8(5), R9)
	VMOVDQU(Mem{Base: R10, Index: R9, Scale: 1}, Y6)
	VPERMPS(Y3, Y6, Y5)
	SHRQ(U8(1), R9) // mask*16
	VPADDD(Mem{Base: R11, Index: R9, Scale: 1}, X1, X7)
	POPCNTL(EBX, EBX)
	VMOVUPD(Y5, Mem{Base: RSI, Index: RAX, Scale: 8})
	VMOVDQU(X7, Mem{Base: RDI, Index: RAX, Scale: 4})
	ADDQ(RBX, RAX)
	VPADDD(X2, X1, X1)
	ADDQ(U8(32), RDX)
	DECQ(RCX)
	JNZ(LabelRef("nonzeros2_loop"))
	Label("nonzeros2_done")
	Store(RAX, ReturnIndex(0))
	VZEROUPPER()
	RET()
}
