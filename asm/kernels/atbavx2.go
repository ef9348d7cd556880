package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// genAtBAVX2 writes
//
//	func atbKernelAVX2(c *float64, ldc int, a *float64, lda int, b *float64, ldb int, k, rows, nc, h, nbig int, add bool)
//
// the AVX2 AtB block kernel. It is genBlock's kindAtB kernel (outer-product
// form, mr x nb accumulators in registers for the whole sum over t, the
// last column vector masked) with four changes, each measured on a Zen 3
// (no AVX-512), where genBlock's AVX2 loop, with B as FMA memory operands
// (13 loads for 12 FMAs per t), ran at about 80% of the FMA peak with its
// data in L1 and at 50% with D = 400, d = 25:
//
//   - B row vectors are loaded into registers once per t where registers
//     are free (always when the last vector is full: 12 accumulators, 3 B
//     vectors, 1 broadcast), not used as an FMA memory operand per row;
//   - the loop over t is unrolled by two;
//   - add continues the chains from the values in c, so that the caller can
//     split the reduction into chunks that stay in L1 and run every row and
//     column block over one chunk before the next (a chain stored to c and
//     loaded back is the same chain: every output is still one FMA chain
//     over t in order, the bits of genBlock's kernel);
//   - the rows are split into blocks of h and h-1 rows (the caller's
//     choice: as even as possible) so that no block is a short remainder
//     whose few chains wait on the FMA latency.
func genAtBAVX2() {
	s := avx2
	name := "atbKernelAVX2"
	TEXT(name, NOSPLIT, "func(c *float64, ldc int, a *float64, lda int, b *float64, ldb int, k, rows, nc, h, nbig int, add bool)")
	Pragma("noescape")
	Doc(name+" computes c[i*ldc+j] = Σ_{t<k} a[t*lda+i] * b[t*ldb+j] for i < rows, j < nc,",
		"starting each sum from c[i*ldc+j] if add is set and from zero otherwise,",
		"in nbig blocks of h rows, then blocks of h-1 rows.",
		fmt.Sprintf("nc must be in 1..%d, h in 1..mr (the row block of nc's column vectors).", s.lanes*s.maxNB))

	// DI: c block, R8: ldc in bytes, SI: a block, R9: lda in bytes,
	// R10: ldb in bytes, R13: add, BX: nb-1 then the t counter, CX: lanes
	// of the last vector - 1 then rows left, AX: blocks of h rows left,
	// R11: the B row, R12: the A row, DX: scratch.
	atbAVX2Prologue()

	Load(Param("nc"), RCX)
	DECQ(RCX)
	MOVQ(RCX, RBX)
	SHRQ(U8(2), RBX)
	ANDQ(U8(3), RCX)
	done := name + "_done"
	CMPQ(RCX, U8(3))
	JE(LabelRef(name + "_full"))
	// mask = the 32 bytes at avx2masks + 8*(4-lanes)
	INCQ(RCX)
	LEAQ(avx2Masks.Offset(32), RDX)
	SHLQ(U8(3), RCX)
	SUBQ(RCX, RDX)
	VMOVUPD(Mem{Base: RDX}, s.regs[15])
	for _, masked := range []bool{true, false} {
		if !masked {
			Label(name + "_full")
		}
		for nb := 1; nb <= s.maxNB; nb++ {
			CMPQ(RBX, U8(nb-1))
			JE(LabelRef(atbVariantLabel(name, nb, masked)))
		}
		JMP(LabelRef(done))
	}
	for _, masked := range []bool{true, false} {
		for nb := 1; nb <= s.maxNB; nb++ {
			pfx := atbVariantLabel(name, nb, masked)
			mr := s.mr[nb]
			// Blocks of h rows while AX >= 0 after its decrement,
			// then of h-1 rows.
			Label(pfx)
			Load(Param("rows"), RCX)
			Load(Param("nbig"), RAX)
			Label(pfx + "_next")
			TESTQ(RCX, RCX)
			JE(LabelRef(done))
			Load(Param("h"), RDX)
			DECQ(RAX)
			JNS(LabelRef(pfx + "_h"))
			DECQ(RDX)
			Label(pfx + "_h")
			for r := mr; r >= 1; r-- {
				CMPQ(RDX, U8(r))
				JE(LabelRef(label("%s_mr%d", pfx, r)))
			}
			JMP(LabelRef(done))
			for r := mr; r >= 1; r-- {
				Label(label("%s_mr%d", pfx, r))
				atbBlockAVX2(nb, r, masked, label("%s_mr%d_", pfx, r))
				SUBQ(U8(r), RCX)
				JMP(LabelRef(pfx + "_next"))
			}
		}
	}
	Label(done)
	VZEROUPPER()
	RET()
}

