package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The float64 -> float32 conversions (kernels.Round32 and its forms):
// VCVTPD2PS rounds to nearest even under the default MXCSR, as Go's
// float32(x) does (CVTSD2SS), so the bits are Go's, NaNs quieted the same
// way. Rows of cols values with a stride; each row in blocks of four
// vectors, then whole vectors, then the last cols%lanes values: a masked
// vector on AVX-512; on AVX2 a masked load (VMASKMOVPD) and plain stores
// of 1, 2 or 3 lanes chosen by the count, as in the block kernels: the
// store form of VMASKMOVPS/PD is microcoded on AMD's cores, and at d = 5
// (one tail a row) it made the float32 conversions a quarter of an eth80
// epoch.

// round32Mode is what a conversion kernel does besides dst = float32(src).
type round32Mode int

const (
	round32Plain round32Mode = iota // dst = float32(src)
	round32Back                     // also src = float64(float32(src))
	round32Scale                    // dst = float32(src*alpha)
)

func genRound32() {
	for _, s := range []isa{avx512, avx2} {
		for _, m := range []round32Mode{round32Plain, round32Back, round32Scale} {
			genRound32Kernel(s, m)
		}
	}
}

// genRound32Kernel writes
//
//	func round32<Mode>Kernel<ISA>(dst *float32, ldd int, src *float64, lds int, rows, cols int[, alpha float64])
//
// for rows >= 1, cols >= 1.
func genRound32Kernel(s isa, mode round32Mode) {
	name := "round32"
	sig := "func(dst *float32, ldd int, src *float64, lds int, rows, cols int)"
	doc := "dst[i*ldd+j] = float32(src[i*lds+j])"
	switch mode {
	case round32Back:
		name += "Back"
		doc += " and src[i*lds+j] = float64(dst[i*ldd+j])"
	case round32Scale:
		name = "scaleRound32"
		sig = "func(dst *float32, ldd int, src *float64, lds int, rows, cols int, alpha float64)"
		doc = "dst[i*ldd+j] = float32(src[i*lds+j] * alpha)"
	}
	name += "Kernel" + s.name
	TEXT(name, NOSPLIT, sig)
	Pragma("noescape")
	Doc(name+" sets "+doc+" for i < rows, j < cols",
		"(rounded to nearest even). rows and cols must be >= 1.")

	r := s.regs
	w := s.lanes
	// DI: dst row, SI: src row, R8: ldd in bytes, R9: lds in bytes,
	// BX: rows left, CX: cols, R12: cols%lanes; per row R10, R11 the
	// pointers and DX the columns left.
	Load(Param("dst"), RDI)
	Load(Param("ldd"), R8)
	SHLQ(U8(2), R8)
	Load(Param("src"), RSI)
	Load(Param("lds"), R9)
	SHLQ(U8(3), R9)
	Load(Param("rows"), RBX)
	Load(Param("cols"), RCX)
	MOVQ(RCX, R12)
	ANDQ(U8(w-1), R12)
	var alpha, mask64 VecPhysical
	if s.is512() {
		alpha = r[8]
		// K1: the low cols%lanes lanes.
		MOVQ(RCX, RAX)
		MOVQ(R12, RCX)
		MOVL(U32(1), EDX)
		SHLL(CL, EDX)
		DECL(EDX)
		KMOVW(EDX, K1)
		MOVQ(RAX, RCX)
	} else {
		alpha, mask64 = r[13], r[15]
		// Y15: the VMASKMOVPD mask of the first cols%4 lanes (the tail's
		// load; its stores are plain, storeTail).
		LEAQ(avx2Masks.Offset(32), RDX)
		MOVQ(R12, RAX)
		SHLQ(U8(3), RAX)
		SUBQ(RAX, RDX)
		VMOVUPD(Mem{Base: RDX}, mask64)
	}
	if mode == round32Scale {
		Load(Param("alpha"), alpha.AsX())
		VBROADCASTSD(alpha.AsX(), alpha)
	}
	// half: the float32 register of a float64 vector register.
	half := func(v VecPhysical) Register {
		if s.is512() {
			return v.AsY()
		}
		return v.AsX()
	}
	// cvt converts the float64 vector at m into half(v); masked for the
	// tail.
	cvt := func(m Mem, v VecPhysical, masked bool) {
		switch {
		case masked && s.is512():
			VMOVUPD_Z(m, K1, v)
		case masked:
			VMASKMOVPD(m, mask64, v)
		case mode == round32Scale:
			VMULPD(m, alpha, v)
		case s.is512():
			VCVTPD2PS(m, half(v))
			return
		default:
			VCVTPD2PSY(m, half(v))
			return
		}
		if masked && mode == round32Scale {
			VMULPD(v, alpha, v)
		}
		if s.is512() {
			VCVTPD2PS(v, half(v))
		} else {
			VCVTPD2PSY(v, half(v))
		}
	}
	// store writes half(v) to dst at m and, in round32Back mode, its
	// float64 value to src at b (t a temporary).
	store := func(v, t VecPhysical, m, b Mem, masked bool) {
		if masked && !s.is512() {
			panic("round32: AVX2 tails are stored by storeTail")
		}
		if masked {
			VMOVUPS(half(v), K1, m)
		} else {
			VMOVUPS(half(v), m)
		}
		if mode != round32Back {
			return
		}
		VCVTPS2PD(half(v), t)
		if masked {
			VMOVUPD(t, K1, b)
		} else {
			VMOVUPD(t, b)
		}
	}

	// storeTail writes the first lanes of half(v) to dst at m and, in
	// round32Back mode, their float64 values to src at b (through the
	// temporary t), with plain stores (AVX2).
	storeTail := func(v, t VecPhysical, m, b Mem, lanes int) {
		h := v.AsX()
		switch lanes {
		case 1:
			VMOVSS(h, m)
		case 2:
			VMOVSD(h, m)
		case 3:
			VMOVSD(h, m)
			VEXTRACTPS(U8(2), h, m.Offset(8))
		}
		if mode != round32Back {
			return
		}
		VCVTPS2PD(h, t)
		storeLanesAVX2(t, b, lanes)
	}
	// tails: the tail counts with a body of their own: AVX-512 one masked
	// body (-1) for any count, AVX2 one per count.
	tails := []int{-1}
	if !s.is512() {
		tails = []int{1, 2, 3}
	}
	// tailStore is store or storeTail for tail count tc.
	tailStore := func(v, t VecPhysical, m, b Mem, tc int) {
		if tc < 0 {
			store(v, t, m, b, true)
			return
		}
		storeTail(v, t, m, b, tc)
	}

	convRows(name+"_", w, s.bytes, s.bytes/2, tails, r,
		func(m Mem, v VecPhysical, tc int) { cvt(m, v, tc != 0) },
		func(m, b Mem, v, t VecPhysical, tc int) {
			if tc == 0 {
				store(v, t, m, b, false)
				return
			}
			tailStore(v, t, m, b, tc)
		})
}

