package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// kind selects how a block kernel addresses A.
type kind int

const (
	// kindAtB: C = Aᵀ B, A is k x rows: element (i, t) is a[t*lda+i].
	kindAtB kind = iota
	// kindAB: C = A B, A is rows x k: element (i, t) is a[i*lda+t].
	kindAB
	// kindAB2: C = A1 B1 + A2 B2, both A rows x k as for kindAB: the
	// chain of kindAB over [A1 A2] and [B1; B2].
	kindAB2
	// kindAB2F32: kindAB2 with A1 and C float32: A1's elements widened
	// exactly as they are loaded, each output rounded to float32 as it
	// is stored: the bits of widening A1, kindAB2 and rounding (a float32
	// prototype's exact update).
	kindAB2F32
	// kindAB2F32F32: kindAB2F32 with A2 float32 too, widened as it is
	// loaded (a float32 model's update from the sample's rounding).
	kindAB2F32F32
)

// isAB2 reports whether kd is one of the AB2 kinds.
func isAB2(kd kind) bool { return kd == kindAB2 || f32Out(kd) }

// f32Out reports whether kd's C and A1 are float32.
func f32Out(kd kind) bool { return kd == kindAB2F32 || kd == kindAB2F32F32 }

// genBlock writes the block kernel
//
//	func atbKernel<ISA>(c *float64, ldc int, a *float64, lda int, b *float64, ldb int, k, rows, nc int)
//	func abKernel<ISA>(...same...)
//
// computing a rows x nc block of C (0 < nc <= lanes*maxNB; rows >= 0) as
// Σ_{t<k} A(i, t) * b[t*ldb+j]. It walks the rows in blocks of mr[nb] (nb =
// ceil(nc/lanes) column vectors) and one shorter block for the rest; each
// block keeps its mr x nb accumulators in registers for the whole sum over t
// (outer-product form: per t, load the nb vectors of B row t once, broadcast
// each A(i, t) and FMA). The last column vector is masked: the kernel never
// reads or writes a column >= nc. The AVX2 AtB kernel is genAtBAVX2's.
func genBlock(s isa, kd kind) {
	if kd == kindAtB && s.is512() {
		// Five column vectors at up to five rows (25 accumulators and 5
		// B vectors): 40 columns, the eight prototypes of d = 5 side by
		// side, in one pass over the rows instead of a block of 32 and
		// a latency-bound one of 8 (five chains as long as the
		// reduction). The Go side uses it for da <= 5 only: taller
		// outputs would need more row blocks of the narrower height.
		s.maxNB, s.mr = 5, append(append([]int(nil), s.mr...), 5)
	}
	name := "atbKernel" + s.name
	doc := []string{"computes c[i*ldc+j] = Σ_{t<k} a[t*lda+i] * b[t*ldb+j] for i < rows, j < nc."}
	sig := "func(c *float64, ldc int, a *float64, lda int, b *float64, ldb int, k, rows, nc int)"
	pa, plda, pldb := "a", "lda", "ldb"
	switch kd {
	case kindAB:
		name = "abKernel" + s.name
		doc = []string{"computes c[i*ldc+j] = Σ_{t<k} a[i*lda+t] * b[t*ldb+j] for i < rows, j < nc."}
	case kindAB2:
		name = "ab2Kernel" + s.name
		doc = []string{
			"computes c[i*ldc+j] = Σ_{t<k} a1[i*lda1+t] * b1[t*ldb1+j] + Σ_{t<k} a2[i*lda2+t] * b2[t*ldb2+j]",
			"for i < rows, j < nc: one chain over the 2k terms in this order, the chain of",
			"abKernel on [A1 A2] and [B1; B2]. Each block of rows is read whole before it is",
			"stored, so c may be a1 (ldc = lda1) when nc is all of its columns.",
			"k must be >= 1.",
		}
		sig = "func(c *float64, ldc int, a1 *float64, lda1 int, b1 *float64, ldb1 int, a2 *float64, lda2 int, b2 *float64, ldb2 int, k, rows, nc int)"
		pa, plda, pldb = "a1", "lda1", "ldb1"
	case kindAB2F32, kindAB2F32F32:
		if s.is512() {
			// A1's element converted into a register (VCVTPS2PD with
			// embedded broadcast) for its FMAs: two temporaries after
			// the accumulators and B vectors, so four column vectors
			// take six rows, not seven.
			s.mr = append([]int(nil), s.mr...)
			s.mr[4] = 6
		}
		name = "ab2F32Kernel" + s.name
		doc = []string{
			"computes c[i*ldc+j] = float32(Σ_{t<k} float64(a1[i*lda1+t]) * b1[t*ldb1+j] + Σ_{t<k} a2[i*lda2+t] * b2[t*ldb2+j])",
			"for i < rows, j < nc: the ab2Kernel chain on A1 widened (exactly), rounded to",
			"float32 at the end. Each block of rows is read whole before it is stored, so c may",
			"be a1 (ldc = lda1) when nc is all of its columns. k must be >= 1.",
		}
		sig = "func(c *float32, ldc int, a1 *float32, lda1 int, b1 *float64, ldb1 int, a2 *float64, lda2 int, b2 *float64, ldb2 int, k, rows, nc int)"
		pa, plda, pldb = "a1", "lda1", "ldb1"
		if kd == kindAB2F32F32 {
			name = "ab2F32F32Kernel" + s.name
			doc = []string{
				"computes c[i*ldc+j] = float32(Σ_{t<k} float64(a1[i*lda1+t]) * b1[t*ldb1+j] + Σ_{t<k} float64(a2[i*lda2+t]) * b2[t*ldb2+j])",
				"for i < rows, j < nc: ab2F32Kernel with A2 float32 too, widened (exactly) as it is",
				"loaded. Each block of rows is read whole before it is stored, so c may be a1",
				"(ldc = lda1) when nc is all of its columns. k must be >= 1.",
			}
			sig = "func(c *float32, ldc int, a1 *float32, lda1 int, b1 *float64, ldb1 int, a2 *float32, lda2 int, b2 *float64, ldb2 int, k, rows, nc int)"
		}
	}
	// Bytes per element of C and of A (A1 for the AB2 kinds).
	cShift, aShift := uint8(3), uint8(3)
	if f32Out(kd) {
		cShift, aShift = 2, 2
	}
	if s.bcast {
		name += "B"
		doc = append(doc, "Each element of A is broadcast into a register once for its FMAs (two to four column vectors).")
		if !f32Out(kd) {
			// Four column vectors: two broadcast registers after the
			// accumulators and B vectors take six rows, not seven.
			s.mr = append([]int(nil), s.mr...)
			s.mr[4] = 6
		}
	}
	TEXT(name, NOSPLIT, sig)
	Pragma("noescape")
	Doc(append([]string{name + " " + doc[0]}, append(doc[1:], fmt.Sprintf("nc must be in 1..%d.", s.lanes*s.maxNB))...)...)

	// DI: c block, R8: ldc in bytes, SI: a block, R9: lda in bytes,
	// R10: ldb in bytes, CX: rows left, BX: nb-1 then the t counter.
	// (AB2: SI, R9 and R10 are those of A1 and B1 at the start of every
	// block of rows; A2's block pointer lives in the argument slot a2.)
	Load(Param("c"), RDI)
	Load(Param("ldc"), R8)
	SHLQ(U8(cShift), R8)
	Load(Param(pa), RSI)
	Load(Param(plda), R9)
	SHLQ(U8(aShift), R9)
	Load(Param(pldb), R10)
	SHLQ(U8(3), R10)

	columnDispatch(s, name, "rows", func(nb int, half bool, pfx, done string) {
		rowBlocks(s.mr[nb], pfx, done, func(rows int, bp string) {
			blockVariant(s, kd, nb, rows, half, bp)
		})
	})
}

