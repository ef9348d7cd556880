package svd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// factor32Sizes are the orders of the Factorize32 tests: every order
// around and inside the float32 kernels' range (3..32, one or two pairs
// short of a full vector, odd and even) and two beyond it.
func factor32Sizes() []int {
	var ns []int
	for n := 1; n <= 34; n++ {
		ns = append(ns, n)
	}
	return append(ns, 40, MaxSmall)
}

// bound32 is the accuracy the tests ask of Factorize32 in float32 lanes:
// 4 n 2⁻²⁴ (of ‖A‖₂ for the values, absolute for the orthogonality of U
// and V, of ‖A‖_F for the reconstruction); Factorize32's doc states
// about n 2⁻²⁴.
func bound32(n int) float64 { return 4 * float64(max(n, 8)) * 0x1p-24 }

// TestFactorize32 checks Small.Factorize32 on every implementation: where
// Factorize32Native, within bound32 of Factorize's values, U and V
// orthonormal and A reconstructed within bound32, descending values, the
// input unchanged and nothing written outside the outputs; elsewhere
// Factorize's bits. The errors are Factorize's.
func TestFactorize32(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(32, 1))
		native := 0
		for _, n := range factor32Sizes() {
			w32, w64 := NewSmall(n), NewSmall(n)
			nat := Factorize32Native(n)
			if nat {
				native++
			}
			lda, ldu, ldv := n+1, n+3, n+2
			for _, m := range pairMatrices(rng, n) {
				name := fmt.Sprintf("n=%d/%s", n, m.name)
				buf, off := padded(m.a, n, n, lda)
				orig := append([]float64(nil), buf...)
				a := buf[off:]
				ub, sb, vb := guarded(n*ldu), guarded(n), guarded(n*ldv)
				u, s, v := ub[3:3+n*ldu], sb[3:3+n], vb[3:3+n*ldv]
				u64, s64, v64 := make([]float64, n*ldu), make([]float64, n), make([]float64, n*ldv)
				err := w32.Factorize32(u, ldu, s, v, ldv, a, lda)
				err64 := w64.Factorize(u64, ldu, s64, v64, ldv, a, lda)
				if err != err64 {
					t.Errorf("%s: error %v, Factorize's %v", name, err, err64)
					continue
				}
				if !sameBits(buf, orig) {
					t.Errorf("%s: input modified", name)
				}
				checkGuards(t, name+" U", ub, 3, n, n, ldu)
				checkGuards(t, name+" s", sb, 3, 1, n, n)
				checkGuards(t, name+" V", vb, 3, n, n, ldv)
				if err != nil {
					continue
				}
				if !nat {
					if !sameBits(s, s64) || !sameSquare(u, u64, ldu, n) || !sameSquare(v, v64, ldv, n) {
						t.Errorf("%s: not Factorize's bits where Factorize32Native is false", name)
					}
					continue
				}
				check32(t, name, n, m.a, u, ldu, s, v, ldv, s64)
			}
		}
		want := 0
		if useAVX512 || useAVX2 {
			want = 30 // 3..32
		}
		if native != want {
			t.Errorf("Factorize32Native true for %d orders, want %d", native, want)
		}
	})
}

// sameSquare reports whether the n x n matrices x and y (stride ld) have
// the same bits.
func sameSquare(x, y []float64, ld, n int) bool {
	for r := 0; r < n; r++ {
		if !sameBits(x[r*ld:r*ld+n], y[r*ld:r*ld+n]) {
			return false
		}
	}
	return true
}

// check32 checks one Factorize32 result against bound32 (s64: Factorize's
// values of a, stride n).
func check32(t *testing.T, name string, n int, a []float64, u []float64, ldu int, s []float64, v []float64, ldv int, s64 []float64) {
	t.Helper()
	tol := bound32(n)
	smax := s64[0]
	for j := range n {
		if !(math.Abs(s[j]-s64[j]) <= tol*smax) && !(smax == 0 && s[j] == 0) {
			t.Errorf("%s: s[%d] = %g, Factorize %g (error %.3g of s_max, bound %.3g)", name, j, s[j], s64[j], math.Abs(s[j]-s64[j])/smax, tol)
		}
		if j > 0 && !(s[j] <= s[j-1]) {
			t.Errorf("%s: not descending at %d", name, j)
		}
	}
	for _, q := range []struct {
		what string
		m    []float64
		ld   int
	}{{"U", u, ldu}, {"V", v, ldv}} {
		if e := orthoError(q.m, q.ld, n, n); !(e <= tol) {
			t.Errorf("%s: ‖%sᵀ%s − I‖_max = %.3g, bound %.3g", name, q.what, q.what, e, tol)
		}
	}
	if e := reconError(a, n, u, ldu, s, v, ldv, n, n); !(e <= tol) {
		t.Errorf("%s: ‖A − UΣVᵀ‖_F/‖A‖_F = %.3g, bound %.3g", name, e, tol)
	}
}

