package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grlgq/grlgq/model"
)

func npySpec(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	data, labels := filepath.Join(dir, "x.npy"), filepath.Join(dir, "y.npy")
	writeNPY(t, data, labels, n, 24, 3)
	return "npy:" + data + "," + labels
}

func TestCVCommand(t *testing.T) {
	spec := npySpec(t, 18)
	r := ok(t, "cv", "-data", spec, "-folds", "3", "-epochs", "3", "-workers", "2")
	for _, w := range []string{"fold 1/3", "fold 3/3", "accuracy", "3-fold stratified cross-validation"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("cv output lacks %q:\n%s", w, r.stdout)
		}
	}
	r = ok(t, "cv", "-data", spec, "-folds", "3", "-epochs", "3", "-json")
	js := decodeJSON(t, r.stdout, "mean", "sd", "fold_accuracy", "fold_correct", "fold_n", "folds")
	acc, _ := js["fold_accuracy"].([]any)
	if len(acc) != 3 {
		t.Fatalf("fold_accuracy %v, want 3 values", js["fold_accuracy"])
	}
	sum := 0.0
	for _, a := range acc {
		sum += a.(float64)
	}
	if m := fraction(t, js, "mean"); math.Abs(m-sum/3) > 1e-12 {
		t.Errorf("mean %v, folds average %v", m, sum/3)
	}
	fails(t, 2, []string{"-folds", "2 to 1000"}, "cv", "-data", spec, "-folds", "1")
	fails(t, 1, []string{"class", "has 9 sets"}, "cv", "-data", spec, "-folds", "10")
}

func TestTrainTune(t *testing.T) {
	spec := npySpec(t, 18)
	dir := t.TempDir()
	out := filepath.Join(dir, "m.grlgq")
	grid := []string{"-tune-protos", "1,2,all", "-tune-epochs", "0,2,4", "-tune-init", "sample", "-folds", "3"}
	r := ok(t, append([]string{"train", "-tune", "-data", spec, "-o", out}, grid...)...)
	for _, w := range []string{"tuning", "1-NN", "mean ± sd", "saved " + out} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("train -tune output lacks %q:\n%s", w, r.stdout)
		}
	}
	if _, err := model.LoadFile(out); err != nil {
		t.Fatalf("the tuned model: %v", err)
	}
	plots := filepath.Join(dir, "plots")
	r = ok(t, append([]string{"train", "-tune", "-data", spec, "-o", out, "-json", "-plots", plots}, grid...)...)
	js := decodeJSON(t, r.stdout, "table", "best", "chosen", "folds", "cv_mean", "model", "prototypes")
	table, _ := js["table"].([]any)
	if len(table) != 7 { // 2 x 3 epochs (0 shared by relevance/η) + 1-NN
		t.Errorf("%d rows, want 7", len(table))
	}
	b := int(js["best"].(float64))
	if b < 0 || b >= len(table) {
		t.Fatalf("best %d", b)
	}
	row := table[b].(map[string]any)
	if row["mean"] != js["cv_mean"] {
		t.Errorf("cv_mean %v, best row's mean %v", js["cv_mean"], row["mean"])
	}
	for _, r := range table {
		if f, _ := r.(map[string]any)["folds"].([]any); len(f) != 3 {
			t.Errorf("row %v: want 3 fold scores", r)
		}
	}
	if _, err := os.Stat(filepath.Join(plots, "tuning.png")); err != nil {
		t.Errorf("no tuning picture: %v", err)
	}
	// Usage errors: exit 2 with the flag named.
	fails(t, 2, []string{"-tune-protos"}, "train", "-tune", "-data", spec, "-o", out, "-tune-protos", "0")
	fails(t, 2, []string{"-tune-lr"}, "train", "-tune", "-data", spec, "-o", out, "-tune-lr", "x")
	fails(t, 2, []string{"needs -tune"}, "train", "-data", spec, "-o", out, "-tune-epochs", "5")
	fails(t, 2, []string{"-folds"}, "train", "-tune", "-data", spec, "-o", out, "-folds", "1")
	fails(t, 1, []string{"class", "-folds 12"}, "train", "-tune", "-data", spec, "-o", out, "-folds", "12", "-tune-epochs", "1")
}
