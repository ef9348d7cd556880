package engine

import (
	"math"
	"math/big"

	"github.com/grlgq/grlgq/kernels"
)

// Bounds on the distance that Distances computes, without computing it.
//
// Distances computes, for a projection M = Pᵀ W (d x d) and relevances
// λ >= 0, the value
//
//	d̂ = fl(Σ_j λ_j θ̂_j²),  θ̂_j = Acos(clamp(σ̂_j, 0, 1)),
//
// with σ̂_1 >= ... >= σ̂_d the singular values svd.Batch.Values computes
// for M: each within 4 d u σ_1 of the exact σ_j of M as stored (svd's
// accuracy contract, u = 2^-53; the bounds below use twice that), and
// kernels.Acos within εA = 2^-47 of arccos on [0, 1] (kernels'
// TestAcosErrorBound checks a tenth of that). The sum is of d
// non-negative terms, each rounded twice, in order: its relative error is
// at most γ_{d+1} = (d+1)u/(1 − (d+1)u).
//
// The pruned searches compare intervals [lo, hi] that contain d̂, derived
// from enclosures of M's exact singular values, and compute d̂ itself
// (svd.Batch.Values, the same bits as Distances) only for prototypes whose
// intervals overlap the best one's. A prototype k is ruled out only when
// lo_k > hi_j for a prototype j of its group: then d̂_k > d̂_j, so k is not
// the nearest one whatever the ties. Every bound is rounded outwards: a
// computed lower bound is multiplied by 1 − c u and an upper one by 1 + c u
// with c above the number of roundings that formed it.
//
// Two enclosures are used:
//
//   - Tier 1, from t = ‖M‖_F² = Σ σ_j² (d² multiply-adds, traceBounds):
//     with y_j = clamp(σ̂_j, 0, 1) and θ_j = arccos y_j ∈ [0, π/2],
//     sin² θ_j = 1 − y_j² and sin² θ <= θ² <= (π²/4) sin² θ (sin θ >=
//     2θ/π), so Σ λ_j θ_j² lies between λ_min (d − Y) and λ_max (π²/4)
//     (d − Y), Y = Σ y_j². With c = 8 d u √t (>= twice the contract's
//     4 d u σ_1): Σ y_j² <= Σ (σ_j + c)² <= t + 2c √(d t) + d c² (Cauchy–
//     Schwarz), and Σ y_j² >= Σ max(σ_j − c, 0)² >= t − 2c √(d t) (for
//     σ_j >= c, (σ_j − c)² >= σ_j² − 2cσ_j; below, 0 >= σ_j² − 2cσ_j), and
//     Y <= d: both ends are capped at d (with float32 products, Engine.SetFloat32,
//     M may have σ_j > 1, which the clamp takes to 1). θ̂_j = θ_j ± εA adds at most Σ λ_j (π εA + εA²) (εA at its
//     largest, acosErrMax). t itself
//     is computed as a sum of d² rounded squares (four chains, then
//     their sum: fewer than d² additions in any chain): the exact t is
//     within γ_{d²} of it.
//   - Tier 2, from enclosures a_j <= σ_j² <= b_j of the exact squared
//     values (svd.Gram.Enclose, proved there; angleBounds): σ_j ∈
//     [√a_j, √b_j], so σ̂_j ∈ [√a_j − c, √b_j + c] with c = 8 d u √b_1, and
//     by the monotonicity of clamp and arccos θ̂_j ∈ [Acos(x_hi) − 2εA,
//     Acos(x_lo) + 2εA] (εA once for θ̂_j, once for the Acos of the end;
//     taken at the smaller angle, where it is larger; for x_hi <= 1/2
//     both ends come from asin's Taylor series at x_hi instead, with a
//     mean-value bound for arccos(x_lo): see angleBounds),
//     x_lo = min(max(√a_j − c, 0), 1), x_hi = min(√b_j + c, 1) (the clamp
//     takes a σ above 1 to 1). Then d̂ lies in
//     [(1 − γ) Σ λ_j θ_lo,j², (1 + γ) Σ λ_j θ_hi,j²]. As wide as these
//     enclosures are near σ = 1 (arccos magnifies an error δ in σ into
//     √(2δ)), they still contain d̂.
//
// Both need λ >= 0 (a negative relevance reverses the monotonicity): the
// searches take the exact route for every prototype otherwise.

