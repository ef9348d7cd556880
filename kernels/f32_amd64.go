//go:build amd64 && !purego

package kernels

// Widest column block, in float32 columns, of the float32 kernels (lanes
// times maxNB and xNB in asm/kernels/f32.go).
const (
	atb32ColsAVX512 = 64
	atb32ColsAVX2   = 16
	atx32ColsAVX512 = 64
	atx32ColsAVX2   = 24
)

func atb32(m []float64, ldm int, a []float32, lda int, b []float32, ldb int, n, da, db int) {
	if !useAVX512 && !useAVX2 {
		atb32Generic(m, ldm, a, lda, b, ldb, n, da, db)
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
		for j := 0; j < db; j += atb32ColsAVX512 {
			atb32KernelAVX512(&m[j], ldm, &a[0], lda, &b[j], ldb, n, da, min(db-j, atb32ColsAVX512))
		}
		return
	}
	for j := 0; j < db; j += atb32ColsAVX2 {
		atb32KernelAVX2(&m[j], ldm, &a[0], lda, &b[j], ldb, n, da, min(db-j, atb32ColsAVX2))
	}
}

func atx32(y []float64, a []float32, lda int, x []float32, n, d int) {
	if !useAVX512 && !useAVX2 {
		atx32Generic(y, a, lda, x, n, d)
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
		for j := 0; j < d; j += atx32ColsAVX512 {
			atx32KernelAVX512(&y[j], &a[j], lda, &x[0], n, min(d-j, atx32ColsAVX512))
		}
		return
	}
	for j := 0; j < d; j += atx32ColsAVX2 {
		atx32KernelAVX2(&y[j], &a[j], lda, &x[0], n, min(d-j, atx32ColsAVX2))
	}
}
