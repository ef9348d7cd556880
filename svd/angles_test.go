package svd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
)

// valueBound is the accuracy contract of the singular values (doc.go,
// "Accuracy"): every value of an n x n matrix within 4 n u of the largest
// exact value, u = 2^-53 the unit roundoff.
func valueBound(n int) float64 { return 4 * float64(n) * 0x1p-53 }

// projection returns M = P'ᵀ W' (d x d, stride d) for orthonormal D x d
// bases P' = P U, W' = W V (U, V random orthogonal) whose principal angles
// are theta: P = Q[:, :d], W[:, j] = cos θ_j Q[:, j] + sin θ_j Q[:, d+j] for
// a random D x 2d Q with orthonormal columns. The products are formed in
// floating point over the D rows, as the engine forms them.
func projection(rng *rand.Rand, d int, theta []float64) []float64 {
	D := 2*d + 5
	q := orthonormal(rng, D, 2*d)
	u := orthonormal(rng, d, d)
	v := orthonormal(rng, d, d)
	p := make([]float64, D*d)
	w := make([]float64, D*d)
	for r := 0; r < D; r++ {
		for j := 0; j < d; j++ {
			var sp, sw float64
			for k := 0; k < d; k++ {
				s, c := math.Sincos(theta[k])
				if theta[k] == math.Pi/2 {
					s, c = 1, 0 // exactly orthogonal
				}
				sp += q[r*2*d+k] * u[k*d+j]
				sw += (c*q[r*2*d+k] + s*q[r*2*d+d+k]) * v[k*d+j]
			}
			p[r*d+j], w[r*d+j] = sp, sw
		}
	}
	m := make([]float64, d*d)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			var s float64
			for r := 0; r < D; r++ {
				s += p[r*d+i] * w[r*d+j]
			}
			m[i*d+j] = s
		}
	}
	return m
}

// angleCases returns the principal angles of the test cases for d x d.
func angleCases(rng *rand.Rand, d int) map[string][]float64 {
	fill := func(f func(j int) float64) []float64 {
		th := make([]float64, d)
		for j := range th {
			th[j] = f(j)
		}
		return th
	}
	return map[string][]float64{
		"random":          fill(func(int) float64 { return rng.Float64() * math.Pi / 2 }),
		"tiny angles":     fill(func(int) float64 { return rng.Float64() * 1e-7 }),
		"small angles":    fill(func(int) float64 { return rng.Float64() * 1e-3 }),
		"near orthogonal": fill(func(int) float64 { return math.Pi/2 - rng.Float64()*1e-7 }),
		"orthogonal":      fill(func(int) float64 { return math.Pi / 2 }),
		"identical":       fill(func(int) float64 { return 0 }),
		"repeated":        fill(func(int) float64 { return 0.7 }),
		"rank-deficient": fill(func(j int) float64 {
			if j%2 == 0 {
				return math.Pi / 2
			}
			return rng.Float64() * math.Pi / 2
		}),
		"clustered": fill(func(j int) float64 { return 0.3 + float64(j%3)*1e-9 }),
	}
}

// angleCase is a product M = Pᵀ W of angleCases with its exact singular
// values (double-double Jacobi, ddValues).
type angleCase struct {
	name string
	m    []float64
	ref  []float64
}

// angleCaseNames lists angleCases in a fixed order.
var angleCaseNames = []string{"random", "tiny angles", "small angles", "near orthogonal", "orthogonal",
	"identical", "repeated", "rank-deficient", "clustered"}

// principalAngleCases11 is principalAngleCases(11), computed once for the
// tests that share it (the references take seconds).
var principalAngleCases11 = sync.OnceValue(func() map[int][]angleCase { return principalAngleCases(11) })

// principalAngleCases returns, for each order n tested (every n up to
// MaxSmall; with -short n <= 16 and 25, 32, 64), the products of every
// angleCase with their reference values.
func principalAngleCases(seed uint64) map[int][]angleCase {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make(map[int][]angleCase)
	for d := 1; d <= MaxSmall; d++ {
		cases := angleCases(rng, d)
		ms := make([][]float64, len(angleCaseNames))
		for i, name := range angleCaseNames {
			ms[i] = projection(rng, d, cases[name])
		}
		if testing.Short() && d > 16 && d != 25 && d != 32 && d != 64 {
			continue
		}
		for i, name := range angleCaseNames {
			out[d] = append(out[d], angleCase{name: name, m: ms[i]})
		}
	}
	// The references take seconds: on all cores.
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for d, cases := range out {
		for i := range cases {
			wg.Add(1)
			sem <- struct{}{}
			go func(c *angleCase) {
				defer wg.Done()
				c.ref = ddValues(d, c.m)
				<-sem
			}(&cases[i])
		}
	}
	wg.Wait()
	return out
}

