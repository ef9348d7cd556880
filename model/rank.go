package model

import (
	"math"
	"sort"

	"github.com/grlgq/grlgq/kernels"
	"github.com/grlgq/grlgq/linalg"
)

// ImageScore is one image of an explained set and its score
// (Explanation.ImageScores).
type ImageScore struct {
	// Image is the image's column in the set X (0-based).
	Image int
	// Score is ImageScores[Image]: positive when the image draws the set
	// toward the explained class.
	Score float64
}

// RankImages returns the images of the explained set by their part in the
// decision, the largest |ImageScores[j]| first (ties: the lower index),
// both signs together: an image that argues against the explained class
// (a culprit of a misclassification) matters as much as one that argues
// for it. It returns nil for an explanation of a single image, or of a
// subspace without Values and Right (no images known).
func (ex *Explanation) RankImages() []ImageScore {
	if ex.ImageScores == nil {
		return nil
	}
	out := make([]ImageScore, len(ex.ImageScores))
	for j, s := range ex.ImageScores {
		out[j] = ImageScore{Image: j, Score: s}
	}
	sort.SliceStable(out, func(a, b int) bool { return math.Abs(out[a].Score) > math.Abs(out[b].Score) })
	return out
}

// imageSupport returns Side.ImageSupport for the set with right singular
// vectors right (m x >=d) and singular values values, explained against a
// prototype with relevances lam, whose principal angles and Q_P the side
// holds: s_j = Σ_i g_i cos θ_i a_ji, g_i = 2 λ_i θ_i / sin θ_i,
// a_ji = M_ji N_ji, M = R Λ⁻¹ Q_P, N = R Λ Q_P (Chordal: g_i = 2 λ_i cos θ_i,
// −∂(λ_i sin²θ_i)/∂cos θ_i).
func imageSupport(right *linalg.Dense, values []float64, sd *Side, lam []float64, dist Distance) []float64 {
	d, m := sd.QP.Rows, right.Rows
	mm, nn := scaledRight(right, values, sd.QP, -1), scaledRight(right, values, sd.QP, 1)
	g := make([]float64, d) // g_i cos θ_i
	for i, th := range sd.Angles {
		if dist == Chordal {
			c := math.Cos(th)
			g[i] = float64(float64(2*lam[i])*c) * c
			continue
		}
		g[i] = float64(float64(2*lam[i])*thetaOverSin(th)) * math.Cos(th)
	}
	out := make([]float64, m)
	for j := range out {
		a, b := mm.Row(j), nn.Row(j)
		var s float64
		for i, gi := range g {
			s += float64(gi * float64(a[i]*b[i]))
		}
		out[j] = s
	}
	return out
}

// scaledRight returns R Λ^p Q_P (m x d) for p = ±1: R (m x >=d), Λ the d
// leading values, Q_P (d x d).
func scaledRight(right *linalg.Dense, values []float64, qp *linalg.Dense, p int) *linalg.Dense {
	d := qp.Rows
	scaled := linalg.NewDense(d, d)
	for i := 0; i < d; i++ {
		f := values[i]
		if p < 0 {
			f = 1 / f
		}
		row, src := scaled.Row(i), qp.Row(i)
		for j := range row {
			row[j] = float64(src[j] * f)
		}
	}
	out := linalg.NewDense(right.Rows, d)
	kernels.AB(out.Data, out.Stride, right.Data, right.Stride, scaled.Data, scaled.Stride, right.Rows, d, d)
	return out
}
