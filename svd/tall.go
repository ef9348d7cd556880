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
	ur         []float64 // cols x cols: U of R
	y          []float64 // rows x cols (stride ldy): the reflectors Y, row-major
	ldy        int
	gm         []float64 // cols x cols: YᵀY
	yp         []float64 // lqBlock x ld: the reflectors of one panel of lq
	tm         []float64 // cols x cols: -T of the compact WY form
	x, wm      []float64 // cols x cols: Y_topᵀ U_R and -T Y_topᵀ U_R
	small      *Small
}

// NewTall returns the workspace for rows x cols matrices,
// rows >= cols >= 1, cols <= MaxTall.
func NewTall(rows, cols int) *Tall {
	if cols < 1 || rows < cols || cols > MaxTall {
		panic(PanicShape)
	}
	ld := kernels.Stride(rows)
	return &Tall{
		rows:  rows,
		cols:  cols,
		ld:    ld,
		t:     make([]float64, cols*ld),
		tau:   make([]float64, cols),
		ur:    make([]float64, cols*cols),
		tm:    make([]float64, cols*cols),
		x:     make([]float64, cols*cols),
		wm:    make([]float64, cols*cols),
		y:     make([]float64, rows*kernels.Stride(cols)),
		ldy:   kernels.Stride(cols),
		gm:    make([]float64, cols*cols),
		yp:    make([]float64, lqBlock*ld),
		small: newSmall(cols),
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
// U = Q [U_R; 0] with Q in compact WY form I - Y T Yᵀ:
// U = [U_R; 0] - Y (T (Y_topᵀ U_R)), one matrix product over the rows.
func (w *Tall) Factorize(u []float64, ldu int, s []float64, v []float64, ldv int, a []float64, lda int) error {
	m, n, ld := w.rows, w.cols, w.ld
	if lda < n || len(a) < (m-1)*lda+n || ldu < n || len(u) < (m-1)*ldu+n || len(s) < n {
		panic(PanicShape)
	}
	checkSquare(n, v, ldv)
	e, ok := w.load(a, lda)
	if !ok {
		return errNotFinite
	}
	w.lq()

	// R = Lᵀ: the Jacobi rows (columns of R) are the rows of L. Then t
	// becomes Yᵀ: row j is the reflector v_j (zeros before j, 1 at j).
	sm := w.small
	for j := 0; j < n; j++ {
		g := sm.g[j*n : j*n+n]
		tj := w.t[j*ld : j*ld+j+1]
		copy(g[:j+1], tj)
		for i := j + 1; i < n; i++ {
			g[i] = 0
		}
		clear(tj)
		tj[j] = 1
	}
	negl := negligible(sm.g, n, n, n)
	if !sm.run(true, negl) {
		return ErrNoConvergence
	}
	sm.finish(w.ur, n, s, v, ldv, e, finishNegl(negl))

	// Y (rows x cols, row-major), G = YᵀY.
	y, ldy := w.y, w.ldy
	if useAVX512 {
		transposeAVX512(&y[0], ldy, &w.t[0], ld, n, m)
	} else {
		for j := 0; j < n; j++ {
			for r, x := range w.t[j*ld : j*ld+m] {
				y[r*ldy+j] = x
			}
		}
	}
	gm := w.gm
	kernels.AtB(gm, n, y, ldy, y, ldy, m, n, n)
	// T of H_0 ... H_{n-1} = I - Y T Yᵀ: T[j][j] = tau_j,
	// T[:j, j] = -tau_j T[:j, :j] (Y[:, :j]ᵀ v_j). Stored negated.
	tm := w.tm
	for j := 0; j < n; j++ {
		tau := w.tau[j]
		for i := 0; i < j; i++ {
			var acc float64
			for k := i; k < j; k++ {
				acc += float64(tm[i*n+k] * gm[k*n+j])
			}
			tm[i*n+j] = -float64(tau * acc)
		}
		tm[j*n+j] = -tau
		for i := j + 1; i < n; i++ {
			tm[i*n+j] = 0
		}
	}
	// X = Y_topᵀ U_R, W = -T X, U = [U_R; 0] + Y W.
	kernels.AtB(w.x, n, y, ldy, w.ur, n, n, n, n)
	kernels.AB(w.wm, n, tm, n, w.x, n, n, n, n)
	kernels.AB(u, ldu, y, ldy, w.wm, n, m, n, n)
	for i := 0; i < n; i++ {
		row := u[i*ldu : i*ldu+n]
		for j := range row {
			row[j] += w.ur[i*n+j]
		}
	}
	return nil
}

// load writes the transpose of a, scaled by the power of two 2^-e that
// brings its largest entry into [0.5, 1), into t, and returns e; false if
// a has a NaN or Inf.
func (w *Tall) load(a []float64, lda int) (int, bool) {
	m, n, ld := w.rows, w.cols, w.ld
	if !useAVX512 {
		return loadTransposed(w.t, ld, a, lda, m, n)
	}
	amax := transposeAVX512(&w.t[0], ld, &a[0], lda, m, n)
	if amax < 0 {
		return 0, false
	}
	e := 0
	if amax > 0 {
		_, e = math.Frexp(amax)
	}
	if e > -1000 && e < 1000 {
		sc := math.Ldexp(1, -e)
		for j := 0; j < n; j++ {
			kernels.Scale(sc, w.t[j*ld:j*ld+m])
		}
	} else {
		for j := 0; j < n; j++ {
			row := w.t[j*ld : j*ld+m]
			for i, x := range row {
				row[i] = math.Ldexp(x, -e)
			}
		}
	}
	return e, true
}

// lqBlock is the number of reflectors applied at once to the trailing rows
// in lq (their copies, 4 rows of up to rows float64, stay in L1).
const lqBlock = 4

// lq overwrites t (cols x rows, rows are the columns of A) with its LQ
// factorisation by Householder reflectors: row j holds L[j][:j+1] in its
// first j+1 entries and the essential part of reflector j (whose leading
// entry is an implicit 1 at position j) after them; tau holds the
// reflector scalars (H = I - tau v vᵀ, tau = 0 for H = I).
//
// Blocked: the reflectors of a panel of lqBlock rows are computed on the
// panel alone, then applied to each trailing row a at once in compact WY
// form, a -= Y Tᵀ (Yᵀ a): one pass over a for the four dot products, one for
// the update.
func (w *Tall) lq() {
	m, n, ld := w.rows, w.cols, w.ld
	yp := w.yp
	var tp [lqBlock * lqBlock]float64
	var d, f [lqBlock]float64
	for j0 := 0; j0 < n; j0 += lqBlock {
		j1 := min(j0+lqBlock, n)
		for j := j0; j < j1; j++ {
			w.reflector(j, j1)
		}
		if j1 == n {
			break
		}
		// The panel's reflectors over columns [j0, m), explicit; rows
		// beyond the panel are zero (they contribute nothing).
		l := m - j0
		for q := 0; q < lqBlock; q++ {
			row := yp[q*ld : q*ld+l]
			j := j0 + q
			if j >= j1 {
				clear(row)
				continue
			}
			clear(row[:q])
			row[q] = 1
			copy(row[q+1:], w.t[j*ld+j+1:j*ld+m])
		}
		// T of H_j0 ... H_{j1-1} = I - Y T Yᵀ (upper triangular):
		// T[q][q] = tau_q, T[p][q] = -tau_q Σ_{p<=r<q} T[p][r] (y_r·y_q).
		tp = [lqBlock * lqBlock]float64{}
		for q := 0; q < j1-j0; q++ {
			tau := w.tau[j0+q]
			dots4(&d, yp, ld, yp[q*ld:q*ld+l])
			for p := 0; p < q; p++ {
				var acc float64
				for r := p; r < q; r++ {
					acc += float64(tp[p*lqBlock+r] * d[r])
				}
				tp[p*lqBlock+q] = -float64(tau * acc)
			}
			tp[q*lqBlock+q] = tau
		}
		// a = H_{j1-1} ... H_j0 a = a - Y Tᵀ (Yᵀ a) for the trailing rows.
		for i := j1; i < n; i++ {
			a := w.t[i*ld+j0 : i*ld+m]
			dots4(&d, yp, ld, a)
			for q := 0; q < lqBlock; q++ {
				var acc float64
				for p := 0; p <= q; p++ {
					acc += float64(tp[p*lqBlock+q] * d[p])
				}
				f[q] = acc
			}
			axpy4(a, yp, ld, &f)
		}
	}
}

// reflector computes Householder reflector j from row j of t and applies
// it to rows j+1..end-1.
func (w *Tall) reflector(j, end int) {
	m, ld := w.rows, w.ld
	row := w.t[j*ld+j : j*ld+m]
	alpha := row[0]
	x := row[1:]
	xx := kernels.Dot(x, x)
	if xx == 0 {
		w.tau[j] = 0
		return
	}
	beta := -math.Copysign(math.Sqrt(float64(alpha*alpha)+xx), alpha)
	w.tau[j] = (beta - alpha) / beta
	kernels.Scale(1/(alpha-beta), x)
	row[0] = beta
	tau := w.tau[j]
	for i := j + 1; i < end; i++ {
		ri := w.t[i*ld+j : i*ld+m]
		f := -float64(tau * (ri[0] + kernels.Dot(x, ri[1:])))
		ri[0] += f
		kernels.Axpy(f, x, ri[1:])
	}
}

// dots4 sets d[q] = y_q · x for the four rows y_q = y[q*ldy : q*ldy+len(x)].
func dots4(d *[lqBlock]float64, y []float64, ldy int, x []float64) {
	n := len(x)
	_ = y[3*ldy+n-1]
	if useAVX512 {
		dots4AVX512(d, &y[0], ldy, &x[0], n)
		return
	}
	for q := range d {
		d[q] = dot(y[q*ldy:q*ldy+n], x)
	}
}

// axpy4 sets x -= Σ_q f[q] y_q for the four rows y_q = y[q*ldy : q*ldy+len(x)].
func axpy4(x []float64, y []float64, ldy int, f *[lqBlock]float64) {
	n := len(x)
	_ = y[3*ldy+n-1]
	if useAVX512 {
		axpy4AVX512(&x[0], &y[0], ldy, f, n)
		return
	}
	for i := range x {
		x[i] -= float64(f[0]*y[i]) + float64(f[1]*y[ldy+i]) + float64(f[2]*y[2*ldy+i]) + float64(f[3]*y[3*ldy+i])
	}
}
