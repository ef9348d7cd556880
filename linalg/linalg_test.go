package linalg

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/grlgq/grlgq/kernels"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

func newRNG(stream uint64) *rand.Rand { return rand.New(rand.NewPCG(7, stream)) }

func gaussian(rows, cols int, rng *rand.Rand) *Dense {
	a := NewDense(rows, cols)
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			a.Set(r, c, rng.NormFloat64())
		}
	}
	return a
}

// withCondition returns U diag(σ) Vᵀ with σ log-spaced from 1 to 1/cond,
// U, V random orthonormal (from gonum's QR), so its condition number is cond.
func withCondition(rows, cols int, cond float64, rng *rand.Rand) *Dense {
	u := householderQ(gaussian(rows, cols, rng))
	v := householderQ(gaussian(cols, cols, rng))
	a := NewDense(rows, cols)
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			var s float64
			for k := 0; k < cols; k++ {
				sig := math.Pow(cond, -float64(k)/float64(max(cols-1, 1)))
				s += u.At(r, k) * sig * v.At(c, k)
			}
			a.Set(r, c, s)
		}
	}
	return a
}

// householderQ returns the thin Q of gonum's Householder QR of a.
func householderQ(a *Dense) *Dense {
	g := blas64.General{Rows: a.Rows, Cols: a.Cols, Stride: a.Cols, Data: make([]float64, a.Rows*a.Cols)}
	for r := 0; r < a.Rows; r++ {
		copy(g.Data[r*a.Cols:], a.Row(r))
	}
	tau := make([]float64, a.Cols)
	work := make([]float64, 1)
	lapack64.Geqrf(g, tau, work, -1)
	work = make([]float64, int(work[0]))
	lapack64.Geqrf(g, tau, work, len(work))
	work = make([]float64, 1)
	lapack64.Orgqr(g, tau, work, -1)
	work = make([]float64, int(work[0]))
	lapack64.Orgqr(g, tau, work, len(work))
	q := NewDense(a.Rows, a.Cols)
	for r := 0; r < a.Rows; r++ {
		copy(q.Row(r), g.Data[r*a.Cols:(r+1)*a.Cols])
	}
	return q
}

func toMat(a *Dense) *mat.Dense {
	m := mat.NewDense(a.Rows, a.Cols, nil)
	for r := 0; r < a.Rows; r++ {
		for c := 0; c < a.Cols; c++ {
			m.Set(r, c, a.At(r, c))
		}
	}
	return m
}

// sinMaxAngle returns the sine of the largest principal angle between the
// spans of two orthonormal bases: sqrt(1 - σ_min(QᵀP)²), computed stably as
// the 2-norm of P - Q QᵀP.
func sinMaxAngle(q, p *Dense) float64 {
	Q, P := toMat(q), toMat(p)
	var qtp, res mat.Dense
	qtp.Mul(Q.T(), P)
	res.Mul(Q, &qtp)
	res.Sub(P, &res)
	return mat.Norm(&res, 2)
}

// leadingSpanError returns the largest over k of the sine of the largest
// principal angle between the spans of the first k columns of q and p.
func leadingSpanError(q, p *Dense) float64 {
	var worst float64
	for k := 1; k <= q.Cols; k++ {
		qk := NewDenseOn(q.Rows, k, q.Stride, q.Data)
		pk := NewDenseOn(p.Rows, k, p.Stride, p.Data)
		worst = math.Max(worst, sinMaxAngle(qk, pk))
	}
	return worst
}

func TestNewDenseLayout(t *testing.T) {
	for _, cols := range []int{1, 7, 8, 9, 12, 16, 25} {
		for _, rows := range []int{0, 1, 3, 784} {
			a := NewDense(rows, cols)
			if a.Stride != kernels.Stride(cols) || a.Stride%8 != 0 || a.Stride < cols {
				t.Fatalf("%dx%d: stride %d", rows, cols, a.Stride)
			}
			if len(a.Data) != rows*a.Stride {
				t.Fatalf("%dx%d: len %d", rows, cols, len(a.Data))
			}
			if rows > 0 && uintptr(unsafe.Pointer(&a.Data[0]))%Alignment != 0 {
				t.Fatalf("%dx%d: not aligned", rows, cols)
			}
		}
	}
}

