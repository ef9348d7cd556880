package kernels

// The float64 -> float32 conversions of float32 mode (package engine's
// prototypes, samples and images). Each value is rounded to the nearest
// float32, ties to even, exactly as Go's float32(x): the same bits on
// every path (VCVTPD2PS under the default MXCSR rounds as CVTSD2SS,
// NaNs quieted alike; values beyond float32 range become ±Inf, tiny ones
// float32 denormals or ±0, the sign of zero kept).

// Round32 sets dst[i] = float32(src[i]) for i < len(src); dst must hold
// len(src) values.
func Round32(dst []float32, src []float64) {
	if len(src) == 0 {
		return
	}
	round32(dst, len(src), src, len(src), 1, len(src))
}

// Round32Back is Round32 that also writes the rounded values back to src:
// src[i] = float64(dst[i]).
func Round32Back(dst []float32, src []float64) {
	if len(src) == 0 {
		return
	}
	round32Back(dst, len(src), src, len(src), 1, len(src))
}

// ScaleRound32 sets dst[i] = float32(src[i]*alpha) for i < len(src) (the
// product rounded to float64, then to float32, as in Go).
func ScaleRound32(dst []float32, src []float64, alpha float64) {
	if len(src) == 0 {
		return
	}
	scaleRound32(dst, len(src), src, len(src), 1, len(src), alpha)
}

// Round32Rows sets dst[i*ldd+j] = float32(src[i*lds+j]) for i < rows,
// j < cols: a rows x cols block of a row-major float64 matrix with stride
// lds to a float32 one with stride ldd (ldd, lds >= cols). Nothing else
// of dst is written.
func Round32Rows(dst []float32, ldd int, src []float64, lds int, rows, cols int) {
	if rows <= 0 || cols <= 0 {
		return
	}
	round32(dst, ldd, src, lds, rows, cols)
}

// Round32RowsBack is Round32Rows that also writes the rounded values back
// to src: src[i*lds+j] = float64(dst[i*ldd+j]) (a float64 matrix made to
// hold exactly its float32 copy).
func Round32RowsBack(dst []float32, ldd int, src []float64, lds int, rows, cols int) {
	if rows <= 0 || cols <= 0 {
		return
	}
	round32Back(dst, ldd, src, lds, rows, cols)
}

// Widen32Rows sets dst[i*ldd+j] = float64(src[i*lds+j]) for i < rows,
// j < cols: the exact float64 values of a rows x cols block of a
// row-major float32 matrix (stride lds) into a float64 one (stride ldd;
// ldd, lds >= cols). Nothing else of dst is written.
func Widen32Rows(dst []float64, ldd int, src []float32, lds int, rows, cols int) {
	if rows <= 0 || cols <= 0 {
		return
	}
	_ = dst[(rows-1)*ldd+cols-1]
	_ = src[(rows-1)*lds+cols-1]
	widen32(dst, ldd, src, lds, rows, cols)
}

// widen32Generic is Widen32Rows in plain Go.
func widen32Generic(dst []float64, ldd int, src []float32, lds int, rows, cols int) {
	for i := 0; i < rows; i++ {
		d := dst[i*ldd : i*ldd+cols]
		for j, v := range src[i*lds : i*lds+cols] {
			d[j] = float64(v)
		}
	}
}

// round32Generic is Round32Rows in plain Go (the twin of the assembly).
func round32Generic(dst []float32, ldd int, src []float64, lds int, rows, cols int) {
	for i := 0; i < rows; i++ {
		d := dst[i*ldd : i*ldd+cols]
		for j, v := range src[i*lds : i*lds+cols] {
			d[j] = float32(v)
		}
	}
}

// round32BackGeneric is Round32RowsBack in plain Go.
func round32BackGeneric(dst []float32, ldd int, src []float64, lds int, rows, cols int) {
	for i := 0; i < rows; i++ {
		d := dst[i*ldd : i*ldd+cols]
		s := src[i*lds : i*lds+cols]
		for j, v := range s {
			f := float32(v)
			d[j] = f
			s[j] = float64(f)
		}
	}
}

// scaleRound32Generic is the strided ScaleRound32 in plain Go.
func scaleRound32Generic(dst []float32, ldd int, src []float64, lds int, rows, cols int, alpha float64) {
	for i := 0; i < rows; i++ {
		d := dst[i*ldd : i*ldd+cols]
		for j, v := range src[i*lds : i*lds+cols] {
			d[j] = float32(v * alpha)
		}
	}
}
