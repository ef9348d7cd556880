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

// dirNames lists the names in dir, sorted.
func dirNames(t *testing.T, dir string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return strings.Join(out, " ")
}

// TestExplainReplacesEarlier: explain -o into an earlier explain's folder
// replaces that run's files (its samples' and pages the new run does not
// write are removed, said on stdout) and leaves the user's other files;
// a failed run leaves the folder as it was; a sample file the earlier
// explanation.json does not list is kept with a warning, as is a listed
// one that is a link; a file the commit cannot remove is a warning, and
// not counted as removed; a folder of sample files without an
// explanation.json (or with one far too large) is refused, untouched,
// also when the run writes their names.
func TestExplainReplacesEarlier(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	writeCSV(t, data, 2, 12, 4)
	mod := filepath.Join(dir, "m.grlgq")
	ok(t, "train", "-data", "csv:"+data, "-d", "2", "-m", "4", "-epochs", "2", "-o", mod, "-quiet")
	ex := filepath.Join(dir, "ex")
	explain := func(args ...string) []string {
		return append([]string{"explain", "-model", mod, "-data", "csv:" + data, "-o", ex}, args...)
	}
	ok(t, explain("-samples", "0,1,2")...)
	notes := filepath.Join(ex, "notes.txt")
	os.WriteFile(notes, []byte("mine"), 0o644)
	r := ok(t, explain("-samples", "3")...)
	if got, want := dirNames(t, ex), "explanation.json notes.txt prototypes.png relevances.png sample_03.json sample_03.png"; got != want {
		t.Errorf("after a second run: %s, want %s", got, want)
	}
	if want := "replaced the earlier explanation in " + ex + ": removed its 6 file(s) this one does not write (sample_00.json, sample_00.png, sample_01.json, ...)\n"; !strings.HasSuffix(r.stdout, want) || r.stderr != "" {
		t.Errorf("stdout %q, want it to end %q; stderr %q", r.stdout, want, r.stderr)
	}

	// A failed run (sample 5's picture is a link, refused when written,
	// after the other files) neither writes nor removes anything.
	link := filepath.Join(ex, "sample_05.png")
	if err := os.Symlink(notes, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	var all []string
	for _, n := range strings.Fields(dirNames(t, ex)) {
		all = append(all, filepath.Join(ex, n))
	}
	s := snap(t, all...)
	fails(t, 1, []string{"sample_05.png", "symbolic link"}, explain("-samples", "4,5")...)
	s.check(t)
	if got, want := dirNames(t, ex), "explanation.json notes.txt prototypes.png relevances.png sample_03.json sample_03.png sample_05.png"; got != want {
		t.Errorf("after a failed run: %s, want %s", got, want)
	}
	noTemps(t, ex)
	os.Remove(link)

	// Another picture format: the earlier pages go too.
	ok(t, explain("-samples", "4", "-plot-format", "svg")...)
	if got, want := dirNames(t, ex), "explanation.json notes.txt prototypes.svg relevances.svg sample_04.json sample_04.svg"; got != want {
		t.Errorf("after an svg run: %s, want %s", got, want)
	}

	// A sample file the earlier explanation.json does not list stays,
	// named in a one-line warning.
	stray := filepath.Join(ex, "sample_17.json")
	os.WriteFile(stray, []byte("{}"), 0o644)
	r = ok(t, explain("-samples", "5", "-plot-format", "svg")...)
	if want := "grlgq: explain: warning: " + ex + " holds 1 file(s) named like explain's that its earlier explanation.json did not list (sample_17.json): left there, beside this run's files\n"; r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
	if got, want := dirNames(t, ex), "explanation.json notes.txt prototypes.svg relevances.svg sample_05.json sample_05.svg sample_17.json"; got != want {
		t.Errorf("with a stray sample file: %s, want %s", got, want)
	}

	// A file the commit cannot remove (turned into a folder after the
	// check): a warning of explain's, and stdout counts and names only the
	// file removed.
	testHookExplainCommit = func() {
		os.Remove(filepath.Join(ex, "sample_05.json"))
		os.Mkdir(filepath.Join(ex, "sample_05.json"), 0o755)
	}
	r = ok(t, explain("-samples", "6", "-plot-format", "svg")...)
	testHookExplainCommit = nil
	if want := "grlgq: explain: warning: not removed: " + filepath.Join(ex, "sample_05.json") + " is a folder\n"; !strings.HasPrefix(r.stderr, want) {
		t.Errorf("stderr %q, want it to start %q", r.stderr, want)
	}
	if want := "replaced the earlier explanation in " + ex + ": removed its 1 file(s) this one does not write (sample_05.svg)\n"; !strings.HasSuffix(r.stdout, want) {
		t.Errorf("stdout %q, want it to end %q", r.stdout, want)
	}
	os.Remove(filepath.Join(ex, "sample_05.json"))

	// A file the earlier explanation.json lists that is now a link: left,
	// and the warning says why (not that the summary did not list it).
	os.Remove(filepath.Join(ex, "sample_06.svg"))
	if err := os.Symlink(notes, filepath.Join(ex, "sample_06.svg")); err != nil {
		t.Fatal(err)
	}
	r = ok(t, explain("-samples", "7", "-plot-format", "svg")...)
	if want := "grlgq: explain: warning: " + ex + " holds 1 file(s) named like explain's that its earlier explanation.json did not list (sample_17.json): left there, beside this run's files\n" +
		"grlgq: explain: warning: " + ex + " holds 1 file(s) of its earlier explanation that are not regular files (sample_06.svg: a symbolic link): left there, beside this run's files\n"; r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
	if got, want := dirNames(t, ex), "explanation.json notes.txt prototypes.svg relevances.svg sample_06.svg sample_07.json sample_07.svg sample_17.json"; got != want {
		t.Errorf("with a link: %s, want %s", got, want)
	}

	// Sample files without an explanation.json: refused, nothing written.
	other := filepath.Join(dir, "other")
	os.Mkdir(other, 0o755)
	os.WriteFile(filepath.Join(other, "sample_01.png"), []byte("a picture"), 0o644)
	s = snap(t, filepath.Join(other, "sample_01.png"))
	fails(t, 1, []string{other, "sample_01.png", "no explanation.json"}, "explain", "-model", mod, "-data", "csv:"+data, "-o", other, "-samples", "2")
	s.check(t)
	if got := dirNames(t, other); got != "sample_01.png" {
		t.Errorf("a refused run wrote into %s: %s", other, got)
	}
	// Also when this run writes their names: it would replace them.
	for _, name := range []string{"sample_02.png", "prototypes.png"} {
		os.Rename(filepath.Join(other, "sample_01.png"), filepath.Join(other, name))
		s = snap(t, filepath.Join(other, name))
		fails(t, 1, []string{other, name, "no explanation.json"}, "explain", "-model", mod, "-data", "csv:"+data, "-o", other, "-samples", "2")
		s.check(t)
		if got := dirNames(t, other); got != name {
			t.Errorf("a refused run wrote into %s: %s", other, got)
		}
		os.Rename(filepath.Join(other, name), filepath.Join(other, "sample_01.png"))
	}
	// An explain summary far larger than explain writes beside the files
	// there: not recognised, refused in one line.
	big := fmt.Sprintf(`{"note": %q, "samples": [{"picture": "sample_01.png", "json": "sample_01.json"}], "data": %q}`, explainNoteStart, strings.Repeat("x", summaryBase))
	os.WriteFile(filepath.Join(other, "explanation.json"), []byte(big), 0o644)
	s = snap(t, filepath.Join(other, "sample_01.png"), filepath.Join(other, "explanation.json"))
	fails(t, 1, []string{other, "sample_01.png", fmt.Sprintf("explanation.json of %d bytes", len(big))}, "explain", "-model", mod, "-data", "csv:"+data, "-o", other, "-samples", "2")
	s.check(t)
	if got := dirNames(t, other); got != "explanation.json sample_01.png" {
		t.Errorf("a refused run wrote into %s: %s", other, got)
	}
	os.Remove(filepath.Join(other, "explanation.json"))
	// Files of other commands (train -plots' relevances in another format)
	// and the user's are no reason to refuse, and stay.
	os.Remove(filepath.Join(other, "sample_01.png"))
	os.WriteFile(filepath.Join(other, "relevances.svg"), []byte("train's"), 0o644)
	r = ok(t, "explain", "-model", mod, "-data", "csv:"+data, "-o", other, "-samples", "2")
	if got, want := dirNames(t, other), "explanation.json prototypes.png relevances.png relevances.svg sample_02.json sample_02.png"; got != want || r.stderr != "" || strings.Contains(r.stdout, "replaced") {
		t.Errorf("beside other files: %s, want %s; stderr %q", got, want, r.stderr)
	}
}

// TestExplainUnknownClasses: explain treats a sample of a class the model
// does not know as predict does: explained as unlabelled (no μ, no true
// class in the text), never misclassified, with predict's one-line
// warning on stderr naming the unknown classes, counted over the samples
// explained (over all with -misclassified), and none when no explained
// sample is of an unknown class.
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
	warning(r, b, "2", 1, 3)
	if len(got) != 3 || got[2]["true"] != "2" || got[2]["mu"] != nil || got[0]["mu"] == nil {
		t.Errorf("-n 3: %v", got)
	}
	if line := strings.Split(r.stdout, "\n")[7]; !strings.HasPrefix(line, "    24  row 24") || strings.Contains(line, "true") || strings.Contains(line, "μ") {
		t.Errorf("the unknown class's sample as text: %q\n%s", line, r.stdout)
	}
	// None of an unknown class explained: no warning.
	if r, _ := run(b, "-n", "2"); r.stderr != "" {
		t.Errorf("-n 2 (classes 0 and 1): stderr %q", r.stderr)
	}
	// -misclassified scores every sample: the warning counts over all.
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
