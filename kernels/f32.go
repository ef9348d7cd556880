package kernels

// Chunk32 is the number of reduction rows the float32 kernels (AtB32,
// AtX32) sum in float32 lanes before adding the block's sum, converted to
// float64, to a float64 total. The rounding error of an output is then
// bounded by about (Chunk32 + n/Chunk32·2^-29)·2^-24·Σ|products| rather
// than n·2^-24·Σ|products| for one float32 chain over all n rows: for unit
// columns (the engine's bases, Σ|a_r b_r| <= 1 by Cauchy–Schwarz) at most
// 4e-6 whatever D, and about √Chunk32·2^-24 ≈ 5e-7 in practice (errors of
// random sign). The operands themselves are float32 (rounded from float64
// by the caller at a relative 2^-24 each).
const Chunk32 = 64

// Stride32 returns the row stride used for a float32 matrix with n
// columns: n rounded up to a multiple of 16 (one 64-byte line of float32).
func Stride32(n int) int { return (n + 15) &^ 15 }

// AtB32 is AtB on float32 operands with a float64 result: the da x db
// product M = Aᵀ B of an n x da matrix A and an n x db matrix B,
// overwriting M. Each output sums blocks of Chunk32 rows in float32 (FMAs
// in the assembly) and adds the blocks' sums in float64, in order:
//
//	for i < da, j < db:
//		var s float64
//		for t0 := 0; t0 < n; t0 += Chunk32 {
//			var c float32
//			for r := t0; r < min(t0+Chunk32, n); r++ { c += a[r*lda+i] * b[r*ldb+j] }
//			s += float64(c)
//		}
//		m[i*ldm+j] = s
//
// As for AtB, an output is the same chain whatever the number of rows and
// columns of the call, so the same bits on a given implementation.
func AtB32(m []float64, ldm int, a []float32, lda int, b []float32, ldb int, n, da, db int) {
	atb32(m, ldm, a, lda, b, ldb, n, da, db)
}

// AtX32 is AtX on float32 operands with a float64 result: y = Aᵀ x for an
// n x d matrix A (prototypes against one image), overwriting y[:d]. Each
// block of Chunk32 rows is summed in float32 and the blocks' sums are
// added in float64, in order:
//
//	for j < d: y[j] = Σ_{blocks} float64(Σ_{r in block} a[r*lda+j] * x[r])
//
// The order within a block is the implementation's: the generic twin and
// the AVX-512 kernel sum it in four chains (rows r with the same r%4),
// added ((s0+s1)+(s2+s3)); the AVX2 kernel sums each group of four rows
// in one fused chain (a product and three FMAs) and adds the groups'
// sums in order, which needs one accumulator per column vector instead of
// four, so that it reads 64 columns in one pass over the rows (four
// chains fit 24 in its 16 registers, and a share of 60 columns was read
// in three passes, each wasting part of the cache lines it touched: 3.7
// against 2.9 us at 784 x 60, stride 120, on Zen 3). The error bound is
// Chunk32's either way. An output does not depend on d or on the other
// columns.
func AtX32(y []float64, a []float32, lda int, x []float32, n, d int) {
	atx32(y, a, lda, x, n, d)
}

// atb32Generic is AtB32 in plain Go (float32(a*b) forbids fusing).
func atb32Generic(m []float64, ldm int, a []float32, lda int, b []float32, ldb int, n, da, db int) {
	for i := 0; i < da; i++ {
		for j := 0; j < db; j++ {
			var s float64
			for t0 := 0; t0 < n; t0 += Chunk32 {
				var c float32
				for r := t0; r < min(t0+Chunk32, n); r++ {
					c += float32(a[r*lda+i] * b[r*ldb+j])
				}
				s += float64(c)
			}
			m[i*ldm+j] = s
		}
	}
}

// atx32Generic is AtX32 in plain Go.
func atx32Generic(y []float64, a []float32, lda int, x []float32, n, d int) {
	for j := 0; j < d; j++ {
		var s float64
		for t0 := 0; t0 < n; t0 += Chunk32 {
			var g [4]float32
			for r := t0; r < min(t0+Chunk32, n); r++ {
				g[(r-t0)%4] += float32(a[r*lda+j] * x[r])
			}
			s += float64((g[0] + g[1]) + (g[2] + g[3]))
		}
		y[j] = s
	}
}
