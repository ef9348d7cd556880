package kernels

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// bigAcos is arccos(x) to 200 bits, rounded to float64: the range
// reduction of acosGeneric done exactly, and the asin series summed until
// its terms vanish at that precision. It is the reference of
// TestAcosGeneric (math.Acos is π/2 − Asin(x), whose cancellation near
// x = 1 costs up to about 10 ulp of small angles).
func bigAcos(x float64) float64 {
	const prec = 200
	nf := func(v float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(v) }
	pi := nf(0)
	pi.SetString("3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706798")
	half := new(big.Float).SetPrec(prec).Quo(pi, nf(2))
	a := math.Abs(x)
	asin := func(y *big.Float) *big.Float { // y <= 1/2
		z := new(big.Float).SetPrec(prec).Mul(y, y)
		sum := new(big.Float).SetPrec(prec).Set(y)
		term := new(big.Float).SetPrec(prec).Set(y) // y z^n (2n)!/(4^n n!^2)
		for n := 1; ; n++ {
			term.Mul(term, z)
			term.Mul(term, nf(float64((2*n-1)*(2*n))))
			term.Quo(term, nf(float64(4*n*n)))
			t := new(big.Float).SetPrec(prec).Quo(term, nf(float64(2*n+1)))
			sum.Add(sum, t)
			if t.Sign() == 0 || t.MantExp(nil) < sum.MantExp(nil)-prec {
				break
			}
		}
		return sum
	}
	var r *big.Float
	if a <= 0.5 {
		r = new(big.Float).SetPrec(prec).Sub(half, asin(nf(a)))
	} else {
		y := new(big.Float).SetPrec(prec).Sub(nf(1), nf(a))
		y.Quo(y, nf(2))
		y.Sqrt(y)
		r = new(big.Float).SetPrec(prec).Mul(nf(2), asin(y))
	}
	if x < 0 {
		r = new(big.Float).SetPrec(prec).Sub(pi, r)
	}
	f, _ := r.Float64()
	return f
}

// ulps is the distance in units in the last place between two finite
// float64s of one sign.
func ulps(a, b float64) uint64 {
	x, y := math.Float64bits(a), math.Float64bits(b)
	if x > y {
		return x - y
	}
	return y - x
}

// TestAcosGeneric: within 1 ulp of arccos computed to 200 bits over
// [-1, 1] (uniform, near ±1, near the switch at ±1/2, tiny arguments),
// exact at 0 and ±1, NaN outside and for NaN; Acos is AcosGeneric or
// math.Acos.
func TestAcosGeneric(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var xs []float64
	for i := 0; i < 3000; i++ {
		xs = append(xs, 2*rng.Float64()-1)
	}
	for _, c := range []float64{1, -1, 0.5, -0.5, 0} {
		x := c
		for i := 0; i < 200; i++ {
			xs = append(xs, x, math.Nextafter(c, 0)-float64(i)*1e-17*math.Abs(c))
			x = math.Nextafter(x, 0)
		}
	}
	for e := -300; e < 0; e++ {
		xs = append(xs, math.Pow(2, float64(e)), 1-math.Pow(2, float64(e)/6))
	}
	worst, worstMath := uint64(0), uint64(0)
	for _, x := range xs {
		if x < -1 || x > 1 {
			continue
		}
		got, want := AcosGeneric(x), bigAcos(x)
		if u := ulps(got, want); u > worst {
			worst = u
			if u > 1 {
				t.Fatalf("AcosGeneric(%v) = %v, arccos %v: %d ulp", x, got, want, u)
			}
		}
		worstMath = max(worstMath, ulps(math.Acos(x), want))
		if a := Acos(x); a != got && a != math.Acos(x) {
			t.Fatalf("Acos(%v) = %v: neither AcosGeneric %v nor math.Acos %v", x, a, got, math.Acos(x))
		}
	}
	t.Logf("over %d arguments: AcosGeneric within %d ulp of arccos, math.Acos within %d", len(xs), worst, worstMath)
	for x, want := range map[float64]float64{1: 0, -1: math.Pi, 0: math.Pi / 2} {
		if got := AcosGeneric(x); got != want {
			t.Errorf("AcosGeneric(%v) = %v, want %v", x, got, want)
		}
	}
	for _, x := range []float64{math.NaN(), 1 + 1e-15, -1 - 1e-15, math.Inf(1), math.Inf(-1)} {
		if got := AcosGeneric(x); !math.IsNaN(got) {
			t.Errorf("AcosGeneric(%v) = %v, want NaN", x, got)
		}
	}
}

// TestAcosErrorBound checks the absolute error bound the engine's pruned
// searches assume of Acos on [0, 1] (engine/bounds.go, acosErr: 2^-50 +
// 1.5 min(2^-55 π/θ, 2^-27) at an angle θ >= 2^-20, the cap below) with a
// factor 2 to spare, for AcosGeneric and math.Acos (Acos is one of them):
// uniform arguments, arguments near 0, 1/2 and 1, dense ones where math.Acos
// errs most (angles of 1e-5 to 1e-3, where it takes √(1 − x·x)), tiny and
// nearly-1 ones.
func TestAcosErrorBound(t *testing.T) {
	bound := func(theta float64) float64 {
		if theta < 0x1p-20 {
			return 0x1p-50 + 1.5*0x1p-27
		}
		return 0x1p-50 + 1.5*min(0x1p-55*math.Pi/theta, 0x1p-27)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var xs []float64
	for i := 0; i < 5000; i++ {
		xs = append(xs, rng.Float64())
	}
	for i := 0; i < 20000; i++ {
		th := math.Pow(10, -5+2*rng.Float64())
		xs = append(xs, math.Cos(th))
	}
	for _, c := range []float64{0, 0.5, 1} {
		x := c
		for i := 0; i < 300; i++ {
			xs = append(xs, x)
			x = math.Nextafter(x, 0.5)
		}
	}
	for e := -300; e < 0; e++ {
		xs = append(xs, math.Pow(2, float64(e)), 1-math.Pow(2, float64(e)/6))
	}
	var worst float64 // of the error over the bound
	for _, x := range xs {
		if x < 0 || x > 1 {
			continue
		}
		want := bigAcos(x)
		for _, got := range []float64{AcosGeneric(x), math.Acos(x), Acos(x)} {
			e := math.Abs(got - want)
			r := e / bound(got)
			worst = max(worst, r)
			if !(r <= 0.5) {
				t.Fatalf("acos(%v): %v, exact %v: error %g, above half the bound %g", x, got, want, e, bound(got))
			}
		}
	}
	t.Logf("largest error %.3g of the bound", worst)
}
