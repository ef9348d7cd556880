package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grlgq/grlgq/model"
)

// TestTrainImages: -images trains on the single images (a different model
// than sets of -m images), the model file does not depend on -workers, the
// model evaluates, and what -images cannot honour is a usage error.
func TestTrainImages(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	writeCSV(t, data, 4, 24, 2)
	spec := "csv:" + data
	base := []string{"train", "-data", spec, "-d", "3", "-epochs", "6", "-lr", "0.02", "-init", "pca", "-seed", "11", "-quiet"}
	read := func(p string) []byte { return modelContent(t, p) }
	plain := filepath.Join(dir, "plain")
	ok(t, append(base, "-o", plain)...)
	var files [][]byte
	for _, w := range []string{"1", "2"} {
		mod := filepath.Join(dir, "img"+w)
		ok(t, append(base, "-images", "-workers", w, "-o", mod)...)
		files = append(files, read(mod))
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("-images: -workers 1 and -workers 2 wrote different model files")
	}
	if bytes.Equal(files[0], read(plain)) {
		t.Error("-images gave the same model as training on sets")
	}
	r := ok(t, "train", "-data", spec, "-d", "3", "-epochs", "3", "-lr", "0.02", "-images", "-val", "0.25", "-o", filepath.Join(dir, "t"))
	for _, want := range []string{"single images as 1-D subspaces", "epoch 3/3", "val acc", "saved"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("train -images output lacks %q:\n%s", want, r.stdout)
		}
	}
	js := decodeJSON(t, ok(t, "eval", "-model", filepath.Join(dir, "img1"), "-data", spec, "-json").stdout, "accuracy")
	if a := fraction(t, js, "accuracy"); a < 0.9 {
		t.Errorf("-images model: training-data accuracy %.3f", a)
	}

	mod := filepath.Join(dir, "u")
	for _, extra := range [][]string{{"-m", "6"}, {"-groupings", "2"}, {"-hard-copies", "1"}, {"-skip-bad"}} {
		fails(t, 2, []string{"-images"}, append(append(append([]string(nil), base...), "-images", "-o", mod), extra...)...)
	}
	// -shift: 4 shifted copies of every image; a different model, the same
	// for -workers 1 and 2; needs the image size, -images, and no -val.
	side := fmt.Sprintf("%dx%d", synthSide, synthSide)
	var shifted [][]byte
	for _, w := range []string{"1", "2"} {
		mod := filepath.Join(dir, "shift"+w)
		r := ok(t, "train", "-data", spec, "-image", side, "-d", "3", "-epochs", "4", "-lr", "0.02", "-init", "pca", "-images", "-shift", "1", "-workers", w, "-o", mod)
		if !strings.Contains(r.stdout, fmt.Sprintf("shifted by 1 pixel(s) left, right, up and down (%d images)", 5*4*24)) {
			t.Errorf("train -shift output:\n%s", r.stdout)
		}
		shifted = append(shifted, read(mod))
	}
	if !bytes.Equal(shifted[0], shifted[1]) {
		t.Error("-shift: -workers 1 and -workers 2 wrote different model files")
	}
	ok(t, "train", "-data", spec, "-image", side, "-d", "3", "-epochs", "4", "-lr", "0.02", "-init", "pca", "-images", "-o", filepath.Join(dir, "noshift"))
	if bytes.Equal(shifted[0], read(filepath.Join(dir, "noshift"))) {
		t.Error("-shift 1 gave the same model as no shifts")
	}
	fails(t, 2, []string{"-shift"}, append(base, "-shift", "1", "-o", mod)...)
	fails(t, 2, []string{"-shift"}, append(base, "-images", "-shift", "-1", "-o", mod)...)
	fails(t, 2, []string{"-shift", "image size"}, append(base, "-images", "-shift", "1", "-o", mod)...)
	fails(t, 2, []string{"-shift", "-val"}, append(base, "-image", side, "-images", "-shift", "1", "-val", "0.2", "-o", mod)...)
	fails(t, 2, []string{"-tune", "-shift"}, append(base, "-image", side, "-images", "-shift", "1", "-tune", "-o", mod)...)

	root := filepath.Join(dir, "sets")
	writeFolder(t, root, 2, 4, 6)
	fails(t, 2, []string{"-images", "single-image", "folder"}, "train", "-data", "folder:"+root, "-d", "3", "-images", "-o", mod)
	if _, err := os.Stat(mod); err == nil {
		t.Error("a usage error wrote the model")
	}
}

