package svd

import (
	"math"
	"sync/atomic"
)

// gramScalarFallbacks counts the matrices of the AVX2 path certified by
// the scalar route instead (for the tests).
var gramScalarFallbacks atomic.Int64

// Gram is the workspace for enclosures of the squared singular values of
// many n x n matrices, by a route that costs a fraction of the Jacobi
// iteration: the Gram matrix G = AᵀA, its Householder reduction to a
// symmetric tridiagonal T, estimates of T's eigenvalues by the implicit
// QL iteration (root-free, on the squared off-diagonal), and Sturm counts
// that certify an interval around each estimate. It is not safe for
// concurrent use.
//
// What it guarantees (see Enclose for the proof): every exact squared
// singular value of the matrix as stored lies in its interval. How wide
// the intervals are is what the caller checks: near zero the squares lose
// the digits of the values (an error η in σ² is η/2σ in σ), so a caller
// that needs σ to full accuracy (angles near 90°, and σ near 1: angles
// near 0, where arccos magnifies) takes Batch.Values instead.
type Gram struct {
	n      int
	at     []float64    // n x n: row j = column j of the scaled matrix
	g      []float64    // n x n Gram matrix (lower triangle), then the reduction's workspace
	d, e   []float64    // tridiagonal: diagonal, subdiagonal (e[i] = T[i+1][i])
	e2     []float64    // squared subdiagonal (Sturm counts)
	qd, qe []float64    // the QL iteration's copies of d and of e² (its squares)
	w      []float64    // reduction: A22 v
	cl     []int        // certification: cluster boundaries
	avx2   [2]*gramAVX2 // nil unless the AVX2 kernels can run: two groups of 4
	ql8    []float64    // ql4AVX2's and ql8AVX2's scratch (the deflation thresholds tol² at 8.. and 40..)
	q16    *ql16Space   // the AVX-512 kernels' four groups of 8 and QL scratch: nil without
}

// NewGram returns the workspace for n x n matrices, 1 <= n <= MaxSmall.
func NewGram(n int) *Gram {
	if n < 1 || n > MaxSmall {
		panic(PanicShape)
	}
	w := &Gram{
		n:  n,
		at: make([]float64, n*n),
		g:  make([]float64, n*n),
		d:  make([]float64, n), e: make([]float64, n), e2: make([]float64, n),
		qd: make([]float64, n), qe: make([]float64, n),
		w:  make([]float64, n),
		cl: make([]int, n+1),
	}
	if g := newGramAVX2(n); g != nil {
		w.avx2 = [2]*gramAVX2{g, newGramAVX2(n)}
		w.avx2[1].shareDead(g)
		w.ql8 = make([]float64, 64)
		w.q16 = newQL16(n)
	}
	return w
}

// N returns the order of the matrices this workspace handles.
func (w *Gram) N() int { return w.n }

// ur is the unit roundoff u = 2^-53.
const ur = 0x1p-53

// gramTridiagConst is c in the bound ‖E‖_F <= c n² u ‖G‖_F of the
// Householder tridiagonalisation's backward error (see Enclose).
const gramTridiagConst = 8

