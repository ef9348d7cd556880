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
// classical Gram–Schmidt applied twice (CGS2), giving the same Q as a
// Householder QR up to the signs of its columns: column j of the result
// spans the same space with columns 0..j-1 as column j of the input.
//
// It works on a column-major copy, in panels of up to four columns (block
// CGS2, Barlow and Smoktunowicz's BCGS2): a panel P is projected on all the
// columns Q before it with the classical first-pass coefficients S1 = QᵀA
// (computed from the original columns as soon as each panel of Q is final),
// orthonormalised inside by CGS2, projected on Q again (P -= Q (QᵀP)) and,
// as that second projection leaves its columns orthonormal up to ‖QᵀP‖²,
// orthonormalised inside once more by one classical pass; that pass is
// skipped when ‖QᵀP̄‖² (P̄ with normalised columns) is at most 2^-60 for
// every column, as it then changes nothing at working precision (always
// the case for well-conditioned inputs; see cleanLoss). Every column is
// thus projected at least twice on every column before it; each pass over
// Q is shared by the four columns of a panel (kernels.ProjDots), the
// passes inside a panel load each of its columns once (kernels.PanelPass),
// and the pass that projects a panel also gives its Gram matrix, so the
// first column of a panel needs no pass of its own. The copy in gives the
// dots of the first column with all the others (kernels.TransposeDots: row
// 0 of the first panel's Gram matrix and of S1), and the copy out does the
// last panel's second projection when nothing follows it
// (kernels.ProjTransposeScaled).
//
// Accuracy: ‖QᵀQ − I‖_max stays at a few ε·sqrt(rows) whatever the
// condition of the input (below the rank tolerance): measured ≤ 2e-15 for
// 784 rows up to κ = 1e11, 8e-15 for 1e4 rows, 1.7e-14 for 1e5 and 8e-14
// for 1e6 rows (part of that is the rounding of the rows-term dot products
// that measure it).
//
// It owns its workspace: calls allocate nothing (except the error value on
// failure). An Orthonormalizer must not be used concurrently.
type Orthonormalizer struct {
	// Tol is the relative tolerance of rank-deficiency detection (see
	// DefaultTol); NewOrthonormalizer sets it to DefaultTol.
	Tol float64

	rows, cols int
	ldt        int       // stride of the transposed workspace, a multiple of 8
	t          []float64 // cols x ldt: column j of the matrix at t[j*ldt:]
	nrm0       []float64 // norms of the input columns (after rescaling)
	bad        error     // careful mode: error of column badAt, reported when it is reached
	badAt      int
	s1         []float64 // cols x cols: s1[i*cols+k] = z_iᵀ a_k / ν_i², i < k (update coefficients of S1 = QᵀA)
	h          []float64 // cols x panel: ZᵀP / ν² of a panel (stride panel)
	gram       []float64 // panel x panel: Gram matrix of a panel after a projection
	hp         []float64 // panel x panel: first-pass coefficients inside a panel
	h2         []float64 // panel: second-pass coefficients inside a panel
	g          []float64 // panel: norm and first-pass dots of a finished column
	nu         []float64 // cols: norms of the (unnormalised) final columns
	nu1        []float64 // panel: norms after a panel's first orthogonalisation
	inv        []float64 // cols: 1/nu, applied when transposing out
	row0       []float64 // cols: a_0 · a_k, from the transpose in
	lastProj   bool      // the last panel's second projection (coefficients in h) is left to the transpose out
}

// panel is the number of columns orthonormalised together (the widest
// kernels.ProjDots panel).
const panel = 4

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
		ldt:  ldt,
		t:    AlignedSlice(cols * ldt),
		nrm0: make([]float64, cols),
		s1:   make([]float64, cols*cols),
		h:    make([]float64, cols*panel),
		gram: make([]float64, panel*panel),
		hp:   make([]float64, panel*panel),
		h2:   make([]float64, panel),
		g:    make([]float64, panel),
		nu:   make([]float64, cols),
		nu1:  make([]float64, panel),
		inv:  make([]float64, cols),
		row0: make([]float64, cols),
	}
}

// Orthonormalize replaces the columns of q by an orthonormal basis of their
// span (see Orthonormalizer). On error q is left unchanged.
func (o *Orthonormalizer) Orthonormalize(q *Dense) error { return o.OrthonormalizeTo(q, q) }

// errCareful makes the fast attempt hand over to the careful one.
var errCareful = errors.New("linalg: careful path")

