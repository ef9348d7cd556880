//go:build !amd64 || purego

package svd

// useAVX512 selects the AVX-512 kernels; never on this build.
const useAVX512 = false

// useSplit: see dispatch_amd64.go.
const useSplit = false

// useAVX512Possible reports whether useAVX512 can ever be true (workspace
// for the asm path is allocated only then).
const useAVX512Possible = false

// useAVX2 selects the AVX2 batch kernel; never on this build.
const useAVX2 = false

type batchAVX2 struct{}

func newBatchAVX2(n int, pairs []int32) *batchAVX2 { return nil }

func newSmallAVX2(n int, pairs []int32) *batchAVX2 { return nil }

func (w *Small) jacobiAVX2(withV bool, negl float64) bool {
	panic("svd: no AVX2 path in this build")
}

func (w *Batch) valuesAVX2(s []float64, lds int, a []float64, lda, step, k int) error {
	panic("svd: no AVX2 path in this build")
}

func (w *Batch) valuesAVX512(s []float64, lds int, a []float64, lda, step, k int) error {
	panic("svd: no AVX-512 path in this build")
}

type batchAsm struct{}

func (w *Batch) initAsm() {}

type smallAsm struct{}

func (w *Small) initAsm() {}

func (w *Small) jacobiAsm(withV bool, negl float64) bool {
	panic("svd: no AVX-512 path in this build")
}

func transposeAVX512(dst *float64, ldd int, src *float64, lds int, rows, cols int) float64 {
	panic("svd: no AVX-512 path in this build")
}

func (w *Small) valuesAsm(s []float64, a []float64, lda int) error {
	panic("svd: no AVX-512 path in this build")
}

func (w *Small) factorizeAsm(u []float64, ldu int, s []float64, v []float64, ldv int, a []float64, lda int) error {
	panic("svd: no AVX-512 path in this build")
}

func dots4AVX512(out *[4]float64, y *float64, ldy int, x *float64, n int) {
	panic("svd: no AVX-512 path in this build")
}

func axpy4AVX512(x *float64, y *float64, ldy int, f *[4]float64, n int) {
	panic("svd: no AVX-512 path in this build")
}

func (p *Pair) factorizeAVX2(u [2][]float64, ldu int, s, v, bv [2][]float64, ldv int, a [2][]float64, lda int) error {
	panic("svd: no AVX2 path in this build")
}

func (w *Small) laneValues(bv []float64, l, e int, negl, neglB float64) bool {
	panic("svd: no AVX2 path in this build")
}

// useGramAVX2 selects the AVX2 kernels of Gram.Enclose; never on this build.
const useGramAVX2 = false

type gramAVX2 struct{}

func newGramAVX2(n int) *gramAVX2 { return nil }

func (x *gramAVX2) shareDead(g *gramAVX2) {}

func ql8AVX2(dA, eA, dB, eB *float64, n int, params *[8]float64, scratch *float64) uint64 {
	panic("svd: no AVX2 path in this build")
}

func (w *Gram) encloseAVX2(lo, hi []float64, ld int, m matrices, lda, k int) error {
	panic("svd: no AVX2 path in this build")
}

func (p *Pair) factorizeValuesAVX512(u [2][]float64, ldu int, s, v, bv [2][]float64, ldv int, a [2][]float64, lda int) error {
	panic("svd: no AVX-512 path in this build")
}

type ql16Space struct{}

func newQL16(n int) *ql16Space { return nil }

type dualAsm struct{}

func newDualAsm(n int) *dualAsm { return nil }

func (p *Pair) factorizeDual(u [2][]float64, ldu int, s, v [2][]float64, ldv int, a [2][]float64, lda int) bool {
	return false
}

type small32Asm struct{}

func newSmall32Asm(n int) *small32Asm { return nil }

func factorize32Native(n int) bool { return false }

func (w *Small) factorize32Asm(u []float64, ldu int, s []float64, v []float64, ldv int, a []float64, lda int) bool {
	return false
}

type dual32Asm struct{}

func newDual32Asm(n int) *dual32Asm { return nil }

func (p *Pair) factorize32Dual(u [2][]float64, ldu int, s, v [2][]float64, ldv int, a [2][]float64, lda int) bool {
	return false
}

type pack32Asm struct{}

func newPack32Asm(n int) *pack32Asm { return nil }

func (p *Pair) factorize32Pack(u [2][]float64, ldu int, s, v [2][]float64, ldv int, a [2][]float64, lda int) bool {
	return false
}

type small32AVX2 struct{}

func newSmall32AVX2(n, mats int) *small32AVX2 { return nil }

func (w *Small) factorize32AVX2(u []float64, ldu int, s []float64, v []float64, ldv int, a []float64, lda int) bool {
	return false
}

func (p *Pair) factorize32AVX2(u [2][]float64, ldu int, s, v [2][]float64, ldv int, a [2][]float64, lda int) bool {
	return false
}
