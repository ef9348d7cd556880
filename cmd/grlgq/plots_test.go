package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlotFormatsCLI: train, eval and explain write their pictures in the
// -plot-format asked for; eval -plots draws the confusion matrix.
func TestPlotFormatsCLI(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "train.csv")
	writeCSV(t, data, 3, 18, 1)
	spec := "csv:" + data
	mod := filepath.Join(dir, "model.grlgq")
	plots := filepath.Join(dir, "plots")
	ok(t, "train", "-data", spec, "-image", "8x8", "-pixel-max", "16", "-d", "3", "-m", "6", "-epochs", "3", "-val", "0.2",
		"-o", mod, "-plots", plots, "-plot-format", "svg", "-quiet")
	for _, p := range []string{"learning_curves.svg", "relevances.svg", "relevance_history.svg"} {
		b, err := os.ReadFile(filepath.Join(plots, p))
		if err != nil || !strings.Contains(string(b), "<svg") {
			t.Errorf("%s: %v, %.40q", p, err, b)
		}
	}

	ev := filepath.Join(dir, "eval")
	r := ok(t, "eval", "-model", mod, "-data", spec, "-image", "8x8", "-pixel-max", "16", "-plots", ev)
	if !strings.Contains(r.stdout, filepath.Join(ev, "confusion.png")) {
		t.Errorf("eval does not name its picture:\n%s", r.stdout)
	}
	if sz := checkPNG(t, filepath.Join(ev, "confusion.png")); sz.X < 300 || sz.Y < 300 {
		t.Errorf("confusion.png is %v", sz)
	}
	r = ok(t, "eval", "-model", mod, "-data", spec, "-image", "8x8", "-pixel-max", "16", "-plots", ev, "-plot-format", "pdf", "-json")
	js := decodeJSON(t, r.stdout, "plots", "confusion")
	if p := js["plots"].([]any); len(p) != 1 || p[0] != filepath.Join(ev, "confusion.pdf") {
		t.Errorf("plots: %v", p)
	}
	if b, err := os.ReadFile(filepath.Join(ev, "confusion.pdf")); err != nil || !strings.HasPrefix(string(b), "%PDF-") {
		t.Errorf("confusion.pdf: %v", err)
	}

	ex := filepath.Join(dir, "ex")
	ok(t, "explain", "-model", mod, "-data", spec, "-image", "8x8", "-pixel-max", "16", "-n", "1", "-o", ex, "-plot-format", "svg")
	for _, p := range []string{"prototypes.svg", "relevances.svg", "sample_00.svg"} {
		if _, err := os.Stat(filepath.Join(ex, p)); err != nil {
			t.Error(err)
		}
	}

	for _, cmd := range [][]string{
		{"train", "-data", spec, "-o", filepath.Join(dir, "x"), "-plots", plots},
		{"eval", "-model", mod, "-data", spec, "-plots", ev},
		{"explain", "-model", mod, "-data", spec, "-o", ex},
	} {
		fails(t, 2, []string{"-plot-format", "png, svg, pdf"}, append(cmd, "-plot-format", "gif")...)
	}
}
