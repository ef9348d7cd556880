package kernels

import "math"

// Acos returns arccos(x) in [0, π] for x in [-1, 1], NaN for NaN and for x
// outside [-1, 1].
//
// With the amd64 assembly kernels it is math.Acos. Everywhere else (the
// purego build, other architectures) it is AcosGeneric, whose every
// product is rounded on its own (float64(a*b)) so that the compiler
// cannot fuse it into a multiply-add: math.Acos's own polynomials are
// fused on arm64 and differ from amd64's in the last bit, which would
// break the purego build's promise of the same bits on every
// architecture.
func Acos(x float64) float64 { return acos(x) }

// AcosN sets dst[i] = Acos(x[i]) for every i < len(x), with Acos's bits:
// eight (AVX-512) or four (AVX2) at once with the amd64 assembly kernels,
// which carry out math.Acos's operations lane by lane without fusing any
// (the bits of math.Acos as Go compiles it for GOAMD64 below v3, the
// default; from v3 the compiler fuses math.Acos's products and sums, and
// Acos may then differ from AcosN in the last bit), one Acos at a time
// elsewhere. dst may be x itself; it panics if dst is shorter than x.
func AcosN(dst, x []float64) { acosN(dst[:len(x)], x) }

// AcosGeneric is Acos's pure-Go twin on every CPU: the same bits on every
// architecture, within 2 ulp of math.Acos.
//
// For |x| <= 1/2 it is π/2 − asin(|x|); above, 2·asin(√((1−|x|)/2)), where
// 1−|x| and the halving are exact; asin(y) for y <= 1/2 is its Taylor
// series y + y·Σ c_n y^(2n), c_n = (2n)! / (4^n (n!)² (2n+1)), to n = 24
// (the next term is below 1e-17 of y), by Horner's rule; π − acos(|x|)
// for x < 0.
func AcosGeneric(x float64) float64 { return acosGeneric(x) }

// asinCoef are c_1 .. c_24 of asinSeries, correctly rounded.
var asinCoef = [...]float64{
	0.16666666666666666,   // c_1
	0.075,                 // c_2
	0.044642857142857144,  // c_3
	0.030381944444444444,  // c_4
	0.022372159090909092,  // c_5
	0.017352764423076924,  // c_6
	0.01396484375,         // c_7
	0.011551800896139705,  // c_8
	0.009761609529194078,  // c_9
	0.008390335809616815,  // c_10
	0.0073125258735988454, // c_11
	0.006447210311889649,  // c_12
	0.005740037670841924,  // c_13
	0.005153309682319905,  // c_14
	0.004660143486915096,  // c_15
	0.004240907093679363,  // c_16
	0.003880964558837669,  // c_17
	0.0035692053938259347, // c_18
	0.003297059503473485,  // c_19
	0.0030578216492580306, // c_20
	0.002846178401108942,  // c_21
	0.00265787063820729,   // c_22
	0.0024894486782468836, // c_23
	0.002338091892111975,  // c_24
}

// π/2 and π as the sum of a float64 and the rest.
const (
	pio2Hi = 1.5707963267948966
	pio2Lo = 6.123233995736766e-17
	piHi   = 3.141592653589793
	piLo   = 1.2246467991473532e-16
)

func acosGeneric(x float64) float64 {
	switch {
	case !(x >= -1 && x <= 1):
		return math.NaN()
	case x == 1:
		return 0
	}
	a := math.Abs(x)
	var r float64
	if a <= 0.5 {
		r = pio2Hi - (asinSeries(a) - pio2Lo)
	} else {
		r = 2 * asinSeries(math.Sqrt(float64(1-a)*0.5))
	}
	if x < 0 {
		return piHi - (r - piLo)
	}
	return r
}

// asinSeries returns asin(y) for 0 <= y <= 1/2.
func asinSeries(y float64) float64 {
	z := float64(y * y)
	p := asinCoef[len(asinCoef)-1]
	for i := len(asinCoef) - 2; i >= 0; i-- {
		p = float64(p*z) + asinCoef[i]
	}
	return y + float64(float64(y*z)*p)
}
