package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// absMax4 writes absMax4AVX2: the largest magnitude of each of 4 matrices
// as bits, compared as integers (the bits of a non-negative float64 order
// as its value; NaN and Inf above every finite one), 4 columns at a time.
func absMax4() {
	TEXT("absMax4AVX2", NOSPLIT, "func(src *[4]*float64, n, lda int, tail *[4]uint64, out *[4]uint64)")
	Pragma("noescape")
	Doc(
		"absMax4AVX2 writes into out[l] the largest bits of |src[l][r*lda+c]| over",
		"r, c < n (n >= 1): each matrix's largest magnitude, NaN and Inf above every",
		"finite value. tail is the mask of the first n mod 4 lanes (all lanes",
		"when n mod 4 = 0, then unused): the last columns are read by masked loads.",
	)
	src := Load(Param("src"), GP64())
	n := Load(Param("n"), GP64())
	ldaB := Load(Param("lda"), GP64())
	SHLQ(Imm(3), ldaB)
	tail := Load(Param("tail"), GP64())
	out := Load(Param("out"), GP64())
	absM, mask := Y15, Y14
	VPCMPEQQ(absM, absM, absM)
	VPSRLQ(Imm(1), absM, absM)
	VMOVDQU(Mem{Base: tail}, mask)
	full := GP64() // bytes of the full column blocks of a row: (n &^ 3) * 8
	MOVQ(n, full)
	ANDQ(I32(-4), full)
	SHLQ(Imm(3), full)
	rem := GP64()
	MOVQ(n, rem)
	ANDQ(Imm(3), rem)
	p, r, c := GP64(), GP64(), GP64()
	for l := 0; l < 4; l++ {
		acc := Y0
		VPXOR(acc, acc, acc)
		MOVQ(Mem{Base: src, Disp: 8 * l}, p)
		MOVQ(n, r)
		lbl := func(s string) string { return s + string(rune('0'+l)) }
		Label(lbl("amr"))
		XORQ(c, c)
		Label(lbl("amc"))
		CMPQ(c, full)
		JGE(LabelRef(lbl("amt")))
		VANDPD(Mem{Base: p, Index: c, Scale: 1}, absM, Y1)
		VPCMPGTQ(acc, Y1, Y2)
		VBLENDVPD(Y2, Y1, acc, acc)
		ADDQ(Imm(32), c)
		JMP(LabelRef(lbl("amc")))
		Label(lbl("amt"))
		TESTQ(rem, rem)
		JZ(LabelRef(lbl("amnext")))
		VMASKMOVPD(Mem{Base: p, Index: c, Scale: 1}, mask, Y1)
		VANDPD(Y1, absM, Y1)
		VPCMPGTQ(acc, Y1, Y2)
		VBLENDVPD(Y2, Y1, acc, acc)
		Label(lbl("amnext"))
		ADDQ(ldaB, p)
		DECQ(r)
		JNZ(LabelRef(lbl("amr")))
		Comment("the largest of the 4 lanes")
		VEXTRACTF128(Imm(1), acc, X1)
		VPCMPGTQ(X0, X1, X2)
		VBLENDVPD(X2, X1, X0, X0)
		VPSHUFD(Imm(0x4e), X0, X1)
		VPCMPGTQ(X0, X1, X2)
		VBLENDVPD(X2, X1, X0, X0)
		VMOVQ(X0, Mem{Base: out, Disp: 8 * l})
	}
	VZEROUPPER()
	RET()
}

// gramLoad writes the Gram kernels' loader: 4 matrices transposed into
// the lanes, scaled, with each lane's sum of squares: gramLoad4AVX2 into
// the 4-lane layout (w = gram4w), gramLoad48AVX2 into either half of the
// 8-lane one (gram8w; the vectors it stores are 4 lanes either way).
func gramLoad(w gramWidth) {
	name := "gramLoad4AVX2"
	if w.L == 8 {
		name = "gramLoad48AVX2"
	}
	TEXT(name, NOSPLIT, "func(at *float64, n int, src *[4]*float64, lda int, scale *[4]float64, tail *[4]uint64, fro *[4]float64)")
	Pragma("noescape")
	w.doc([]string{
		"gramLoad48AVX2 is gramLoad4AVX2 writing element (r, c) of matrix l to",
		"at[(c*n+r)*8+l] (l < 4: the caller passes the 8-lane array, or its fifth",
		"element for lanes 4-7), the layout of gram8AVX512.",
	}, []string{
		"gramLoad4AVX2 writes element (r, c) of matrix l, src[l][r*lda+c] * scale[l],",
		"to at[(c*n+r)*4+l] for r, c < n (n >= 1), and into fro[l] the sum of the",
		"squares of those values (in no particular order). Each row of the 4",
		"matrices is read 4 columns at a time and transposed in registers; tail",
		"is the mask of the first n mod 4 lanes (all lanes when n mod 4 = 0, then",
		"unused): the last columns are read by masked loads and only they are stored.",
	})
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
	colB := GP64() // bytes between columns of at: n times the layout's vector bytes
	MOVQ(n, colB)
	SHLQ(Imm(w.sh), colB)
	colB3 := GP64()
	LEAQ(Mem{Base: colB, Index: colB, Scale: 2}, colB3)
	blk := GP64() // bytes between column blocks of at: 4 colB
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
	ADDQ(Imm(uint64(w.vb)), at)
	DECQ(r)
	JNZ(LabelRef("glr"))
	VADDPD(fro[1], fro[0], fro[0])
	frop := Load(Param("fro"), GP64())
	VMOVUPD(fro[0], Mem{Base: frop})
	VZEROUPPER()
	RET()
}

