package record

import (
	"bytes"
	"context"
	"maps"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/grlgq/grlgq/dataset"
	"github.com/grlgq/grlgq/model"
)

// data: 2 classes of 6 single 4x4 images, each class a different pattern
// plus a little of the image's index.
func data() *dataset.Dataset {
	ds := &dataset.Dataset{Source: "mem", Classes: []string{"a", "b"}, Dim: 16, Width: 4, Height: 4}
	for i := range 12 {
		img := make([]float64, 16)
		for p := range img {
			img[p] = float64((p*(1+i%2)+i)%7) / 7
		}
		ds.Images = append(ds.Images, img)
		ds.Labels = append(ds.Labels, i%2)
	}
	return ds
}

// TestCheckpoint: every Every epochs and after the last the file holds the
// latest model with the metadata; Save after an interruption writes the
// last epoch's model and says how to continue; without a Path nothing
// happens.
func TestCheckpoint(t *testing.T) {
	ds := data()
	o := model.DefaultOptions()
	o.Model.SubspaceDim = 1
	o.Train.Epochs = 5
	path := filepath.Join(t.TempDir(), "ck.grlgq")
	var stderr bytes.Buffer
	c := &Checkpoint{Path: path, Every: 2, Meta: map[string]string{"tool": "test"}}
	c.Start(&stderr, 5)
	var seen []int
	o.Train.OnEpoch = func(s model.EpochStats) error {
		if err := c.OnEpoch(s); err != nil {
			return err
		}
		if m, err := model.LoadFile(path); err == nil {
			seen = append(seen, m.Epochs())
			if m.Metadata()["tool"] != "test" {
				t.Errorf("checkpoint metadata %v", m.Metadata())
			}
		}
		if s.Epoch == 3 {
			return model.ErrStop // an interruption after epoch 3
		}
		return nil
	}
	if _, _, err := model.Train(context.Background(), o, model.Images(ds.Images), ds.Labels); err != nil {
		t.Fatal(err)
	}
	c.Stop()
	if len(seen) != 2 || seen[0] != 2 || seen[1] != 2 {
		t.Errorf("epochs in the file after each epoch from the 2nd: %v, want [2 2]", seen)
	}
	c.Save()
	m, err := model.LoadFile(path)
	if err != nil || m.Epochs() != 3 {
		t.Fatalf("after Save: %v, %d epochs", err, m.Epochs())
	}
	if want := "checkpoint after epoch 3 of 5 in " + path + ": continue with -resume " + path + " -epochs 2\n"; !strings.HasSuffix(stderr.String(), want) {
		t.Errorf("stderr %q, want it to end with %q", stderr.String(), want)
	}
	var off Checkpoint
	off.Start(&stderr, 5)
	off.Save()
	if err := off.OnEpoch(model.EpochStats{Epoch: 1}); err != nil {
		t.Error(err)
	}
}

// TestProvenance: the keys of docs/model-format.md, and a model accepts
// them.
func TestProvenance(t *testing.T) {
	ds := data()
	start := time.Date(2026, 11, 26, 18, 0, 0, 0, time.UTC)
	md := Provenance("csv:x.csv", ds, Preprocess{Resize: dataset.Size{Width: 4, Height: 4}, PixelMax: 255, D: 1, M: 3}, start, nil)
	want := map[string]string{"created": "2026-11-26T18:00:00Z", "data.source": "csv:x.csv", "data.kind": "images", "data.classes": "2",
		"data.samples": "12", "data.images": "12", "data.sha256": ds.ContentHash(), "preprocess.d": "1", "preprocess.m": "3",
		"preprocess.resize": "4x4", "preprocess.pixel_max": "255"}
	for k, v := range want {
		if md[k] != v {
			t.Errorf("%s = %q, want %q", k, md[k], v)
		}
	}
	if !strings.HasPrefix(md["tool"], "grlgq ") || !strings.HasPrefix(md["go"], "go") || md["resumed_from"] != "" {
		t.Errorf("tool %q, go %q, resumed_from %q", md["tool"], md["go"], md["resumed_from"])
	}
	o := model.DefaultOptions()
	o.Model.SubspaceDim = 1
	o.Train.Epochs = 1
	m, _, err := model.Train(context.Background(), o, model.Images(ds.Images), ds.Labels)
	if err != nil {
		t.Fatal(err)
	}
	if m, err = m.WithMetadata(md); err != nil || !maps.Equal(m.Metadata(), md) {
		t.Fatalf("WithMetadata: %v", err)
	}
	if got := Provenance("csv:x.csv", ds, Preprocess{D: 1}, start, m)["resumed_from"]; got != md["tool"]+", 2026-11-26T18:00:00Z" {
		t.Errorf("resumed_from %q", got)
	}
	long := Provenance(strings.Repeat("é", model.MaxMetadataValue), ds, Preprocess{D: 1}, start, nil)
	if _, err := m.WithMetadata(long); err != nil {
		t.Errorf("a very long source: %v", err)
	}
}
