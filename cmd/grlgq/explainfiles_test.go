package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// explainSetup trains a small model on CSV data in a temporary folder and
// returns the folder and the arguments of an explain run of it into out.
func explainSetup(t *testing.T, plots string) (dir string, explain func(out string, args ...string) []string) {
	t.Helper()
	dir = t.TempDir()
	data := filepath.Join(dir, "d.csv")
	writeCSV(t, data, 2, 12, 4)
	mod := filepath.Join(dir, "m.grlgq")
	args := []string{"train", "-data", "csv:" + data, "-d", "2", "-m", "4", "-epochs", "2", "-o", mod, "-quiet"}
	if plots != "" {
		args = append(args, "-plots", filepath.Join(dir, plots))
	}
	ok(t, args...)
	return dir, func(out string, args ...string) []string {
		return append([]string{"explain", "-model", mod, "-data", "csv:" + data, "-o", out}, args...)
	}
}

// snapDir snapshots every file in dir.
func snapDir(t *testing.T, dir string) snapshot {
	t.Helper()
	var all []string
	for _, n := range strings.Fields(dirNames(t, dir)) {
		all = append(all, filepath.Join(dir, n))
	}
	return snap(t, all...)
}

// refusedUntouched runs args, which must be refused in one line naming
// path, and checks that the run left dir as it was.
func refusedUntouched(t *testing.T, dir, path string, want []string, args ...string) {
	t.Helper()
	s, names := snapDir(t, dir), dirNames(t, dir)
	fails(t, 1, append([]string{"refusing to replace " + path}, want...), args...)
	s.check(t)
	if got := dirNames(t, dir); got != names {
		t.Errorf("a refused run changed %s: %s, was %s", dir, got, names)
	}
	noTemps(t, dir)
}

// TestExplainRefusesUnlisted: in an earlier explain's folder, a file at a
// name this run writes is replaced only when that run's explanation.json
// lists it; any other (a user's file named like the new sample's
// explanation, a prototypes page of another run's format, an
// explanation.json that is not explain's) makes the run refuse before
// anything is written, in one line naming the file. Listed files are
// still replaced, and a summary from before explain listed its pages
// still owns its prototypes pages and its relevances page.
func TestExplainRefusesUnlisted(t *testing.T) {
	dir, explain := explainSetup(t, "")
	ex := filepath.Join(dir, "ex")
	ok(t, explain(ex, "-samples", "0")...)

	// A user's file at the name of sample 3's picture, or JSON.
	for _, name := range []string{"sample_03.png", "sample_03.json"} {
		mine := filepath.Join(ex, name)
		os.WriteFile(mine, []byte("mine"), 0o644)
		refusedUntouched(t, ex, mine, []string{"explanation.json there does not list it"}, explain(ex, "-samples", "3")...)
		os.Remove(mine)
	}

	// The files the summary lists are replaced, as before.
	r := ok(t, explain(ex, "-samples", "0,3")...)
	if got, want := dirNames(t, ex), "explanation.json prototypes.png relevances.png sample_00.json sample_00.png sample_03.json sample_03.png"; got != want || r.stderr != "" {
		t.Errorf("after replacing listed files: %s, want %s; stderr %q", got, want, r.stderr)
	}

	// A prototypes page the earlier summary does not list (it lists the
	// svg pages of its run).
	ok(t, explain(ex, "-samples", "0", "-plot-format", "svg")...)
	mine := filepath.Join(ex, "prototypes.png")
	os.WriteFile(mine, []byte("mine"), 0o644)
	refusedUntouched(t, ex, mine, []string{"explanation.json there does not list it"}, explain(ex, "-samples", "0")...)
	// A run that does not write that name leaves it, with the warning of
	// the unlisted files.
	r = ok(t, explain(ex, "-samples", "1", "-plot-format", "svg")...)
	if want := "grlgq: explain: warning: " + ex + " holds 1 file(s) named like explain's that its earlier explanation.json did not list (prototypes.png): left there, beside this run's files\n"; r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
	if b, _ := os.ReadFile(mine); string(b) != "mine" {
		t.Errorf("%s: %q, want the user's", mine, b)
	}
	os.Remove(mine)

	// A summary from before explain listed its pages: its prototypes
	// pages in any format and its relevances page in the format of its
	// pictures are its own, replaced or removed.
	sumPath := filepath.Join(ex, "explanation.json")
	b, err := os.ReadFile(sumPath)
	if err != nil {
		t.Fatal(err)
	}
	var sum map[string]any
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	if p, _ := sum["pages"].([]any); len(p) != 2 || p[0] != "relevances.svg" || p[1] != "prototypes.svg" {
		t.Errorf("pages %v, want [relevances.svg prototypes.svg]", sum["pages"])
	}
	delete(sum, "pages")
	b, _ = json.MarshalIndent(sum, "", "  ")
	os.WriteFile(sumPath, b, 0o644)
	ok(t, explain(ex, "-samples", "2", "-plot-format", "svg")...)
	if got, want := dirNames(t, ex), "explanation.json prototypes.svg relevances.svg sample_02.json sample_02.svg"; got != want {
		t.Errorf("over an older summary: %s, want %s", got, want)
	}

	// An explanation.json that is not explain's, alone in the folder.
	other := filepath.Join(dir, "other")
	os.Mkdir(other, 0o755)
	theirs := filepath.Join(other, "explanation.json")
	os.WriteFile(theirs, []byte(`{"mine": true}`), 0o644)
	refusedUntouched(t, other, theirs, []string{"not the summary of an earlier explain"}, explain(other, "-samples", "0")...)
}

