package svd

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"
)

// Accuracy required by the tests (relative to the largest singular value,
// or to ‖A‖_F for the reconstruction).
const testTol = 1e-13

// guard is the value written around every slice to detect stray writes.
var guard = math.Float64frombits(0x7ff8dead0000beef) // a NaN with a payload

func gaussian(rng *rand.Rand, rows, cols, ld int) []float64 {
	a := make([]float64, rows*ld)
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			a[r*ld+c] = rng.NormFloat64()
		}
	}
	return a
}

// orthonormal returns a random rows x cols matrix with orthonormal columns
// (row-major, stride cols), by Householder QR of a Gaussian matrix.
func orthonormal(rng *rand.Rand, rows, cols int) []float64 {
	a := blas64.General{Rows: rows, Cols: cols, Stride: cols, Data: gaussian(rng, rows, cols, cols)}
	tau := make([]float64, cols)
	work := make([]float64, 64*rows)
	lapack64.Geqrf(a, tau, work, len(work))
	lapack64.Orgqr(a, tau, work, len(work))
	return a.Data
}

// withValues returns U diag(sv) Vᵀ for random U (rows x cols) and V
// (cols x cols) with orthonormal columns.
func withValues(rng *rand.Rand, rows, cols int, sv []float64) []float64 {
	u := orthonormal(rng, rows, cols)
	v := orthonormal(rng, cols, cols)
	a := make([]float64, rows*cols)
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			var s float64
			for k, x := range sv {
				s += u[r*cols+k] * x * v[c*cols+k]
			}
			a[r*cols+c] = s
		}
	}
	return a
}

type testMatrix struct {
	name       string
	rows, cols int
	a          []float64 // stride cols
}

// hardMatrices returns random and hard inputs of the given shape.
func hardMatrices(rng *rand.Rand, rows, cols int) []testMatrix {
	var ms []testMatrix
	add := func(name string, a []float64) {
		ms = append(ms, testMatrix{name, rows, cols, a})
	}
	add("gaussian", gaussian(rng, rows, cols, cols))
	add("zero", make([]float64, rows*cols))
	id := make([]float64, rows*cols)
	for i := 0; i < cols; i++ {
		id[i*cols+i] = 1
	}
	add("identity", id)
	for _, r := range []int{0, 1, cols / 2, cols - 1} {
		if r < 1 || r >= cols {
			continue
		}
		b := gaussian(rng, rows, r, r)
		c := gaussian(rng, cols, r, r)
		a := make([]float64, rows*cols)
		for i := 0; i < rows; i++ {
			for j := 0; j < cols; j++ {
				var s float64
				for k := 0; k < r; k++ {
					s += b[i*r+k] * c[j*r+k]
				}
				a[i*cols+j] = s
			}
		}
		add(fmt.Sprintf("rank%d", r), a)
	}
	sv := make([]float64, cols)
	for i := range sv {
		sv[i] = 1 + 1e-9*float64(i%3)
	}
	add("clustered", withValues(rng, rows, cols, sv))
	for i := range sv {
		sv[i] = math.Pow(10, -float64(i)*15/float64(cols))
	}
	add("tiny", withValues(rng, rows, cols, sv))
	g := gaussian(rng, rows, cols, cols)
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			g[i*cols+j] *= math.Pow(10, -float64(i%16)-float64(j%8))
		}
	}
	add("graded", g)
	z := gaussian(rng, rows, cols, cols)
	for j := 0; j < cols; j++ {
		z[(rows/2)*cols+j] = 0
	}
	for i := 0; i < rows; i++ {
		z[i*cols+cols/2] = 0
	}
	add("zero-row-col", z)
	for _, sc := range []float64{1e-150, 1e150, 1e-300, 1e300} {
		a := gaussian(rng, rows, cols, cols)
		for i := range a {
			a[i] *= sc
		}
		add(fmt.Sprintf("scale%g", sc), a)
	}
	// Parallel columns: orthogonal to within rounding only.
	p := gaussian(rng, rows, 1, 1)
	a := make([]float64, rows*cols)
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			a[i*cols+j] = p[i] * float64(j+1)
		}
	}
	add("parallel", a)
	return ms
}

