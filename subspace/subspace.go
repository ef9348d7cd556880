package subspace

import (
	"errors"
	"fmt"
	"math"

	"github.com/grlgq/grlgq/internal/numerr"
	"github.com/grlgq/grlgq/kernels"
	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/svd"
)

var (
	// ErrTooFewImages: the set has fewer images (columns) than the subspace dimension.
	ErrTooFewImages = errors.New("subspace: image set has fewer images than the subspace dimension")
	// ErrRankDeficient: the set spans fewer than d dimensions.
	ErrRankDeficient = errors.New("subspace: image set has rank below the subspace dimension")
	// ErrNotFinite: a pixel is NaN or ±Inf. It is the module's one "not
	// finite" sentinel, the same value as linalg.ErrNotFinite,
	// svd.ErrNotFinite, engine.ErrNotFinite and model.ErrNotFinite.
	ErrNotFinite = numerr.ErrNotFinite
	// ErrZeroImage: a single image has zero norm.
	ErrZeroImage = errors.New("subspace: image is all zero")
)

// RankTol is the relative threshold below which a singular value counts as
// zero: σ_d <= RankTol·σ_1 makes a set rank-deficient.
const RankTol = 1e-10

// Subspace is a point of the Grassmann manifold Gr(D, d).
type Subspace struct {
	// Basis is P, D x d with orthonormal columns.
	Basis *linalg.Dense
	// Values are the first d singular values Λ of the set (descending);
	// nil when the subspace did not come from an image set.
	Values []float64
	// Right is R, m x d, the first d right singular vectors of the set; nil
	// when the subspace did not come from an image set.
	Right *linalg.Dense
}

// Dim returns D, the ambient dimension (pixels).
func (s *Subspace) Dim() int { return s.Basis.Rows }

// D returns d, the subspace dimension.
func (s *Subspace) D() int { return s.Basis.Cols }

// Converter turns D x m image sets into d-dimensional subspaces.
type Converter struct {
	rows, cols, d int
	tall          *svd.Tall
	u, v          *linalg.Dense
	s             []float64
	x             *linalg.Dense // FromImages' D x m set, made at its first call
}

// ConverterValues returns the float64 values a Converter of sets of m
// images of dim pixels holds, about: its D x m copy of the set and the
// thin SVD's workspace of the same size (rows padded to a multiple of 8
// columns). A command line bounds it per worker before converting sets.
func ConverterValues(dim, m int) int64 { return 2 * int64(dim) * int64(kernels.Stride(m)) }

// NewConverter returns a converter for D x m sets and subspace dimension d.
// It returns an error if the shape is impossible (d < 1, m < d, D < m is
// allowed: the set is then transposed internally).
func NewConverter(dim, m, d int) (*Converter, error) {
	switch {
	case dim < 1 || m < 1 || d < 1:
		return nil, fmt.Errorf("subspace: invalid shape D=%d m=%d d=%d", dim, m, d)
	case d > m:
		return nil, fmt.Errorf("%w: m=%d < d=%d", ErrTooFewImages, m, d)
	case d > dim:
		return nil, fmt.Errorf("subspace: d=%d exceeds the number of pixels D=%d", d, dim)
	case min(dim, m) > svd.MaxTall:
		return nil, fmt.Errorf("subspace: sets of %d images of %d pixels: at most %d images (or pixels) per set are supported", m, dim, svd.MaxTall)
	}
	c := &Converter{rows: dim, cols: m, d: d}
	if dim >= m {
		c.tall = svd.NewTall(dim, m)
		c.u = linalg.NewDense(dim, m)
		c.v = linalg.NewDense(m, m)
	} else {
		// Wide set (more images than pixels): factorize Xᵀ = R Λ Pᵀ.
		c.tall = svd.NewTall(m, dim)
		c.u = linalg.NewDense(m, dim)
		c.v = linalg.NewDense(dim, dim)
	}
	c.s = make([]float64, min(dim, m))
	return c, nil
}

// FromImages returns the subspace of the image set whose images (each of
// D pixels) are imgs[0], ..., imgs[m-1]: the D x m set with image k as
// column k (in the converter's own matrix), then FromSet. This is the one
// place where images become a set matrix; the images are not modified.
func (c *Converter) FromImages(imgs [][]float64) (*Subspace, error) {
	if len(imgs) != c.cols {
		return nil, fmt.Errorf("subspace: %d images, converter expects %d", len(imgs), c.cols)
	}
	for k, img := range imgs {
		if len(img) != c.rows {
			return nil, fmt.Errorf("subspace: image %d has %d pixels, converter expects %d", k, len(img), c.rows)
		}
	}
	if c.x == nil {
		c.x = linalg.NewDense(c.rows, c.cols)
	}
	x := c.x
	for k, img := range imgs {
		for r, v := range img {
			x.Data[r*x.Stride+k] = v
		}
	}
	return c.FromSet(x)
}