// OrthonormalizeTo writes into dst an orthonormal basis of the span of src's
// columns, column by column (see Orthonormalizer). dst may be src. On error
// dst is left unchanged.
//
// The first attempt takes the input norms from the panels' Gram matrices
// (‖a‖² = ‖a − Q S1‖² + ‖S1‖²). If a norm is zero, non-finite or outside
// [2^-450, 2^450], it starts again carefully: norms first, such columns
// scaled by a power of two (no change of span), a zero or non-finite column
// reported when its turn comes, so that the first failing column is named.
func (o *Orthonormalizer) OrthonormalizeTo(dst, src *Dense) error {
	if src.Rows != o.rows || src.Cols != o.cols || !dst.SameShape(src) {
		panic(errShape)
	}
	kernels.TransposeDots(o.t, o.ldt, src.Data, src.Stride, src.Rows, src.Cols, o.row0)
	o.bad, o.badAt = nil, o.cols
	err := o.run(false)
	if err == errCareful {
		transposeIn(o.t, o.ldt, src)
		n := o.rows
		for j := 0; j < o.cols; j++ {
			x := o.t[j*o.ldt : j*o.ldt+n]
			nrm := math.Sqrt(kernels.Dot(x, x))
			if !(nrm > tiny && nrm < huge) {
				var err error
				if nrm, err = rescale(x, j); err != nil && o.bad == nil {
					o.bad, o.badAt = err, j
				}
			}
			o.nrm0[j] = nrm
		}
		err = o.run(true)
	}
	if err != nil {
		return err
	}
	for j, v := range o.nu {
		o.inv[j] = 1 / v
	}
	if o.lastProj {
		// The last panel's second projection, left to the transpose out.
		j0 := (o.cols - 1) / panel * panel
		b := o.cols - j0
		kernels.ProjTransposeScaled(dst.Data, dst.Stride, o.t, o.ldt, o.cols, o.rows, o.inv, j0, o.h[:j0*b])
	} else {
		kernels.TransposeScaled(dst.Data, dst.Stride, o.t, o.ldt, o.cols, o.rows, o.inv)
	}
	return nil
}

// run orthonormalises o.t panel by panel. careful says that o.nrm0 holds
// the input norms (and o.bad the first bad column); otherwise run takes
// them from the Gram matrices and returns errCareful on a bad one.
//
// The columns are never normalised in place: column j stays z_j, of norm
// ν_j = o.nu[j], and every coefficient that multiplies it in an update is
// divided by ν_j² (z_jᵀx/ν_j² z_j = q_jᵀx q_j). The transpose out applies
// 1/ν_j; when the pass inside the last panel after its second projection
// is skipped, that projection itself is left to the transpose out
// (o.lastProj, coefficients in o.h), which does it in the same pass.
func (o *Orthonormalizer) run(careful bool) error {
	n, ldt, d := o.rows, o.ldt, o.cols
	t, s1, gram, nu := o.t, o.s1, o.gram, o.nu
	o.lastProj = false
	for j0 := 0; j0 < d; j0 += panel {
		b := min(panel, d-j0)
		p := t[j0*ldt:]
		// First projection (with S1) and the dots of its first column
		// with the others (row 0 of the panel's Gram matrix).
		if j0 == 0 && !careful {
			copy(gram[:b], o.row0) // from the transpose in: z_0 = a_0
		} else {
			kernels.ProjDots(p, ldt, b, t, ldt, j0, s1[j0:], d, p, ldt, 1, gram, b, n)
		}
		if err := o.inPanel(p, b, j0, true, careful); err != nil {
			return err
		}
		if j0 > 0 {
			// Second projection: G = QᵀP, P -= Q G (and row 0 of the new
			// Gram matrix), then one classical pass inside the panel.
			h := o.h[:j0*b]
			kernels.ProjDots(p, ldt, b, nil, 0, 0, nil, 0, t, ldt, j0, h, b, n)
			// loss[c] = Σ_i (q_i · p_c)² / ‖p_c‖², ‖Qᵀ p̄_c‖² for the
			// normalised column.
			loss := o.h2[:b]
			clear(loss)
			for i := 0; i < j0; i++ {
				w := 1 / float64(nu[i]*nu[i])
				for c := 0; c < b; c++ {
					v := h[i*b+c]
					loss[c] += float64(v*v) * w
					h[i*b+c] = float64(v * w)
				}
			}
			clean := true
			for c := 0; c < b; c++ {
				loss[c] /= float64(nu[j0+c] * nu[j0+c])
				clean = clean && loss[c] <= cleanLoss
			}
			if clean {
				// The projection moves the panel's Gram matrix by at most
				// max loss (P̂ᵀP̂ = PᵀP − HᵀH), below rounding: the panel
				// stays orthogonal and its norms are those of the pass
				// before, so the pass inside it would change nothing. The
				// last panel is needed by nothing else: its projection is
				// done on the way out (kernels.ProjTransposeScaled, the
				// same bits).
				if j0+b == d {
					o.lastProj = true
				} else {
					kernels.ProjDots(p, ldt, b, t, ldt, j0, h, b, nil, 0, 0, nil, 0, n)
				}
			} else {
				kernels.ProjDots(p, ldt, b, t, ldt, j0, h, b, p, ldt, 1, gram, b, n)
				if err := o.inPanel(p, b, j0, false, true); err != nil {
					return err
				}
			}
		}
		// First-pass coefficients of the later columns on the new panel.
		for k := j0 + b; k < d; k += panel {
			if j0 == 0 && !careful {
				// Row 0 (z_0 = a_0) is in o.row0 already.
				copy(s1[k:k+min(panel, d-k)], o.row0[k:])
				if b > 1 {
					kernels.ProjDots(t[k*ldt:], ldt, min(panel, d-k), nil, 0, 0, nil, 0, p[ldt:], ldt, b-1, s1[d+k:], d, n)
				}
				continue
			}
			kernels.ProjDots(t[k*ldt:], ldt, min(panel, d-k), nil, 0, 0, nil, 0, p, ldt, b, s1[j0*d+k:], d, n)
		}
		for i := j0; i < j0+b; i++ {
			w := 1 / float64(nu[i]*nu[i])
			row := s1[i*d+j0+b : i*d+d]
			for k := range row {
				row[k] *= w
			}
		}
	}
	return nil
}

