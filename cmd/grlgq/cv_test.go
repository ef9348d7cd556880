package main

import (
	"encoding/json"
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

// TestCVRepeats: -repeats N runs the K-fold cross-validation N times with
// other shuffles (folds x repeats accuracies, the first repeat's the same
// as without -repeats), for the plain, the nested (-tune) and the
// baselines' comparison; 0 is a usage error.
func TestCVRepeats(t *testing.T) {
	spec := npySpec(t, 18)
	one := decodeJSON(t, ok(t, "cv", "-data", spec, "-folds", "3", "-epochs", "3", "-json").stdout, "fold_accuracy")
	r := ok(t, "cv", "-data", spec, "-folds", "3", "-repeats", "2", "-epochs", "3", "-json")
	js := decodeJSON(t, r.stdout, "mean", "fold_accuracy", "repeats")
	acc, _ := js["fold_accuracy"].([]any)
	first, _ := one["fold_accuracy"].([]any)
	if len(acc) != 6 || len(first) != 3 {
		t.Fatalf("fold_accuracy %v with -repeats 2 (want 6 values), %v without", js["fold_accuracy"], one["fold_accuracy"])
	}
	for i := range first {
		if acc[i] != first[i] {
			t.Errorf("fold %d of the first repeat %v, without -repeats %v", i+1, acc[i], first[i])
		}
	}
	sum := 0.0
	for _, a := range acc {
		sum += a.(float64)
	}
	if m := fraction(t, js, "mean"); math.Abs(m-sum/6) > 1e-12 {
		t.Errorf("mean %v, the 6 folds' average %v", m, sum/6)
	}
	if js["repeats"] != 2.0 {
		t.Errorf("repeats %v, want 2", js["repeats"])
	}
	r = ok(t, "cv", "-data", spec, "-folds", "3", "-repeats", "2", "-epochs", "3", "-baselines=1nn-geodesic")
	for _, w := range []string{"repeat 1 fold 1/3", "repeat 2 fold 3/3", "2 x 3-fold stratified cross-validation", "once per repeat", "on the same 6 splits"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("cv -repeats 2 output lacks %q:\n%s", w, r.stdout)
		}
	}
	r = ok(t, "cv", "-data", spec, "-folds", "3", "-repeats", "2", "-tune", "-tune-protos", "1,all", "-tune-epochs", "0,2", "-tune-folds", "2", "-json")
	js = decodeJSON(t, r.stdout, "fold_accuracy", "tune")
	if acc, _ := js["fold_accuracy"].([]any); len(acc) != 6 {
		t.Errorf("cv -tune -repeats 2: fold_accuracy %v, want 6 values", js["fold_accuracy"])
	}
	fails(t, 2, []string{"-repeats"}, "cv", "-data", spec, "-repeats", "0")
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

// TestCVTune: grlgq cv -tune runs the nested cross-validation on the
// digits (a tiny search, 2 epochs): text with each outer fold's choice,
// JSON whose tuned scores are the outer folds', baselines compared with
// them on the same outer splits, and the tuning flags refused without
// -tune.
func TestCVTune(t *testing.T) {
	dir := t.TempDir()
	csv := filepath.Join(dir, "digits.csv.gz")
	ok(t, "demo", "-export-data", csv)
	args := []string{"cv", "-tune", "-data", "csv:" + csv, "-image", "8x8", "-pixel-max", "16", "-d", "4", "-m", "10", "-folds", "3", "-workers", "2",
		"-tune-protos", "1,2", "-tune-epochs", "0,2", "-tune-init", "sample", "-tune-folds", "2"}
	r := ok(t, args...)
	for _, w := range []string{"tuning     in each outer fold, 4 settings", "fold 3/3", "chose ", "inner ", "2-fold)", "3-fold nested stratified cross-validation of -tune"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("cv -tune output lacks %q:\n%s", w, r.stdout)
		}
	}
	if n := strings.Count(r.stdout, "chose "); n != 3 {
		t.Errorf("%d lines name a chosen setting, want one per outer fold:\n%s", n, r.stdout)
	}

	r = ok(t, append(args, "-json", "-baselines=1nn-geodesic")...)
	decodeJSON(t, r.stdout, "mean", "fold_accuracy", "fold_n", "tune", "baselines")
	var out struct {
		Mean     float64   `json:"mean"`
		Accuracy []float64 `json:"fold_accuracy"`
		N        []int     `json:"fold_n"`
		Tune     struct {
			InnerFolds int `json:"inner_folds"`
			Chosen     []struct {
				Setting   string  `json:"setting"`
				Index     int     `json:"index"`
				InnerMean float64 `json:"inner_mean"`
				Folds     int     `json:"inner_folds"`
			} `json:"chosen"`
		} `json:"tune"`
		Baselines struct {
			Splits    int `json:"splits"`
			Reference struct {
				Name     string    `json:"name"`
				Accuracy []float64 `json:"accuracy"`
			} `json:"reference"`
			Methods []struct {
				Versus struct {
					Against string    `json:"against"`
					Diff    []float64 `json:"diff"`
				} `json:"versus"`
				Accuracy []float64 `json:"accuracy"`
				N        []int     `json:"n"`
			} `json:"methods"`
		} `json:"baselines"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Accuracy) != 3 || len(out.Tune.Chosen) != 3 || out.Tune.InnerFolds != 2 {
		t.Fatalf("%d outer accuracies, %d choices, inner folds %d: %s", len(out.Accuracy), len(out.Tune.Chosen), out.Tune.InnerFolds, r.stdout)
	}
	for i, c := range out.Tune.Chosen {
		if c.Setting == "" || c.Index < 0 || c.Index >= 4 || c.Folds != 2 || !(c.InnerMean > 0.5) {
			t.Errorf("outer fold %d: chosen %+v", i+1, c)
		}
	}
	b := out.Baselines
	if b.Splits != 3 || b.Reference.Name != "GRLGQ (tuned)" || len(b.Methods) != 1 {
		t.Fatalf("baselines %+v", b)
	}
	for i, a := range out.Accuracy {
		m := b.Methods[0]
		// The same outer test parts: the same sizes, and the differences
		// taken to the tuned model's outer scores.
		if m.N[i] != out.N[i] || b.Reference.Accuracy[i] != a || math.Abs(m.Versus.Diff[i]-(m.Accuracy[i]-a)) > 1e-12 {
			t.Errorf("split %d: tuned %v of %d, reference %v, 1-NN %v of %d, diff %v", i+1, a, out.N[i], b.Reference.Accuracy[i], m.Accuracy[i], m.N[i], m.Versus.Diff[i])
		}
	}

	fails(t, 2, []string{"-tune-folds needs -tune"}, "cv", "-data", "csv:"+csv, "-image", "8x8", "-pixel-max", "16", "-tune-folds", "2")
	fails(t, 2, []string{"-tune-epochs needs -tune"}, "cv", "-data", "csv:"+csv, "-image", "8x8", "-pixel-max", "16", "-tune-epochs", "2")
	fails(t, 2, []string{"-tune-folds 1"}, "cv", "-tune", "-data", "csv:"+csv, "-image", "8x8", "-pixel-max", "16", "-tune-folds", "1")
}
