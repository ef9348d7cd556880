package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The exact update of a float32 prototype in float32 lanes (kernels.AB2S32):
//
//	c[i*ldc+j] += Σ_{t<k} a1[i*lda1+t] * b1[t*ldb1+j] + Σ_{t<k} a2[i*lda2+t] * b2[t*ldb2+j]
//
// the sum one float32 FMA chain over the 2k terms in this order, from
// zero, then added to c's value (one rounding): the update W += W K + P B
// rounds its small increment, not W, at each term. Three kernels: on
// AVX-512 for k <= ab2s32MaxK (the Go side: and nc <= 12) both B matrices
// stay in registers (one vector a row, the last lanes masked off), and
// each row of C is 2k FMAs whose A operand is the embedded broadcast of
// its element (one 4-byte load, sixteen lanes), rows in groups of eight
// (eight independent chains cover the FMA's latency on two pipes), then
// one at a time; for k, nc up to 32 on AVX-512, and on AVX2, B is packed
// by the caller on the stack and each of its rows loaded once a block of
// rows.

// ab2s32MaxK is the largest k (and d) of the register-resident form: 2k
// B vectors and eight accumulators in 32 registers.
const ab2s32MaxK = 12

// ab2s32Rows is the number of rows a group computes side by side.
const ab2s32Rows = 8

