package model

import (
	"fmt"
	"math"

	"github.com/grlgq/grlgq/kernels"
	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/subspace"
	"github.com/grlgq/grlgq/svd"
)

// Side explains a sample's relation to one prototype (section 3 of the
// paper). For a set, d' = d; for a single image, d' = 1.
type Side struct {
	// Prototype is the prototype's index, Class its label.
	Prototype, Class int
	// Distance is Σ_k λ_k θ_k² (θ_1² for an image); for a Chordal model
	// Σ_k λ_k sin²θ_k (sin²θ_1).
	Distance float64
	// Angles are the principal angles θ_1 <= ... (len d').
	Angles []float64
	// Contributions are the terms λ_k θ_k² of Distance, which is their
	// sum in order (for an image, θ_1²). For a Chordal model they are
	// λ_k sin²θ_k (for an image, sin²θ_1), from the angles: their sum in
	// order is Distance to within a few units in the last place (Distance
	// is computed from the cosines).
	Contributions []float64
	// QP (d' x d') and QW (d x d') are the rotations of the SVD
	// Pᵀ W = Q_P diag(cos θ) Q_Wᵀ. Column i of QW holds the coefficients
	// with which the prototype's columns build its principal vector v_i.
	QP, QW *linalg.Dense
	// U = P Q_P and V = W Q_W are the principal vectors (D x d').
	U, V *linalg.Dense
	// PixelMaps (D x d') has column i = u_i ∘ v_i, the contribution of
	// every pixel to cos θ_i (the column sums to cos θ_i).
	PixelMaps *linalg.Dense
	// ImageContributions (m x d) is M = R Λ⁻¹ Q_P, with U ≈ X M: how much
	// each image of the set builds each principal vector. Nil for images
	// and for subspaces without Values and Right.
	ImageContributions *linalg.Dense
	// ImageSupport (len m) is each image's part in the closeness of the
	// set to the prototype, weighted as the distance weighs the angles:
	//
	//	s_j = Σ_i g_i cos θ_i a_ji,  g_i = 2 λ_i θ_i / sin θ_i = −∂d/∂cos θ_i,
	//	(Chordal: g_i = 2 λ_i cos θ_i)
	//	a_ji = M_ji N_ji,  M = R Λ⁻¹ Q_P (ImageContributions),  N = R Λ Q_P.
	//
	// a_ji is image j's share of cos θ_i: for the set's rank-d part
	// X̂ = P Λ Rᵀ (what its subspace is made of), u_i = X̂ M e_i and
	// x̂_jᵀ v_i = cos θ_i N_ji, so cos θ_i = Σ_j cos θ_i a_ji and
	// Σ_j a_ji = 1. Hence Σ_j s_j = Σ_i g_i cos θ_i: the images share the
	// first-order pull −Σ_i (∂d/∂cos θ_i) cos θ_i of the set toward the
	// prototype (λ of this prototype for local relevances; a single
	// image's explanation, or a subspace without Values and Right, has
	// none: nil).
	ImageSupport []float64
}

// Explanation explains the classification of one sample.
type Explanation struct {
	// Label is the class explained: the given label, or the predicted
	// class when none was given.
	Label int
	// Plus is the nearest prototype of class Label, Minus the nearest
	// prototype of any other class: their distances decide the sample.
	Plus, Minus Side
	// PixelMapDiff = Plus.PixelMaps − Minus.PixelMaps (D x d').
	PixelMapDiff *linalg.Dense
	// Relevance is a copy of the relevances the distances used (Plus's
	// and Minus's for local relevances: see Plus/Minus contributions).
	Relevance []float64
	// Mu is (d⁺ − d⁻)/(d⁺ + d⁻): negative when the sample is classified as
	// Label.
	Mu float64
	// ImageScores (len m) score each image of the set by its part in the
	// decision: Plus.ImageSupport[j] − Minus.ImageSupport[j], positive when
	// image j draws the set toward W⁺ more than toward W⁻ (see
	// Side.ImageSupport; RankImages orders them). Nil when the sides have
	// no ImageSupport.
	ImageScores []float64
}

