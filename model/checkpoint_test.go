package model

import (
	"bytes"
	"context"
	"testing"
)

// TestCheckpointResume: the model EpochStats.Model returns after epoch k,
// saved, loaded and continued for the remaining epochs, is the model of an
// uninterrupted run, bit for bit (prototypes, relevances, epochs), with a
// step schedule and with a scored validation part.
func TestCheckpointResume(t *testing.T) {
	x, y := synth(t, 3, 12, 3, 3, 8, 0.3)
	for i := range 2 {
		o := DefaultOptions()
		o.Model.SubspaceDim = 3
		o.Model.PrototypesPerClass = 2
		o.Train.Epochs, o.Train.Eta, o.Train.Seed = 6, 0.05, 3
		if i == 0 {
			o.Train.Schedule, o.Train.StepEvery = ScheduleStep, 2
		} else {
			o.Train.ValidationFraction = 0.25 // scored, no early stopping
		}
		tc := o.Train
		full, _, err := Train(context.Background(), o, Sets(x), y)
		if err != nil {
			t.Fatal(err)
		}
		const k = 2
		var ckpt []byte
		o.Train.OnEpoch = func(s EpochStats) error {
			if s.Epoch == k {
				if ckpt, err = s.Model().MarshalBinary(); err != nil {
					return err
				}
				return ErrStop
			}
			return nil
		}
		if _, _, err := Train(context.Background(), o, Sets(x), y); err != nil {
			t.Fatal(err)
		}
		m, err := Load(bytes.NewReader(ckpt))
		if err != nil || m.Epochs() != k {
			t.Fatalf("checkpoint: %v, %d epochs", err, m.Epochs())
		}
		rest := tc
		rest.Epochs = tc.Epochs - k
		resumed, _, err := Continue(context.Background(), m, rest, Sets(x), y)
		if err != nil {
			t.Fatal(err)
		}
		if !sameTrained(full, resumed) {
			t.Errorf("%+v: the resumed model differs from the uninterrupted one", tc)
		}
	}
}

// sameTrained compares the trained parts of two models bit for bit: the
// prototypes, the relevances and the epochs.
func sameTrained(a, b *Model) bool {
	if a.Epochs() != b.Epochs() || len(a.protos) != len(b.protos) {
		return false
	}
	for k := range a.protos {
		r, c := a.protos[k].Dims()
		for i := range r {
			for j := range c {
				if a.protos[k].At(i, j) != b.protos[k].At(i, j) {
					return false
				}
			}
		}
	}
	for i := range a.lambda {
		if a.lambda[i] != b.lambda[i] {
			return false
		}
	}
	return true
}
