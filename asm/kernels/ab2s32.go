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
// rounds its small increment, not W, at each term. For k <= ab2s32MaxK and nc <= 16 both B matrices stay in registers
// (one vector a row, the last lanes masked off), and each row of C is 2k
// FMAs whose A operand is the embedded broadcast of its element: per FMA
// one 4-byte load, sixteen lanes. Rows go in groups of eight (eight
// independent chains cover the FMA's latency on two pipes), then one at a
// time.

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

		// row returns the address of row i (0..7) of a group from its
		// base, the base four rows on, the stride and three strides.
		row := func(base, base4, ld, ld3 Register, i, disp int) Mem {
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
				VFMADD231PS_BCST(row(RSI, R12, R9, R11, i, 4*t), b1v(t), acc(i))
			}
		}
		for t := 0; t < k; t++ {
			for i := 0; i < ab2s32Rows; i++ {
				VFMADD231PS_BCST(row(RDX, R13, R10, R14, i, 4*t), b2v(t), acc(i))
			}
		}
		for i := 0; i < ab2s32Rows; i++ {
			VADDPS_Z(row(RDI, R15, R8, RAX, i, 0), acc(i), K1, acc(i))
			VMOVUPS(acc(i), K1, row(RDI, R15, R8, RAX, i, 0))
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
