package subspace

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/svd"
	"gonum.org/v1/gonum/mat"
)

func randomSet(rng *rand.Rand, dim, m int) *linalg.Dense {
	x := linalg.NewDense(dim, m)
	for r := 0; r < dim; r++ {
		for c := 0; c < m; c++ {
			x.Set(r, c, rng.NormFloat64())
		}
	}
	return x
}

func toGonum(x *linalg.Dense) *mat.Dense {
	g := mat.NewDense(x.Rows, x.Cols, nil)
	for r := 0; r < x.Rows; r++ {
		for c := 0; c < x.Cols; c++ {
			g.Set(r, c, x.At(r, c))
		}
	}
	return g
}

// largestAngle returns the largest principal angle between span(a) and
// span(b) (both with orthonormal columns and the same rank): its sine is
// ‖(I − a aᵀ) b‖₂, computed with gonum. (The cosine route, the smallest
// singular value of aᵀb, resolves angles only to about 1e-8.)
func largestAngle(t *testing.T, a, b *mat.Dense) float64 {
	t.Helper()
	var atb, res mat.Dense
	atb.Mul(a.T(), b)
	res.Mul(a, &atb)
	res.Sub(b, &res)
	var s mat.SVD
	if !s.Factorize(&res, mat.SVDNone) {
		t.Fatal("gonum SVD failed")
	}
	return math.Asin(math.Min(1, s.Values(nil)[0]))
}

func checkAgainstGonum(t *testing.T, name string, x *linalg.Dense, d int, got *Subspace) {
	t.Helper()
	var s mat.SVD
	if !s.Factorize(toGonum(x), mat.SVDThin) {
		t.Fatal("gonum SVD failed")
	}
	var u, v mat.Dense
	s.UTo(&u)
	s.VTo(&v)
	vals := s.Values(nil)
	for i := 0; i < d; i++ {
		if e := math.Abs(got.Values[i] - vals[i]); e > 1e-12*vals[0] {
			t.Errorf("%s: value %d = %v, gonum %v", name, i, got.Values[i], vals[i])
		}
	}
	// The spans agree when the d-th and (d+1)-th values are separated.
	if ang := largestAngle(t, toGonum(got.Basis), u.Slice(0, x.Rows, 0, d).(*mat.Dense)); ang > 1e-9 {
		t.Errorf("%s: basis spans differ from gonum by %g rad", name, ang)
	}
	if ang := largestAngle(t, toGonum(got.Right), v.Slice(0, x.Cols, 0, d).(*mat.Dense)); ang > 1e-9 {
		t.Errorf("%s: right vectors span differ from gonum by %g rad", name, ang)
	}
	if e := linalg.OrthonormalityError(got.Basis); e > 1e-13 {
		t.Errorf("%s: ‖PᵀP − I‖ = %g", name, e)
	}
	// X R = P Λ (the first d columns of X V = U Σ).
	for r := 0; r < x.Rows; r++ {
		for k := 0; k < d; k++ {
			var sum float64
			for j := 0; j < x.Cols; j++ {
				sum += x.At(r, j) * got.Right.At(j, k)
			}
			if e := math.Abs(sum - got.Basis.At(r, k)*got.Values[k]); e > 1e-11*vals[0] {
				t.Fatalf("%s: (X R)[%d,%d] = %v, want P Λ = %v", name, r, k, sum, got.Basis.At(r, k)*got.Values[k])
			}
		}
	}
}

func TestFromSetMatchesGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sh := range [][3]int{{400, 41, 5}, {784, 12, 12}, {64, 10, 4}, {30, 80, 5}, {20, 20, 7}, {784, 100, 12}} {
		dim, m, d := sh[0], sh[1], sh[2]
		c, err := NewConverter(dim, m, d)
		if err != nil {
			t.Fatal(err)
		}
		x := randomSet(rng, dim, m)
		orig := append([]float64(nil), x.Data...)
		got, err := c.FromSet(x)
		if err != nil {
			t.Fatalf("%v: %v", sh, err)
		}
		for i := range orig {
			if x.Data[i] != orig[i] {
				t.Fatalf("%v: input modified", sh)
			}
		}
		if got.Dim() != dim || got.D() != d || got.Right.Rows != m {
			t.Fatalf("%v: shapes %dx%d, right %dx%d", sh, got.Dim(), got.D(), got.Right.Rows, got.Right.Cols)
		}
		checkAgainstGonum(t, "set", x, d, got)
	}
}

func TestFromSetErrors(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	if _, err := NewConverter(100, 3, 5); !errors.Is(err, ErrTooFewImages) {
		t.Errorf("m < d: %v", err)
	}
	if _, err := NewConverter(4, 10, 5); err == nil {
		t.Error("d > D: no error")
	}
	if _, err := NewConverter(0, 3, 1); err == nil {
		t.Error("D = 0: no error")
	}
	if _, err := NewConverter(svd.MaxTall+1, svd.MaxTall+1, 3); err == nil {
		t.Error("set larger than MaxTall both ways: no error")
	}
	c, err := NewConverter(50, 8, 4)
	if err != nil {
		t.Fatal(err)
	}
	x := randomSet(rng, 50, 8)
	x.Set(7, 3, math.NaN())
	if _, err := c.FromSet(x); !errors.Is(err, ErrNotFinite) {
		t.Errorf("NaN pixel: %v", err)
	}
	x.Set(7, 3, math.Inf(-1))
	if _, err := c.FromSet(x); !errors.Is(err, ErrNotFinite) {
		t.Errorf("Inf pixel: %v", err)
	}
	// Rank 3 < d = 4: every image a combination of the first three.
	x = randomSet(rng, 50, 8)
	for r := 0; r < 50; r++ {
		for j := 3; j < 8; j++ {
			x.Set(r, j, x.At(r, 0)*float64(j)-x.At(r, 1)+0.5*x.At(r, 2))
		}
	}
	if _, err := c.FromSet(x); !errors.Is(err, ErrRankDeficient) {
		t.Errorf("rank 3 set: %v", err)
	}
	if _, err := c.FromSet(linalg.NewDense(50, 8)); !errors.Is(err, ErrRankDeficient) {
		t.Errorf("all-zero set: %v", err)
	}
	if _, err := c.FromSet(randomSet(rng, 50, 9)); err == nil {
		t.Error("wrong shape: no error")
	}
}

func TestFromImage(t *testing.T) {
	x := []float64{3, 0, 4, 0}
	s, err := FromImage(x)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.6, 0, 0.8, 0}
	for r, w := range want {
		if math.Abs(s.Basis.At(r, 0)-w) > 1e-16 {
			t.Errorf("basis[%d] = %v, want %v", r, s.Basis.At(r, 0), w)
		}
	}
	if s.Values != nil || s.Right != nil {
		t.Error("a single image has no set decomposition")
	}
	// Huge and tiny scales do not overflow or underflow.
	for _, scale := range []float64{1e-300, 1e300} {
		y := []float64{3 * scale, 4 * scale}
		s, err := FromImage(y)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(s.Basis.At(0, 0)-0.6) > 1e-15 || math.Abs(s.Basis.At(1, 0)-0.8) > 1e-15 {
			t.Errorf("scale %g: basis %v %v", scale, s.Basis.At(0, 0), s.Basis.At(1, 0))
		}
	}
	if _, err := FromImage([]float64{0, 0}); !errors.Is(err, ErrZeroImage) {
		t.Errorf("zero image: %v", err)
	}
	if _, err := FromImage([]float64{1, math.NaN()}); !errors.Is(err, ErrNotFinite) {
		t.Errorf("NaN image: %v", err)
	}
}
