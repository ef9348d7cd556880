package svd

import (
	"errors"
	"fmt"
	"math"

	"github.com/grlgq/grlgq/internal/numerr"
	"github.com/grlgq/grlgq/kernels"
)

// ErrNotFinite is returned (wrapped) when the input has a NaN or an infinite
// entry. It is detected before any iteration, so no output is written. It
// is the module's one "not finite" sentinel: the same value as
// linalg.ErrNotFinite, engine.ErrNotFinite, subspace.ErrNotFinite and
// model.ErrNotFinite.
var ErrNotFinite = numerr.ErrNotFinite

// errNotFinite is what the methods return: ErrNotFinite with this
// package's context, made once so that returning it allocates nothing.
var errNotFinite = fmt.Errorf("svd: %w in matrix", ErrNotFinite)

// ErrNoConvergence is returned when the Jacobi iteration has not converged
// after MaxSweeps sweeps. It has never been observed on finite input; it
// exists so that no input can make a call loop forever.
var ErrNoConvergence = errors.New("svd: Jacobi iteration did not converge")

// PanicShape is the panic value for programmer errors: a size out of range,
// a stride smaller than the row length, or a slice too short for its shape.
const PanicShape = "svd: dimension mismatch"

// MaxSmall is the largest n accepted by NewSmall and NewBatch (and the
// largest number of columns for which Tall uses the fast small SVD).
const MaxSmall = 64

// MaxTall is the largest number of columns accepted by NewTall (an image set
// of up to MaxTall images, or of more images than pixels with D <= MaxTall).
// Above MaxSmall the small SVD of the triangular factor runs the pure-Go
// Jacobi iteration, whose cost grows as cols³ per sweep.
const MaxTall = 512

// MaxSweeps is the number of Jacobi sweeps after which ErrNoConvergence is
// returned. A d x d problem converges in 6-10 sweeps.
const MaxSweeps = 60

// eps is the machine epsilon 2^-52.
const eps = 0x1p-52

// tolerance returns the convergence threshold of the one-sided Jacobi
// iteration on n columns: a pair (x, y) is rotated only when
// |x·y| > tol ‖x‖ ‖y‖. The floor of 8 eps keeps rounding noise in the dot
// products (a few eps for tiny n) from causing endless rotations.
func tolerance(n int) float64 {
	return float64(max(n, 8)) * eps
}

// Small is the reusable workspace for the SVD of an n x n matrix.
// It is not safe for concurrent use.
type Small struct {
	n     int
	g     []float64 // n x n, row i = column i of the (scaled, rotated) matrix
	v     []float64 // n x n, row i = column i of V
	sv    []float64 // column norms of g
	perm  []int     // sorting permutation
	pairs []int32   // round-robin pair order of one sweep (p0, q0, p1, q1, ...)
	rowE  []float64 // completion: squared row norms of the accepted U columns
	tol   float64
	asm   *smallAsm    // nil unless the AVX-512 kernel handles this n
	f32   *small32Asm  // nil unless the float32 AVX-512 kernel handles this n (Factorize32)
	f32x2 *small32AVX2 // nil unless the float32 AVX2 kernel handles this n (Factorize32)
	avx2  *batchAVX2   // nil unless the AVX2 kernel handles this n
	batch *Batch       // FactorizeValues' Batch.Values where its kernel is not Factorize's (made at first use)
}

// NewSmall returns the workspace for n x n matrices, 1 <= n <= MaxSmall.
func NewSmall(n int) *Small {
	if n < 1 || n > MaxSmall {
		panic(PanicShape)
	}
	return newSmall(n)
}

