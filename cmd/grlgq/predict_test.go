package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// readCSVFile reads predict's CSV output and checks its shape: a header
// naming cols, then n rows.
func readCSVFile(t *testing.T, path string, n int, cols ...string) (head []string, rows [][]string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	all, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if len(all) != n+1 {
		t.Fatalf("%s: %d lines, want a header and %d rows", path, len(all), n)
	}
	head = all[0]
	for _, c := range cols {
		if col(head, c) < 0 {
			t.Errorf("%s: header %v lacks %q", path, head, c)
		}
	}
	return head, all[1:]
}

func col(head []string, name string) int {
	for i, h := range head {
		if h == name {
			return i
		}
	}
	return -1
}

// checkProbabilities: the p_ columns of each row sum to 1 and the
// predicted class has the largest.
func checkProbabilities(t *testing.T, head []string, rows [][]string) {
	t.Helper()
	for _, r := range rows {
		sum, best, bestP := 0.0, "", -1.0
		for j, h := range head {
			if c, ok := strings.CutPrefix(h, "p_"); ok {
				p, err := strconv.ParseFloat(r[j], 64)
				if err != nil || p < 0 || p > 1 {
					t.Fatalf("row %v: probability %q", r, r[j])
				}
				sum += p
				if p > bestP {
					best, bestP = c, p
				}
			}
		}
		if math.Abs(sum-1) > 1e-12 || r[col(head, "predicted")] != best {
			t.Errorf("row %v: probabilities sum to %v, likeliest %s", r, sum, best)
		}
	}
}

// TestPredictUnlabeledFolder: a model trained on ROOT/<class>/<set>
// predicts new sets ROOT/<set>/<images> without labels, into CSV, JSON
// and text, one row per set named by its folder.
func TestPredictUnlabeledFolder(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "train")
	writeFolder(t, root, 2, 4, 6)
	mod := filepath.Join(dir, "m.grlgq")
	ok(t, "train", "-data", "folder:"+root, "-d", "3", "-epochs", "5", "-o", mod)
	// New sets: copies of the training sets under other names, no classes.
	newRoot := filepath.Join(dir, "new")
	want := map[string]string{}
	for _, c := range []string{"classa", "classb"} {
		for _, o := range []string{"obj0", "obj3"} {
			name := "mystery-" + c[5:] + o[3:]
			want[name] = c
			if err := os.CopyFS(filepath.Join(newRoot, name), os.DirFS(filepath.Join(root, c, o))); err != nil {
				t.Fatal(err)
			}
		}
	}
	out := filepath.Join(dir, "pred.csv")
	r := ok(t, "predict", "-model", mod, "-data", "folder:"+newRoot, "-o", out)
	if !strings.Contains(r.stdout, "wrote 4 predictions (csv)") || !strings.Contains(r.stdout, "no labels") {
		t.Errorf("predict -o: %q", r.stdout)
	}
	head, rows := readCSVFile(t, out, 4, "index", "name", "predicted", "rejected", "margin", "p_classa", "p_classb")
	if col(head, "true") >= 0 || col(head, "mu") >= 0 {
		t.Errorf("unlabeled data: header %v has true or mu", head)
	}
	for i, r := range rows {
		name := r[col(head, "name")]
		if r[0] != strconv.Itoa(i) || want[name] == "" {
			t.Errorf("row %d: index %s name %q", i, r[0], name)
		}
		if got := r[col(head, "predicted")]; got != want[name] {
			t.Errorf("%s: predicted %s, want %s", name, got, want[name])
		}
	}
	checkProbabilities(t, head, rows)

	// JSON, by extension, the same rows.
	js := filepath.Join(dir, "pred.json")
	ok(t, "predict", "-model", mod, "-data", "folder:"+newRoot, "-o", js)
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	m := decodeJSON(t, string(b), "predictions", "classes", "labelled", "n")
	for i, p := range m["predictions"].([]any) {
		pm := p.(map[string]any)
		if pm["name"] != rows[i][1] || pm["predicted"] != rows[i][col(head, "predicted")] {
			t.Errorf("JSON row %d: %v, CSV row %v", i, pm, rows[i])
		}
		if _, has := pm["mu"]; has {
			t.Errorf("JSON row %d has a μ without a label", i)
		}
	}
	// Text on stdout: an index column and the set names.
	r = ok(t, "predict", "-model", mod, "-data", "folder:"+newRoot)
	if !strings.HasPrefix(r.stdout, "index  name") || !strings.Contains(r.stdout, "mystery-a0") || !strings.Contains(r.stdout, "p(classa)") {
		t.Errorf("text output:\n%s", r.stdout)
	}
	// -format overrides the extension; the stdout forms match the files.
	r = ok(t, "predict", "-model", mod, "-data", "folder:"+newRoot, "-format", "csv")
	if csvb, _ := os.ReadFile(out); r.stdout != string(csvb) {
		t.Errorf("-format csv on stdout differs from -o pred.csv")
	}
}