// rowBlocks emits the walk over the rows (CX rows left) of a block
// kernel's variant, starting at label pfx: full blocks of mr rows while
// at least mr are left, then one block of the 1..mr-1 left, each by
// block(rows, its label prefix), which advances the row pointers; it
// jumps to done at the end.
func rowBlocks(mr int, pfx, done string, block func(rows int, pfx string)) {
	Label(pfx)
	CMPQ(RCX, U8(mr))
	JB(LabelRef(pfx + "_rest"))
	block(mr, pfx+"_full")
	SUBQ(U8(mr), RCX)
	JMP(LabelRef(pfx))

	Label(pfx + "_rest")
	for r := 1; r < mr; r++ {
		CMPQ(RCX, U8(r))
		JE(LabelRef(label("%s_mr%d", pfx, r)))
	}
	JMP(LabelRef(done))
	for r := 1; r < mr; r++ {
		Label(label("%s_mr%d", pfx, r))
		block(r, label("%s_mr%d_", pfx, r))
		JMP(LabelRef(done))
	}
}

// columnDispatch emits what the column-blocked kernels (AtB, AB, AtX) share
// after loading their pointers: from Param("nc") it sets BX = nb-1 (column
// vectors minus one) and the mask of the last vector (a K register on
// AVX-512, s.regs[15] on AVX2), loads Param(rows) into CX, and jumps to the
// variant for nb column vectors. On AVX-512 a last column vector of at most
// 4 lanes is done on YMM ("half" variants, labelled ..h): half the FMA work
// on CPUs that split 512-bit FMAs in two (Zen 4). emit writes each variant,
// starting at label pfx and jumping to done when finished; columnDispatch
// then ends the function (VZEROUPPER, RET).
func columnDispatch(s isa, name, rows string, emit func(nb int, half bool, pfx, done string)) {
	// CX = lanes in the last column vector (1..lanes), BX = nb-1.
	Load(Param("nc"), RCX)
	DECQ(RCX)
	MOVQ(RCX, RBX)
	if s.is512() {
		SHRQ(U8(3), RBX)
		ANDQ(U8(7), RCX)
		INCQ(RCX)
		kmaskFromCount()
	} else {
		avx2LastMask(s.regs[15])
	}
	done := name + "_done"
	halves := []bool{false}
	if s.is512() {
		halves = append(halves, true)
		CMPQ(RCX, U8(4))
		Load(Param(rows), RCX) // MOVQ keeps the flags
		JBE(LabelRef(name + "_half"))
	} else {
		Load(Param(rows), RCX)
	}
	for _, half := range halves {
		hs := ""
		if half {
			hs = "h"
			Label(name + "_half")
		}
		for nb := 1; nb <= s.maxNB; nb++ {
			CMPQ(RBX, U8(nb-1))
			JE(LabelRef(label("%s_nb%d%s", name, nb, hs)))
		}
		JMP(LabelRef(done))
	}
	for _, half := range halves {
		hs := ""
		if half {
			hs = "h"
		}
		for nb := 1; nb <= s.maxNB; nb++ {
			emit(nb, half, label("%s_nb%d%s", name, nb, hs), done)
		}
	}
	Label(done)
	VZEROUPPER()
	RET()
}

