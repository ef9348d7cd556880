package linalg

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/grlgq/grlgq/kernels"
)

// ErrRankDeficient is returned (wrapped in a *RankError) when a column is
// numerically in the span of the columns before it.
var ErrRankDeficient = errors.New("linalg: rank deficient")

// DefaultTol is the default relative tolerance of rank-deficiency detection:
// column j is rejected when its norm after both projections is at most
// DefaultTol times its norm before them. CGS2 computes that residual to
// about 1e-15 relative, and a matrix of condition κ has every ratio >= 1/κ,
// so inputs up to κ ≈ 1e11 pass.
const DefaultTol = 1e-12

// RankError reports the first column found in the span of the ones before
// it. errors.Is(err, ErrRankDeficient) holds.
type RankError struct {
	Col   int     // zero-based column index
	Ratio float64 // ‖column after projection‖ / ‖column before‖
}

func (e *RankError) Error() string {
	return fmt.Sprintf("linalg: rank deficient: column %d is in the span of the columns before it (residual ratio %.3g)", e.Col, e.Ratio)
}

// Unwrap returns ErrRankDeficient.
func (e *RankError) Unwrap() error { return ErrRankDeficient }

// Orthonormalizer orthonormalises rows x cols matrices (rows >= cols) by
// classical Gram–Schmidt applied twice (CGS2), column by column, giving the
// same Q as a Householder QR up to the signs of its columns: column j of the
// result spans the same space with columns 0..j-1 as column j of the input.
// It owns its workspace: calls allocate nothing (except the error value on
// failure). An Orthonormalizer must not be used concurrently.
type Orthonormalizer struct {
	// Tol is the relative tolerance of rank-deficiency detection (see
	// DefaultTol); NewOrthonormalizer sets it to DefaultTol.
	Tol float64

	rows, cols int
	ldt        int       // stride of the transposed workspace, a multiple of 8
	t          []float64 // cols x ldt: column j of the matrix at t[j*ldt:]
	h          []float64 // projection coefficients
	y          []float64 // Q h
}

// NewOrthonormalizer returns a workspace for rows x cols matrices.
func NewOrthonormalizer(rows, cols int) *Orthonormalizer {
	if rows < 0 || cols < 0 {
		panic(errNegative)
	}
	if cols > rows {
		panic("linalg: more columns than rows cannot be orthonormal")
	}
	ldt := kernels.Stride(rows)
	return &Orthonormalizer{
		Tol:  DefaultTol,
		rows: rows, cols: cols,
		ldt: ldt,
		t:   AlignedSlice(cols * ldt),
		h:   make([]float64, cols),
		y:   AlignedSlice(rows),
	}
}

// Orthonormalize replaces the columns of q by an orthonormal basis of their
// span (see Orthonormalizer). On error q is left unchanged.
func (o *Orthonormalizer) Orthonormalize(q *Dense) error { return o.OrthonormalizeTo(q, q) }

// OrthonormalizeTo writes into dst an orthonormal basis of the span of src's
// columns, column by column (see Orthonormalizer). dst may be src. On error
// dst is left unchanged.
func (o *Orthonormalizer) OrthonormalizeTo(dst, src *Dense) error {
	if src.Rows != o.rows || src.Cols != o.cols || !dst.SameShape(src) {
		panic(errShape)
	}
	n, ldt := o.rows, o.ldt
	t := o.t
	transposeIn(t, ldt, src)
	for j := 0; j < o.cols; j++ {
		x := t[j*ldt : j*ldt+n]
		nrm0 := math.Sqrt(kernels.Dot(x, x))
		if !(nrm0 > tiny && nrm0 < huge) {
			var err error
			if nrm0, err = rescale(x, j); err != nil {
				return err
			}
		}
		for pass := 0; pass < 2 && j > 0; pass++ {
			h := o.h[:j]
			for i := range h {
				h[i] = kernels.Dot(t[i*ldt:i*ldt+n], x)
			}
			// x -= Q h as y = Q h in one sweep over Q's columns (the rows of t),
			// then one subtraction: cheaper than j separate Axpy calls.
			kernels.AtX(o.y, t, ldt, h, j, n)
			kernels.Axpy(-1, o.y, x)
		}
		nrm := math.Sqrt(kernels.Dot(x, x))
		if !(nrm > o.Tol*nrm0) {
			return &RankError{Col: j, Ratio: nrm / nrm0}
		}
		kernels.Scale(1/nrm, x)
	}
	transposeOut(dst, t, ldt)
	return nil
}

