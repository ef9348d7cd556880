package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The float32 kernels (AtB32, AtX32) multiply float32 operands with FMAs in
// float32 lanes (twice the lanes of the float64 kernels) and sum blocks of
// chunk32 rows of the reduction in float32; each block's sum is converted
// to float64 and added to the float64 output. The error of an output is
// then about chunk32·u32·Σ|a||b| instead of n·u32·Σ|a||b| (u32 = 2^-24),
// for a few conversions per block.

// chunk32 is the number of reduction rows summed in float32 before the
// float64 addition (kernels.Chunk32 in package kernels; a multiple of
// atxGroups).
const chunk32 = 64

// isa32 describes one instruction set for the float32 kernels.
type isa32 struct {
	name  string // AVX512 or AVX2
	lanes int    // float32 lanes per vector register
	bytes int    // bytes per vector register
	regs  []VecPhysical
	maxNB int   // widest column block of AtB32, in vectors
	mr    []int // mr[nb]: rows per block of AtB32
	xNB   int   // widest column block of AtX32, in vectors
	// quad: AtX32 sums each group of four rows of a block in one fused
	// chain (a product, three FMAs) and adds the group's sum to one
	// accumulator per column vector (AVX2: a block of xNB = 8 vectors, so
	// that 64 columns are read in one pass over the rows); otherwise four
	// chains per column vector (rows r%4), added at the block's end.
	quad bool
	// bcast: AtB32 broadcasts each A element into a register once for
	// its nb FMAs (VBROADCASTSS) instead of loading it in each FMA as the
	// embedded broadcast: the B kernel, for CPUs with two full-width
	// 512-bit FMA pipes, where nb+mr·nb loads a reduction row, not the
	// mr·nb FMAs, are the bound (Zen 5; see reduce in gemm.go).
	bcast bool
}

var avx512f32 = isa32{
	name: "AVX512", lanes: 16, bytes: 64, regs: avx512.regs,
	// accumulators + nb B vectors + 3 flush temporaries <= 32 (A comes in
	// as the FMA's embedded broadcast).
	maxNB: 4, mr: []int{0, 16, 12, 8, 6},
	xNB: 4,
}

// avx512f32B is avx512f32 with broadcast registers (AtB32 only): two
// registers after the accumulators and B vectors, used in turn.
var avx512f32B = isa32{
	name: "AVX512B", lanes: 16, bytes: 64, regs: avx512.regs,
	maxNB: 4, mr: []int{0, 16, 12, 8, 6},
	bcast: true,
}

var avx2f32 = isa32{
	name: "AVX2", lanes: 8, bytes: 32, regs: avx2.regs,
	// accumulators + nb B vectors + a broadcast + the mask <= 16; the B
	// vectors and the broadcast are the flush temporaries.
	maxNB: 2, mr: []int{0, 12, 6},
	xNB: 8, quad: true,
}

func (s isa32) is512() bool { return s.lanes == 16 }

// avx2Masks32 holds eight all-ones dwords followed by eight zeros: the 32
// bytes at offset 4*(8-t) are a VMASKMOVPS mask selecting the first t lanes.
var avx2Masks32 Mem

func genF32() {
	avx2Masks32 = GLOBL("avx2masks32", RODATA|NOPTR)
	for i := 0; i < 16; i++ {
		v := U32(0)
		if i < 8 {
			v = U32(^uint32(0))
		}
		DATA(4*i, v)
	}
	for _, s := range []isa32{avx512f32, avx2f32} {
		genAtB32(s)
		genAtX32(s)
	}
	genAtB32(avx512f32B)
}

// masks32 sets the masks of the last column vector from Param("nc"): BX =
// nb-1; AVX-512: K1 its t float32 lanes, K2 and K3 the float64 lanes of its
// low and high halves; AVX2: Y15 the float32 mask. Clobbers CX, DX, AX.
func masks32(s isa32) {
	Load(Param("nc"), RCX)
	DECQ(RCX)
	MOVQ(RCX, RBX)
	if s.is512() {
		SHRQ(U8(4), RBX)
		ANDQ(U8(15), RCX)
		INCQ(RCX)
		MOVL(U32(1), EDX)
		SHLL(CL, EDX)
		DECL(EDX)
		KMOVW(EDX, K1)
		MOVL(EDX, EAX)
		ANDL(U32(0xff), EAX)
		KMOVW(EAX, K2)
		SHRL(U8(8), EDX)
		KMOVW(EDX, K3)
		return
	}
	SHRQ(U8(3), RBX)
	ANDQ(U8(7), RCX)
	INCQ(RCX)
	LEAQ(avx2Masks32.Offset(32), RDX)
	SHLQ(U8(2), RCX)
	SUBQ(RCX, RDX)
	VMOVUPS(Mem{Base: RDX}, s.regs[15])
}