// avx2LastMask continues from CX = nc-1 and BX = CX (columnDispatch,
// genSparseABBlocks): BX = nb-1 (column vectors minus one), CX = 8 times
// the lanes in the last vector (1..4), and mask = the VMASKMOVPD mask of
// those lanes (the 32 bytes at avx2Masks + 8*(4-lanes)); DX is clobbered.
func avx2LastMask(mask VecPhysical) {
	SHRQ(U8(2), RBX)
	ANDQ(U8(3), RCX)
	INCQ(RCX)
	LEAQ(avx2Masks.Offset(32), RDX)
	SHLQ(U8(3), RCX)
	SUBQ(RCX, RDX)
	VMOVUPD(Mem{Base: RDX}, mask)
}

// vecAs returns how a block kernel uses register x for column vector v of
// nb: the whole register, or its low (YMM) half for the last vector when
// half is set (AVX-512 "half" variants).
func vecAs(nb int, half bool) func(x VecPhysical, v int) Register {
	return func(x VecPhysical, v int) Register {
		if half && v == nb-1 {
			return x.AsY()
		}
		return x
	}
}

// blockVariant emits the code for one mr x nb block at c=DI, a=SI, then
// advances DI and SI to the next block of rows. Working registers: R11 the B
// row, R12 (and R13, AX for AB) the A row(s), BX the t counter, DX scratch.
// For AB2 the accumulators run on from A1 B1 into A2 B2 (two reduce
// loops) and are stored once, after every element of the block's rows of
// A1 and A2 has been read.
//
// With half set (AVX-512 only) the last column vector is a YMM register: its
// accumulators, B vector and broadcast are used through their low halves.
func blockVariant(s isa, kd kind, nb, mr int, half bool, pfx string) {
	r := s.regs
	w := vecAs(nb, half)
	acc := func(i, v int) Register { return w(r[i*nb+v], v) }

	for i := 0; i < mr; i++ {
		for v := 0; v < nb; v++ {
			a := r[i*nb+v]
			VXORPD(a, a, a)
		}
	}
	if bInRegs(s, kd) && !maskInReg(nb, mr) {
		// AX = the address of the mask (see columnDispatch), reloaded
		// from memory where the mask's register is needed.
		if mr > 10 {
			panic("AX is a row base of the block")
		}
		Load(Param("nc"), RAX)
		DECQ(RAX)
		ANDQ(U8(3), RAX)
		INCQ(RAX)
		SHLQ(U8(3), RAX)
		NEGQ(RAX)
		LEAQ(avx2Masks.Offset(32), RDX)
		ADDQ(RDX, RAX)
	}
	fromSI := func() { MOVQ(RSI, R12) }
	if !isAB2(kd) {
		reduce(s, kd, nb, mr, half, "b", fromSI, pfx, pfx+"store", false)
	} else {
		reduce(s, kd, nb, mr, half, "b1", fromSI, pfx, pfx+"end1", f32Out(kd))
		Label(pfx + "end1")
		// The second product: A2's rows from the argument slot, its
		// stride and B2's in R9 and R10 until the end of the block.
		Load(Param("lda2"), R9)
		SHLQ(U8(a2Shift(kd)), R9)
		Load(Param("ldb2"), R10)
		SHLQ(U8(3), R10)
		reduce(s, kd, nb, mr, half, "b2", func() { Load(Param("a2"), R12) }, pfx+"p2", pfx+"store", kd == kindAB2F32F32)
	}

	Label(pfx + "store")
	if bInRegs(s, kd) && !maskInReg(nb, mr) {
		// The loop used Y15 as its temporary: the mask back for the
		// blocks after this one.
		VMOVUPD(Mem{Base: RAX}, r[15])
	}
	if s.is512() && f32Out(kd) {
		// Each output rounded to float32 (VCVTPD2PS, round to nearest
		// even under the default MXCSR, as Go's float32 conversion) and
		// stored as 8 (the half variant's last vector 4) float32s.
		MOVQ(RDI, RDX)
		for i := 0; i < mr; i++ {
			if i > 0 {
				ADDQ(R8, RDX)
			}
			for v := 0; v < nb; v++ {
				x := r[i*nb+v]
				var h Register = x.AsY()
				if half && v == nb-1 {
					VCVTPD2PSY(x.AsY(), x.AsX())
					h = x.AsX()
				} else {
					VCVTPD2PS(x, x.AsY())
				}
				m := Mem{Base: RDX, Disp: v * 32}
				if v < nb-1 {
					VMOVUPS(h, m)
				} else {
					VMOVUPS(h, K1, m)
				}
			}
		}
	} else if s.is512() {
		MOVQ(RDI, RDX)
		for i := 0; i < mr; i++ {
			if i > 0 {
				ADDQ(R8, RDX)
			}
			for v := 0; v < nb; v++ {
				m := Mem{Base: RDX, Disp: v * s.bytes}
				if v < nb-1 {
					VMOVUPD(acc(i, v), m)
				} else {
					VMOVUPD(acc(i, v), K1, m)
				}
			}
		}
	} else {
		storeRowsAVX2(mr, nb, func(i, v int) VecPhysical { return r[i*nb+v] }, pfx+"st", f32Out(kd))
	}
	// Next block of rows.
	IMUL3Q(U32(mr), R8, RDX)
	ADDQ(RDX, RDI)
	switch kd {
	case kindAtB:
		ADDQ(U32(8*mr), RSI)
	case kindAB:
		IMUL3Q(U32(mr), R9, RDX)
		ADDQ(RDX, RSI)
	case kindAB2, kindAB2F32, kindAB2F32F32:
		// R9 holds lda2 in bytes: advance a2, then restore A1's and B1's.
		IMUL3Q(U32(mr), R9, RDX)
		Load(Param("a2"), R12)
		ADDQ(RDX, R12)
		Store(R12, Param("a2"))
		Load(Param("lda1"), R9)
		if f32Out(kd) {
			SHLQ(U8(2), R9)
		} else {
			SHLQ(U8(3), R9)
		}
		Load(Param("ldb1"), R10)
		SHLQ(U8(3), R10)
		IMUL3Q(U32(mr), R9, RDX)
		ADDQ(RDX, RSI)
	}
}

