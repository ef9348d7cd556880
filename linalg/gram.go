package linalg

import (
	"math"

	"github.com/grlgq/grlgq/kernels"
)

// Gram writes the a.Cols x a.Cols Gram matrix Aᵀ A into dst (row-major,
// stride ld >= a.Cols), overwriting it.
//
//	dst[i*ld+j] = Σ_r a(r, i) a(r, j)
func Gram(dst []float64, ld int, a *Dense) {
	checkSmall(dst, ld, a.Cols, a.Cols)
	kernels.AtB(dst, ld, a.Data, a.Stride, a.Data, a.Stride, a.Rows, a.Cols, a.Cols)
}

// ProjectTo writes the p.Cols x w.Cols projection Pᵀ W into m (row-major,
// stride ld >= w.Cols), overwriting it. p and w must have the same number
// of rows.
//
//	m[i*ld+j] = Σ_r p(r, i) w(r, j)
func ProjectTo(m []float64, ld int, p, w *Dense) {
	if p.Rows != w.Rows {
		panic(errShape)
	}
	checkSmall(m, ld, p.Cols, w.Cols)
	kernels.AtB(m, ld, p.Data, p.Stride, w.Data, w.Stride, p.Rows, p.Cols, w.Cols)
}

func checkSmall(m []float64, ld, rows, cols int) {
	if ld < cols {
		panic(errShape)
	}
	if rows > 0 && len(m) < (rows-1)*ld+cols {
		panic(errShort)
	}
}

// OrthonormalityError returns max_ij |(QᵀQ − I)_ij|, the loss of
// orthonormality of q's columns (NaN if q holds NaN). It allocates a
// q.Cols x q.Cols scratch matrix; it is meant for tests and checks, not hot
// paths.
func OrthonormalityError(q *Dense) float64 {
	n := q.Cols
	g := make([]float64, n*n)
	Gram(g, n, q)
	var worst float64
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v := g[i*n+j]
			if i == j {
				v -= 1
			}
			v = math.Abs(v)
			if v > worst || v != v {
				worst = v
			}
		}
	}
	return worst
}