// flush32 converts the float32 vector acc (column vector v of nb of one
// output row at DX) to float64 and stores it to the row's 2 float64
// vectors (or adds it to them, at label pfx+"add" when R13 != 0),
// masked for the last column vector if tail is set (a partial one). t
// holds three free temporaries.
func flush32(s isa32, acc VecPhysical, v, nb int, t [3]VecPhysical, add, tail bool) {
	lo := Mem{Base: RDX, Disp: 2 * v * s.bytes}
	hi := Mem{Base: RDX, Disp: 2*v*s.bytes + s.bytes}
	last := tail && v == nb-1
	if s.is512() {
		for h, m := range []Mem{lo, hi} {
			if h == 0 {
				VCVTPS2PD(acc.AsY(), t[0])
			} else {
				VEXTRACTF32X8(U8(1), acc, t[0].AsY())
				VCVTPS2PD(t[0].AsY(), t[0])
			}
			k := []Op{K2, K3}[h]
			if add {
				if last {
					VMOVUPD_Z(m, k, t[1])
					VADDPD(t[1], t[0], t[0])
				} else {
					VADDPD(m, t[0], t[0])
				}
			}
			if last {
				VMOVUPD(t[0], k, m)
			} else {
				VMOVUPD(t[0], m)
			}
		}
		return
	}
	for h, m := range []Mem{lo, hi} {
		if h == 0 {
			VCVTPS2PD(acc.AsX(), t[0])
			if last {
				VPMOVSXDQ(s.regs[15].AsX(), t[2])
			}
		} else {
			VEXTRACTF128(U8(1), acc, t[0].AsX())
			VCVTPS2PD(t[0].AsX(), t[0])
			if last {
				VEXTRACTI128(U8(1), s.regs[15], t[2].AsX())
				VPMOVSXDQ(t[2].AsX(), t[2])
			}
		}
		if add {
			if last {
				VMASKMOVPD(m, t[2], t[1])
				VADDPD(t[1], t[0], t[0])
			} else {
				VADDPD(m, t[0], t[0])
			}
		}
		if last {
			VMASKMOVPD(t[0], t[2], m)
		} else {
			VMOVUPD(t[0], m)
		}
	}
}

// dispatch32 emits the jump from a float32 kernel's entry (BX = nb-1, from
// masks32) to its variant for nb column vectors (label vname(tail) +
// "_nb<nb>"; done when nb > maxNB) and returns the tails whose variants the
// kernel must emit. tail: the last column vector is partial (masked) or
// whole. AVX-512 runs the masked code for both (its masked stores cost what
// plain ones do); AVX2 has whole-vector code for nc a multiple of 8 (every
// call over the engine's chunks but a last one), since VMASKMOVPD's store
// is microcoded on AMD's cores and the flush stores the last vector of
// every row at every chunk of the reduction. Clobbers DX.
func dispatch32(s isa32, name string, maxNB int, done string) (tails []bool, vname func(tail bool) string) {
	tails = []bool{true}
	if !s.is512() {
		tails = []bool{false, true}
		Load(Param("nc"), RDX)
		TESTQ(U32(s.lanes-1), RDX)
		JNZ(LabelRef(name + "_tail"))
	}
	vname = func(tail bool) string {
		if tail && !s.is512() {
			return name + "_tail"
		}
		return name
	}
	for _, tail := range tails {
		vn := vname(tail)
		if vn != name {
			Label(vn)
		}
		for nb := 1; nb <= maxNB; nb++ {
			CMPQ(RBX, U8(nb-1))
			JE(LabelRef(label("%s_nb%d", vn, nb)))
		}
		JMP(LabelRef(done))
	}
	return tails, vname
}