// Enclose writes, for each of k n x n matrices (matrix i at a[i*step], row
// stride lda), bounds lo <= σ_j² <= hi on the squares of its exact singular
// values σ_1 >= ... >= σ_n into lo[i*ld+j] and hi[i*ld+j]. When the
// certification does not succeed (it needs the QL estimates to be within
// the tolerance of the Sturm counts, which has not been seen to fail on
// finite input) or the matrix's scale is beyond 2^±1000, its bounds are
// lo = 0, hi = +Inf. NaN and Inf entries give a *BatchError wrapping
// ErrNotFinite. Allocation-free.
//
// Proof of the enclosure. Let A be the matrix scaled by 2^-e (e from its
// largest entry, which then lies in [1/2, 1)); scaling by a power of two
// is exact except for entries that become subnormal, each then off by at
// most 2^-1075, which moves each σ by at most n·2^-1075 (a matrix of
// entries of that size has 2-norm at most n·2^-1075) and each σ² by at
// most 2n·(n·2^-1075) + (n·2^-1075)² < n²·2^-1070 (σ <= ‖A‖_F <= n).
//
//  1. Ĝ = fl(AᵀA), each entry one sum of rounded products: |Ĝ − AᵀA| <=
//     γ_n |A|ᵀ|A| + n·2^-1075 (γ_n = n u/(1 − n u); Higham, Accuracy and
//     Stability of Numerical Algorithms, 2nd ed., (3.5), with underflow),
//     so ‖Ĝ − AᵀA‖_2 <= ‖Ĝ − AᵀA‖_F <= γ_n ‖A‖_F² + n²·2^-1075, and by
//     Weyl's theorem each eigenvalue of Ĝ (sorted) is within that of the
//     same eigenvalue of AᵀA, σ_j².
//  2. The Householder reduction gives a tridiagonal T̂ that is an exact
//     orthogonal similarity of Ĝ + E, ‖E‖_F <= c n² u ‖Ĝ‖_F: n − 2
//     reflections, each applied from both sides, each with a backward
//     error of at most γ̃_m ‖·‖ per column of length m <= n (Higham,
//     Lemmas 19.2 and 19.3; the constant of γ̃ is small and not made
//     explicit there). c = gramTridiagConst = 8 is taken generously (the
//     largest error measured on the tests' hard matrices is far below it:
//     TestGramEnclose logs it); this is the one constant of the proof not
//     derived here. Weyl again: each eigenvalue of T̂ is within ‖E‖_2 of
//     Ĝ's.
//  3. T̂'s eigenvalues are enclosed a posteriori, whatever the accuracy of
//     the QL estimates μ̂: the Sturm count of T̂ at x, computed in
//     floating point with the recurrence q_1 = d_1 − x, q_i = (d_i − x) −
//     e_{i−1}²/q_{i−1} (a q of magnitude below pivmin replaced by
//     −pivmin), is the exact number of eigenvalues below x of a
//     tridiagonal T' whose entries differ from T̂'s by relative errors of
//     a few u (Kahan 1966; Demmel, Dhillon and Ren, 1995): |d'_i − d_i| <=
//     2u |d_i − x| + 2 pivmin and |e'_i − e_i| <= 2u |e_i|, so T̂'s
//     eigenvalues are within s(x) = 4u(max|d_i| + |x|) + 8u max|e_i| +
//     2 pivmin of T”s (Weyl; the bound is doubled for margin). If
//     count(L) <= a and count(U) >= b + 1 for the interval [L, U] of a
//     cluster of estimates a..b (ascending), then eigenvalues a..b of T'
//     lie in [L, U), hence those of T̂ in [L − s(L), U + s(U)].
//
// Together: σ_j² lies within ‖Ĝ − AᵀA‖_2 + ‖E‖_2 of eigenvalue n−1−j of
// T̂, which lies in its certified interval. The bounds computed here are
// made of upper bounds of each quantity (‖A‖_F² and ‖Ĝ‖_F from their
// computed sums enlarged by (1 + 4n u)), and the intervals are widened
// by 4u of their ends for the rounding of the sums that form them; σ² >= 0
// clamps the lower ends. Scaled back by 2^2e (exact).
func (w *Gram) Enclose(lo, hi []float64, ld int, a []float64, lda, step, k int) error {
	n := w.n
	if k < 0 || step < 0 || lda < n || (k > 1 && ld < n) {
		panic(PanicShape)
	}
	if k == 0 {
		return nil
	}
	if len(a) < (k-1)*step+(n-1)*lda+n {
		panic(PanicShape)
	}
	return w.encloseAll(lo, hi, ld, matrices{a: a, step: step}, lda, k)
}

// EncloseEach is Enclose on matrices given one by one: matrix i is
// mats[i] (n x n, row stride lda), its bounds at lo[i*ld:] and hi[i*ld:]
// (the matrices of a search need not lie at equal steps, and are not
// copied). The same bits as Enclose on copies of them.
func (w *Gram) EncloseEach(lo, hi []float64, ld int, mats [][]float64, lda int) error {
	n, k := w.n, len(mats)
	if lda < n || (k > 1 && ld < n) {
		panic(PanicShape)
	}
	if k == 0 {
		return nil
	}
	for _, m := range mats {
		if len(m) < (n-1)*lda+n {
			panic(PanicShape)
		}
	}
	return w.encloseAll(lo, hi, ld, matrices{list: mats}, lda, k)
}

