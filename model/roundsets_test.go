package model

import (
	"bytes"
	"context"
	"testing"

	"github.com/grlgq/grlgq/linalg"
)

// TestRoundedSetsBits trains with the training sets rounded to float32
// once (roundSets) and with every search rounding its sample (noRoundSets):
// the model files must be the same bytes, for Float32 models and for the
// float32 shadow of Float64 ones, with 1 and 2 workers, split steps,
// validation, and an Augment hook whose samples are rounded by the
// searches. Each configuration is first checked to round its sets.
func TestRoundedSetsBits(t *testing.T) {
	const dim, d, classes = 60, 12, 6
	savedSolo := soloSetWork
	defer func() { soloSetWork, noRoundSets = savedSolo, false }()
	xs, ys := synth(t, 43, dim, d, classes, 10, 0.3)
	samples := Sets(xs)
	cases := []struct {
		name   string
		solo   int
		mutate func(o *Options)
	}{
		{"float32", savedSolo, func(o *Options) { o.Model.Precision = Float32 }},
		{"float32, split steps", 0, func(o *Options) { o.Model.Precision = Float32 }},
		{"float32, validation", savedSolo, func(o *Options) { o.Model.Precision = Float32; o.Train.ValidationFraction = 0.25 }},
		{"float32, augmented", savedSolo, func(o *Options) {
			o.Model.Precision = Float32
			o.Train.Augment = func(ctx context.Context, m *Model, epoch int) ([]Sample, []int, error) {
				return samples[:7], ys[:7], nil
			}
		}},
		{"float64 shadow", savedSolo, nil},
		{"float64 shadow, split steps", 0, nil},
	}
	for _, c := range cases {
		for _, workers := range []int{1, 2} {
			soloSetWork, noRoundSets = c.solo, false
			o := legacyOptions(Config{SubspaceDim: d, PrototypesPerClass: 2}, TrainConfig{Epochs: 4, Seed: 7, Workers: workers})
			if c.mutate != nil {
				c.mutate(&o)
			}
			m0, err := Init(o, samples, ys)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := newTrainer(m0, o.Train)
			if err != nil {
				t.Fatal(err)
			}
			sets := make([]*linalg.Dense, len(xs))
			for i, x := range xs {
				sets[i] = x.Basis
			}
			r := tr.roundSets(sets)
			tr.Close()
			if r == nil {
				t.Fatalf("%s, %d workers: the sets are not rounded", c.name, workers)
			}
			var files [2][]byte
			for i, off := range []bool{false, true} {
				noRoundSets = off
				m, _, err := Train(context.Background(), o, samples, ys)
				if err != nil {
					t.Fatalf("%s, %d workers, noRoundSets %v: %v", c.name, workers, off, err)
				}
				if files[i], err = m.MarshalBinary(); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(files[0], files[1]) {
				t.Errorf("%s, %d workers: rounding the sets once changed the model", c.name, workers)
			}
		}
	}
}
