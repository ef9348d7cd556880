package svd

// Factorize32Native reports whether Small.Factorize32 and
// Pair.Factorize32 of n x n matrices compute in float32 lanes on this CPU
// and build (the AVX-512 and the AVX2 paths, 3 <= n <= 32); elsewhere (the
// generic path, other n) they are Factorize.
func Factorize32Native(n int) bool { return factorize32Native(n) }

// Factorize32 is Factorize computed in float32 lanes where
// Factorize32Native(n): the matrix, scaled by a power of two, is rounded
// to float32 and the one-sided Jacobi iteration (the same rounds, pairs
// and rotations as Factorize's AVX-512 kernel; on the AVX2 path the same
// rounds and pairs in 8-lane vectors, with other bits) runs on float32
// columns to float32's tolerance, max(n, 8)·2⁻²³ on the cosine of each
// pair's angle; the columns are then widened and finished in float64 as
// Factorize's. The result is what a float32 model needs (its projections
// are float32 products, about 1e-7 of their scale from the float64 ones):
// singular values within about n·2⁻²⁴ ‖A‖₂ of Factorize's, U and V
// orthogonal to about n·2⁻²⁴ (V a product of float32 rotations, U's
// columns the normalised float32 columns, orthogonal to the tolerance).
// Columns of U whose singular value is below about 2⁻²⁴ ‖A‖_F (the float32
// rounding of the matrix) are completed to an orthonormal basis, as
// Factorize completes those below 2⁻⁶⁰ ‖A‖_F.
//
// Where the float32 iteration does not converge (never seen) it returns
// Factorize's result; elsewhere (the generic path, n < 3 or n > 32) it
// is Factorize, with Factorize's bits. The AVX-512 and the AVX2 paths give
// different bits, the same accuracy. Same contract and errors as
// Factorize; allocation-free.
func (w *Small) Factorize32(u []float64, ldu int, s []float64, v []float64, ldv int, a []float64, lda int) error {
	n := w.n
	checkFactors(n, u, ldu, s, v, ldv, a, lda)
	if useAVX512 && w.f32 != nil && w.factorize32Asm(u, ldu, s, v, ldv, a, lda) {
		return nil
	}
	if !useAVX512 && useAVX2 && w.f32x2 != nil && w.factorize32AVX2(u, ldu, s, v, ldv, a, lda) {
		return nil
	}
	return w.Factorize(u, ldu, s, v, ldv, a, lda)
}

// Factorize32 is Factorize with Small.Factorize32 for each matrix, to the
// bit: on AVX-512 and on AVX2 both in one run of a float32 kernel (up to
// 16 x 16 on AVX-512 and 8 x 8 on AVX2 both in one vector). Errors as
// Factorize's.
func (p *Pair) Factorize32(u [2][]float64, ldu int, s, v [2][]float64, ldv int, a [2][]float64, lda int) error {
	n := p.n
	for i := range a {
		checkFactors(n, u[i], ldu, s[i], v[i], ldv, a[i], lda)
	}
	if useAVX512 && p.pack32 != nil && p.factorize32Pack(u, ldu, s, v, ldv, a, lda) {
		return nil
	}
	if useAVX512 && p.dual32 != nil && p.factorize32Dual(u, ldu, s, v, ldv, a, lda) {
		return nil
	}
	if !useAVX512 && useAVX2 && p.f32x2 != nil && p.factorize32AVX2(u, ldu, s, v, ldv, a, lda) {
		return nil
	}
	if !factorize32Native(n) {
		return p.Factorize(u, ldu, s, v, ldv, a, lda)
	}
	for i, w := range p.w {
		if err := w.Factorize32(u[i], ldu, s[i], v[i], ldv, a[i], lda); err != nil {
			return &BatchError{Index: i, Err: err}
		}
	}
	return nil
}
