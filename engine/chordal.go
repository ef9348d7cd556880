package engine

import (
	"fmt"
	"math"

	"github.com/grlgq/grlgq/kernels"
)

// DistanceKind selects the distance an Engine or a Shared computes from
// the principal angles θ_1 <= ... <= θ_d and the relevances λ.
type DistanceKind uint8

const (
	// Geodesic is Σ_i λ_i θ_i² (θ_1² for a single image): the weighted
	// squared geodesic distance, the default.
	Geodesic DistanceKind = iota
	// Chordal is Σ_i λ_i sin²θ_i (sin²θ_1 for a single image): the
	// weighted squared chordal (projection) distance. Unweighted it is
	// ‖P Pᵀ − W Wᵀ‖²_F / 2.
	Chordal
)

// newKind is the distance kind of a new Engine or Shared: Geodesic (a
// variable for the tests, which run the search tests with Chordal too).
var newKind = Geodesic

// String returns "geodesic" or "chordal".
func (k DistanceKind) String() string {
	switch k {
	case Geodesic:
		return "geodesic"
	case Chordal:
		return "chordal"
	}
	return fmt.Sprintf("DistanceKind(%d)", uint8(k))
}

// Value returns the distance of kind k from the singular values σ
// (descending, len d) of Pᵀ W and the relevances λ (len d), with the bits
// Distances computes from the same values, storing the angles
// θ_i = arccos(clamp(σ_i, 0, 1)) into theta unless it is nil. Geodesic's
// is the package function Distance.
func (k DistanceKind) Value(theta, sigma, lambda []float64) float64 {
	if k == Chordal {
		return weightedSines(theta, sigma, lambda)
	}
	return weightedAngles(theta, sigma, lambda)
}

// SetDistanceKind selects the distance of every later call (default
// Geodesic). The angles (theta outputs) are the same for either kind. It
// drops the pivot index, which is built for one kind.
func (e *Engine) SetDistanceKind(k DistanceKind) error {
	if k > Chordal {
		return fmt.Errorf("%w: unknown distance kind %d", ErrShape, k)
	}
	if k != e.kind {
		e.kind = k
		e.piv = nil
	}
	return nil
}

// DistanceKind returns the engine's distance kind.
func (e *Engine) DistanceKind() DistanceKind { return e.kind }

// SetDistanceKind selects the distance of a Shared (default Geodesic). It
// must be called before the Shared's first call, by the goroutine that
// made it (it is not safe for concurrent use with the calls).
func (sh *Shared) SetDistanceKind(k DistanceKind) error {
	if k > Chordal {
		return fmt.Errorf("%w: unknown distance kind %d", ErrShape, k)
	}
	sh.kind = k
	return nil
}

// DistanceKind returns the Shared's distance kind.
func (sh *Shared) DistanceKind() DistanceKind { return sh.kind }

// weightedN sets dst[k] = weighted(θ_k, σ_k, λ_k) for n prototypes, the
// i-th of them k = ks[i] (or lo + i where ks is nil) with its values σ_k
// = sigma[i*d:(i+1)*d] and relevances lambdaOf(lambda, k), storing θ_k
// into theta[k*d:(k+1)*d] unless theta is nil: the bits of weighted, the
// geodesic distances' arccos taken eight or four at a time
// (kernels.AcosN, Acos's bits) where one at a time left the vector
// units idle (BenchmarkAcos: 40 in 75 ns against 345 ns one by one).
func (e *Engine) weightedN(dst, theta, sigma, lambda []float64, lo int, ks []int32, n int) {
	d := e.d
	at := func(i int) int {
		if ks != nil {
			return int(ks[i])
		}
		return lo + i
	}
	if e.kind == Chordal || d > acosBuf {
		for i := 0; i < n; i++ {
			k := at(i)
			var th []float64
			if theta != nil {
				th = theta[k*d : (k+1)*d]
			}
			dst[k] = e.weighted(th, sigma[i*d:(i+1)*d], e.lambdaOf(lambda, k))
		}
		return
	}
	if n*d <= acosSmall {
		var buf [acosSmall]float64 // (the larger buffer's clearing cost a tenth of a d = 5 search's Go code)
		e.weightedAcos(dst, theta, sigma, lambda, at, n, buf[:])
		return
	}
	var buf [acosBuf]float64
	e.weightedAcos(dst, theta, sigma, lambda, at, n, buf[:])
}