// orthoError is ‖QᵀQ − I‖_max of the rows x cols matrix q (NaN counts
// as the largest).
func orthoError(q []float64, ld, rows, cols int) float64 {
	var worst float64
	for i := 0; i < cols; i++ {
		for j := 0; j <= i; j++ {
			var s float64
			for r := 0; r < rows; r++ {
				s += q[r*ld+i] * q[r*ld+j]
			}
			if i == j {
				s--
			}
			if math.IsNaN(s) {
				return s
			}
			worst = max(worst, math.Abs(s))
		}
	}
	return worst
}

// reconError is ‖A − UΣVᵀ‖_F/‖A‖_F of the rows x cols matrix a (stride
// lda) and its thin factors (0 for A = 0 with s = 0, Inf for A = 0 with a
// nonzero s), computed on A scaled by its largest entry so that squares
// cannot overflow or underflow.
func reconError(a []float64, lda int, u []float64, ldu int, s []float64, v []float64, ldv int, rows, cols int) float64 {
	am := 0.0
	for r := 0; r < rows; r++ {
		am = max(am, maxAbs(a[r*lda:r*lda+cols]))
	}
	if am == 0 {
		if maxAbs(s[:cols]) != 0 {
			return math.Inf(1)
		}
		return 0
	}
	var num, den float64
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			var x float64
			for k := 0; k < cols; k++ {
				x += u[r*ldu+k] * (s[k] / am) * v[c*ldv+k]
			}
			d := a[r*lda+c]/am - x
			num += d * d
			den += (a[r*lda+c] / am) * (a[r*lda+c] / am)
		}
	}
	return math.Sqrt(num / den)
}

// TestPairFactorize32 checks that Pair.Factorize32 gives, for each
// matrix, the bits of Small.Factorize32 alone (on AVX-512 and AVX2 both
// run in one run of a float32 kernel, each with its own masks), on every
// implementation, for pairs of random and hard inputs (the same input
// twice, inputs that converge after very different numbers of sweeps,
// -0 and subnormal entries), and NaN or Inf in either matrix (the error
// of Small.Factorize32 with the index of the matrix).
func TestPairFactorize32(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(33, 1))
		for _, n := range factor32Sizes() {
			p, w := NewPair(n), NewSmall(n)
			ms := pairMatrices(rng, n)
			rnd := gaussian(rng, n, n, n)
			for k, m := range ms {
				next := ms[(k+1)%len(ms)]
				name := fmt.Sprintf("n=%d/%s", n, m.name)
				checkPairBy(t, name+"+"+next.name, n, p.Factorize32, w.Factorize32, m.a, next.a)
				checkPairBy(t, name+"+random", n, p.Factorize32, w.Factorize32, m.a, rnd)
				checkPairBy(t, name+"+itself", n, p.Factorize32, w.Factorize32, m.a, m.a)
				checkPairBy(t, "random+"+name, n, p.Factorize32, w.Factorize32, rnd, m.a)
			}
			checkPairNotFinite(t, rng, n, p.Factorize32, w.Factorize32, math.NaN(), math.Inf(-1))
		}
	})
}

// TestFactorize32Allocs checks that Small.Factorize32 and
// Pair.Factorize32 allocate nothing.
func TestFactorize32Allocs(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(34, 1))
		for _, n := range []int{5, 12, 25, 40} {
			p, w := NewPair(n), NewSmall(n)
			a := [2][]float64{gaussian(rng, n, n, n), gaussian(rng, n, n, n)}
			u := [2][]float64{make([]float64, n*n), make([]float64, n*n)}
			v := [2][]float64{make([]float64, n*n), make([]float64, n*n)}
			s := [2][]float64{make([]float64, n), make([]float64, n)}
			if got := testing.AllocsPerRun(20, func() {
				if err := w.Factorize32(u[0], n, s[0], v[0], n, a[0], n); err != nil {
					t.Fatal(err)
				}
			}); got != 0 {
				t.Errorf("n=%d: Small.Factorize32 allocates %v", n, got)
			}
			if got := testing.AllocsPerRun(20, func() {
				if err := p.Factorize32(u, n, s, v, n, a, n); err != nil {
					t.Fatal(err)
				}
			}); got != 0 {
				t.Errorf("n=%d: Pair.Factorize32 allocates %v", n, got)
			}
		}
	})
}

