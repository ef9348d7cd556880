package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/grlgq/grlgq/model"
)

// TestProtosPerClass: -protos N, a list of one count per class, and
// class=N pairs, with the errors of a wrong count and an unknown class.
func TestProtosPerClass(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	writeCSV(t, data, 3, 12, 4)
	out := filepath.Join(dir, "m.grlgq")
	train := func(protos string) []string {
		return []string{"train", "-data", "csv:" + data, "-m", "4", "-d", "2", "-epochs", "1", "-o", out, "-quiet", "-protos", protos}
	}
	for _, c := range []struct {
		protos string
		want   []int
	}{
		{"2", []int{2, 2, 2}},
		{"1,3,2", []int{1, 3, 2}},
		{"1=4", []int{1, 4, 1}},
		{"2,0=3", []int{3, 2, 2}},
	} {
		ok(t, train(c.protos)...)
		m, err := model.LoadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for cl := 0; cl < m.NumClasses(); cl++ {
			n := 0
			for _, l := range m.Labels() {
				if l == cl {
					n++
				}
			}
			got = append(got, n)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("-protos %s: prototypes per class %v, want %v", c.protos, got, c.want)
		}
	}
	for _, c := range []struct{ protos, want string }{
		{"1,2", "2 counts for 3 classes"},
		{"cat=2", `no class "cat"`},
		{"0", "1 to 32768"},
		{"1,x", "want counts"},
		{"1=2,1=3", "given twice"},
		{"2,3,1=2", "at most one plain N"},
	} {
		fails(t, 2, []string{"-protos", c.want}, train(c.protos)...)
	}
	fails(t, 2, []string{"-protos", "one count for every class"}, "demo", "-protos", "1,2")
}

// TestResume: train -resume continues a saved model for -epochs more
// epochs (the same file may be -o), refuses the structural flags, and
// refuses data of another shape or other classes, naming what differs.
func TestResume(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	writeCSV(t, data, 3, 12, 4)
	spec := "csv:" + data
	mod := filepath.Join(dir, "m.grlgq")
	ok(t, "train", "-data", spec, "-image", "8x8", "-m", "4", "-d", "2", "-protos", "1,2,1", "-relevance", "local", "-epochs", "2", "-o", mod, "-quiet")
	more := filepath.Join(dir, "more.grlgq")
	r := ok(t, "train", "-data", spec, "-m", "4", "-epochs", "3", "-lr", "0.02", "-resume", mod, "-o", more)
	if !strings.Contains(r.stdout, "epoch 5/5") {
		t.Errorf("resumed epochs are not numbered on from the model's:\n%s", r.stdout)
	}
	m0, err := model.LoadFile(mod)
	if err != nil {
		t.Fatal(err)
	}
	m1, err := model.LoadFile(more)
	if err != nil {
		t.Fatal(err)
	}
	if m1.Epochs() != 5 || m1.SubspaceDim() != 2 || !slices.Equal(m1.Labels(), m0.Labels()) || m1.Config().Relevance != model.RelevanceLocal {
		t.Errorf("resumed model: %d epochs, d=%d, labels %v (want 5, 2, %v, local relevances)", m1.Epochs(), m1.SubspaceDim(), m1.Labels(), m0.Labels())
	}
	if w, h := m1.ImageSize(); w != 8 || h != 8 {
		t.Errorf("resumed model lost its image size: %dx%d", h, w)
	}
	// -o may be the resumed file: replaced on success.
	ok(t, "train", "-data", spec, "-m", "4", "-epochs", "1", "-resume", mod, "-o", mod, "-quiet")
	if m, err := model.LoadFile(mod); err != nil || m.Epochs() != 3 {
		t.Errorf("resume in place: %v, %d epochs (want 3)", err, m.Epochs())
	}
	// ... but not the data.
	fails(t, 2, []string{"-o", "input"}, "train", "-data", spec, "-epochs", "1", "-resume", mod, "-o", data)

	// The structure is the model's.
	for _, f := range [][]string{{"-d", "3"}, {"-protos", "2"}, {"-relevance", "global"}, {"-init", "pca"}, {"-noise", "0"}} {
		fails(t, 2, []string{"-resume", f[0]}, append([]string{"train", "-data", spec, "-epochs", "1", "-resume", mod, "-o", more}, f...)...)
	}
	// Other classes, another shape: refused, saying what differs.
	four := filepath.Join(dir, "four.csv")
	writeCSV(t, four, 4, 12, 4)
	fails(t, 1, []string{"3 classes", "has 4"}, "train", "-data", "csv:"+four, "-m", "4", "-epochs", "1", "-resume", mod, "-o", more)
	sets := filepath.Join(dir, "sets")
	writeFolder(t, sets, 3, 2, 5)
	fails(t, 1, []string{"class 0", `"0" in the model`, `"classa"`}, "train", "-data", "folder:"+sets, "-epochs", "1", "-resume", mod, "-o", more)
	fails(t, 1, []string{"-resume", "missing"}, "train", "-data", spec, "-epochs", "1", "-resume", filepath.Join(dir, "missing"), "-o", more)
}