// TestFlat: a standard matrix and one of stride Cols are flat (one slice
// of their rows, padding included, ending at the last entry); a view into
// a wider matrix and an empty one are not; CopyFrom between views that
// are not flat leaves the columns between their rows alone.
func TestFlat(t *testing.T) {
	for _, c := range []struct {
		rows, cols, stride int
		flat               bool
	}{{5, 12, kernels.Stride(12), true}, {5, 12, 12, true}, {5, 12, 40, false}, {5, 8, 8, true}, {0, 3, 8, false}, {1, 3, 20, false}} {
		m := NewDenseOn(c.rows, c.cols, c.stride, make([]float64, c.rows*c.stride+1))
		f := m.Flat()
		if (f != nil) != c.flat {
			t.Fatalf("%+v: Flat() = %v, want flat %v", c, f, c.flat)
		}
		if f != nil && (len(f) != (c.rows-1)*c.stride+c.cols || &f[0] != &m.Data[0]) {
			t.Fatalf("%+v: Flat() has length %d, want %d from Data[0]", c, len(f), (c.rows-1)*c.stride+c.cols)
		}
	}
	// Two views into one wide matrix: the copy writes only the logical
	// entries of its destination.
	wide := make([]float64, 4*24)
	for i := range wide {
		wide[i] = float64(i)
	}
	a, b := NewDenseOn(4, 12, 24, wide), NewDenseOn(4, 12, 24, wide[12:])
	b.CopyFrom(a)
	for r := 0; r < 4; r++ {
		for j := 0; j < 24; j++ {
			if want := float64(r*24 + j%12); wide[r*24+j] != want {
				t.Fatalf("wide[%d, %d] = %v after the copy, want %v", r, j, wide[r*24+j], want)
			}
		}
	}
}

func TestDenseAccessors(t *testing.T) {
	a := NewDense(3, 5)
	a.Set(2, 4, 7)
	a.Set(0, 0, -1)
	if a.At(2, 4) != 7 || a.Data[2*8+4] != 7 || a.Row(2)[4] != 7 || len(a.Row(1)) != 5 {
		t.Fatal("accessors disagree with layout")
	}
	b := NewDenseOn(3, 5, 6, make([]float64, 18))
	b.CopyFrom(a)
	if b.At(2, 4) != 7 || b.At(0, 0) != -1 || b.Data[5] != 0 {
		t.Fatal("CopyFrom across strides")
	}
	c := NewDense(3, 5)
	c.CopyFrom(a)
	if c.At(2, 4) != 7 || c.Data[2*8+5] != 0 {
		t.Fatal("CopyFrom same stride")
	}
	// A view of columns 0..4 of a wide matrix (a stride other than
	// Stride(5)), from a source with that stride too: the neighbouring
	// columns are not padding and must survive.
	wide := NewDense(3, 16)
	for i := range wide.Data {
		wide.Data[i] = -9
	}
	v := NewDenseOn(3, 5, 16, wide.Data)
	v.CopyFrom(NewDenseOn(3, 5, 16, make([]float64, 48)))
	v.CopyFrom(a)
	if v.At(2, 4) != 7 || wide.Data[5] != -9 || wide.Data[2*16+15] != -9 {
		t.Fatal("CopyFrom into a view wrote outside its logical columns")
	}
	c.Zero()
	for _, v := range c.Data {
		if v != 0 {
			t.Fatal("Zero left a value")
		}
	}
	mustPanic(t, "At out of range", func() { a.At(3, 0) })
	mustPanic(t, "Set out of range", func() { a.Set(0, 5, 1) })
	mustPanic(t, "CopyFrom shape", func() { a.CopyFrom(NewDense(3, 4)) })
	mustPanic(t, "short view", func() { NewDenseOn(3, 5, 8, make([]float64, 20)) })
}

