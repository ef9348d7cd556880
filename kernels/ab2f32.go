package kernels

// AB2F32 is AB2 on a float32 A1 with a float32 result: for r < n, j < d,
//
//	c[r*ldc+j] = float32(Σ_{l<k} float64(a1[r*lda1+l]) * b1[l*ldb1+j] + Σ_{l<k} a2[r*lda2+l] * b2[l*ldb2+j])
//
// with the bits of Widen32Rows of A1, AB2 on the widened copy and
// Round32Rows of the result, on each implementation: the exact update of
// a float32 prototype (the engine's float32 mode) without the float64
// copies in memory. C may be A1 itself (c and a1 start at the same
// element, ldc == lda1); otherwise C must not overlap any input. k and d
// must be at most MaxAB2F32. For d up to 32 on the AVX-512 path and up
// to 12 on the AVX2 path one kernel widens A1's elements as it loads them
// and rounds each output as it stores it; otherwise blocks of rows are
// widened, multiplied and rounded through the stack (in L1, with the
// kernels of the path in use).
// Allocation-free.
func AB2F32(c []float32, ldc int, a1 []float32, lda1 int, b1 []float64, ldb1 int, a2 []float64, lda2 int, b2 []float64, ldb2 int, n, k, d int) {
	if n <= 0 || d <= 0 {
		return
	}
	if k > MaxAB2F32 || d > MaxAB2F32 {
		panic("kernels: AB2F32: k or d > MaxAB2F32")
	}
	if k > 0 && &c[0] == &a1[0] && ldc != lda1 {
		panic("kernels: AB2F32: in place with ldc != lda1")
	}
	ab2F32(c, ldc, a1, lda1, b1, ldb1, a2, lda2, b2, ldb2, n, k, d)
}

// MaxAB2F32 is the largest k and d of AB2F32: the rows of its stack
// copies (4 KiB of float64 each).
const MaxAB2F32 = ab2Scratch / 2

// ab2F32Blocks is AB2F32 by blocks of rows: each block of A1 widened into
// a stack copy, AB2 into another, rounded into C (in place allowed: a
// block is read whole before it is written).
func ab2F32Blocks(c []float32, ldc int, a1 []float32, lda1 int, b1 []float64, ldb1 int, a2 []float64, lda2 int, b2 []float64, ldb2 int, n, k, d int) {
	var wa, wc [MaxAB2F32]float64
	h := max(len(wa)/max(k, d, 1), 1)
	for r := 0; r < n; r += h {
		m := min(h, n-r)
		if k > 0 {
			widen32(wa[:], max(k, 1), a1[r*lda1:], lda1, m, k)
		}
		ab2(wc[:], d, wa[:], max(k, 1), b1, ldb1, a2[r*lda2:], lda2, b2, ldb2, m, k, d)
		round32(c[r*ldc:], ldc, wc[:], d, m, d)
	}
}

// AB2F32F32 is AB2F32 with A2 float32 too: for r < n, j < d,
//
//	c[r*ldc+j] = float32(Σ_{l<k} float64(a1[r*lda1+l]) * b1[l*ldb1+j] + Σ_{l<k} float64(a2[r*lda2+l]) * b2[l*ldb2+j])
//
// with the bits of Widen32Rows of A1 and of A2, AB2 on the widened copies
// and Round32Rows of the result: the exact update of a float32 prototype
// from a sample's float32 rounding (half the sample's bytes, and those in
// cache after its float32 projections). In place, limits and kernels as
// for AB2F32 (A2's elements widened as they are loaded too).
// Allocation-free.
func AB2F32F32(c []float32, ldc int, a1 []float32, lda1 int, b1 []float64, ldb1 int, a2 []float32, lda2 int, b2 []float64, ldb2 int, n, k, d int) {
	if n <= 0 || d <= 0 {
		return
	}
	if k > MaxAB2F32 || d > MaxAB2F32 {
		panic("kernels: AB2F32F32: k or d > MaxAB2F32")
	}
	if k > 0 && &c[0] == &a1[0] && ldc != lda1 {
		panic("kernels: AB2F32F32: in place with ldc != lda1")
	}
	ab2F32F32(c, ldc, a1, lda1, b1, ldb1, a2, lda2, b2, ldb2, n, k, d)
}

// ab2F32F32Blocks is ab2F32Blocks with A2 widened into a stack copy too.
func ab2F32F32Blocks(c []float32, ldc int, a1 []float32, lda1 int, b1 []float64, ldb1 int, a2 []float32, lda2 int, b2 []float64, ldb2 int, n, k, d int) {
	var wa, wb, wc [MaxAB2F32]float64
	h := max(len(wa)/max(k, d, 1), 1)
	for r := 0; r < n; r += h {
		m := min(h, n-r)
		if k > 0 {
			widen32(wa[:], max(k, 1), a1[r*lda1:], lda1, m, k)
			widen32(wb[:], max(k, 1), a2[r*lda2:], lda2, m, k)
		}
		ab2(wc[:], d, wa[:], max(k, 1), b1, ldb1, wb[:], max(k, 1), b2, ldb2, m, k, d)
		round32(c[r*ldc:], ldc, wc[:], d, m, d)
	}
}
