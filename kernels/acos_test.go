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

// acosInputs returns arguments for TestAcosN: every branch of math.Asin
// and of its arctangent and their switch points (|x| at 0.7; r = t/|x| or
// |x|/t at 0.66 and tan(3π/8)), uniform values in [-1, 1], values near
// ±1 and ±0, tiny and subnormal ones, and what lies outside the domain
// (±Inf, NaN, beyond ±1).
func acosInputs(r *rand.Rand) []float64 {
	xs := []float64{0, math.Copysign(0, -1), 1, -1, 0.5, -0.5, 0.7, -0.7, 5e-324, -5e-324, 1e-300, 1e-8,
		math.Nextafter(1, 0), math.Nextafter(-1, 0), math.Nextafter(0.7, 1), math.Nextafter(0.7, 0),
		1.0000000000000002, -1.0000000000000002, 2, math.Inf(1), math.Inf(-1), math.NaN()}
	// r = |x|/t = 0.66 at |x| = 0.66/√(1+0.66²); r = t/|x| = tan(3π/8)
	// is beyond 0.7's other side; t/|x| = 0.66 at |x| = 1/√(1+0.66²).
	for _, c := range []float64{0.66 / math.Sqrt(1+0.66*0.66), 1 / math.Sqrt(1+0.66*0.66), 1 / math.Sqrt(1+2.414213562373095*2.414213562373095), 2.414213562373095 / math.Sqrt(1+2.414213562373095*2.414213562373095)} {
		x := c
		for i := 0; i < 40; i++ {
			xs = append(xs, x, -x)
			x = math.Nextafter(x, 2)
		}
		x = c
		for i := 0; i < 40; i++ {
			x = math.Nextafter(x, -2)
			xs = append(xs, x, -x)
		}
	}
	for i := 0; i < 20000; i++ {
		xs = append(xs, 2*r.Float64()-1, 1-math.Ldexp(r.Float64(), -r.IntN(60)), math.Ldexp(r.Float64(), -r.IntN(1070)))
	}
	return xs
}

// TestAcosN: AcosN has Acos's bits on every path (math.Acos's with the
// assembly kernels, compiled unfused, and AcosGeneric's on other
// architectures), for every length 0..40 at offsets 0..3 (every tail of
// a vector), in place and not, touching nothing beyond len(x) (guards);
// NaN for NaN and outside [-1, 1].
func TestAcosN(t *testing.T) {
	r := rand.New(rand.NewPCG(61, 62))
	xs := acosInputs(r)
	forEachImpl(t, func(t *testing.T) {
		want := make([]float64, len(xs))
		for i, x := range xs {
			want[i] = Acos(x)
		}
		same := func(a, b float64) bool {
			return math.Float64bits(a) == math.Float64bits(b) || math.IsNaN(a) && math.IsNaN(b)
		}
		// All at once.
		got := make([]float64, len(xs))
		AcosN(got, xs)
		bad := 0
		for i := range xs {
			if !same(got[i], want[i]) {
				if bad++; bad <= 10 {
					t.Errorf("AcosN(%v) = %v (%#x), Acos %v (%#x)", xs[i], got[i], math.Float64bits(got[i]), want[i], math.Float64bits(want[i]))
				}
			}
		}
		// Every length and offset, guards around, in place or not.
		for n := 0; n <= 40; n++ {
			for off := 0; off < 4; off++ {
				for _, inPlace := range []bool{false, true} {
					src := make([]float64, off+n+guardLen)
					dst := make([]float64, off+n+guardLen)
					for i := range src {
						src[i], dst[i] = guard, guard
					}
					i0 := r.IntN(len(xs) - n)
					copy(src[off:], xs[i0:i0+n])
					for i := off; i < off+n; i++ {
						dst[i] = poison
					}
					x, y := src[off:off+n], dst[off:off+n]
					if inPlace {
						y = x
					}
					AcosN(y, x)
					for i := 0; i < n; i++ {
						if !same(y[i], want[i0+i]) {
							t.Fatalf("n=%d off=%d in place %v: element %d: %v, Acos %v", n, off, inPlace, i, y[i], want[i0+i])
						}
					}
					for _, buf := range [][]float64{src, dst} {
						for i, v := range buf {
							if (i < off || i >= off+n) && math.Float64bits(v) != math.Float64bits(guard) {
								t.Fatalf("n=%d off=%d in place %v: guard at %d overwritten: %v", n, off, inPlace, i, v)
							}
						}
					}
				}
			}
		}
	})
}
