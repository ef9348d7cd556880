// Command kernels generates the AVX-512 and AVX2+FMA assembly of package
// github.com/grlgq/grlgq/kernels (kernels_amd64.s and its stubs).
//
//	cd asm && go run ./kernels -out ../kernels/kernels_amd64.s -stubs ../kernels/stubs_amd64.go -pkg kernels
//
// Register conventions used throughout: the generated functions are ABI0,
// NOSPLIT with a $0 frame, and touch neither BP (frame pointer), R14 (g in
// ABIInternal) nor R15 (clobbered by global accesses when dynamic linking).
package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// isa describes one vector instruction set the kernels are generated for.
type isa struct {
	name  string // suffix of the function names: AVX512 or AVX2
	lanes int    // float64 lanes per vector register
	bytes int    // bytes per vector register
	regs  []VecPhysical
	// maxNB is the widest column block (in vectors) of the block kernels;
	// mr[nb] is the tallest row block for nb vectors of columns: the
	// accumulators mr*nb plus the other registers a kernel needs must fit.
	maxNB int
	mr    []int
	// bcast: the AVX-512 block kernels of two to four column vectors
	// broadcast each element of A into a register once for its FMAs
	// instead of taking it as each FMA's embedded-broadcast operand
	// (function names end in B; see reduce).
	bcast bool
}

var avx512 = isa{
	name: "AVX512", lanes: 8, bytes: 64,
	regs: []VecPhysical{
		Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15,
		Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23, Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31,
	},
	maxNB: 4,
	// Accumulators + nb B vectors <= 32; 15 rows is the most the AB row
	// addressing (three base registers of five rows each) reaches.
	mr: []int{0, 15, 14, 9, 7},
}

var avx2 = isa{
	name: "AVX2", lanes: 4, bytes: 32,
	regs: []VecPhysical{
		Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15,
	},
	maxNB: 3,
	// Accumulators + mask + masked B vector + two broadcast temporaries <= 16.
	mr: []int{0, 12, 6, 4},
}

func (s isa) is512() bool { return s.lanes == 8 }

// avx2Masks holds four all-ones quadwords followed by four zeros: the 32
// bytes at offset 8*(4-t) are a VMASKMOVPD mask selecting the first t lanes.
var avx2Masks Mem

func main() {
	ConstraintExpr("amd64,!purego")

	avx2Masks = GLOBL("avx2masks", RODATA|NOPTR)
	for i := 0; i < 8; i++ {
		v := U64(0)
		if i < 4 {
			v = U64(^uint64(0))
		}
		DATA(8*i, v)
	}

	for _, s := range []isa{avx512, avx2} {
		genDot(s)
		genAxpy(s)
		genScale(s)
	}
	avx512b := avx512
	avx512b.bcast = true
	genBlock(avx512, kindAtB)
	genBlock(avx512b, kindAtB)
	genBlock(avx512, kindAB)
	genBlock(avx512b, kindAB)
	genAtX(avx512)
	genAtBAVX2()
	genAtBEdgeAVX2()
	genBlock(avx2, kindAB)
	genBlock(avx512, kindAB2)
	genBlock(avx512b, kindAB2)
	genBlock(avx2, kindAB2)
	genBlock(avx512, kindAB2F32)
	genBlock(avx2, kindAB2F32)
	genBlock(avx512, kindAB2F32F32)
	genBlock(avx2, kindAB2F32F32)
	genAtX(avx2)
	for _, s := range []isa{avx512, avx2} {
		genSparseAB(s)
	}
	genSparseABBlocks()
	genNonzeros()
	genNonzerosAVX2()
	for _, s := range []isa{avx512, avx2} {
		genProjDots(s)
	}
	genPanelPass()
	genTranspose()
	genTranspose4()
	genProjTranspose()
	genTransposeDots()
	genF32()
	genAB2S32()
	genAB2S32AVX2()
	genAB2S32Packed512()
	genRound32()
	genWiden32()
	genPeak(avx512, 16)
	genPeak(avx2, 12)
	genAcosTab()
	for _, s := range []isa{avx512, avx2} {
		genAcos(s)
	}

	Generate()
}

// ---------------------------------------------------------------------------
// Helpers.

// label returns a function-local label name.
func label(format string, args ...any) string { return fmt.Sprintf(format, args...) }

// kmaskFromCount sets K1 to the low t bits, t in CX (0 < t <= 8); clobbers DX.
func kmaskFromCount() {
	MOVL(U32(1), EDX)
	SHLL(CL, EDX)
	DECL(EDX)
	KMOVW(EDX, K1)
}

// hsum512 reduces z (using tmp) so that the low lane of x holds the sum of
// all lanes of z; x and tmp must be registers below 16 (VEX-encodable).
func hsum512(z, tmpz VecPhysical) {
	y, ty := z.AsY(), tmpz.AsY()
	x, tx := z.AsX(), tmpz.AsX()
	VEXTRACTF64X4(U8(1), z, ty)
	VADDPD(ty, y, y)
	VEXTRACTF128(U8(1), y, tx)
	VADDPD(tx, x, x)
	VPERMILPD(U8(1), x, tx)
	VADDSD(tx, x, x)
}

// hsum256 is hsum512 for a YMM register.
func hsum256(y, tmpy VecPhysical) {
	x, tx := y.AsX(), tmpy.AsX()
	VEXTRACTF128(U8(1), y, tx)
	VADDPD(tx, x, x)
	VPERMILPD(U8(1), x, tx)
	VADDSD(tx, x, x)
}
