package model

import (
	"bytes"
	"context"
	"testing"
)

// TestDeterministicSplitSteps: with every step split over the workers
// (the distances, and the winners' factorisations and updates run as
// engine tasks), 1, 2 and 8 workers give the bytes of the solo steps.
func TestDeterministicSplitSteps(t *testing.T) {
	xs, ys := synth(t, 5, 30, 4, 5, 8, 0.4)
	train := func(workers int) []byte {
		cfg := opts{Config: Config{PrototypesPerClass: 2}, TrainConfig: TrainConfig{Epochs: 4, Workers: workers, Seed: 11, ValidationFraction: 0.25}}
		m, _, err := Train(context.Background(), legacyOptions(cfg.Config, cfg.TrainConfig), Sets(xs), ys)
		if err != nil {
			t.Fatal(err)
		}
		return modelBytes(t, m)
	}
	want := train(2)
	defer func(old int) { soloSetWork = old }(soloSetWork)
	soloSetWork = 0
	for _, w := range []int{1, 2, 8} {
		if got := train(w); !bytes.Equal(got, want) {
			t.Errorf("workers=%d, split steps: model bytes differ from the solo steps", w)
		}
	}
}

// TestSplitStepZeroAlloc: a step split over two workers (distances and
// the winners' tasks) allocates nothing either.
func TestSplitStepZeroAlloc(t *testing.T) {
	defer func(old int) { soloSetWork = old }(soloSetWork)
	soloSetWork = 0
	xs, ys := synth(t, 8, 30, 4, 3, 4, 0.3)
	m, err := Init(legacyOptions(Config{PrototypesPerClass: 2}, TrainConfig{}), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := newTrainer(m, legacyTrain(TrainConfig{Workers: 2}))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	i := 0
	if a := testing.AllocsPerRun(50, func() {
		if _, err := tr.stepSample(Set(xs[i%len(xs)]), ys[i%len(xs)], 0.01, 1e-3); err != nil {
			t.Fatal(err)
		}
		i++
	}); a != 0 {
		t.Errorf("split Step allocates %v times", a)
	}
}
