package model

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/subspace"
)

// TestPredictNonOrthonormal: every prediction method refuses a set whose
// basis training would refuse (max |PᵀP − I| over 1e-6), with ErrData and
// training's message, and one that holds a NaN with ErrNotFinite; a basis
// within the tolerance is classified. Both the model that computes every
// distance, one whose labels take the pruned search, and one with fewer
// prototypes than d.
func TestPredictNonOrthonormal(t *testing.T) {
	small := trainedModel(t, RelevanceGlobal)
	xs, _ := synth(t, 76, 16, 3, 3, 1, 0.3)
	big, bx, _ := searchModel(t, 77)
	fx, fy := synth(t, 78, 16, 5, 2, 3, 0.3)
	few := trainSmall(t, Sets(fx), fy, 1) // p·d < d²: the Gram outgrows the angles
	for _, c := range []struct {
		name string
		m    *Model
		x    *subspace.Subspace
	}{{"every distance", small, xs[0]}, {"pruned search", big, bx[0]}, {"2 prototypes, d = 5", few, fx[0]}} {
		m := c.m
		// Column 0 scaled by 1+eps: max |PᵀP − I| = 2eps + eps².
		scaled := func(eps float64) *subspace.Subspace {
			b := linalg.NewDense(c.x.Basis.Rows, c.x.Basis.Cols)
			b.CopyFrom(c.x.Basis)
			for r := 0; r < b.Rows; r++ {
				b.Set(r, 0, b.At(r, 0)*(1+eps))
			}
			return &subspace.Subspace{Basis: b}
		}
		nan := scaled(0)
		nan.Basis.Set(2, 1, math.NaN())
		for _, s := range []struct {
			what string
			x    *subspace.Subspace
			want error
		}{{"2e-7 off", scaled(1e-7), nil}, {"2e-6 off", scaled(1e-6), ErrData}, {"0.2 off", scaled(0.1), ErrData}, {"NaN", nan, ErrNotFinite}} {
			x := Set(s.x)
			var p Prediction
			_, errExplain := m.Explain(x, -1)
			_, errBatch := m.PredictBatch([]Sample{x, Set(c.x)})
			_, errLabels := m.PredictLabels([]Sample{Set(c.x), x})
			_, errScore := m.Score([]Sample{x}, []int{0})
			_, errDist := m.Distances([]Sample{x})
			for what, err := range map[string]error{
				"PredictTo": m.PredictTo(&p, x), "Explain": errExplain, "PredictBatch": errBatch,
				"PredictLabels": errLabels, "Score": errScore, "Distances": errDist,
			} {
				if s.want == nil {
					if err != nil {
						t.Errorf("%s, %s, %s: %v", c.name, s.what, what, err)
					}
					continue
				}
				if !errors.Is(err, s.want) {
					t.Errorf("%s, %s, %s: %v, want %v", c.name, s.what, what, err, s.want)
					continue
				}
				if s.want == ErrData && !strings.Contains(err.Error(), "basis columns not orthonormal (max |PᵀP − I| = ") {
					t.Errorf("%s, %s, %s: %v, want training's message", c.name, s.what, what, err)
				}
			}
			if s.want != nil {
				continue
			}
			// Within the tolerance: the prediction of the basis, whatever
			// the check did with the Prediction's memory.
			want := enginePredictions(t, m, []Sample{x})[0]
			if err := m.PredictTo(&p, x); err != nil || !equalFloats(p.Distances, want.Distances) || !equalFloats(p.Angles, want.Angles) {
				t.Errorf("%s, %s: prediction %v %v, want %v %v (%v)", c.name, s.what, p.Distances, p.Angles, want.Distances, want.Angles, err)
			}
			if a := testing.AllocsPerRun(20, func() { _ = m.PredictTo(&p, x) }); a != 0 && !raceEnabled {
				t.Errorf("%s, %s: PredictTo: %v allocations", c.name, s.what, a)
			}
		}
	}
	// Training refuses what prediction refuses, with the same message.
	ys := []int{0, 1, 2}
	bad := []*subspace.Subspace{xs[0], xs[1], xs[2]}
	b := linalg.NewDense(16, 3)
	b.CopyFrom(xs[1].Basis)
	for r := 0; r < b.Rows; r++ {
		b.Set(r, 0, b.At(r, 0)*(1+1e-6))
	}
	bad[1] = &subspace.Subspace{Basis: b}
	if _, err := Init(DefaultOptions(), Sets(bad), ys); !errors.Is(err, ErrData) || !strings.Contains(err.Error(), "set 1: basis columns not orthonormal (max |PᵀP − I| = ") {
		t.Errorf("Init: %v", err)
	}
}
