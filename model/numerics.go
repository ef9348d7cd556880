package model

import (
	"fmt"
	"math"

	"github.com/grlgq/grlgq/engine"
	"github.com/grlgq/grlgq/kernels"
	"github.com/grlgq/grlgq/linalg"
)

// seriesBelow is the angle under which θ/sin θ is evaluated by its series:
// the first omitted term, 31θ⁶/15120, is then below 2.1e-21 relative.
const seriesBelow = 1e-3

// thetaOverSin returns θ/sin θ for θ in [0, π/2], stably: at θ = 0 (a
// prototype initialised from the training set itself) θ/sin θ is 0/0 with
// limit 1, so small angles use 1 + θ²/6 + 7θ⁴/360.
func thetaOverSin(theta float64) float64 {
	if theta < seriesBelow {
		t2 := float64(theta * theta)
		return 1 + float64(t2*(1.0/6+float64(t2*(7.0/360))))
	}
	return theta / math.Sin(theta)
}

// angle returns arccos(c) with c clamped into [0, 1] (rounding can push a
// cosine of a principal angle slightly above 1, whose arccos is NaN).
// NaN stays NaN so that callers can detect it.
func angle(c float64) float64 {
	if c > 1 {
		c = 1
	} else if c < 0 {
		c = 0
	}
	return kernels.Acos(c)
}

// engineKind returns the engine's form of the distance k.
func (k Distance) engineKind() engine.DistanceKind {
	if k == Chordal {
		return engine.Chordal
	}
	return engine.Geodesic
}

// cosine returns c clamped into [0, 1]: the cosine of a principal angle
// as the distances use it (NaN stays NaN).
func cosine(c float64) float64 {
	if c > 1 {
		return 1
	} else if c < 0 {
		return 0
	}
	return c
}

// sine2 returns sin²θ = (1 − y)(1 + y) for the clamped cosine y = cos θ:
// the engine's chordal term (1 − y is exact for y >= 1/2).
func sine2(y float64) float64 { return float64((1 - y) * (1 + y)) }

// finite reports whether v is neither NaN nor ±Inf.
func finite(v float64) bool { return v-v == 0 }

// allFinite reports whether every element of x is finite: v − v is 0 for
// a finite v and NaN otherwise, and a sum of zeros with a NaN in it is NaN
// (two sums, no branch per element).
func allFinite(x []float64) bool {
	var z0, z1 float64
	i := 0
	for ; i+1 < len(x); i += 2 {
		z0 += x[i] - x[i]
		z1 += x[i+1] - x[i+1]
	}
	if i < len(x) {
		z0 += x[i] - x[i]
	}
	return z0+z1 == 0
}

// Mu is the paper's μ = (d⁺ − d⁻)/(d⁺ + d⁻) ∈ [−1, 1] of a sample whose
// nearest prototype of its own class is at distance d⁺ and nearest of
// another class at d⁻: negative when the sample is classified correctly,
// 0 when both distances are 0. It is the one margin of training and
// explanation (every training step's, Explanation.Mu; package hard selects the
// samples with μ > −margin). Prediction.Margin, which needs no label, is
// the separation of the two nearest classes: −Mu(d⁺, d⁻) when the
// predicted class is the true one.
func Mu(dPlus, dMinus float64) float64 {
	if s := dPlus + dMinus; s > 0 {
		return (dPlus - dMinus) / s
	}
	return 0
}

// activation returns φ(μ) and φ'(μ).
func (c *TrainConfig) activation(mu float64) (phi, dphi float64) {
	if c.Activation == Sigmoid {
		s := 1 / (1 + math.Exp(-c.Beta*mu))
		return s, float64(c.Beta*s) * (1 - s)
	}
	return mu, 1
}

// imageScale returns ‖x‖ (linalg.Norm, the engine's), or an error for a
// non-finite pixel or an all-zero image.
func imageScale(x []float64) (float64, error) {
	nrm, err := linalg.Norm(x)
	if err != nil {
		return 0, err
	}
	if nrm == 0 {
		return 0, fmt.Errorf("%w: all-zero image (no direction)", ErrData)
	}
	return nrm, nil
}
