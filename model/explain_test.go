package model

import (
	"context"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/subspace"
)

func TestExplainSet(t *testing.T) {
	const dim, d, m = 30, 3, 8
	xs, ys, raw := synthSets(t, 81, dim, d, m, 3, 5, 0.1)
	model, _, err := Train(context.Background(), legacyOptions(Config{}, TrainConfig{Epochs: 3, Seed: 2, Gamma: 0.01}), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 6; i++ {
		x := xs[i]
		pred, err := model.Predict(Set(x))
		if err != nil {
			t.Fatal(err)
		}
		for _, label := range []int{-1, ys[i], (ys[i] + 1) % 3} {
			ex, err := model.Explain(Set(x), label)
			if err != nil {
				t.Fatal(err)
			}
			want := label
			if label < 0 {
				want = pred.Class
			}
			if ex.Label != want || ex.Plus.Class != want || ex.Minus.Class == want {
				t.Fatalf("label %d: explained %d with W⁺ of class %d, W⁻ of class %d", label, ex.Label, ex.Plus.Class, ex.Minus.Class)
			}
			// W⁺ is the nearest prototype of the label, W⁻ the nearest other.
			for k, dk := range pred.Distances {
				if model.labels[k] == want && dk < pred.Distances[ex.Plus.Prototype] || model.labels[k] != want && dk < pred.Distances[ex.Minus.Prototype] {
					t.Errorf("prototype %d (class %d) is nearer than the explained winner", k, model.labels[k])
				}
			}
			for _, s := range []Side{ex.Plus, ex.Minus} {
				checkSide(t, s, model, pred.Distances[s.Prototype])
				// The angles are Predict's, bit for bit.
				for j, th := range s.Angles {
					if math.Float64bits(th) != math.Float64bits(pred.Angles[s.Prototype*d+j]) {
						t.Errorf("θ_%d %v, predicted %v", j+1, th, pred.Angles[s.Prototype*d+j])
					}
				}
				// U = X M: the image contributions rebuild the principal vectors.
				var xm mat.Dense
				xm.Mul(toMat(raw[i]), toMat(s.ImageContributions))
				var diff mat.Dense
				diff.Sub(&xm, toMat(s.U))
				if e := mat.Norm(&diff, math.Inf(1)); e > 1e-10 {
					t.Errorf("‖X M − U‖ = %g", e)
				}
				if s.ImageContributions.Rows != m || s.ImageContributions.Cols != d {
					t.Errorf("image contributions %d x %d", s.ImageContributions.Rows, s.ImageContributions.Cols)
				}
			}
			if math.Abs(ex.Mu-(ex.Plus.Distance-ex.Minus.Distance)/(ex.Plus.Distance+ex.Minus.Distance)) > 1e-15 {
				t.Error("μ")
			}
			for r := 0; r < dim; r++ {
				for c := 0; c < d; c++ {
					if ex.PixelMapDiff.At(r, c) != ex.Plus.PixelMaps.At(r, c)-ex.Minus.PixelMaps.At(r, c) {
						t.Fatal("pixel map difference")
					}
				}
			}
		}
	}
}

// checkSide checks the identities of one explained prototype; its
// distance must be dist, Predict's, bit for bit, and the sum in order of
// its contributions.
func checkSide(t *testing.T, s Side, m *Model, dist float64) {
	t.Helper()
	var sum float64
	for _, c := range s.Contributions {
		sum += c
	}
	if math.Float64bits(sum) != math.Float64bits(s.Distance) || math.Float64bits(s.Distance) != math.Float64bits(dist) {
		t.Errorf("contributions sum %v, distance %v, predicted %v", sum, s.Distance, dist)
	}
	for i, th := range s.Angles {
		if i > 0 && th < s.Angles[i-1] {
			t.Error("angles not ascending")
		}
		// Pixel maps sum to cos θ_i, and u_i·v_i = cos θ_i.
		var ps float64
		for r := 0; r < s.PixelMaps.Rows; r++ {
			ps += s.PixelMaps.At(r, i)
		}
		if math.Abs(ps-math.Cos(th)) > 1e-12 {
			t.Errorf("pixel map %d sums to %v, cos θ = %v", i, ps, math.Cos(th))
		}
	}
	if e := linalg.OrthonormalityError(s.U); e > 1e-13 {
		t.Errorf("U orthonormality %g", e)
	}
	if e := linalg.OrthonormalityError(s.V); e > 1e-13 {
		t.Errorf("V orthonormality %g", e)
	}
	// V = W Q_W.
	var v mat.Dense
	v.Mul(toMat(m.protos[s.Prototype]), toMat(s.QW))
	var diff mat.Dense
	diff.Sub(&v, toMat(s.V))
	if e := mat.Norm(&diff, math.Inf(1)); e > 1e-13 {
		t.Errorf("V − W Q_W = %g", e)
	}
}

func TestExplainOnImage(t *testing.T) {
	m := trainedModel(t, RelevanceGlobal)
	xs, _ := synth(t, 82, 16, 3, 3, 1, 0.3)
	x := make([]float64, m.dim)
	for r := range x {
		x[r] = 3*xs[0].Basis.At(r, 0) + xs[0].Basis.At(r, 1)
	}
	pred, err := m.Predict(Image(x))
	if err != nil {
		t.Fatal(err)
	}
	ex, err := m.Explain(Image(x), -1)
	if err != nil {
		t.Fatal(err)
	}
	if ex.Label != pred.Class || ex.Plus.Prototype != pred.Nearest {
		t.Errorf("explained %d/%d, predicted %d/%d", ex.Label, ex.Plus.Prototype, pred.Class, pred.Nearest)
	}
	for _, s := range []Side{ex.Plus, ex.Minus} {
		if len(s.Angles) != 1 || s.QW.Rows != m.d || s.QW.Cols != 1 || s.ImageContributions != nil {
			t.Fatal("image explanation shapes")
		}
		if math.Float64bits(s.Angles[0]) != math.Float64bits(pred.Angles[s.Prototype]) {
			t.Errorf("θ %v, predicted %v", s.Angles[0], pred.Angles[s.Prototype])
		}
		checkSide(t, s, m, pred.Distances[s.Prototype])
	}
}

func TestDistances(t *testing.T) {
	m := trainedModel(t, RelevanceGlobal)
	xs, _ := synth(t, 83, 16, 3, 3, 2, 0.3)
	dm, err := m.Distances(Sets(xs))
	if err != nil {
		t.Fatal(err)
	}
	np := m.NumPrototypes()
	if len(dm) != len(xs)*np {
		t.Fatalf("%d distances", len(dm))
	}
	for i, x := range xs {
		p, _ := m.Predict(Set(x))
		for k, v := range p.Distances {
			if dm[i*np+k] != v {
				t.Fatal("distance matrix differs from Predict")
			}
		}
	}
	imgs := make([]float64, 3*16)
	for i := range imgs {
		imgs[i] = float64(i%7) - 3
	}
	rows := [][]float64{imgs[:16], imgs[16:32], imgs[32:]}
	im, err := m.Distances(Images(rows))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		p, _ := m.Predict(Image(imgs[i*16 : (i+1)*16]))
		for k, v := range p.Distances {
			if im[i*np+k] != v {
				t.Fatal("image distance matrix differs from Predict of the image")
			}
		}
	}
}

