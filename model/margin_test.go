package model

import (
	"context"
	"math"
	"testing"
)

// TestTwoMargins: Model.Mu is Explanation.Mu bit for bit, negative exactly
// when the sample is classified as its label, and the label-free
// Prediction.Margin is −μ whenever the prediction is right; without a
// label (or a foreign one) μ is NaN.
func TestTwoMargins(t *testing.T) {
	const dim, d, m = 30, 3, 8
	xs, ys, _ := synthSets(t, 83, dim, d, m, 3, 8, 0.6) // noisy: some wrong
	mod, _, err := Train(context.Background(), legacyOptions(Config{}, TrainConfig{Epochs: 2, Seed: 3, Gamma: 0.01}), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	wrong := 0
	for i, x := range xs {
		p, err := mod.Predict(Set(x))
		if err != nil {
			t.Fatal(err)
		}
		for _, label := range []int{ys[i], (ys[i] + 1) % 3} {
			ex, err := mod.Explain(Set(x), label)
			if err != nil {
				t.Fatal(err)
			}
			mu := mod.Mu(p, label)
			if math.Float64bits(mu) != math.Float64bits(ex.Mu) {
				t.Fatalf("set %d label %d: Model.Mu %v, Explanation.Mu %v", i, label, mu, ex.Mu)
			}
			if (mu < 0) != (p.Class == label) {
				t.Errorf("set %d label %d: μ %v, predicted %d", i, label, mu, p.Class)
			}
			if p.Class == label && p.Margin != -mu {
				t.Errorf("set %d: margin %v, μ %v: want margin = −μ when right", i, p.Margin, mu)
			}
		}
		if p.Class != ys[i] {
			wrong++
			if p.Margin < 0 || p.Margin > 1 {
				t.Errorf("set %d: margin %v outside [0, 1]", i, p.Margin)
			}
		}
		if v := mod.Mu(p, -1); !math.IsNaN(v) {
			t.Errorf("μ without a label = %v, want NaN", v)
		}
		if v := mod.Mu(p, 3); !math.IsNaN(v) {
			t.Errorf("μ of an unknown class = %v, want NaN", v)
		}
	}
	t.Logf("%d of %d sets misclassified", wrong, len(xs))
}
