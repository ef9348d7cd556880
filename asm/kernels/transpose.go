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
	loadTransposeArgs()
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
	transpose8x8(z, t, u)
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
	transpose8x8(z, t, u)
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

// genTranspose4 writes
//
//	func transpose4AVX(dst *float64, ldd int, src *float64, lds int, rows, cols int, scale *float64)
//
// the part of Transpose made of whole 4 x 4 blocks (rows and cols multiples
// of 4, at least 4) on YMM registers with AVX instructions only, used by
// both the AVX-512 and the AVX2 paths. Each block takes eight 16-byte
// loads, four of them inserted into the upper halves (A = [r0 c0:2 | r2
// c0:2], B = [r1 c0:2 | r3 c0:2], C and D the same for columns 2:4), and
// four in-lane unpacks (column c0 = VUNPCKLPD(A, B), c1 = VUNPCKHPD(A, B),
// ...): a single shuffle per four elements, the cheapest way through the
// shuffle ports on CPUs that split 512-bit shuffles (AMD Zen 4).
func genTranspose4() {
	name := "transpose4AVX"
	TEXT(name, NOSPLIT, "func(dst *float64, ldd int, src *float64, lds int, rows, cols int, scale *float64)")
	Pragma("noescape")
	Doc(name+" computes dst[c*ldd+r] = src[r*lds+c] for r < rows, c < cols,",
		"times scale[r] unless scale is nil. rows and cols must be positive",
		"multiples of 4.")
	// DI: dst, SI: src, R8: ldd bytes, R9: lds bytes, R13: scale (0 when
	// nil). The inner loop runs over the shorter dimension, so that the
	// destination is written in long runs: with rows <= cols, over the
	// strips of 4 source rows (a run of 4*rows elements of each of 4
	// destination rows), else over the blocks of 4 columns. Per block R10
	// (source rows), R11 (destination rows), AX and DX: the third row of
	// the block (source and destination); BX: inner count left, CX: outer.
	loadTransposeArgs()
	Load(Param("scale"), R13)

	a, b, c, d := Y0, Y1, Y2, Y3
	col := []VecPhysical{Y4, Y5, Y6, Y7}
	// block transposes the 4 x 4 block at R10 into R11; with scale, the
	// scales of its rows are at sc.
	block := func(sfx string, sc Op) {
		load4x4(0, a, b, c, d, col)
		TESTQ(R13, R13)
		JE(LabelRef(name + sfx))
		for k := range col {
			VMULPD(sc, col[k], col[k])
		}
		Label(name + sfx)
		LEAQ(Mem{Base: R11, Index: R8, Scale: 2}, RDX)
		VMOVUPD(col[0], Mem{Base: R11})
		VMOVUPD(col[1], Mem{Base: R11, Index: R8, Scale: 1})
		VMOVUPD(col[2], Mem{Base: RDX})
		VMOVUPD(col[3], Mem{Base: RDX, Index: R8, Scale: 1})
	}

	Load(Param("rows"), RCX)
	Load(Param("cols"), RBX)
	CMPQ(RCX, RBX)
	JLE(LabelRef(name + "_bycols"))

	// rows > cols: outer loop over strips of 4 source rows, inner over
	// blocks of 4 columns.
	Label(name + "_strip")
	TESTQ(R13, R13)
	JE(LabelRef(name + "_noscale"))
	VMOVUPD(Mem{Base: R13}, Y15)
	ADDQ(U8(32), R13)
	Label(name + "_noscale")
	MOVQ(RSI, R10)
	MOVQ(RDI, R11)
	Load(Param("cols"), RBX)
	Label(name + "_block")
	block("_s1", Y15)
	ADDQ(U8(32), R10)                              // next 4 columns of the source rows
	LEAQ(Mem{Base: RDX, Index: R8, Scale: 2}, R11) // next 4 rows of dst
	SUBQ(U8(4), RBX)
	JNE(LabelRef(name + "_block"))
	LEAQ(Mem{Base: RSI, Index: R9, Scale: 4}, RSI) // next 4 source rows
	ADDQ(U8(32), RDI)                              // next 4 columns of dst rows
	SUBQ(U8(4), RCX)
	JNE(LabelRef(name + "_strip"))
	JMP(LabelRef(name + "_done"))

	// rows <= cols: outer loop over blocks of 4 columns, inner over strips
	// of 4 source rows (scale[r] at R12 + 8r).
	Label(name + "_bycols")
	MOVQ(R13, R12)
	Label(name + "_cols")
	MOVQ(RSI, R10)
	MOVQ(RDI, R11)
	MOVQ(R12, R13)
	Load(Param("rows"), RCX)
	Label(name + "_rowblock")
	block("_s2", Mem{Base: R13})
	LEAQ(Mem{Base: R10, Index: R9, Scale: 4}, R10) // next 4 source rows
	ADDQ(U8(32), R11)                              // next 4 columns of dst rows
	TESTQ(R13, R13)
	JE(LabelRef(name + "_noadv"))
	ADDQ(U8(32), R13)
	Label(name + "_noadv")
	SUBQ(U8(4), RCX)
	JNE(LabelRef(name + "_rowblock"))
	ADDQ(U8(32), RSI)                              // next 4 columns of the source rows
	LEAQ(Mem{Base: RDI, Index: R8, Scale: 4}, RDI) // next 4 rows of dst
	SUBQ(U8(4), RBX)
	JNE(LabelRef(name + "_cols"))

	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// transpose8x8 transposes z (row i in z[i], eight ZMM registers) into z
// (column c in z[c]), using the temporaries t and u (eight each): the
// shuffles of transposeAVX512.
func transpose8x8(z, t, u []VecPhysical) {
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

// projTransposeMaxRows is the most source rows projTransposeAVX512 takes
// (two 8 x 8 blocks of registers).
const projTransposeMaxRows = 16

// genProjTranspose writes
//
//	func projTransposeAVX512(dst *float64, ldd int, src *float64, lds int, cols int, scale *float64, s *float64, rows int)
//
// ProjTransposeScaled for rows = 1..16 source rows whose last panel (rows
// j0 = 4*((rows-1)/4) .. rows-1, b = rows-j0 of them) is projected with
// the rows before it and the coefficients s (j0 x b, stride b), and cols a
// multiple of 8: per chunk of 8 columns, every source row is loaded once
// into a ZMM register, the panel rows are updated (one FMA chain per row
// over l in order, S(l, c) an embedded broadcast: the chain of ProjDots)
// and stored back, every row is scaled, and the rows are transposed in
// 8 x 8 blocks (the rows past the last one zero) and stored as 8
// destination rows, masked to the logical columns.
func genProjTranspose() {
	name := "projTransposeAVX512"
	TEXT(name, NOSPLIT, "func(dst *float64, ldd int, src *float64, lds int, cols int, scale *float64, s *float64, rows int)")
	Pragma("noescape")
	Doc(name+" is ProjTransposeScaled for 1 <= rows <= 16 with j0 = 4*((rows-1)/4)",
		"and s of stride rows-j0, cols a multiple of 8.")
	// DI: dst rows, R8: ldd bytes, SI: src columns, R9: lds bytes, CX:
	// columns left, R12: scale, R10: s, AX: scratch row pointer.
	loadTransposeArgs()
	Load(Param("cols"), RCX)
	Load(Param("scale"), R12)
	Load(Param("s"), R10)
	Load(Param("rows"), RDX)
	done := name + "_done"
	for rows := 1; rows <= projTransposeMaxRows; rows++ {
		CMPQ(RDX, U8(rows))
		JE(LabelRef(fmt.Sprintf("%s_r%d", name, rows)))
	}
	JMP(LabelRef(done))
	r := avx512.regs
	v, t, u := r[0:16], r[16:24], r[24:32]
	for rows := 1; rows <= projTransposeMaxRows; rows++ {
		pfx := fmt.Sprintf("%s_r%d", name, rows)
		j0 := 4 * ((rows - 1) / 4)
		b := rows - j0
		nblk := (rows + 7) / 8
		Label(pfx)
		LEAQ(Mem{Base: R8, Index: R8, Scale: 2}, RDX) // 3*ldd for transposeOut4x8
		Label(pfx + "_loop")
		CMPQ(RCX, U8(8))
		JB(LabelRef(done))
		MOVQ(RSI, RAX)
		for i := 0; i < rows; i++ {
			VMOVUPD(Mem{Base: RAX}, v[i])
			if i < rows-1 {
				ADDQ(R9, RAX)
			}
		}
		for i := rows; i < 8*nblk; i++ {
			if i%8 < 4 || rows-(i/8)*8 != 4 {
				VXORPD(v[i], v[i], v[i])
			}
		}
		if j0 > 0 {
			for c := 0; c < b; c++ {
				for l := 0; l < j0; l++ {
					VFNMADD231PD_BCST(Mem{Base: R10, Disp: 8 * (l*b + c)}, v[l], v[j0+c])
				}
			}
			// AX is at row rows-1: store the panel back, last row first.
			for c := b - 1; c >= 0; c-- {
				VMOVUPD(v[j0+c], Mem{Base: RAX})
				if c > 0 {
					SUBQ(R9, RAX)
				}
			}
		}
		for i := 0; i < rows; i++ {
			VMULPD_BCST(Mem{Base: R12, Disp: 8 * i}, v[i], v[i])
		}
		for blk := 0; blk < nblk; blk++ {
			z := v[8*blk : 8*blk+8]
			w := min(8, rows-8*blk)
			if w == 4 {
				transposeOut4x8(z[:4], t, u, blk)
				continue
			}
			transpose8x8(z, t, u)
			if w < 8 {
				MOVL(U32(1<<w-1), EAX)
				KMOVW(EAX, K1)
			}
			MOVQ(RDI, RAX)
			for i := 0; i < 8; i++ {
				m := Mem{Base: RAX, Disp: 64 * blk}
				if w < 8 {
					VMOVUPD(z[i], K1, m)
				} else {
					VMOVUPD(z[i], m)
				}
				if i < 7 {
					ADDQ(R8, RAX)
				}
			}
		}
		ADDQ(U8(64), RSI)
		LEAQ(Mem{Base: RDI, Index: R8, Scale: 8}, RDI)
		SUBQ(U8(8), RCX)
		JMP(LabelRef(pfx + "_loop"))
	}
	Label(done)
	VZEROUPPER()
	RET()
}

// genTransposeDots writes
//
//	func transposeDotsAVX512(dst *float64, ldd int, src *float64, lds int, rows, cols int, gm *float64)
//
// TransposeDots for rows a positive multiple of 4 and cols = 4, 8, 12 or
// 16: the 4 x 4 blocks of transpose4AVX, by strips of 4 source rows, and
// the dot products of source column 0 with every column accumulated on
// the way (one YMM accumulator per column, Y16 and up, over the strips in
// order), reduced at the end.
func genTransposeDots() {
	name := "transposeDotsAVX512"
	TEXT(name, NOSPLIT, "func(dst *float64, ldd int, src *float64, lds int, rows, cols int, gm *float64)")
	Pragma("noescape")
	Doc(name+" is TransposeDots for rows a positive multiple of 4 and cols 4, 8,",
		"12 or 16.")
	// DI: dst strip, SI: src strip, R8: ldd bytes, R9: lds bytes, CX: rows
	// left; per block R10 (src), R11 (dst), AX and DX scratch.
	loadTransposeArgs()
	Load(Param("cols"), RDX)
	a, b, c, d := Y0, Y1, Y2, Y3
	col := []VecPhysical{Y4, Y5, Y6, Y7}
	col0 := Y8
	acc := []VecPhysical{Y16, Y17, Y18, Y19, Y20, Y21, Y22, Y23, Y24, Y25, Y26, Y27, Y28, Y29, Y30, Y31}
	done := name + "_done"
	for nb := 1; nb <= 4; nb++ {
		CMPQ(RDX, U8(4*nb))
		JE(LabelRef(fmt.Sprintf("%s_c%d", name, 4*nb)))
	}
	JMP(LabelRef(done))
	for nb := 1; nb <= 4; nb++ {
		pfx := fmt.Sprintf("%s_c%d", name, 4*nb)
		Label(pfx)
		Load(Param("rows"), RCX)
		for k := 0; k < 4*nb; k++ {
			VXORPD(acc[k], acc[k], acc[k])
		}
		Label(pfx + "_strip")
		MOVQ(RSI, R10)
		MOVQ(RDI, R11)
		for j := 0; j < nb; j++ {
			c0 := col[0]
			if j == 0 {
				c0 = col0
			}
			load4x4(32*j, a, b, c, d, []VecPhysical{c0, col[1], col[2], col[3]})
			LEAQ(Mem{Base: R11, Index: R8, Scale: 2}, RDX)
			VMOVUPD(c0, Mem{Base: R11})
			VMOVUPD(col[1], Mem{Base: R11, Index: R8, Scale: 1})
			VMOVUPD(col[2], Mem{Base: RDX})
			VMOVUPD(col[3], Mem{Base: RDX, Index: R8, Scale: 1})
			VFMADD231PD(c0, col0, acc[4*j])
			for k := 1; k < 4; k++ {
				VFMADD231PD(col[k], col0, acc[4*j+k])
			}
			if j < nb-1 {
				LEAQ(Mem{Base: RDX, Index: R8, Scale: 2}, R11) // next 4 rows of dst
			}
		}
		LEAQ(Mem{Base: RSI, Index: R9, Scale: 4}, RSI) // next 4 source rows
		ADDQ(U8(32), RDI)                              // next 4 columns of dst rows
		SUBQ(U8(4), RCX)
		JNE(LabelRef(pfx + "_strip"))
		Load(Param("gm"), RAX)
		for k := 0; k < 4*nb; k++ {
			hsum256EVEX(acc[k], col[0])
			VMOVSD(acc[k].AsX(), Mem{Base: RAX, Disp: 8 * k})
		}
		JMP(LabelRef(done))
	}
	Label(done)
	VZEROUPPER()
	RET()
}

// hsum256EVEX is hsum256 for any YMM register (VEXTRACTF64X2 instead of the
// VEX-only VEXTRACTF128).
func hsum256EVEX(y, tmpy VecPhysical) {
	x, tx := y.AsX(), tmpy.AsX()
	VEXTRACTF64X2(U8(1), y, tx)
	VADDPD(tx, x, x)
	VPERMILPD(U8(1), x, tx)
	VADDSD(tx, x, x)
}

// transposeOut4x8 stores the transpose of the 4 x 8 block z (row i in
// z[i]) as 8 destination rows of 4 at DI
// + 64*blk (stride R8, AX scratch): unpacks pair the rows, [z0 z1] and
// [z2 z3] per 128-bit lane, two VSHUFF64X2 put the 128-bit lanes of
// destination rows i and i+4 side by side, and the halves are stored (the
// upper by VEXTRACTF64X4 to memory). 12 shuffles instead of the 24 of a
// zero-padded 8 x 8 block.
func transposeOut4x8(z, t, u []VecPhysical, blk int) {
	VUNPCKLPD(z[1], z[0], t[0]) // rows 0, 2, 4, 6: lane pairs (z0, z1)
	VUNPCKHPD(z[1], z[0], t[1]) // rows 1, 3, 5, 7
	VUNPCKLPD(z[3], z[2], t[2])
	VUNPCKHPD(z[3], z[2], t[3])
	// u = [a.q0 a.q2 b.q0 b.q2] then [a.q0 b.q0 a.q2 b.q2]: rows 0 and 4
	// (or 1 and 5) from (t0, t2); [a.q1 a.q3 b.q1 b.q3] reordered: rows 2
	// and 6 (3 and 7).
	for h := 0; h < 2; h++ {
		a, b := t[h], t[h+2]
		VSHUFF64X2(U8(0x88), b, a, u[2*h])
		VSHUFF64X2(U8(0xd8), u[2*h], u[2*h], u[2*h])
		VSHUFF64X2(U8(0xdd), b, a, u[2*h+1])
		VSHUFF64X2(U8(0xd8), u[2*h+1], u[2*h+1], u[2*h+1])
	}
	// u0: rows 0, 4; u1: rows 2, 6; u2: rows 1, 5; u3: rows 3, 7.
	// Row r at DI (r < 4) or AX = DI + 4*ldd (r >= 4), plus 0, ldd, 2*ldd
	// or DX = 3*ldd.
	LEAQ(Mem{Base: RDI, Index: R8, Scale: 4}, RAX)
	rowsOf := [][2]int{{0, 4}, {2, 6}, {1, 5}, {3, 7}}
	for k, rr := range rowsOf {
		for half, row := range rr {
			m := Mem{Base: RDI, Disp: 64 * blk}
			if row >= 4 {
				m.Base = RAX
			}
			switch row % 4 {
			case 1:
				m.Index, m.Scale = R8, 1
			case 2:
				m.Index, m.Scale = R8, 2
			case 3:
				m.Index, m.Scale = RDX, 1
			}
			if half == 0 {
				VMOVUPD(u[k].AsY(), m)
			} else {
				VEXTRACTF64X4(U8(1), u[k], m)
			}
		}
	}
}

// load4x4 loads the 4 x 4 block at R10+disp (source rows R9 bytes apart)
// into out[0..3] transposed (out[k] = column k of the block): two XMM
// loads and two 128-bit inserts per pair of rows into a, b, c, d, then
// four in-lane unpacks. It uses RAX.
func load4x4(disp int, a, b, c, d VecPhysical, out []VecPhysical) {
	LEAQ(Mem{Base: R10, Index: R9, Scale: 2}, RAX)
	VMOVUPD(Mem{Base: R10, Disp: disp}, a.AsX())
	VINSERTF128(U8(1), Mem{Base: RAX, Disp: disp}, a, a)
	VMOVUPD(Mem{Base: R10, Index: R9, Scale: 1, Disp: disp}, b.AsX())
	VINSERTF128(U8(1), Mem{Base: RAX, Index: R9, Scale: 1, Disp: disp}, b, b)
	VMOVUPD(Mem{Base: R10, Disp: disp + 16}, c.AsX())
	VINSERTF128(U8(1), Mem{Base: RAX, Disp: disp + 16}, c, c)
	VMOVUPD(Mem{Base: R10, Index: R9, Scale: 1, Disp: disp + 16}, d.AsX())
	VINSERTF128(U8(1), Mem{Base: RAX, Index: R9, Scale: 1, Disp: disp + 16}, d, d)
	VUNPCKLPD(b, a, out[0])
	VUNPCKHPD(b, a, out[1])
	VUNPCKLPD(d, c, out[2])
	VUNPCKHPD(d, c, out[3])
}

// loadTransposeArgs loads the arguments every transpose kernel shares:
// DI = dst, R8 = ldd in bytes, SI = src, R9 = lds in bytes.
func loadTransposeArgs() {
	Load(Param("dst"), RDI)
	Load(Param("ldd"), R8)
	SHLQ(U8(3), R8)
	Load(Param("src"), RSI)
	Load(Param("lds"), R9)
	SHLQ(U8(3), R9)
}