// checkValuesBound reports the values s of the case c beyond valueBound
// and returns the largest error as a fraction of the bound.
func checkValuesBound(t *testing.T, what string, d int, c angleCase, s []float64) float64 {
	t.Helper()
	var worst float64
	bound := valueBound(d) * c.ref[0]
	for j, want := range c.ref {
		e := math.Abs(s[j] - want)
		if !(e <= bound) {
			t.Errorf("d=%d %s: %s s[%d] = %.17g, exact %.17g (error %.2f n·u of the largest, bound 4)",
				d, c.name, what, j, s[j], want, e/(float64(d)*0x1p-53*c.ref[0]))
		}
		if bound > 0 {
			worst = max(worst, e/bound)
		}
	}
	return worst
}

// TestBatchPrincipalAngles checks the accuracy contract (valueBound) of
// Batch.Values, Small.Values and Small.Factorize on every implementation,
// every n up to MaxSmall (groups with tails, strided, guarded output), on
// products of orthonormal bases against their exact values. It logs the
// largest error as a fraction of the bound: about a half on every path
// (gonum's own values of these matrices err by up to 1.2 times the bound).
func TestBatchPrincipalAngles(t *testing.T) {
	all := principalAngleCases11()
	forEachImpl(t, func(t *testing.T) {
		var worst float64
		for d := 1; d <= MaxSmall; d++ {
			cases := all[d]
			if cases == nil {
				continue
			}
			k := len(cases)
			lda, lds := d+3, d+2
			step := d*lda + 1
			a := make([]float64, k*step)
			for i, c := range cases {
				for r := 0; r < d; r++ {
					copy(a[i*step+r*lda:], c.m[r*d:(r+1)*d])
				}
			}
			sb := guarded(k*lds + 6)
			s := sb[3 : 3+k*lds]
			w := NewBatch(d)
			if err := w.Values(s, lds, a, lda, step, k); err != nil {
				t.Fatalf("d=%d: %v", d, err)
			}
			checkGuards(t, fmt.Sprintf("d=%d s", d), sb, 3, k, d, lds)
			sm := NewSmall(d)
			sv := make([]float64, d)
			u, v := make([]float64, d*d), make([]float64, d*d)
			for i, c := range cases {
				worst = max(worst, checkValuesBound(t, "Batch.Values", d, c, s[i*lds:i*lds+d]))
				if err := sm.Values(sv, c.m, d); err != nil {
					t.Fatalf("d=%d %s: Small.Values: %v", d, c.name, err)
				}
				worst = max(worst, checkValuesBound(t, "Small.Values", d, c, sv))
				if err := sm.Factorize(u, d, sv, v, d, c.m, d); err != nil {
					t.Fatalf("d=%d %s: Small.Factorize: %v", d, c.name, err)
				}
				worst = max(worst, checkValuesBound(t, "Small.Factorize", d, c, sv))
			}
		}
		t.Logf("largest error %.2f of the bound 4 n u", worst)
	})
}

// TestBatchPositionIndependent checks that a matrix's values do not depend
// on its neighbours or its lane in a group (the engine's determinism across
// workers relies on it), and equal Small.Values' on the pure-Go path.
func TestBatchPositionIndependent(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(12, 1))
		for _, d := range []int{2, 5, 12, 25} {
			const k = 11
			a := make([]float64, 0, k*d*d)
			names := []string{"random", "tiny angles", "orthogonal", "rank-deficient", "clustered"}
			for i := 0; i < k; i++ {
				a = append(a, projection(rng, d, angleCases(rng, d)[names[i%len(names)]])...)
			}
			w := NewBatch(d)
			ref := make([]float64, k*d)
			if err := w.Values(ref, d, a, d, d*d, k); err != nil {
				t.Fatal(err)
			}
			for lo := 0; lo < k; lo++ {
				for hi := lo + 1; hi <= k; hi++ {
					s := make([]float64, (hi-lo)*d)
					if err := w.Values(s, d, a[lo*d*d:], d, d*d, hi-lo); err != nil {
						t.Fatal(err)
					}
					if !sameBits(s, ref[lo*d:hi*d]) {
						t.Errorf("d=%d: matrices %d..%d alone differ from the whole batch", d, lo, hi)
					}
				}
			}
		}
	})
}