// TestTrainAverageLast: -average-last returns the average of the last
// epochs' models (another model file than the last epoch's, the same for
// -workers 1 and 2), reports the averaged model's validation accuracy, and
// refuses -patience, -hard-copies and negative counts.
func TestTrainAverageLast(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	writeCSV(t, data, 4, 24, 3)
	spec := "csv:" + data
	base := []string{"train", "-data", spec, "-d", "3", "-epochs", "6", "-lr", "0.05", "-init", "pca", "-seed", "5", "-quiet"}
	read := func(p string) []byte { return modelContent(t, p) }
	for _, images := range [][]string{nil, {"-images"}} {
		last := filepath.Join(dir, "last")
		ok(t, append(append(append([]string(nil), base...), images...), "-o", last)...)
		var files [][]byte
		for _, w := range []string{"1", "2"} {
			mod := filepath.Join(dir, "avg"+w)
			ok(t, append(append(append([]string(nil), base...), images...), "-average-last", "4", "-workers", w, "-o", mod)...)
			files = append(files, read(mod))
		}
		if !bytes.Equal(files[0], files[1]) {
			t.Errorf("%v -average-last: -workers 1 and 2 wrote different model files", images)
		}
		if bytes.Equal(files[0], read(last)) {
			t.Errorf("%v -average-last 4 wrote the last epoch's model", images)
		}
		js := decodeJSON(t, ok(t, append(append(append([]string(nil), base...), images...), "-average-last", "4", "-val", "0.25", "-json", "-o", filepath.Join(dir, "v"))...).stdout, "val_accuracy", "averaged")
		if n, _ := js["averaged"].(float64); n != 4 {
			t.Errorf("%v: averaged %v, want 4", images, js["averaged"])
		}
		fraction(t, js, "val_accuracy")
		r := ok(t, append(append(append([]string(nil), base...), images...), "-average-last", "4", "-val", "0.25", "-o", filepath.Join(dir, "v"))...)
		if !strings.Contains(r.stdout, "the average of the last 4 epochs' models") {
			t.Errorf("%v: output does not say the model is an average:\n%s", images, r.stdout)
		}
	}
	mod := filepath.Join(dir, "u")
	fails(t, 2, []string{"-average-last"}, append(base, "-average-last", "-1", "-o", mod)...)
	fails(t, 2, []string{"-average-last", "-patience"}, append(base, "-average-last", "3", "-val", "0.25", "-patience", "2", "-o", mod)...)
	if _, err := os.Stat(mod); !os.IsNotExist(err) {
		t.Errorf("a refused run wrote %s", mod)
	}
	// Hard-example sets are a hook of the one training loop: they average
	// like any training.
	r := ok(t, append(base, "-average-last", "3", "-hard-copies", "2", "-hard-margin", "1", "-o", mod)...)
	if !strings.Contains(r.stdout, "the average of the last 3 epochs' models") {
		t.Errorf("-hard-copies -average-last: %s", r.stdout)
	}
}

// modelContent is the model file p without its provenance (the time of
// training differs from run to run): the bytes of the same model saved
// by the library, for bit-for-bit comparisons of trained models.
func modelContent(t *testing.T, p string) []byte {
	t.Helper()
	m, err := model.LoadFile(p)
	if err == nil {
		m, err = m.WithMetadata(nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	b, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