// matrices says where the matrices of an Enclose or EncloseEach call lie:
// matrix i at a[i*step:], or list[i].
type matrices struct {
	a    []float64
	step int
	list [][]float64
}

// at returns matrix i.
func (m matrices) at(i int) []float64 {
	if m.list != nil {
		return m.list[i]
	}
	return m.a[i*m.step:]
}

// encloseAll is Enclose and EncloseEach after their checks of the
// matrices.
func (w *Gram) encloseAll(lo, hi []float64, ld int, m matrices, lda, k int) error {
	n := w.n
	if len(lo) < (k-1)*ld+n || len(hi) < (k-1)*ld+n {
		panic(PanicShape)
	}
	if useGramAVX2 && w.avx2[0] != nil {
		return w.encloseAVX2(lo, hi, ld, m, lda, k)
	}
	for i := 0; i < k; i++ {
		if !w.enclose(lo[i*ld:i*ld+n], hi[i*ld:i*ld+n], m.at(i), lda) {
			return &BatchError{Index: i, Err: errNotFinite}
		}
	}
	return nil
}

// enclose is Enclose for one matrix; it reports false for a NaN or Inf
// entry.
func (w *Gram) enclose(lo, hi []float64, a []float64, lda int) bool {
	n := w.n
	var amax float64
	for r := 0; r < n; r++ {
		for _, x := range a[r*lda : r*lda+n] {
			ax := math.Abs(x)
			if !(ax <= math.MaxFloat64) {
				return false
			}
			amax = max(amax, ax)
		}
	}
	if amax == 0 {
		clear(lo)
		clear(hi)
		return true
	}
	_, e := math.Frexp(amax)
	if e <= -1000 || e >= 1000 {
		trivial(lo, hi)
		return true
	}
	slack := gramSlack(n, w.gram(a, lda, math.Ldexp(1, -e)))
	w.tridiagonalize()
	if !w.certify(lo, hi, slack) {
		trivial(lo, hi)
		return true
	}
	s2 := math.Ldexp(1, 2*e)
	for j := range lo {
		lo[j] *= s2
		hi[j] *= s2
	}
	return true
}

// gram writes the lower triangle of G = AᵀA of the matrix a scaled by
// scale into w.g: column j of A first into row j of w.at, then each entry
// one chain of rounded products over the rows in order. It returns
// fl(‖A‖_F²) of the scaled matrix, the squares summed in one chain.
func (w *Gram) gram(a []float64, lda int, scale float64) float64 {
	n := w.n
	at := w.at
	for r := 0; r < n; r++ {
		for c, x := range a[r*lda : r*lda+n] {
			at[c*n+r] = x * scale
		}
	}
	var fro float64
	for _, x := range at[:n*n] {
		fro += float64(x * x)
	}
	g := w.g
	for i := 0; i < n; i++ {
		ai := at[i*n : i*n+n]
		for j := 0; j <= i; j++ {
			aj := at[j*n : j*n+n]
			var s float64
			for r, x := range ai {
				s += float64(x * aj[r])
			}
			g[i*n+j] = s
		}
	}
	return fro
}

// gramSlack is the sum of the bounds of Enclose's steps 1 and 2 for a
// scaled n x n matrix with fro = fl(‖A‖_F²) (one chain of n² squares):
// F = fro (1 + 2n² u) >= ‖A‖_F², ‖Ĝ − AᵀA‖_2 <= γ_n F + n²·2^-1075, and
// ‖Ĝ‖_F <= ‖AᵀA‖_F + γ_n F <= (1 + γ_n) F, so ‖E‖_2 <= c n² u (1 + γ_n) F;
// the total enlarged by (1 + 4n u) for its own rounding.
func gramSlack(n int, fro float64) float64 {
	nf := float64(n)
	F := fro * (1 + 2*nf*nf*ur)
	gamma := nf * ur / (1 - nf*ur)
	return (gamma*F + gramTridiagConst*nf*nf*ur*(1+gamma)*F + nf*nf*0x1p-1070) * (1 + 4*nf*ur)
}

// sturmSlack is s(x) of Enclose's step 3: the distance between the
// eigenvalues of T̂ and of the T' whose exact count the recurrence gives at
// x, doubled.
func sturmSlack(x, dmax, emax float64) float64 {
	return (4*ur*(dmax+math.Abs(x)) + 8*ur*emax + 2*pivmin) * 2
}

