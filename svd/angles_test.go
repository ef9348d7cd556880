package svd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// principalAngleTol is the accuracy of the singular values of M = Pᵀ W
// required by the tests below: within 1e-14 of gonum's, relative to the
// largest value.
const principalAngleTol = 1e-14

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

// TestBatchPrincipalAngles checks Batch.Values (every implementation, every
// d up to MaxSmall, groups with tails) on products of orthonormal bases
// against gonum at principalAngleTol.
func TestBatchPrincipalAngles(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(11, 1))
		for d := 1; d <= MaxSmall; d++ {
			if testing.Short() && d > 16 && d != 25 && d != 32 && d != 64 {
				continue
			}
			cases := angleCases(rng, d)
			names := []string{"random", "tiny angles", "small angles", "near orthogonal", "orthogonal",
				"identical", "repeated", "rank-deficient", "clustered"}
			k := len(names)
			lda, lds := d+3, d+2
			step := d*lda + 1
			a := make([]float64, k*step)
			ms := make([][]float64, k)
			for i, name := range names {
				ms[i] = projection(rng, d, cases[name])
				for r := 0; r < d; r++ {
					copy(a[i*step+r*lda:], ms[i][r*d:(r+1)*d])
				}
			}
			sb := guarded(k*lds + 6)
			s := sb[3 : 3+k*lds]
			w := NewBatch(d)
			if err := w.Values(s, lds, a, lda, step, k); err != nil {
				t.Fatalf("d=%d: %v", d, err)
			}
			checkGuards(t, fmt.Sprintf("d=%d s", d), sb, 3, k, d, lds)
			for i, name := range names {
				want := gonumValues(t, d, d, ms[i])
				got := s[i*lds : i*lds+d]
				smax := max(want[0], got[0])
				for j := range want {
					if e := math.Abs(got[j] - want[j]); !(e <= principalAngleTol*smax) && !(smax == 0 && got[j] == 0) {
						t.Errorf("d=%d %s: s[%d] = %.17g, gonum %.17g (error %.2g of the largest)", d, name, j, got[j], want[j], e/smax)
					}
				}
			}
		}
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
