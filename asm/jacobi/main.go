// Command jacobi generates the AVX-512 one-sided Jacobi kernels of package
// svd (../../svd/jacobi_amd64.s and ../../svd/stubs_amd64.go). Run it via
// `go generate ./svd` from the module root.
//
// Layout of a group: 8 matrices, one per 64-bit lane of a ZMM register.
// Column c of the matrices (the Jacobi "vector" rotated by the iteration) is
// n consecutive 64-byte vectors, row r of that column in vector c*n+r, lane
// l holding matrix l. Every lane goes through the same sequence of pairs;
// a lane whose pair needs no rotation gets c = 1, s = 0 (an exact identity).
package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// Constant registers, live through the whole kernel.
var (
	ones   = Z31 // 1.0
	half   = Z30 // 0.5
	tol    = Z29 // convergence threshold on |cos|
	negl   = Z28 // per-lane threshold on squared column norms
	signM  = Z27 // -0.0 (sign bit)
	absM   = Z26 // ^sign bit
	threeH = Z25 // 1.5
)

func main() {
	ConstraintExpr("amd64,!purego")
	jacobi8()
	norms8()
	Generate()
}

func jacobi8() {
	TEXT("jacobi8AVX512", NOSPLIT, "func(buf *float64, n int, pairs *int64, npairs2 int, params *[16]float64, maxSweeps int) uint64")
	Pragma("noescape")
	Doc(
		"jacobi8AVX512 runs one-sided Jacobi on a group of 8 lane-interleaved n x n",
		"matrices (see the generator for the layout) until a whole sweep rotates",
		"nothing in any lane, or for maxSweeps sweeps. pairs[:npairs2] holds the",
		"byte offsets (p*n*64, q*n*64) of the column pairs of one sweep. params: [0:8]",
		"per-lane threshold on squared column norms below which a column is not",
		"rotated, [8] tolerance on |cos| of a pair, [9] 1, [10] 0.5, [11] 1.5,",
		"[12] -0.0 as bits, [13] abs mask as bits. It returns the mask of the lanes",
		"that rotated in the last sweep (0: all converged).",
	)
	g := Load(Param("buf"), GP64())
	n := Load(Param("n"), GP64())
	pairs := Load(Param("pairs"), GP64())
	npairs := Load(Param("npairs2"), GP64())
	params := Load(Param("params"), GP64())
	maxSweeps := Load(Param("maxSweeps"), GP64())

	VMOVUPD(Mem{Base: params}, negl)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * 8}, tol)
	VBROADCASTSD(Mem{Base: params, Disp: 9 * 8}, ones)
	VBROADCASTSD(Mem{Base: params, Disp: 10 * 8}, half)
	VBROADCASTSD(Mem{Base: params, Disp: 11 * 8}, threeH)
	VBROADCASTSD(Mem{Base: params, Disp: 12 * 8}, signM)
	VBROADCASTSD(Mem{Base: params, Disp: 13 * 8}, absM)

	sweep := GP64()
	XORQ(sweep, sweep)
	k := GP64()
	x := GP64()
	y := GP64()
	r := GP64()

	Label("sweep")
	Comment("K2 = lanes that rotated in this sweep")
	KXORW(K2, K2, K2)
	XORQ(k, k)

	Label("pair")
	MOVQ(Mem{Base: pairs, Index: k, Scale: 8}, x)
	MOVQ(Mem{Base: pairs, Index: k, Scale: 8, Disp: 8}, y)
	ADDQ(g, x)
	ADDQ(g, y)

	Comment("alpha = x·x (Z0..Z3), beta = y·y (Z4..Z7), gamma = x·y (Z8..Z11)")
	for i := 0; i < 12; i++ {
		z := zreg(i)
		VPXORQ(z, z, z)
	}
	MOVQ(n, r)
	Label("dot4")
	CMPQ(r, Imm(4))
	JL(LabelRef("dot1"))
	for u := 0; u < 4; u++ {
		zx, zy := zreg(12+u), zreg(16+u)
		VMOVUPD(Mem{Base: x, Disp: 64 * u}, zx)
		VMOVUPD(Mem{Base: y, Disp: 64 * u}, zy)
		VFMADD231PD(zx, zx, zreg(u))
		VFMADD231PD(zy, zy, zreg(4+u))
		VFMADD231PD(zy, zx, zreg(8+u))
	}
	ADDQ(U32(256), x)
	ADDQ(U32(256), y)
	SUBQ(Imm(4), r)
	JMP(LabelRef("dot4"))
	Label("dot1")
	TESTQ(r, r)
	JZ(LabelRef("dotdone"))
	VMOVUPD(Mem{Base: x}, Z12)
	VMOVUPD(Mem{Base: y}, Z16)
	VFMADD231PD(Z12, Z12, Z0)
	VFMADD231PD(Z16, Z16, Z4)
	VFMADD231PD(Z16, Z12, Z8)
	ADDQ(Imm(64), x)
	ADDQ(Imm(64), y)
	DECQ(r)
	JMP(LabelRef("dot1"))
	Label("dotdone")
	for _, b := range []int{0, 4, 8} {
		VADDPD(zreg(b+1), zreg(b), zreg(b))
		VADDPD(zreg(b+3), zreg(b+2), zreg(b+2))
		VADDPD(zreg(b+2), zreg(b), zreg(b))
	}
	alpha, beta, gamma := Z0, Z4, Z8

	Comment("K1 = |gamma| rsqrt(alpha) rsqrt(beta) > tol && alpha > negl && beta > negl")
	VRSQRT14PD(alpha, Z12)
	VRSQRT14PD(beta, Z13)
	VPANDQ(gamma, absM, Z14)
	VMULPD(Z12, Z14, Z14)
	VMULPD(Z13, Z14, Z14)
	VCMPPD(Imm(0x1e), tol, Z14, K1) // GT_OQ: false on NaN (zero columns)
	VCMPPD(Imm(0x1e), negl, alpha, K1, K1)
	VCMPPD(Imm(0x1e), negl, beta, K1, K1)
	KORW(K1, K2, K2)
	KORTESTW(K1, K1)
	JZ(LabelRef("next"))

	Comment("d = (beta-alpha)/m, g2 = 2 gamma/m with m ~ max(alpha, beta) (t is homogeneous of degree 0)")
	VMAXPD(alpha, beta, Z12)
	VRCP14PD(Z12, Z12)
	VSUBPD(alpha, beta, Z13)
	VMULPD(Z12, Z13, Z13) // d
	VMULPD(Z12, gamma, Z14)
	VADDPD(Z14, Z14, Z14) // g2
	Comment("h = d² + g2², sqrt(h) = h rsqrt(h) with one Newton step")
	VMULPD(Z14, Z14, Z15)
	VFMADD231PD(Z13, Z13, Z15)
	VRSQRT14PD(Z15, Z16)
	VMULPD(Z16, Z15, Z17) // h y
	VMULPD(Z16, Z17, Z18) // h y²
	VFNMADD213PD(threeH, half, Z18)
	VMULPD(Z18, Z17, Z17) // sqrt(h)
	Comment("t = sign(d) g2 / (|d| + sqrt(h)), reciprocal with one Newton step")
	VPANDQ(Z13, absM, Z19)
	VADDPD(Z19, Z17, Z19)
	VRCP14PD(Z19, Z20)
	VMOVAPD(Z19, Z21)
	VFNMADD213PD(ones, Z20, Z21) // 1 - den r
	VFMADD231PD(Z21, Z20, Z20)   // r += r (1 - den r)
	VMULPD(Z20, Z14, Z21)
	VPANDQ(Z13, signM, Z22)
	VPXORQ(Z22, Z21, Z21) // t
	Comment("c = rsqrt(1 + t²) to full precision (two Newton steps), s = c t")
	VMOVAPD(ones, Z22)
	VFMADD231PD(Z21, Z21, Z22) // 1 + t²
	VRSQRT14PD(Z22, Z23)
	VMULPD(Z23, Z23, Z24)
	VMULPD(Z22, Z24, Z24)
	VFNMADD213PD(threeH, half, Z24)
	VMULPD(Z24, Z23, Z23)
	VMULPD(Z23, Z23, Z24)
	VFNMADD213PD(ones, Z22, Z24) // e = 1 - x y²
	VMULPD(half, Z23, Z16)
	VFMADD231PD(Z24, Z16, Z23) // c = y + (y/2) e
	VMULPD(Z21, Z23, Z24)      // s
	VBLENDMPD(Z23, ones, K1, Z23)
	VMOVAPD_Z(Z24, K1, Z24)
	c, s := Z23, Z24

	Comment("x, y = c x - s y, s x + c y")
	MOVQ(Mem{Base: pairs, Index: k, Scale: 8}, x)
	MOVQ(Mem{Base: pairs, Index: k, Scale: 8, Disp: 8}, y)
	ADDQ(g, x)
	ADDQ(g, y)
	MOVQ(n, r)
	Label("rot2")
	CMPQ(r, Imm(2))
	JL(LabelRef("rot1"))
	for u := 0; u < 2; u++ {
		rotateRow(x, y, 64*u, 4*u, c, s)
	}
	ADDQ(U32(128), x)
	ADDQ(U32(128), y)
	SUBQ(Imm(2), r)
	JMP(LabelRef("rot2"))
	Label("rot1")
	TESTQ(r, r)
	JZ(LabelRef("next"))
	rotateRow(x, y, 0, 0, c, s)

	Label("next")
	ADDQ(Imm(2), k)
	CMPQ(k, npairs)
	JL(LabelRef("pair"))

	INCQ(sweep)
	KORTESTW(K2, K2)
	JZ(LabelRef("done"))
	CMPQ(sweep, maxSweeps)
	JL(LabelRef("sweep"))

	Label("done")
	ret := GP64()
	KMOVW(K2, ret.As32())
	Store(ret, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// rotateRow rotates one 64-byte row of columns x and y; base is the first of
// four scratch registers.
func rotateRow(x, y Register, disp int, base int, c, s VecPhysical) {
	zx, zy, t1, t2 := zreg(base), zreg(base+1), zreg(base+2), zreg(base+3)
	VMOVUPD(Mem{Base: x, Disp: disp}, zx)
	VMOVUPD(Mem{Base: y, Disp: disp}, zy)
	VMULPD(zy, s, t1)
	VMULPD(zx, s, t2)
	VFMSUB231PD(zx, c, t1) // c x - s y
	VFMADD231PD(zy, c, t2) // c y + s x
	VMOVUPD(t1, Mem{Base: x, Disp: disp})
	VMOVUPD(t2, Mem{Base: y, Disp: disp})
}

func norms8() {
	TEXT("norms8AVX512", NOSPLIT, "func(sv *float64, buf *float64, n int)")
	Pragma("noescape")
	Doc("norms8AVX512 sets sv[8c+l] = sqrt(Σ_r buf[(c n + r) 8 + l]²) for c < n: the column norms of the 8 lane-interleaved matrices.")
	sv := Load(Param("sv"), GP64())
	g := Load(Param("buf"), GP64())
	n := Load(Param("n"), GP64())
	c := GP64()
	r := GP64()
	MOVQ(n, c)
	Label("col")
	VPXORQ(Z0, Z0, Z0)
	VPXORQ(Z1, Z1, Z1)
	MOVQ(n, r)
	Label("row2")
	CMPQ(r, Imm(2))
	JL(LabelRef("row1"))
	VMOVUPD(Mem{Base: g}, Z2)
	VMOVUPD(Mem{Base: g, Disp: 64}, Z3)
	VFMADD231PD(Z2, Z2, Z0)
	VFMADD231PD(Z3, Z3, Z1)
	ADDQ(U32(128), g)
	SUBQ(Imm(2), r)
	JMP(LabelRef("row2"))
	Label("row1")
	TESTQ(r, r)
	JZ(LabelRef("store"))
	VMOVUPD(Mem{Base: g}, Z2)
	VFMADD231PD(Z2, Z2, Z0)
	ADDQ(Imm(64), g)
	Label("store")
	VADDPD(Z1, Z0, Z0)
	VSQRTPD(Z0, Z0)
	VMOVUPD(Z0, Mem{Base: sv})
	ADDQ(Imm(64), sv)
	DECQ(c)
	JNZ(LabelRef("col"))
	VZEROUPPER()
	RET()
}

var zregs = []VecPhysical{Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15,
	Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23, Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31}

func zreg(i int) VecPhysical { return zregs[i] }