// weightedAcos is weightedN's geodesic form with the angles' buffer buf
// (a multiple of d long).
func (e *Engine) weightedAcos(dst, theta, sigma, lambda []float64, at func(int) int, n int, buf []float64) {
	d := e.d
	per := len(buf) / d
	for i0 := 0; i0 < n; i0 += per {
		m := min(per, n-i0)
		th := buf[:m*d]
		for j, c := range sigma[i0*d : (i0+m)*d] {
			// min(max(c, 0), 1) with its bits (−0 and negatives to +0,
			// NaN kept), by branches that the values in [0, 1] predict.
			if c <= 0 {
				c = 0
			} else if c > 1 {
				c = 1
			}
			th[j] = c
		}
		kernels.AcosN(th, th)
		for i := i0; i < i0+m; i++ {
			k := at(i)
			t := th[(i-i0)*d : (i-i0+1)*d]
			if theta != nil {
				copy(theta[k*d:(k+1)*d], t)
			}
			dst[k] = sumAngles(t, e.lambdaOf(lambda, k))
		}
	}
}

// acosBuf is weightedN's batch of angles (on the stack), acosSmall its
// batch where the angles of all n prototypes fit in it.
const (
	acosBuf   = 256
	acosSmall = 64
)

// weighted returns the distance of the engine's kind from the values σ.
func (e *Engine) weighted(theta, sigma, lambda []float64) float64 {
	if e.kind == Chordal {
		return weightedSines(theta, sigma, lambda)
	}
	return weightedAngles(theta, sigma, lambda)
}

// weightedSines returns Σ_i λ_i sin²θ_i, sin²θ_i = (1 − y_i)(1 + y_i) with
// y_i = clamp(σ_i, 0, 1), storing θ_i = arccos(y_i) into theta unless it
// is nil. (1 − y)(1 + y) rather than 1 − y²: 1 − y is exact for y >= 1/2
// (Sterbenz), so sin²θ keeps the relative accuracy of y's distance to 1
// instead of losing it to the rounding of y².
func weightedSines(theta, sigma, lambda []float64) float64 {
	lambda = lambda[:len(sigma)]
	var sum float64
	for i, c := range sigma {
		y := min(max(c, 0), 1)
		if theta != nil {
			theta[i] = kernels.Acos(y)
		}
		sum += float64(lambda[i] * sine2(y))
	}
	return sum
}

// sine2 returns (1 − y)(1 + y) = sin²(arccos y) for y in [0, 1].
func sine2(y float64) float64 { return float64((1 - y) * (1 + y)) }

// Bounds on the chordal distance (the pruned searches; see bounds.go for
// the geodesic ones and the notation). Distances computes
//
//	d̂ = fl(Σ_j λ_j ŝ_j),  ŝ_j = fl(fl(1 − y_j) fl(1 + y_j)),  y_j = clamp(σ̂_j, 0, 1),
//
// and ŝ_j = (1 − y_j²)(1 + δ_j) with |δ_j| <= γ_3 (1 − y exact or one
// rounding, 1 + y one, the product one), so d̂ is within a relative
// γ_{d+4} of Σ_j λ_j (1 − y_j²) (non-negative terms, each rounded twice
// more, summed in order). No arccos enters it.
//
//   - Tier 1 (chordTraceBounds): Σ_j (1 − y_j²) = d − Y, Y = Σ y_j², and
//     bounds.go's enclosure of Y from t = fl(‖M‖_F²) holds as it is
//     (it bounds the clamped computed values): so d̂ lies in
//     [(1 − γ) λ_min (d − Y_hi), (1 + γ) min(λ_max (d − Y_lo), Σ λ)]
//     (each sin² <= 1). Unlike the geodesic tier 1 there is no factor
//     π²/4: for uniform λ tier 1 is as tight as Y's enclosure.
//   - Tier 2 (chordAngleBounds): from the enclosures a_j <= σ_j² <= b_j,
//     y_j ∈ [x_lo, x_hi] as in bounds.go, and 1 − y² decreases in y, so
//     ŝ_j/(1 + δ_j) ∈ [(1 − x_hi)(1 + x_hi), (1 − x_lo)(1 + x_lo)]: each
//     end computed and rounded outwards, weighted and summed with the
//     factor (1 ± γ).

// chordTraceBounds returns tier-1 bounds on the chordal d̂ from the
// computed t = fl(‖M‖_F²), for relevances of least lmin and greatest lmax
// (>= 0) summing to lsum.
func chordTraceBounds(t float64, d int, lmin, lmax, lsum, excess, eps float64) (lo, hi float64) {
	sLo, sHi := sineSum(t, d, excess, eps)
	gd := d + 8
	lo = max(down(lmin*sLo, gd), 0)
	hi = up(min(lmax*sHi, lsum), gd)
	return lo, hi
}

