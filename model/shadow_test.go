package model

import (
	"bytes"
	"context"
	"testing"
)

// TestShadowBits trains Float64 models with the engine's float32 shadow
// (engine.SetShadow32: the winners' searches project on float32 copies
// and compute float64 projections only where their bounds leave a doubt)
// and without it (noShadow): the model files must be the same bytes, with
// 1 and 2 workers, through drift checks, CGS2, the general route,
// validation with averaging, local relevances and the chordal distance.
// The shape (d = 12, 12 prototypes) is one where the shadow is on for
// every kernel path, which the epochs' search counts confirm.
func TestShadowBits(t *testing.T) {
	const dim, d, classes = 60, 12, 6
	savedSolo, savedDrift, savedNorm := soloSetWork, driftEvery, minExactNorm
	defer func() {
		soloSetWork, driftEvery, minExactNorm, noShadow = savedSolo, savedDrift, savedNorm, false
	}()
	xs, ys := synth(t, 41, dim, d, classes, 10, 0.3)
	samples := Sets(xs)
	cases := []struct {
		name   string
		drift  int
		norm   float64
		solo   int
		mutate func(o *Options)
	}{
		{"defaults", savedDrift, savedNorm, savedSolo, nil},
		{"split steps, drift check every 2nd update", 2, savedNorm, 0, nil},
		{"general route mixed in", 4, 0.9995, savedSolo, nil},
		{"validation and averaging", 3, savedNorm, savedSolo, func(o *Options) { o.Train.ValidationFraction = 0.25; o.Train.AverageLast = 2 }},
		{"local relevances", savedDrift, savedNorm, 0, func(o *Options) { o.Model.Relevance = RelevanceLocal }},
		{"chordal", savedDrift, savedNorm, savedSolo, func(o *Options) { o.Model.Distance = Chordal }},
	}
	for _, c := range cases {
		for _, workers := range []int{1, 2} {
			var files [2][]byte
			var reproj [2]int64
			for i, off := range []bool{false, true} {
				driftEvery, minExactNorm, soloSetWork, noShadow = c.drift, c.norm, c.solo, off
				o := legacyOptions(Config{SubspaceDim: d, PrototypesPerClass: 2}, TrainConfig{Epochs: 6, Seed: 5, Workers: workers})
				if c.mutate != nil {
					c.mutate(&o)
				}
				m, hist, err := Train(context.Background(), o, samples, ys)
				if err != nil {
					t.Fatalf("%s, %d workers, shadow off %v: %v", c.name, workers, off, err)
				}
				for _, st := range hist.Epochs {
					reproj[i] += st.Search.Float64
				}
				if files[i], err = m.MarshalBinary(); err != nil {
					t.Fatal(err)
				}
			}
			if reproj[0] == 0 || reproj[1] != 0 {
				t.Errorf("%s, %d workers: float64 projections after float32 ones %d with the shadow, %d without", c.name, workers, reproj[0], reproj[1])
			}
			if !bytes.Equal(files[0], files[1]) {
				t.Errorf("%s, %d workers: the float32 shadow changed the model", c.name, workers)
			}
		}
	}
}