// The QL iteration's deflation threshold (relative to ‖T‖_F: setting such
// an entry to 0 moves an eigenvalue by at most that much, far within the
// certification's tolerance δ = 8n u ‖T‖_F) and iterations per
// eigenvalue; its estimates are certified afterwards, whatever their
// accuracy.
const (
	gramQLTol     = 0x1p-53
	gramQLMaxIter = 40
)

// trivial sets the bounds that say nothing: [0, +Inf).
func trivial(lo, hi []float64) {
	for j := range lo {
		lo[j], hi[j] = 0, math.Inf(1)
	}
}

// tridiagonalize reduces the symmetric matrix in w.g (lower triangle) to
// tridiagonal form w.d, w.e by Householder reflections H = I − τ v vᵀ
// (LAPACK's dsytd2, lower): for column k, v zeroes A[k+2:n, k], and the
// trailing block A22 becomes H A22 H = A22 − v zᵀ − z vᵀ with
// y = τ A22 v, z = y − (τ/2)(yᵀv) v.
func (w *Gram) tridiagonalize() {
	n := w.n
	a := w.g
	y := w.w
	for k := 0; k+2 < n; k++ {
		// x = A[k+1:n, k].
		alpha := a[(k+1)*n+k]
		var xs float64
		for r := k + 2; r < n; r++ {
			xs += float64(a[r*n+k] * a[r*n+k])
		}
		if xs == 0 {
			w.e[k] = alpha
			continue
		}
		beta := -math.Copysign(math.Sqrt(float64(alpha*alpha)+xs), alpha)
		tau := (beta - alpha) / beta
		inv := 1 / (alpha - beta)
		// v = [1, x[1:]·inv], stored over the column.
		for r := k + 2; r < n; r++ {
			a[r*n+k] = float64(a[r*n+k] * inv)
		}
		a[(k+1)*n+k] = 1
		w.e[k] = beta
		// y = τ A22 v over the lower triangle of A22 (rows, columns k+1..n-1).
		lo := k + 1
		for i := lo; i < n; i++ {
			var s float64
			for j := lo; j <= i; j++ {
				s += float64(a[i*n+j] * a[j*n+k])
			}
			for j := i + 1; j < n; j++ {
				s += float64(a[j*n+i] * a[j*n+k])
			}
			y[i] = float64(tau * s)
		}
		var yv float64
		for i := lo; i < n; i++ {
			yv += float64(y[i] * a[i*n+k])
		}
		h := float64(-0.5*tau) * yv
		for i := lo; i < n; i++ {
			y[i] += float64(h * a[i*n+k]) // z
		}
		for i := lo; i < n; i++ {
			vi, zi := a[i*n+k], y[i]
			for j := lo; j <= i; j++ {
				a[i*n+j] -= float64(vi*y[j]) + float64(zi*a[j*n+k])
			}
		}
	}
	for i := 0; i < n; i++ {
		w.d[i] = a[i*n+i]
	}
	if n >= 2 {
		w.e[n-2] = a[(n-1)*n+n-2]
	}
	w.e[n-1] = 0
}