// newSmall is NewSmall without the MaxSmall limit (Tall uses it for its
// triangular factor, up to MaxTall).
func newSmall(n int) *Small {
	w := &Small{
		n:     n,
		g:     make([]float64, n*n),
		v:     make([]float64, n*n),
		sv:    make([]float64, n),
		perm:  make([]int, n),
		pairs: roundRobin(n),
		rowE:  make([]float64, n),
		tol:   tolerance(n),
	}
	if useAVX512Possible {
		w.initAsm()
		w.avx2 = newSmallAVX2(n, w.pairs)
		w.f32 = newSmall32Asm(n)
		w.f32x2 = newSmall32AVX2(n, 1)
	}
	return w
}

// run runs the Jacobi iteration on w.g (rows = the scaled columns) and, if
// withV, on w.v, which it first sets to I. It returns false if the
// iteration did not converge.
func (w *Small) run(withV bool, negl float64) bool {
	n := w.n
	if useAVX512 && w.asm != nil {
		return w.jacobiAsm(withV, negl)
	}
	if useAVX2 && w.avx2 != nil {
		return w.jacobiAVX2(withV, negl)
	}
	if !withV {
		return jacobi(w.g, n, nil, 0, n, n, w.pairs, w.tol, negl)
	}
	setIdentity(w.v, n, n)
	return jacobi(w.g, n, w.v, n, n, n, w.pairs, w.tol, negl)
}

// N returns the order of the matrices this workspace handles.
func (w *Small) N() int { return w.n }

// checkFactors panics with PanicShape unless a, u and v hold n x n
// matrices at their strides and s n values (Factorize's arguments).
func checkFactors(n int, u []float64, ldu int, s []float64, v []float64, ldv int, a []float64, lda int) {
	checkSquare(n, a, lda)
	checkSquare(n, u, ldu)
	checkSquare(n, v, ldv)
	if len(s) < n {
		panic(PanicShape)
	}
}

func checkSquare(n int, a []float64, lda int) {
	if lda < n || len(a) < (n-1)*lda+n {
		panic(PanicShape)
	}
}

// Values writes the n singular values of the n x n matrix a (row stride lda)
// into s[:n], in descending order. a is not modified; s must not alias a.
// Allocation-free.
func (w *Small) Values(s []float64, a []float64, lda int) error {
	n := w.n
	checkSquare(n, a, lda)
	if len(s) < n {
		panic(PanicShape)
	}
	if useAVX512 && w.asm != nil {
		return w.valuesAsm(s, a, lda)
	}
	e, ok := loadTransposed(w.g, n, a, lda, n, n)
	if !ok {
		return errNotFinite
	}
	if !w.run(false, negligible(w.g, n, n, n)) {
		return ErrNoConvergence
	}
	columnNorms(w.sv, w.g, n, n, n)
	sortDescending(w.perm, w.sv)
	for j, p := range w.perm {
		s[j] = ldexp(w.sv[p], e)
	}
	return nil
}

// Factorize computes A = U diag(s) Vᵀ of the n x n matrix a (row stride lda):
// U and V are n x n orthogonal (row-major, strides ldu and ldv), s[:n] is
// descending. With A = Pᵀ W these are Q_P, cos θ and Q_W of the paper.
// a is not modified; u, s and v must not alias a or each other.
// Columns of U that belong to zero or negligible singular values (below
// 2^-60 ‖A‖_F) are completed to an orthonormal basis.
// Allocation-free.
func (w *Small) Factorize(u []float64, ldu int, s []float64, v []float64, ldv int, a []float64, lda int) error {
	n := w.n
	checkFactors(n, u, ldu, s, v, ldv, a, lda)
	if useAVX512 && w.asm != nil {
		return w.factorizeAsm(u, ldu, s, v, ldv, a, lda)
	}
	e, ok := loadTransposed(w.g, n, a, lda, n, n)
	if !ok {
		return errNotFinite
	}
	negl := negligible(w.g, n, n, n)
	if !w.run(true, negl) {
		return ErrNoConvergence
	}
	w.finish(u, ldu, s, v, ldv, e, finishNegl(negl))
	return nil
}

