package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// tailMask sets k to the mask of the low r lanes (1 <= r <= 7), using t.
func tailMask(r, t Register, k OpmaskPhysical) {
	XORQ(t, t)
	BTSQ(r, t)
	DECQ(t)
	KMOVW(t.(GPVirtual).As32(), k)
}

// dots4 generates dots4AVX512: out[q] = Σ_{l<n} y[q*ldy+l] x[l], q < 4:
// four dot products in one pass over x (the blocked LQ of Tall).
func dots4() {
	TEXT("dots4AVX512", NOSPLIT, "func(out *[4]float64, y *float64, ldy int, x *float64, n int)")
	Pragma("noescape")
	Doc(
		"dots4AVX512 sets out[q] = Σ_{l<n} y[q*ldy+l] x[l] for q < 4 (one pass over",
		"x; masked tail). n >= 1.",
	)
	out := Load(Param("out"), GP64())
	y0 := Load(Param("y"), GP64())
	ldy := Load(Param("ldy"), GP64())
	x := Load(Param("x"), GP64())
	n := Load(Param("n"), GP64())
	SHLQ(Imm(3), ldy)
	y1, y2, y3 := GP64(), GP64(), GP64()
	LEAQ(Mem{Base: y0, Index: ldy, Scale: 1}, y1)
	LEAQ(Mem{Base: y1, Index: ldy, Scale: 1}, y2)
	LEAQ(Mem{Base: y2, Index: ldy, Scale: 1}, y3)
	ys := []Register{y0, y1, y2, y3}
	acc := []VecPhysical{Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7}
	for _, a := range acc {
		VPXORQ(a, a, a)
	}
	i := GP64()
	XORQ(i, i)
	Label("l16")
	CMPQ(n, Imm(16))
	JL(LabelRef("d8"))
	VMOVUPD(Mem{Base: x, Index: i, Scale: 1}, Z8)
	VMOVUPD(Mem{Base: x, Index: i, Scale: 1, Disp: 64}, Z9)
	for q := 0; q < 4; q++ {
		VFMADD231PD(Mem{Base: ys[q], Index: i, Scale: 1}, Z8, acc[q])
		VFMADD231PD(Mem{Base: ys[q], Index: i, Scale: 1, Disp: 64}, Z9, acc[4+q])
	}
	ADDQ(U32(128), i)
	SUBQ(Imm(16), n)
	JMP(LabelRef("l16"))
	Label("d8")
	CMPQ(n, Imm(8))
	JL(LabelRef("dtail"))
	VMOVUPD(Mem{Base: x, Index: i, Scale: 1}, Z8)
	for q := 0; q < 4; q++ {
		VFMADD231PD(Mem{Base: ys[q], Index: i, Scale: 1}, Z8, acc[q])
	}
	ADDQ(Imm(64), i)
	SUBQ(Imm(8), n)
	Label("dtail")
	TESTQ(n, n)
	JZ(LabelRef("dsum"))
	t := GP64()
	tailMask(n, t, K1)
	VMOVUPD_Z(Mem{Base: x, Index: i, Scale: 1}, K1, Z8)
	for q := 0; q < 4; q++ {
		VMOVUPD_Z(Mem{Base: ys[q], Index: i, Scale: 1}, K1, Z9)
		VFMADD231PD(Z9, Z8, acc[4+q])
	}
	Label("dsum")
	Comment("reduce the four accumulators to four scalars")
	for q := 0; q < 4; q++ {
		VADDPD(acc[4+q], acc[q], acc[q])
	}
	for q := 0; q < 4; q++ {
		a := acc[q]
		VEXTRACTF64X4(Imm(1), a, Y10)
		VADDPD(Y10, a.(VecPhysical).AsY(), Y10)
		VEXTRACTF64X2(Imm(1), Y10, X11)
		VADDPD(X11, Y10.AsX(), X11)
		VPERMILPD(Imm(1), X11, X12)
		VADDSD(X12, X11, X11)
		VMOVSD(X11, Mem{Base: out, Disp: 8 * q})
	}
	VZEROUPPER()
	RET()
}

// axpy4 generates axpy4AVX512: x[l] -= Σ_{q<4} f[q] y[q*ldy+l] for l < n.
func axpy4() {
	TEXT("axpy4AVX512", NOSPLIT, "func(x *float64, y *float64, ldy int, f *[4]float64, n int)")
	Pragma("noescape")
	Doc(
		"axpy4AVX512 sets x[l] -= Σ_{q<4} f[q] y[q*ldy+l] for l < n (one pass over x;",
		"masked tail). n >= 1.",
	)
	x := Load(Param("x"), GP64())
	y0 := Load(Param("y"), GP64())
	ldy := Load(Param("ldy"), GP64())
	f := Load(Param("f"), GP64())
	n := Load(Param("n"), GP64())
	SHLQ(Imm(3), ldy)
	y1, y2, y3 := GP64(), GP64(), GP64()
	LEAQ(Mem{Base: y0, Index: ldy, Scale: 1}, y1)
	LEAQ(Mem{Base: y1, Index: ldy, Scale: 1}, y2)
	LEAQ(Mem{Base: y2, Index: ldy, Scale: 1}, y3)
	ys := []Register{y0, y1, y2, y3}
	fs := []VecPhysical{Z0, Z1, Z2, Z3}
	for q := 0; q < 4; q++ {
		VBROADCASTSD(Mem{Base: f, Disp: 8 * q}, fs[q])
	}
	i := GP64()
	XORQ(i, i)
	Label("a16")
	CMPQ(n, Imm(16))
	JL(LabelRef("a8"))
	VMOVUPD(Mem{Base: x, Index: i, Scale: 1}, Z8)
	VMOVUPD(Mem{Base: x, Index: i, Scale: 1, Disp: 64}, Z9)
	for q := 0; q < 4; q++ {
		VFNMADD231PD(Mem{Base: ys[q], Index: i, Scale: 1}, fs[q], Z8)
		VFNMADD231PD(Mem{Base: ys[q], Index: i, Scale: 1, Disp: 64}, fs[q], Z9)
	}
	VMOVUPD(Z8, Mem{Base: x, Index: i, Scale: 1})
	VMOVUPD(Z9, Mem{Base: x, Index: i, Scale: 1, Disp: 64})
	ADDQ(U32(128), i)
	SUBQ(Imm(16), n)
	JMP(LabelRef("a16"))
	Label("a8")
	CMPQ(n, Imm(8))
	JL(LabelRef("atail"))
	VMOVUPD(Mem{Base: x, Index: i, Scale: 1}, Z8)
	for q := 0; q < 4; q++ {
		VFNMADD231PD(Mem{Base: ys[q], Index: i, Scale: 1}, fs[q], Z8)
	}
	VMOVUPD(Z8, Mem{Base: x, Index: i, Scale: 1})
	ADDQ(Imm(64), i)
	SUBQ(Imm(8), n)
	Label("atail")
	TESTQ(n, n)
	JZ(LabelRef("adone"))
	t := GP64()
	tailMask(n, t, K1)
	VMOVUPD_Z(Mem{Base: x, Index: i, Scale: 1}, K1, Z8)
	for q := 0; q < 4; q++ {
		VMOVUPD_Z(Mem{Base: ys[q], Index: i, Scale: 1}, K1, Z9)
		VFNMADD231PD(Z9, fs[q], Z8)
	}
	VMOVUPD(Z8, K1, Mem{Base: x, Index: i, Scale: 1})
	Label("adone")
	VZEROUPPER()
	RET()
}