// TestInspect: inspect prints a model's shapes, classes, prototypes per
// class, relevances, settings and file version; -json its full JSON form.
func TestInspect(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	writeCSV(t, data, 3, 12, 4)
	mod := filepath.Join(dir, "m.grlgq")
	ok(t, "train", "-data", "csv:"+data, "-image", "8x8", "-m", "4", "-d", "2", "-protos", "2,1=3", "-epochs", "2", "-seed", "7", "-o", mod, "-quiet")
	r := ok(t, "inspect", mod)
	for _, want := range []string{"version 3", "D=64, d=2", "8x8", "prototypes  7", "classes     3", "3 prototype(s): 2 3 4", "global", "λ = [", "epochs      2", "prototypes per class 2,3,2", "seed 7", "temperature", "provenance", "data.sha256", "created", "tool                   grlgq "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, r.stdout)
		}
	}
	for _, args := range [][]string{{"inspect", mod, "-json"}, {"inspect", "-json", mod}} {
		r = ok(t, args...)
		j := decodeJSON(t, r.stdout, "file_version", "format", "version", "dim", "subspace_dim", "class_names", "labels", "relevances", "config", "prototypes")
		if j["file_version"].(float64) != 3 || j["dim"].(float64) != 64 || len(j["prototypes"].([]any)) != 7 {
			t.Errorf("inspect -json: file_version %v, dim %v, %d prototypes", j["file_version"], j["dim"], len(j["prototypes"].([]any)))
		}
		var m model.Model
		if err := m.UnmarshalJSON([]byte(r.stdout)); err != nil {
			t.Errorf("inspect -json does not read back: %v", err)
		}
		if md := j["metadata"].(map[string]any); md["data.kind"] != "images" || md["preprocess.d"] != "2" || md["preprocess.m"] != "4" || len(md["data.sha256"].(string)) != 64 || !strings.HasPrefix(md["tool"].(string), "grlgq ") {
			t.Errorf("inspect -json metadata %v", md)
		}
	}
	// A version 1 file says so.
	if r := ok(t, "inspect", filepath.Join("..", "..", "model", "testdata", "golden-v1.grlgq")); !strings.Contains(r.stdout, "version 1") || !strings.Contains(r.stdout, "provenance  none recorded") {
		t.Errorf("inspect of a version 1 file:\n%s", r.stdout)
	}
	// A resumed model names the one it continued.
	resumed := filepath.Join(dir, "r.grlgq")
	ok(t, "train", "-data", "csv:"+data, "-image", "8x8", "-m", "4", "-epochs", "1", "-resume", mod, "-o", resumed, "-quiet")
	if r := ok(t, "inspect", resumed); !strings.Contains(r.stdout, "resumed_from           grlgq ") {
		t.Errorf("inspect of a resumed model:\n%s", r.stdout)
	}
	// grlgq version: the module version, Go's and the kernels.
	if r := ok(t, "version"); !strings.HasPrefix(r.stdout, "grlgq ") || !strings.Contains(r.stdout, "go1.") || !strings.Contains(r.stdout, "kernels "+model.Kernels()) {
		t.Errorf("grlgq version:\n%s", r.stdout)
	}
	if j := decodeJSON(t, ok(t, "version", "-json").stdout, "version", "go", "kernels", "platform"); j["kernels"] != model.Kernels() {
		t.Errorf("version -json: %v", j)
	}
	fails(t, 2, []string{"MODEL is required"}, "inspect")
	fails(t, 2, []string{"one MODEL only"}, "inspect", mod, mod)
	fails(t, 1, []string{"missing"}, "inspect", filepath.Join(dir, "missing"))
	fails(t, 1, []string{"not a GRLGQ model", "d.csv"}, "inspect", data)
}

