package baseline

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// binary returns the kernel matrix (row-major n x n) and ±1 labels of
// the first n samples of a two-class synthetic problem, the labels of a
// fraction flip of them flipped (so that bounds are active).
func binary(t testing.TB, n int, noise, flip float64, seed uint64) (k, y []float64) {
	t.Helper()
	x, lab := synth(t, 2, (n+1)/2, 25, 3, 4, noise, seed)
	p, err := NewPairs(context.Background(), x, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Interleave the classes so that the first n hold both.
	var idx []int
	for i := range (n + 1) / 2 {
		idx = append(idx, i, (n+1)/2+i)
	}
	idx = idx[:n]
	rng := rand.New(rand.NewPCG(seed, 9))
	k, y = make([]float64, n*n), make([]float64, n)
	for r, i := range idx {
		for c, j := range idx {
			k[r*n+c] = p.Kernel(i, j)
		}
		y[r] = float64(1 - 2*lab[i])
		if rng.Float64() < flip {
			y[r] = -y[r]
		}
	}
	return k, y
}

func solveSMO(k, y []float64, c, tol float64, warm []float64) (*smo, float64, int, bool) {
	n := len(y)
	s := new(smo)
	kk, yy := s.reset(n)
	copy(kk, k)
	copy(yy, y)
	if warm != nil {
		copy(s.alpha, warm)
	}
	s.start(warm != nil)
	rho, it, ok := s.solve(c, tol, 1000000)
	return s, rho, it, ok
}

// objective is ½ αᵀQα − Σ α.
func objective(k, y, alpha []float64) float64 {
	n := len(y)
	var o float64
	for i := range n {
		for j := range n {
			o += 0.5 * alpha[i] * alpha[j] * y[i] * y[j] * k[i*n+j]
		}
		o -= alpha[i]
	}
	return o
}

// margins returns y_i (Σ_j α_j y_j K_ij − ρ) for every i.
func margins(k, y, alpha []float64, rho float64) []float64 {
	n := len(y)
	m := make([]float64, n)
	for i := range n {
		f := -rho
		for j := range n {
			f += alpha[j] * y[j] * k[i*n+j]
		}
		m[i] = y[i] * f
	}
	return m
}

// TestSMOKKT: the solution meets the KKT conditions of the dual within
// the tolerance, on separable and noisy problems, for small and large C.
func TestSMOKKT(t *testing.T) {
	for _, tc := range []struct {
		n           int
		noise, flip float64
	}{{20, 0.3, 0}, {40, 1.5, 0.2}, {61, 3, 0.4}, {2, 1, 0}} {
		k, y := binary(t, tc.n, tc.noise, tc.flip, uint64(tc.n))
		for _, c := range []float64{1e-3, 0.1, 1, 30, 1e4} {
			const tol = 1e-9
			s, rho, it, ok := solveSMO(k, y, c, tol, nil)
			if !ok {
				t.Fatalf("n=%d C=%g: not converged in %d iterations", tc.n, c, it)
			}
			var sum float64
			for i, a := range s.alpha {
				if a < 0 || a > c {
					t.Fatalf("n=%d C=%g: α_%d = %g outside [0, C]", tc.n, c, i, a)
				}
				sum += y[i] * a
			}
			if math.Abs(sum) > 1e-12*c*float64(tc.n) {
				t.Errorf("n=%d C=%g: Σ y α = %g", tc.n, c, sum)
			}
			m := margins(k, y, s.alpha, rho)
			slack := tol + 1e-10*max(1, c)
			free, bound := 0, 0
			for i, a := range s.alpha {
				switch {
				case a == 0:
					if m[i] < 1-slack {
						t.Errorf("n=%d C=%g: α_%d = 0 with margin %.12g < 1", tc.n, c, i, m[i])
					}
				case a == c:
					bound++
					if m[i] > 1+slack {
						t.Errorf("n=%d C=%g: α_%d = C with margin %.12g > 1", tc.n, c, i, m[i])
					}
				default:
					free++
					if math.Abs(m[i]-1) > slack {
						t.Errorf("n=%d C=%g: free α_%d with margin %.12g != 1", tc.n, c, i, m[i])
					}
				}
			}
			t.Logf("n=%d noise=%g C=%g: %d iterations, %d free, %d at C", tc.n, tc.noise, c, it, free, bound)
			// A warm start from the solution for C/10 reaches the same
			// objective.
			s0, _, _, _ := solveSMO(k, y, c/10, tol, nil)
			sw, _, _, okw := solveSMO(k, y, c, tol, s0.alpha)
			if !okw {
				t.Fatalf("warm start did not converge")
			}
			o, ow := objective(k, y, s.alpha), objective(k, y, sw.alpha)
			if math.Abs(o-ow) > 1e-7*max(1, math.Abs(o)) {
				t.Errorf("n=%d C=%g: warm start objective %.12g, cold %.12g", tc.n, c, ow, o)
			}
		}
	}
}

// enumerate solves the dual of a tiny problem by trying every assignment
// of each α_i to {0, free, C}: the free part solves the KKT equations
// ∇_F = y_F ρ, yᵀα = 0 (gonum), and the assignment is kept if α is in the
// box and some ρ satisfies the inequalities of the bounded ones. It
// returns the optimal objective and the α of the first optimal assignment.
func enumerate(t *testing.T, k, y []float64, c float64) (best float64, alpha []float64) {
	n := len(y)
	best = math.Inf(1)
	state := make([]int, n) // 0: α = 0, 1: free, 2: α = C
	for code := range int(math.Pow(3, float64(n))) {
		v := code
		var free []int
		for i := range n {
			state[i] = v % 3
			v /= 3
			if state[i] == 1 {
				free = append(free, i)
			}
		}
		a := make([]float64, n)
		for i := range n {
			if state[i] == 2 {
				a[i] = c
			}
		}
		var rho float64
		nf := len(free)
		if nf > 0 {
			// [Q_FF  −y_F; y_Fᵀ 0] [α_F; ρ] = [1 − Q_FU C; −C Σ_U y].
			A := mat.NewDense(nf+1, nf+1, nil)
			b := mat.NewVecDense(nf+1, nil)
			for r, i := range free {
				rhs := 1.0
				for j := range n {
					if state[j] == 2 {
						rhs -= y[i] * y[j] * k[i*n+j] * c
					}
				}
				b.SetVec(r, rhs)
				for cc, j := range free {
					A.Set(r, cc, y[i]*y[j]*k[i*n+j])
				}
				A.Set(r, nf, -y[i])
				A.Set(nf, r, y[i])
			}
			var rhs float64
			for j := range n {
				if state[j] == 2 {
					rhs -= c * y[j]
				}
			}
			b.SetVec(nf, rhs)
			var sol mat.VecDense
			if err := sol.SolveVec(A, b); err != nil {
				continue
			}
			ok := true
			for r, i := range free {
				a[i] = sol.AtVec(r)
				if a[i] < -1e-12 || a[i] > c+1e-12 {
					ok = false
				}
			}
			if !ok {
				continue
			}
			rho = sol.AtVec(nf)
		} else {
			var sum float64
			for j := range n {
				sum += a[j] * y[j]
			}
			if math.Abs(sum) > 1e-12 {
				continue
			}
		}
		// ∇_i − y_i ρ >= 0 for α_i = 0, <= 0 for α_i = C (with ρ free
		// when no α is free: some ρ in [lo, hi] must do).
		lo, hi := math.Inf(-1), math.Inf(1)
		if nf > 0 {
			lo, hi = rho, rho
		}
		for i := range n {
			if state[i] == 1 {
				continue
			}
			g := -1.0
			for j := range n {
				g += y[i] * y[j] * k[i*n+j] * a[j]
			}
			// state 0: y_i ρ <= g; state 2: y_i ρ >= g.
			if (state[i] == 0) == (y[i] > 0) {
				hi = min(hi, y[i]*g)
			} else {
				lo = max(lo, y[i]*g)
			}
		}
		if lo > hi+1e-9 {
			continue
		}
		if o := objective(k, y, a); o < best {
			best, alpha = o, a
		}
	}
	return best, alpha
}

// TestSMOEnumeration: on problems of 3 to 7 samples, SMO's objective and
// decision values match the exact solution found by enumerating the
// active sets.
func TestSMOEnumeration(t *testing.T) {
	for n := 3; n <= 7; n++ {
		for _, c := range []float64{0.05, 1, 100} {
			k, y := binary(t, n, 2, 0.3, uint64(100+n))
			pos := 0
			for _, v := range y {
				if v > 0 {
					pos++
				}
			}
			if pos == 0 || pos == n {
				continue
			}
			want, wa := enumerate(t, k, y, c)
			if wa == nil {
				t.Fatalf("n=%d C=%g: enumeration found no KKT point", n, c)
			}
			s, _, _, ok := solveSMO(k, y, c, 1e-10, nil)
			if !ok {
				t.Fatalf("n=%d C=%g: not converged", n, c)
			}
			got := objective(k, y, s.alpha)
			if math.Abs(got-want) > 1e-8*max(1, math.Abs(want)) {
				t.Errorf("n=%d C=%g: SMO objective %.12g, exact %.12g", n, c, got, want)
			}
			// w = Σ α_i y_i φ(x_i) is unique: compare Σ α_i y_i K(x_i, x_j).
			for j := range n {
				var f, fw float64
				for i := range n {
					f += s.alpha[i] * y[i] * k[i*n+j]
					fw += wa[i] * y[i] * k[i*n+j]
				}
				if math.Abs(f-fw) > 1e-6*max(1, math.Abs(fw)) {
					t.Errorf("n=%d C=%g: decision at %d: %.10g, exact %.10g", n, c, j, f, fw)
				}
			}
		}
	}
}

// TestVote pins the one-vs-one vote and its tie rule.
func TestVote(t *testing.T) {
	votes, score := make([]int, 6), make([]float64, 6)
	for _, tc := range []struct {
		name    string
		classes []int
		dec     []float64 // duels in order (a, b), a < b
		want    int
	}{
		// Duels (0,1), (0,2), (1,2): 0 beats 1 and 2.
		{"clear winner", []int{0, 1, 2}, []float64{1, 1, -1}, 0},
		// 0>1, 2>0, 1>2: one vote each; sums 0: 0.5−0.2 = 0.3,
		// 1: −0.5+0.9 = 0.4, 2: 0.2−0.9 = −0.7 -> class 1.
		{"cycle, larger sum", []int{0, 1, 2}, []float64{0.5, -0.2, 0.9}, 1},
		// A cycle with equal sums: the lower class.
		{"cycle, equal sums", []int{0, 1, 2}, []float64{1, -1, 1}, 0},
		// f = 0 votes for b.
		{"zero votes for b", []int{3, 5}, []float64{0}, 5},
		// Classes not 0..: only those listed take part.
		{"sparse classes", []int{1, 4, 5}, []float64{-1, -2, 3}, 4},
	} {
		if got := vote(tc.classes, tc.dec, 1, votes, score); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
}
