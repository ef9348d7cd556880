package main

import (
	"encoding/csv"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestEvalReport: eval prints precision, recall, F1, support, the
// averages and the confusion matrix in every -format; the CSV's numbers
// are the JSON's.
func TestEvalReport(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "train.csv")
	writeCSV(t, data, 3, 18, 1)
	spec := "csv:" + data
	mod := filepath.Join(dir, "model.grlgq")
	ok(t, "train", "-data", spec, "-image", "8x8", "-pixel-max", "16", "-d", "3", "-m", "6", "-epochs", "2", "-o", mod, "-quiet")
	args := []string{"eval", "-model", mod, "-data", spec, "-image", "8x8", "-pixel-max", "16"}
	js := decodeJSON(t, ok(t, append(args, "-format", "json")...).stdout, "per_class", "macro_avg", "weighted_avg", "confusion")
	per := js["per_class"].([]any)
	c0 := per[0].(map[string]any)
	for _, k := range []string{"precision", "recall", "f1", "support"} {
		if _, ok := c0[k]; !ok {
			t.Errorf("per_class lacks %q: %v", k, c0)
		}
	}
	r := ok(t, append(args, "-format", "csv")...)
	rows, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil || len(rows) != 1+3+3 || rows[0][0] != "class" || rows[4][0] != "macro avg" {
		t.Fatalf("csv: %v %q", err, rows)
	}
	for i, row := range rows[1:4] {
		p, _ := strconv.ParseFloat(row[1], 64)
		if want := per[i].(map[string]any)["precision"].(float64); math.Abs(p-want) > 1e-15 {
			t.Errorf("class %d: csv precision %v, json %v", i, p, want)
		}
	}
	macro := js["macro_avg"].(map[string]any)["f1"].(float64)
	if f, _ := strconv.ParseFloat(rows[4][3], 64); math.Abs(f-macro) > 1e-15 {
		t.Errorf("macro F1 csv %v json %v", f, macro)
	}
	r = ok(t, append(args, "-format", "latex")...)
	if strings.Count(r.stdout, `\begin{tabular}`) != 2 || !strings.Contains(r.stdout, "Macro avg") {
		t.Errorf("latex:\n%s", r.stdout)
	}
	fails(t, 2, []string{"-format", "text, json, csv, latex"}, append(args, "-format", "xml")...)
	fails(t, 2, []string{"-json and -format csv"}, append(args, "-format", "csv", "-json")...)
	// Picture size: -plot-size in inches at -dpi.
	ev := filepath.Join(dir, "ev")
	ok(t, append(args, "-plots", ev, "-plot-size", "5x4", "-dpi", "50", "-format", "csv")...)
	if sz := checkPNG(t, filepath.Join(ev, "confusion.png")); sz.X != 250 || sz.Y != 200 {
		t.Errorf("-plot-size 5x4 -dpi 50: %v, want 250x200", sz)
	}
	fails(t, 2, []string{"\"0x4\" for flag -plot-size", "inches"}, append(args, "-plots", ev, "-plot-size", "0x4")...)
	fails(t, 2, []string{"-dpi", "24 to 1200"}, append(args, "-plots", ev, "-dpi", "5000")...)
	fails(t, 2, []string{"-plot-size 100x100 -dpi 1200", "pixels"}, append(args, "-plots", ev, "-plot-size", "100x100", "-dpi", "1200")...)
}

// TestCVReport: cv reports the pooled and the per-fold classification
// reports, in text, JSON and CSV, and -plots draws the pooled confusion
// matrix and the fold accuracies.
func TestCVReport(t *testing.T) {
	spec := npySpec(t, 18)
	args := []string{"cv", "-data", spec, "-folds", "3", "-epochs", "2"}
	r := ok(t, args...)
	for _, w := range []string{"macro F1", "pooled over the folds", "weighted avg", "confusion matrix"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("cv output lacks %q:\n%s", w, r.stdout)
		}
	}
	dir := t.TempDir()
	js := decodeJSON(t, ok(t, append(args, "-json", "-plots", dir, "-plot-format", "svg")...).stdout, "pooled", "fold_reports", "plots")
	pooled := js["pooled"].(map[string]any)
	folds := js["fold_reports"].([]any)
	if pooled["n"].(float64) != 18 || len(folds) != 3 {
		t.Errorf("pooled n %v, %d fold reports", pooled["n"], len(folds))
	}
	correct := 0.0
	for i, f := range folds {
		fr := f.(map[string]any)
		correct += fr["correct"].(float64)
		if a := js["fold_accuracy"].([]any)[i].(float64); a != fr["accuracy"].(float64) {
			t.Errorf("fold %d: accuracy %v, report %v", i, a, fr["accuracy"])
		}
	}
	if correct != pooled["correct"].(float64) {
		t.Errorf("pooled correct %v, folds' sum %v", pooled["correct"], correct)
	}
	for _, p := range []string{"cv_confusion.svg", "cv_folds.svg"} {
		if !strings.Contains(strings.Join(anyStrings(js["plots"]), " "), filepath.Join(dir, p)) {
			t.Errorf("plots %v lacks %s", js["plots"], p)
		}
	}
	rows, err := csv.NewReader(strings.NewReader(ok(t, append(args, "-format", "csv")...).stdout)).ReadAll()
	if err != nil || rows[0][0] != "table" || rows[1][0] != "pooled" || rows[len(rows)-1][0] != "3" {
		t.Errorf("csv: %v %q", err, rows)
	}
}

func anyStrings(v any) []string {
	var out []string
	for _, x := range v.([]any) {
		out = append(out, x.(string))
	}
	return out
}
