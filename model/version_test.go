package model

import (
	"bytes"
	"errors"
	"testing"
)

func TestFileVersion(t *testing.T) {
	xs, ys := synth(t, 72, 12, 2, 2, 3, 0.1)
	m, _, err := Train(t.Context(), legacyOptions(Config{}, TrainConfig{Epochs: 1}), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := m.Save(&b); err != nil {
		t.Fatal(err)
	}
	// A geodesic float64 model is written as version 2 (byte for byte as
	// before version 3 existed).
	if v, err := FileVersion(bytes.NewReader(b.Bytes())); err != nil || v != 2 {
		t.Errorf("FileVersion = %d, %v; want 2", v, err)
	}
	if _, err := FileVersion(bytes.NewReader([]byte("GRLGQMDL\x02"))); !errors.Is(err, ErrTruncated) {
		t.Errorf("short header: %v", err)
	}
	if _, err := FileVersion(bytes.NewReader([]byte("PNG and more bytes"))); !errors.Is(err, ErrFormat) {
		t.Errorf("not a model: %v", err)
	}
}
