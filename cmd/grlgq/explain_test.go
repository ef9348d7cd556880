package main

import (
	"encoding/json"
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