// Explain explains the classification of x. With label >= 0 the
// explanation is of that class (W⁺ = nearest prototype of the label); with
// label < 0 of the predicted class. The distances and angles are those of
// Predict, bit for bit; the rotations and principal vectors come from the
// factorisation of Pᵀ W for each of the two winners. A single image x
// (len D) is its 1-D subspace u = x/‖x‖, with one principal angle to each
// prototype, θ_1 = arccos(‖Wᵀu‖), and principal vector v = W q,
// q = Wᵀu/‖Wᵀu‖ (QW). A set's images are ranked (ImageContributions,
// ImageSupport) when it carries its Values and Right (subspace.FromImages);
// given, they must fit the model's d, with positive values (else ErrData).
// Explain allocates freely.
func (m *Model) Explain(x Sample, label int) (*Explanation, error) {
	if label >= m.classes {
		return nil, fmt.Errorf("model: %w: label %d, the model has %d classes", ErrData, label, m.classes)
	}
	if x.kind() == kindSet && x.set.Basis != nil {
		if err := x.set.Basis.Validate(); err != nil {
			return nil, fmt.Errorf("model: explain: %w: %v", ErrNotFinite, err)
		}
		if err := m.checkImageFactors(x.set); err != nil {
			return nil, err
		}
	}
	s, err := m.server()
	if err != nil {
		return nil, err
	}
	var pred Prediction
	if err := s.predictTo(s.eng, &pred, x); err != nil {
		return nil, err
	}
	if label < 0 {
		label = pred.Class
	}
	ex := &Explanation{Label: label}
	plus, minus := winners(pred.Distances, m.labels, label)
	for side, k := range [2]int{plus, minus} {
		out := &ex.Plus
		if side == 1 {
			out = &ex.Minus
		}
		out.Prototype, out.Class, out.Distance = k, m.labels[k], pred.Distances[k]
		if x.kind() == kindSet {
			err = m.explainSet(out, x.set, pred.Angles[k*m.d:(k+1)*m.d])
		} else {
			err = m.explainImage(out, x.img, pred.Angles[k])
		}
		if err != nil {
			return nil, err
		}
	}
	if ex.Plus.ImageSupport != nil && ex.Minus.ImageSupport != nil {
		ex.ImageScores = make([]float64, len(ex.Plus.ImageSupport))
		for j := range ex.ImageScores {
			ex.ImageScores[j] = ex.Plus.ImageSupport[j] - ex.Minus.ImageSupport[j]
		}
	}
	ex.PixelMapDiff = difference(ex.Plus.PixelMaps, ex.Minus.PixelMaps)
	ex.Relevance = m.Relevances()
	ex.Mu = Mu(ex.Plus.Distance, ex.Minus.Distance)
	return ex, nil
}

// explainSet fills the side out (its Prototype and Distance set) for the
// set x, whose principal angles to the prototype are theta (Predict's).
func (m *Model) explainSet(out *Side, x *subspace.Subspace, theta []float64) error {
	d := m.d
	w := m.protos[out.Prototype]
	mk := make([]float64, d*d)
	s := make([]float64, d)
	linalg.ProjectTo(mk, d, x.Basis, w)
	out.QP, out.QW = linalg.NewDense(d, d), linalg.NewDense(d, d)
	if err := svd.NewSmall(d).Factorize(out.QP.Data, out.QP.Stride, s, out.QW.Data, out.QW.Stride, mk, d); err != nil {
		return stepError("explain", err)
	}
	lam := m.relevanceOf(out.Prototype)
	out.Angles = append([]float64(nil), theta...)
	out.Contributions = make([]float64, d)
	for i, th := range out.Angles {
		if m.cfg.Distance == Chordal {
			sn := math.Sin(th) // accurate at small angles, where 1 − cos²θ is not
			out.Contributions[i] = float64(lam[i] * float64(sn*sn))
			continue
		}
		out.Contributions[i] = float64(lam[i] * float64(th*th)) // summed in order: Distance
	}
	out.U, out.V = linalg.NewDense(m.dim, d), linalg.NewDense(m.dim, d)
	kernels.AB(out.U.Data, out.U.Stride, x.Basis.Data, x.Basis.Stride, out.QP.Data, out.QP.Stride, m.dim, d, d)
	kernels.AB(out.V.Data, out.V.Stride, w.Data, w.Stride, out.QW.Data, out.QW.Stride, m.dim, d, d)
	out.PixelMaps = hadamard(out.U, out.V)
	if x.Right != nil { // with Values, checked by Explain (checkImageFactors)
		out.ImageContributions = imageContributions(x.Right, x.Values, out.QP)
		out.ImageSupport = imageSupport(x.Right, x.Values, out, lam, m.cfg.Distance)
	}
	return nil
}

