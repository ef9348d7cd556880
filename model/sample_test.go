package model

import (
	"context"
	"errors"
	"testing"
)

// TestSampleKinds: the zero Sample (also Set(nil), Image(nil)) and calls
// that mix sets and images are refused with ErrData by every operation.
func TestSampleKinds(t *testing.T) {
	xs, ys := synth(t, 91, 16, 3, 3, 4, 0.3)
	ctx := context.Background()
	m, err := Init(legacyOptions(Config{}, TrainConfig{Seed: 1}), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	img := make([]float64, 16)
	img[2] = 1
	for _, s := range []Sample{{}, Set(nil), Image(nil), Image([]float64{})} {
		if s.kind() != kindNone {
			t.Fatalf("%+v is not the zero Sample", s)
		}
	}
	if Set(xs[0]).kind() != kindSet || Image(img).kind() != kindImage {
		t.Fatal("kinds of Set and Image")
	}
	tr, err := newTrainer(m, legacyTrain(TrainConfig{Workers: 1}))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	mixed := []Sample{Set(xs[0]), Image(img)}
	withZero := []Sample{Set(xs[0]), {}}
	preds := make([]Prediction, 2)
	dist := make([]float64, 2*m.NumPrototypes())
	for name, err := range map[string]error{
		"Predict":              func() error { _, err := m.Predict(Sample{}); return err }(),
		"PredictTo":            m.PredictTo(new(Prediction), Sample{}),
		"Explain":              func() error { _, err := m.Explain(Sample{}, -1); return err }(),
		"Step":                 func() error { _, err := tr.stepSample(Sample{}, 0, 0.1, 0.01); return err }(),
		"PredictBatch/zero":    func() error { _, err := m.PredictBatch(withZero); return err }(),
		"PredictBatch/mixed":   func() error { _, err := m.PredictBatch(mixed); return err }(),
		"Distances/mixed":      func() error { _, err := m.Distances(mixed); return err }(),
		"PredictBatchTo/mixed": m.PredictBatchTo(preds, mixed),
		"DistancesTo/zero":     m.DistancesTo(dist, withZero),
		"Score/zero":           func() error { _, err := m.Score(withZero, []int{0, 1}); return err }(),
		"Init/mixed": func() error {
			_, err := Init(legacyOptions(Config{SubspaceDim: 3}, TrainConfig{}), mixed, []int{0, 1})
			return err
		}(),
		"Train/mixed": func() error {
			_, _, err := Train(ctx, legacyOptions(Config{SubspaceDim: 3}, TrainConfig{Epochs: 1}), mixed, []int{0, 1})
			return err
		}(),
		"Train/zero": func() error {
			_, _, err := Train(ctx, legacyOptions(Config{}, TrainConfig{Epochs: 1}), withZero, []int{0, 1})
			return err
		}(),
		"Continue/mixed": func() error {
			_, _, err := Continue(ctx, m, legacyTrain(TrainConfig{Epochs: 1}), mixed, []int{0, 1})
			return err
		}(),
		"Continue/short image": func() error {
			_, _, err := Continue(ctx, m, legacyTrain(TrainConfig{Epochs: 1}), []Sample{Image(img[:5])}, []int{0})
			return err
		}(),
	} {
		if !errors.Is(err, ErrData) {
			t.Errorf("%s: %v, want ErrData", name, err)
		}
	}
	// One kind per call is fine: images after sets.
	if _, err := m.PredictBatch(Images([][]float64{img, img})); err != nil {
		t.Error(err)
	}
	if _, err := m.PredictBatch(nil); err != nil {
		t.Errorf("empty batch: %v", err)
	}
}

// TestImageBlock: images that lie back to back in one slice are read in
// place; others are copied into the scratch block, which is reused.
func TestImageBlock(t *testing.T) {
	const dim, n = 4, 3
	flat := make([]float64, (n+1)*dim)
	for i := range flat {
		flat[i] = float64(i + 1)
	}
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = flat[i*dim : (i+1)*dim]
	}
	block, buf := imageBlock(Images(rows), dim, nil)
	if buf != nil || len(block) != n*dim || &block[0] != &flat[0] {
		t.Fatal("back-to-back images were not read in place")
	}
	// Out of order, or with a gap: copied, in the order given.
	for _, x := range [][][]float64{{rows[1], rows[0], rows[2]}, {rows[0], rows[2], flat[3*dim:]}, {rows[0], rows[1], flat[2*dim+1 : 3*dim+1]}} {
		block, buf = imageBlock(Images(x), dim, buf)
		if &block[0] == &flat[0] || &block[0] != &buf[0] {
			t.Fatal("scattered images were not copied into the scratch block")
		}
		for i, r := range x {
			for j, v := range r {
				if block[i*dim+j] != v {
					t.Fatalf("block row %d differs", i)
				}
			}
		}
	}
	if b2, buf2 := imageBlock(Images([][]float64{rows[2], rows[1]}), dim, buf); &buf2[0] != &buf[0] || &b2[0] != &buf[0] {
		t.Error("the scratch block was not reused")
	}
	if block, _ := imageBlock(nil, dim, nil); block != nil {
		t.Error("empty batch")
	}
}