// genAB2S32 writes
//
//	func ab2s32KernelAVX512(c *float32, ldc int, a1 *float32, lda1 int, b1 *float32, ldb1 int, a2 *float32, lda2 int, b2 *float32, ldb2 int, k, rows, nc int)
//
// for 1 <= k <= ab2s32MaxK, 1 <= nc <= 16, rows >= 1.
func genAB2S32() {
	name := "ab2s32KernelAVX512"
	TEXT(name, NOSPLIT, "func(c *float32, ldc int, a1 *float32, lda1 int, b1 *float32, ldb1 int, a2 *float32, lda2 int, b2 *float32, ldb2 int, k, rows, nc int)")
	Pragma("noescape")
	Doc(name+" computes c[i*ldc+j] += Σ_{t<k} a1[i*lda1+t] * b1[t*ldb1+j] + Σ_{t<k} a2[i*lda2+t] * b2[t*ldb2+j]",
		"for i < rows, j < nc, the sum one float32 FMA chain over the 2k terms in this order from zero.",
		"Each group of rows is read whole before it is stored, so c may be a1 (ldc = lda1).",
		fmt.Sprintf("k must be in 1..%d, nc in 1..16, rows >= 1.", ab2s32MaxK))

	r := avx512.regs
	b1v := func(t int) VecPhysical { return r[t] }
	b2v := func(t int) VecPhysical { return r[ab2s32MaxK+t] }
	acc := func(i int) VecPhysical { return r[2*ab2s32MaxK+i] }

	// K1: the first nc lanes.
	Load(Param("nc"), RCX)
	MOVL(U32(1), EDX)
	SHLL(CL, EDX)
	DECL(EDX)
	KMOVW(EDX, K1)

	// Registers for the rows: DI c, R8 ldc bytes, AX 3 ldc bytes, R15 c
	// + 4 ldc; SI a1, R9 lda1 bytes, R11 3 lda1 bytes, R12 a1 + 4 lda1;
	// DX a2, R10 lda2 bytes, R14 3 lda2 bytes, R13 a2 + 4 lda2; CX rows
	// left; BX k, then the B pointers while they are loaded.
	Load(Param("k"), RBX)
	done := name + "_done"
	for k := 1; k <= ab2s32MaxK; k++ {
		CMPQ(RBX, U8(k))
		JE(LabelRef(fmt.Sprintf("%s_k%d", name, k)))
	}
	JMP(LabelRef(done))

	for k := 1; k <= ab2s32MaxK; k++ {
		pfx := fmt.Sprintf("%s_k%d", name, k)
		Label(pfx)
		// B1 and B2 into registers, masked to nc lanes (zeros beyond).
		for h, pb := range []string{"b1", "b2"} {
			Load(Param(pb), RBX)
			Load(Param("ld"+pb), R11)
			SHLQ(U8(2), R11)
			for t := 0; t < k; t++ {
				dst := b1v(t)
				if h == 1 {
					dst = b2v(t)
				}
				VMOVUPS_Z(Mem{Base: RBX}, K1, dst)
				if t < k-1 {
					ADDQ(R11, RBX)
				}
			}
		}
		Load(Param("c"), RDI)
		Load(Param("ldc"), R8)
		SHLQ(U8(2), R8)
		LEAQ(Mem{Base: R8, Index: R8, Scale: 2}, RAX)
		Load(Param("a1"), RSI)
		Load(Param("lda1"), R9)
		SHLQ(U8(2), R9)
		LEAQ(Mem{Base: R9, Index: R9, Scale: 2}, R11)
		Load(Param("a2"), RDX)
		Load(Param("lda2"), R10)
		SHLQ(U8(2), R10)
		LEAQ(Mem{Base: R10, Index: R10, Scale: 2}, R14)
		Load(Param("rows"), RCX)

		Label(pfx + "_group")
		CMPQ(RCX, U8(ab2s32Rows))
		JL(LabelRef(pfx + "_one"))
		LEAQ(Mem{Base: RSI, Index: R9, Scale: 4}, R12)
		LEAQ(Mem{Base: RDX, Index: R10, Scale: 4}, R13)
		LEAQ(Mem{Base: RDI, Index: R8, Scale: 4}, R15)
		for i := 0; i < ab2s32Rows; i++ {
			VXORPS(acc(i), acc(i), acc(i))
		}
		for t := 0; t < k; t++ {
			for i := 0; i < ab2s32Rows; i++ {
				VFMADD231PS_BCST(rowAddr(RSI, R12, R9, R11, i, 4*t), b1v(t), acc(i))
			}
		}
		for t := 0; t < k; t++ {
			for i := 0; i < ab2s32Rows; i++ {
				VFMADD231PS_BCST(rowAddr(RDX, R13, R10, R14, i, 4*t), b2v(t), acc(i))
			}
		}
		for i := 0; i < ab2s32Rows; i++ {
			VADDPS_Z(rowAddr(RDI, R15, R8, RAX, i, 0), acc(i), K1, acc(i))
			VMOVUPS(acc(i), K1, rowAddr(RDI, R15, R8, RAX, i, 0))
		}
		LEAQ(Mem{Base: RSI, Index: R9, Scale: 8}, RSI)
		LEAQ(Mem{Base: RDX, Index: R10, Scale: 8}, RDX)
		LEAQ(Mem{Base: RDI, Index: R8, Scale: 8}, RDI)
		SUBQ(U8(ab2s32Rows), RCX)
		JMP(LabelRef(pfx + "_group"))

		// The last rows % 8, one at a time (one chain of 2k FMAs each).
		Label(pfx + "_one")
		TESTQ(RCX, RCX)
		JE(LabelRef(done))
		a := acc(0)
		VXORPS(a, a, a)
		for t := 0; t < k; t++ {
			VFMADD231PS_BCST(Mem{Base: RSI, Disp: 4 * t}, b1v(t), a)
		}
		for t := 0; t < k; t++ {
			VFMADD231PS_BCST(Mem{Base: RDX, Disp: 4 * t}, b2v(t), a)
		}
		VADDPS_Z(Mem{Base: RDI}, a, K1, a)
		VMOVUPS(a, K1, Mem{Base: RDI})
		ADDQ(R9, RSI)
		ADDQ(R10, RDX)
		ADDQ(R8, RDI)
		DECQ(RCX)
		JMP(LabelRef(pfx + "_one"))
	}
	Label(done)
	VZEROUPPER()
	RET()
}