func mustPanic(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Errorf("%s: no panic", name)
		}
	}()
	f()
}

func TestValidate(t *testing.T) {
	a := gaussian(10, 3, newRNG(1))
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		b := NewDense(10, 3)
		b.CopyFrom(a)
		b.Set(4, 2, bad)
		if err := b.Validate(); !errors.Is(err, ErrNotFinite) {
			t.Errorf("%v: got %v", bad, err)
		}
	}
	// A huge but finite value is valid.
	a.Set(0, 0, math.MaxFloat64)
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestGramAndProject(t *testing.T) {
	rng := newRNG(2)
	p, w := gaussian(50, 3, rng), gaussian(50, 4, rng)
	m := make([]float64, 3*5)
	ProjectTo(m, 5, p, w)
	var want mat.Dense
	want.Mul(toMat(p).T(), toMat(w))
	for i := 0; i < 3; i++ {
		for j := 0; j < 4; j++ {
			if d := math.Abs(m[i*5+j] - want.At(i, j)); d > 1e-12 {
				t.Fatalf("ProjectTo (%d,%d) off by %g", i, j, d)
			}
		}
	}
	g := make([]float64, 9)
	Gram(g, 3, p)
	want.Reset()
	want.Mul(toMat(p).T(), toMat(p))
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			if d := math.Abs(g[i*3+j] - want.At(i, j)); d > 1e-12 {
				t.Fatalf("Gram (%d,%d) off by %g", i, j, d)
			}
		}
	}
	mustPanic(t, "ProjectTo rows", func() { ProjectTo(m, 5, p, gaussian(49, 4, rng)) })
	mustPanic(t, "ProjectTo short", func() { ProjectTo(m[:13], 5, p, w) })
}

func TestOrthonormalizeMatchesHouseholder(t *testing.T) {
	rng := newRNG(3)
	for _, tc := range []struct {
		rows, cols int
		cond       float64
	}{
		{784, 12, 0}, {400, 25, 0}, {20, 7, 0}, {5, 5, 0}, {1, 1, 0}, {33, 1, 0},
		{784, 12, 1e7}, {784, 12, 1e10}, {100, 25, 1e10}, {60, 8, 1e9},
		// Panels of four with a short last one, and the far end of DefaultTol.
		{784, 13, 1e10}, {300, 30, 1e10}, {500, 18, 1e11}, {64, 6, 1e10},
	} {
		var a *Dense
		if tc.cond == 0 {
			a = gaussian(tc.rows, tc.cols, rng)
		} else {
			a = withCondition(tc.rows, tc.cols, tc.cond, rng)
		}
		o := NewOrthonormalizer(tc.rows, tc.cols)
		q := NewDense(tc.rows, tc.cols)
		if err := o.OrthonormalizeTo(q, a); err != nil {
			t.Fatalf("%+v: %v", tc, err)
		}
		e := OrthonormalityError(q)
		if !(e < 1e-14) {
			t.Errorf("%+v: ‖QᵀQ−I‖_max = %g", tc, e)
		}
		t.Logf("%+v: ‖QᵀQ−I‖_max = %.2g", tc, e)
		// Same nested spans as Householder QR. A perturbation of size u in
		// A moves the spans by up to about κ u, so the bound scales with κ.
		tol := 1e-13
		if tc.cond > 0 {
			tol = 1e-14 * tc.cond
		}
		if e := leadingSpanError(q, householderQ(a)); !(e < tol) {
			t.Errorf("%+v: leading spans differ from Householder by sin θ = %g", tc, e)
		}
		// Q is A R⁻¹ with R upper triangular and a positive diagonal: column j
		// of Q has a positive inner product with column j of A.
		for j := 0; j < tc.cols; j++ {
			var s float64
			for r := 0; r < tc.rows; r++ {
				s += q.At(r, j) * a.At(r, j)
			}
			if !(s > 0) {
				t.Errorf("%+v: column %d has sign %g", tc, j, s)
			}
		}
	}
}

