package baseline

import (
	"fmt"
	"math"
	"slices"

	"github.com/grlgq/grlgq/kernels"
	"github.com/grlgq/grlgq/svd"
)

// MaxGDATrain is the largest training part GDA takes: its scratch is four
// N x N matrices per goroutine (128 MiB at N = 2048) and a fit costs about
// (2 + g/3) N³ flops for g regularisations.
const MaxGDATrain = 2048

// gdaWork is one goroutine's scratch for GDA.
type gdaWork struct {
	k, q, w, b []float64 // N x N: kernel, (I − V) K, K (I − V) K, B and its Cholesky factor
	m, g, x    []float64 // N x C: centred class indicators, G = K M, X = B⁻¹ G
	kt         []float64 // N x T: kernel of training (rows) and test samples
	s, vec     []float64 // C x C: S = Gᵀ X and its eigenvectors
	beta       []float64 // C x r: the eigenvectors kept, scaled
	alpha      []float64 // N x r
	ztr, zte   []float64 // N x r, T x r: projections
}

// gdaPredict is Grassmann Discriminant Analysis (Hamm and Lee, ICML 2008):
// kernel Fisher discriminant analysis with the projection kernel (divided
// by √(d_i d_j), as for the SVM) on the training samples train (compact classes
// cls, C of them present), then the nearest neighbour (Euclidean, ties to
// the lower position in train) among the training samples in the
// discriminant space. For each regularisation r of grid it maximises
//
//	αᵀ K (V − 11ᵀ/N) K α / αᵀ (K (I − V) K + σ² I) α,  σ² = r·tr(K (I − V) K)/N,
//
// V the block-diagonal class-averaging matrix (1/N_c within class c). The
// between-class matrix is G Gᵀ with G = K M, M's column c the centred
// indicator √N_c (1_c/N_c − 1/N), so the r <= C − 1 directions are
// α = B⁻¹ G β/√λ for the eigenpairs (λ, β) of the C x C matrix Gᵀ B⁻¹ G
// (B = K (I − V) K + σ² I, by Cholesky), those with λ > 1e-10 λ_max:
// scaled so that αᵀ B α = 1. Predictions for grid[g] go to
// pred[g*len(test)+t].
func gdaPredict(p *Pairs, train, cls []int, nc int, grid []float64, test, pred []int, w *gdaWork) error {
	nt := len(test)
	return gdaFit(p, train, cls, nc, grid, w, func(g int, m *gdaModel) {
		m.classify(p, test, pred[g*nt:(g+1)*nt], w)
	})
}

// gdaModel is a trained GDA classifier: the training samples (sample
// indices of the table) and their compact classes, the r directions α (N x
// r) and the training projections Z = K α (N x r); with r = 0 every
// sample gets class.
type gdaModel struct {
	train, cls []int
	r          int
	class      int
	alpha, ztr []float64
}

// predict is classify with w's GDA scratch.
func (m *gdaModel) predict(p *Pairs, test, pred []int, w *work) { m.classify(p, test, pred, &w.gda) }

// classify writes the class of test[t] to pred[t]: the class of the nearest
// training projection (Euclidean, ties to the lower position) to the test
// sample's projection kᵀα (k its normalised kernel against the training
// samples).
func (m *gdaModel) classify(p *Pairs, test, pred []int, w *gdaWork) {
	n, nt, r := len(m.train), len(test), m.r
	if r == 0 {
		for t := range nt {
			pred[t] = m.class
		}
		return
	}
	w.kt = grow(w.kt, n*nt)
	for a, i := range m.train {
		for b, j := range test {
			w.kt[a*nt+b] = p.normKernel(i, j)
		}
	}
	w.zte = grow(w.zte, nt*r)
	kernels.AtB(w.zte, r, w.kt, nt, m.alpha, r, n, nt, r)
	for t := range nt {
		zq := w.zte[t*r : t*r+r]
		best, bd := 0, math.Inf(1)
		for a := range n {
			za := m.ztr[a*r : a*r+r]
			var dd float64
			for j, v := range zq {
				e := v - za[j]
				dd += float64(e * e)
			}
			if dd < bd {
				best, bd = a, dd
			}
		}
		pred[t] = m.cls[best]
	}
}

// gdaKeep fits GDA with regularisation reg (gdaFit for one value) and
// returns the model with its own memory.
func gdaKeep(p *Pairs, train, cls []int, nc int, reg float64, w *gdaWork) (*gdaModel, error) {
	var out *gdaModel
	err := gdaFit(p, train, cls, nc, []float64{reg}, w, func(_ int, m *gdaModel) {
		c := *m
		c.alpha, c.ztr = slices.Clone(m.alpha), slices.Clone(m.ztr)
		out = &c
	})
	return out, err
}

