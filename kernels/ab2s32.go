package kernels

import "math"

// AB2S32 is the exact update of a float32 prototype in float32 lanes: for
// r < n, j < d,
//
//	c[r*ldc+j] += Σ_{l<k} a1[r*lda1+l] * b1[l*ldb1+j] + Σ_{l<k} a2[r*lda2+l] * b2[l*ldb2+j]
//
// the sum one chain of float32 FMAs (each rounded once, to nearest even)
// over the 2k terms in this order, starting from zero, then added to c's
// value in float32: the same bits on every implementation. For the
// update W += W K + P B (K = C1 − I: AB2's I + K without its identity)
// the chain's roundings are relative to the small increment, and W is
// rounded once, as AB2F32F32 rounds its float64 sum once: adding the
// identity's terms into the chain instead drifted a d = 12 prototype's
// orthonormality four times as fast. C may be A1 itself (c
// and a1 start at the same element, ldc == lda1); otherwise C must not
// overlap any input; k and d at most MaxAB2S32 (k = 0 leaves C as it
// is). AB2S32Native reports whether the path in use runs it in one kernel
// (on AVX-512 and AVX2 for k, d <= 32: on AVX-512 up to 12 both B
// matrices in registers, beyond and on AVX2 packed into a stack copy of
// 32 float32 a row);
// elsewhere it is a slow reference in Go that emulates the float32 FMA
// exactly. Allocation-free.
func AB2S32(c []float32, ldc int, a1 []float32, lda1 int, b1 []float32, ldb1 int, a2 []float32, lda2 int, b2 []float32, ldb2 int, n, k, d int) {
	if n <= 0 || d <= 0 {
		return
	}
	if k > MaxAB2S32 || d > MaxAB2S32 {
		panic("kernels: AB2S32: k or d > MaxAB2S32")
	}
	if k > 0 && &c[0] == &a1[0] && ldc != lda1 {
		panic("kernels: AB2S32: in place with ldc != lda1")
	}
	if k <= 0 {
		return // nothing to add
	}
	_ = c[(n-1)*ldc+d-1]
	_ = a1[(n-1)*lda1+k-1]
	_ = b1[(k-1)*ldb1+d-1]
	_ = a2[(n-1)*lda2+k-1]
	_ = b2[(k-1)*ldb2+d-1]
	if ab2s32Native(k, d) {
		ab2s32Kernel(c, ldc, a1, lda1, b1, ldb1, a2, lda2, b2, ldb2, n, k, d)
		return
	}
	ab2s32Generic(c, ldc, a1, lda1, b1, ldb1, a2, lda2, b2, ldb2, n, k, d)
}

// MaxAB2S32 is the largest k and d of AB2S32.
const MaxAB2S32 = 64

// AB2S32Native reports whether AB2S32 runs in one kernel for k and d on
// the path in use (otherwise it is a slow reference).
func AB2S32Native(k, d int) bool { return ab2s32Native(k, d) }

// ab2s32Generic is AB2S32 in Go: each row's outputs computed into a
// stack copy before they are stored (in place allowed: a row of C is
// read, element j before it is written, only as the term it gains).
func ab2s32Generic(c []float32, ldc int, a1 []float32, lda1 int, b1 []float32, ldb1 int, a2 []float32, lda2 int, b2 []float32, ldb2 int, n, k, d int) {
	var row [MaxAB2S32]float32
	for r := 0; r < n; r++ {
		x1, x2 := a1[r*lda1:r*lda1+k], a2[r*lda2:r*lda2+k]
		for j := 0; j < d; j++ {
			var s float32
			for l, a := range x1 {
				s = fma32(a, b1[l*ldb1+j], s)
			}
			for l, a := range x2 {
				s = fma32(a, b2[l*ldb2+j], s)
			}
			row[j] = c[r*ldc+j] + s
		}
		copy(c[r*ldc:r*ldc+d], row[:d])
	}
}

// fma32 returns a*b + c rounded once to float32 (nearest even), as the
// FMA instructions compute it: a*b is exact in float64, the sum rounded
// to odd in float64 (53 bits, at least 24 + 2: rounding that to float32
// rounds the exact sum correctly).
func fma32(a, b, c float32) float32 {
	p := float64(a) * float64(b) // exact: 48 significant bits at most
	x := float64(c)
	s := p + x
	if math.IsInf(s, 0) || math.IsNaN(s) {
		return float32(s)
	}
	// The sum's rounding error, exactly (TwoSum).
	bv := s - p
	e := (p - (s - bv)) + (x - bv)
	if e != 0 && math.Float64bits(s)&1 == 0 {
		// Inexact with an even last bit: round to odd, the neighbour
		// of s on the side of the exact sum.
		if e > 0 {
			s = math.Nextafter(s, math.Inf(1))
		} else {
			s = math.Nextafter(s, math.Inf(-1))
		}
	}
	return float32(s)
}
