package svd

import "math"

// roundRobin returns the pair order of one sweep over n columns: n' - 1
// rounds (n' = n rounded up to even) of n'/2 disjoint pairs each, by the
// circle method (index 0 fixed, the others rotate one place per round).
// Pairs with the dummy index n (odd n) are left out. Within a round the
// pairs are disjoint, so their rotations are independent.
func roundRobin(n int) []int32 {
	m := n + n&1
	var pairs []int32
	for r := 0; r < m-1; r++ {
		for i := 0; i < m/2; i++ {
			p := player(i, r, m)
			q := player(m-1-i, r, m)
			if p >= n || q >= n {
				continue
			}
			if p > q {
				p, q = q, p
			}
			pairs = append(pairs, int32(p), int32(q))
		}
	}
	return pairs
}

// player is the index at position pos in round r of the circle method on m
// players.
func player(pos, r, m int) int {
	if pos == 0 {
		return 0
	}
	return 1 + (pos-1+r)%(m-1)
}

// jacobi runs one-sided (Hestenes) Jacobi on the n rows of g (length m,
// stride ldg), which are the columns of the matrix being factorised: it
// rotates pairs of rows until every pair (x, y) satisfies
// |x·y| <= tol ‖x‖ ‖y‖, applying the same rotations to the rows of v
// (length n, stride ldv) when v is not nil. It returns false if a sweep
// with no rotation has not happened within MaxSweeps sweeps.
//
// The rows of g must be scaled so that squared norms cannot overflow (see
// loadTransposed).
func jacobi(g []float64, ldg int, v []float64, ldv int, n, m int, pairs []int32, tol, negl float64) bool {
	for sweep := 0; sweep < MaxSweeps; sweep++ {
		rotated := false
		for k := 0; k+1 < len(pairs); k += 2 {
			p, q := int(pairs[k]), int(pairs[k+1])
			x := g[p*ldg : p*ldg+m]
			y := g[q*ldg : q*ldg+m]
			alpha, beta, gamma := dot3(x, y)
			if !(math.Abs(gamma) > float64(tol*math.Sqrt(alpha))*math.Sqrt(beta)) || !(min(alpha, beta) > negl) {
				continue
			}
			rotated = true
			c, s := rotation(alpha, beta, gamma)
			rotate(x, y, c, s)
			if v != nil {
				rotate(v[p*ldv:p*ldv+n], v[q*ldv:q*ldv+n], c, s)
			}
		}
		if !rotated {
			return true
		}
	}
	return false
}

// dot3 returns x·x, y·y and x·y.
func dot3(x, y []float64) (alpha, beta, gamma float64) {
	y = y[:len(x)]
	var a0, a1, b0, b1, g0, g1 float64
	i := 0
	for ; i+2 <= len(x); i += 2 {
		x0, x1 := x[i], x[i+1]
		y0, y1 := y[i], y[i+1]
		a0 += float64(x0 * x0)
		a1 += float64(x1 * x1)
		b0 += float64(y0 * y0)
		b1 += float64(y1 * y1)
		g0 += float64(x0 * y0)
		g1 += float64(x1 * y1)
	}
	if i < len(x) {
		x0, y0 := x[i], y[i]
		a0 += float64(x0 * x0)
		b0 += float64(y0 * y0)
		g0 += float64(x0 * y0)
	}
	return a0 + a1, b0 + b1, g0 + g1
}

// rotation returns the cosine and sine of the Jacobi rotation that makes
// x' = c x - s y and y' = s x + c y orthogonal, given α = x·x, β = y·y,
// γ = x·y with γ != 0:
//
//	t = sign(Δ) 2γ / (|Δ| + sqrt(Δ² + 4γ²)),  Δ = β - α,  c = 1/sqrt(1+t²),  s = c t
//
// (the smaller root of t² + 2ζt - 1 = 0, ζ = Δ/2γ, so |t| <= 1). Δ and γ are
// first divided by max(α, β): the formula is homogeneous of degree 0, and
// this keeps Δ² + 4γ² away from underflow for tiny columns.
func rotation(alpha, beta, gamma float64) (c, s float64) {
	r := 1 / max(alpha, beta)
	d := float64((beta - alpha) * r)
	g := float64(gamma * r)
	t := float64(2*g) / (math.Abs(d) + math.Sqrt(float64(d*d)+float64(float64(4*g)*g)))
	if d < 0 {
		t = -t
	}
	c = 1 / math.Sqrt(1+float64(t*t))
	s = float64(c * t)
	return c, s
}

// rotate sets x, y = c x - s y, s x + c y.
func rotate(x, y []float64, c, s float64) {
	y = y[:len(x)]
	for i, xi := range x {
		yi := y[i]
		x[i] = float64(c*xi) - float64(s*yi)
		y[i] = float64(s*xi) + float64(c*yi)
	}
}

// negligible returns the threshold on squared row norms below which rows of
// g (n rows of length m, stride ld) are treated as zero: 2^-120 ‖g‖_F².
func negligible(g []float64, ld, n, m int) float64 {
	var f float64
	for i := 0; i < n; i++ {
		f += dot(g[i*ld:i*ld+m], g[i*ld:i*ld+m])
	}
	return float64(f * 0x1p-120)
}