// genAtB32 writes
//
//	func atb32Kernel<ISA>(m *float64, ldm int, a *float32, lda int, b *float32, ldb int, n, rows, nc int)
//
// computing m[i*ldm+j] for i < rows, j < nc (1 <= nc <= lanes*maxNB,
// n >= 1) as the float64 sum, in order, of the float32 sums of a[t*lda+i]
// * b[t*ldb+j] over the blocks of chunk32 rows t (each one FMA chain from
// zero). Rows go in blocks of mr[nb] and one shorter block; each block
// keeps its accumulators in registers over a chunk (outer-product form).
func genAtB32(s isa32) {
	name := "atb32Kernel" + s.name
	TEXT(name, NOSPLIT, "func(m *float64, ldm int, a *float32, lda int, b *float32, ldb int, n, rows, nc int, add bool)")
	Pragma("noescape")
	Doc(name+" computes m[i*ldm+j] = Σ_{chunks} float64(Σ_{t in chunk} a[t*lda+i] * b[t*ldb+j]) for i < rows, j < nc,",
		fmt.Sprintf("the chunks of %d rows t in order, each a float32 FMA chain from zero,", chunk32),
		"starting from m[i*ldm+j] if add is set and from zero otherwise.",
		fmt.Sprintf("nc must be in 1..%d, n >= 1.", s.lanes*s.maxNB))

	// DI: m block, R8: ldm in bytes, SI: a block, R9: lda in bytes,
	// R10: ldb in bytes, CX: rows left.
	Load(Param("m"), RDI)
	Load(Param("ldm"), R8)
	SHLQ(U8(3), R8)
	Load(Param("a"), RSI)
	Load(Param("lda"), R9)
	SHLQ(U8(2), R9)
	Load(Param("ldb"), R10)
	SHLQ(U8(2), R10)
	masks32(s)
	Load(Param("rows"), RCX)
	done := name + "_done"
	tails, vname := dispatch32(s, name, s.maxNB, done)
	for _, tail := range tails {
		vn := vname(tail)
		for nb := 1; nb <= s.maxNB; nb++ {
			rowBlocks(s.mr[nb], label("%s_nb%d", vn, nb), done, func(rows int, bp string) {
				atb32Block(s, nb, rows, bp, tail)
			})
		}
	}
	Label(done)
	VZEROUPPER()
	RET()
}

// atb32Block emits one mr x nb block at m=DI, a=SI and advances DI and SI
// to the next block of rows. R11: the B row, R12: the A row, BX: rows of
// the reduction left, AX: rows left in the chunk, R13: 0 for the first
// chunk, DX scratch. tail: the last column vector is partial (masked).
func atb32Block(s isa32, nb, mr int, pfx string, tail bool) {
	r := s.regs
	acc := func(i, v int) VecPhysical { return r[i*nb+v] }
	nacc := mr * nb
	bv := r[nacc : nacc+nb]
	var bc VecPhysical // AVX2 broadcast
	var tmp [3]VecPhysical
	if s.is512() {
		copy(tmp[:], r[nacc+nb:nacc+nb+3])
	} else {
		bc = r[14]
		tmp = [3]VecPhysical{r[12], r[13], r[14]}
		if nb == 1 {
			bc = r[13]
		}
	}

	Load(Param("b"), R11)
	Load(Param("n"), RBX)
	MOVQ(RSI, R12)
	Load(Param("add"), R13)
	Label(pfx + "chunk")
	for i := 0; i < mr; i++ {
		for v := 0; v < nb; v++ {
			VXORPS(acc(i, v), acc(i, v), acc(i, v))
		}
	}
	MOVQ(U32(chunk32), RAX)
	CMPQ(RBX, RAX)
	CMOVQLT(RBX, RAX)
	SUBQ(RAX, RBX)
	Label(pfx + "loop")
	for v := 0; v < nb; v++ {
		m := Mem{Base: R11, Disp: v * s.bytes}
		switch {
		case v < nb-1 || !tail:
			VMOVUPS(m, bv[v])
		case s.is512():
			VMOVUPS_Z(m, K1, bv[v])
		default:
			VMASKMOVPS(m, r[15], bv[v])
		}
	}
	for i := 0; i < mr; i++ {
		ai := Mem{Base: R12, Disp: 4 * i}
		if s.bcast && nb > 1 {
			t := r[nacc+nb+i%2]
			VBROADCASTSS(ai, t)
			for v := 0; v < nb; v++ {
				VFMADD231PS(bv[v], t, acc(i, v))
			}
			continue
		}
		if s.is512() {
			for v := 0; v < nb; v++ {
				VFMADD231PS_BCST(ai, bv[v], acc(i, v))
			}
			continue
		}
		VBROADCASTSS(ai, bc)
		for v := 0; v < nb; v++ {
			VFMADD231PS(bv[v], bc, acc(i, v))
		}
	}
	ADDQ(R9, R12)
	ADDQ(R10, R11)
	DECQ(RAX)
	JNZ(LabelRef(pfx + "loop"))

	// Flush: store the first chunk, add the others.
	TESTQ(R13, R13)
	JNZ(LabelRef(pfx + "add"))
	for _, add := range []bool{false, true} {
		if add {
			Label(pfx + "add")
		}
		MOVQ(RDI, RDX)
		for i := 0; i < mr; i++ {
			if i > 0 {
				ADDQ(R8, RDX)
			}
			for v := 0; v < nb; v++ {
				flush32(s, acc(i, v), v, nb, tmp, add, tail)
			}
		}
		if !add {
			JMP(LabelRef(pfx + "next"))
		}
	}
	Label(pfx + "next")
	MOVQ(U32(1), R13)
	TESTQ(RBX, RBX)
	JNZ(LabelRef(pfx + "chunk"))

	// Next block of rows.
	IMUL3Q(U32(mr), R8, RDX)
	ADDQ(RDX, RDI)
	ADDQ(U32(4*mr), RSI)
}

