package model

import (
	"context"
	"errors"
	"testing"

	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/subspace"
)

// TestMalformedBasis: a basis whose stride or data does not fit its shape
// is ErrData for training and prediction, never a panic (DESIGN.md: the
// packages that take a caller's data return shape errors).
func TestMalformedBasis(t *testing.T) {
	xs, ys := synth(t, 20, 16, 2, 3, 1, 0.3)
	good := xs[0].Basis
	for _, bad := range []*linalg.Dense{
		{Rows: good.Rows, Cols: good.Cols, Stride: 1, Data: good.Data[:good.Rows]},
		{Rows: good.Rows, Cols: good.Cols, Stride: good.Stride, Data: good.Data[:good.Stride]},
	} {
		s := &subspace.Subspace{Basis: bad}
		train := append([]*subspace.Subspace{s}, xs[1:]...)
		if _, _, err := Train(context.Background(), legacyOptions(Config{SubspaceDim: good.Cols}, TrainConfig{Epochs: 1}), Sets(train), ys); !errors.Is(err, ErrData) {
			t.Errorf("stride %d, %d values: Train err = %v, want ErrData", bad.Stride, len(bad.Data), err)
		}
		m, _, err := Train(context.Background(), legacyOptions(Config{SubspaceDim: good.Cols}, TrainConfig{Epochs: 1}), Sets(xs), ys)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Predict(Set(s)); !errors.Is(err, ErrData) {
			t.Errorf("stride %d, %d values: Predict err = %v, want ErrData", bad.Stride, len(bad.Data), err)
		}
	}
}
