package svd

import (
	"math"
	"sync/atomic"
)

// batchFallbacks counts the calls of batchValues (for the tests: how often
// the AVX2 run was not certified, or the path has no shared kernel).
var batchFallbacks atomic.Int64

// FactorizeValues is Factorize that also writes into bv[:n] the singular
// values that Batch.Values computes for a, with Batch.Values' bits (bv may
// differ from s in the last bits: on some implementations the two sum the
// final squares in another order, or run another kernel). A training step
// needs both: the winners' distances with the bits of the engine's batch
// values, and the winners' vectors. bv must not alias the other arguments.
// Allocation-free after the first call (which may allocate a Batch
// workspace).
//
// Where they come from, per implementation:
//
//   - pure Go: Batch.Values runs Small.Values, which runs the iteration
//     of Factorize without V and the same column norms, sort and scaling:
//     bv is s.
//   - AVX2: Factorize runs the split form of the 4-lane batch kernel with
//     the matrix in lanes 0 and 1 (even rows, odd rows: the bits of lane
//     0 of the batch kernel) and V under its columns, left out of the dot
//     products and norms; Batch.Values runs the batch kernel on the same
//     scaled columns
//     (loadTransposed and the batch load scale by the same power of two)
//     and takes its values from the kernel's final squared norms, which
//     this run leaves too. The runs differ only in their negligible
//     threshold (2^-120 ‖A‖_F², the squares summed in two orders), which
//     enters only through the tests min(‖x‖², ‖y‖²) > threshold. Both
//     thresholds are about 2^-120 ‖A‖_F²; every column norm during the
//     iteration is at least σ_min² less the rounding of the rotations
//     (below 2 u per rotation, at most MaxSweeps·n rotations per column:
//     1.4e-12 ‖A‖_F² for n <= 64), and σ_min² is at least the smallest
//     final squared norm less the same. So when the smallest final squared
//     norm is at least 2^-30 ‖A‖_F² (or the thresholds are equal) every
//     test has the same outcome with either threshold, the iterations are
//     the same, and bv comes from this run's norms. Otherwise (a matrix of
//     numerical rank below n) Batch.Values runs on a.
//   - AVX-512: the single-matrix kernel of Factorize is not the batch
//     kernel: Batch.Values runs on a (for one matrix up to 32 x 32 on the
//     lane kernel with the batch kernel's bits; Pair.FactorizeValues values
//     both matrices together, see valuesSplit).
func (w *Small) FactorizeValues(u []float64, ldu int, s []float64, v []float64, ldv int, bv []float64, a []float64, lda int) error {
	n := w.n
	checkSquare(n, a, lda)
	checkSquare(n, u, ldu)
	checkSquare(n, v, ldv)
	if len(s) < n || len(bv) < n {
		panic(PanicShape)
	}
	if !useAVX512 && useAVX2 && w.avx2 != nil {
		return w.factorizeValuesAVX2(u, ldu, s, v, ldv, bv, a, lda)
	}
	if err := w.Factorize(u, ldu, s, v, ldv, a, lda); err != nil {
		return err
	}
	if !useAVX512 && !useAVX2 {
		copy(bv[:n], s[:n])
		return nil
	}
	return w.batchValues(bv, a, lda)
}

// batchValues writes Batch.Values of a into bv with a workspace made at
// the first call.
func (w *Small) batchValues(bv []float64, a []float64, lda int) error {
	batchFallbacks.Add(1)
	if w.batch == nil {
		w.batch = NewBatch(w.n)
	}
	if err := w.batch.Values(bv, w.n, a, lda, 0, 1); err != nil {
		return err.(*BatchError).Err
	}
	return nil
}

// factorizeValuesAVX2 is FactorizeValues on the AVX2 kernel: Factorize,
// with the batch values taken from the kernel's norms when the run is
// certified to be Batch.Values' run (see FactorizeValues).
func (w *Small) factorizeValuesAVX2(u []float64, ldu int, s []float64, v []float64, ldv int, bv []float64, a []float64, lda int) error {
	n := w.n
	e, ok := loadTransposed(w.g, n, a, lda, n, n)
	if !ok {
		return errNotFinite
	}
	negl := negligible(w.g, n, n, n)
	neglB := batchNegligible(w.g, n)
	if !w.run(true, negl) {
		return ErrNoConvergence
	}
	same := w.laneValues(bv, 0, e, negl, neglB)
	w.finish(u, ldu, s, v, ldv, e, finishNegl(negl))
	if !same {
		return w.batchValues(bv, a, lda)
	}
	return nil
}

// batchNegligible is the negligible threshold the AVX2 batch load computes
// for a matrix whose scaled columns are the n rows of g (stride n): the
// squares summed column by column, row by row, in one chain.
func batchNegligible(g []float64, n int) float64 {
	var fro float64
	for _, x := range g[:n*n] {
		fro += float64(x * x)
	}
	return float64(fro * 0x1p-120)
}

// sameIteration reports whether a Jacobi run with either negligible
// threshold does the same rotations, given the squared column norms it
// ended with (see FactorizeValues): the thresholds are equal, or the
// smallest final squared norm is at least 2^-30 ‖A‖_F² (2^120 times the
// larger threshold is ‖A‖_F² up to the rounding of the sum).
func sameIteration(norms []float64, stride int, n int, negl, neglB float64) bool {
	if negl == neglB {
		return true
	}
	fro := max(negl, neglB) * 0x1p120
	least := math.Inf(1)
	for c := 0; c < n; c++ {
		least = min(least, norms[c*stride])
	}
	return least >= fro*0x1p-30
}