// TestMinDelta: -min-delta needs -patience and has a range; on a
// validation set the model classifies perfectly from the first epoch, 0
// trains every epoch (ties go to the later epoch).
func TestMinDelta(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	writeCSV(t, data, 2, 20, 4)
	mod := filepath.Join(dir, "m.grlgq")
	args := []string{"train", "-data", "csv:" + data, "-m", "5", "-d", "2", "-epochs", "6", "-val", "0.3", "-patience", "1", "-lr", "0.01", "-o", mod, "-json"}
	r := ok(t, args...)
	j := decodeJSON(t, r.stdout, "history", "best_epoch", "early_stopped")
	for _, h := range j["history"].([]any) {
		if v := h.(map[string]any)["val_accuracy"]; v != 1.0 {
			t.Skipf("validation accuracy %v: the data do not saturate", v)
		}
	}
	if len(j["history"].([]any)) != 6 || j["best_epoch"].(float64) != 6 || j["early_stopped"] != false {
		t.Errorf("saturated, -min-delta 0: %d epochs, best %v, stopped %v; want 6, 6, false", len(j["history"].([]any)), j["best_epoch"], j["early_stopped"])
	}
	r = ok(t, append(args, "-min-delta", "0.01")...)
	j = decodeJSON(t, r.stdout, "history", "best_epoch")
	if len(j["history"].([]any)) != 2 || j["best_epoch"].(float64) != 1 {
		t.Errorf("saturated, -min-delta 0.01: %d epochs, best %v; want 2, 1", len(j["history"].([]any)), j["best_epoch"])
	}
	fails(t, 2, []string{"-min-delta", "[0, 1]"}, append(args, "-min-delta", "2")...)
	fails(t, 2, []string{"-min-delta needs", "-patience"}, "train", "-data", "csv:"+data, "-o", mod, "-min-delta", "0.1")
}

// TestExplainTop: explain ranks the images of each set (-top K): the text
// lists them, the JSON holds the top K by |score| with their place in the
// set and in the data, and every image's score; single images have none.
func TestExplainTop(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "sets")
	writeFolder(t, root, 2, 3, 6)
	spec := "folder:" + root
	mod := filepath.Join(dir, "m.grlgq")
	ok(t, "train", "-data", spec, "-d", "3", "-epochs", "3", "-o", mod, "-quiet")
	ex := filepath.Join(dir, "ex")
	r := ok(t, "explain", "-model", mod, "-data", spec, "-o", ex, "-n", "2", "-top", "3")
	if strings.Count(r.stdout, "score ") != 6 || !strings.Contains(r.stdout, "#1 ") {
		t.Errorf("explain -top 3 does not list 3 images per set:\n%s", r.stdout)
	}
	for _, j := range checkExplanation(t, ex, 2) {
		top := j["top_images"].([]any)
		scores := j["image_scores"].([]any)
		set := j["images"].([]any)
		if len(top) != 3 || len(scores) != 6 {
			t.Fatalf("top_images %d, image_scores %d; want 3 and 6", len(top), len(scores))
		}
		prev := 1e300
		for k, v := range top {
			e := v.(map[string]any)
			img := int(e["image"].(float64))
			score := e["score"].(float64)
			if int(e["rank"].(float64)) != k+1 || score != scores[img].(float64) || e["source"].(float64) != set[img].(float64) || abs(score) > prev {
				t.Errorf("top_images[%d] = %v (scores %v, set %v)", k, e, scores, set)
			}
			prev = abs(score)
		}
		if len(j["plus"].(map[string]any)["image_support"].([]any)) != 6 {
			t.Error("plus.image_support missing")
		}
	}
	fails(t, 2, []string{"-top", "1 to"}, "explain", "-model", mod, "-data", spec, "-o", ex, "-top", "0")

	// Single images: no ranking.
	data := filepath.Join(dir, "d.csv")
	writeCSV(t, data, 2, 10, 4)
	mi := filepath.Join(dir, "mi.grlgq")
	ok(t, "train", "-data", "csv:"+data, "-m", "4", "-d", "2", "-epochs", "1", "-o", mi, "-quiet")
	ex2 := filepath.Join(dir, "ex2")
	r = ok(t, "explain", "-model", mi, "-data", "csv:"+data, "-o", ex2, "-n", "1", "-top", "2")
	if strings.Contains(r.stdout, "score ") {
		t.Errorf("a single image has a ranking:\n%s", r.stdout)
	}
}

