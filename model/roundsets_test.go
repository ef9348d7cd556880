package model

import (
	"bytes"
	"context"
	"math"
	"testing"

	"github.com/grlgq/grlgq/linalg"
)

// TestRoundedSetsBits trains Float32 models with the training sets rounded
// to float32 once (roundSets) and with every step rounding its sample
// (noRoundSets): the model files must be the same bytes, with 1 and 2
// workers, split steps, validation, and an Augment hook whose samples the
// steps round. Each configuration is first checked to round its sets; a
// Float64 model and a copy beyond maxRoundedBytes do not.
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
	}
	sets := make([]*linalg.Dense, len(xs))
	for i, x := range xs {
		sets[i] = x.Basis
	}
	// rounded returns roundSets(sets) of a trainer of o's initial model,
	// and what it returns under a cap one byte short of that copy.
	rounded := func(o Options) (r, capped []float32) {
		m0, err := Init(o, samples, ys)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := newTrainer(m0, o.Train)
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		r = tr.roundSets(sets)
		saved := maxRoundedBytes
		maxRoundedBytes = int64(len(r))*4 - 1
		capped = tr.roundSets(sets)
		maxRoundedBytes = saved
		return r, capped
	}
	if r, _ := rounded(legacyOptions(Config{SubspaceDim: d, PrototypesPerClass: 2}, TrainConfig{Epochs: 4, Seed: 7, Workers: 1})); r != nil {
		t.Error("a Float64 model's sets are rounded")
	}
	for _, c := range cases {
		for _, workers := range []int{1, 2} {
			soloSetWork, noRoundSets = c.solo, false
			o := legacyOptions(Config{SubspaceDim: d, PrototypesPerClass: 2}, TrainConfig{Epochs: 4, Seed: 7, Workers: workers})
			if c.mutate != nil {
				c.mutate(&o)
			}
			r, capped := rounded(o)
			if r == nil {
				t.Fatalf("%s, %d workers: the sets are not rounded", c.name, workers)
			}
			if capped != nil {
				t.Fatalf("%s, %d workers: the sets are rounded beyond maxRoundedBytes", c.name, workers)
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

// TestFloat32UpdateRounded checks that a Float32 model's exact steps
// learn from the sets' float32 rounding alone: every value of every set
// moved within its float32 rounding interval (by up to 0.4 of a float32
// ulp: no longer orthonormal to 1e-14, so stepped by trainer.step with the
// exact update forced) gives the same prototypes, bit for bit. (When the
// exact update read the float64 sample, they differed.)
func TestFloat32UpdateRounded(t *testing.T) {
	const dim, d, classes = 60, 12, 6
	xs, ys := synth(t, 44, dim, d, classes, 10, 0.3)
	moved := make([]*linalg.Dense, len(xs))
	changed := 0
	for i, x := range xs {
		b := linalg.NewDense(dim, d)
		for r := 0; r < dim; r++ {
			for c := 0; c < d; c++ {
				v := x.Basis.At(r, c)
				f := float32(v)
				ulp := float64(math.Nextafter32(f, float32(math.Inf(1))) - f)
				w := float64(f) + 0.4*ulp*float64((r+c)%3-1)
				if float32(w) != f {
					t.Fatalf("%v moved to %v rounds to %v, not %v", v, w, float32(w), f)
				}
				b.Set(r, c, w)
				if w != v {
					changed++
				}
			}
		}
		moved[i] = b
	}
	if changed < len(xs)*dim*d/2 {
		t.Fatalf("only %d values moved", changed)
	}
	o := legacyOptions(Config{SubspaceDim: d, PrototypesPerClass: 2, Precision: Float32}, TrainConfig{Epochs: 1, Seed: 7, Workers: 1})
	var protos [2][]float64
	for v := range protos {
		m0, err := Init(o, Sets(xs), ys)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := newTrainer(m0, o.Train)
		if err != nil {
			t.Fatal(err)
		}
		for epoch := 0; epoch < 3; epoch++ {
			for i, x := range xs {
				p := x.Basis
				if v == 1 {
					p = moved[i]
				}
				if _, err := tr.step(p, ys[i], 0.05, 1e-3, true); err != nil {
					t.Fatal(err)
				}
			}
		}
		tr.eng.FreshAll()
		for _, w := range tr.protos {
			for r := 0; r < dim; r++ {
				protos[v] = append(protos[v], w.Row(r)...)
			}
		}
		tr.Close()
	}
	diff := 0
	for i := range protos[0] {
		if math.Float64bits(protos[0][i]) != math.Float64bits(protos[1][i]) {
			diff++
		}
	}
	if diff > 0 {
		t.Errorf("sets with the same float32 rounding: %d of %d prototype values differ", diff, len(protos[0]))
	}
}
