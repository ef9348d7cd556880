package model

import (
	"bytes"
	"context"
	"math"
	"testing"
)

// TestFloat32Model trains a Precision Float32 model on sets and on
// images: its prototypes are float32 values; 1 and 2 workers give the
// same bits; its file is version 3 with 4-byte prototypes, loads back to
// the same model and predictions; the JSON form too; its accuracy is the
// float64 model's on well-separated data; Explain works.
func TestFloat32Model(t *testing.T) {
	const dim, d, classes = 60, 3, 3
	saved := soloSetWork
	soloSetWork = 0 // split the steps of this small shape too
	defer func() { soloSetWork = saved }()
	xs, ys := synth(t, 31, dim, d, classes, 12, 0.1)
	samples := Sets(xs)
	o := legacyOptions(Config{SubspaceDim: d, PrototypesPerClass: 2}, TrainConfig{Epochs: 4, Seed: 5})
	o.Model.Precision = Float32
	train := func(workers int) *Model {
		oo := o
		oo.Train.Workers = workers
		m, _, err := Train(context.Background(), oo, samples, ys)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	m1, m2 := train(1), train(2)
	b1, err := m1.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := m2.MarshalBinary()
	if !bytes.Equal(b1, b2) {
		t.Fatal("1 and 2 workers: different model files")
	}
	for k, w := range m1.protos {
		for r := 0; r < dim; r++ {
			for _, v := range w.Row(r) {
				if float64(float32(v)) != v {
					t.Fatalf("prototype %d holds %v, not a float32 value", k, v)
				}
			}
		}
	}
	o64 := o
	o64.Model.Precision = Float64
	m64, _, err := Train(context.Background(), o64, samples, ys)
	if err != nil {
		t.Fatal(err)
	}
	b64, _ := m64.MarshalBinary()
	p, D := len(m1.protos), dim
	if want := len(b64) - 4*p*D*d + 8; len(b1) != want {
		t.Fatalf("float32 file of %d bytes, want %d (float64: %d; version 3 config +8)", len(b1), want, len(b64))
	}
	if v := b1[8]; v != 3 {
		t.Fatalf("version %d", v)
	}
	l, err := Load(bytes.NewReader(b1))
	if err != nil {
		t.Fatal(err)
	}
	if l.Config().Precision != Float32 {
		t.Fatalf("loaded precision %v", l.Config().Precision)
	}
	if b, _ := l.MarshalBinary(); !bytes.Equal(b, b1) {
		t.Fatal("load and save: different bytes")
	}
	js, err := m1.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var lj Model
	if err := lj.UnmarshalJSON(js); err != nil {
		t.Fatal(err)
	}
	if b, _ := lj.MarshalBinary(); !bytes.Equal(b, b1) {
		t.Fatal("JSON round trip: different bytes")
	}
	p1, err := m1.PredictBatch(samples)
	if err != nil {
		t.Fatal(err)
	}
	pl, err := l.PredictBatch(samples)
	if err != nil {
		t.Fatal(err)
	}
	p64, err := m64.PredictBatch(samples)
	if err != nil {
		t.Fatal(err)
	}
	var c32, c64 int
	for i := range p1 {
		if p1[i].Class != pl[i].Class || math.Float64bits(p1[i].Distances[0]) != math.Float64bits(pl[i].Distances[0]) {
			t.Fatalf("sample %d: loaded model predicts differently", i)
		}
		if p1[i].Class == ys[i] {
			c32++
		}
		if p64[i].Class == ys[i] {
			c64++
		}
	}
	if c32 < c64-1 {
		t.Fatalf("float32 model: %d of %d right, float64 %d", c32, len(ys), c64)
	}
	if _, err := m1.Explain(samples[0], ys[0]); err != nil {
		t.Fatal(err)
	}

	// Images: steps on single images, prediction of images.
	imgs := make([][]float64, 0, len(xs))
	for _, x := range xs {
		img := make([]float64, dim)
		for r := 0; r < dim; r++ {
			img[r] = x.Basis.At(r, 0)
		}
		imgs = append(imgs, img)
	}
	oi := legacyOptions(Config{SubspaceDim: 1, PrototypesPerClass: 1}, TrainConfig{Epochs: 2, Seed: 5, Init: InitRandom, Workers: 1})
	oi.Model.Precision = Float32
	mi, _, err := Train(context.Background(), oi, Images(imgs), ys)
	if err != nil {
		t.Fatal(err)
	}
	oi.Train.Workers = 2
	mi2, _, err := Train(context.Background(), oi, Images(imgs), ys)
	if err != nil {
		t.Fatal(err)
	}
	bi1, _ := mi.MarshalBinary()
	bi2, _ := mi2.MarshalBinary()
	if !bytes.Equal(bi1, bi2) {
		t.Fatal("images: 1 and 2 workers give different model files")
	}
	if _, err := mi.PredictBatch(Images(imgs)); err != nil {
		t.Fatal(err)
	}
}

// TestFloat32LazyPrototypes checks the float32 copies that a Float32
// model's exact updates write directly (engine.UpdateExactRounded),
// leaving the float64 prototypes stale: training so, with every stale
// float64 prototype filled with NaN after every step (poisonStale: a
// reader that forgot engine.Fresh reads NaN), gives the model file of
// training with each float64 prototype brought up to date right after its
// update (directUpdate). Cases: the paths that read or write
// the float64 prototypes between updates (drift checks, with and without
// re-orthonormalisation, the general route, validation and tail
// averaging, the epochs' checks), one and two workers.
func TestFloat32LazyPrototypes(t *testing.T) {
	const dim, d, classes = 60, 3, 3
	savedSolo, savedDrift, savedNorm, savedMax := soloSetWork, driftEvery, minExactNorm, maxDrift32
	defer func() {
		soloSetWork, driftEvery, minExactNorm, maxDrift32 = savedSolo, savedDrift, savedNorm, savedMax
		directUpdate, poisonStale = false, false
	}()
	soloSetWork = 0
	xs, ys := synth(t, 37, dim, d, classes, 12, 0.1)
	samples := Sets(xs)
	cases := []struct {
		name     string
		drift    int
		maxDrift float64
		norm     float64
		mutate   func(o *Options)
	}{
		{"defaults", savedDrift, savedMax, savedNorm, nil},
		{"drift check every 3rd update", 3, savedMax, savedNorm, nil},
		{"drift check and CGS2 every 2nd update", 2, 0, savedNorm, nil},
		{"general route mixed in", 4, savedMax, 0.9995, nil},
		{"validation and averaging", 3, savedMax, savedNorm, func(o *Options) { o.Train.ValidationFraction = 0.25; o.Train.AverageLast = 2 }},
	}
	for _, c := range cases {
		for _, workers := range []int{1, 2} {
			var files [2][]byte
			for i, direct := range []bool{false, true} {
				driftEvery, maxDrift32, minExactNorm = c.drift, c.maxDrift, c.norm
				directUpdate, poisonStale = direct, !direct
				o := legacyOptions(Config{SubspaceDim: d, PrototypesPerClass: 2}, TrainConfig{Epochs: 5, Seed: 3, Workers: workers})
				o.Model.Precision = Float32
				if c.mutate != nil {
					c.mutate(&o)
				}
				m, _, err := Train(context.Background(), o, samples, ys)
				if err != nil {
					t.Fatalf("%s, %d workers, direct %v: %v", c.name, workers, direct, err)
				}
				if files[i], err = m.MarshalBinary(); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(files[0], files[1]) {
				t.Errorf("%s, %d workers: the float32 copies updated directly give another model than updates of the float64 prototypes", c.name, workers)
			}
		}
	}
}

// TestFloat32FactorApart trains Float32 models whose steps factorise
// their two winners as a pair (svd.Pair.Factorize32, one kernel run: a
// one-worker step) and one by one (svd.Small.Factorize32 each: the route
// of a split step, forced by factorApart, since an engine splits only
// when its timing says so) and checks that the model files are the same,
// byte for byte, at orders of each float32 kernel (the pair in one
// vector up to 16 x 16 on AVX-512 and 8 x 8 on AVX2, one vector a matrix
// beyond) and for Float64 models.
func TestFloat32FactorApart(t *testing.T) {
	defer func(v bool) { factorApart = v }(factorApart)
	for _, d := range []int{3, 5, 9, 12, 17, 25} {
		for _, prec := range []Precision{Float32, Float64} {
			xs, ys := synth(t, 41, 80, d, 3, 6, 0.3)
			o := legacyOptions(Config{SubspaceDim: d, PrototypesPerClass: 2}, TrainConfig{Epochs: 3, Seed: 7, Workers: 1})
			o.Model.Precision = prec
			var files [2][]byte
			for i, apart := range []bool{false, true} {
				factorApart = apart
				m, _, err := Train(context.Background(), o, Sets(xs), ys)
				if err != nil {
					t.Fatal(err)
				}
				if files[i], err = m.MarshalBinary(); err != nil {
					t.Fatal(err)
				}
			}
			if !bytes.Equal(files[0], files[1]) {
				t.Errorf("d=%d %v: the pair's and the winners' own factorisations train different models", d, prec)
			}
		}
	}
}