// a2Shift is log2 of the bytes of an element of A2.
func a2Shift(kd kind) uint8 {
	if kd == kindAB2F32F32 {
		return 2
	}
	return 3
}

// storeRowsAVX2 stores an AVX2 block's mr x nb accumulators at DI (row
// stride R8), the last column vector's first lanes only (nc mod 4, or 4):
// by plain stores of 4, 2 and 1 lanes chosen by the lane count, not by
// VMASKMOVPD, whose store form is microcoded on AMD's cores (on Zen 3 it
// took a third of AB2's time at d = 5). With f32 each accumulator is
// rounded to float32 (VCVTPD2PS, to nearest even: Go's float32(x)) and
// stored as such. It clobbers BX and DX and the accumulators (f32) or
// those of the last column vector; labels start with pfx.
func storeRowsAVX2(mr, nb int, acc func(i, v int) VecPhysical, pfx string, f32 bool) {
	// BX = lanes of the last vector - 1, from nc (as columnDispatch).
	Load(Param("nc"), RBX)
	DECQ(RBX)
	ANDQ(U8(3), RBX)
	done := pfx + "done"
	CMPQ(RBX, U8(2))
	JE(LabelRef(pfx + "3"))
	JA(LabelRef(pfx + "4"))
	CMPQ(RBX, U8(1))
	JE(LabelRef(pfx + "2"))
	for _, lanes := range []int{1, 2, 3, 4} {
		if lanes != 1 {
			Label(label("%s%d", pfx, lanes))
		}
		MOVQ(RDI, RDX)
		for i := 0; i < mr; i++ {
			if i > 0 {
				ADDQ(R8, RDX)
			}
			if f32 {
				for v := 0; v < nb; v++ {
					a := acc(i, v)
					VCVTPD2PSY(a, a.AsX())
					if v < nb-1 {
						VMOVUPS(a.AsX(), Mem{Base: RDX, Disp: 16 * v})
					}
				}
				storeLanes32(acc(i, nb-1), Mem{Base: RDX, Disp: 16 * (nb - 1)}, lanes)
				continue
			}
			for v := 0; v < nb-1; v++ {
				VMOVUPD(acc(i, v), Mem{Base: RDX, Disp: 32 * v})
			}
			storeLanesAVX2(acc(i, nb-1), Mem{Base: RDX, Disp: 32 * (nb - 1)}, lanes)
		}
		JMP(LabelRef(done))
	}
	Label(done)
}