// genAB2S32AVX2 writes
//
//	func ab2s32KernelAVX2(c *float32, ldc int, a1 *float32, lda1 int, a2 *float32, lda2 int, bp *float32, bstep, k, rows, nc int)
//
// AB2S32 with B1 and B2 packed by the caller into bp: 2k rows of bstep
// bytes (8 float32 a vector of nc's, at most 32; B1's rows, then B2's);
// the lanes beyond nc only reach accumulator lanes that are never
// stored. Each row of B goes into
// one to four YMM registers for the FMAs of a block of rows (eight rows
// of one vector, six of two, three of three, two of four: the
// accumulators, the B vectors, a broadcast and the mask in 16 registers),
// each element of A broadcast once into a register; C's last vector of
// (nc-1)%8+1 lanes is read masked (VMASKMOVPS) and written by plain
// stores of 4, 2 and 1 lanes (the store form of VMASKMOVPS is microcoded
// on AMD's cores). 1 <= k <= 32, 1 <= nc <= 32.
func genAB2S32AVX2() {
	// mrOf[nv]: rows a block for nv vectors a row.
	mrOf := []int{0, 8, 6, 3, 2}
	name := "ab2s32KernelAVX2"
	TEXT(name, NOSPLIT, "func(c *float32, ldc int, a1 *float32, lda1 int, a2 *float32, lda2 int, bp *float32, bstep, k, rows, nc int)")
	Pragma("noescape")
	Doc(name+" computes c[i*ldc+j] += Σ_{t<k} a1[i*lda1+t] * bp[t*s+j] + Σ_{t<k} a2[i*lda2+t] * bp[(k+t)*s+j] (s = bstep/4)",
		"for i < rows, j < nc, the sum one float32 FMA chain over the 2k terms in this order from zero.",
		"Each block of rows is read whole before it is stored, so c may be a1 (ldc = lda1).",
		"k must be in 1..32, nc in 1..32, rows >= 1.")
	r := avx2.regs
	mask, bc := r[15], r[14]

	// Y15: the mask of the last vector's lanes, (nc-1)%8+1 of them.
	Load(Param("nc"), RCX)
	DECQ(RCX)
	MOVQ(RCX, RBX)
	SHRQ(U8(3), RBX) // nv-1
	ANDQ(U8(7), RCX)
	INCQ(RCX) // lanes of the last vector
	LEAQ(avx2Masks32.Offset(32), RDX)
	MOVQ(RCX, RAX)
	SHLQ(U8(2), RAX)
	SUBQ(RAX, RDX)
	VMOVUPS(Mem{Base: RDX}, mask)
	done := name + "_done"
	for nv := 1; nv <= 4; nv++ {
		for l := 1; l <= 8; l++ {
			CMPQ(RBX, U8(nv-1))
			JNE(LabelRef(fmt.Sprintf("%s_skip%d_%d", name, nv, l)))
			CMPQ(RCX, U8(l))
			JE(LabelRef(fmt.Sprintf("%s_v%d_l%d", name, nv, l)))
			Label(fmt.Sprintf("%s_skip%d_%d", name, nv, l))
		}
	}
	JMP(LabelRef(done))

	for nv := 1; nv <= 4; nv++ {
		for l := 1; l <= 8; l++ {
			pfx := fmt.Sprintf("%s_v%d_l%d", name, nv, l)
			Label(pfx)
			mr := mrOf[nv]
			packedRows(pfx, done, nv, mr, 32, r, func(v int) VecPhysical { return r[mr*nv+v] }, bc,
				func(cm Mem, a VecPhysical) {
					// C's last vector: l lanes.
					if l == 8 {
						VADDPS(cm, a, a)
						VMOVUPS(a, cm)
						return
					}
					VMASKMOVPS(cm, mask, bc)
					VADDPS(bc, a, a)
					switch {
					case l < 4:
						storeLanes32(a, cm, l)
					case l == 4:
						VMOVUPS(a.AsX(), cm)
					default:
						VMOVUPS(a.AsX(), cm)
						VEXTRACTF128(U8(1), a.AsY(), bc.AsX())
						storeLanes32(bc, cm.Offset(16), l-4)
					}
				})
		}
	}
	Label(done)
	VZEROUPPER()
	RET()
}