// gdaFit computes the GDA directions (see gdaPredict) on the samples train
// (compact classes cls) for every regularisation of grid and hands each
// model to emit (its slices are w's, valid until emit returns).
func gdaFit(p *Pairs, train, cls []int, nc int, grid []float64, w *gdaWork, emit func(g int, m *gdaModel)) error {
	n := len(train)
	if n > MaxGDATrain {
		return fmt.Errorf("baseline: %w: GDA on %d training samples, at most %d (it needs 32 N² bytes)", ErrData, n, MaxGDATrain)
	}
	// Classes present, in order, and each sample's column.
	col := make([]int, nc)
	for i := range col {
		col[i] = -1
	}
	var classes []int
	count := make([]int, nc)
	for _, c := range cls {
		count[c]++
	}
	for c, k := range count {
		if k > 0 {
			col[c] = len(classes)
			classes = append(classes, c)
		}
	}
	nC := len(classes)
	if nC == 1 {
		for g := range grid {
			emit(g, &gdaModel{train: train, cls: cls, class: classes[0]})
		}
		return nil
	}
	w.k = grow(w.k, n*n)
	for a, i := range train {
		for b, j := range train {
			w.k[a*n+b] = p.normKernel(i, j)
		}
	}
	// Q = (I − V) K: each row minus its class's mean row.
	w.q = grow(w.q, n*n)
	copy(w.q, w.k[:n*n])
	mean := make([]float64, nC*n) // class mean rows
	for a, c := range cls {
		row, m := w.k[a*n:a*n+n], mean[col[c]*n:col[c]*n+n]
		for b, v := range row {
			m[b] += v
		}
	}
	for ci, c := range classes {
		inv := 1 / float64(count[c])
		for b := range mean[ci*n : ci*n+n] {
			mean[ci*n+b] *= inv
		}
	}
	for a, c := range cls {
		row, m := w.q[a*n:a*n+n], mean[col[c]*n:col[c]*n+n]
		for b := range row {
			row[b] -= m[b]
		}
	}
	// W = Kᵀ Q (K is symmetric), symmetrised.
	w.w = grow(w.w, n*n)
	kernels.AtB(w.w, n, w.k, n, w.q, n, n, n, n)
	var tr float64
	for a := range n {
		for b := a + 1; b < n; b++ {
			v := 0.5 * (w.w[a*n+b] + w.w[b*n+a])
			w.w[a*n+b], w.w[b*n+a] = v, v
		}
		tr += w.w[a*n+a]
	}
	sc := tr / float64(n)
	if !(sc > 0) {
		sc = 1 // no within-class scatter (classes of one sample each)
	}
	// M and G = K M.
	w.m = grow(w.m, n*nC)
	for a, c := range cls {
		for ci, cc := range classes {
			size := float64(count[cc])
			v := -1 / float64(n)
			if cc == c {
				v += 1 / size
			}
			w.m[a*nC+ci] = math.Sqrt(size) * v
		}
	}
	w.g = grow(w.g, n*nC)
	kernels.AB(w.g, nC, w.k, n, w.m, nC, n, n, nC)
	w.x = grow(w.x, n*nC)
	w.b = grow(w.b, n*n)
	w.s = grow(w.s, nC*nC)
	w.vec = grow(w.vec, nC*nC)
	lam := make([]float64, nC)
	for gi, reg := range grid {
		copy(w.b, w.w[:n*n])
		sigma2 := reg * sc
		for a := range n {
			w.b[a*n+a] += sigma2
		}
		if err := cholesky(w.b, n); err != nil {
			return fmt.Errorf("baseline: GDA with regularisation %g: %w", reg, err)
		}
		copy(w.x, w.g[:n*nC])
		cholSolve(w.b, n, w.x, nC)
		kernels.AtB(w.s, nC, w.g, nC, w.x, nC, n, nC, nC)
		for a := range nC {
			for b := a + 1; b < nC; b++ {
				v := 0.5 * (w.s[a*nC+b] + w.s[b*nC+a])
				w.s[a*nC+b], w.s[b*nC+a] = v, v
			}
		}
		if err := symEigen(w.s, nC, lam, w.vec); err != nil {
			return fmt.Errorf("baseline: GDA: %w", err)
		}
		r := 0
		for r < nC-1 && lam[r] > 1e-10*lam[0] && lam[r] > 0 {
			r++
		}
		if r == 0 {
			emit(gi, &gdaModel{train: train, cls: cls, class: cls[0]})
			continue
		}
		// β: the first r eigenvectors (columns of vec), each over √λ.
		w.beta = grow(w.beta, nC*r)
		for a := range nC {
			for j := range r {
				w.beta[a*r+j] = w.vec[a*nC+j] / math.Sqrt(lam[j])
			}
		}
		w.alpha = grow(w.alpha, n*r)
		kernels.AB(w.alpha, r, w.x, nC, w.beta, r, n, nC, r)
		w.ztr = grow(w.ztr, n*r)
		kernels.AB(w.ztr, r, w.k, n, w.alpha, r, n, n, r)
		emit(gi, &gdaModel{train: train, cls: cls, r: r, alpha: w.alpha, ztr: w.ztr})
	}
	return nil
}

