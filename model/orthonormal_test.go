package model

import (
	"errors"
	"fmt"
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

// TestCheckSetsParallel: a batch large enough to check its bases on
// several goroutines names the first bad set whatever the split (two bad
// sets, in different parts), as one worker does, and classifies a batch
// of good ones as the single-sample path does.
func TestCheckSetsParallel(t *testing.T) {
	xs, ys := synth(t, 79, 256, 4, 3, 2, 0.3)
	m := trainSmall(t, Sets(xs), ys, 1)
	good := xs[0]
	n := checkSetsWork/(m.Dim()*m.SubspaceDim()*m.SubspaceDim())*4 + 3 // four parts, one block
	if n > scoreBlock {
		t.Fatalf("%d sets: more than a block", n)
	}
	bad := &subspace.Subspace{Basis: linalg.NewDense(good.Basis.Rows, good.Basis.Cols)}
	bad.Basis.CopyFrom(good.Basis)
	bad.Basis.Set(0, 0, bad.Basis.At(0, 0)*1.5)
	x := make([]Sample, n)
	for i := range x {
		x[i] = Set(good)
	}
	i1, i2 := n/2+1, n-2 // the third part and the last
	x[i1], x[i2] = Set(bad), Set(bad)
	var msgs []string
	for _, w := range []int{1, 4} {
		mw, err := m.WithWorkers(w)
		if err != nil {
			t.Fatal(err)
		}
		_, errBatch := mw.PredictBatch(x)
		_, errLabels := mw.PredictLabels(x)
		_, errDist := mw.Distances(x)
		for what, err := range map[string]error{"PredictBatch": errBatch, "PredictLabels": errLabels, "Distances": errDist} {
			if !errors.Is(err, ErrData) || !strings.Contains(err.Error(), fmt.Sprintf("set %d: ", i1)) {
				t.Errorf("%d workers, %s: %v, want ErrData naming set %d", w, what, err, i1)
			}
			if err != nil {
				msgs = append(msgs, err.Error())
			}
		}
		x[i1], x[i2] = Set(good), Set(good)
		preds, err := mw.PredictBatch(x)
		want, err1 := m.Predict(Set(good))
		if err != nil || err1 != nil {
			t.Fatalf("%d workers: good batch: %v %v", w, err, err1)
		}
		if preds[n-1].Class != want.Class || !equalFloats(preds[n-1].Distances, want.Distances) {
			t.Errorf("%d workers: good batch: last prediction %+v, want %+v", w, preds[n-1], want)
		}
		x[i1], x[i2] = Set(bad), Set(bad)
	}
	for _, msg := range msgs[1:] {
		if strings.Count(msg, "set ") != strings.Count(msgs[0], "set ") {
			t.Errorf("messages differ in form: %q against %q", msg, msgs[0])
		}
	}
}
