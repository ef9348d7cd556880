package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestZeroModel: the zero Model is refused, with ErrConfig, by everything
// that needs prototypes: saving it (a file Load could not read back) and
// predicting with it.
func TestZeroModel(t *testing.T) {
	xs, _ := synth(t, 72, 12, 2, 2, 3, 0.3)
	img := make([]float64, 12)
	img[3] = 1
	var z Model
	var buf bytes.Buffer
	path := filepath.Join(t.TempDir(), "zero.grlgq")
	check := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", what, err)
		}
	}
	check("Save", z.Save(&buf))
	if buf.Len() != 0 {
		t.Errorf("Save wrote %d bytes", buf.Len())
	}
	check("SaveFile", z.SaveFile(path))
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("SaveFile made a file: %v", err)
	}
	_, err := z.MarshalBinary()
	check("MarshalBinary", err)
	_, err = z.MarshalJSON()
	check("MarshalJSON", err)
	_, err = json.Marshal(&z)
	check("json.Marshal", err)
	for _, x := range []Sample{Set(xs[0]), Image(img)} {
		_, err = z.Predict(x)
		check("Predict "+x.kind().String(), err)
		_, err = z.PredictBatch([]Sample{x})
		check("PredictBatch "+x.kind().String(), err)
		_, err = z.PredictLabels([]Sample{x})
		check("PredictLabels "+x.kind().String(), err)
		_, err = z.Distances([]Sample{x})
		check("Distances "+x.kind().String(), err)
		_, err = z.Score([]Sample{x}, []int{0})
		check("Score "+x.kind().String(), err)
		_, err = z.Explain(x, -1)
		check("Explain "+x.kind().String(), err)
	}
	if z.srv.Load() != nil {
		t.Error("the zero Model built a predictor")
	}
}

// TestDecodeIntoModelInUse: UnmarshalBinary and UnmarshalJSON decode into
// a new zero Model only; into one that holds a model (used to predict or
// not, trained or decoded) they refuse with ErrConfig and leave it as it
// was, predictions included. Run with -race: a decode racing with the
// first predictions is refused or comes first, never interleaved.
func TestDecodeIntoModelInUse(t *testing.T) {
	x1, y1 := synth(t, 73, 12, 2, 3, 4, 0.3)
	x2, y2 := synth(t, 74, 12, 2, 4, 4, 0.3)
	m1 := trainSmall(t, Sets(x1), y1, 1)
	m2 := trainSmall(t, Sets(x2), y2, 2)
	bin := modelBytes(t, m2)
	js, err := m2.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want, err := m1.Predict(Set(x2[0]))
	if err != nil {
		t.Fatal(err)
	}
	decoded := new(Model)
	if err := decoded.UnmarshalBinary(bin); err != nil {
		t.Fatal(err)
	}
	// m1 has predicted, its clone has not.
	for name, m := range map[string]*Model{"used": m1, "unused": m1.clone(), "decoded": decoded} {
		before := m.NumPrototypes()
		if err := m.UnmarshalBinary(bin); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: UnmarshalBinary: %v, want ErrConfig", name, err)
		}
		if err := json.Unmarshal(js, m); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: json.Unmarshal: %v, want ErrConfig", name, err)
		}
		if m.NumPrototypes() != before {
			t.Errorf("%s: %d prototypes after a refused decode, had %d", name, m.NumPrototypes(), before)
		}
	}
	got, err := m1.Predict(Set(x2[0]))
	if err != nil || got.Label != want.Label || !equalFloats(got.Distances, want.Distances) {
		t.Errorf("after the refused decodes m1 predicts %+v, %v; before %+v", got, err, want)
	}
	// A new zero Model decodes, also through json.Unmarshal of a pointer
	// field, which allocates it.
	var holder struct{ M *Model }
	if err := json.Unmarshal([]byte(`{"M":`+string(js)+`}`), &holder); err != nil || holder.M.NumPrototypes() != m2.NumPrototypes() {
		t.Errorf("json.Unmarshal into a new Model: %v", err)
	}
	// A zero Model decoded while goroutines try to predict with it: each
	// prediction fails (zero Model) or uses the decoded model, whole.
	z := new(Model)
	ref, err := m2.Predict(Set(x2[0]))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 50 {
				p, err := z.Predict(Set(x2[0]))
				if err != nil {
					if !errors.Is(err, ErrConfig) {
						t.Errorf("prediction during a decode: %v", err)
					}
					continue
				}
				if !equalFloats(p.Distances, ref.Distances) {
					t.Errorf("prediction during a decode: %v, want %v", p.Distances, ref.Distances)
				}
			}
		})
	}
	if err := z.UnmarshalBinary(bin); err != nil {
		t.Error(err)
	}
	wg.Wait()
}

// trainSmall trains a model of ppc prototypes per class for two epochs.
func trainSmall(t *testing.T, x []Sample, y []int, ppc int) *Model {
	t.Helper()
	m, _, err := Train(context.Background(), legacyOptions(Config{PrototypesPerClass: ppc}, TrainConfig{Epochs: 2}), x, y)
	if err != nil {
		t.Fatal(err)
	}
	return m
}