// inPanel orthonormalises the b columns of the panel p (columns j0.. of
// the matrix), column by column: by CGS2 when first is set, else (the
// panel is orthogonal up to the square of its last projection) by one
// classical pass. Column 0 takes its norm and the first-pass coefficients
// of the others from row 0 of the panel's Gram matrix (o.gram); the last
// pass over column c gives its norm (g[0]) and its dots with the panel's
// later columns. Unless haveNorms is set, the input norm of column c is
// recovered as that of its final residual and all the components removed
// by the first passes (‖a‖² = ‖z‖² + Σ S1² + Σ h1² + Σ h2², Pythagoras; the
// second projection on the previous panels removes only O(ε) more), and
// errCareful is returned if it is zero, non-finite or out of range.
func (o *Orthonormalizer) inPanel(p []float64, b, j0 int, first, haveNorms bool) error {
	n, ldt, d := o.rows, o.ldt, o.cols
	g, hp, h2, nu := o.g, o.hp, o.h2, o.nu
	for c := 0; c < b; c++ {
		j := j0 + c
		if first && j == o.badAt {
			return o.bad
		}
		var n2h float64 // Σ h2² of the second pass inside the panel
		switch {
		case c == 0:
			copy(g[:b], o.gram[:b]) // z_0 · z_k
		case first:
			kernels.PanelPass(p, ldt, b, c, hp[c:], panel, true, h2, n)
			for l := 0; l < c; l++ {
				v := h2[l] / nu[j0+l] // q_l · x
				n2h += float64(v * v)
				h2[l] = v / nu[j0+l]
			}
			kernels.PanelPass(p, ldt, b, c, h2, 1, false, g, n)
		default:
			kernels.PanelPass(p, ldt, b, c, hp[c:], panel, false, g, n)
		}
		nrm := math.Sqrt(g[0])
		var ref float64
		if first {
			if !haveNorms {
				n2 := g[0] + n2h
				for i := 0; i < j0; i++ {
					v := float64(o.s1[i*d+j] * nu[i]) // q_i · a_j
					n2 += float64(v * v)
				}
				for l := 0; l < c; l++ {
					v := float64(hp[l*panel+c] * nu[j0+l]) // q_l · x
					n2 += float64(v * v)
				}
				nrm0 := math.Sqrt(n2)
				if !(nrm0 > tiny && nrm0 < huge) {
					return errCareful
				}
				o.nrm0[j] = nrm0
			}
			ref = o.nrm0[j]
			o.nu1[c] = nrm
		} else {
			ref = o.nu1[c] // its norm before the second projection
		}
		if !(nrm > o.Tol*ref) {
			return &RankError{Col: j, Ratio: nrm / ref}
		}
		nu[j] = nrm
		w := 1 / float64(nrm*nrm)
		for k := c + 1; k < b; k++ {
			hp[c*panel+k] = float64(g[k-c] * w)
		}
	}
	return nil
}

// cleanLoss bounds ‖Qᵀ p̄‖² (p̄ a column of a panel after its first
// orthogonalisation, normalised; Q the columns before the panel) below
// which the second projection leaves the panel orthonormal to working
// precision, so that BCGS2's pass inside the panel after it is skipped:
// the projection changes the panel's Gram matrix by HᵀH, whose entries are
// at most max‖Qᵀ p̄_c‖² = 2^-60 ≈ 8.7e-19 (and its norms by half that,
// relatively). Well-conditioned inputs are always below it (‖Qᵀ p̄‖ is a
// few ε there); from κ ≈ 1e7 on, the pass runs.
const cleanLoss = 0x1p-60

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
				return 0, fmt.Errorf("linalg: %w: entry (%d, %d) is %v", ErrNotFinite, r, j, v)
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
// t[c*ldt : c*ldt+a.Rows].
func transposeIn(t []float64, ldt int, a *Dense) {
	kernels.Transpose(t, ldt, a.Data, a.Stride, a.Rows, a.Cols)
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