// checkImageFactors checks the image-set factors of a set to explain:
// without Values and Right (a basis, not from an image set) there is no
// image ranking; with either, both must be there and fit the model's d:
// len(Values) >= d, Values[:d] positive and finite (ImageContributions
// divides by them), Right m x (>= d) and finite. A half-given or
// mismatched pair was dropped without a word, and zero values gave NaN
// image scores.
func (m *Model) checkImageFactors(s *subspace.Subspace) error {
	if s.Values == nil && s.Right == nil {
		return nil
	}
	d := m.d
	switch {
	case s.Right == nil || s.Values == nil:
		return fmt.Errorf("model: explain: %w: a set with Values but no Right, or Right but no Values: give both (subspace.FromImages) or neither", ErrData)
	case len(s.Values) < d || s.Right.Cols < d || s.Right.Rows < 1:
		return fmt.Errorf("model: explain: %w: %d Values and Right of %d x %d for d = %d: want at least d of each", ErrData, len(s.Values), s.Right.Rows, s.Right.Cols, d)
	}
	for i, v := range s.Values[:d] {
		if !(v > 0 && v <= math.MaxFloat64) {
			return fmt.Errorf("model: explain: %w: Values[%d] = %v: want positive and finite singular values", ErrData, i, v)
		}
	}
	if err := s.Right.Validate(); err != nil {
		return fmt.Errorf("model: explain: %w: Right: %v", ErrNotFinite, err)
	}
	return nil
}

// explainImage fills the side out (its Prototype and Distance set) for the
// image x, whose principal angle to the prototype is theta (Predict's).
func (m *Model) explainImage(out *Side, x []float64, theta float64) error {
	u, err := subspace.FromImage(x)
	if err != nil {
		return fmt.Errorf("model: explain image: %w", err)
	}
	d := m.d
	w := m.protos[out.Prototype]
	col := make([]float64, m.dim)
	for r := range col {
		col[r] = u.Basis.Data[r*u.Basis.Stride]
	}
	y := make([]float64, d)
	kernels.AtX(y, w.Data, w.Stride, col, m.dim, d)
	nrm := math.Sqrt(kernels.Dot(y, y))
	out.QP = linalg.NewDense(1, 1)
	out.QP.Data[0] = 1
	out.QW = linalg.NewDense(d, 1)
	for i, v := range y {
		if nrm > 0 {
			out.QW.Data[i*out.QW.Stride] = v / nrm
		} else if i == 0 {
			out.QW.Data[0] = 1 // x ⟂ span(W): any unit vector is a principal vector
		}
	}
	out.Angles = []float64{theta}
	out.Contributions = []float64{out.Distance}
	out.U = u.Basis
	out.V = linalg.NewDense(m.dim, 1)
	kernels.AB(out.V.Data, out.V.Stride, w.Data, w.Stride, out.QW.Data, out.QW.Stride, m.dim, d, 1)
	out.PixelMaps = hadamard(out.U, out.V)
	return nil
}

// winners returns the nearest prototype with the label and the nearest with
// another (ties to the lowest index).
func winners(dist []float64, labels []int, label int) (plus, minus int) {
	plus, minus = -1, -1
	for k, v := range dist {
		if labels[k] == label {
			if plus < 0 || v < dist[plus] {
				plus = k
			}
		} else if minus < 0 || v < dist[minus] {
			minus = k
		}
	}
	return plus, minus
}

// hadamard returns the element-wise product of a and b.
func hadamard(a, b *linalg.Dense) *linalg.Dense {
	out := linalg.NewDense(a.Rows, a.Cols)
	for r := 0; r < a.Rows; r++ {
		o, x, y := out.Row(r), a.Row(r), b.Row(r)
		for c := range o {
			o[c] = float64(x[c] * y[c])
		}
	}
	return out
}

// difference returns a − b.
func difference(a, b *linalg.Dense) *linalg.Dense {
	out := linalg.NewDense(a.Rows, a.Cols)
	for r := 0; r < a.Rows; r++ {
		o, x, y := out.Row(r), a.Row(r), b.Row(r)
		for c := range o {
			o[c] = x[c] - y[c]
		}
	}
	return out
}

// imageContributions returns M = R Λ⁻¹ Q_P (m x d) for R (m x >=d), Λ and
// Q_P (d x d).
func imageContributions(right *linalg.Dense, values []float64, qp *linalg.Dense) *linalg.Dense {
	d := qp.Rows
	scaled := linalg.NewDense(d, d) // Λ⁻¹ Q_P
	for i := 0; i < d; i++ {
		row, src := scaled.Row(i), qp.Row(i)
		for j := range row {
			row[j] = src[j] / values[i]
		}
	}
	out := linalg.NewDense(right.Rows, d)
	kernels.AB(out.Data, out.Stride, right.Data, right.Stride, scaled.Data, scaled.Stride, right.Rows, d, d)
	return out
}
