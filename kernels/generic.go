package kernels

// The generic twins write every product as float64(a*b): the explicit
// conversion forbids the compiler from fusing it into an FMA (it does so on
// arm64), so the purego build gives the same bits on every architecture.

// Stride returns the row stride used for a matrix with n columns: n rounded
// up to a multiple of 8 (one 64-byte line of float64).
func Stride(n int) int { return (n + 7) &^ 7 }

// dotGeneric is
//
//	for i, v := range x { sum += v * y[i] }
func dotGeneric(x, y []float64) float64 {
	var s0, s1, s2, s3 float64
	n := len(x)
	y = y[:n]
	i := 0
	for ; i+4 <= n; i += 4 {
		s0 += float64(x[i] * y[i])
		s1 += float64(x[i+1] * y[i+1])
		s2 += float64(x[i+2] * y[i+2])
		s3 += float64(x[i+3] * y[i+3])
	}
	for ; i < n; i++ {
		s0 += float64(x[i] * y[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// axpyGeneric is
//
//	for i, v := range x { y[i] += float64(alpha * v) }
func axpyGeneric(alpha float64, x, y []float64) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += float64(alpha * v)
	}
}

// scaleGeneric is
//
//	for i := range x { x[i] *= alpha }
func scaleGeneric(alpha float64, x []float64) {
	for i := range x {
		x[i] *= alpha
	}
}

// atbGeneric is (M = Aᵀ B, A is n x da, B is n x db)
//
//	for i := 0; i < da; i++ {
//		for j := 0; j < db; j++ {
//			var s float64
//			for r := 0; r < n; r++ { s += a[r*lda+i] * b[r*ldb+j] }
//			m[i*ldm+j] = s
//		}
//	}
func atbGeneric(m []float64, ldm int, a []float64, lda int, b []float64, ldb int, n, da, db int) {
	for i := 0; i < da; i++ {
		row := m[i*ldm : i*ldm+db]
		for j := range row {
			row[j] = 0
		}
	}
	for r := 0; r < n; r++ {
		ar := a[r*lda : r*lda+da]
		br := b[r*ldb : r*ldb+db]
		for i, av := range ar {
			row := m[i*ldm : i*ldm+db]
			for j, bv := range br {
				row[j] += float64(av * bv)
			}
		}
	}
}

// atxGeneric is (y = Aᵀ x, A is n x d)
//
//	for j := 0; j < d; j++ {
//		var s float64
//		for r := 0; r < n; r++ { s += a[r*lda+j] * x[r] }
//		y[j] = s
//	}
func atxGeneric(y []float64, a []float64, lda int, x []float64, n, d int) {
	y = y[:d]
	for j := range y {
		y[j] = 0
	}
	for r := 0; r < n; r++ {
		xr := x[r]
		ar := a[r*lda : r*lda+d]
		for j, av := range ar {
			y[j] += float64(av * xr)
		}
	}
}

// abGeneric is (C = A B, A is n x k, B is k x d, C is n x d)
//
//	for r := 0; r < n; r++ {
//		for j := 0; j < d; j++ {
//			var s float64
//			for l := 0; l < k; l++ { s += a[r*lda+l] * b[l*ldb+j] }
//			c[r*ldc+j] = s
//		}
//	}
func abGeneric(c []float64, ldc int, a []float64, lda int, b []float64, ldb int, n, k, d int) {
	for r := 0; r < n; r++ {
		cr := c[r*ldc : r*ldc+d]
		for j := range cr {
			cr[j] = 0
		}
		ar := a[r*lda : r*lda+k]
		for l, av := range ar {
			br := b[l*ldb : l*ldb+d]
			for j, bv := range br {
				cr[j] += float64(av * bv)
			}
		}
	}
}

// ab2Generic is abGeneric on [A1 A2] and [B1; B2] (C = A1 B1 + A2 B2;
// c must not overlap the inputs)
//
//	for r := 0; r < n; r++ {
//		for j := 0; j < d; j++ {
//			var s float64
//			for l := 0; l < k; l++ { s += a1[r*lda1+l] * b1[l*ldb1+j] }
//			for l := 0; l < k; l++ { s += a2[r*lda2+l] * b2[l*ldb2+j] }
//			c[r*ldc+j] = s
//		}
//	}
func ab2Generic(c []float64, ldc int, a1 []float64, lda1 int, b1 []float64, ldb1 int, a2 []float64, lda2 int, b2 []float64, ldb2 int, n, k, d int) {
	for r := 0; r < n; r++ {
		cr := c[r*ldc : r*ldc+d]
		clear(cr)
		for l, av := range a1[r*lda1 : r*lda1+max(k, 0)] {
			br := b1[l*ldb1 : l*ldb1+d]
			for j, bv := range br {
				cr[j] += float64(av * bv)
			}
		}
		for l, av := range a2[r*lda2 : r*lda2+max(k, 0)] {
			br := b2[l*ldb2 : l*ldb2+d]
			for j, bv := range br {
				cr[j] += float64(av * bv)
			}
		}
	}
}

// sparseABGeneric is (c = a B for the row a with a[idx[i]] = val[i], zero
// elsewhere)
//
//	for j := 0; j < nc; j++ {
//		var s float64
//		for i, t := range idx { s += val[i] * b[t*ldb+j] }
//		c[j] = s
//	}
//
// in the order of abGeneric, so that it has abGeneric's bits on the dense
// row (up to the sign of a zero output, see SparseAB).
func sparseABGeneric(c []float64, val []float64, idx []int32, b []float64, ldb, nc int) {
	c = c[:nc]
	for j := range c {
		c[j] = 0
	}
	for i, t := range idx {
		v := val[i]
		o := int(t) * ldb
		br := b[o : o+nc]
		for j, bv := range br {
			c[j] += float64(v * bv)
		}
	}
}

// nonzerosGeneric is Nonzeros (len(idx), len(val) >= len(x)): every entry
// is stored at position n and n advances past the nonzero ones, without a
// branch on the data.
func nonzerosGeneric(idx []int32, val []float64, x []float64) int {
	idx = idx[:len(x)]
	val = val[:len(x)]
	n := 0
	for i, v := range x {
		idx[n] = int32(i)
		val[n] = v
		if v != 0 {
			n++
		}
	}
	return n
}

// projDotsGeneric is ProjDots:
//
//	for c < b, i < n: p[c*ldp+i] -= Σ_{l<nq} s[l*lds+c] * q[l*ldq+i]   (l in order)
//	for k < nr, c < b: g[k*ldg+c] = Σ_{i<n} r[k*ldr+i] * p[c*ldp+i]
func projDotsGeneric(p []float64, ldp, b int, q []float64, ldq, nq int, s []float64, lds int, r []float64, ldr, nr int, g []float64, ldg int, n int) {
	projRows(p, ldp, b, q, ldq, nq, s, lds, 0, n)
	for k := 0; k < nr; k++ {
		rk := r[k*ldr : k*ldr+n]
		for c := 0; c < b; c++ {
			g[k*ldg+c] = dotGeneric(rk, p[c*ldp:c*ldp+n])
		}
	}
}

// projRows is the update of projDotsGeneric on rows i0..i1.
func projRows(p []float64, ldp, b int, q []float64, ldq, nq int, s []float64, lds int, i0, i1 int) {
	if i0 >= i1 {
		return
	}
	for c := 0; c < b; c++ {
		pc := p[c*ldp+i0 : c*ldp+i1]
		for l := 0; l < nq; l++ {
			slc := s[l*lds+c]
			ql := q[l*ldq+i0 : l*ldq+i1]
			for i, v := range ql {
				pc[i] -= float64(slc * v)
			}
		}
	}
}

// transposeGeneric is
//
//	for r < rows, c < cols: dst[c*ldd+r] = src[r*lds+c]
//
// four source rows at a time, so that each destination row receives 32
// contiguous bytes per step.
func transposeGeneric(dst []float64, ldd int, src []float64, lds int, rows, cols int) {
	r := 0
	for ; r+4 <= rows; r += 4 {
		r0 := src[r*lds : r*lds+cols]
		r1 := src[(r+1)*lds : (r+1)*lds+cols]
		r2 := src[(r+2)*lds : (r+2)*lds+cols]
		r3 := src[(r+3)*lds : (r+3)*lds+cols]
		for c := range r0 {
			o := c*ldd + r
			d := dst[o : o+4 : o+4]
			d[0], d[1], d[2], d[3] = r0[c], r1[c], r2[c], r3[c]
		}
	}
	for ; r < rows; r++ {
		for c, v := range src[r*lds : r*lds+cols] {
			dst[c*ldd+r] = v
		}
	}
}

// transposeScaledGeneric is
//
//	for r < rows, c < cols: dst[c*ldd+r] = src[r*lds+c] * scale[r]
func transposeScaledGeneric(dst []float64, ldd int, src []float64, lds int, rows, cols int, scale []float64) {
	for r := 0; r < rows; r++ {
		sr := scale[r]
		for c, v := range src[r*lds : r*lds+cols] {
			dst[c*ldd+r] = v * sr
		}
	}
}

// fmaSink keeps peakFMAGeneric's chains alive.
var fmaSink float64

// peakFMAGeneric runs iters iterations of 12 independent scalar
// multiply-add chains and returns the flop count (2 per multiply-add).
func peakFMAGeneric(iters int) (flops int) {
	const m, c = 0.5, 0.25
	var a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11 float64
	for i := 0; i < iters; i++ {
		a0 = a0*m + c
		a1 = a1*m + c
		a2 = a2*m + c
		a3 = a3*m + c
		a4 = a4*m + c
		a5 = a5*m + c
		a6 = a6*m + c
		a7 = a7*m + c
		a8 = a8*m + c
		a9 = a9*m + c
		a10 = a10*m + c
		a11 = a11*m + c
	}
	fmaSink = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11
	return max(iters, 0) * 12 * 2
}
