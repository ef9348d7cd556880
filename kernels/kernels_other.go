//go:build !amd64 || purego

package kernels

// Implementation names the path in use: always "generic" in this build.
func Implementation() string { return "generic" }

func dot(x, y []float64) float64         { return dotGeneric(x, y) }
func axpy(alpha float64, x, y []float64) { axpyGeneric(alpha, x, y) }
func scale(alpha float64, x []float64)   { scaleGeneric(alpha, x) }
func atb(m []float64, ldm int, a []float64, lda int, b []float64, ldb int, n, da, db int) {
	atbGeneric(m, ldm, a, lda, b, ldb, n, da, db)
}
func atx(y []float64, a []float64, lda int, x []float64, n, d int) { atxGeneric(y, a, lda, x, n, d) }
func ab(c []float64, ldc int, a []float64, lda int, b []float64, ldb int, n, k, d int) {
	abGeneric(c, ldc, a, lda, b, ldb, n, k, d)
}
func ab2(c []float64, ldc int, a1 []float64, lda1 int, b1 []float64, ldb1 int, a2 []float64, lda2 int, b2 []float64, ldb2 int, n, k, d int) {
	ab2Generic(c, ldc, a1, lda1, b1, ldb1, a2, lda2, b2, ldb2, n, k, d)
}

// ab2InPlaceCols is the widest d that ab2 computes in place: none here.
func ab2InPlaceCols() int { return 0 }

func sparseAB(c []float64, val []float64, idx []int32, b []float64, ldb, nc int) {
	sparseABGeneric(c, val, idx, b, ldb, nc)
}
func sparseABBlocks(c []float64, val []float64, idx []int32, b []float64, ldb, bs, nblk, nc int) {
	sparseABBlocksEach(c, val, idx, b, ldb, bs, nblk, nc)
}
func nonzeros(idx []int32, val []float64, x []float64) int { return nonzerosGeneric(idx, val, x) }
func projDots(p []float64, ldp, b int, q []float64, ldq, nq int, s []float64, lds int, r []float64, ldr, nr int, g []float64, ldg int, n int) {
	projDotsGeneric(p, ldp, b, q, ldq, nq, s, lds, r, ldr, nr, g, ldg, n)
}
func panelPass(p []float64, ldp, b, c int, s []float64, lds int, before bool, g []float64, n int) {
	panelPassGeneric(p, ldp, b, c, s, lds, before, g, n)
}
func transpose(dst []float64, ldd int, src []float64, lds int, rows, cols int) {
	transposeGeneric(dst, ldd, src, lds, rows, cols)
}
func transposeScaled(dst []float64, ldd int, src []float64, lds int, rows, cols int, scale []float64) {
	transposeScaledGeneric(dst, ldd, src, lds, rows, cols, scale)
}
func projTransposeScaled(dst []float64, ldd int, src []float64, lds int, rows, cols int, scale []float64, j0 int, s []float64) {
	projTransposeScaledGeneric(dst, ldd, src, lds, rows, cols, scale, j0, s)
}
func transposeDots(dst []float64, ldd int, src []float64, lds int, rows, cols int, g []float64) {
	transposeDotsGeneric(dst, ldd, src, lds, rows, cols, g)
}
func peakFMA(iters int) (flops int) { return peakFMAGeneric(iters) }

func acos(x float64) float64 { return acosGeneric(x) }

func acosN(dst, x []float64) {
	for i, v := range x {
		dst[i] = acosGeneric(v)
	}
}

func ab2F32F32(c []float32, ldc int, a1 []float32, lda1 int, b1 []float64, ldb1 int, a2 []float32, lda2 int, b2 []float64, ldb2 int, n, k, d int) {
	ab2F32F32Blocks(c, ldc, a1, lda1, b1, ldb1, a2, lda2, b2, ldb2, n, k, d)
}

func ab2F32(c []float32, ldc int, a1 []float32, lda1 int, b1 []float64, ldb1 int, a2 []float64, lda2 int, b2 []float64, ldb2 int, n, k, d int) {
	ab2F32Blocks(c, ldc, a1, lda1, b1, ldb1, a2, lda2, b2, ldb2, n, k, d)
}

func ab2s32Native(k, d int) bool { return false }

func ab2s32Kernel(c []float32, ldc int, a1 []float32, lda1 int, b1 []float32, ldb1 int, a2 []float32, lda2 int, b2 []float32, ldb2 int, n, k, d int) {
	ab2s32Generic(c, ldc, a1, lda1, b1, ldb1, a2, lda2, b2, ldb2, n, k, d)
}
