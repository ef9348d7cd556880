package model

import (
	"testing"

	"github.com/grlgq/grlgq/subspace"
)

// TestPredictTies: prototypes at exactly the same distance (here: the
// same basis in two classes) are resolved deterministically, the lowest
// prototype index winning, for sets and images, one at a time and in
// batches, with 1 and 2 workers; the margin of such a tie is 0 and the two
// classes get equal probabilities.
func TestPredictTies(t *testing.T) {
	xs, _ := synth(t, 71, 16, 2, 3, 1, 0.3)
	a, b := xs[0], xs[1]
	// Prototypes: 0 = A (class 0), 1 = B (class 1), 2 = B (class 2).
	m, err := Init(legacyOptions(Config{}, TrainConfig{Init: InitSample, InitNoise: -1, Seed: 1}), Sets([]*subspace.Subspace{a, b, b}), []int{0, 1, 2})
	if err != nil {
		t.Fatal(err)
	}
	if !sameBits(m.protos[1], m.protos[2]) {
		t.Fatal("prototypes 1 and 2 differ: no tie to test")
	}
	img := make([]float64, m.Dim())
	for r := range img {
		img[r] = b.Basis.At(r, 0) + 0.5*b.Basis.At(r, 1)
	}
	near := xs[2] // some other set: equally far from prototypes 1 and 2
	for _, workers := range []int{1, 2} {
		m := withWorkers(m, workers)
		for _, x := range []*subspace.Subspace{b, near} {
			p, err := m.Predict(Set(x))
			if err != nil {
				t.Fatal(err)
			}
			if p.Distances[1] != p.Distances[2] {
				t.Fatalf("workers=%d: distances %v: prototypes 1 and 2 not tied", workers, p.Distances)
			}
			if p.Distances[1] < p.Distances[0] && (p.Nearest != 1 || p.Class != 1 || p.Label != 1 || p.Margin != 0 || p.Probabilities[1] != p.Probabilities[2]) {
				t.Errorf("workers=%d: tie between prototypes 1 and 2 predicted %+v, want prototype 1, class 1, margin 0, equal probabilities", workers, p)
			}
		}
		p, err := m.Predict(Image(img))
		if err != nil {
			t.Fatal(err)
		}
		if p.Distances[1] != p.Distances[2] || p.Nearest != 1 || p.Label != 1 || p.Margin != 0 {
			t.Errorf("workers=%d: image tie predicted %+v, want prototype 1, class 1, margin 0", workers, p)
		}
		preds, err := m.PredictBatch([]Sample{Set(b), Set(b)})
		if err != nil {
			t.Fatal(err)
		}
		if labels := labelsOf(preds); labels[0] != 1 || labels[1] != 1 {
			t.Errorf("workers=%d: batch labels %v for a tie, want [1 1]", workers, labels)
		}
	}
	if got := nearest([]float64{2, 1, 1, 3}); got != 1 {
		t.Errorf("nearest of a tie: %d, want 1", got)
	}
}
