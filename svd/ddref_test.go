package svd

import (
	"math"
	"slices"
)

// dd is a double-double number hi + lo (|lo| <= ulp(hi)/2), about 106
// bits: the tests' reference singular values are computed with it, so
// that an error measured against them is the error of the path under test
// alone (gonum's own error is of the same order as ours).
type dd struct{ hi, lo float64 }

func twoSum(a, b float64) dd {
	s := a + b
	bb := s - a
	return dd{s, (a - (s - bb)) + (b - bb)}
}

func quickTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

func twoProd(a, b float64) dd {
	p := a * b
	return dd{p, math.FMA(a, b, -p)}
}

func (a dd) add(b dd) dd {
	s := twoSum(a.hi, b.hi)
	t := twoSum(a.lo, b.lo)
	s.lo += t.hi
	s = quickTwoSum(s.hi, s.lo)
	s.lo += t.lo
	return quickTwoSum(s.hi, s.lo)
}

func (a dd) neg() dd { return dd{-a.hi, -a.lo} }

func (a dd) sub(b dd) dd { return a.add(b.neg()) }

func (a dd) mul(b dd) dd {
	p := twoProd(a.hi, b.hi)
	p.lo += a.hi*b.lo + a.lo*b.hi
	return quickTwoSum(p.hi, p.lo)
}

func (a dd) div(b dd) dd {
	q1 := a.hi / b.hi
	r := a.sub(b.mul(dd{q1, 0}))
	q2 := r.hi / b.hi
	r = r.sub(b.mul(dd{q2, 0}))
	q3 := r.hi / b.hi
	q := quickTwoSum(q1, q2)
	return q.add(dd{q3, 0})
}

func (a dd) sqrt() dd {
	if a.hi <= 0 {
		return dd{}
	}
	x := math.Sqrt(a.hi)
	// one Newton step in dd: x + (a - x²) / 2x
	r := a.sub(twoProd(x, x))
	return twoSum(x, r.hi/(2*x))
}

func (a dd) abs() dd {
	if a.hi < 0 {
		return a.neg()
	}
	return a
}

// ddValues returns the singular values of the n x n matrix a (row-major,
// stride n) by one-sided Jacobi in double-double arithmetic, rounded to
// float64, descending: accurate to about 1e-30 of the largest.
func ddValues(n int, a []float64) []float64 {
	g := make([][]dd, n) // columns
	for c := range g {
		g[c] = make([]dd, n)
		for r := range g[c] {
			g[c][r] = dd{a[r*n+c], 0}
		}
	}
	dot := func(x, y []dd) dd {
		var s dd
		for i := range x {
			s = s.add(x[i].mul(y[i]))
		}
		return s
	}
	norm := make([]dd, n) // squared column norms, updated after each rotation
	for c := range g {
		norm[c] = dot(g[c], g[c])
	}
	// Columns orthogonal to 1e-24 leave an error of at most n·1e-24 of the
	// largest value in the column norms: far below what the tests resolve.
	for sweep := 0; sweep < 100; sweep++ {
		rotated := false
		for p := 0; p < n; p++ {
			for q := p + 1; q < n; q++ {
				x, y := g[p], g[q]
				al, be, ga := norm[p], norm[q], dot(x, y)
				if math.Abs(ga.hi) <= 1e-24*math.Sqrt(al.hi*be.hi) || ga.hi == 0 {
					continue
				}
				rotated = true
				// t = sign(ζ) / (|ζ| + sqrt(1+ζ²)), ζ = (β-α)/2γ
				zeta := be.sub(al).div(ga.add(ga))
				t := dd{1, 0}.div(zeta.abs().add(dd{1, 0}.add(zeta.mul(zeta)).sqrt()))
				if zeta.hi < 0 {
					t = t.neg()
				}
				c := dd{1, 0}.div(dd{1, 0}.add(t.mul(t)).sqrt())
				s := c.mul(t)
				for i := range x {
					xi, yi := x[i], y[i]
					x[i] = c.mul(xi).sub(s.mul(yi))
					y[i] = s.mul(xi).add(c.mul(yi))
				}
				norm[p], norm[q] = al.sub(t.mul(ga)), be.add(t.mul(ga))
			}
		}
		if !rotated {
			break
		}
	}
	sv := make([]float64, n)
	for c := range sv {
		v := dot(g[c], g[c]).sqrt()
		sv[c] = v.hi + v.lo
	}
	slices.Sort(sv) // descending, as the kernels return them
	slices.Reverse(sv)
	return sv
}
