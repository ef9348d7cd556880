package main

import (
	"math"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// acosConsts are the constants of genAcos, each a whole vector of 8
// copies in acostab (an AVX2 kernel reads the first 4): Go's math.Asin
// and its arctangent (math/asin.go, math/atan.go), whose float64 values
// are these expressions' (Go rounds a constant once, where it meets a
// float64).
var acosConsts = []struct {
	name string
	v    float64
}{
	{"one", 1},
	{"p0", -8.750608600031904122785e-01},
	{"p1", -1.615753718733365076637e+01},
	{"p2", -7.500855792314704667340e+01},
	{"p3", -1.228866684490136173410e+02},
	{"p4", -6.485021904942025371773e+01},
	{"q0", +2.485846490142306297962e+01},
	{"q1", +1.650270098316988542046e+02},
	{"q2", +4.328810604912902668951e+02},
	{"q3", +4.853903996359136964868e+02},
	{"q4", +1.945506571482613964425e+02},
	{"pio2", math.Pi / 2},
	{"pio4", math.Pi / 4},
	{"morebits", 6.123233995736765886130e-17},
	{"halfmorebits", 0.5 * 6.123233995736765886130e-17},
	{"tan3pio8", 2.41421356237309504880},
	{"c066", 0.66},
	{"c07", 0.7},
	{"sign", math.Copysign(0, -1)},
}

// acosTab is the RODATA of acosConsts; acosC returns constant name's
// vector.
var acosTab Mem

func acosC(name string) Mem {
	for i, c := range acosConsts {
		if c.name == name {
			return acosTab.Offset(64 * i)
		}
	}
	panic("acos: no constant " + name)
}

// genAcosTab emits acostab.
func genAcosTab() {
	acosTab = GLOBL("acostab", RODATA|NOPTR)
	for i, c := range acosConsts {
		for l := 0; l < 8; l++ {
			DATA(64*i+8*l, U64(math.Float64bits(c.v)))
		}
	}
}

// genAcos writes acos<ISA>(dst, x []float64): dst[i] = math.Acos(x[i]) for
// i < len(x), bit for bit as Go's math.Acos computes it where the
// compiler does not fuse its products and sums (GOAMD64 below v3): the
// same operations in the same order, lane by lane, every branch of
// math.Asin and of its arctangent computed and the lane's own chosen by
// masks (only the chosen divisions are done: their operands are selected
// first). No multiply-add is fused here.
//
//	acos(x) = π/2 − asin(x)
//	asin(x) = sign(x) · (|x| > 0.7 ? π/2 − satan(t/|x|) : satan(|x|/t)),  t = √(1 − |x|·|x|)
//	satan(r) = r <= 0.66 ? xatan(r) : r > tan(3π/8) ? (π/2 − xatan(1/r)) + m : (π/4 + xatan((r−1)/(r+1))) + m/2
//	xatan(u) = u·(z·P(z)/Q(z)) + u,  z = u·u
//
// xatan's argument is one division num/den, (r, 1), (1, r) or (r − 1,
// r + 1) by the case (r/1 is r). asin's special cases fall out of the
// general path: x = ±0 gives ±0 (t = 1, r = 0), |x| > 1 and NaN give NaN
// (through the square root). AVX-512 handles the last 1..7 elements with
// a K mask; the AVX2 kernel needs len(x) a multiple of 4 (the Go wrapper
// pads the tail).
func genAcos(s isa) {
	n := "acos" + s.name
	TEXT(n, NOSPLIT, "func(dst, x []float64)")
	Pragma("noescape")
	Doc(n+" sets dst[i] = math.Acos(x[i]) for i < len(x), with math.Acos's unfused operations.",
		"On AVX2 len(x) must be a multiple of 4.")
	Load(Param("x").Base(), RSI)
	Load(Param("dst").Base(), RDI)
	Load(Param("x").Len(), RCX)
	r := s.regs
	x, sgn, ax, t, big, rr, ca, cb := r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]
	num, den, z, pn, qd, xa, one, tmp := r[8], r[9], r[10], r[11], r[12], r[13], r[14], r[15]

	// Masks: K registers on AVX-512 (K2 big, K3 case A, K4 case B), the
	// vectors big, ca, cb on AVX2.
	type mask struct {
		k Register // AVX-512
		v VecPhysical
	}
	mBig, mA, mB := mask{K2, big}, mask{K3, ca}, mask{K4, cb}
	cmp := func(pred uint8, a Op, b VecPhysical, m mask) { // m = b pred a
		if s.is512() {
			VCMPPD(U8(pred), a, b, m.k)
		} else {
			VCMPPD(U8(pred), a, b, m.v)
		}
	}
	// blend: dst = m ? ifSet : ifClear.
	blend := func(m mask, ifSet Op, ifClear, dst VecPhysical) {
		if s.is512() {
			VBLENDMPD(ifSet, ifClear, m.k, dst)
		} else {
			VBLENDVPD(m.v, ifSet, ifClear, dst)
		}
	}
	const gtOQ, leOQ = 0x1e, 0x12

	body := func() {
		VANDPD(acosC("sign"), x, sgn)
		VXORPD(sgn, x, ax) // |x|
		VMOVUPD(acosC("one"), one)
		VMULPD(ax, ax, tmp)
		VSUBPD(tmp, one, t)
		VSQRTPD(t, t)
		cmp(gtOQ, acosC("c07"), ax, mBig) // |x| > 0.7
		blend(mBig, t, ax, num)
		blend(mBig, ax, t, den)
		VDIVPD(den, num, rr) // t/|x| or |x|/t
		// satan(rr): case A rr <= 0.66, B rr > tan(3π/8), else C.
		cmp(leOQ, acosC("c066"), rr, mA)
		cmp(gtOQ, acosC("tan3pio8"), rr, mB)
		VSUBPD(one, rr, tmp) // rr − 1
		blend(mB, one, tmp, num)
		blend(mA, rr, num, num)
		VADDPD(one, rr, tmp) // rr + 1
		blend(mB, rr, tmp, den)
		blend(mA, one, den, den)
		VDIVPD(den, num, num) // u
		// xatan(u): Horner's rule as Go writes it, ((P0·z + P1)·z + ...) + P4
		// and ((z + Q0)·z + Q1)·z + ... + Q4.
		VMULPD(num, num, z)
		VMULPD(acosC("p0"), z, pn)
		VADDPD(acosC("q0"), z, qd)
		for i, c := range []string{"1", "2", "3", "4"} {
			if i > 0 {
				VMULPD(z, pn, pn)
			}
			VADDPD(acosC("p"+c), pn, pn)
			VMULPD(z, qd, qd)
			VADDPD(acosC("q"+c), qd, qd)
		}
		VMULPD(pn, z, z)
		VDIVPD(qd, z, z)
		VMULPD(z, num, xa)
		VADDPD(num, xa, xa) // xatan(u)
		// The cases' sums: B (π/2 − xa) + m, C (π/4 + xa) + m/2.
		VMOVUPD(acosC("pio2"), tmp)
		VSUBPD(xa, tmp, pn)
		VADDPD(acosC("morebits"), pn, pn)
		VADDPD(acosC("pio4"), xa, qd)
		VADDPD(acosC("halfmorebits"), qd, qd)
		blend(mB, pn, qd, qd)
		blend(mA, xa, qd, qd) // satan
		// asin(|x|): π/2 − satan where |x| > 0.7; its sign; π/2 − asin.
		VSUBPD(qd, tmp, pn)
		blend(mBig, pn, qd, qd)
		VXORPD(sgn, qd, qd)
		VSUBPD(qd, tmp, x)
	}

	w := s.lanes
	Label(n + "_loop")
	CMPQ(RCX, U8(w))
	JB(LabelRef(n + "_tail"))
	VMOVUPD(Mem{Base: RSI}, x)
	body()
	VMOVUPD(x, Mem{Base: RDI})
	ADDQ(U8(s.bytes), RSI)
	ADDQ(U8(s.bytes), RDI)
	SUBQ(U8(w), RCX)
	JMP(LabelRef(n + "_loop"))

	Label(n + "_tail")
	if s.is512() {
		TESTQ(RCX, RCX)
		JE(LabelRef(n + "_done"))
		kmaskFromCount()
		VMOVUPD_Z(Mem{Base: RSI}, K1, x)
		body()
		VMOVUPD(x, K1, Mem{Base: RDI})
	}
	Label(n + "_done")
	VZEROUPPER()
	RET()
}