// qlValues writes estimates of the eigenvalues of the tridiagonal (w.d,
// and w.e2, the squares of w.e, which certify has set) into w.qd, ascending, by the implicit QL iteration with Wilkinson
// shifts in the root-free form of Pal, Walker and Kahan (the iteration of
// LAPACK's dsterf, eigenvalues only): it carries the squares of the
// off-diagonal entries, so a step of the chase takes two divisions and no
// square root. An off-diagonal entry is deflated at |e| <= tol (e² <=
// tol²). It reports false if an eigenvalue did not converge in
// gramQLMaxIter iterations; the estimates need not be accurate (certify
// checks them).
func (w *Gram) qlValues(tol float64) bool {
	n := w.n
	d, e2 := w.qd, w.qe
	copy(d, w.d)
	copy(e2, w.e2)
	tol2 := tol * tol
	for l := 0; l < n; l++ {
		for iter := 0; ; iter++ {
			m := l
			for ; m < n-1; m++ {
				if e2[m] <= tol2 {
					break
				}
			}
			if m == l {
				break
			}
			if iter == gramQLMaxIter {
				return false
			}
			// The Wilkinson shift σ from the leading 2 x 2 block.
			rte := math.Sqrt(e2[l])
			g := (d[l+1] - d[l]) / (2 * rte)
			r := math.Hypot(g, 1)
			sigma := d[l] - rte/(g+math.Copysign(r, g))
			c, s := 1.0, 0.0
			gamma := d[m] - sigma
			p := gamma * gamma
			for i := m - 1; i >= l; i-- {
				bb := e2[i]
				r := p + bb
				if i != m-1 {
					e2[i+1] = s * r
				}
				oldc := c
				c = p / r
				s = bb / r
				oldgam := gamma
				alpha := d[i]
				gamma = float64(c*(alpha-sigma)) - float64(s*oldgam)
				d[i+1] = oldgam + (alpha - gamma)
				if c != 0 {
					p = float64(gamma*gamma) / c
				} else {
					p = oldc * bb
				}
			}
			e2[l] = s * p
			d[l] = sigma + gamma
			e2[m] = 0
		}
	}
	sortValues(d)
	// Ascending.
	for i, j := 0, n-1; i < j; i, j = i+1, j-1 {
		d[i], d[j] = d[j], d[i]
	}
	return true
}

// pivmin is the Sturm count's least pivot magnitude (scaled matrices have
// entries of magnitude at most n² <= 2^12: e²/pivmin cannot overflow).
const pivmin = 0x1p-900

// sturm returns the number of eigenvalues below x counted by the
// recurrence of Enclose's step 3.
func (w *Gram) sturm(x float64) int {
	d, e2 := w.d, w.e2
	q := d[0] - x
	if math.Abs(q) < pivmin {
		q = -pivmin
	}
	c := 0
	if q < 0 {
		c++
	}
	for i := 1; i < len(d); i++ {
		q = (d[i] - x) - e2[i-1]/q
		if math.Abs(q) < pivmin {
			q = -pivmin
		}
		if q < 0 {
			c++
		}
	}
	return c
}

// certify encloses the eigenvalues of the tridiagonal (w.d, w.e) around
// the QL estimates (Enclose's step 3), widens each enclosure by slack
// (steps 1 and 2) and writes σ_j² bounds (descending j) into lo and hi. It
// reports false if no enclosure was certified.
func (w *Gram) certify(lo, hi []float64, slack float64) bool {
	n := w.n
	var dmax, emax, tnorm float64
	for i := 0; i < n; i++ {
		dmax = max(dmax, math.Abs(w.d[i]))
		emax = max(emax, math.Abs(w.e[i]))
		w.e2[i] = float64(w.e[i] * w.e[i])
		tnorm += float64(w.d[i]*w.d[i]) + 2*float64(w.e[i]*w.e[i])
	}
	tnorm = math.Sqrt(tnorm)
	if !w.qlValues(gramQLTol * tnorm) {
		return false
	}
	mu := w.qd
	s := func(x float64) float64 { return sturmSlack(x, dmax, emax) }
	delta := 8*float64(n)*ur*tnorm + 0x1p-1000
	for attempt := 0; attempt < 4; attempt, delta = attempt+1, delta*64 {
		// Clusters: runs of estimates whose intervals overlap.
		nc := 0
		w.cl[0] = 0
		for i := 1; i < n; i++ {
			if mu[i]-delta > mu[i-1]+delta {
				nc++
				w.cl[nc] = i
			}
		}
		nc++
		w.cl[nc] = n
		ok := true
		for c := 0; c < nc && ok; c++ {
			a, b := w.cl[c], w.cl[c+1]-1
			L, U := mu[a]-delta, mu[b]+delta
			if w.sturm(L) > a || w.sturm(U) < b+1 {
				ok = false
				break
			}
			// The ends, rounded outwards: each sum of three terms is
			// within 2u of the sum of their magnitudes.
			sl, su := s(L)+slack, s(U)+slack
			l := (L - sl) - 4*ur*(math.Abs(L)+sl)
			h := (U + su) + 4*ur*(math.Abs(U)+su)
			for i := a; i <= b; i++ {
				lo[n-1-i], hi[n-1-i] = max(l, 0), h
			}
		}
		if ok {
			return true
		}
	}
	return false
}
