//go:build amd64 && !purego

package kernels

// Widest column block, in float32 columns, of the float32 kernels (lanes
// times maxNB and xNB in asm/kernels/f32.go).
const (
	atb32ColsAVX512 = 64
	atb32ColsAVX2   = 16
	atx32ColsAVX512 = 64
	atx32ColsAVX2   = 64
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
	// Chunks of the reduction (a multiple of Chunk32, so the same float32
	// blocks) whose rows of A and B stay in L1 while every row and column
	// block runs over them; the kernel continues each sum from m after the
	// first chunk.
	kc := n
	cols := atb32ColsAVX2
	if useAVX512 {
		cols = atb32ColsAVX512
	}
	if db > cols {
		kc = Chunk32 * max(atb32ChunkBytes/(4*(da+db)+128)/Chunk32, 1)
	}
	for t := 0; t < n; t += kc {
		k := min(kc, n-t)
		for j := 0; j < db; j += cols {
			switch {
			case useAVX512 && bcast512:
				atb32KernelAVX512B(&m[j], ldm, &a[t*lda], lda, &b[t*ldb+j], ldb, k, da, min(db-j, cols), t > 0)
			case useAVX512:
				atb32KernelAVX512(&m[j], ldm, &a[t*lda], lda, &b[t*ldb+j], ldb, k, da, min(db-j, cols), t > 0)
			default:
				atb32KernelAVX2(&m[j], ldm, &a[t*lda], lda, &b[t*ldb+j], ldb, k, da, min(db-j, cols), t > 0)
			}
		}
	}
}

// atb32ChunkBytes bounds the bytes of the rows of A and B in one chunk of
// the AtB32 reduction (as atbChunkBytes): at least Chunk32 rows.
const atb32ChunkBytes = 24 << 10

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

// round32Shape checks the bounds of a rows x cols conversion (rows,
// cols >= 1) and returns the shape to run: one row of rows*cols values
// when the rows are back to back, else rows x cols.
func round32Shape(dst []float32, ldd int, src []float64, lds int, rows, cols int) (int, int) {
	_ = dst[(rows-1)*ldd+cols-1]
	_ = src[(rows-1)*lds+cols-1]
	if ldd == cols && lds == cols {
		return 1, rows * cols
	}
	return rows, cols
}

// round32 and round32Back call their kernels directly, not through
// function values, so that escape analysis sees the kernels' noescape and
// a caller's stack buffers stay on the stack (AB2F32's blocks).
func round32(dst []float32, ldd int, src []float64, lds int, rows, cols int) {
	if !useAVX512 && !useAVX2 {
		round32Generic(dst, ldd, src, lds, rows, cols)
		return
	}
	rows, cols = round32Shape(dst, ldd, src, lds, rows, cols)
	if useAVX512 {
		round32KernelAVX512(&dst[0], ldd, &src[0], lds, rows, cols)
	} else {
		round32KernelAVX2(&dst[0], ldd, &src[0], lds, rows, cols)
	}
}

func round32Back(dst []float32, ldd int, src []float64, lds int, rows, cols int) {
	if !useAVX512 && !useAVX2 {
		round32BackGeneric(dst, ldd, src, lds, rows, cols)
		return
	}
	rows, cols = round32Shape(dst, ldd, src, lds, rows, cols)
	if useAVX512 {
		round32BackKernelAVX512(&dst[0], ldd, &src[0], lds, rows, cols)
	} else {
		round32BackKernelAVX2(&dst[0], ldd, &src[0], lds, rows, cols)
	}
}

// widen32 runs on the AVX2 kernel wherever a vector path is on (the
// AVX-512 machines have AVX2), as one run when the rows are back to back.
func widen32(dst []float64, ldd int, src []float32, lds int, rows, cols int) {
	if !useAVX512 && !useAVX2 {
		widen32Generic(dst, ldd, src, lds, rows, cols)
		return
	}
	if ldd == cols && lds == cols {
		cols, rows = rows*cols, 1
	}
	widen32KernelAVX2(&dst[0], ldd, &src[0], lds, rows, cols)
}

func scaleRound32(dst []float32, ldd int, src []float64, lds int, rows, cols int, alpha float64) {
	if !useAVX512 && !useAVX2 {
		scaleRound32Generic(dst, ldd, src, lds, rows, cols, alpha)
		return
	}
	rows, cols = round32Shape(dst, ldd, src, lds, rows, cols)
	if useAVX512 {
		scaleRound32KernelAVX512(&dst[0], ldd, &src[0], lds, rows, cols, alpha)
	} else {
		scaleRound32KernelAVX2(&dst[0], ldd, &src[0], lds, rows, cols, alpha)
	}
}