// TestOrthonormalizeNearlyDependentPanels: every column from the fifth on
// is a combination of two earlier ones plus a perturbation of relative size
// e, so the second projection of each later panel removes components of
// about ε/e: from e ≈ 1e-7 down the pass inside the panel after it runs
// (see cleanLoss), above it is skipped. Both must give an orthonormal Q
// with Householder's spans.
func TestOrthonormalizeNearlyDependentPanels(t *testing.T) {
	rng := newRNG(12)
	for _, e := range []float64{1e-2, 1e-5, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11} {
		a := gaussian(784, 12, rng)
		for r := 0; r < 784; r++ {
			for c := 4; c < 12; c++ {
				a.Set(r, c, a.At(r, c-4)-0.5*a.At(r, c-3)+e*a.At(r, c))
			}
		}
		q := NewDense(784, 12)
		if err := NewOrthonormalizer(784, 12).OrthonormalizeTo(q, a); err != nil {
			t.Fatalf("e = %g: %v", e, err)
		}
		if err := OrthonormalityError(q); !(err < 1e-14) {
			t.Errorf("e = %g: ‖QᵀQ−I‖_max = %g", e, err)
		}
		if err := leadingSpanError(q, householderQ(a)); !(err < 1e-14/e) {
			t.Errorf("e = %g: leading spans differ from Householder by sin θ = %g", e, err)
		}
	}
}

func TestOrthonormalizeInPlaceEqualsTo(t *testing.T) {
	a := gaussian(100, 9, newRNG(4))
	o := NewOrthonormalizer(100, 9)
	q := NewDense(100, 9)
	if err := o.OrthonormalizeTo(q, a); err != nil {
		t.Fatal(err)
	}
	if err := o.Orthonormalize(a); err != nil {
		t.Fatal(err)
	}
	for i := range a.Data {
		if math.Float64bits(a.Data[i]) != math.Float64bits(q.Data[i]) {
			t.Fatal("in-place result differs from OrthonormalizeTo")
		}
	}
}

func TestOrthonormalizeScaling(t *testing.T) {
	// Columns of wildly different magnitudes (1e-300 ... 1e300) are fine: only
	// directions matter.
	rng := newRNG(5)
	a := gaussian(30, 4, rng)
	want := NewDense(30, 4)
	if err := NewOrthonormalizer(30, 4).OrthonormalizeTo(want, a); err != nil {
		t.Fatal(err)
	}
	scales := []float64{1e-300, 1e300, 1, 0x1p-1000}
	for r := 0; r < 30; r++ {
		for c, s := range scales {
			a.Set(r, c, a.At(r, c)*s)
		}
	}
	q := NewDense(30, 4)
	if err := NewOrthonormalizer(30, 4).OrthonormalizeTo(q, a); err != nil {
		t.Fatal(err)
	}
	if e := OrthonormalityError(q); !(e < 1e-14) {
		t.Fatalf("‖QᵀQ−I‖ = %g", e)
	}
	if e := leadingSpanError(q, want); !(e < 1e-13) {
		t.Fatalf("span changed by scaling: %g", e)
	}
}