// gonumValues returns the singular values by gonum.
func gonumValues(t testing.TB, rows, cols int, a []float64) []float64 {
	var s mat.SVD
	if !s.Factorize(mat.NewDense(rows, cols, append([]float64(nil), a...)), mat.SVDNone) {
		t.Fatalf("gonum SVD failed")
	}
	return s.Values(nil)
}

// maxAbs is the largest |x|.
func maxAbs(x []float64) float64 {
	var m float64
	for _, v := range x {
		m = max(m, math.Abs(v))
	}
	return m
}

// checkValues compares s with gonum's singular values of a.
func checkValues(t *testing.T, name string, rows, cols int, a []float64, s []float64) {
	t.Helper()
	want := gonumValues(t, rows, cols, a)
	smax := max(want[0], s[0])
	for i := range want {
		if !(math.Abs(s[i]-want[i]) <= testTol*smax) && !(smax == 0 && s[i] == 0) {
			t.Errorf("%s: s[%d] = %g, gonum %g (smax %g, rel err %g)", name, i, s[i], want[i], smax, math.Abs(s[i]-want[i])/smax)
		}
		if i > 0 && !(s[i] <= s[i-1]) {
			t.Errorf("%s: not descending at %d: %g > %g", name, i, s[i], s[i-1])
		}
	}
}

// checkOrthonormal checks ‖QᵀQ - I‖_max for the rows x cols matrix q.
func checkOrthonormal(t *testing.T, what string, q []float64, ld, rows, cols int) {
	t.Helper()
	if worst := orthoError(q, ld, rows, cols); !(worst <= testTol) {
		t.Errorf("%s: ‖QᵀQ - I‖_max = %g", what, worst)
	}
}

// checkReconstruction checks ‖A - U Σ Vᵀ‖_F <= testTol ‖A‖_F (reconError).
func checkReconstruction(t *testing.T, name string, a []float64, lda int, u []float64, ldu int, s []float64, v []float64, ldv int, rows, cols int) {
	t.Helper()
	if rel := reconError(a, lda, u, ldu, s, v, ldv, rows, cols); !(rel <= testTol) {
		t.Errorf("%s: ‖A - UΣVᵀ‖_F/‖A‖_F = %g (s = %v)", name, rel, s[:cols])
	}
}

// padded copies the rows x cols matrix a (stride cols) into a matrix with
// stride ld, surrounded by guard values; it returns the whole buffer and the
// offset of the first element.
func padded(a []float64, rows, cols, ld int) ([]float64, int) {
	const off = 3
	buf := make([]float64, off+rows*ld+off)
	for i := range buf {
		buf[i] = guard
	}
	for r := 0; r < rows; r++ {
		copy(buf[off+r*ld:off+r*ld+cols], a[r*cols:(r+1)*cols])
	}
	return buf, off
}

// guarded returns a buffer of n + 2*3 guard values (the slice to use is
// buf[3:3+n]).
func guarded(n int) []float64 {
	buf := make([]float64, n+6)
	for i := range buf {
		buf[i] = guard
	}
	return buf
}

func sameBits(x, y []float64) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		if math.Float64bits(x[i]) != math.Float64bits(y[i]) {
			return false
		}
	}
	return true
}

// checkGuards checks that only the rows x cols elements (stride ld, at
// offset off) of buf were written.
func checkGuards(t *testing.T, what string, buf []float64, off, rows, cols, ld int) {
	t.Helper()
	for i, x := range buf {
		j := i - off
		inside := j >= 0 && j < rows*ld && j%ld < cols
		if !inside && math.Float64bits(x) != math.Float64bits(guard) {
			t.Errorf("%s: element %d outside the matrix was overwritten", what, i)
			return
		}
	}
}

func squareSizes() []int {
	ns := []int{}
	for n := 1; n <= 32; n++ {
		ns = append(ns, n)
	}
	return append(ns, 40, 64)
}

func TestSmallValues(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 1))
		for _, n := range squareSizes() {
			w := NewSmall(n)
			for _, m := range hardMatrices(rng, n, n) {
				name := fmt.Sprintf("n=%d/%s", n, m.name)
				ld := n + 2
				buf, off := padded(m.a, n, n, ld)
				orig := append([]float64(nil), buf...)
				sbuf := guarded(n)
				if err := w.Values(sbuf[3:3+n], buf[off:], ld); err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				if !sameBits(buf, orig) {
					t.Errorf("%s: input modified", name)
				}
				checkGuards(t, name+" s", sbuf, 3, 1, n, n)
				checkValues(t, name, n, n, m.a, sbuf[3:3+n])
			}
		}
	})
}