// ldexp is math.Ldexp(v, e) with its bits: for |e| <= 1022, 2^e is a
// normal float64 and v·2^e rounded once is what Ldexp returns too (its
// subnormal results are rounded once, correctly); one multiplication
// instead of a call that takes v apart.
func ldexp(v float64, e int) float64 {
	if e >= -1022 && e <= 1022 {
		return v * math.Float64frombits(uint64(e+1023)<<52)
	}
	return math.Ldexp(v, e)
}

// finishNegl is the negligible threshold finish takes after a float64
// Jacobi run whose own threshold was negl: a little above it, so that a
// column the run left alone as negligible (never rotated against the
// others: its squared norm as the run summed it at most negl, as finish
// sums it within about 2n·2^-53 of that) is one finish completes, never
// one it normalises as it is, unorthogonalised (which gave ‖UᵀU − I‖ up
// to 0.6: TestFactorizeNegligibleEdge). A column between the two
// thresholds was rotated and is completed instead, which is as accurate.
// The float32 kernels' is finishNegl32.
func finishNegl(negl float64) float64 { return negl * (1 + 0x1p-40) }

// finish turns the converged g (rows = columns of U Σ) and v (rows =
// columns of V) into sorted, scaled-back outputs.
// Columns with squared norm <= negl are completed.
func (w *Small) finish(u []float64, ldu int, s []float64, v []float64, ldv int, e int, negl float64) {
	n := w.n
	columnNorms(w.sv, w.g, n, n, n)
	sortDescending(w.perm, w.sv)
	cut := math.Sqrt(negl)
	for j, p := range w.perm {
		sj := w.sv[p]
		s[j] = ldexp(sj, e)
		vr := w.v[p*n : p*n+n]
		for r, x := range vr {
			v[r*ldv+j] = x
		}
		gr := w.g[p*n : p*n+n]
		if sj > cut {
			inv := 1 / sj
			for r, x := range gr {
				u[r*ldu+j] = x * inv
			}
		} else {
			// Marked for completion below.
			for r := range gr {
				u[r*ldu+j] = 0
			}
		}
	}
	complete(u, ldu, n, n, w.sv, w.perm, cut, w.rowE)
}

// complete fills the columns j of the rows x n matrix u whose singular value
// w.sv[perm[j]] is negligible with unit vectors orthogonal to all other
// columns (Gram-Schmidt, twice, on the unit vector e_k least covered by the
// columns already present).
func complete(u []float64, ldu int, rows, n int, sv []float64, perm []int, cut float64, rowE []float64) {
	first := -1
	for j, p := range perm {
		if !(sv[p] > cut) {
			first = j
			break
		}
	}
	if first < 0 {
		return
	}
	// Columns are sorted, so columns first..n-1 are all negligible.
	rowE = rowE[:rows]
	for r := range rowE {
		var t float64
		ur := u[r*ldu : r*ldu+first]
		for _, x := range ur {
			t += float64(x * x)
		}
		rowE[r] = t
	}
	for j := first; j < n; j++ {
		k := 0
		for r, t := range rowE {
			if t < rowE[k] {
				k = r
			}
		}
		for r := 0; r < rows; r++ {
			u[r*ldu+j] = 0
		}
		u[k*ldu+j] = 1
		for pass := 0; pass < 2; pass++ {
			for i := 0; i < j; i++ {
				var d float64
				for r := 0; r < rows; r++ {
					d += float64(u[r*ldu+i] * u[r*ldu+j])
				}
				for r := 0; r < rows; r++ {
					u[r*ldu+j] -= float64(d * u[r*ldu+i])
				}
			}
		}
		var nn float64
		for r := 0; r < rows; r++ {
			nn += float64(u[r*ldu+j] * u[r*ldu+j])
		}
		inv := 1 / math.Sqrt(nn)
		for r := 0; r < rows; r++ {
			x := u[r*ldu+j] * inv
			u[r*ldu+j] = x
			rowE[r] += float64(x * x)
		}
	}
}