func abs(x float64) float64 { return max(x, -x) }

// setsAndBases writes a folder of image sets and npy bases into dir and
// returns the -data specs of both, and of a folder that does not exist
// (a check that runs before the data are read never reaches it), each
// with the scheme a refusal names.
func setsAndBases(t *testing.T, dir string) (root string, specs []struct{ spec, scheme string }) {
	t.Helper()
	root = filepath.Join(dir, "sets")
	writeFolder(t, root, 2, 4, 6)
	npy, labels := filepath.Join(dir, "b.npy"), filepath.Join(dir, "l.npy")
	writeNPY(t, npy, labels, 12, 10, 2)
	return root, []struct{ spec, scheme string }{
		{"folder:" + root, "folder"},
		{"folder:" + filepath.Join(dir, "missing"), "folder"},
		{"npy:" + npy + "," + labels, "npy"},
	}
}

// TestNeedsSingleImages: -m and -groupings group single images into
// sets, so train refuses them for folder data (image sets already) and
// npy data (bases), as it refuses -hard-copies there, and cv refuses -m:
// a usage error before the data are read, instead of a flag silently
// ignored (a given 0 or 1 as well).
func TestNeedsSingleImages(t *testing.T) {
	dir := t.TempDir()
	root, specs := setsAndBases(t, dir)
	out := filepath.Join(dir, "m.grlgq")
	for _, c := range []struct {
		verb   []string
		flag   string
		values []string
	}{
		{[]string{"train", "-o", out}, "-m", []string{"5", "0"}},
		{[]string{"train", "-o", out}, "-groupings", []string{"2", "1"}},
		{[]string{"cv", "-folds", "2"}, "-m", []string{"5", "0"}},
	} {
		for _, sp := range specs {
			for _, v := range c.values {
				fails(t, 2, []string{c.flag + " needs single-image data (idx, csv, mat): " + sp.scheme + " data are image sets or bases"},
					append(append([]string(nil), c.verb...), "-data", sp.spec, "-d", "2", "-epochs", "1", c.flag, v)...)
			}
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s %s: a refused run wrote the model", c.verb[0], c.flag)
		}
		// Without the flag, as before.
		ok(t, append(append([]string(nil), c.verb...), "-data", "folder:"+root, "-d", "2", "-epochs", "1", "-quiet")...)
		os.Remove(out)
	}
}

// TestMBelowD: sets of m images cannot span d > m dimensions; with d from
// -d or its default, train and cv give the same usage error (exit 2),
// found before the data are read (a missing file is not reached).
func TestMBelowD(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	writeCSV(t, data, 2, 20, 4)
	out := filepath.Join(dir, "m.grlgq")
	def := defaultOptions().Model.SubspaceDim
	for _, verb := range [][]string{{"train", "-o", out}, {"cv", "-folds", "2"}} {
		for _, spec := range []string{"csv:" + data, "csv:" + filepath.Join(dir, "missing.csv")} {
			for _, c := range []struct {
				args []string
				want string
			}{
				{[]string{"-m", "1"}, fmt.Sprintf("sets of -m 1 images cannot span -d %d dimensions: raise -m or lower -d", def)},
				{[]string{"-m", fmt.Sprint(def - 1)}, fmt.Sprintf("sets of -m %d images cannot span -d %d dimensions: raise -m or lower -d", def-1, def)},
				{[]string{"-d", "20", "-m", "10"}, "sets of -m 10 images cannot span -d 20 dimensions: raise -m or lower -d"},
			} {
				fails(t, 2, []string{c.want}, append(append(append([]string(nil), verb...), "-data", spec, "-epochs", "1"), c.args...)...)
			}
		}
		ok(t, append(append([]string(nil), verb...), "-data", "csv:"+data, "-m", fmt.Sprint(def), "-epochs", "1", "-quiet")...)
	}
}

