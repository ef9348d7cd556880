package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// transpose generates transposeAVX512: dst[c*ldd+r] = src[r*lds+c] for
// r < rows, c < cols, one destination row at a time by gathers of 8 (masked
// at the tail: nothing outside the logical elements is read or written). It
// also returns the largest |src| entry, or -1 if some entry is NaN or Inf.
func transpose() {
	TEXT("transposeAVX512", NOSPLIT, "func(dst *float64, ldd int, src *float64, lds int, rows, cols int) float64")
	Pragma("noescape")
	Doc(
		"transposeAVX512 sets dst[c*ldd+r] = src[r*lds+c] for r < rows, c < cols",
		"(gathers of 8 rows; masked tails) and returns the largest |src[r*lds+c]|, or",
		"-1 if an entry is NaN or Inf. rows, cols >= 1.",
	)
	dst := Load(Param("dst"), GP64())
	ldd := Load(Param("ldd"), GP64())
	src := Load(Param("src"), GP64())
	lds := Load(Param("lds"), GP64())
	rows := Load(Param("rows"), GP64())
	cols := GP64()
	Load(Param("cols"), cols)
	SHLQ(Imm(3), ldd)
	SHLQ(Imm(3), lds)

	idx, amax, maxF, absv, x := Z0, Z1, Z2, Z3, Z4
	Comment("idx = 0, lds, 2 lds, ... (bytes)")
	t := GP64()
	VPXORQ(idx, idx, idx)
	MOVQ(U32(0xff), t)
	KMOVW(t.As32(), K4) // K4: lanes finite so far
	XORQ(t, t)
	for l := 0; l < 8; l++ {
		// Build idx lane by lane through a small stack-free sequence:
		// broadcast t to the lane with a mask.
		MOVQ(U32(1<<l), cols) // temporarily reuse cols as the mask source
		KMOVW(cols.As32(), K1)
		VPBROADCASTQ(t, K1, idx)
		ADDQ(lds, t)
	}
	Load(Param("cols"), cols)
	VPXORQ(amax, amax, amax)
	MOVQ(U64(0x7fefffffffffffff), t)
	VPBROADCASTQ(t, maxF)
	MOVQ(U64(0x7fffffffffffffff), t)
	VPBROADCASTQ(t, absv)
	blk := GP64() // bytes from one gather block to the next: 8 lds
	MOVQ(lds, blk)
	SHLQ(Imm(3), blk)

	p := GP64()
	d := GP64()
	r := GP64()
	Label("col")
	MOVQ(src, p)
	MOVQ(dst, d)
	MOVQ(rows, r)
	Label("blk")
	CMPQ(r, Imm(8))
	JL(LabelRef("tail"))
	KXNORW(K1, K1, K1)
	VPXORQ(x, x, x)
	VGATHERQPD(Mem{Base: p, Index: idx, Scale: 1}, K1, x)
	VMOVUPD(x, Mem{Base: d})
	VPANDQ(x, absv, x)
	VMAXPD(x, amax, amax)
	VCMPPD(Imm(0x12), maxF, x, K4, K4) // |x| <= MaxFloat64, false on NaN
	ADDQ(blk, p)
	ADDQ(Imm(64), d)
	SUBQ(Imm(8), r)
	JMP(LabelRef("blk"))
	Label("tail")
	TESTQ(r, r)
	JZ(LabelRef("colnext"))
	Comment("K1 = K2 = (1 << r) - 1")
	XORQ(t, t)
	BTSQ(r, t)
	DECQ(t)
	KMOVW(t.As32(), K1)
	KMOVW(t.As32(), K2)
	VPXORQ(x, x, x)
	VGATHERQPD(Mem{Base: p, Index: idx, Scale: 1}, K1, x)
	VMOVUPD(x, K2, Mem{Base: d})
	VPANDQ(x, absv, x)
	VMAXPD(x, amax, amax)
	VCMPPD(Imm(0x12), maxF, x, K4, K4)
	Label("colnext")
	ADDQ(Imm(8), src)
	ADDQ(ldd, dst)
	DECQ(cols)
	JNZ(LabelRef("col"))

	Comment("horizontal max; -1 if some lane saw a non-finite entry")
	VEXTRACTF64X4(Imm(1), amax, Y5)
	VMAXPD(Y5, amax.AsY(), Y5)
	VEXTRACTF128(Imm(1), Y5, X6)
	VMAXPD(X6, Y5.AsX(), X6)
	VPERMILPD(Imm(1), X6, X7)
	VMAXSD(X7, X6, X6)
	KMOVW(K4, t.As32())
	CMPQ(t, U32(0xff))
	JE(LabelRef("ok"))
	MOVQ(U64(0xbff0000000000000), t) // -1
	MOVQ(t, X6)
	Label("ok")
	Store(X6, ReturnIndex(0))
	VZEROUPPER()
	RET()
}
