package main

import (
	"bytes"
	"encoding/binary"
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grlgq/grlgq/model"
)

// noisyNPY writes n sets of d orthonormal columns in dim pixels, 3
// classes whose sets share a weak class direction (signal) under noise,
// so that the classifiers disagree; with single, the last set is a
// fourth class of its own.
func noisyNPY(t *testing.T, n, dim, d int, signal float64, single bool) string {
	t.Helper()
	dir := t.TempDir()
	data, labels := filepath.Join(dir, "x.npy"), filepath.Join(dir, "y.npy")
	rng := rand.New(rand.NewPCG(3, 4))
	var vals []float64
	var labs []int64
	for i := range n {
		c := i % 3
		if single && i == n-1 {
			c = 3
		}
		b := make([][]float64, d)
		for j := range b {
			col := make([]float64, dim)
			for r := range col {
				col[r] = rng.NormFloat64()
			}
			col[(c*d+j)%dim] += signal
			for _, q := range b[:j] {
				dot := 0.0
				for r := range col {
					dot += col[r] * q[r]
				}
				for r := range col {
					col[r] -= dot * q[r]
				}
			}
			nrm := 0.0
			for _, v := range col {
				nrm += v * v
			}
			for r := range col {
				col[r] /= math.Sqrt(nrm)
			}
			b[j] = col
		}
		for r := range dim {
			for j := range d {
				vals = append(vals, b[j][r])
			}
		}
		labs = append(labs, int64(c))
	}
	writeNPYFile(t, data, "<f8", fmt.Sprintf("(%d, %d, %d)", n, dim, d), vals)
	lb := new(bytes.Buffer)
	binary.Write(lb, binary.LittleEndian, labs)
	writeNPYRaw(t, labels, "<i8", fmt.Sprintf("(%d,)", n), lb.Bytes())
	return "npy:" + data + "," + labels
}

// TestCVBaselines runs cv -baselines: the rows, their paired differences
// to GRLGQ on the same folds (JSON: diff = baseline − GRLGQ per fold), and
// the per-fold CSV.
func TestCVBaselines(t *testing.T) {
	spec := noisyNPY(t, 36, 20, 3, 2.5, false)
	csvPath := filepath.Join(t.TempDir(), "folds.csv")
	r := ok(t, "cv", "-data", spec, "-folds", "3", "-epochs", "2", "-baselines", "-baselines-csv", csvPath)
	for _, w := range []string{"baselines on the same 3 splits", "1-NN geodesic", "1-NN chordal", "1-NN MSM", "5-NN geodesic", "SVM, projection kernel", "w/t/l", "SVM C"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("cv -baselines output lacks %q:\n%s", w, r.stdout)
		}
	}
	f, err := os.Open(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil || len(rows) != 4 || rows[0][1] != "GRLGQ" || rows[0][2] != "1-NN geodesic" {
		t.Fatalf("CSV %v (%v), want a header and 3 folds, GRLGQ then 1-NN geodesic", rows, err)
	}

	r = ok(t, "cv", "-data", spec, "-folds", "3", "-epochs", "2", "-json", "-baselines=1nn-geodesic,gda")
	js := decodeJSON(t, r.stdout, "fold_accuracy", "baselines")
	acc := js["fold_accuracy"].([]any)
	b := js["baselines"].(map[string]any)
	methods := b["methods"].([]any)
	if len(methods) != 2 {
		t.Fatalf("%d baseline rows, want 2", len(methods))
	}
	differ := false
	for _, m := range methods {
		m := m.(map[string]any)
		ba := m["accuracy"].([]any)
		diff := m["versus"].(map[string]any)["diff"].([]any)
		if len(ba) != 3 || len(diff) != 3 {
			t.Fatalf("%s: %d accuracies, %d differences, want 3", m["name"], len(ba), len(diff))
		}
		for i := range diff {
			if want := ba[i].(float64) - acc[i].(float64); math.Abs(diff[i].(float64)-want) > 1e-12 {
				t.Errorf("%s fold %d: diff %v, want %v", m["name"], i+1, diff[i], want)
			}
			differ = differ || diff[i].(float64) != 0
		}
	}
	if !differ {
		t.Errorf("every baseline equals GRLGQ on every fold: the data do not test the pairing")
	}
	fails(t, 2, []string{"unknown method"}, "cv", "-data", spec, "-baselines=3nn-euclid")
	fails(t, 2, []string{"-baselines-csv needs -baselines"}, "cv", "-data", spec, "-baselines-csv", csvPath)
	fails(t, 2, []string{"-baselines needs -tune"}, "train", "-data", spec, "-o", filepath.Join(t.TempDir(), "m"), "-baselines")
}

