package model

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
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