// storeLanesAVX2 stores the first lanes (1..4) of y at m by plain stores,
// clobbering y's upper half for 3 lanes.
func storeLanesAVX2(y VecPhysical, m Mem, lanes int) {
	x := y.AsX()
	switch lanes {
	case 1:
		VMOVSD(x, m)
	case 2:
		VMOVUPD(x, m)
	case 3:
		VMOVUPD(x, m)
		VEXTRACTF128(U8(1), y.AsY(), x)
		VMOVSD(x, m.Offset(16))
	default:
		VMOVUPD(y, m)
	}
}

// storeLanes32 stores the first lanes (1..4) of the float32 values in y's
// low half at m by plain stores.
func storeLanes32(y VecPhysical, m Mem, lanes int) {
	x := y.AsX()
	switch lanes {
	case 1:
		VMOVSS(x, m)
	case 2:
		VMOVSD(x, m)
	case 3:
		VMOVSD(x, m)
		VEXTRACTPS(U8(2), x, m.Offset(8))
	default:
		VMOVUPS(x, m)
	}
}

// bInRegs reports whether the AVX2 kernel of kind kd loads every B vector
// of row t into a register once (AB2), instead of taking the full ones as
// an FMA memory operand per row of the block (a load per FMA).
func bInRegs(s isa, kd kind) bool { return !s.is512() && isAB2(kd) }

