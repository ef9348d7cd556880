package svd

import (
	"math"

	"github.com/grlgq/grlgq/kernels"
)

// Tall is the workspace for the thin SVD of a rows x cols matrix with
// rows >= cols >= 1 (an image set X, D x m, one image per column). It is
// not safe for concurrent use.
type Tall struct {
	rows, cols int
	ld         int       // stride of t and ut: kernels.Stride(rows)
	t          []float64 // cols x rows: row j = column j of A, then the LQ factors
	tau        []float64
	ut         []float64 // cols x rows: rows of Uᵀ
	ur         []float64 // cols x cols: U of R
	small      *Small
}

// NewTall returns the workspace for rows x cols matrices,
// rows >= cols >= 1, cols <= MaxSmall.
func NewTall(rows, cols int) *Tall {
	if cols < 1 || rows < cols || cols > MaxSmall {
		panic(PanicShape)
	}
	ld := kernels.Stride(rows)
	return &Tall{
		rows:  rows,
		cols:  cols,
		ld:    ld,
		t:     make([]float64, cols*ld),
		tau:   make([]float64, cols),
		ut:    make([]float64, cols*ld),
		ur:    make([]float64, cols*cols),
		small: NewSmall(cols),
	}
}

// Dims returns the shape of the matrices this workspace handles.
func (w *Tall) Dims() (rows, cols int) { return w.rows, w.cols }

// Factorize computes the thin SVD A = U diag(s) Vᵀ of the rows x cols matrix
// a (row stride lda): U is rows x cols with orthonormal columns (stride
// ldu), s[:cols] is descending, V is cols x cols orthogonal (stride ldv).
// Rank-deficient input is fine: its zero singular values get columns of U
// that complete an orthonormal set. a is not modified; u, s and v must not
// alias a or each other. Allocation-free.
//
// Algorithm: Householder QR A = Q R (computed as the LQ factorisation of Aᵀ,
// whose rows are contiguous), one-sided Jacobi R = U_R Σ Vᵀ, and
// U = Q U_R by applying the reflectors to U_R.
func (w *Tall) Factorize(u []float64, ldu int, s []float64, v []float64, ldv int, a []float64, lda int) error {
	m, n, ld := w.rows, w.cols, w.ld
	if lda < n || len(a) < (m-1)*lda+n || ldu < n || len(u) < (m-1)*ldu+n || len(s) < n {
		panic(PanicShape)
	}
	checkSquare(n, v, ldv)
	e, ok := loadTransposed(w.t, ld, a, lda, m, n)
	if !ok {
		return ErrNotFinite
	}
	w.lq()

	// R = Lᵀ: the Jacobi rows (columns of R) are the rows of L.
	sm := w.small
	for j := 0; j < n; j++ {
		g := sm.g[j*n : j*n+n]
		copy(g[:j+1], w.t[j*ld:j*ld+j+1])
		for i := j + 1; i < n; i++ {
			g[i] = 0
		}
	}
	negl := negligible(sm.g, n, n, n)
	if !sm.run(true, negl) {
		return ErrNoConvergence
	}
	sm.finish(w.ur, n, s, v, ldv, e, negl)

	// Uᵀ = [U_Rᵀ 0] H_{n-1} ... H_0.
	for j := 0; j < n; j++ {
		row := w.ut[j*ld : j*ld+m]
		for r := 0; r < n; r++ {
			row[r] = w.ur[r*n+j]
		}
		for r := n; r < m; r++ {
			row[r] = 0
		}
	}
	for h := n - 1; h >= 0; h-- {
		tau := w.tau[h]
		if tau == 0 {
			continue
		}
		vh := w.t[h*ld+h+1 : h*ld+m]
		for j := 0; j < n; j++ {
			row := w.ut[j*ld+h : j*ld+m]
			f := -float64(tau * (row[0] + kernels.Dot(vh, row[1:])))
			row[0] += f
			kernels.Axpy(f, vh, row[1:])
		}
	}
	for j := 0; j < n; j++ {
		row := w.ut[j*ld : j*ld+m]
		for r, x := range row {
			u[r*ldu+j] = x
		}
	}
	return nil
}

// lq overwrites t (cols x rows, rows are the columns of A) with its LQ
// factorisation by Householder reflectors: row j holds L[j][:j+1] in its
// first j+1 entries and the essential part of reflector j (whose leading
// entry is an implicit 1 at position j) after them; tau holds the
// reflector scalars (H = I - tau v vᵀ, tau = 0 for H = I).
func (w *Tall) lq() {
	m, n, ld := w.rows, w.cols, w.ld
	for j := 0; j < n; j++ {
		row := w.t[j*ld+j : j*ld+m]
		alpha := row[0]
		x := row[1:]
		xx := kernels.Dot(x, x)
		if xx == 0 {
			w.tau[j] = 0
			continue
		}
		beta := -math.Copysign(math.Sqrt(float64(alpha*alpha)+xx), alpha)
		w.tau[j] = (beta - alpha) / beta
		kernels.Scale(1/(alpha-beta), x)
		row[0] = beta
		tau := w.tau[j]
		for i := j + 1; i < n; i++ {
			ri := w.t[i*ld+j : i*ld+m]
			f := -float64(tau * (ri[0] + kernels.Dot(x, ri[1:])))
			ri[0] += f
			kernels.Axpy(f, x, ri[1:])
		}
	}
}
