//go:build !amd64 || purego

package kernels

func atb32(m []float64, ldm int, a []float32, lda int, b []float32, ldb int, n, da, db int) {
	atb32Generic(m, ldm, a, lda, b, ldb, n, da, db)
}

func atx32(y []float64, a []float32, lda int, x []float32, n, d int) {
	atx32Generic(y, a, lda, x, n, d)
}

func round32(dst []float32, ldd int, src []float64, lds int, rows, cols int) {
	round32Generic(dst, ldd, src, lds, rows, cols)
}

func round32Back(dst []float32, ldd int, src []float64, lds int, rows, cols int) {
	round32BackGeneric(dst, ldd, src, lds, rows, cols)
}

func scaleRound32(dst []float32, ldd int, src []float64, lds int, rows, cols int, alpha float64) {
	scaleRound32Generic(dst, ldd, src, lds, rows, cols, alpha)
}

func widen32(dst []float64, ldd int, src []float32, lds int, rows, cols int) {
	widen32Generic(dst, ldd, src, lds, rows, cols)
}
