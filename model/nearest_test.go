package model

import (
	"fmt"
	"testing"

	"github.com/grlgq/grlgq/subspace"
)

// TestPredictBatchSearch checks the labels of the pruned nearest-prototype
// search (sets, at least engine.PivotMinP prototypes) against those of
// PredictTo, which computes every distance: a model of 12 classes with 8
// prototypes each, with and without a reject margin, through
// Model.PredictBatch and Predictor.PredictBatchTo with 1 and 2 workers.
func TestPredictBatchSearch(t *testing.T) {
	const dim, d, classes, per = 120, 4, 12, 8
	x, y := synth(t, 61, dim, d, classes, per, 0.01)
	m, err := Init(Config{PrototypesPerClass: per}, TrainConfig{Init: InitSample, InitNoise: 0.005}, Sets(x), y)
	if err != nil {
		t.Fatal(err)
	}
	test, _ := synth(t, 62, dim, d, classes, 3, 0.02)
	samples := make([]Sample, len(test))
	for i, s := range test {
		samples[i] = Set(s)
	}
	samples = append(samples, Set(&subspace.Subspace{Basis: m.Prototype(5)}))
	for _, reject := range []float64{0, 0.05, 0.3} {
		mr := m.clone()
		mr.pred.RejectMargin = reject
		want := make([]int, len(samples))
		for i, s := range samples {
			p, err := mr.Predict(s)
			if err != nil {
				t.Fatal(err)
			}
			want[i] = p.Label
		}
		got, err := mr.PredictBatch(samples)
		if err != nil {
			t.Fatal(err)
		}
		check := func(name string, got []int) {
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("reject %g, %s: sample %d: label %d, PredictTo %d", reject, name, i, got[i], want[i])
				}
			}
		}
		check("Model.PredictBatch", got)
		for _, workers := range []int{1, 2} {
			pr, err := NewPredictor(mr, workers)
			if err != nil {
				t.Fatal(err)
			}
			labels := make([]int, len(samples))
			if err := pr.PredictBatchTo(labels, samples); err != nil {
				t.Fatal(err)
			}
			check(fmt.Sprintf("Predictor, %d workers", workers), labels)
			pr.Close()
		}
		mr.Close()
	}
}
