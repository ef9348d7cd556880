package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHardExamples: -hard-copies trains with hard-example sets on
// single-image data (a different model than without), the model file does
// not depend on -workers, the per-epoch history and JSON report them, and
// the settings it cannot honour are usage errors.
func TestHardExamples(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	writeCSV(t, data, 4, 24, 2)
	spec := "csv:" + data
	base := []string{"train", "-data", spec, "-d", "3", "-m", "6", "-epochs", "6", "-lr", "0.05", "-lr-rel", "1e-4", "-seed", "11", "-quiet"}
	read := func(p string) []byte { return modelContent(t, p) }
	plain := filepath.Join(dir, "plain")
	ok(t, append(base, "-o", plain)...)
	off := filepath.Join(dir, "off")
	ok(t, append(base, "-hard-copies", "0", "-o", off)...)
	if !bytes.Equal(read(plain), read(off)) {
		t.Error("-hard-copies 0 changed the model file")
	}
	var files [][]byte
	for _, w := range []string{"1", "2"} {
		mod := filepath.Join(dir, "hard"+w)
		// Margin 1: every image is hard (these synthetic classes are
		// easy: no image is within a relative margin of 0.5).
		ok(t, append(base, "-hard-copies", "2", "-hard-margin", "1", "-workers", w, "-o", mod)...)
		files = append(files, read(mod))
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Error("-hard-copies: -workers 1 and -workers 2 wrote different model files")
	}
	if bytes.Equal(files[0], read(plain)) {
		t.Error("-hard-copies 2 gave the same model as no hard sets")
	}

	// Text: the training line and the per-epoch hard counts.
	r := ok(t, "train", "-data", spec, "-d", "3", "-m", "6", "-epochs", "3", "-lr", "0.05", "-hard-copies", "2", "-hard-margin", "0.5", "-hard-m", "4", "-o", filepath.Join(dir, "t"))
	for _, want := range []string{"2 copies of hard sets (m=4", "epoch 1/3", "epoch 3/3", "hard ", " sets", "saved"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("train -hard-copies output lacks %q:\n%s", want, r.stdout)
		}
	}
	// JSON, plots: history of every epoch with its hard counts.
	plots := filepath.Join(dir, "plots")
	r = ok(t, "train", "-data", spec, "-d", "3", "-m", "6", "-epochs", "4", "-lr", "0.05", "-hard-copies", "1", "-hard-margin", "0.5", "-o", filepath.Join(dir, "j"), "-json", "-plots", plots)
	js := decodeJSON(t, r.stdout, "history", "hard", "accuracy")
	h := js["history"].([]any)
	if len(h) != 4 {
		t.Fatalf("history has %d epochs, want 4", len(h))
	}
	for i, e := range h {
		ep := e.(map[string]any)
		if ep["epoch"].(float64) != float64(i+1) {
			t.Errorf("history[%d] is epoch %v", i, ep["epoch"])
		}
		if _, ok := ep["hard_sets"]; !ok {
			t.Errorf("history[%d] has no hard_sets: %v", i, ep)
		}
	}
	if hd := js["hard"].(map[string]any); hd["copies"].(float64) != 1 || hd["m"].(float64) != 3 || hd["margin"].(float64) != 0.5 {
		t.Errorf("hard = %v, want copies 1, m 3 (d), margin 0.5", hd)
	}
	checkPNG(t, filepath.Join(plots, "learning_curves.png"))

	// Cancellation: an error, and no model file.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var so, se bytes.Buffer
	cm := filepath.Join(dir, "cancelled")
	err := runTrain(ctx, &env{stdout: &so, stderr: &se}, append(base[1:], "-hard-copies", "2", "-o", cm))
	if err == nil || !strings.Contains(err.Error(), "interrupted") {
		t.Errorf("cancelled hard training: error %v, want interrupted", err)
	}
	if _, err := os.Stat(cm); err == nil {
		t.Error("cancelled hard training wrote the model")
	}

	// Usage errors (exit 2).
	mod := filepath.Join(dir, "u")
	fails(t, 2, []string{"-val"}, append(base, "-hard-copies", "2", "-val", "0.25", "-o", mod)...)
	fails(t, 2, []string{"-val"}, append(base, "-hard-copies", "2", "-val", "0.25", "-patience", "2", "-o", mod)...)
	fails(t, 2, []string{"-hard-copies"}, append(base, "-hard-copies", "-1", "-o", mod)...)
	fails(t, 2, []string{"-hard-copies"}, append(base, "-hard-margin", "0.2", "-o", mod)...)
	fails(t, 2, []string{"-hard-copies"}, append(base, "-hard-m", "4", "-o", mod)...)
	fails(t, 2, []string{"-hard-m 2", "-d 3"}, append(base, "-hard-copies", "1", "-hard-m", "2", "-o", mod)...)
	fails(t, 2, []string{"-hard-margin"}, append(base, "-hard-copies", "1", "-hard-margin", "NaN", "-o", mod)...)
	root := filepath.Join(dir, "sets")
	writeFolder(t, root, 2, 4, 6)
	fails(t, 2, []string{"-hard-copies", "single-image", "folder"}, "train", "-data", "folder:"+root, "-d", "3", "-hard-copies", "1", "-o", mod)
	npy, labels := filepath.Join(dir, "b.npy"), filepath.Join(dir, "l.npy")
	writeNPY(t, npy, labels, 12, 10, 2)
	fails(t, 2, []string{"-hard-copies", "single-image", "npy"}, "train", "-data", "npy:"+npy+","+labels, "-hard-copies", "1", "-o", mod)
	if _, err := os.Stat(mod); err == nil {
		t.Error("a usage error wrote the model")
	}
}