// errNotPD: the regularised within-class scatter is not positive definite
// to working precision.
var errNotPD = fmt.Errorf("%w: scatter matrix not positive definite", ErrData)

// cholesky factorises the symmetric positive definite n x n matrix a
// (row-major, lower triangle read) in place into L (lower triangle, a =
// L Lᵀ); the upper triangle is left as it was.
func cholesky(a []float64, n int) error {
	for j := range n {
		rj := a[j*n : j*n+j]
		d := a[j*n+j]
		for _, v := range rj {
			d -= float64(v * v)
		}
		if !(d > 0) {
			return errNotPD
		}
		d = math.Sqrt(d)
		a[j*n+j] = d
		for i := j + 1; i < n; i++ {
			ri := a[i*n : i*n+j]
			s := a[i*n+j]
			for k, v := range ri {
				s -= float64(v * rj[k])
			}
			a[i*n+j] = s / d
		}
	}
	return nil
}

// cholSolve overwrites the n x m matrix x (row-major) with (L Lᵀ)⁻¹ x, L
// the lower triangle of l (cholesky's result).
func cholSolve(l []float64, n int, x []float64, m int) {
	// L y = x, rows in order.
	for i := range n {
		xi := x[i*m : i*m+m]
		for k := range i {
			lik := l[i*n+k]
			xk := x[k*m : k*m+m]
			for c := range xi {
				xi[c] -= float64(lik * xk[c])
			}
		}
		inv := l[i*n+i]
		for c := range xi {
			xi[c] /= inv
		}
	}
	// Lᵀ z = y, rows in reverse.
	for i := n - 1; i >= 0; i-- {
		xi := x[i*m : i*m+m]
		for k := i + 1; k < n; k++ {
			lki := l[k*n+i]
			xk := x[k*m : k*m+m]
			for c := range xi {
				xi[c] -= float64(lki * xk[c])
			}
		}
		inv := l[i*n+i]
		for c := range xi {
			xi[c] /= inv
		}
	}
}

// symEigen computes the eigenvalues (descending, into lam) and eigenvectors
// (columns of vec, n x n row-major) of the symmetric n x n matrix a by
// cyclic Jacobi rotations; a is overwritten. It fails with
// svd.ErrNoConvergence after svd.MaxSweeps sweeps.
func symEigen(a []float64, n int, lam, vec []float64) error {
	clear(vec[:n*n])
	for i := range n {
		vec[i*n+i] = 1
	}
	for sweep := 0; ; sweep++ {
		var off, diag float64
		for i := range n {
			for j := range n {
				if i != j {
					off += float64(a[i*n+j] * a[i*n+j])
				} else {
					diag += float64(a[i*n+j] * a[i*n+j])
				}
			}
		}
		if !(off > 1e-30*diag) || off == 0 {
			break
		}
		if sweep == svd.MaxSweeps {
			return svd.ErrNoConvergence
		}
		for p := range n {
			for q := p + 1; q < n; q++ {
				apq := a[p*n+q]
				if apq == 0 {
					continue
				}
				theta := (a[q*n+q] - a[p*n+p]) / (2 * apq)
				t := 1 / (math.Abs(theta) + math.Sqrt(1+float64(theta*theta)))
				if theta < 0 {
					t = -t
				}
				c := 1 / math.Sqrt(1+float64(t*t))
				s := t * c
				// A ← Jᵀ A J on rows and columns p, q; V ← V J.
				for k := range n {
					akp, akq := a[k*n+p], a[k*n+q]
					a[k*n+p] = float64(c*akp) - float64(s*akq)
					a[k*n+q] = float64(s*akp) + float64(c*akq)
				}
				for k := range n {
					apk, aqk := a[p*n+k], a[q*n+k]
					a[p*n+k] = float64(c*apk) - float64(s*aqk)
					a[q*n+k] = float64(s*apk) + float64(c*aqk)
				}
				for k := range n {
					vkp, vkq := vec[k*n+p], vec[k*n+q]
					vec[k*n+p] = float64(c*vkp) - float64(s*vkq)
					vec[k*n+q] = float64(s*vkp) + float64(c*vkq)
				}
			}
		}
	}
	// Sort descending (selection sort of the columns; n is small).
	for i := range n {
		lam[i] = a[i*n+i]
	}
	for i := range n {
		best := i
		for j := i + 1; j < n; j++ {
			if lam[j] > lam[best] {
				best = j
			}
		}
		if best != i {
			lam[i], lam[best] = lam[best], lam[i]
			for k := range n {
				vec[k*n+i], vec[k*n+best] = vec[k*n+best], vec[k*n+i]
			}
		}
	}
	return nil
}