// chordAngleBounds returns tier-2 bounds on the chordal d̂ from
// enclosures a[j] <= σ_j² <= b[j] (descending j, len d) and the
// relevances lam (len d, >= 0); eps as for enclosureSlack.
func chordAngleBounds(a, b, lam []float64, eps float64) (lo, hi float64) {
	d := len(a)
	c := enclosureSlack(a, b, eps)
	var slo, shi float64
	for j := range a {
		xlo, xhi := cosInterval(a[j], b[j], c)
		sl := max(down(sine2(xhi), 4), 0)
		su := min(up(sine2(xlo), 4), 1)
		slo += float64(lam[j] * sl)
		shi += float64(lam[j] * su)
	}
	gd := 4*d + 8
	return max(down(slo, gd), 0), up(shi, gd)
}

// The pivot metric of the chordal distance. For weights 0 <= m_1 <= ...
// <= m_d (pivots.go's suffix minima of λ) let
//
//	ρ_m(X, Y) = √(Σ_j m_j sin²θ_j(X, Y)),  angles ascending.
//
// It is a (pseudo)metric on d-dimensional subspaces of R^D: the singular
// values of P_X − P_Y (orthogonal projectors) are sin θ_j, each twice, for
// the nonzero angles, and zeros (Stewart and Sun, Matrix Perturbation
// Theory, I.5.5). With the weight vector w = (m_d, m_d, m_{d−1}, m_{d−1},
// ...)/2, padded with zeros or cut to length D, Ψ(v) = max over
// permutations π of √(Σ_i w_π(i) v_i²) is a symmetric gauge function
// (a maximum of weighted Euclidean seminorms, invariant under permutations
// and signs), and by the rearrangement inequality it pairs the largest
// weights with the largest |v_i|; on the singular values of P_X − P_Y
// (at most D nonzero, 2 per nonzero angle, the largest angles meeting the
// largest weights) it is exactly ρ_m(X, Y). By von Neumann's theorem
// N(A) = Ψ(σ(A)) is a unitarily invariant (semi)norm, so
// ρ_m(X, Z) = N(P_X − P_Z) <= N(P_X − P_Y) + N(P_Y − P_Z): the triangle
// inequality LAESA needs. m <= λ entrywise gives Σ_j λ_j sin²θ_j >= ρ_m².
//
// Rounding. As in pivots.go the exact cosines are within Δσ of the
// computed σ̂ (the same Δσ), and on [0, 1] |√(1 − a²) − √(1 − b²)| <=
// √|a² − b²| <= √(2|a − b|) (and clamping to [0, 1] is 1-Lipschitz), so
// each exact sine is within √(2Δσ) of √(1 − ŷ_j²); computing the sine
// (sine2 and a square root, relative 4u of a value <= 1) adds 4u. So
// ρ_m from the computed values is within δ √(Σ m) of the exact one,
// δ = √(2Δσ) + 4u, and Σ_j λ_j (1 − ŷ_j²) >= (ρ_m(P, W) − δ √(Σ m))², of
// which d̂ is within the relative γ_{d+4} above.

// sineUncertainty returns δ for the chordal pivot metric (above) for a
// pair whose computed values have largest sv1 and whose bases are
// orthonormal to ea and eb.
func (e *Engine) sineUncertainty(sv1, ea, eb float64) float64 {
	d := float64(e.d)
	ds := 8*d*ur*sv1 + float64(e.dim+2)*ur*d*(1+ea)*(1+eb) + 2.01*(ea+eb)
	return up(math.Sqrt(2*ds), 4) + 4*ur
}

// sineRhoBounds returns bounds on the chordal ρ_m of the exact subspaces
// from computed values sv (descending) with sine uncertainty delta.
func sineRhoBounds(sv, m []float64, delta float64) (lo, hi float64) {
	var slo, shi float64
	for j, c := range sv {
		s := math.Sqrt(sine2(min(max(c, 0), 1)))
		sl, sh := max(s-delta, 0), min(s+delta, 1)
		slo += m[j] * sl * sl
		shi += m[j] * sh * sh
	}
	n := 2*len(sv) + 4
	return max(down(math.Sqrt(max(down(slo, n), 0)), 2), 0), up(math.Sqrt(up(shi, n)), 2)
}

// uncertainty and rhoOf are the pivot metric's δ and bounds for the
// engine's kind.
func (e *Engine) uncertainty(sv1, ea, eb float64) float64 {
	if e.kind == Chordal {
		return e.sineUncertainty(sv1, ea, eb)
	}
	return e.angleUncertainty(sv1, ea, eb)
}

func (e *Engine) rhoOf(sv, m []float64, delta float64) (lo, hi float64) {
	if e.kind == Chordal {
		return sineRhoBounds(sv, m, delta)
	}
	return rhoBounds(sv, m, delta)
}