// rowAddr returns the address of row i (0..7) of a group of rows at
// disp bytes into the row: from base, or base4 (four rows on), with the
// stride ld and three strides ld3 as index registers.
func rowAddr(base, base4, ld, ld3 Register, i, disp int) Mem {
	b := base
	if i >= 4 {
		b = base4
	}
	switch i % 4 {
	case 1:
		return Mem{Base: b, Index: ld, Scale: 1, Disp: disp}
	case 2:
		return Mem{Base: b, Index: ld, Scale: 2, Disp: disp}
	case 3:
		return Mem{Base: b, Index: ld3, Scale: 1, Disp: disp}
	}
	return Mem{Base: b, Disp: disp}
}

// ab2s32PackedMaxK is the largest k and nc of the AVX-512 kernel on
// packed B: two vectors a row.
const ab2s32PackedMaxK = 32

// genAB2S32Packed512 writes
//
//	func ab2s32PackedKernelAVX512(c *float32, ldc int, a1 *float32, lda1 int, a2 *float32, lda2 int, bp *float32, bstep, k, rows, nc int)
//
// AB2S32 for k, nc up to 32 (where B no longer fits in registers) with
// B1 and B2 packed by the caller into bp: 2k rows of bstep bytes (16
// float32 a vector of nc's; B1's rows, then B2's). Blocks of eight rows of one or two
// vectors; each row of B loaded once a block, each element of A
// broadcast once into a register; the last vector's lanes masked by K1
// (loads, the addition of C and stores). 1 <= k <= 32, 1 <= nc <= 32.
func genAB2S32Packed512() {
	name := "ab2s32PackedKernelAVX512"
	TEXT(name, NOSPLIT, "func(c *float32, ldc int, a1 *float32, lda1 int, a2 *float32, lda2 int, bp *float32, bstep, k, rows, nc int)")
	Pragma("noescape")
	Doc(name+" computes c[i*ldc+j] += Σ_{t<k} a1[i*lda1+t] * bp[t*s+j] + Σ_{t<k} a2[i*lda2+t] * bp[(k+t)*s+j] (s = bstep/4)",
		"for i < rows, j < nc, the sum one float32 FMA chain over the 2k terms in this order from zero.",
		"Each block of rows is read whole before it is stored, so c may be a1 (ldc = lda1).",
		fmt.Sprintf("k must be in 1..%d, nc in 1..%d, rows >= 1.", ab2s32PackedMaxK, ab2s32PackedMaxK))
	r := avx512.regs
	const mr = ab2s32Rows
	bc := r[2*mr+2]

	// K1: the last vector's (nc-1)%16+1 lanes; BX: the vectors but one.
	masks32(avx512f32)
	done := name + "_done"
	for nv := 1; nv <= 2; nv++ {
		CMPQ(RBX, U8(nv-1))
		JE(LabelRef(fmt.Sprintf("%s_v%d", name, nv)))
	}
	JMP(LabelRef(done))

	for nv := 1; nv <= 2; nv++ {
		pfx := fmt.Sprintf("%s_v%d", name, nv)
		Label(pfx)
		packedRows(pfx, done, nv, mr, 64, r, func(v int) VecPhysical { return r[2*mr+v] }, bc,
			func(cm Mem, a VecPhysical) {
				// C's last vector: the lanes of K1.
				VADDPS_Z(cm, a, K1, a)
				VMOVUPS(a, K1, cm)
			})
	}
	Label(done)
	VZEROUPPER()
	RET()
}

// bstepAddr is the address of the packed kernels' argument bstep (bytes
// between rows of bp), an operand of the FMA loop's pointer step.
func bstepAddr() Mem {
	b, err := Param("bstep").Resolve()
	if err != nil {
		panic(err)
	}
	return b.Addr
}