// acosErr returns εA(t), a bound on |kernels.Acos(x) − arccos(x)| for the
// x in [0, 1] whose computed Acos(x) is t. kernels.Acos is math.Acos on
// amd64, π/2 − Asin(x), whose Asin takes √(1 − x·x): near x = 1 the
// rounding of x·x (at most 2^-54, and 1 − x·x is then exact) moves the
// square root by at most 2^-55/sin θ, and never by more than √(2^-54) =
// 2^-27, and the rest (the arctangent, the two subtractions from π/2)
// adds a few ulp of π/2. So εA = 2^-50 + 1.5 min(2^-55/sin θ, 2^-27);
// for t >= 2^-20 the error is far below t/2, so θ >= t/2 and sin θ >=
// t/π; below, the cap. (AcosGeneric, the other path, is within an ulp of
// arccos.) kernels' TestAcosErrorBound checks it with a factor 2 to spare.
func acosErr(t float64) float64 {
	if t < 0x1p-20 {
		return 0x1p-50 + 1.5*0x1p-27
	}
	return 0x1p-50 + 1.5*min(0x1p-55*math.Pi/t, 0x1p-27)
}

// acosErrMax is the largest acosErr.
const acosErrMax = 0x1p-50 + 1.5*0x1p-27

// ur is the unit roundoff 2^-53.
const ur = 0x1p-53

// down and up round a bound computed with at most n roundings outwards.
func down(x float64, n int) float64 { return x - float64(n+2)*ur*math.Abs(x) }
func up(x float64, n int) float64   { return x + float64(n+2)*ur*math.Abs(x) }

// traceBounds returns tier-1 bounds on d̂ from the computed t = fl(‖M‖_F²)
// (a sum of d² rounded squares), for relevances of least lmin and
// greatest lmax (>= 0) summing to lsum.
//
// excess >= max(σ_1 − 1, 0) (0 when M's singular values are known to be at
// most 1: float64 products of orthonormal bases; sigmaExcess for float32
// products). The lower end of Y then takes y_j = clamp(σ̂_j, 0, 1) >=
// (σ_j − c − excess)_+ (if σ_j − c <= 1, y_j >= σ_j − c; else y_j = 1
// >= σ_j − excess), so c + excess replaces c there.
func traceBounds(t float64, d int, lmin, lmax, lsum, excess, eps float64) (lo, hi float64) {
	sLo, sHi := sineSum(t, d, excess, eps)
	acosSlack := lsum * (math.Pi*acosErrMax + acosErrMax*acosErrMax)
	gd := int(2*d + 8)
	lo = max(down(down(lmin*sLo, 2)-acosSlack, gd), 0)
	hi = up(up(lmax*(math.Pi*math.Pi/4)*sHi, 4)+acosSlack, gd)
	return lo, hi
}

// sineSum returns bounds sLo <= Σ_j sin²θ_j <= sHi, the sines of the
// clamped computed values (d − Y, Y = Σ_j clamp(σ̂_j, 0, 1)²), from t =
// fl(‖M‖_F²): tier 1 of both distances (traceBounds, chordTraceBounds).
// excess is as for traceBounds; eps as for enclosureSlack.
func sineSum(t float64, d int, excess, eps float64) (sLo, sHi float64) {
	df := float64(d)
	g := 2 * df * df * ur // > γ_{d²}
	tlo, thi := t*(1-g), t*(1+g)
	c := up(8*df*ur*math.Sqrt(thi), 4)
	if eps > 0 {
		// σ_1 of the float64 product is at most √thi + eps.
		c = up(up(8*df*ur*up(math.Sqrt(thi)+eps, 2), 4)+eps, 1)
	}
	cross := up(2*c*math.Sqrt(df*thi), 4)
	yhi := min(up(thi+cross+df*c*c, 4), df)
	crossLo := cross
	if excess > 0 {
		crossLo = up(2*up(c+excess, 1)*math.Sqrt(df*thi), 4)
	}
	ylo := min(max(down(tlo-crossLo, 4), 0), df) // Y <= d
	if math.IsInf(excess, 1) {
		ylo = 0 // an excess not computed (boundTrace): Y >= 0 only
	}
	return max(down(df-yhi, 2), 0), up(df-ylo, 2)
}

