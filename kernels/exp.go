package kernels

import "math"

// Exp returns e^x, with the same bits on every architecture and build: it
// is Go's portable math.exp (FreeBSD's e_exp.c: reduction x = k·ln2 + r,
// a degree-5 rational approximation of e^r, scaling by 2^k) with every
// product rounded on its own (float64(a*b)), so that no compiler fuses it
// into a multiply-add. math.Exp itself runs assembly on amd64 and arm64
// whose results differ in the last bit, which would make the class
// probabilities of a prediction differ between the machines the edge
// binary promises identical output on. Within 1 ulp of e^x.
func Exp(x float64) float64 {
	const (
		ln2Hi     = 6.93147180369123816490e-01
		ln2Lo     = 1.90821492927058770002e-10
		log2e     = 1.44269504088896338700e+00
		overflow  = 7.09782712893383973096e+02
		underflow = -7.45133219101941108420e+02
		nearZero  = 1.0 / (1 << 28)
	)
	switch {
	case x != x:
		return x
	case x > overflow:
		return math.Inf(1)
	case x < underflow:
		return 0
	case -nearZero < x && x < nearZero:
		return 1 + x
	}
	var k int
	switch {
	case x < 0:
		k = int(float64(log2e*x) - 0.5)
	case x > 0:
		k = int(float64(log2e*x) + 0.5)
	}
	hi := x - float64(float64(k)*ln2Hi)
	lo := float64(float64(k) * ln2Lo)
	return expMulti(hi, lo, k)
}

// expMulti returns e^r · 2^k where r = hi − lo and |r| <= ln2/2.
func expMulti(hi, lo float64, k int) float64 {
	const (
		p1 = 1.66666666666666657415e-01
		p2 = -2.77777777770155933842e-03
		p3 = 6.61375632143793436117e-05
		p4 = -1.65339022054652515390e-06
		p5 = 4.13813679705723846039e-08
	)
	r := hi - lo
	t := float64(r * r)
	q := p4 + float64(t*p5)
	q = p3 + float64(t*q)
	q = p2 + float64(t*q)
	q = p1 + float64(t*q)
	c := r - float64(t*q)
	y := 1 - ((lo - float64(r*c)/(2-c)) - hi)
	return math.Ldexp(y, k)
}
