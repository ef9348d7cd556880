//go:build amd64 && !purego

package kernels

import "github.com/klauspost/cpuid/v2"

// The fastest available implementation, chosen once in init and read by a
// plain if in each kernel; tests flip them to run every path on one machine.
var (
	useAVX512 bool // AVX512F/DQ/VL: ZMM kernels, K-register tails
	useAVX2   bool // AVX2 + FMA3: YMM kernels, VMASKMOVPD or scalar tails
)

// What the CPU supports, so tests can put the choice back after flipping it.
var hasAVX512, hasAVX2 bool

func init() {
	hasAVX512 = cpuid.CPU.Supports(cpuid.AVX512F, cpuid.AVX512DQ, cpuid.AVX512VL)
	hasAVX2 = cpuid.CPU.Supports(cpuid.AVX, cpuid.AVX2, cpuid.FMA3)
	useAVX512, useAVX2 = hasAVX512, hasAVX2
}

// Widest column block, in float64 columns, of the block kernels (lanes times
// maxNB in asm/kernels/main.go). The asm picks the row blocking itself.
const (
	blockColsAVX512 = 32
	blockColsAVX2   = 12
)

func dot(x, y []float64) float64 {
	if useAVX512 {
		return dotAVX512(x, y[:len(x)])
	}
	if useAVX2 {
		return dotAVX2(x, y[:len(x)])
	}
	return dotGeneric(x, y)
}

func axpy(alpha float64, x, y []float64) {
	if useAVX512 {
		axpyAVX512(alpha, x, y[:len(x)])
		return
	}
	if useAVX2 {
		axpyAVX2(alpha, x, y[:len(x)])
		return
	}
	axpyGeneric(alpha, x, y)
}

func scale(alpha float64, x []float64) {
	if useAVX512 {
		scaleAVX512(alpha, x)
		return
	}
	if useAVX2 {
		scaleAVX2(alpha, x)
		return
	}
	scaleGeneric(alpha, x)
}

// zeroRows sets the first cols entries of rows rows of m (stride ld) to zero.
func zeroRows(m []float64, ld, rows, cols int) {
	for i := 0; i < rows; i++ {
		clear(m[i*ld : i*ld+cols])
	}
}

func atb(m []float64, ldm int, a []float64, lda int, b []float64, ldb int, n, da, db int) {
	if !useAVX512 && !useAVX2 {
		atbGeneric(m, ldm, a, lda, b, ldb, n, da, db)
		return
	}
	if da <= 0 || db <= 0 {
		return
	}
	if n <= 0 {
		zeroRows(m, ldm, da, db)
		return
	}
	_ = m[(da-1)*ldm+db-1]
	_ = a[(n-1)*lda+da-1]
	_ = b[(n-1)*ldb+db-1]
	if useAVX512 {
		for j := 0; j < db; j += blockColsAVX512 {
			atbKernelAVX512(&m[j], ldm, &a[0], lda, &b[j], ldb, n, da, min(db-j, blockColsAVX512))
		}
		return
	}
	for j := 0; j < db; j += blockColsAVX2 {
		atbKernelAVX2(&m[j], ldm, &a[0], lda, &b[j], ldb, n, da, min(db-j, blockColsAVX2))
	}
}

func atx(y []float64, a []float64, lda int, x []float64, n, d int) {
	if !useAVX512 && !useAVX2 {
		atxGeneric(y, a, lda, x, n, d)
		return
	}
	if d <= 0 {
		return
	}
	if n <= 0 {
		clear(y[:d])
		return
	}
	_ = y[d-1]
	_ = a[(n-1)*lda+d-1]
	_ = x[n-1]
	if useAVX512 {
		for j := 0; j < d; j += blockColsAVX512 {
			atxKernelAVX512(&y[j], &a[j], lda, &x[0], n, min(d-j, blockColsAVX512))
		}
		return
	}
	for j := 0; j < d; j += blockColsAVX2 {
		atxKernelAVX2(&y[j], &a[j], lda, &x[0], n, min(d-j, blockColsAVX2))
	}
}

func ab(c []float64, ldc int, a []float64, lda int, b []float64, ldb int, n, k, d int) {
	if !useAVX512 && !useAVX2 {
		abGeneric(c, ldc, a, lda, b, ldb, n, k, d)
		return
	}
	if n <= 0 || d <= 0 {
		return
	}
	if k <= 0 {
		zeroRows(c, ldc, n, d)
		return
	}
	_ = c[(n-1)*ldc+d-1]
	_ = a[(n-1)*lda+k-1]
	_ = b[(k-1)*ldb+d-1]
	if useAVX512 {
		for j := 0; j < d; j += blockColsAVX512 {
			abKernelAVX512(&c[j], ldc, &a[0], lda, &b[j], ldb, k, n, min(d-j, blockColsAVX512))
		}
		return
	}
	for j := 0; j < d; j += blockColsAVX2 {
		abKernelAVX2(&c[j], ldc, &a[0], lda, &b[j], ldb, k, n, min(d-j, blockColsAVX2))
	}
}

func peakFMA(iters int) (flops int) {
	if useAVX512 {
		peakFMAAVX512(iters) // 16 chains of 8 lanes
		return max(iters, 0) * 16 * 8 * 2
	}
	if useAVX2 {
		peakFMAAVX2(iters) // 12 chains of 4 lanes
		return max(iters, 0) * 12 * 4 * 2
	}
	return peakFMAGeneric(iters)
}