// convRows emits the row walk of the conversion kernels, after they have
// loaded DI and SI (the first dst and src rows), R8 and R9 (their strides
// in bytes), BX (rows), CX (cols) and R12 (cols%w), and ends the function.
// Rows of fewer than 4w values (the engine's d x D blocks) take one
// straight-line body per count of whole vectors and tail, no column loop;
// longer rows blocks of four vectors, then single vectors, then the tail.
// A vector is w values, srcVec bytes in src and dstVec in dst; tails are
// the tail counts with bodies of their own (-1: one masked body for any
// count). load(m, v, tc) loads the vector at m into v (tc 0: whole, else
// the tail); store(m, b, v, t, tc) stores v to dst at m (b: the same
// values in src; t a temporary). Registers: r[0..7]; per row R10, R11 the
// pointers, DX the columns left; AX in the dispatch.
func convRows(pfx string, w, srcVec, dstVec int, tails []int, r []VecPhysical, load func(m Mem, v VecPhysical, tc int), store func(m, b Mem, v, t VecPhysical, tc int)) {
	CMPQ(RCX, U8(4*w))
	JAE(LabelRef(pfx + "row"))
	MOVQ(RCX, RAX)
	SHRQ(U8(bits(w)), RAX)
	for nv := 0; nv < 4; nv++ {
		for _, tc := range append([]int{0}, tails...) {
			tail := tc != 0
			if nv == 0 && !tail {
				continue
			}
			next := label("%sshort%d_%s_skip", pfx, nv, tailName(tc))
			CMPQ(RAX, U8(nv))
			JNE(LabelRef(next))
			switch {
			case tc < 0:
				TESTQ(R12, R12)
				JE(LabelRef(next))
			case tc == 0:
				TESTQ(R12, R12)
				JNE(LabelRef(next))
			default:
				CMPQ(R12, U8(tc))
				JNE(LabelRef(next))
			}
			body := label("%sshort%d_%s", pfx, nv, tailName(tc))
			Label(body)
			for i := 0; i < nv; i++ {
				load(Mem{Base: RSI, Disp: i * srcVec}, r[i], 0)
			}
			if tail {
				load(Mem{Base: RSI, Disp: nv * srcVec}, r[nv], tc)
			}
			for i := 0; i < nv; i++ {
				store(Mem{Base: RDI, Disp: i * dstVec}, Mem{Base: RSI, Disp: i * srcVec}, r[i], r[4+i], 0)
			}
			if tail {
				store(Mem{Base: RDI, Disp: nv * dstVec}, Mem{Base: RSI, Disp: nv * srcVec}, r[nv], r[4+nv], tc)
			}
			ADDQ(R8, RDI)
			ADDQ(R9, RSI)
			DECQ(RBX)
			JNZ(LabelRef(body))
			JMP(LabelRef(pfx + "done"))
			Label(next)
		}
	}

	Label(pfx + "row")
	MOVQ(RDI, R10)
	MOVQ(RSI, R11)
	MOVQ(RCX, RDX)
	Label(pfx + "loop4")
	CMPQ(RDX, U8(4*w))
	JB(LabelRef(pfx + "loop1"))
	for i := 0; i < 4; i++ {
		load(Mem{Base: R11, Disp: i * srcVec}, r[i], 0)
	}
	for i := 0; i < 4; i++ {
		store(Mem{Base: R10, Disp: i * dstVec}, Mem{Base: R11, Disp: i * srcVec}, r[i], r[4+i], 0)
	}
	ADDQ(U32(4*dstVec), R10)
	ADDQ(U32(4*srcVec), R11)
	SUBQ(U8(4*w), RDX)
	JMP(LabelRef(pfx + "loop4"))

	Label(pfx + "loop1")
	CMPQ(RDX, U8(w))
	JB(LabelRef(pfx + "tail"))
	load(Mem{Base: R11}, r[0], 0)
	store(Mem{Base: R10}, Mem{Base: R11}, r[0], r[4], 0)
	ADDQ(U8(dstVec), R10)
	ADDQ(U8(srcVec), R11)
	SUBQ(U8(w), RDX)
	JMP(LabelRef(pfx + "loop1"))

	Label(pfx + "tail")
	TESTQ(R12, R12)
	JE(LabelRef(pfx + "next"))
	for i, tc := range tails {
		last := i == len(tails)-1 // the only count left: no test, falls through
		skip := label("%stail_%s_skip", pfx, tailName(tc))
		if !last {
			CMPQ(R12, U8(tc))
			JNE(LabelRef(skip))
		}
		load(Mem{Base: R11}, r[0], tc)
		store(Mem{Base: R10}, Mem{Base: R11}, r[0], r[4], tc)
		if !last {
			JMP(LabelRef(pfx + "next"))
			Label(skip)
		}
	}

	Label(pfx + "next")
	ADDQ(R8, RDI)
	ADDQ(R9, RSI)
	DECQ(RBX)
	JNZ(LabelRef(pfx + "row"))
	Label(pfx + "done")
	VZEROUPPER()
	RET()
}