// atbVariantLabel names the code for nb column vectors, the last one
// masked or full.
func atbVariantLabel(name string, nb int, masked bool) string {
	if masked {
		return label("%s_nb%dm", name, nb)
	}
	return label("%s_nb%d", name, nb)
}

// atbBlockAVX2 emits one mr x nb block at c=DI, a=SI (accumulators from
// zero, or from c when R13 is set), then advances DI and SI to the next
// block of rows.
func atbBlockAVX2(nb, mr int, masked bool, pfx string) {
	s := avx2
	r := s.regs
	acc := func(i, v int) VecPhysical { return r[i*nb+v] }
	nacc := mr * nb
	cElem := func(v int) Mem { return Mem{Base: RDX, Disp: v * s.bytes} }
	lastMasked := func(v int) bool { return masked && v == nb-1 }

	// Register plan.
	// Register plan: the accumulators, then the B vectors held in
	// registers (bReg; the others are FMA memory operands), then one or
	// two broadcast temporaries; when the last vector is masked, r[14]
	// holds it and r[15] the mask.
	var bReg, tmp []VecPhysical
	if masked {
		nr := min(nb-1, 14-nacc-1)
		bReg, tmp = r[nacc:nacc+nr], r[nacc+nr:14]
	} else {
		bReg, tmp = r[nacc:nacc+nb], r[nacc+nb:16]
	}
	tmp = tmp[:min(len(tmp), 2)]

	TESTB(R13B, R13B)
	JNE(LabelRef(pfx + "load"))
	for i := 0; i < mr; i++ {
		for v := 0; v < nb; v++ {
			VXORPD(acc(i, v), acc(i, v), acc(i, v))
		}
	}
	JMP(LabelRef(pfx + "start"))
	Label(pfx + "load")
	MOVQ(RDI, RDX)
	for i := 0; i < mr; i++ {
		if i > 0 {
			ADDQ(R8, RDX)
		}
		for v := 0; v < nb; v++ {
			if lastMasked(v) {
				VMASKMOVPD(cElem(v), r[15], acc(i, v))
			} else {
				VMOVUPD(cElem(v), acc(i, v))
			}
		}
	}

	// step emits the work of one t at A row R12 (+ lda if second) and B row R11 (+ ldb).
	step := func(second bool) {
		aElem := func(i int) Mem {
			m := Mem{Base: R12, Disp: 8 * i}
			if second {
				m.Index, m.Scale = R9, 1
			}
			return m
		}
		bVec := func(v int) Mem {
			m := Mem{Base: R11, Disp: v * s.bytes}
			if second {
				m.Index, m.Scale = R10, 1
			}
			return m
		}
		var bop func(v int) Op
		switch {
		case masked:
			for v := range bReg {
				VMOVUPD(bVec(v), bReg[v])
			}
			VMASKMOVPD(bVec(nb-1), r[15], r[14])
			bop = func(v int) Op {
				switch {
				case v == nb-1:
					return r[14]
				case v < len(bReg):
					return bReg[v]
				}
				return bVec(v)
			}
		default:
			for v := 0; v < nb; v++ {
				VMOVUPD(bVec(v), bReg[v])
			}
			bop = func(v int) Op { return bReg[v] }
		}
		for i := 0; i < mr; i++ {
			t := tmp[i%len(tmp)]
			VBROADCASTSD(aElem(i), t)
			for v := 0; v < nb; v++ {
				VFMADD231PD(bop(v), t, acc(i, v))
			}
		}
	}

	atbAVX2Loop(pfx, step)

	Label(pfx + "store")
	if masked {
		storeRowsAVX2(mr, nb, acc, pfx+"st", false)
	} else {
		MOVQ(RDI, RDX)
		for i := 0; i < mr; i++ {
			if i > 0 {
				ADDQ(R8, RDX)
			}
			for v := 0; v < nb; v++ {
				VMOVUPD(acc(i, v), cElem(v))
			}
		}
	}
	IMUL3Q(U32(mr), R8, RDX)
	ADDQ(RDX, RDI)
	ADDQ(U32(8*mr), RSI)
}

