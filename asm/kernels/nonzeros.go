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