// TestTuneBaselines: train -tune -baselines reports the baselines on the
// tuner's folds, and says that the chosen setting's scores are biased.
func TestTuneBaselines(t *testing.T) {
	spec := npySpec(t, 18)
	out := filepath.Join(t.TempDir(), "m.grlgq")
	r := ok(t, "train", "-tune", "-data", spec, "-o", out, "-tune-protos", "1,all", "-tune-epochs", "2", "-folds", "3", "-baselines=1nn-geodesic,svm")
	for _, w := range []string{"baselines on the same 3 splits", "GRLGQ (chosen)", "1-NN geodesic", "SVM, projection kernel", "scored on the folds it was chosen by", "run grlgq cv -tune -baselines"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("train -tune -baselines output lacks %q:\n%s", w, r.stdout)
		}
	}
}

// TestTuneDefaultSearchTinyClass: train -tune with the default search
// where a class has a single training set (the failure of issue 23):
// it trains, says how the folds hold that class, and the model knows it.
func TestTuneDefaultSearchTinyClass(t *testing.T) {
	spec := noisyNPY(t, 31, 20, 4, 2.5, true)
	out := filepath.Join(t.TempDir(), "m.grlgq")
	r := ok(t, "train", "-tune", "-data", spec, "-o", out, "-quiet")
	for _, w := range []string{"note", "single sample", "successive halving", "saved " + out} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("train -tune output lacks %q:\n%s", w, r.stdout)
		}
	}
	m, err := model.LoadFile(out)
	if err != nil || m.NumClasses() != 4 {
		t.Fatalf("the tuned model: %v", err)
	}
}

// TestReproMNISTBaselines: repro mnist -baselines on a tiny MNIST tree (3
// classes of 48 training images of 8x8, one training set each, against 30
// test images): the rows beside GRLGQ, per run; with one run the
// standard errors are undefined ("n/a" in the text, null in the JSON).
func TestReproMNISTBaselines(t *testing.T) {
	dir := t.TempDir()
	mn := filepath.Join(dir, "mnist")
	if err := os.Mkdir(mn, 0o755); err != nil {
		t.Fatal(err)
	}
	writeIDX(t, filepath.Join(mn, "train-images-idx3-ubyte.gz"), filepath.Join(mn, "train-labels-idx1-ubyte.gz"), 3, 48, -1)
	writeIDX(t, filepath.Join(mn, "t10k-images-idx3-ubyte.gz"), filepath.Join(mn, "t10k-labels-idx1-ubyte.gz"), 3, 10, -1)
	r := ok(t, "repro", "mnist", "-dir", dir, "-runs", "1", "-quiet", "-baselines=1nn-geodesic,1nn-msm,svm")
	for _, w := range []string{"GRLGQ (this run)", "baselines on the same split", "one split: no sd or standard error", "1-NN geodesic", "1-NN MSM", "SVM, projection kernel", "n/a", "SVM C"} {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("repro mnist -baselines output lacks %q:\n%s", w, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "NaN") {
		t.Errorf("NaN in the output:\n%s", r.stdout)
	}
	r = ok(t, "repro", "mnist", "-dir", dir, "-runs", "1", "-quiet", "-json", "-baselines=1nn-geodesic")
	js := decodeJSON(t, r.stdout, "accuracies", "baselines")
	b := js["baselines"].(map[string]any)
	m := b["methods"].([]any)[0].(map[string]any)
	if v := m["versus"].(map[string]any); v["se"] != nil || m["sd"] != nil || b["splits"].(float64) != 1 || len(m["accuracy"].([]any)) != 1 {
		t.Errorf("JSON baselines of one run: %v", b)
	}
	r = ok(t, "repro", "mnist", "-dir", dir, "-runs", "2", "-quiet", "-baselines=1nn-geodesic")
	if !strings.Contains(r.stdout, "baselines on the same 2 splits") || strings.Contains(r.stdout, "n/a") {
		t.Errorf("repro mnist -runs 2 -baselines:\n%s", r.stdout)
	}
	t.Logf("\n%s", r.stdout)
}
