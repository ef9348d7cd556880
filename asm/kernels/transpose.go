package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// genTranspose writes
//
//	func transposeAVX512(dst *float64, ldd int, src *float64, lds int, rows, cols int, scale *float64)
//
// dst[c*ldd+r] = src[r*lds+c] (times scale[r] unless scale is nil) for
// r < rows, c < cols (rows, cols >= 1), in
// 8 x 8 blocks: eight rows loaded (the last block of columns masked with K1),
// transposed in registers by three rounds of shuffles (VUNPCKLPD/VUNPCKHPD,
// then VSHUFF64X2 twice), eight columns stored (the last strip of rows
// masked with K2). Only the logical elements are read or written.
func genTranspose() {
	name := "transposeAVX512"
	TEXT(name, NOSPLIT, "func(dst *float64, ldd int, src *float64, lds int, rows, cols int, scale *float64)")
	Pragma("noescape")
	Doc(name+" computes dst[c*ldd+r] = src[r*lds+c] for r < rows, c < cols,",
		"times scale[r] unless scale is nil. rows and cols must be at least 1.")
	// DI: dst strip, SI: src strip, R8: ldd bytes, R9: lds bytes, CX: rows
	// left, R12: cols; per block R10 (src rows), R11 (dst columns), BX:
	// columns left, DX: rows of this strip (<= 8), R13: columns of this
	// block (<= 8), AX: scratch.
	Load(Param("dst"), RDI)
	Load(Param("ldd"), R8)
	SHLQ(U8(3), R8)
	Load(Param("src"), RSI)
	Load(Param("lds"), R9)
	SHLQ(U8(3), R9)
	Load(Param("rows"), RCX)
	Load(Param("cols"), R12)
	// K1: the lanes of the last block of columns, 1 + (cols-1)%8 of them.
	MOVQ(R12, RAX)
	DECQ(RAX)
	ANDQ(U8(7), RAX)
	INCQ(RAX)
	maskFrom(RAX, K1)
	// K2: the lanes of the last strip of rows.
	MOVQ(RCX, RAX)
	DECQ(RAX)
	ANDQ(U8(7), RAX)
	INCQ(RAX)
	maskFrom(RAX, K2)

	z := []VecPhysical{Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7}
	nlabel := 0
	// scaleCols multiplies the transposed columns by the row scales.
	scaleCols := func() {
		nlabel++
		skip := fmt.Sprintf("%s_unscaled%d", name, nlabel)
		Load(Param("scale"), RAX)
		TESTQ(RAX, RAX)
		JE(LabelRef(skip))
		for c := 0; c < 8; c++ {
			VMULPD(Z24, z[c], z[c])
		}
		Label(skip)
	}
	t := []VecPhysical{Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15}
	u := []VecPhysical{Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23}
	// shuffle transposes z (row i in z[i]) into z (column c in z[c]).
	shuffle := func() {
		for i := 0; i < 8; i += 2 {
			VUNPCKLPD(z[i+1], z[i], t[i])
			VUNPCKHPD(z[i+1], z[i], t[i+1])
		}
		// u0 = [a0b0 a4b4 c0d0 c4d4], u1 = [a2b2 a6b6 c2d2 c6d6],
		// u2 = [a1b1 a5b5 c1d1 c5d5], u3 = [a3b3 a7b7 c3d3 c7d7]; u4..u7
		// the same for rows 4..7.
		for h := 0; h < 2; h++ {
			b := 4 * h
			VSHUFF64X2(U8(0x88), t[b+2], t[b], u[b])
			VSHUFF64X2(U8(0xdd), t[b+2], t[b], u[b+1])
			VSHUFF64X2(U8(0x88), t[b+3], t[b+1], u[b+2])
			VSHUFF64X2(U8(0xdd), t[b+3], t[b+1], u[b+3])
		}
		// column c: 0 = (u0,u4,88), 4 = (u0,u4,dd), 2 = (u1,u5,88),
		// 6 = (u1,u5,dd), 1 = (u2,u6,88), 5 = (u2,u6,dd), 3 = (u3,u7,88),
		// 7 = (u3,u7,dd).
		for k, c := range []int{0, 2, 1, 3} {
			VSHUFF64X2(U8(0x88), u[k+4], u[k], z[c])
			VSHUFF64X2(U8(0xdd), u[k+4], u[k], z[c+4])
		}
	}

	Label(name + "_strip")
	TESTQ(RCX, RCX)
	JE(LabelRef(name + "_done"))
	MOVQ(U32(8), RDX)
	CMPQ(RCX, U8(8))
	CMOVQLT(RCX, RDX)
	// Z24 = scale[row0 : row0+8] (row0 = rows - CX; masked by K2 in the
	// last, partial strip), when there is a scale.
	Load(Param("scale"), R13)
	TESTQ(R13, R13)
	JE(LabelRef(name + "_noscale"))
	Load(Param("rows"), RAX)
	SUBQ(RCX, RAX)
	LEAQ(Mem{Base: R13, Index: RAX, Scale: 8}, R13)
	CMPQ(RDX, U8(8))
	JNE(LabelRef(name + "_scalepart"))
	VMOVUPD(Mem{Base: R13}, Z24)
	JMP(LabelRef(name + "_noscale"))
	Label(name + "_scalepart")
	VMOVUPD_Z(Mem{Base: R13}, K2, Z24)
	Label(name + "_noscale")
	MOVQ(RSI, R10)
	MOVQ(RDI, R11)
	MOVQ(R12, RBX)

	Label(name + "_block")
	TESTQ(RBX, RBX)
	JE(LabelRef(name + "_next"))
	MOVQ(U32(8), R13)
	CMPQ(RBX, U8(8))
	CMOVQLT(RBX, R13)
	// Full 8 x 8 block, or the masked path.
	CMPQ(RDX, U8(8))
	JNE(LabelRef(name + "_partial"))
	CMPQ(R13, U8(8))
	JNE(LabelRef(name + "_partial"))
	MOVQ(R10, RAX)
	for i := 0; i < 8; i++ {
		VMOVUPD(Mem{Base: RAX}, z[i])
		if i < 7 {
			ADDQ(R9, RAX)
		}
	}
	shuffle()
	scaleCols()
	MOVQ(R11, RAX)
	for c := 0; c < 8; c++ {
		VMOVUPD(z[c], Mem{Base: RAX})
		if c < 7 {
			ADDQ(R8, RAX)
		}
	}
	JMP(LabelRef(name + "_advance"))

	Label(name + "_partial")
	// Rows >= DX are not loaded (their lanes are not stored); columns
	// >= R13 are masked on load (K1 when this is the last block) and not
	// stored; lanes >= DX of a column are masked on store (K2).
	KXNORW(K0, K0, K3) // all lanes
	KXNORW(K0, K0, K4)
	CMPQ(R13, U8(8))
	JE(LabelRef(name + "_colsfull"))
	KMOVW(K1, K3)
	Label(name + "_colsfull")
	CMPQ(RDX, U8(8))
	JE(LabelRef(name + "_rowsfull"))
	KMOVW(K2, K4)
	Label(name + "_rowsfull")
	MOVQ(R10, RAX)
	for i := 0; i < 8; i++ {
		CMPQ(RDX, U8(i))
		JLE(LabelRef(name + "_loaded"))
		VMOVUPD_Z(Mem{Base: RAX}, K3, z[i])
		ADDQ(R9, RAX)
	}
	Label(name + "_loaded")
	shuffle()
	scaleCols()
	MOVQ(R11, RAX)
	for c := 0; c < 8; c++ {
		CMPQ(R13, U8(c))
		JLE(LabelRef(name + "_advance"))
		VMOVUPD(z[c], K4, Mem{Base: RAX})
		ADDQ(R8, RAX)
	}

	Label(name + "_advance")
	ADDQ(U8(64), R10) // next 8 columns of the source rows
	MOVQ(R8, RAX)
	SHLQ(U8(3), RAX)
	ADDQ(RAX, R11) // next 8 rows of dst
	SUBQ(R13, RBX)
	JMP(LabelRef(name + "_block"))

	Label(name + "_next")
	MOVQ(R9, RAX)
	SHLQ(U8(3), RAX)
	ADDQ(RAX, RSI)    // next 8 source rows
	ADDQ(U8(64), RDI) // next 8 columns of dst rows
	SUBQ(RDX, RCX)
	JMP(LabelRef(name + "_strip"))

	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// maskFrom sets k to the low n bits, n in 1..8 in register n; clobbers DX and n.
func maskFrom(n Register, k Register) {
	MOVL(U32(1), EDX)
	SHLXL(n.(GPPhysical).As32(), EDX, EDX)
	DECL(EDX)
	KMOVW(EDX, k)
}
