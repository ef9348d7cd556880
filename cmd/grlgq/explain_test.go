package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// explained reads explain's summary of the samples it explained.
func explained(t *testing.T, dir string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "explanation.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum struct{ Samples []map[string]any }
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	return sum.Samples
}

// TestExplainSelect: explain takes samples by index and by name, or
// every misclassified one, names every image by its file in the text and
// the JSON (files that exist), and states μ only for labelled samples.
func TestExplainSelect(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "train")
	writeFolder(t, root, 2, 4, 6)
	mod := filepath.Join(dir, "m.grlgq")
	ok(t, "train", "-data", "folder:"+root, "-d", "3", "-epochs", "5", "-o", mod)
	// Test data: classb's obj0 filed under classa (misclassified), and
	// classb's obj1 where it belongs.
	test := filepath.Join(dir, "test")
	for dst, src := range map[string]string{"classa/wrong": "classb/obj0", "classb/right": "classb/obj1"} {
		if err := os.CopyFS(filepath.Join(test, dst), os.DirFS(filepath.Join(root, src))); err != nil {
			t.Fatal(err)
		}
	}
	ex := filepath.Join(dir, "ex")
	r := ok(t, "explain", "-model", mod, "-data", "folder:"+test, "-o", ex, "-misclassified")
	got := explained(t, ex)
	if len(got) != 1 || got[0]["name"] != "classa/wrong" || got[0]["index"].(float64) != 0 || got[0]["mu"].(float64) <= 0 || got[0]["predicted"] != "classb" {
		t.Fatalf("-misclassified explained %v", got)
	}
	top := got[0]["top_images"].([]any)
	if len(top) == 0 {
		t.Fatal("no top images")
	}
	for _, im := range top {
		f := im.(map[string]any)["file"].(string)
		if _, err := os.Stat(f); err != nil || !strings.HasPrefix(f, filepath.Join(test, "classa", "wrong")) {
			t.Errorf("top image file %q: %v", f, err)
		}
		if !strings.Contains(r.stdout, f) {
			t.Errorf("text does not name %s:\n%s", f, r.stdout)
		}
	}
	b, _ := os.ReadFile(filepath.Join(ex, got[0]["json"].(string)))
	var one struct {
		Images     []int    `json:"images"`
		ImageFiles []string `json:"image_files"`
	}
	json.Unmarshal(b, &one)
	if len(one.ImageFiles) != 6 || len(one.Images) != 6 || filepath.Base(one.ImageFiles[2]) != "view02.png" {
		t.Errorf("sample JSON images %v files %v", one.Images, one.ImageFiles)
	}

	// By name (class/set, or set alone when unique) and by index; a sample
	// named twice is explained once.
	ex2 := filepath.Join(dir, "ex2")
	ok(t, "explain", "-model", mod, "-data", "folder:"+test, "-o", ex2, "-samples", "right,classa/wrong,1")
	got = explained(t, ex2)
	if len(got) != 2 || got[0]["name"] != "classb/right" || got[1]["name"] != "classa/wrong" || got[0]["index"].(float64) != 1 || got[0]["mu"].(float64) >= 0 {
		t.Errorf("-samples by name: %v", got)
	}
	fails(t, 1, []string{"-samples", "nosuch", "classa/wrong"}, "explain", "-model", mod, "-data", "folder:"+test, "-o", ex2, "-samples", "nosuch")
	fails(t, 1, []string{"-samples", "obj1"}, "explain", "-model", mod, "-data", "folder:"+root, "-o", ex2, "-samples", "obj1") // in both classes
	fails(t, 2, []string{"exclude"}, "explain", "-model", mod, "-data", "folder:"+test, "-o", ex2, "-samples", "0", "-misclassified")

	// Without labels: the sets by their folder names, no μ.
	unl := filepath.Join(dir, "new")
	if err := os.CopyFS(filepath.Join(unl, "mystery1"), os.DirFS(filepath.Join(root, "classa", "obj2"))); err != nil {
		t.Fatal(err)
	}
	ex3 := filepath.Join(dir, "ex3")
	r = ok(t, "explain", "-model", mod, "-data", "folder:"+unl, "-o", ex3, "-samples", "mystery1")
	got = explained(t, ex3)
	if _, has := got[0]["mu"]; has || got[0]["name"] != "mystery1" || got[0]["predicted"] != "classa" || strings.Contains(r.stdout, "true") {
		t.Errorf("without labels: %v\n%s", got, r.stdout)
	}
	fails(t, 1, []string{"-misclassified", "no labels"}, "explain", "-model", mod, "-data", "folder:"+unl, "-o", ex3, "-misclassified")
}