func TestSmallFactorize(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(2, 1))
		for _, n := range squareSizes() {
			w := NewSmall(n)
			for _, m := range hardMatrices(rng, n, n) {
				name := fmt.Sprintf("n=%d/%s", n, m.name)
				lda, ldu, ldv := n+1, n+3, n+5
				buf, off := padded(m.a, n, n, lda)
				orig := append([]float64(nil), buf...)
				ub := guarded(n * ldu)
				vb := guarded(n * ldv)
				sb := guarded(n)
				u, v, s := ub[3:3+n*ldu], vb[3:3+n*ldv], sb[3:3+n]
				if err := w.Factorize(u, ldu, s, v, ldv, buf[off:], lda); err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				if !sameBits(buf, orig) {
					t.Errorf("%s: input modified", name)
				}
				checkGuards(t, name+" s", sb, 3, 1, n, n)
				checkGuards(t, name+" u", ub, 3, n, n, ldu)
				checkGuards(t, name+" v", vb, 3, n, n, ldv)
				checkValues(t, name, n, n, m.a, s)
				checkOrthonormal(t, name+" U", u, ldu, n, n)
				checkOrthonormal(t, name+" V", v, ldv, n, n)
				checkReconstruction(t, name, m.a, n, u, ldu, s, v, ldv, n, n)
			}
		}
	})
}

func TestBatchValues(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(3, 1))
		for _, n := range []int{1, 2, 3, 5, 7, 8, 12, 13, 16, 17, 25, 32, 64} {
			ms := hardMatrices(rng, n, n)
			for _, k := range []int{1, 3, 8, 9, len(ms), 17} {
				w := NewBatch(n)
				lda := n + 1
				step := n*lda + 2
				lds := n + 1
				a := make([]float64, k*step+3)
				for i := range a {
					a[i] = guard
				}
				for i := 0; i < k; i++ {
					m := ms[i%len(ms)]
					for r := 0; r < n; r++ {
						copy(a[i*step+r*lda:i*step+r*lda+n], m.a[r*n:(r+1)*n])
					}
				}
				orig := append([]float64(nil), a...)
				sb := guarded(k * lds)
				s := sb[3 : 3+k*lds]
				if err := w.Values(s, lds, a, lda, step, k); err != nil {
					t.Errorf("n=%d k=%d: %v", n, k, err)
					continue
				}
				if !sameBits(a, orig) {
					t.Errorf("n=%d k=%d: input modified", n, k)
				}
				checkGuards(t, fmt.Sprintf("n=%d k=%d s", n, k), sb, 3, k, n, lds)
				for i := 0; i < k; i++ {
					m := ms[i%len(ms)]
					checkValues(t, fmt.Sprintf("n=%d k=%d i=%d %s", n, k, i, m.name), n, n, m.a, s[i*lds:i*lds+n])
				}
			}
		}
	})
}

func TestBatchNotFinite(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(4, 1))
		for _, n := range []int{1, 12, 25} {
			for _, k := range []int{1, 8, 11} {
				for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
					w := NewBatch(n)
					a := gaussian(rng, k*n, n, n)
					idx := k - 1 - k/3
					a[idx*n*n+(n*n)/2] = bad
					s := make([]float64, k*n)
					err := w.Values(s, n, a, n, n*n, k)
					var be *BatchError
					if !errors.Is(err, ErrNotFinite) || !errors.As(err, &be) || be.Index != idx {
						t.Errorf("n=%d k=%d: err = %v, want ErrNotFinite at %d", n, k, err, idx)
					}
				}
			}
		}
	})
}

func TestNotFinite(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for _, n := range []int{1, 2, 12} {
			for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
				a := make([]float64, n*n)
				a[n*n-1] = bad
				s := make([]float64, n)
				u := make([]float64, n*n)
				v := make([]float64, n*n)
				w := NewSmall(n)
				if err := w.Values(s, a, n); !errors.Is(err, ErrNotFinite) {
					t.Errorf("Values n=%d %g: %v", n, bad, err)
				}
				if err := w.Factorize(u, n, s, v, n, a, n); !errors.Is(err, ErrNotFinite) {
					t.Errorf("Factorize n=%d %g: %v", n, bad, err)
				}
				tall := NewTall(n+3, n)
				at := make([]float64, (n+3)*n)
				at[len(at)/2] = bad
				ut := make([]float64, (n+3)*n)
				if err := tall.Factorize(ut, n, s, v, n, at, n); !errors.Is(err, ErrNotFinite) {
					t.Errorf("Tall n=%d %g: %v", n, bad, err)
				}
			}
		}
	})
}