// FromImages returns the d-dimensional subspace of the image set imgs (m
// images of D pixels, m >= 1): NewConverter(D, m, d), then its FromImages.
// Callers converting many sets of one shape keep a Converter instead.
func FromImages(imgs [][]float64, d int) (*Subspace, error) {
	if len(imgs) == 0 {
		return nil, fmt.Errorf("subspace: empty image set")
	}
	c, err := NewConverter(len(imgs[0]), len(imgs), d)
	if err != nil {
		return nil, err
	}
	return c.FromImages(imgs)
}

// FromSet returns the subspace of the D x m image set x (one image per
// column). x is not modified.
func (c *Converter) FromSet(x *linalg.Dense) (*Subspace, error) {
	if x == nil || x.Rows != c.rows || x.Cols != c.cols {
		return nil, fmt.Errorf("subspace: set is %s, converter expects %dx%d", shape(x), c.rows, c.cols)
	}
	if x.Stride < x.Cols || len(x.Data) < (x.Rows-1)*x.Stride+x.Cols {
		return nil, fmt.Errorf("subspace: set of %dx%d has stride %d and %d values", x.Rows, x.Cols, x.Stride, len(x.Data))
	}
	for r := 0; r < x.Rows; r++ {
		for j, v := range x.Row(r) {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("subspace: %w: pixel %d of image %d is %v", ErrNotFinite, r, j, v)
			}
		}
	}
	d := c.d
	out := &Subspace{
		Basis:  linalg.NewDense(c.rows, d),
		Values: make([]float64, d),
		Right:  linalg.NewDense(c.cols, d),
	}
	var err error
	if c.rows >= c.cols {
		err = c.tall.Factorize(c.u.Data, c.u.Stride, c.s, c.v.Data, c.v.Stride, x.Data, x.Stride)
		if err == nil {
			copyCols(out.Basis, c.u, d)
			copyCols(out.Right, c.v, d)
		}
	} else {
		xt := linalg.NewDense(c.cols, c.rows)
		for r := 0; r < x.Rows; r++ {
			for j, v := range x.Row(r) {
				xt.Data[j*xt.Stride+r] = v
			}
		}
		err = c.tall.Factorize(c.u.Data, c.u.Stride, c.s, c.v.Data, c.v.Stride, xt.Data, xt.Stride)
		if err == nil {
			copyCols(out.Basis, c.v, d)
			copyCols(out.Right, c.u, d)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("subspace: %w", err)
	}
	copy(out.Values, c.s[:d])
	if !(c.s[0] > 0) || c.s[d-1] <= RankTol*c.s[0] {
		return nil, fmt.Errorf("%w (σ_%d/σ_1 = %.3g)", ErrRankDeficient, d, c.s[d-1]/math.Max(c.s[0], math.SmallestNonzeroFloat64))
	}
	return out, nil
}

// FromImage returns the 1-D subspace x/‖x‖ of a single image of D pixels.
// ‖x‖ is linalg.Norm, the engine's (so x/‖x‖ here and model.Predict's
// angles use the same norm).
func FromImage(x []float64) (*Subspace, error) {
	nrm, err := linalg.Norm(x)
	if err != nil {
		return nil, fmt.Errorf("subspace: image: %w", err)
	}
	if nrm == 0 {
		return nil, ErrZeroImage
	}
	b := linalg.NewDense(len(x), 1)
	for r, v := range x {
		b.Data[r*b.Stride] = v / nrm
	}
	return &Subspace{Basis: b}, nil
}

func copyCols(dst, src *linalg.Dense, d int) {
	for r := 0; r < dst.Rows; r++ {
		copy(dst.Row(r)[:d], src.Row(r)[:d])
	}
}

// shape describes x for an error message.
func shape(x *linalg.Dense) string {
	if x == nil {
		return "nil"
	}
	return fmt.Sprintf("%dx%d", x.Rows, x.Cols)
}

// Truncate returns the subspace of the first d columns of s's basis (a
// copy; s itself when d is its dimension), with the first d singular
// values and right vectors when s has them. For a subspace from an image
// set (FromImages: the left singular vectors in descending order) it is
// the subspace FromImages gives with d. d must be in [1, s.D()].
func Truncate(s *Subspace, d int) (*Subspace, error) {
	if s == nil || s.Basis == nil || d < 1 || d > s.Basis.Cols {
		return nil, fmt.Errorf("subspace: truncate %s to %d columns", shape(s.basis()), d)
	}
	if d == s.Basis.Cols {
		return s, nil
	}
	out := &Subspace{Basis: linalg.NewDense(s.Basis.Rows, d)}
	copyCols(out.Basis, s.Basis, d)
	if len(s.Values) >= d {
		out.Values = append([]float64(nil), s.Values[:d]...)
	}
	if s.Right != nil && s.Right.Cols >= d {
		out.Right = linalg.NewDense(s.Right.Rows, d)
		copyCols(out.Right, s.Right, d)
	}
	return out, nil
}

func (s *Subspace) basis() *linalg.Dense {
	if s == nil {
		return nil
	}
	return s.Basis
}