// maskInReg reports whether an mr x nb block with B in registers leaves
// Y15 to the mask: accumulators, nb B vectors, a broadcast temporary and
// the mask fit in 16 registers. Otherwise the temporary is Y15 and the
// mask is loaded from (AX) into it where it is used.
func maskInReg(nb, mr int) bool { return mr*nb+nb+2 <= 16 }

// reduce emits the sum over t into the block's accumulators: from B at
// Param(pb) (row stride R10) and A at R12, which loadA sets (kindAtB: row
// t at R12 + t*R9; AB kinds: row i at R12 + i*R9, element t at +8t).
// Its labels start with pfx; with k = 0 it jumps to label end, which the
// caller places after it.
func reduce(s isa, kd kind, nb, mr int, half bool, pb string, loadA func(), pfx, end string, a32 bool) {
	r := s.regs
	w := vecAs(nb, half)
	acc := func(i, v int) Register { return w(r[i*nb+v], v) }
	nacc := mr * nb

	// AVX-512: the nb B row vectors after the accumulators; A(i, t) comes
	// in as the embedded broadcast operand of each FMA (on Zen 4 this runs
	// at the FMA peak where VBROADCASTSD into a temporary lost ~12%), but
	// for five vectors (below). On Zen 5, whose two 512-bit FMA pipes make
	// the loads the bound, a broadcast register also took nb = 2 and 3
	// from 3.14 to 2.87 us (BenchmarkProject D=784,d=12) and AB2 at d = 12
	// from 6.76 to 5.73 us (alternated three times): the B kernels
	// (s.bcast), which package kernels runs on every AVX-512 CPU but
	// Zen 4 (cpu.HalfWidth512). Four vectors too since 28 November 2026,
	// in blocks of six rows (24 accumulators, 4 B vectors, the two
	// broadcast registers): per row of B 10 loads for 24 FMAs instead of
	// 32 for 28; AB2 at d = 25 15.0 -> 12.1 us, AtB of 8 prototypes of
	// d = 12 side by side 21.8 -> 18.6 us.
	// AVX2: B vectors but the last one are FMA memory operands; r[12], r[13]
	// broadcast temporaries, r[14] the masked last B vector, r[15] the mask.
	var bv []VecPhysical
	var tmp []VecPhysical
	if s.is512() {
		bv = r[nacc : nacc+nb]
	} else {
		tmp = r[12:14]
	}
	Load(Param(pb), R11)
	Load(Param("k"), RBX)
	loadA()
	if kd != kindAtB {
		if mr > 5 {
			LEAQ(Mem{Base: R12, Index: R9, Scale: 4}, R13)
			ADDQ(R9, R13)
		}
		if mr > 10 {
			LEAQ(Mem{Base: R13, Index: R9, Scale: 4}, RAX)
			ADDQ(R9, RAX)
		}
		LEAQ(Mem{Base: R9, Index: R9, Scale: 2}, RDX)
	}
	// aElem is the address of A(i, t) for the current t.
	aElem := func(i int) Mem {
		if kd == kindAtB {
			return Mem{Base: R12, Disp: 8 * i}
		}
		base := []Register{R12, R13, RAX}[i/5]
		switch i % 5 {
		case 1:
			return Mem{Base: base, Index: R9, Scale: 1}
		case 2:
			return Mem{Base: base, Index: R9, Scale: 2}
		case 3:
			return Mem{Base: base, Index: RDX, Scale: 1}
		case 4:
			return Mem{Base: base, Index: R9, Scale: 4}
		}
		return Mem{Base: base}
	}
	bVec := func(v int) Mem { return Mem{Base: R11, Disp: v * s.bytes} }

	TESTQ(RBX, RBX)
	JE(LabelRef(end))
	Label(pfx + "loop")
	if bInRegs(s, kd) {
		bregs := r[nacc : nacc+nb]
		t := r[nacc+nb]
		mask := r[15]
		if !maskInReg(nb, mr) {
			VMOVUPD(Mem{Base: RAX}, t)
			mask = t
		}
		VMASKMOVPD(bVec(nb-1), mask, bregs[nb-1])
		for v := 0; v < nb-1; v++ {
			VMOVUPD(bVec(v), bregs[v])
		}
		for i := 0; i < mr; i++ {
			if a32 {
				// A(i, t) float32: four copies, widened (exact).
				VBROADCASTSS(aElem(i), t.AsX())
				VCVTPS2PD(t.AsX(), t)
			} else {
				VBROADCASTSD(aElem(i), t)
			}
			for v := 0; v < nb; v++ {
				VFMADD231PD(bregs[v], t, acc(i, v))
			}
		}
	} else if s.is512() {
		for v := 0; v < nb; v++ {
			if v == nb-1 {
				VMOVUPD_Z(bVec(v), K1, w(bv[v], v))
			} else {
				VMOVUPD(bVec(v), bv[v])
			}
		}
		if a32 {
			// A1(i, t) float32: converted to float64 (exactly) and
			// broadcast by one instruction into one of two temporaries
			// after the B vectors.
			for i := 0; i < mr; i++ {
				t := r[nacc+nb+i%2]
				VCVTPS2PD_BCST(aElem(i), t)
				for v := 0; v < nb; v++ {
					VFMADD231PD(w(bv[v], v), w(t, v), acc(i, v))
				}
			}
		} else if nb == 5 || s.bcast && nb >= 2 && nb <= 4 && nacc+nb+2 <= len(r) {
			// Five vectors (and two to four in the B kernels): A(i, t)
			// broadcast once into one of two registers left (r[30],
			// r[31]) for its FMAs, not loaded by each of them (30 loads
			// a row of B against 25 FMAs kept the loads, not the FMAs,
			// the bottleneck on Zen 5).
			for i := 0; i < mr; i++ {
				t := r[30+i%2]
				VBROADCASTSD(aElem(i), t)
				for v := 0; v < nb; v++ {
					VFMADD231PD(w(bv[v], v), w(t, v), acc(i, v))
				}
			}
		} else {
			for i := 0; i < mr; i++ {
				for v := 0; v < nb; v++ {
					VFMADD231PD_BCST(aElem(i), w(bv[v], v), acc(i, v))
				}
			}
		}
	} else {
		last := r[14]
		VMASKMOVPD(bVec(nb-1), r[15], last)
		for i := 0; i < mr; i++ {
			t := tmp[i%len(tmp)]
			VBROADCASTSD(aElem(i), t)
			for v := 0; v < nb-1; v++ {
				VFMADD231PD(bVec(v), t, acc(i, v))
			}
			VFMADD231PD(last, t, acc(i, nb-1))
		}
	}
	// Next t.
	if kd == kindAtB {
		ADDQ(R9, R12)
	} else {
		step := U8(8)
		if a32 {
			step = U8(4)
		}
		ADDQ(step, R12)
		if mr > 5 {
			ADDQ(step, R13)
		}
		if mr > 10 {
			ADDQ(step, RAX)
		}
	}
	ADDQ(R10, R11)
	DECQ(RBX)
	JNZ(LabelRef(pfx + "loop"))
}