func tallShapes() [][2]int {
	return [][2]int{{1, 1}, {2, 1}, {5, 3}, {7, 7}, {30, 12}, {64, 64}, {100, 33}, {784, 12}, {784, 20}, {400, 25}, {4096, 25}}
}

func TestTall(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 1))
		for _, sh := range tallShapes() {
			rows, cols := sh[0], sh[1]
			w := NewTall(rows, cols)
			ms := hardMatrices(rng, rows, cols)
			for _, m := range ms {
				name := fmt.Sprintf("%dx%d/%s", rows, cols, m.name)
				lda, ldu, ldv := cols+1, cols+2, cols+3
				buf, off := padded(m.a, rows, cols, lda)
				orig := append([]float64(nil), buf...)
				ub := guarded(rows * ldu)
				vb := guarded(cols * ldv)
				sb := guarded(cols)
				u, v, s := ub[3:3+rows*ldu], vb[3:3+cols*ldv], sb[3:3+cols]
				if err := w.Factorize(u, ldu, s, v, ldv, buf[off:], lda); err != nil {
					t.Errorf("%s: %v", name, err)
					continue
				}
				if !sameBits(buf, orig) {
					t.Errorf("%s: input modified", name)
				}
				checkGuards(t, name+" s", sb, 3, 1, cols, cols)
				checkGuards(t, name+" u", ub, 3, rows, cols, ldu)
				checkGuards(t, name+" v", vb, 3, cols, cols, ldv)
				checkValues(t, name, rows, cols, m.a, s)
				checkOrthonormal(t, name+" U", u, ldu, rows, cols)
				checkOrthonormal(t, name+" V", v, ldv, cols, cols)
				checkReconstruction(t, name, m.a, cols, u, ldu, s, v, ldv, rows, cols)
			}
		}
	})
}

// TestTallWide covers sets of more than MaxSmall images, where the small SVD
// of R falls back to the pure-Go iteration.
func TestTallWide(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(9, 1))
		for _, sh := range [][2]int{{400, 65}, {784, 100}, {150, 150}} {
			rows, cols := sh[0], sh[1]
			w := NewTall(rows, cols)
			a := gaussian(rng, rows, cols, cols)
			// Make it rank-deficient: the last 10 columns repeat the first.
			for r := 0; r < rows; r++ {
				for c := cols - 10; c < cols; c++ {
					a[r*cols+c] = a[r*cols+c-(cols-10)]
				}
			}
			u := make([]float64, rows*cols)
			v := make([]float64, cols*cols)
			s := make([]float64, cols)
			name := fmt.Sprintf("%dx%d", rows, cols)
			if err := w.Factorize(u, cols, s, v, cols, a, cols); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			checkValues(t, name, rows, cols, a, s)
			checkOrthonormal(t, name+" U", u, cols, rows, cols)
			checkOrthonormal(t, name+" V", v, cols, cols, cols)
			checkReconstruction(t, name, a, cols, u, cols, s, v, cols, rows, cols)
			if s[cols-1] > 1e-12*s[0] {
				t.Errorf("%s: rank-deficient input, smallest value %g", name, s[cols-1]/s[0])
			}
		}
	})
}

func TestAllocs(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(6, 1))
		for _, n := range []int{5, 12, 25} {
			a := gaussian(rng, 9*n, n, n)
			s := make([]float64, 9*n)
			u := make([]float64, 784*n)
			v := make([]float64, n*n)
			sm := NewSmall(n)
			b := NewBatch(n)
			tall := NewTall(784, n)
			at := gaussian(rng, 784, n, n)
			check := func(what string, f func() error) {
				if got := testing.AllocsPerRun(5, func() {
					if err := f(); err != nil {
						t.Fatal(err)
					}
				}); got != 0 {
					t.Errorf("n=%d %s: %v allocations", n, what, got)
				}
			}
			check("Small.Values", func() error { return sm.Values(s, a, n) })
			check("Small.Factorize", func() error { return sm.Factorize(u, n, s, v, n, a, n) })
			check("Batch.Values", func() error { return b.Values(s, n, a, n, n*n, 9) })
			check("Batch.Values of 2", func() error { return b.Values(s, n, a, n, n*n, 2) })
			check("Batch.Values of 3", func() error { return b.Values(s, n, a, n, n*n, 3) })
			check("Tall.Factorize", func() error { return tall.Factorize(u, n, s, v, n, at, n) })
		}
	})
}