// enclosureSlack is the error allowed, beyond the enclosures a[j] <= σ_j²
// <= b[j] (descending j), between a value σ_j and the σ̂_j an SVD of the
// same projection computes: 8·d·u·σ_1.
//
// eps > 0 (shadow.go): the enclosures are of a float32 product M32 whose
// float64 product M64, the one Distances reads, is within eps of it in
// the 2-norm; then σ_j(M64) is within eps of σ_j(M32) (Weyl), σ_1(M64) is
// at most √b_1 + eps, and σ̂_j within 8·d·u·(√b_1 + eps) + eps of σ_j(M32).
func enclosureSlack(a, b []float64, eps float64) float64 {
	s1 := up(math.Sqrt(b[0]), 1)
	if eps > 0 {
		s1 = up(s1+eps, 1)
		return up(up(8*float64(len(a))*ur*s1, 4)+eps, 1)
	}
	return up(8*float64(len(a))*ur*s1, 4)
}

// cosInterval returns xlo <= σ̂ <= xhi from the enclosure a <= σ² <= b
// and the slack c, clamped to [0, 1] (σ̂ is clamped to 1: a σ above 1
// comes from float32 products).
func cosInterval(a, b, c float64) (xlo, xhi float64) {
	return min(max(down(math.Sqrt(a), 1)-c, 0), 1), min(up(math.Sqrt(b), 1)+c, 1)
}

// angleBounds returns tier-2 bounds on d̂ from enclosures a[j] <= σ_j² <=
// b[j] (descending j, len d) and the relevances lam (len d, >= 0); eps
// as for enclosureSlack (0 but for a shadow search's float32 products).
//
// Where x_hi <= 1/2 (the angle at least 60°, the usual case between
// subspaces of high dimension) both ends of the angle come from one
// evaluation of asin's Taylor series at x_hi (asinBounds), without an
// Acos: arccos(x_hi) = π/2 − asin(x_hi) is enclosed from both sides, and
// by the mean value theorem arccos(x_lo) <= arccos(x_hi) + (x_hi − x_lo)
// (2/√3) (arccos' = −1/√(1 − x²), whose magnitude grows with |x| and is at
// most 2/√3 on [−1/2, 1/2]; x_lo >= −c here, as it is not clamped at 0,
// which only widens the interval). The computed θ̂_j = Acos(σ̂_j) is within
// εA of arccos(σ̂_j) (acosErr) and θ̂_j >= 60° − εA, so εA <= 2^-50 +
// 1.5·2^-55·3.001 < acosErrWide. The ends x_lo = √a_j (1 − 4u) − c and
// x_hi = √b_j (1 + 4u) + c are rounded outwards by the factors (the
// square root and the product are two roundings, the difference or sum
// one more, each within u of a result below the unrounded one's
// magnitude), and so are the angles: θ_lo = (π/2⁻ − s_hi − εA')(1 − 6u)
// (three roundings of a result in [1, 2), each at most u of it) and
// θ_hi = (π/2⁺ − s_lo + spread + εA')(1 + 6u) (four), with π/2⁻ < π/2 <
// π/2⁺ the two float64 neighbours of π/2.
//
// Nearer 1 the ends are Acos(x_hi) and Acos(x_lo), each widened by 2εA
// (once for θ̂_j, once for the Acos of the end; taken at the smaller
// angle, where it is larger).
//
// Two eigenvalues at a time where both take the series (asinBounds2: the
// same operations on each, interleaved, which the core overlaps; scalar
// code one angle after the other was bound by its dependency chains), the
// sums in order of j.
func angleBounds(a, b, lam []float64, eps float64) (lo, hi float64) {
	d := len(a)
	c := enclosureSlack(a, b, eps)
	var slo, shi float64
	j := 0
	for ; j+1 < d; j += 2 {
		xhi := math.Sqrt(b[j])*(1+4*ur) + c
		yhi := math.Sqrt(b[j+1])*(1+4*ur) + c
		var tlo, thi, ulo, uhi float64
		if xhi <= 0.5 && yhi <= 0.5 {
			xlo := math.Sqrt(a[j])*(1-4*ur) - c
			ylo := math.Sqrt(a[j+1])*(1-4*ur) - c
			sLo, sHi, vLo, vHi := asinBounds2(xhi, yhi)
			tlo, thi = seriesAngles(sLo, sHi, xlo, xhi)
			ulo, uhi = seriesAngles(vLo, vHi, ylo, yhi)
		} else {
			tlo, thi = angleEnds(a[j], b[j], xhi, c)
			ulo, uhi = angleEnds(a[j+1], b[j+1], yhi, c)
		}
		slo += float64(lam[j] * float64(tlo*tlo))
		shi += float64(lam[j] * float64(thi*thi))
		slo += float64(lam[j+1] * float64(ulo*ulo))
		shi += float64(lam[j+1] * float64(uhi*uhi))
	}
	if j < d {
		tlo, thi := angleEnds(a[j], b[j], math.Sqrt(b[j])*(1+4*ur)+c, c)
		slo += float64(lam[j] * float64(tlo*tlo))
		shi += float64(lam[j] * float64(thi*thi))
	}
	gd := 4*d + 8
	return max(down(slo, gd), 0), up(shi, gd)
}

