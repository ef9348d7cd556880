package model

import (
	"context"
	"testing"
)

// A validation set classified perfectly from the first epoch: with
// MinDelta = 0 every epoch ties the best, so training runs all epochs and
// keeps the last; with MinDelta > 0 no epoch improves on 100%, so it stops
// after Patience epochs and keeps the first.
func TestMinDeltaSaturated(t *testing.T) {
	xs, ys := synth(t, 71, 20, 3, 3, 10, 0.01)
	cfg := opts{TrainConfig: TrainConfig{Epochs: 8, ValidationFraction: 0.3, Patience: 2, Seed: 3, Init: InitSample, Eta: 0.01}}
	m, h, err := Train(context.Background(), legacyOptions(cfg.Config, cfg.TrainConfig), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range h.Epochs {
		if st.ValAccuracy != 1 {
			t.Fatalf("epoch %d: validation accuracy %v, the test wants a saturated set", st.Epoch, st.ValAccuracy)
		}
	}
	if h.EarlyStopped || len(h.Epochs) != cfg.Epochs || h.Best != cfg.Epochs-1 || m.Epochs() != cfg.Epochs {
		t.Errorf("MinDelta 0: %d epochs, best %d, stopped %v, model at epoch %d; want all %d, the last kept", len(h.Epochs), h.Best, h.EarlyStopped, m.Epochs(), cfg.Epochs)
	}
	cfg.MinDelta = 0.01
	m, h, err = Train(context.Background(), legacyOptions(cfg.Config, cfg.TrainConfig), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	if !h.EarlyStopped || len(h.Epochs) != 1+cfg.Patience || h.Best != 0 || m.Epochs() != 1 {
		t.Errorf("MinDelta 0.01: %d epochs, best %d, stopped %v, model at epoch %d; want %d epochs, the first kept", len(h.Epochs), h.Best, h.EarlyStopped, m.Epochs(), 1+cfg.Patience)
	}
	for _, bad := range []float64{-0.1, 1.5} {
		cfg.MinDelta = bad
		if _, _, err := Train(context.Background(), legacyOptions(cfg.Config, cfg.TrainConfig), Sets(xs), ys); err == nil {
			t.Errorf("MinDelta %v accepted", bad)
		}
	}
}