func TestShapePanics(t *testing.T) {
	mustPanic := func(what string, f func()) {
		t.Helper()
		defer func() {
			if r := recover(); r != PanicShape {
				t.Errorf("%s: recovered %v, want %q", what, r, PanicShape)
			}
		}()
		f()
	}
	mustPanic("NewSmall(0)", func() { NewSmall(0) })
	mustPanic("NewSmall(65)", func() { NewSmall(MaxSmall + 1) })
	mustPanic("NewBatch(0)", func() { NewBatch(0) })
	mustPanic("NewTall(3,4)", func() { NewTall(3, 4) })
	mustPanic("NewTall(MaxTall+1)", func() { NewTall(MaxTall+10, MaxTall+1) })
	w := NewSmall(4)
	mustPanic("short a", func() { w.Values(make([]float64, 4), make([]float64, 15), 4) })
	mustPanic("small lda", func() { w.Values(make([]float64, 4), make([]float64, 16), 3) })
	mustPanic("short s", func() { w.Values(make([]float64, 3), make([]float64, 16), 4) })
	b := NewBatch(4)
	mustPanic("batch short a", func() { b.Values(make([]float64, 8), 4, make([]float64, 31), 4, 16, 2) })
}

// TestLdexp checks ldexp against math.Ldexp, bit for bit, over normal,
// subnormal, zero, infinite and NaN values and exponents across the
// whole range, where products round (subnormal results) and overflow.
func TestLdexp(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 7))
	vals := []float64{0, math.Copysign(0, -1), 1, -1, 0.75, math.MaxFloat64, -math.MaxFloat64,
		math.SmallestNonzeroFloat64, 0x1p-1022, 0x1.fffffffffffffp-1023, 0x1.8p-1060, -0x1.0000000000001p-1040,
		math.Inf(1), math.Inf(-1), math.NaN()}
	for i := 0; i < 2000; i++ {
		vals = append(vals, math.Float64frombits(rng.Uint64()))
	}
	for _, v := range vals {
		for e := -1100; e <= 1100; e++ {
			got, want := ldexp(v, e), math.Ldexp(v, e)
			if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Fatalf("ldexp(%x, %d) = %x, math.Ldexp %x", v, e, got, want)
			}
		}
	}
}

// TestScanMax checks scanMax against a plain scan: the largest magnitude
// and the presence of NaN or ±Inf, over shapes, strides (the entries
// between rows are never read) and special values.
func TestScanMax(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	specials := []float64{0, math.Copysign(0, -1), math.SmallestNonzeroFloat64, -0x1p-1030, math.MaxFloat64, -math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN()}
	for trial := 0; trial < 3000; trial++ {
		rows, cols := 1+rng.IntN(9), 1+rng.IntN(9)
		lda := cols + rng.IntN(3)
		m := make([]float64, (rows-1)*lda+cols)
		for i := range m {
			m[i] = rng.NormFloat64() * math.Ldexp(1, rng.IntN(40)-20)
			if rng.IntN(8) == 0 {
				m[i] = specials[rng.IntN(len(specials))]
			}
		}
		for r := 0; r+1 < rows; r++ {
			for c := cols; c < lda; c++ {
				m[r*lda+c] = math.NaN() // between rows: not part of the matrix
			}
		}
		var want float64
		wantBad := false
		for r := 0; r < rows; r++ {
			for _, v := range m[r*lda : r*lda+cols] {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					wantBad = true
				} else if math.Abs(v) > want {
					want = math.Abs(v)
				}
			}
		}
		got, bad := scanMax(m, rows, cols, lda)
		if bad != wantBad || !bad && math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%d x %d (lda %d): scanMax = %v, %v; want %v, %v", rows, cols, lda, got, bad, want, wantBad)
		}
	}
}