// TestExplainLeavesTrainPlots: explain never replaces nor removes the
// relevances picture of train -plots (a name both write). Into train's
// -plots folder it is refused before anything is written unless it
// draws in another format; in an earlier explain's folder, a relevances
// picture written after that run's explanation.json (by train -plots)
// is not that run's: refused when this run writes its name, left when it
// does not.
func TestExplainLeavesTrainPlots(t *testing.T) {
	dir, explain := explainSetup(t, "plots")
	plots := filepath.Join(dir, "plots")
	rel := filepath.Join(plots, "relevances.png")
	refusedUntouched(t, plots, rel, []string{"train and demo -plots write that name too"}, explain(plots, "-samples", "0")...)

	// In another format explain writes beside train's pictures, and
	// leaves them; its next run in png is refused all the same.
	s := snapDir(t, plots)
	trains := dirNames(t, plots)
	ok(t, explain(plots, "-samples", "0", "-plot-format", "svg")...)
	s.check(t)
	if got, want := dirNames(t, plots), "explanation.json "+trains+" prototypes.svg relevances.svg sample_00.json sample_00.svg"; !sameNames(got, want) {
		t.Errorf("beside train's pictures: %s, want %s", got, want)
	}
	refusedUntouched(t, plots, rel, []string{"does not list it", "train and demo -plots write that name too"}, explain(plots, "-samples", "0")...)

	// train -plots into an earlier explain's folder replaces its
	// relevances picture (the summary was written a minute before).
	ex := filepath.Join(dir, "ex")
	ok(t, explain(ex, "-samples", "0")...)
	past := time.Now().Add(-time.Minute)
	if err := os.Chtimes(filepath.Join(ex, "explanation.json"), past, past); err != nil {
		t.Fatal(err)
	}
	trainInto(t, dir, ex)
	exRel := filepath.Join(ex, "relevances.png")
	refusedUntouched(t, ex, exRel, []string{"written after the earlier explain's explanation.json"}, explain(ex, "-samples", "0")...)
	// Another format: explain's own files go, train's picture stays.
	s = snap(t, exRel)
	r := ok(t, explain(ex, "-samples", "1", "-plot-format", "svg")...)
	s.check(t)
	if strings.Contains(r.stdout, "relevances.png") {
		t.Errorf("stdout names train's picture as removed:\n%s", r.stdout)
	}
	if _, err := os.Stat(exRel); err != nil {
		t.Errorf("train's picture: %v", err)
	}
}

// trainInto trains on dir's CSV data with -plots out.
func trainInto(t *testing.T, dir, out string) {
	t.Helper()
	ok(t, "train", "-data", "csv:"+filepath.Join(dir, "d.csv"), "-d", "2", "-m", "4", "-epochs", "3", "-o", filepath.Join(dir, "m2.grlgq"), "-plots", out, "-quiet")
}

// sameNames reports whether the space-separated names of a and b are the
// same set.
func sameNames(a, b string) bool {
	fa, fb := strings.Fields(a), strings.Fields(b)
	if len(fa) != len(fb) {
		return false
	}
	seen := map[string]int{}
	for _, n := range fa {
		seen[n]++
	}
	for _, n := range fb {
		if seen[n]--; seen[n] < 0 {
			return false
		}
	}
	return true
}