// genAtX32 writes
//
//	func atx32Kernel<ISA>(y *float64, a *float32, lda int, x *float32, n, nc int)
//
// computing y[j] for j < nc (1 <= nc <= lanes*xNB, n >= 1) as the float64
// sum, in order, over the blocks of chunk32 rows r of float32 sums of
// a[r*lda+j] * x[r]; within a block, rows with the same r%4 go into one of
// four FMA chains (latency), added ((g0+g1)+(g2+g3)) at the block's end,
// or (s.quad) each group of four rows is one fused chain added to the
// block's sum.
func genAtX32(s isa32) {
	name := "atx32Kernel" + s.name
	TEXT(name, NOSPLIT, "func(y *float64, a *float32, lda int, x *float32, n, nc int)")
	Pragma("noescape")
	order := "each summed in float32 in four FMA chains (r%4)."
	if s.quad {
		order = "each summed in float32 by groups of four rows (a product and three FMAs) added in order."
	}
	Doc(name+" computes y[j] = Σ_{chunks} float64(Σ_{r in chunk} a[r*lda+j] * x[r]) for j < nc,",
		fmt.Sprintf("the chunks of %d rows r in order, %s", chunk32, order),
		fmt.Sprintf("nc must be in 1..%d, n >= 1.", s.lanes*s.xNB))

	// DI: y, SI: a row, R9: lda in bytes, R8: 3*lda in bytes, R11: x,
	// BX: nb-1, then CX: rows left, AX: rows left in the chunk, R13: 0 in
	// the first chunk.
	Load(Param("y"), RDI)
	Load(Param("a"), RSI)
	Load(Param("lda"), R9)
	SHLQ(U8(2), R9)
	LEAQ(Mem{Base: R9, Index: R9, Scale: 2}, R8)
	Load(Param("x"), R11)
	masks32(s)
	Load(Param("n"), RCX)
	done := name + "_done"
	tails, vname := dispatch32(s, name, s.xNB, done)
	for _, tail := range tails {
		for nb := 1; nb <= s.xNB; nb++ {
			atx32Variant(s, nb, label("%s_nb%d", vname(tail), nb), tail)
			JMP(LabelRef(done))
		}
	}
	Label(done)
	VZEROUPPER()
	RET()
}