// TestExplainSummaryJSON: a sample's entry in explanation.json is
// byte for byte the map it was before it became a struct (keys in
// sorted order, mu only with a label, top_images null without a ranking).
func TestExplainSummaryJSON(t *testing.T) {
	mu := jnum(-0.25)
	ranked := []rankJSON{{Rank: 1, Image: 2, Source: 7, File: "a/b.png", Score: 0.5}}
	for _, sm := range []sampleSummary{
		{Index: 3, JSON: "sample_3.json", Margin: 0.25, Mu: &mu, Name: "row 3", Picture: "sample_3.png", Predicted: "7", True: "7"},
		{Index: 12, JSON: "sample_12.json", Margin: jnum(math.NaN()), Name: "<a&b>/set", Picture: "sample_12.svg", Predicted: "cat", Rejected: true, TopImages: ranked, True: "?"},
	} {
		m := map[string]any{"index": sm.Index, "name": sm.Name, "true": sm.True, "predicted": sm.Predicted, "rejected": sm.Rejected,
			"margin": sm.Margin, "picture": sm.Picture, "json": sm.JSON, "top_images": sm.TopImages}
		if sm.Mu != nil {
			m["mu"] = *sm.Mu
		}
		want, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.MarshalIndent(sm, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("entry\n%s\nwant (as a map)\n%s", got, want)
		}
	}
}

// TestExplainUnknownClasses: explain treats a sample of a class the model
// does not know as predict does: explained as unlabelled (no μ, no true
// class in the text), never misclassified, with predict's one-line
// warning on stderr naming the unknown classes.
func TestExplainUnknownClasses(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")
	writeCSV(t, a, 2, 12, 4)
	writeCSV(t, b, 3, 12, 4) // classes 0, 1 and 2
	mod := filepath.Join(dir, "m.grlgq")
	ok(t, "train", "-data", "csv:"+a, "-d", "2", "-m", "4", "-epochs", "2", "-o", mod, "-quiet")
	if r := ok(t, "explain", "-model", mod, "-data", "csv:"+a, "-o", filepath.Join(dir, "known"), "-n", "2"); r.stderr != "" {
		t.Errorf("known classes: stderr %q", r.stderr)
	}
	warning := func(r result, data, unknown string, n, of int) {
		t.Helper()
		want := fmt.Sprintf("grlgq: explain: warning: %s has classes the model does not know: %s (the model's classes: 0, 1); not scored: %d of %d samples\n", data, unknown, n, of)
		if r.stderr != want {
			t.Errorf("stderr %q, want %q", r.stderr, want)
		}
	}
	run := func(data string, args ...string) (result, []map[string]any) {
		ex := filepath.Join(dir, "ex-"+filepath.Base(data)+strings.Join(args, ""))
		r := ok(t, append([]string{"explain", "-model", mod, "-data", "csv:" + data, "-o", ex}, args...)...)
		return r, explained(t, ex)
	}
	r, got := run(b, "-n", "3") // a sample of each class: the third unknown
	warning(r, b, "2", 12, 36)
	if len(got) != 3 || got[2]["true"] != "2" || got[2]["mu"] != nil || got[0]["mu"] == nil {
		t.Errorf("-n 3: %v", got)
	}
	if line := strings.Split(r.stdout, "\n")[7]; !strings.HasPrefix(line, "    24  row 24") || strings.Contains(line, "true") || strings.Contains(line, "μ") {
		t.Errorf("the unknown class's sample as text: %q\n%s", line, r.stdout)
	}
	r, got = run(b, "-misclassified")
	warning(r, b, "2", 12, 36)
	for _, sm := range got {
		if sm["true"] == "2" {
			t.Errorf("-misclassified explained %v, of a class the model does not know", sm)
		}
	}
	// No class known: nothing is misclassified, and the warning says why.
	raw, _ := os.ReadFile(a)
	ab := filepath.Join(dir, "ab.csv")
	os.WriteFile(ab, []byte(strings.NewReplacer(",0\n", ",a\n", ",1\n", ",b\n").Replace(string(raw))), 0o644)
	r, got = run(ab, "-misclassified")
	warning(r, ab, "a, b", 24, 24)
	if len(got) != 0 || !strings.HasPrefix(r.stdout, "explained 0 sample(s)") {
		t.Errorf("no class known, -misclassified: %v\n%s", got, r.stdout)
	}
}