// tailName names the bodies of tail count tc in labels: "false" (no
// tail) and "true" (the masked tail of AVX-512), as before the AVX2 tails
// had bodies of their own, and "t1".."t3" for those.
func tailName(tc int) string {
	switch {
	case tc < 0:
		return "true"
	case tc == 0:
		return "false"
	}
	return label("t%d", tc)
}

// bits returns log2 of the power of two w.
func bits(w int) int {
	b := 0
	for 1<<b < w {
		b++
	}
	return b
}

// genWiden32 writes
//
//	func widen32KernelAVX2(dst *float64, ldd int, src *float32, lds int, rows, cols int)
//
// dst[i*ldd+j] = float64(src[i*lds+j]) for i < rows, j < cols (rows, cols
// >= 1): exact. Rows of fewer than 16 values (a prototype's d columns)
// take a straight-line body per count of whole vectors and tail, no
// column loop (as the float64 -> float32 conversions); longer rows
// vectors of 4 (VCVTPS2PD from memory) in blocks of four. A row's last
// cols%4 values are loaded and stored by 1-, 2- and 3-lane moves
// (nothing past the row is read or written). AVX2 only: the AVX-512
// machines run it too (a prototype's update in float32 mode, a few
// thousand values).
func genWiden32() {
	name := "widen32KernelAVX2"
	TEXT(name, NOSPLIT, "func(dst *float64, ldd int, src *float32, lds int, rows, cols int)")
	Pragma("noescape")
	Doc(name+" sets dst[i*ldd+j] = float64(src[i*lds+j]) for i < rows, j < cols.",
		"rows and cols must be >= 1.")
	Load(Param("dst"), RDI)
	Load(Param("ldd"), R8)
	SHLQ(U8(3), R8)
	Load(Param("src"), RSI)
	Load(Param("lds"), R9)
	SHLQ(U8(2), R9)
	Load(Param("rows"), RBX)
	Load(Param("cols"), RCX)
	MOVQ(RCX, R12)
	ANDQ(U8(3), R12)
	convRows(name+"_", 4, 16, 32, []int{1, 2, 3}, avx2.regs,
		func(m Mem, v VecPhysical, tc int) {
			x := v.AsX()
			switch tc {
			case 0:
				VCVTPS2PD(m, v)
				return
			case 1:
				VMOVSS(m, x)
			case 2:
				VMOVSD(m, x)
			case 3:
				VMOVSD(m, x)
				VINSERTPS(U8(0x20), m.Offset(8), x, x) // lane 2 from the third value
			}
			VCVTPS2PD(x, v)
		},
		func(m, _ Mem, v, _ VecPhysical, tc int) {
			if tc == 0 {
				VMOVUPD(v, m)
				return
			}
			storeLanesAVX2(v, m, tc)
		})
}