// seriesAngles returns angleBounds' ends of the angle from asin's bounds
// sLo <= asin(x_hi) <= sHi (x_hi <= 1/2) and x_lo.
func seriesAngles(sLo, sHi, xlo, xhi float64) (tlo, thi float64) {
	tlo = (pio2 - sHi - acosErrWide) * (1 - 6*ur)
	thi = (pio2Up - sLo + (xhi-xlo)*twoBySqrt3 + acosErrWide) * (1 + 6*ur)
	return tlo, thi
}

// angleEnds returns angleBounds' ends of one angle from the enclosure a
// <= σ² <= b and the slack c, x_hi = √b (1 + 4u) + c computed by the
// caller: by the series where x_hi <= 1/2, by Acos above.
func angleEnds(a, b, xhi, c float64) (tlo, thi float64) {
	if xhi <= 0.5 {
		xlo := math.Sqrt(a)*(1-4*ur) - c
		sLo, sHi := asinBounds(xhi)
		return seriesAngles(sLo, sHi, xlo, xhi)
	}
	xlo, xhi := cosInterval(a, b, c)
	al := kernels.Acos(xhi)
	e := 2 * acosErr(al)
	return max(al-e, 0), kernels.Acos(xlo) + e
}

// pio2 and pio2Up are π/2 rounded down and up; twoBySqrt3 is 2/√3
// rounded up; acosErrWide bounds acosErr at angles of 60° and more (see
// angleBounds).
const (
	pio2        = 1.5707963267948966
	pio2Up      = pio2 + 0x1p-52
	twoBySqrt3  = 1.1547005383792517 + 0x1p-52
	acosErrWide = 0x1p-50 + 0x1p-52
)

// asinC holds c_1 .. c_17 of asin(y) = y + Σ_{n>=1} c_n y^(2n+1), c_n =
// (2n)! / (4^n (n!)² (2n+1)), each correctly rounded (big.Rat's nearest
// float64); asinC[0] is unused.
var asinC = func() (c [18]float64) {
	r := new(big.Rat).SetInt64(1) // (2n)! / (4^n (n!)²)
	for n := 1; n < len(c); n++ {
		r.Mul(r, big.NewRat(int64((2*n-1)*(2*n)), int64(4*n*n)))
		c[n], _ = new(big.Rat).Quo(r, big.NewRat(int64(2*n+1), 1)).Float64()
	}
	return c
}()

// asinBounds returns lo <= asin(x) <= hi for 0 <= x <= 1/2.
//
// asin(x) = x + T(x), T(x) = Σ_{n>=1} c_n x^(2n+1), every c_n > 0 and
// c_(n+1)/c_n = (2n+1)²/((2n+2)(2n+3)) < 1. The sum to n = 16, T_16, is
// below T, and the rest at most c_17 x^35/(1 − x²) <= c_17 (4/3) x^35
// (about 1.5e-13 at x = 1/2, far less below; computed as x z^17 with a
// factor 1.34 that covers its roundings). T_16 = x z P(z), z = fl(x²),
// P = C0 + z⁴ C1 + z⁸ C2 + z¹² C3 with C_i cubics by Horner's rule (four
// short independent chains): every operand is non-negative, so each
// rounding multiplies a term by at most 1 + u, and no term passes through
// more than 32 of them (z's own acting through z^15 as 15, z⁴ .. z¹²'s
// four, a cubic's six and its coefficient's, the three sums, x z and the
// last product): |T̂_16 − T_16| <= 80u T̂_16 with room. s = x + T̂_16 is
// one more rounding, and 8u s covers it and the two roundings that add
// the error terms to s in angleBounds.
func asinBounds(x float64) (lo, hi float64) {
	lo, hi, _, _ = asinBounds2(x, x)
	return lo, hi
}