// absMax4x512 writes absMax4AVX512: absMax4AVX2 in ZMM registers, 8
// columns a load, the tail by a zeroing-masked load (K1) and the running
// maxima by VPMAXUQ (the bits of a magnitude order as integers), two
// chains a matrix.
func absMax4x512() {
	TEXT("absMax4AVX512", NOSPLIT, "func(src *[4]*float64, n, lda int, out *[4]uint64)")
	Pragma("noescape")
	Doc(
		"absMax4AVX512 is absMax4AVX2 in ZMM registers: it writes into out[l] the",
		"largest bits of |src[l][r*lda+c]| over r, c < n (n >= 1), NaN and Inf above",
		"every finite value; the last n mod 8 columns of a row are read by a masked",
		"load (no fault past them).",
	)
	src := Load(Param("src"), GP64())
	n := Load(Param("n"), GP64())
	ldaB := Load(Param("lda"), GP64())
	SHLQ(Imm(3), ldaB)
	out := Load(Param("out"), GP64())
	absM := Z31
	VPTERNLOGQ(Imm(0xff), absM, absM, absM)
	VPSRLQ(Imm(1), absM, absM)
	rem := GP64()
	MOVQ(n, rem)
	ANDQ(Imm(7), rem)
	ones, km := GP64(), GP64()
	MOVQ(I32(-1), ones)
	BZHIQ(rem, ones, km)
	KMOVW(km.As32(), K1)
	full := GP64() // bytes of the full column blocks of a row: (n &^ 7) * 8
	MOVQ(n, full)
	ANDQ(I32(-8), full)
	SHLQ(Imm(3), full)
	p, r, c := GP64(), GP64(), GP64()
	for l := 0; l < 4; l++ {
		acc0, acc1 := Z0, Z1
		VPXORQ(acc0, acc0, acc0)
		VPXORQ(acc1, acc1, acc1)
		MOVQ(Mem{Base: src, Disp: 8 * l}, p)
		MOVQ(n, r)
		lbl := func(s string) string { return s + string(rune('0'+l)) }
		Label(lbl("zmr"))
		XORQ(c, c)
		Label(lbl("zmc"))
		CMPQ(c, full)
		JGE(LabelRef(lbl("zmt")))
		VPANDQ(Mem{Base: p, Index: c, Scale: 1}, absM, Z2)
		VPMAXUQ(Z2, acc0, acc0)
		ADDQ(Imm(64), c)
		JMP(LabelRef(lbl("zmc")))
		Label(lbl("zmt"))
		TESTQ(rem, rem)
		JZ(LabelRef(lbl("zmnext")))
		VMOVDQU64_Z(Mem{Base: p, Index: c, Scale: 1}, K1, Z2)
		VPANDQ(Z2, absM, Z2)
		VPMAXUQ(Z2, acc1, acc1)
		Label(lbl("zmnext"))
		ADDQ(ldaB, p)
		DECQ(r)
		JNZ(LabelRef(lbl("zmr")))
		Comment("the largest of the 8 lanes")
		VPMAXUQ(acc1, acc0, acc0)
		VEXTRACTI64X4(Imm(1), acc0, Y1)
		VPMAXUQ(Y1, Y0, Y0)
		VEXTRACTI128(Imm(1), Y0, X1)
		VPMAXUQ(X1, X0, X0)
		VPSHUFD(Imm(0x4e), X0, X1)
		VPMAXUQ(X1, X0, X0)
		VMOVQ(X0, Mem{Base: out, Disp: 8 * l})
	}
	VZEROUPPER()
	RET()
}
