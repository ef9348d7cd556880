package model

import (
	"bytes"
	"context"
	"math"
	"testing"

	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/subspace"
)

// TestSkipZeroDistanceStep: a set whose two winners are both at distance
// 0 (the same subspace labelled in two classes, the prototypes started
// at it) has no gradient: the step is skipped, changes nothing, is
// counted in the epoch's statistics, and training goes on.
func TestSkipZeroDistanceStep(t *testing.T) {
	xs, _ := synth(t, 61, 16, 3, 3, 1, 0.3)
	a, b, c := xs[0], xs[1], xs[2]
	// A in class 0 and in class 1: both prototypes start at A.
	m0, err := Init(legacyOptions(Config{}, TrainConfig{Init: InitSample, InitNoise: -1, Seed: 1}), Sets([]*subspace.Subspace{a, a}), []int{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := newTrainer(m0, legacyTrain(TrainConfig{Workers: 1}))
	if err != nil {
		t.Fatal(err)
	}
	before := modelBytes(t, tr.Model())
	r, err := tr.stepSample(Set(a), 1, 0.1, 0.01)
	if err != nil {
		t.Fatalf("step at distance zero: %v", err)
	}
	if !r.Skipped || r.DPlus > zeroDistance || r.DMinus > zeroDistance || r.Mu != 0 || r.Cost != 0 || r.Plus != 1 || r.Minus != 0 || r.Correct {
		t.Errorf("skipped step reported %+v", r)
	}
	if r, err := tr.stepSample(Set(a), 0, 0.1, 0.01); err != nil || !r.Skipped || !r.Correct {
		t.Errorf("label 0: %+v, %v (the tie goes to prototype 0, of class 0)", r, err)
	}
	tr.Close()
	if !bytes.Equal(modelBytes(t, tr.Model()), before) {
		t.Error("a skipped step changed the model")
	}

	// Only A: every step skipped, the cost undefined, the model unchanged.
	cfg := opts{TrainConfig: TrainConfig{Epochs: 2, Seed: 1, Workers: 1}}
	m, h, err := Continue(context.Background(), m0, legacyTrain(cfg.TrainConfig), Sets([]*subspace.Subspace{a, a}), []int{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range h.Epochs {
		if st.Skipped != 2 || !math.IsNaN(st.Cost) || st.TrainAccuracy != 0.5 {
			t.Errorf("epoch %d: skipped %d, cost %v, accuracy %v", st.Epoch, st.Skipped, st.Cost, st.TrainAccuracy)
		}
	}
	for k := range m.protos {
		if !sameBits(m.protos[k], m0.protos[k]) {
			t.Errorf("skipped epochs changed prototype %d", k)
		}
	}
	for k, l := range m.lambda {
		if l != m0.lambda[k] {
			t.Errorf("skipped epochs changed relevance %d", k)
		}
	}

	// With other sets: the A steps before the prototypes move are
	// skipped, the others train; nothing fails.
	x := []*subspace.Subspace{a, a, b, c}
	y := []int{0, 1, 0, 1}
	m, h, err = Continue(context.Background(), m0, legacyTrain(TrainConfig{Epochs: 3, Seed: 4, Workers: 1}), Sets(x), y)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, st := range h.Epochs {
		total += st.Skipped
		if math.IsNaN(st.Cost) {
			t.Errorf("epoch %d: cost NaN with steps taken", st.Epoch)
		}
	}
	if total == 0 || total > 2 {
		t.Errorf("%d skipped steps in 3 epochs, want 1 or 2 (until a prototype moves)", total)
	}
	if sameSpan(m.protos[0], m.protos[1]) < 1e-3 {
		t.Error("training did not go on after the skipped steps")
	}
}

// TestSkipZeroDistanceImage: the same for single images: an image that
// lies in both winners (θ_1 = 0 for both) is skipped by an image step and
// counted by Train on images.
func TestSkipZeroDistanceImage(t *testing.T) {
	x, _ := synthImages(5, 10, 2, 2, 1, 0.3)
	img := x[0]
	cfg := opts{Config: Config{SubspaceDim: 1}, TrainConfig: TrainConfig{Init: InitSample, InitNoise: -1, Epochs: 2, Seed: 1, Workers: 1}}
	m, h, err := Train(context.Background(), legacyOptions(cfg.Config, cfg.TrainConfig), Images([][]float64{img, img}), []int{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range h.Epochs {
		if st.Skipped != 2 {
			t.Errorf("epoch %d: %d skipped image steps, want 2", st.Epoch, st.Skipped)
		}
	}
	for k := 0; k < 2; k++ {
		if e := linalg.OrthonormalityError(m.Prototype(k)); e > 1e-15 {
			t.Errorf("prototype %d: orthonormality error %v", k, e)
		}
	}
}