// atbEdgeMaxRows is the most rows of genAtBEdgeAVX2 by nb (0 or 1): seven
// column vectors of rows for nb = 0; for nb = 1, two, beside the rows'
// accumulators of the full vector.
var atbEdgeMaxRows = [2]int{28, 8}

// genAtBEdgeAVX2 writes
//
//	func atbEdgeAVX2(c *float64, ldc int, a *float64, lda int, b *float64, ldb int, k, rows, nb int, add bool)
//
// AtB for a column block of 4*nb+1 columns, nb 0 or 1, in one block of
// rows (at most atbEdgeMaxRows[nb]), with atbKernelAVX2's chains: the full
// vector of columns as there (a broadcast A(i, t) times the B vector), and
// the last column, which would use one lane of a masked vector per row,
// vectorised over the rows instead: four rows of A row t times the
// broadcast b[t*ldb+4*nb]. For d = 5 that is 7 FMAs per t instead of 10, for
// the 25th column of d = 25, 7 instead of 25.
func genAtBEdgeAVX2() {
	name := "atbEdgeAVX2"
	TEXT(name, NOSPLIT, "func(c *float64, ldc int, a *float64, lda int, b *float64, ldb int, k, rows, nb int, add bool)")
	Pragma("noescape")
	Doc(name+" computes c[i*ldc+j] = Σ_{t<k} a[t*lda+i] * b[t*ldb+j] for i < rows, j < 4*nb+1,",
		"starting each sum from c[i*ldc+j] if add is set and from zero otherwise.",
		fmt.Sprintf("nb must be 0 or 1, rows in 1..%d for nb = 0 and 1..%d for nb = 1.", atbEdgeMaxRows[0], atbEdgeMaxRows[1]))

	// Registers as in atbKernelAVX2.
	atbAVX2Prologue()
	Load(Param("nb"), RCX)
	SHLQ(U8(5), RCX)
	Load(Param("rows"), RAX)
	ADDQ(RAX, RCX)
	done := name + "_done"
	for nb := 0; nb <= 1; nb++ {
		for rows := 1; rows <= atbEdgeMaxRows[nb]; rows++ {
			CMPQ(RCX, U8(32*nb+rows))
			JE(LabelRef(label("%s_nb%d_r%d", name, nb, rows)))
		}
	}
	JMP(LabelRef(done))
	for nb := 0; nb <= 1; nb++ {
		for rows := 1; rows <= atbEdgeMaxRows[nb]; rows++ {
			pfx := label("%s_nb%d_r%d", name, nb, rows)
			Label(pfx)
			atbEdgeBlockAVX2(nb, rows, pfx+"_")
			JMP(LabelRef(done))
		}
	}
	Label(done)
	VZEROUPPER()
	RET()
}

