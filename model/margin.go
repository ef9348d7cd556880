package model

import "math"

// Mu is the paper's μ = (d⁺ − d⁻)/(d⁺ + d⁻) of the prediction p for the
// true class label: d⁺ the distance to the nearest prototype of that
// class, d⁻ to the nearest of another class (ties to the lowest index).
// It is negative when p's sample is classified as label, the same bits as
// Explanation.Mu of that sample and label. It returns NaN when label is
// not one of the model's classes (a sample without a label) or p does not
// hold this model's distances.
func (m *Model) Mu(p *Prediction, label int) float64 {
	if label < 0 || label >= m.classes || len(p.Distances) != len(m.labels) {
		return math.NaN()
	}
	plus, minus := winners(p.Distances, m.labels, label)
	if plus < 0 || minus < 0 {
		return math.NaN()
	}
	return Mu(p.Distances[plus], p.Distances[minus])
}