// asinBounds2 is asinBounds on x and y, the same operations on each (the
// same bits), interleaved: two independent chains side by side.
func asinBounds2(x, y float64) (lo, hi, lo2, hi2 float64) {
	z, w := float64(x*x), float64(y*y)
	z2, w2 := float64(z*z), float64(w*w)
	z4, w4 := float64(z2*z2), float64(w2*w2)
	z8, w8 := float64(z4*z4), float64(w4*w4)
	z12, w12 := float64(z8*z4), float64(w8*w4)
	c0, d0 := float64(asinC[4]*z)+asinC[3], float64(asinC[4]*w)+asinC[3]
	c1, d1 := float64(asinC[8]*z)+asinC[7], float64(asinC[8]*w)+asinC[7]
	c2, d2 := float64(asinC[12]*z)+asinC[11], float64(asinC[12]*w)+asinC[11]
	c3, d3 := float64(asinC[16]*z)+asinC[15], float64(asinC[16]*w)+asinC[15]
	c0, d0 = float64(c0*z)+asinC[2], float64(d0*w)+asinC[2]
	c1, d1 = float64(c1*z)+asinC[6], float64(d1*w)+asinC[6]
	c2, d2 = float64(c2*z)+asinC[10], float64(d2*w)+asinC[10]
	c3, d3 = float64(c3*z)+asinC[14], float64(d3*w)+asinC[14]
	c0, d0 = float64(c0*z)+asinC[1], float64(d0*w)+asinC[1]
	c1, d1 = float64(c1*z)+asinC[5], float64(d1*w)+asinC[5]
	c2, d2 = float64(c2*z)+asinC[9], float64(d2*w)+asinC[9]
	c3, d3 = float64(c3*z)+asinC[13], float64(d3*w)+asinC[13]
	t := float64(float64(x*z) * (c0 + float64(z4*c1) + float64(z8*c2) + float64(z12*c3)))
	u := float64(float64(y*w) * (d0 + float64(w4*d1) + float64(w8*d2) + float64(w12*d3)))
	s, v := x+t, y+u
	rest := float64(asinC[17]*1.34) * float64(float64(x*float64(z12*z4))*z)
	rest2 := float64(asinC[17]*1.34) * float64(float64(y*float64(w12*w4))*w)
	e, f := 80*ur*t+8*ur*s, 80*ur*u+8*ur*v
	return s - e, s + e + rest, v - f, v + f + rest2
}

// sigmaExcess returns an upper bound on max(σ_1 − 1, 0) for the d x d
// matrix m (stride ld): σ_1 <= √(‖M‖_1 ‖M‖_∞) (the largest column and row
// sums of |m|), each sum of d terms rounded up. For a projection far from
// orthogonal (the usual prototype) it is 0; near an orthogonal matrix it
// is about √d − 1, and then tier 1 is loose and tier 2 decides.
func sigmaExcess(m []float64, d, ld int) float64 {
	var col [64]float64
	cs := col[:d]
	if d > len(col) {
		cs = make([]float64, d)
	}
	clear(cs)
	var rmax float64
	for i := 0; i < d; i++ {
		var r float64
		for j, v := range m[i*ld : i*ld+d] {
			a := math.Abs(v)
			r += a
			cs[j] += a
		}
		rmax = max(rmax, r)
	}
	var cmax float64
	for _, v := range cs {
		cmax = max(cmax, v)
	}
	s := up(math.Sqrt(up(up(rmax, d)*up(cmax, d), 1)), 1)
	return max(s-1, 0)
}

// lambdaRange returns the least and greatest relevance and their sum.
func lambdaRange(lam []float64) (lmin, lmax, lsum float64) {
	lmin, lmax = math.Inf(1), math.Inf(-1)
	for _, l := range lam {
		lmin, lmax = min(lmin, l), max(lmax, l)
		lsum += l
	}
	return lmin, lmax, up(lsum, len(lam))
}