// loadTransposed checks that the rows x cols matrix a is finite and writes
// its transpose, scaled by 2^-e, into g (cols x rows, stride ldg). The
// exponent e is chosen so that the largest entry of the scaled matrix lies
// in [0.5, 1): squared column norms then neither overflow nor underflow for
// any input between the smallest normal and the largest float64.
// It returns e and false if a has a NaN or Inf.
func loadTransposed(g []float64, ldg int, a []float64, lda int, rows, cols int) (int, bool) {
	amax, bad := scanMax(a, rows, cols, lda)
	if bad {
		return 0, false
	}
	e := 0
	if amax > 0 {
		_, e = math.Frexp(amax)
	}
	if e > -1000 && e < 1000 {
		scale := math.Ldexp(1, -e)
		for r := 0; r < rows; r++ {
			ar := a[r*lda : r*lda+cols]
			for c, x := range ar {
				g[c*ldg+r] = x * scale
			}
		}
	} else {
		// 2^-e is not representable: scale entry by entry.
		for r := 0; r < rows; r++ {
			ar := a[r*lda : r*lda+cols]
			for c, x := range ar {
				g[c*ldg+r] = math.Ldexp(x, -e)
			}
		}
	}
	return e, true
}

// scanMax returns the largest |entry| of the rows x cols matrix m (row
// stride lda), and whether an entry is NaN or ±Inf. The magnitudes are compared
// as integers (the bits of a non-negative float64 order as its value; NaN
// and Inf above every finite one): no branch, no floating-point chain.
func scanMax(m []float64, rows, cols, lda int) (amax float64, bad bool) {
	const abs, inf = 1<<63 - 1, 0x7ff << 52
	var b0, b1 uint64
	for r := 0; r < rows; r++ {
		row := m[r*lda : r*lda+cols]
		i := 0
		for ; i+2 <= len(row); i += 2 {
			b0 = max(b0, math.Float64bits(row[i])&abs)
			b1 = max(b1, math.Float64bits(row[i+1])&abs)
		}
		if i < len(row) {
			b0 = max(b0, math.Float64bits(row[i])&abs)
		}
	}
	b := max(b0, b1)
	return math.Float64frombits(b), b >= inf
}

// setIdentity sets the n x n matrix v (stride ld) to I.
func setIdentity(v []float64, ld, n int) {
	for i := 0; i < n; i++ {
		vr := v[i*ld : i*ld+n]
		for j := range vr {
			vr[j] = 0
		}
		vr[i] = 1
	}
}

// columnNorms writes the Euclidean norms of the n rows (length m, stride ld)
// of g into sv.
func columnNorms(sv []float64, g []float64, ld, n, m int) {
	for i := 0; i < n; i++ {
		sv[i] = math.Sqrt(dot(g[i*ld:i*ld+m], g[i*ld:i*ld+m]))
	}
}

// sortValues sorts sv descending (insertion sort: n <= 64).
func sortValues(sv []float64) {
	for i := 1; i < len(sv); i++ {
		v := sv[i]
		j := i
		for ; j > 0 && sv[j-1] < v; j-- {
			sv[j] = sv[j-1]
		}
		sv[j] = v
	}
}

// sortDescending sets perm to the permutation that sorts sv descending
// (stable insertion sort: n <= 64).
func sortDescending(perm []int, sv []float64) {
	perm = perm[:len(sv)]
	for i := range perm {
		perm[i] = i
	}
	for i := 1; i < len(perm); i++ {
		p := perm[i]
		x := sv[p]
		j := i
		for ; j > 0 && sv[perm[j-1]] < x; j-- {
			perm[j] = perm[j-1]
		}
		perm[j] = p
	}
}

// dot is Σ x[i]*y[i] without FMA fusion and without assembly, so that the
// pure-Go paths give the same bits on every CPU.
func dot(x, y []float64) float64 { return kernels.DotGeneric(x, y) }