// TestPredictUnlabeledFormats: npy bases without a labels file and CSV
// images without a label column are predicted; labelled data is also
// scored, with μ = −margin for every correct row.
func TestPredictUnlabeledFormats(t *testing.T) {
	dir := t.TempDir()
	data, labels := filepath.Join(dir, "b.npy"), filepath.Join(dir, "l.npy")
	writeNPY(t, data, labels, 12, 10, 2)
	mod := filepath.Join(dir, "m.grlgq")
	ok(t, "train", "-data", "npy:"+data+","+labels, "-epochs", "3", "-o", mod)
	out := filepath.Join(dir, "npy.csv")
	ok(t, "predict", "-model", mod, "-data", "npy:"+data, "-o", out)
	head, rows := readCSVFile(t, out, 12, "name", "predicted", "p_0", "p_1")
	if rows[5][col(head, "name")] != "row 5" {
		t.Errorf("npy row 5 named %q, want \"row 5\"", rows[5][1])
	}
	checkProbabilities(t, head, rows)
	// explain takes the bases by row name or index; no μ without labels.
	ex := filepath.Join(dir, "ex")
	ok(t, "explain", "-model", mod, "-data", "npy:"+data, "-o", ex, "-samples", "row 3,5")
	if got := explained(t, ex); len(got) != 2 || got[0]["name"] != "row 3" || got[1]["name"] != "row 5" || got[0]["mu"] != nil {
		t.Errorf("explain npy rows: %v", got)
	}

	// Labelled: scored, with true, mu and correct.
	ok(t, "predict", "-model", mod, "-data", "npy:"+data+","+labels, "-o", out)
	head, rows = readCSVFile(t, out, 12, "true", "mu", "correct")
	for _, r := range rows {
		mu, _ := strconv.ParseFloat(r[col(head, "mu")], 64)
		mg, _ := strconv.ParseFloat(r[col(head, "margin")], 64)
		right := r[col(head, "correct")] == "true"
		if right != (r[col(head, "true")] == r[col(head, "predicted")]) || right && mu != -mg || !right && mu <= 0 {
			t.Errorf("row %v: μ %v, margin %v, correct %v", r, mu, mg, right)
		}
	}

	// CSV without a label column (-csv-label none).
	csvData := filepath.Join(dir, "d.csv")
	writeCSV(t, csvData, 3, 12, 1)
	cmod := filepath.Join(dir, "c.grlgq")
	ok(t, "train", "-data", "csv:"+csvData, "-image", "8x8", "-pixel-max", "16", "-d", "3", "-m", "6", "-epochs", "3", "-o", cmod)
	raw, _ := os.ReadFile(csvData)
	var nolab strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		nolab.WriteString(line[:strings.LastIndexByte(line, ',')] + "\n")
	}
	unl := filepath.Join(dir, "new.csv")
	os.WriteFile(unl, []byte(nolab.String()), 0o644)
	js := filepath.Join(dir, "c.out")
	r := ok(t, "predict", "-model", cmod, "-data", "csv:"+unl, "-csv-label", "none", "-image", "8x8", "-pixel-max", "16", "-o", js, "-format", "json")
	if !strings.Contains(r.stdout, "wrote 36 predictions (json)") {
		t.Errorf("predict: %q", r.stdout)
	}
	b, _ := os.ReadFile(js)
	var tab struct {
		Labelled    bool
		Predictions []struct {
			Index int
			Name  string
			True  string
		}
	}
	if err := json.Unmarshal(b, &tab); err != nil || tab.Labelled || len(tab.Predictions) != 36 || tab.Predictions[7].Name != "row 7" || tab.Predictions[7].True != "" {
		t.Errorf("CSV without labels: %v %+v", err, tab)
	}
}

// TestPredictOutput: -o is written atomically (a failed run leaves an
// existing file as it was), its format must be known, and -json and
// -format agree.
func TestPredictOutput(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	writeCSV(t, data, 2, 12, 1)
	mod := filepath.Join(dir, "m.grlgq")
	ok(t, "train", "-data", "csv:"+data, "-image", "8x8", "-pixel-max", "16", "-d", "2", "-m", "6", "-epochs", "2", "-o", mod)
	out := filepath.Join(dir, "keep.csv")
	os.WriteFile(out, []byte("mine\n"), 0o644)
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("1,2,x\n"), 0o644)
	fails(t, 1, nil, "predict", "-model", mod, "-data", "csv:"+bad, "-o", out)
	if b, _ := os.ReadFile(out); string(b) != "mine\n" {
		t.Errorf("a failed predict replaced -o: %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 4 {
		t.Errorf("files left behind: %v", ents)
	}
	fails(t, 2, []string{"-o", "extension"}, "predict", "-model", mod, "-data", "csv:"+data, "-o", filepath.Join(dir, "p.out"))
	fails(t, 2, []string{"-format", "xml"}, "predict", "-model", mod, "-data", "csv:"+data, "-format", "xml")
	fails(t, 2, []string{"-json", "disagree"}, "predict", "-model", mod, "-data", "csv:"+data, "-format", "csv", "-json")
	fails(t, 2, nil, "predict", "-model", mod, "-data", "csv:"+data, "-o", data) // an input
}