func TestOrthonormalizeRankDeficient(t *testing.T) {
	rng := newRNG(6)
	for _, col := range []int{0, 1, 5, 11} {
		a := gaussian(784, 12, rng)
		orig := NewDense(784, 12)
		// Column col: zero (col 0) or an exact combination of earlier columns.
		for r := 0; r < 784; r++ {
			var v float64
			for c := 0; c < col; c++ {
				v += float64(c+1) * a.At(r, c)
			}
			a.Set(r, col, v)
		}
		orig.CopyFrom(a)
		err := NewOrthonormalizer(784, 12).Orthonormalize(a)
		var re *RankError
		if !errors.Is(err, ErrRankDeficient) || !errors.As(err, &re) || re.Col != col {
			t.Fatalf("column %d: got %v", col, err)
		}
		for i := range a.Data {
			if math.Float64bits(a.Data[i]) != math.Float64bits(orig.Data[i]) {
				t.Fatalf("column %d: q modified on error", col)
			}
		}
	}
	// Nearly dependent but above the tolerance: accepted and orthonormal.
	a := gaussian(200, 6, rng)
	for r := 0; r < 200; r++ {
		a.Set(r, 4, a.At(r, 1)-2*a.At(r, 3)+1e-9*rng.NormFloat64())
	}
	if err := NewOrthonormalizer(200, 6).Orthonormalize(a); err != nil {
		t.Fatal(err)
	}
	if e := OrthonormalityError(a); !(e < 1e-14) {
		t.Fatalf("‖QᵀQ−I‖ = %g", e)
	}
	// Tol is honoured.
	b := gaussian(200, 6, rng)
	for r := 0; r < 200; r++ {
		b.Set(r, 2, b.At(r, 0)+1e-9*rng.NormFloat64())
	}
	o := NewOrthonormalizer(200, 6)
	o.Tol = 1e-6
	if err := o.Orthonormalize(b); !errors.Is(err, ErrRankDeficient) {
		t.Fatalf("Tol 1e-6: got %v", err)
	}
}

func TestOrthonormalizeNotFinite(t *testing.T) {
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		for _, at := range [][2]int{{0, 0}, {99, 3}, {50, 7}} {
			a := gaussian(100, 8, newRNG(7))
			a.Set(at[0], at[1], bad)
			if err := NewOrthonormalizer(100, 8).Orthonormalize(a); !errors.Is(err, ErrNotFinite) {
				t.Errorf("%v at %v: got %v", bad, at, err)
			}
		}
	}
}

func TestOrthonormalizeGuards(t *testing.T) {
	// Padding and memory beyond the matrix stay untouched.
	const rows, cols, stride = 50, 5, 7
	buf := make([]float64, rows*stride+3)
	rng := newRNG(8)
	for i := range buf {
		buf[i] = math.NaN()
	}
	a := NewDenseOn(rows, cols, stride, buf[:rows*stride])
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			a.Set(r, c, rng.NormFloat64())
		}
	}
	if err := NewOrthonormalizer(rows, cols).Orthonormalize(a); err != nil {
		t.Fatal(err)
	}
	for i, v := range buf {
		if (i >= rows*stride || i%stride >= cols) && !math.IsNaN(v) {
			t.Fatalf("guard %d overwritten with %g", i, v)
		}
	}
	mustPanic(t, "wrong shape", func() { NewOrthonormalizer(50, 4).Orthonormalize(a) })
	mustPanic(t, "wide", func() { NewOrthonormalizer(3, 4) })
}

func TestOrthonormalizeAllocs(t *testing.T) {
	a := gaussian(784, 12, newRNG(9))
	q := NewDense(784, 12)
	o := NewOrthonormalizer(784, 12)
	n := testing.AllocsPerRun(20, func() {
		if err := o.OrthonormalizeTo(q, a); err != nil {
			t.Fatal(err)
		}
	})
	if n != 0 {
		t.Fatalf("%v allocations per call", n)
	}
}

func TestRandomOrthonormal(t *testing.T) {
	a, b := NewDense(100, 7), NewDense(100, 7)
	if err := RandomOrthonormal(a, newRNG(10)); err != nil {
		t.Fatal(err)
	}
	if err := RandomOrthonormal(b, newRNG(10)); err != nil {
		t.Fatal(err)
	}
	for i := range a.Data {
		if math.Float64bits(a.Data[i]) != math.Float64bits(b.Data[i]) {
			t.Fatal("same seed, different bases")
		}
	}
	if e := OrthonormalityError(a); !(e < 1e-14) {
		t.Fatalf("‖QᵀQ−I‖ = %g", e)
	}
	if err := RandomOrthonormal(b, newRNG(11)); err != nil {
		t.Fatal(err)
	}
	if sinMaxAngle(a, b) < 0.1 {
		t.Fatal("different seeds gave (nearly) the same span")
	}
}