// atx32Variant emits the code for nb column vectors at label pfx, the
// last one partial (masked) if tail is set.
func atx32Variant(s isa32, nb int, pfx string, tail bool) {
	r := s.regs
	acc := func(u, v int) VecPhysical { return r[u*nb+v] }
	if s.quad {
		acc = func(_, v int) VecPhysical { return r[v] }
	}
	// AVX-512: broadcasts r[16..19], flush temporaries r[20..22]. AVX2:
	// r[12], r[14] broadcasts, r[13] the masked last A vector, r[15] the
	// mask; the flush temporaries r[12..14].
	bcst := func(u int) VecPhysical {
		if s.is512() {
			return r[16+u]
		}
		return r[12+2*(u%2)]
	}
	tmp := [3]VecPhysical{r[12], r[13], r[14]}
	if s.is512() {
		tmp = [3]VecPhysical{r[20], r[21], r[22]}
	}
	aRow := func(u, v int) Mem {
		m := Mem{Base: RSI, Disp: v * s.bytes}
		switch u {
		case 1:
			m.Index, m.Scale = R9, 1
		case 2:
			m.Index, m.Scale = R9, 2
		case 3:
			m.Index, m.Scale = R8, 1
		}
		return m
	}
	row := func(u int) {
		t := bcst(u)
		VBROADCASTSS(Mem{Base: R11, Disp: 4 * u}, t)
		for v := 0; v < nb; v++ {
			switch {
			case v < nb-1 || !tail:
				VFMADD231PS(aRow(u, v), t, acc(u, v))
			case s.is512():
				VMOVUPS_Z(aRow(u, v), K1, r[23])
				VFMADD231PS(r[23], t, acc(u, v))
			default:
				VMASKMOVPS(aRow(u, v), r[15], r[13])
				VFMADD231PS(r[13], t, acc(u, v))
			}
		}
	}

	// quad (AVX2): the accumulators r[0..7], the groups' chains in r[8]
	// and r[9], the four rows' broadcasts r[10], r[11], r[12], r[14].
	quad := func() {
		b := [4]VecPhysical{r[10], r[11], r[12], r[14]}
		for u := 0; u < 4; u++ {
			VBROADCASTSS(Mem{Base: R11, Disp: 4 * u}, b[u])
		}
		for v := 0; v < nb; v++ {
			t := r[8+v%2]
			for u := 0; u < 4; u++ {
				var a Op = aRow(u, v)
				if tail && v == nb-1 {
					VMASKMOVPS(aRow(u, v), r[15], r[13])
					a = r[13]
				}
				if u == 0 {
					VMULPS(a, b[0], t)
				} else {
					VFMADD231PS(a, b[u], t)
				}
			}
			VADDPS(t, acc(0, v), acc(0, v))
		}
	}
	groups := atxGroups
	if s.quad {
		groups = 1
	}

	Label(pfx)
	XORQ(R13, R13)
	Label(pfx + "_chunk")
	for u := 0; u < groups; u++ {
		for v := 0; v < nb; v++ {
			VXORPS(acc(u, v), acc(u, v), acc(u, v))
		}
	}
	MOVQ(U32(chunk32), RAX)
	CMPQ(RCX, RAX)
	CMOVQLT(RCX, RAX)
	SUBQ(RAX, RCX)
	Label(pfx + "_loop4")
	CMPQ(RAX, U8(atxGroups))
	JB(LabelRef(pfx + "_loop1"))
	if s.quad {
		quad()
	} else {
		for u := 0; u < atxGroups; u++ {
			row(u)
		}
	}
	LEAQ(Mem{Base: RSI, Index: R9, Scale: 4}, RSI)
	ADDQ(U8(4*atxGroups), R11)
	SUBQ(U8(atxGroups), RAX)
	JMP(LabelRef(pfx + "_loop4"))

	Label(pfx + "_loop1")
	TESTQ(RAX, RAX)
	JE(LabelRef(pfx + "_flush"))
	row(0)
	ADDQ(R9, RSI)
	ADDQ(U8(4), R11)
	DECQ(RAX)
	JMP(LabelRef(pfx + "_loop1"))

	Label(pfx + "_flush")
	if !s.quad { // the four chains into one (quad has one already)
		for v := 0; v < nb; v++ {
			VADDPS(acc(1, v), acc(0, v), acc(0, v))
			VADDPS(acc(3, v), acc(2, v), acc(2, v))
			VADDPS(acc(2, v), acc(0, v), acc(0, v))
		}
	}
	MOVQ(RDI, RDX)
	TESTQ(R13, R13)
	JNZ(LabelRef(pfx + "_add"))
	for v := 0; v < nb; v++ {
		flush32(s, acc(0, v), v, nb, tmp, false, tail)
	}
	JMP(LabelRef(pfx + "_next"))
	Label(pfx + "_add")
	for v := 0; v < nb; v++ {
		flush32(s, acc(0, v), v, nb, tmp, true, tail)
	}
	Label(pfx + "_next")
	MOVQ(U32(1), R13)
	TESTQ(RCX, RCX)
	JNZ(LabelRef(pfx + "_chunk"))
}
