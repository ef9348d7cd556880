package svd

import "strconv"

// BatchError is the error returned by Batch.Values: Err (ErrNotFinite or
// ErrNoConvergence, testable with errors.Is) for the matrix at Index.
type BatchError struct {
	Index int
	Err   error
}

func (e *BatchError) Error() string {
	return "svd: batch matrix " + strconv.Itoa(e.Index) + ": " + e.Err.Error()
}

func (e *BatchError) Unwrap() error { return e.Err }

// Batch is the workspace for the singular values of many n x n matrices at
// once (one sample against many prototypes). It is not safe for concurrent
// use.
type Batch struct {
	n     int
	small *Small
	lanes []float64  // 8-lane interleaved group: n x n vectors of 8 float64 (asm path)
	sv    []float64  // n x 8 lane-interleaved column norms (asm path)
	asm   *batchAsm  // nil unless useAVX512Possible
	avx2  *batchAVX2 // nil unless useAVX512Possible (amd64 without purego)
	avx2b *batchAVX2 // the second group of jacobi4x2AVX2 (5 to 8 matrices at once)
}

// NewBatch returns the workspace for n x n matrices, 1 <= n <= MaxSmall.
func NewBatch(n int) *Batch {
	if n < 1 || n > MaxSmall {
		panic(PanicShape)
	}
	w := &Batch{n: n, small: NewSmall(n)}
	if useAVX512Possible {
		w.lanes = make([]float64, n*n*8+8) // +8: room to align to 64 bytes
		w.sv = make([]float64, n*8+8)
		w.initAsm()
		w.avx2 = newBatchAVX2(n, w.small.pairs)
		w.avx2b = newBatchAVX2(n, w.small.pairs)
	}
	return w
}

// N returns the order of the matrices this workspace handles.
func (w *Batch) N() int { return w.n }

// Values writes the singular values of k n x n matrices, matrix i starting
// at a[i*step] with row stride lda, into s[i*lds : i*lds+n], each in
// descending order. a is not modified; s must not alias a. Allocation-free
// (except for the error value on failure).
//
// On failure it returns a *BatchError naming the index of the offending
// matrix and wrapping ErrNotFinite or ErrNoConvergence; the values of the
// other matrices are then unspecified.
func (w *Batch) Values(s []float64, lds int, a []float64, lda, step, k int) error {
	n := w.n
	if k < 0 || step < 0 || lda < n || (k > 1 && lds < n) {
		panic(PanicShape)
	}
	if k == 0 {
		return nil
	}
	if len(a) < (k-1)*step+(n-1)*lda+n || len(s) < (k-1)*lds+n {
		panic(PanicShape)
	}
	if useAVX512 {
		return w.valuesAVX512(s, lds, a, lda, step, k)
	}
	if useAVX2 {
		return w.valuesAVX2(s, lds, a, lda, step, k)
	}
	for i := 0; i < k; i++ {
		if err := w.small.Values(s[i*lds:i*lds+n], a[i*step:], lda); err != nil {
			return &BatchError{Index: i, Err: err}
		}
	}
	return nil
}