// TestPredictUnknownClasses: labelled data with a class the model does not
// know (a test set with an extra class) is predicted, its known classes
// scored and the others not (no * mark, empty mu and correct, left out of
// the count), with one warning on stderr naming the unknown classes; data
// of known classes prints no warning, and eval refuses such data.
func TestPredictUnknownClasses(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")
	writeCSV(t, a, 2, 12, 4)
	writeCSV(t, b, 3, 12, 4) // classes 0, 1 and 2
	mod := filepath.Join(dir, "m.grlgq")
	ok(t, "train", "-data", "csv:"+a, "-d", "2", "-m", "4", "-epochs", "2", "-o", mod, "-quiet")
	if r := ok(t, "predict", "-model", mod, "-data", "csv:"+a); r.stderr != "" {
		t.Errorf("known classes: stderr %q", r.stderr)
	}
	warning := func(r result, unknown string, n, of int) {
		t.Helper()
		want := fmt.Sprintf("has classes the model does not know: %s (the model's classes: 0, 1); not scored: %d of %d samples\n", unknown, n, of)
		if !strings.HasPrefix(r.stderr, "grlgq: predict: warning: ") || !strings.HasSuffix(r.stderr, want) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("stderr %q, want one warning ending %q", r.stderr, want)
		}
	}
	r := ok(t, "predict", "-model", mod, "-data", "csv:"+b, "-format", "csv")
	warning(r, "2", 12, 36)
	recs, err := csv.NewReader(strings.NewReader(r.stdout)).ReadAll()
	if err != nil || len(recs) != 37 {
		t.Fatalf("CSV: %d lines, %v", len(recs), err)
	}
	head, right := recs[0], 0
	for _, row := range recs[1:] {
		mu, correct := row[col(head, "mu")], row[col(head, "correct")]
		if row[col(head, "true")] == "2" {
			if mu != "" || correct != "" {
				t.Errorf("row of the unknown class: %v", row)
			}
			continue
		}
		if mu == "" || correct != "true" && correct != "false" {
			t.Errorf("row of a known class: %v", row)
		}
		if correct == "true" {
			right++
		}
	}
	r = ok(t, "predict", "-model", mod, "-data", "csv:"+b)
	warning(r, "2", 12, 36)
	want := fmt.Sprintf("%d of 24 correct (* marks the others); 12 not scored (classes the model does not know: 2)\n", right)
	if !strings.HasSuffix(r.stdout, want) || strings.Count(r.stdout, "*") != 24-right+1 {
		t.Errorf("text, want %d marks and the last line %q:\n%s", 24-right, want, r.stdout)
	}
	out := filepath.Join(dir, "p.json")
	r = ok(t, "predict", "-model", mod, "-data", "csv:"+b, "-o", out)
	warning(r, "2", 12, 36)
	if want := fmt.Sprintf(": %d of 24 correct (%s), 12 not scored (classes the model does not know)\n", right, pct(float64(right)/24)); !strings.HasSuffix(r.stdout, want) {
		t.Errorf("stdout %q, want it to end %q", r.stdout, want)
	}
	js, _ := os.ReadFile(out)
	m := decodeJSON(t, string(js), "unscored", "unknown_classes", "correct")
	if m["unscored"] != 12.0 || m["correct"] != float64(right) || fmt.Sprint(m["unknown_classes"]) != "[2]" {
		t.Errorf("JSON: correct %v, unscored %v, unknown_classes %v", m["correct"], m["unscored"], m["unknown_classes"])
	}

	// No class known (labels a and b): nothing scored, nothing marked.
	raw, _ := os.ReadFile(a)
	ab := filepath.Join(dir, "ab.csv")
	os.WriteFile(ab, []byte(strings.NewReplacer(",0\n", ",a\n", ",1\n", ",b\n").Replace(string(raw))), 0o644)
	r = ok(t, "predict", "-model", mod, "-data", "csv:"+ab)
	warning(r, "a, b", 24, 24)
	if !strings.HasSuffix(r.stdout, "\n24 samples classified, none scored (classes the model does not know: a, b)\n") || strings.Contains(r.stdout, "*") {
		t.Errorf("no class known:\n%s", r.stdout)
	}
	r = ok(t, "predict", "-model", mod, "-data", "csv:"+ab, "-o", filepath.Join(dir, "ab-out.csv"))
	if !strings.HasSuffix(r.stdout, " (none scored: classes the model does not know)\n") {
		t.Errorf("no class known, -o: %q", r.stdout)
	}
	fails(t, 1, []string{"has classes the model does not know: a, b (the model's classes: 0, 1)"}, "eval", "-model", mod, "-data", "csv:"+ab)
}