// atbEdgeBlockAVX2 emits genAtBEdgeAVX2's block for nb and rows.
func atbEdgeBlockAVX2(nb, rows int, pfx string) {
	r := avx2.regs
	ev := (rows + 3) / 4 // vectors of rows of the last column
	tail := rows % 4     // rows in the last of them if not 4
	next := 0
	take := func(n int) []VecPhysical {
		x := r[next : next+n]
		next += n
		return x
	}
	eacc := take(ev) // last column, rows 4v..4v+3
	var acc []VecPhysical
	var b0, tmp []VecPhysical
	if nb == 1 {
		acc = take(rows) // full vector, row i
		b0 = take(1)
		tmp = take(2)
	}
	eb := take(1)[0]
	var mask, ptmp VecPhysical
	if tail != 0 {
		mask, ptmp = take(1)[0], take(1)[0]
	}
	ecol := 8 * 4 * nb // byte offset of the last column
	// rowPtr sets DX to row i of c from row i-1 (DX = DI for i = 0).
	rowPtr := func(i int) {
		if i == 0 {
			MOVQ(RDI, RDX)
		} else {
			ADDQ(R8, RDX)
		}
	}
	if tail != 0 {
		VMOVUPD(avx2Masks.Offset(8*(4-tail)), mask)
	}

	TESTB(R13B, R13B)
	JNE(LabelRef(pfx + "load"))
	for _, x := range append(append([]VecPhysical{}, eacc...), acc...) {
		VXORPD(x, x, x)
	}
	JMP(LabelRef(pfx + "start"))
	Label(pfx + "load")
	for i := 0; i < rows; i++ {
		rowPtr(i)
		if nb == 1 {
			VMOVUPD(Mem{Base: RDX}, acc[i])
		}
		// lane i%4 of eacc[i/4]: lanes 0, 1 in the low half, 2, 3 via eb
		e := Mem{Base: RDX, Disp: ecol}
		x := eacc[i/4]
		switch i % 4 {
		case 0:
			VMOVSD(e, x.AsX())
		case 1:
			VMOVHPD(e, x.AsX(), x.AsX())
		case 2:
			VMOVSD(e, eb.AsX())
		case 3:
			VMOVHPD(e, eb.AsX(), eb.AsX())
		}
		if i%4 == 3 || i == rows-1 {
			if i%4 >= 2 {
				VINSERTF128(U8(1), eb.AsX(), x.AsY(), x.AsY())
			}
		}
	}

	step := func(second bool) {
		at := func(disp int) Mem {
			m := Mem{Base: R12, Disp: disp}
			if second {
				m.Index, m.Scale = R9, 1
			}
			return m
		}
		bt := func(disp int) Mem {
			m := Mem{Base: R11, Disp: disp}
			if second {
				m.Index, m.Scale = R10, 1
			}
			return m
		}
		VBROADCASTSD(bt(ecol), eb)
		for v := 0; v < ev; v++ {
			if v == ev-1 && tail != 0 {
				VMASKMOVPD(at(32*v), mask, ptmp)
				VFMADD231PD(ptmp, eb, eacc[v])
			} else {
				VFMADD231PD(at(32*v), eb, eacc[v])
			}
		}
		if nb == 1 {
			VMOVUPD(bt(0), b0[0])
			for i := 0; i < rows; i++ {
				t := tmp[i%2]
				VBROADCASTSD(at(8*i), t)
				VFMADD231PD(b0[0], t, acc[i])
			}
		}
	}
	atbAVX2Loop(pfx, step)

	Label(pfx + "store")
	for i := 0; i < rows; i++ {
		rowPtr(i)
		if nb == 1 {
			VMOVUPD(acc[i], Mem{Base: RDX})
		}
		e := Mem{Base: RDX, Disp: ecol}
		x := eacc[i/4]
		switch i % 4 {
		case 0:
			VMOVSD(x.AsX(), e)
		case 1:
			VMOVHPD(x.AsX(), e)
		case 2:
			VEXTRACTF128(U8(1), x.AsY(), eb.AsX())
			VMOVSD(eb.AsX(), e)
		case 3:
			VMOVHPD(eb.AsX(), e)
		}
	}
}

// atbAVX2Prologue loads the pointers and strides both AVX2 AtB kernels
// share: DI c, R8 ldc in bytes, SI a, R9 lda in bytes, R10 ldb in bytes,
// R13 add.
func atbAVX2Prologue() {
	Load(Param("c"), RDI)
	Load(Param("ldc"), R8)
	SHLQ(U8(3), R8)
	Load(Param("a"), RSI)
	Load(Param("lda"), R9)
	SHLQ(U8(3), R9)
	Load(Param("ldb"), R10)
	SHLQ(U8(3), R10)
	Load(Param("add"), R13)
}

// atbAVX2Loop emits the sum over t of both AVX2 AtB kernels from label
// pfx+"start" on (BX = k, R11 the first B row, R12 the first A row): k/2
// double steps (step(false) at rows R12, R11, step(true) one row further),
// then one step if k is odd, falling through to pfx+"store".
func atbAVX2Loop(pfx string, step func(second bool)) {
	Label(pfx + "start")
	Load(Param("b"), R11)
	Load(Param("k"), RBX)
	MOVQ(RSI, R12)
	SHRQ(U8(1), RBX)
	JE(LabelRef(pfx + "odd"))
	Label(pfx + "loop")
	step(false)
	step(true)
	LEAQ(Mem{Base: R12, Index: R9, Scale: 2}, R12)
	LEAQ(Mem{Base: R11, Index: R10, Scale: 2}, R11)
	DECQ(RBX)
	JNZ(LabelRef(pfx + "loop"))
	Label(pfx + "odd")
	Load(Param("k"), RBX)
	TESTQ(U32(1), RBX)
	JE(LabelRef(pfx + "store"))
	step(false)
}