// TestModelMNeedsSingleImages: eval, predict and explain (modelFlags)
// refuse -m for folder and npy data, where it was ignored (the sets or
// bases classified as they are), before the model or the data are read;
// on single images an -m below the model's d is still refused once the
// model is read.
func TestModelMNeedsSingleImages(t *testing.T) {
	dir := t.TempDir()
	root, specs := setsAndBases(t, dir)
	mod := filepath.Join(dir, "m.grlgq")
	ok(t, "train", "-data", "folder:"+root, "-d", "2", "-epochs", "1", "-o", mod, "-quiet")
	ex := filepath.Join(dir, "ex")
	for _, verb := range [][]string{{"eval"}, {"predict"}, {"explain", "-o", ex}} {
		for _, mf := range []string{mod, filepath.Join(dir, "missing.grlgq")} { // the second not read
			for _, c := range specs {
				for _, m := range []string{"4", "0"} {
					fails(t, 2, []string{"-m needs single-image data (idx, csv, mat): " + c.scheme + " data are image sets or bases"},
						append(verb, "-model", mf, "-data", c.spec, "-m", m)...)
				}
			}
		}
		// Without -m, as before.
		ok(t, append(verb, "-model", mod, "-data", "folder:"+root)...)
	}
	// Single images: -m groups them, at least the model's d.
	data := filepath.Join(dir, "d.csv")
	writeCSV(t, data, 2, 12, 4)
	ok(t, "train", "-data", "csv:"+data, "-d", "2", "-m", "4", "-epochs", "1", "-o", mod, "-quiet")
	fails(t, 1, []string{"cannot span the model's d=2 dimensions: use -m 2 or more"}, "eval", "-model", mod, "-data", "csv:"+data, "-m", "1")
	// Found from the model, before the data are read (these are not CSV).
	junk := filepath.Join(dir, "junk.csv")
	if err := os.WriteFile(junk, []byte("\x00\x01 not numbers\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fails(t, 1, []string{"cannot span the model's d=2 dimensions: use -m 2 or more"}, "predict", "-model", mod, "-data", "csv:"+junk, "-m", "1")
	ok(t, "eval", "-model", mod, "-data", "csv:"+data, "-m", "4")
}

// TestTrainHardMBelowD: -hard-m below d (-d given or by default) is a
// usage error found before the data are read, as -m's.
func TestTrainHardMBelowD(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "m.grlgq")
	def := defaultOptions().Model.SubspaceDim
	spec := "csv:" + filepath.Join(dir, "missing.csv") // not read
	fails(t, 2, []string{"hard sets of -hard-m 2 images cannot span -d 3 dimensions: raise -hard-m or lower -d"},
		"train", "-data", spec, "-d", "3", "-m", "6", "-hard-copies", "1", "-hard-m", "2", "-o", out)
	fails(t, 2, []string{fmt.Sprintf("hard sets of -hard-m %d images cannot span -d %d dimensions: raise -hard-m or lower -d", def-1, def)},
		"train", "-data", spec, "-hard-copies", "1", "-hard-m", fmt.Sprint(def-1), "-o", out)
	// A -hard-m that does not apply is named as such first.
	fails(t, 2, []string{"-hard-m need -hard-copies"}, "train", "-data", spec, "-hard-m", "1", "-o", out)
}

// TestTrainResumeMBelowD: with -resume, d is the model's and -d is
// refused, so an -m below it says to raise -m (not to lower -d), once
// the model is read and before the data are.
func TestTrainResumeMBelowD(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	writeCSV(t, data, 2, 12, 4)
	mod, out := filepath.Join(dir, "m.grlgq"), filepath.Join(dir, "more.grlgq")
	ok(t, "train", "-data", "csv:"+data, "-d", "3", "-m", "6", "-epochs", "1", "-o", mod, "-quiet")
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("not,a,csv\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, spec := range []string{"csv:" + data, "csv:" + bad} { // bad is not read
		r := fails(t, 1, []string{"sets of -m 2 images cannot span the model's d=3 dimensions: raise -m to 3 or more (-resume keeps the model's d)"},
			"train", "-data", spec, "-m", "2", "-epochs", "1", "-resume", mod, "-o", out)
		if strings.Contains(r.stderr, "lower -d") {
			t.Errorf("-resume refuses -d, yet the advice is to lower it: %q", r.stderr)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused run wrote the model")
	}
	ok(t, "train", "-data", "csv:"+data, "-m", "3", "-epochs", "1", "-resume", mod, "-o", out, "-quiet")
}
