// Command bounds counts the arithmetic of one GRLGQ set step on the shapes
// of BenchmarkEpoch and compares it with the step's floor (its p
// projections), as lower bounds in vector-lane operations; see
// docs/bounds.md. It is a study, not part of the module: it re-implements
// the one-sided Jacobi iteration of package svd (round-robin order,
// tol = max(n, 8)·2^-52, the rotation formula, columns below 2^-120 ‖A‖_F²
// left alone) with counters, on products Pᵀ W of random orthonormal bases
// drawn as BenchmarkEpoch draws them (Gaussian, orthonormalised).
//
//	go run . [-trials 200]
package main

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
)

type shape struct {
	name            string
	dim, d, classes int
}

var shapes = []shape{{"eth80", 400, 5, 8}, {"mnist", 784, 12, 10}, {"yaleb", 400, 25, 28}}

func main() {
	trials := flag.Int("trials", 200, "matrices per shape")
	flag.Parse()
	fmt.Println("Per step, relative to the floor (p·D·d² FMA lanes at 8 lanes a cycle):")
	fmt.Println("shape  d  sweeps  tested  rotated | values(4-op rot)  values(2-op rot)  value stores  winners' update  winners' factorisation")
	var cyc []string
	for _, s := range shapes {
		rng := rand.New(rand.NewPCG(1, uint64(s.d)))
		var sw, te, ro float64
		for range *trials {
			m := product(rng, s.dim, s.d)
			a, b, c := count(m, s.d)
			sw += float64(a)
			te += float64(b)
			ro += float64(c)
		}
		n := float64(*trials)
		sw, te, ro = sw/n, te/n, ro/n
		d, D, p := float64(s.d), float64(s.dim), float64(s.classes)
		proj := D * d * d // FMA lanes of one projection
		norms := sw * d * d
		dots := te * d
		v4 := dots + norms + ro*4*d // rotation: two products and two FMAs per element pair
		v2 := dots + norms + ro*2*d // scaled (fast) rotation: two FMAs
		stores := ro * 2 * d        // lanes stored; a 256-bit store is 4 lanes, 1 a cycle on Zen 3
		floor := p * proj
		upd := 2 * 2 * proj                // W Q_W + P Q_P diag(α g), both winners
		fac := 2 * (dots + norms + ro*4*d) // the two winners with V (2d rows rotated), 2-op
		// Cycles: 8 FMA lanes a cycle (two 256-bit pipes), 4 store lanes a cycle.
		fmt.Printf("%-6s %2d  %5.2f  %6.0f  %7.0f | %16.3f  %16.3f  %12.3f  %15.3f  %22.3f\n",
			s.name, s.d, sw, te, ro, p*v4/floor, p*v2/floor, p*(stores/4)/(floor/8), upd/floor, fac/floor)
		cyc = append(cyc, fmt.Sprintf("%-6s %2d | %16.0f  %16.0f  %12.0f", s.name, s.d, v4/8, v2/8, stores/4))
	}
	fmt.Println("\nValues of one d x d matrix, lower bounds in cycles (8 FMA lanes, 4 store lanes a cycle):")
	fmt.Println("shape   d | FP, 4-op rotation  FP, 2-op rotation  stores")
	for _, l := range cyc {
		fmt.Println(l)
	}
}

// product returns the columns of M = Pᵀ W (column c at [c*d:]) for random
// orthonormal D x d bases P and W.
func product(rng *rand.Rand, dim, d int) []float64 {
	p, w := ortho(rng, dim, d), ortho(rng, dim, d)
	m := make([]float64, d*d)
	for c := 0; c < d; c++ {
		for r := 0; r < d; r++ {
			var s float64
			for i := 0; i < dim; i++ {
				s += p[r*dim+i] * w[c*dim+i]
			}
			m[c*d+r] = s
		}
	}
	return m
}

// ortho returns d orthonormal columns of length dim (column c at [c*dim:]):
// Gaussian entries, Gram-Schmidt twice.
func ortho(rng *rand.Rand, dim, d int) []float64 {
	a := make([]float64, dim*d)
	for i := range a {
		a[i] = rng.NormFloat64()
	}
	for c := 0; c < d; c++ {
		x := a[c*dim : c*dim+dim]
		for range 2 {
			for j := 0; j < c; j++ {
				y := a[j*dim : j*dim+dim]
				s := dot(x, y)
				for i := range x {
					x[i] -= s * y[i]
				}
			}
		}
		s := 1 / math.Sqrt(dot(x, x))
		for i := range x {
			x[i] *= s
		}
	}
	return a
}

func dot(x, y []float64) float64 {
	var s float64
	for i := range x {
		s += x[i] * y[i]
	}
	return s
}

// count runs one-sided Jacobi on the n columns of g (each of length n) and
// returns the sweeps (the last one rotates nothing), the pairs tested and
// the pairs rotated.
func count(g []float64, n int) (sweeps, tested, rotated int) {
	pairs := roundRobin(n)
	tol := float64(max(n, 8)) * 0x1p-52
	var f float64
	for i := 0; i < n*n; i++ {
		f += g[i] * g[i]
	}
	negl := f * 0x1p-120
	for range 60 {
		sweeps++
		rot := false
		for k := 0; k+1 < len(pairs); k += 2 {
			x := g[int(pairs[k])*n : int(pairs[k])*n+n]
			y := g[int(pairs[k+1])*n : int(pairs[k+1])*n+n]
			tested++
			alpha, beta, gamma := dot(x, x), dot(y, y), dot(x, y)
			if !(math.Abs(gamma) > tol*math.Sqrt(alpha)*math.Sqrt(beta)) || !(min(alpha, beta) > negl) {
				continue
			}
			rot = true
			rotated++
			zeta := (beta - alpha) / (2 * gamma)
			t := math.Copysign(1, zeta) / (math.Abs(zeta) + math.Sqrt(1+zeta*zeta))
			c := 1 / math.Sqrt(1+t*t)
			s := c * t
			for i := range x {
				x[i], y[i] = c*x[i]-s*y[i], s*x[i]+c*y[i]
			}
		}
		if !rot {
			return
		}
	}
	return
}

// roundRobin is the circle-method order of package svd: n'-1 rounds of
// n'/2 disjoint pairs (n' = n rounded up to even), pairs with the dummy
// index left out.
func roundRobin(n int) []int32 {
	m := n + n&1
	var pairs []int32
	for r := 0; r < m-1; r++ {
		for i := 0; i < m/2; i++ {
			p, q := player(i, r, m), player(m-1-i, r, m)
			if p >= n || q >= n {
				continue
			}
			pairs = append(pairs, int32(min(p, q)), int32(max(p, q)))
		}
	}
	return pairs
}

func player(pos, r, m int) int {
	if pos == 0 {
		return 0
	}
	return 1 + (pos-1+r)%(m-1)
}