// Norms between tiny and huge square without underflow or overflow.
const (
	tiny = 0x1p-450
	huge = 0x1p+450
)

// rescale handles a column whose norm is zero, non-finite, or outside
// [tiny, huge]: it returns ErrNotFinite for NaN/Inf, a RankError for a zero
// column, and otherwise scales x by a power of two (which changes no span)
// and returns its new norm.
func rescale(x []float64, j int) (float64, error) {
	if !finite(x) {
		for r, v := range x {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return 0, fmt.Errorf("%w: entry (%d, %d) is %v", ErrNotFinite, r, j, v)
			}
		}
	}
	var m float64
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	if m == 0 {
		return 0, &RankError{Col: j, Ratio: 0}
	}
	_, e := math.Frexp(m)
	kernels.Scale(math.Ldexp(1, -e), x)
	return math.Sqrt(kernels.Dot(x, x)), nil
}

// transposeIn copies the logical entries of a into t, column c of a to
// t[c*ldt : c*ldt+a.Rows]. Four rows at a time, so that each column of t
// receives 32 contiguous bytes per step.
func transposeIn(t []float64, ldt int, a *Dense) {
	cols, ld, n := a.Cols, a.Stride, a.Rows
	r := 0
	for ; r+4 <= n; r += 4 {
		r0 := a.Data[r*ld : r*ld+cols]
		r1 := a.Data[(r+1)*ld : (r+1)*ld+cols]
		r2 := a.Data[(r+2)*ld : (r+2)*ld+cols]
		r3 := a.Data[(r+3)*ld : (r+3)*ld+cols]
		for c := range r0 {
			o := c*ldt + r
			tt := t[o : o+4 : o+4]
			tt[0], tt[1], tt[2], tt[3] = r0[c], r1[c], r2[c], r3[c]
		}
	}
	for ; r < n; r++ {
		row := a.Data[r*ld : r*ld+cols]
		for c, v := range row {
			t[c*ldt+r] = v
		}
	}
}

// transposeOut is the inverse of transposeIn.
func transposeOut(a *Dense, t []float64, ldt int) {
	cols, ld, n := a.Cols, a.Stride, a.Rows
	r := 0
	for ; r+4 <= n; r += 4 {
		r0 := a.Data[r*ld : r*ld+cols]
		r1 := a.Data[(r+1)*ld : (r+1)*ld+cols]
		r2 := a.Data[(r+2)*ld : (r+2)*ld+cols]
		r3 := a.Data[(r+3)*ld : (r+3)*ld+cols]
		for c := range r0 {
			o := c*ldt + r
			tt := t[o : o+4 : o+4]
			r0[c], r1[c], r2[c], r3[c] = tt[0], tt[1], tt[2], tt[3]
		}
	}
	for ; r < n; r++ {
		row := a.Data[r*ld : r*ld+cols]
		for c := range row {
			row[c] = t[c*ldt+r]
		}
	}
}

// RandomOrthonormal fills dst with an orthonormal basis of the span of a
// Gaussian matrix drawn from rng (entries in row-major order), so the same
// seed gives the same basis. It allocates its workspace; use
// Orthonormalizer.Random in loops.
func RandomOrthonormal(dst *Dense, rng *rand.Rand) error {
	return NewOrthonormalizer(dst.Rows, dst.Cols).Random(dst, rng)
}

// Random is RandomOrthonormal with o's workspace.
func (o *Orthonormalizer) Random(dst *Dense, rng *rand.Rand) error {
	for r := 0; r < dst.Rows; r++ {
		row := dst.Row(r)
		for c := range row {
			row[c] = rng.NormFloat64()
		}
	}
	return o.Orthonormalize(dst)
}