// packedRows emits the row walk of a packed AB2S32 kernel's variant of nv
// vectors a row (vbytes each), from label pfx to done: blocks of mr rows,
// then one row at a time. Accumulators r[i*nv+v], B vectors bv(v), the
// broadcast bc; last stores C's last vector of a row (the others are
// added and stored whole). Registers: SI a1, R9 lda1 bytes, R13 3 lda1,
// R12 a1 + 4 lda1; DX a2, R10, R15, R14 likewise; DI c, R8 ldc bytes, BX
// 3 ldc, R11 c + 4 ldc (at the stores; before, the packed B row); AX the
// count of terms; CX rows left.
func packedRows(pfx, done string, nv, mr, vbytes int, r []VecPhysical, bv func(v int) VecPhysical, bc VecPhysical, last func(cm Mem, a VecPhysical)) {
	Load(Param("a1"), RSI)
	Load(Param("lda1"), R9)
	SHLQ(U8(2), R9)
	LEAQ(Mem{Base: R9, Index: R9, Scale: 2}, R13)
	Load(Param("a2"), RDX)
	Load(Param("lda2"), R10)
	SHLQ(U8(2), R10)
	LEAQ(Mem{Base: R10, Index: R10, Scale: 2}, R15)
	Load(Param("c"), RDI)
	Load(Param("ldc"), R8)
	SHLQ(U8(2), R8)
	LEAQ(Mem{Base: R8, Index: R8, Scale: 2}, RBX)
	Load(Param("rows"), RCX)
	acc := func(i, v int) VecPhysical { return r[i*nv+v] }
	block := func(m int, bp string) {
		if m > 4 {
			LEAQ(Mem{Base: RSI, Index: R9, Scale: 4}, R12)
			LEAQ(Mem{Base: RDX, Index: R10, Scale: 4}, R14)
		}
		for i := 0; i < m; i++ {
			for v := 0; v < nv; v++ {
				VXORPS(acc(i, v), acc(i, v), acc(i, v))
			}
		}
		Load(Param("bp"), R11)
		for ph, regs := range [][4]Register{{RSI, R12, R9, R13}, {RDX, R14, R10, R15}} {
			lp := fmt.Sprintf("%s_p%d", bp, ph)
			Load(Param("k"), RAX)
			Label(lp)
			for v := 0; v < nv; v++ {
				VMOVUPS(Mem{Base: R11, Disp: vbytes * v}, bv(v))
			}
			for i := 0; i < m; i++ {
				VBROADCASTSS(rowAddr(regs[0], regs[1], regs[2], regs[3], i, 0), bc)
				for v := 0; v < nv; v++ {
					VFMADD231PS(bv(v), bc, acc(i, v))
				}
			}
			ADDQ(bstepAddr(), R11)
			ADDQ(U8(4), regs[0])
			if m > 4 {
				ADDQ(U8(4), regs[1])
			}
			DECQ(RAX)
			JNZ(LabelRef(lp))
			// Back to the block's first column.
			Load(Param("k"), RAX)
			SHLQ(U8(2), RAX)
			SUBQ(RAX, regs[0])
		}
		if m > 4 {
			LEAQ(Mem{Base: RDI, Index: R8, Scale: 4}, R11)
		}
		for i := 0; i < m; i++ {
			for v := 0; v < nv; v++ {
				cm := rowAddr(RDI, R11, R8, RBX, i, vbytes*v)
				a := acc(i, v)
				if v < nv-1 {
					VADDPS(cm, a, a)
					VMOVUPS(a, cm)
					continue
				}
				last(cm, a)
			}
		}
		// Next block of rows.
		IMUL3Q(U32(m), R9, R11)
		ADDQ(R11, RSI)
		IMUL3Q(U32(m), R10, R11)
		ADDQ(R11, RDX)
		IMUL3Q(U32(m), R8, R11)
		ADDQ(R11, RDI)
	}
	Label(pfx + "_blk")
	CMPQ(RCX, U8(mr))
	JL(LabelRef(pfx + "_one"))
	block(mr, pfx+"_b")
	SUBQ(U8(mr), RCX)
	JMP(LabelRef(pfx + "_blk"))
	Label(pfx + "_one")
	TESTQ(RCX, RCX)
	JE(LabelRef(done))
	block(1, pfx+"_s")
	DECQ(RCX)
	JMP(LabelRef(pfx + "_one"))
}
