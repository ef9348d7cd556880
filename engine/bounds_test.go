package engine

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// bigAsin returns asin(x) for 0 <= x <= 1/2 to about 70 digits: its
// Taylor series to 200 terms (the rest below 4^-200) at 256 bits.
func bigAsin(x float64) *big.Float {
	const prec = 256
	f := func(v float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(v) }
	z := new(big.Float).SetPrec(prec).Mul(f(x), f(x))
	sum, term := f(x), f(x) // term: x^(2n+1) (2n)!/(4^n (n!)²)
	for n := 1; n < 200; n++ {
		term.Mul(term, z)
		term.Mul(term, f(float64((2*n-1)*(2*n))))
		term.Quo(term, f(float64(4*n*n)))
		sum.Add(sum, new(big.Float).SetPrec(prec).Quo(term, f(float64(2*n+1))))
	}
	return sum
}

// TestAsinBounds checks asinBounds' interval against asin to 70 digits
// over [0, 1/2] (uniform, clustered near 0, and the ends), and that it is
// narrow: within 2e-13 (the series' rest at 1/2) and 1e-15 below 0.4.
func TestAsinBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	xs := []float64{0, 0.5, math.Nextafter(0.5, 0), 0x1p-1074, 1e-300, 1e-8, 0.25, 0.4}
	for i := 0; i < 3000; i++ {
		xs = append(xs, 0.5*rng.Float64(), 0.5*math.Pow(rng.Float64(), 8))
	}
	for _, x := range xs {
		lo, hi := asinBounds(x)
		want := bigAsin(x)
		if want.Cmp(big.NewFloat(lo)) < 0 || want.Cmp(big.NewFloat(hi)) > 0 {
			t.Fatalf("asin(%v) = %v outside [%v, %v]", x, want.Text('g', 20), lo, hi)
		}
		if w := hi - lo; w > 2e-13 || (x < 0.4 && w > 1e-15) {
			t.Fatalf("asin(%v): interval [%v, %v] %g wide", x, lo, hi, w)
		}
	}
}

// TestAngleBoundsRoutes checks angleBounds on both of its routes (x_hi at
// most 1/2, by asin's series; above, by Acos) against the distance from
// exactly known singular values: enclosures a = σ²(1 − 1e-14), b = σ²(1 +
// 1e-14) around σ from 0 to 1, across the 1/2 where the routes meet; the
// distance from σ and from σ moved by the slack allowed must lie inside,
// and on the series' route the interval must stay within 1e-12 of it.
func TestAngleBoundsRoutes(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, d := range []int{1, 5, 12, 25} {
		for trial := 0; trial < 400; trial++ {
			sig := make([]float64, d)
			top := []float64{0.3, 0.49999, 0.5, 0.50001, 0.9, 1}[trial%6]
			for j := range sig {
				sig[j] = top * rng.Float64()
				if trial%7 == 0 {
					sig[j] = top
				}
			}
			sortDesc(sig)
			a, b := make([]float64, d), make([]float64, d)
			for j, s := range sig {
				a[j], b[j] = s*s*(1-1e-14), s*s*(1+1e-14)
			}
			lam := make([]float64, d)
			for j := range lam {
				lam[j] = rng.Float64() / float64(d)
			}
			lo, hi := angleBounds(a, b, lam, 0)
			c := enclosureSlack(a, b, 0)
			for _, shift := range []float64{-1, 0, 1} {
				var dist float64
				for j, s := range sig {
					th := math.Acos(min(max(s+shift*0.99*c, 0), 1))
					dist += lam[j] * th * th
				}
				if !(lo <= dist && dist <= hi) {
					t.Fatalf("d=%d σ=%v: distance %v outside [%v, %v]", d, sig, dist, lo, hi)
				}
				if sig[0] <= 0.49 && hi-lo > 1e-12*dist {
					t.Fatalf("d=%d σ=%v: [%v, %v] %g wide around %v", d, sig, lo, hi, hi-lo, dist)
				}
			}
		}
	}
}

func sortDesc(v []float64) {
	for i := 1; i < len(v); i++ {
		for j := i; j > 0 && v[j] > v[j-1]; j-- {
			v[j], v[j-1] = v[j-1], v[j]
		}
	}
}

// TestAngleBoundsPairs checks angleBounds, which takes two eigenvalues at
// a time through asinBounds2, against the same bounds one eigenvalue at a
// time (angleEnds, the sums in the same order): bit for bit, for d = 1..26
// (odd and even), σ on both routes and mixed within a pair, with and
// without a shadow's slack; and asinBounds2's second lane against
// asinBounds of its own argument.
func TestAngleBoundsPairs(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for d := 1; d <= 26; d++ {
		for trial := 0; trial < 200; trial++ {
			a, b, lam := make([]float64, d), make([]float64, d), make([]float64, d)
			top := []float64{0.3, 0.5, 0.7, 1}[trial%4]
			for j := range a {
				s := top * rng.Float64()
				a[j], b[j], lam[j] = s*s*(1-1e-14), s*s*(1+1e-14), rng.Float64()
			}
			eps := []float64{0, 1e-5}[trial%2]
			lo, hi := angleBounds(a, b, lam, eps)
			c := enclosureSlack(a, b, eps)
			var slo, shi float64
			for j := range a {
				tlo, thi := angleEnds(a[j], b[j], math.Sqrt(b[j])*(1+4*ur)+c, c)
				slo += float64(lam[j] * float64(tlo*tlo))
				shi += float64(lam[j] * float64(thi*thi))
			}
			gd := 4*d + 8
			wlo, whi := max(down(slo, gd), 0), up(shi, gd)
			if math.Float64bits(lo) != math.Float64bits(wlo) || math.Float64bits(hi) != math.Float64bits(whi) {
				t.Fatalf("d=%d trial %d: [%v, %v], one at a time [%v, %v]", d, trial, lo, hi, wlo, whi)
			}
		}
	}
	for i := 0; i < 2000; i++ {
		x, y := 0.5*rng.Float64(), 0.5*rng.Float64()
		lo, hi, lo2, hi2 := asinBounds2(x, y)
		xl, xh := asinBounds(x)
		yl, yh := asinBounds(y)
		if lo != xl || hi != xh || lo2 != yl || hi2 != yh {
			t.Fatalf("asinBounds2(%v, %v) = %v %v %v %v, asinBounds %v %v %v %v", x, y, lo, hi, lo2, hi2, xl, xh, yl, yh)
		}
	}
}