// TestExplainImageFactors: a set with both Values and Right gets an image
// ranking, one with neither none; a half-given, short or zero pair is
// ErrData, where it was dropped without a word (or gave NaN scores).
func TestExplainImageFactors(t *testing.T) {
	const dim, d, m = 30, 3, 8
	xs, ys, _ := synthSets(t, 82, dim, d, m, 3, 5, 0.1)
	mod, _, err := Train(context.Background(), legacyOptions(Config{}, TrainConfig{Epochs: 2, Seed: 3}), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	x := xs[0]
	if x.Values == nil || x.Right == nil {
		t.Fatal("the synthetic sets carry no Values and Right")
	}
	ex, err := mod.Explain(Set(x), -1)
	if err != nil || len(ex.Plus.ImageSupport) != m {
		t.Fatalf("full set: %v, %d image scores", err, len(ex.Plus.ImageSupport))
	}
	if ex, err := mod.Explain(Set(&subspace.Subspace{Basis: x.Basis}), -1); err != nil || ex.Plus.ImageSupport != nil {
		t.Fatalf("basis only: %v, image scores %v", err, ex.Plus.ImageSupport)
	}
	zero := append([]float64(nil), x.Values...)
	zero[d-1] = 0
	for what, s := range map[string]*subspace.Subspace{
		"Right only":   {Basis: x.Basis, Right: x.Right},
		"Values only":  {Basis: x.Basis, Values: x.Values},
		"short Values": {Basis: x.Basis, Values: x.Values[:d-1], Right: x.Right},
		"zero value":   {Basis: x.Basis, Values: zero, Right: x.Right},
	} {
		if _, err := mod.Explain(Set(s), -1); !errors.Is(err, ErrData) {
			t.Errorf("%s: %v, want ErrData", what, err)
		}
	}
}
