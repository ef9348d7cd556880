package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// sparseMaxNB is the widest column block (in vectors) of SparseAB: one
// accumulator per column vector, the whole row in registers (64 columns on
// AVX-512, 48 on AVX2, which keeps r[13..15] for the broadcast, the masked
// last B vector and the mask).
var sparseMaxNB = map[string]int{"AVX512": 8, "AVX2": 12}

// genSparseAB writes
//
//	func sparseABKernel<ISA>(c *float64, val *float64, idx *int32, nnz int, b *float64, ldb, rows, nc int) (bad int)
//
// computing c[j] = Σ_{i<nnz} val[i] * b[idx[i]*ldb+j] for j < nc (0 < nc
// <= lanes*sparseMaxNB), i in order: one FMA chain per output starting
// from zero, the chain AB computes for a row whose other entries are zero.
// Per listed row it broadcasts val[i] once and FMAs the nb vectors of that
// row of B (memory operands; the last vector masked) into the nb
// accumulators. An index outside [0, rows) stops it before anything is
// written and returns bad = 1 (the Go side panics); otherwise bad = 0.
func genSparseAB(s isa) {
	name := "sparseABKernel" + s.name
	TEXT(name, NOSPLIT, "func(c *float64, val *float64, idx *int32, nnz int, b *float64, ldb, rows, nc int) (bad int)")
	Pragma("noescape")
	s.maxNB = sparseMaxNB[s.name]
	Doc(name+" computes c[j] = Σ_{i<nnz} val[i] * b[idx[i]*ldb+j] for j < nc.",
		fmt.Sprintf("nc must be in 1..%d; bad = 1 (nothing written) if an index is outside [0, rows).", s.lanes*s.maxNB))

	sparseLoad()

	columnDispatch(s, name, "nnz", func(nb int, half bool, pfx, done string) {
		sparseVariant(s, nb, half, pfx, name+"_bad")
		JMP(LabelRef(done))
	})
	Label(name + "_bad")
	MOVQ(U32(1), RAX)
	Store(RAX, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// sparseLoad loads what both sparse kernels take the same way, and sets
// bad = 0: DI: c, SI: val[i], R8: idx[i], R11: b, R10: ldb in bytes, R12:
// rows (the variants then use R9 for the entries left and AX for the
// current row's byte offset).
func sparseLoad() {
	XORQ(RAX, RAX)
	Store(RAX, ReturnIndex(0))
	Load(Param("c"), RDI)
	Load(Param("val"), RSI)
	Load(Param("idx"), R8)
	Load(Param("b"), R11)
	Load(Param("ldb"), R10)
	SHLQ(U8(3), R10)
	Load(Param("rows"), R12)
}

// sparseRowStart begins a listed row of both sparse kernels' loops: AX =
// the row's byte offset in B (an index outside [0, rows) jumps to bad),
// bc = its value broadcast.
func sparseRowStart(bad string, bc Register) {
	MOVL(Mem{Base: R8}, EAX) // zero-extends: a negative index is a huge row
	CMPQ(RAX, R12)
	JAE(LabelRef(bad))
	IMULQ(R10, RAX)
	VBROADCASTSD(Mem{Base: RSI}, bc)
}

// sparseRowNext steps both sparse kernels' lists to the next entry and
// loops to loop while entries are left (R9).
func sparseRowNext(loop string) {
	ADDQ(U8(4), R8)
	ADDQ(U8(8), RSI)
	DECQ(R9)
	JNZ(LabelRef(loop))
}

// sparseVariant emits SparseAB for nb column vectors (CX holds nnz); with
// half set (AVX-512 only) the last vector is a YMM register.
func sparseVariant(s isa, nb int, half bool, pfx, bad string) {
	r := s.regs
	w := vecAs(nb, half)
	acc := func(v int) Register { return w(r[v], v) }
	// AVX-512: r[30] the broadcast, r[31] the masked last B vector.
	// AVX2: r[13] the broadcast, r[14] the masked last B vector, r[15] the
	// mask.
	bc, last := r[13], r[14]
	if s.is512() {
		bc, last = r[30], r[31]
	}
	bVec := func(v int) Mem { return Mem{Base: R11, Index: RAX, Scale: 1, Disp: v * s.bytes} }

	Label(pfx)
	for v := 0; v < nb; v++ {
		VXORPD(r[v], r[v], r[v])
	}
	MOVQ(RCX, R9)
	TESTQ(R9, R9)
	JE(LabelRef(pfx + "store"))
	Label(pfx + "loop")
	sparseRowStart(bad, bc)
	for v := 0; v < nb-1; v++ {
		VFMADD231PD(bVec(v), bc, acc(v))
	}
	if s.is512() {
		VMOVUPD_Z(bVec(nb-1), K1, w(last, nb-1))
	} else {
		VMASKMOVPD(bVec(nb-1), r[15], last)
	}
	VFMADD231PD(w(last, nb-1), w(bc, nb-1), acc(nb-1))
	sparseRowNext(pfx + "loop")

	Label(pfx + "store")
	for v := 0; v < nb; v++ {
		m := Mem{Base: RDI, Disp: v * s.bytes}
		switch {
		case v < nb-1:
			VMOVUPD(acc(v), m)
		case s.is512():
			VMOVUPD(acc(v), K1, m)
		default:
			VMASKMOVPD(acc(v), r[15], m)
		}
	}
}

// sparseBlocksMax is the most blocks one sparseABBlocksKernelAVX2 variant
// interleaves: a base register each (R11, DX, R13, R14, BX, CX).
const sparseBlocksMax = 6

// sparseBlocksFor returns how many blocks of nb column vectors each a
// variant of sparseABBlocksKernelAVX2 interleaves at most: with a partial
// last vector (masked) 12 accumulators (the broadcast, the masked vector
// and the mask take three registers), with whole vectors 15 (the
// broadcast one); and the base registers.
func sparseBlocksFor(nb int, masked bool) int {
	if masked {
		return min(sparseBlocksMax, 12/nb)
	}
	return min(sparseBlocksMax, 15/nb)
}

// genSparseABBlocks writes
//
//	func sparseABBlocksKernelAVX2(c *float64, val *float64, idx *int32, nnz int, b *float64, ldb, bs, rows, nc, nblk int) (bad int)
//
// computing, for the nblk blocks B_t = b[t*bs:] (row stride ldb) and j <
// nc, c[t*nc+j] = Σ_{i<nnz} val[i] * b[t*bs+idx[i]*ldb+j], i in order: for
// each block the chain of SparseAB, the blocks' chains interleaved (a
// prototype's own block of d columns is ceil(d/4) chains, latency-bound
// alone). 1 <= nc <= 24, 2 <= nblk <= sparseBlocksFor(ceil(nc/4), nc%4 !=
// 0); nnz >= 1. Per listed row it broadcasts val[i] once and FMAs the nb
// vectors of that row of every block (memory operands; each block's last
// vector masked where nc is not a multiple of 4). An index outside [0,
// rows) stops it before anything is written and returns bad = 1;
// otherwise bad = 0.
func genSparseABBlocks() {
	name := "sparseABBlocksKernelAVX2"
	TEXT(name, NOSPLIT, "func(c *float64, val *float64, idx *int32, nnz int, b *float64, ldb, bs, rows, nc, nblk int) (bad int)")
	Pragma("noescape")
	Doc(name+" computes c[t*nc+j] = Σ_{i<nnz} val[i] * b[t*bs+idx[i]*ldb+j] for t < nblk, j < nc:",
		"SparseAB on nblk blocks at once, their chains interleaved. nc must be in 1..24,",
		"nblk in 2..min(6, 12/ceil(nc/4)) (15/ceil(nc/4) when 4 divides nc), nnz >= 1;",
		"bad = 1 (nothing written) if an index is outside [0, rows).")

	sparseLoad()
	// Y15 = the mask of the last column vector, BX = nb-1, CX = 4*nblk
	// plus 1 if the last vector is partial.
	Load(Param("nc"), RCX)
	DECQ(RCX)
	MOVQ(RCX, RBX)
	avx2LastMask(Y15)
	SHRQ(U8(3), RCX) // lanes of the last vector, 1..4
	XORQ(RDX, RDX)
	CMPQ(RCX, U8(4))
	SETNE(DL)
	Load(Param("nblk"), RCX)
	SHLQ(U8(2), RCX)
	ORQ(RDX, RCX)
	done := name + "_done"
	type variant struct {
		nb, g  int
		masked bool
	}
	var vs []variant
	for _, masked := range []bool{false, true} {
		for nb := 1; nb <= 6; nb++ {
			for g := 2; g <= sparseBlocksFor(nb, masked); g++ {
				vs = append(vs, variant{nb, g, masked})
			}
		}
	}
	vname := func(v variant) string {
		m := ""
		if v.masked {
			m = "m"
		}
		return label("%s_nb%d_g%d%s", name, v.nb, v.g, m)
	}
	for _, v := range vs {
		key := 4 * v.g
		if v.masked {
			key++
		}
		next := vname(v) + "_not"
		CMPQ(RBX, U8(v.nb-1))
		JNE(LabelRef(next))
		CMPQ(RCX, U8(key))
		JE(LabelRef(vname(v)))
		Label(next)
	}
	JMP(LabelRef(done))
	for _, v := range vs {
		sparseBlocksVariant(v.nb, v.g, v.masked, vname(v), name+"_bad")
		JMP(LabelRef(done))
	}
	Label(name + "_bad")
	MOVQ(U32(1), RAX)
	Store(RAX, ReturnIndex(0))
	Label(done)
	VZEROUPPER()
	RET()
}

// sparseBlocksVariant emits sparseABBlocksKernelAVX2 for g blocks of nb
// column vectors: accumulators Y0.. (block t's vector v in Y(t*nb+v));
// masked: Y13 the broadcast, Y14 the masked last B vector, Y15 the mask;
// otherwise Y15 the broadcast. Block t's base address is in R11, DX, R13,
// R14, BX, CX (t = 0..5).
func sparseBlocksVariant(nb, g int, masked bool, pfx, bad string) {
	acc := func(t, v int) VecPhysical { return avx2.regs[t*nb+v] }
	bases := []Register{R11, RDX, R13, R14, RBX, RCX}
	bc := Y15
	if masked {
		bc = Y13
	}
	Label(pfx)
	Load(Param("bs"), R9)
	SHLQ(U8(3), R9)
	for t := 1; t < g; t++ {
		LEAQ(Mem{Base: bases[t-1], Index: R9, Scale: 1}, bases[t])
	}
	for t := 0; t < g; t++ {
		for v := 0; v < nb; v++ {
			VXORPD(acc(t, v), acc(t, v), acc(t, v))
		}
	}
	Load(Param("nnz"), R9)
	Label(pfx + "loop")
	sparseRowStart(bad, bc)
	for t := 0; t < g; t++ {
		row := func(v int) Mem { return Mem{Base: bases[t], Index: RAX, Scale: 1, Disp: v * 32} }
		for v := 0; v < nb-1; v++ {
			VFMADD231PD(row(v), bc, acc(t, v))
		}
		if masked {
			VMASKMOVPD(row(nb-1), Y15, Y14)
			VFMADD231PD(Y14, bc, acc(t, nb-1))
		} else {
			VFMADD231PD(row(nb-1), bc, acc(t, nb-1))
		}
	}
	sparseRowNext(pfx + "loop")

	// Block t's outputs at c + t*nc*8.
	Load(Param("nc"), RBX)
	SHLQ(U8(3), RBX)
	for t := 0; t < g; t++ {
		for v := 0; v < nb-1; v++ {
			VMOVUPD(acc(t, v), Mem{Base: RDI, Disp: v * 32})
		}
		if masked {
			VMASKMOVPD(acc(t, nb-1), Y15, Mem{Base: RDI, Disp: (nb - 1) * 32})
		} else {
			VMOVUPD(acc(t, nb-1), Mem{Base: RDI, Disp: (nb - 1) * 32})
		}
		if t < g-1 {
			ADDQ(RBX, RDI)
		}
	}
}