// TestFactorize32NegligibleEdge checks U's orthogonality where a column
// of A has a norm within 2^-20 of the float32 kernels' negligible
// threshold, 2^-24 ‖A‖_F (A diagonal but for that column, its entries
// float32 values, the largest in [0.5, 1): unscaled): there the kernel's
// float32 α and finish's float64 norm of the same column can fall on
// either side of it, and a column the kernel never rotated must not be
// normalised as a column of U (it was, ‖UᵀU − I‖ up to 0.86, before
// finish took a threshold a little above the kernel's). Small and Pair,
// n = 3 (the packed pair kernel) and 20 (the dual one).
func TestFactorize32NegligibleEdge(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		w, p := func(n int) smallFactorizer { return NewSmall(n).Factorize32 }, func(n int) pairFactorizer { return NewPair(n).Factorize32 }
		checkNegligibleEdge(t, 36, w, p, 0x1p-48, 0x1p-20, true, bound32)
	})
}

// TestFactorizeNegligibleEdge is TestFactorize32NegligibleEdge for the
// float64 Factorize, whose kernels' threshold is 2^-120 ‖A‖_F² (a column
// within 2^-44 of it: before finish took a threshold above the kernels',
// ‖UᵀU − I‖ up to about 0.5 on a 3 x 3 input).
func TestFactorizeNegligibleEdge(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		w, p := func(n int) smallFactorizer { return NewSmall(n).Factorize }, func(n int) pairFactorizer { return NewPair(n).Factorize }
		checkNegligibleEdge(t, 37, w, p, 0x1p-120, 0x1p-44, false, func(int) float64 { return testTol })
	})
}

// checkNegligibleEdge factorises, by Small's and Pair's factorisers of
// order n = 3 and 20, matrices that are diagonal but for column 1, whose
// norm is within spread (relative) of the kernels' negligible threshold
// √(rel ‖A‖_F²) (the entries float32 values where f32, the largest in
// [0.5, 1): unscaled), and checks ‖UᵀU − I‖_max <= tol(n).
func checkNegligibleEdge(t *testing.T, seed uint64, small func(int) smallFactorizer, pair func(int) pairFactorizer, rel, spread float64, f32 bool, tol func(int) float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	round := func(x float64) float64 {
		if f32 {
			return float64(float32(x))
		}
		return x
	}
	for _, n := range []int{3, 20} {
		w, p := small(n), pair(n)
		u := [2][]float64{make([]float64, n*n), make([]float64, n*n)}
		v := [2][]float64{make([]float64, n*n), make([]float64, n*n)}
		s := [2][]float64{make([]float64, n), make([]float64, n)}
		bound := tol(n)
		bad := 0
		for trial := 0; trial < 2000 && bad < 3; trial++ {
			a := make([]float64, n*n)
			var f float64
			for i := 0; i < n; i++ {
				if i != 1 {
					a[i*n+i] = round(0.5 + 0.25*rng.Float64())
					f += a[i*n+i] * a[i*n+i]
				}
			}
			r := math.Sqrt(f*rel) * (1 + (rng.Float64()-0.5)*spread)
			var g float64
			x := make([]float64, n)
			for i := range x {
				x[i] = rng.NormFloat64()
				g += x[i] * x[i]
			}
			for i := range x {
				a[i*n+1] = round(r * x[i] / math.Sqrt(g))
			}
			if err := w(u[0], n, s[0], v[0], n, a, n); err != nil {
				t.Fatal(err)
			}
			if e := orthoError(u[0], n, n, n); !(e <= bound) {
				bad++
				t.Errorf("n=%d trial %d: Small: ‖UᵀU − I‖_max = %.3g, bound %.3g", n, trial, e, bound)
			}
			if err := p(u, n, s, v, n, [2][]float64{a, a}, n); err != nil {
				t.Fatal(err)
			}
			for i := range u {
				if e := orthoError(u[i], n, n, n); !(e <= bound) {
					bad++
					t.Errorf("n=%d trial %d: Pair matrix %d: ‖UᵀU − I‖_max = %.3g, bound %.3g", n, trial, i, e, bound)
				}
			}
		}
	}
}
