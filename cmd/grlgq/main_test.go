package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestUsage(t *testing.T) {
	r := fails(t, 2, nil)
	if !strings.Contains(r.stderr, "grlgq demo") {
		t.Errorf("usage does not list the commands: %s", r.stderr)
	}
	fails(t, 2, []string{"unknown command"}, "frobnicate")
	fails(t, 2, []string{"-data"}, "train", "-o", filepath.Join(t.TempDir(), "m"))
	if r := ok(t, "help", "train"); !strings.Contains(r.stdout, "-lr") || !strings.Contains(r.stdout, "factor 2") {
		t.Errorf("train usage does not document -lr and the factor 2: %s", r.stdout)
	}
	fails(t, 2, []string{"-o"}, "train", "-data", "csv:x.csv")
	fails(t, 2, []string{"-m 2", "-d 3"}, "train", "-data", "csv:x.csv", "-d", "3", "-m", "2", "-o", filepath.Join(t.TempDir(), "m"))
	fails(t, 2, []string{"bogus"}, "train", "-bogus")
	fails(t, 2, []string{"-relevance"}, "train", "-relevance", "sometimes", "-data", "csv:x", "-o", "m")
	fails(t, 2, []string{"-data"}, "train", "-data", "tar:x", "-o", filepath.Join(t.TempDir(), "m"))
	fails(t, 2, []string{"-model"}, "eval", "-data", "csv:x")
	fails(t, 2, []string{"unexpected argument"}, "eval", "-model", "m", "-data", "csv:x", "extra")
	fails(t, 2, []string{"-o"}, "explain", "-model", "m", "-data", "csv:x")
	fails(t, 2, []string{"experiment"}, "repro", "-dir", t.TempDir())
	fails(t, 2, []string{"unknown experiment"}, "repro", "cifar", "-dir", t.TempDir())
	r = ok(t, "help")
	if !strings.Contains(r.stdout, "grlgq train") {
		t.Errorf("help does not list train: %s", r.stdout)
	}
	for _, c := range commands {
		r := ok(t, "help", c.name)
		if !strings.Contains(r.stdout, "Usage: grlgq "+c.name) {
			t.Errorf("help %s: %s", c.name, r.stdout)
		}
		ok(t, c.name, "-h")
	}
}

// TestUsageErrorTwoLines: a usage error of every verb prints exactly two
// lines, what is wrong and how to see the usage (like cmd/go), exit 2; a
// flag one edit from a real one is named.
func TestUsageErrorTwoLines(t *testing.T) {
	for _, c := range commands {
		args := []string{c.name, "-epoch", "5"}
		if c.name == "repro" {
			args = []string{c.name, "eth80", "-epoch", "5"}
		}
		r := fails(t, 2, []string{"-epoch"}, args...)
		want := "grlgq: " + c.name + ": flag provided but not defined: -epoch"
		lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[0], want) || lines[1] != "run 'grlgq help "+c.name+"'" || r.stdout != "" {
			t.Errorf("%s: stderr %q, stdout %q", c.name, r.stderr, r.stdout)
		}
	}
	r := fails(t, 2, nil, "train", "-epoch", "5")
	if want := "grlgq: train: flag provided but not defined: -epoch (did you mean -epochs?)\nrun 'grlgq help train'\n"; r.stderr != want {
		t.Errorf("got %q, want %q", r.stderr, want)
	}
	r = fails(t, 2, nil, "train", "-d", "0")
	if lines := strings.Count(r.stderr, "\n"); lines != 2 || !strings.Contains(r.stderr, "want an integer from 1 to") {
		t.Errorf("an out-of-range value: %q", r.stderr)
	}
	r = fails(t, 2, nil, "frobnicate")
	if r.stderr != "grlgq: unknown command \"frobnicate\"\nrun 'grlgq help'\n" {
		t.Errorf("unknown command: %q", r.stderr)
	}
	// A command one typo away is named, as a flag is (two lines still).
	for args, want := range map[string]string{
		"trian":      "grlgq: unknown command \"trian\" (did you mean train?)\nrun 'grlgq help'\n",
		"evl":        "grlgq: unknown command \"evl\" (did you mean eval?)\nrun 'grlgq help'\n",
		"hlep":       "grlgq: unknown command \"hlep\" (did you mean help?)\nrun 'grlgq help'\n",
		"help trian": "grlgq: help: unknown command \"trian\" (did you mean train?)\nrun 'grlgq help'\n",
		"help expl":  "grlgq: help: unknown command \"expl\" (did you mean explain?)\nrun 'grlgq help'\n",
		"help frob":  "grlgq: help: unknown command \"frob\"\nrun 'grlgq help'\n",
	} {
		if r := fails(t, 2, nil, strings.Fields(args)...); r.stderr != want || r.stdout != "" {
			t.Errorf("grlgq %s: stderr %q, stdout %q; want stderr %q", args, r.stderr, r.stdout, want)
		}
	}
}

func TestDemo(t *testing.T) {
	r := ok(t, "demo", "-json")
	m := decodeJSON(t, r.stdout, "accuracy", "set_accuracy", "relevances", "history")
	if acc := fraction(t, m, "accuracy"); acc < 0.85 {
		t.Errorf("demo single-digit accuracy %.3f, want >= 0.85", acc)
	}
	fraction(t, m, "set_accuracy")
	// The exported data trains, evaluates and explains.
	dir := t.TempDir()
	csv := filepath.Join(dir, "digits.csv.gz")
	ok(t, "demo", "-export-data", csv)
	mod := filepath.Join(dir, "digits.grlgq")
	ok(t, "train", "-data", "csv:"+csv, "-image", "8x8", "-pixel-max", "16", "-d", "4", "-m", "10", "-epochs", "3", "-o", mod, "-quiet")
	r = ok(t, "eval", "-model", mod, "-data", "csv:"+csv, "-image", "8x8", "-pixel-max", "16", "-json")
	if acc := fraction(t, decodeJSON(t, r.stdout, "accuracy"), "accuracy"); acc < 0.85 {
		t.Errorf("accuracy %.3f on the exported digits", acc)
	}
	ok(t, "explain", "-model", mod, "-data", "csv:"+csv, "-image", "8x8", "-pixel-max", "16", "-o", filepath.Join(dir, "ex"), "-n", "2")
	checkExplanation(t, filepath.Join(dir, "ex"), 2)

	r = ok(t, "demo", "-epochs", "3")
	for _, want := range []string{"test accuracy", "single digits", "relevance profile", "Alpaydin", "epoch 3/3"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("demo output lacks %q:\n%s", want, r.stdout)
		}
	}
}

// TestCSVPipeline trains, evaluates, predicts and explains on a small CSV
// of single images (grouped into training sets).
func TestCSVPipeline(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "train.csv")
	writeCSV(t, data, 3, 30, 1)
	spec := "csv:" + data
	mod := filepath.Join(dir, "model.grlgq")
	plots := filepath.Join(dir, "plots")
	r := ok(t, "train", "-data", spec, "-image", "8x8", "-pixel-max", "16", "-d", "3", "-m", "6", "-protos", "2", "-epochs", "8",
		"-lr", "0.05", "-lr-rel", "1e-4", "-seed", "3", "-val", "0.2", "-o", mod, "-plots", plots, "-json")
	tm := decodeJSON(t, r.stdout, "accuracy", "history", "relevances", "model", "val_accuracy")
	if h := tm["history"].([]any); len(h) != 8 {
		t.Errorf("history has %d epochs, want 8", len(h))
	}
	for _, p := range []string{"learning_curves.png", "relevances.png"} {
		if sz := checkPNG(t, filepath.Join(plots, p)); sz.X < 100 || sz.Y < 100 {
			t.Errorf("%s is %v", p, sz)
		}
	}

	// Text output: data, config, epochs, saved.
	r = ok(t, "train", "-data", spec, "-d", "3", "-m", "6", "-epochs", "2", "-o", filepath.Join(dir, "m2"))
	for _, want := range []string{"data", "config", "epoch 1/2", "saved"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("train output lacks %q:\n%s", want, r.stdout)
		}
	}
	if r.stderr != "" {
		t.Errorf("train wrote to stderr (not a terminal: no progress bar): %q", r.stderr)
	}

	r = ok(t, "eval", "-model", mod, "-data", spec, "-json")
	em := decodeJSON(t, r.stdout, "accuracy", "per_class", "confusion", "n")
	if acc := fraction(t, em, "accuracy"); acc < 0.6 {
		t.Errorf("accuracy %.3f on the training images, want >= 0.6", acc)
	}
	if n := em["n"].(float64); n != 90 {
		t.Errorf("n = %v, want 90", n)
	}
	conf := em["confusion"].([]any)
	total := 0.0
	for _, row := range conf {
		for _, v := range row.([]any) {
			total += v.(float64)
		}
	}
	if len(conf) != 3 || total != 90 {
		t.Errorf("confusion %v: want 3 rows summing to 90", conf)
	}
	r = ok(t, "eval", "-model", mod, "-data", spec)
	for _, want := range []string{"accuracy", "precision", "f1-score", "macro avg", "weighted avg", "confusion matrix"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("eval output lacks %q:\n%s", want, r.stdout)
		}
	}
	// Sets of 6 test images instead of single images.
	r = ok(t, "eval", "-model", mod, "-data", spec, "-m", "6", "-json")
	if sm := decodeJSON(t, r.stdout, "accuracy"); sm["samples"] != "set" || sm["n"].(float64) != 15 {
		t.Errorf("eval -m 6: samples %v, n %v; want 15 sets", sm["samples"], sm["n"])
	}

	r = ok(t, "predict", "-model", mod, "-data", spec, "-json")
	pm := decodeJSON(t, r.stdout, "predictions", "n")
	preds := pm["predictions"].([]any)
	if len(preds) != 90 {
		t.Fatalf("%d predictions, want 90", len(preds))
	}
	p0 := preds[0].(map[string]any)
	for _, k := range []string{"predicted", "margin", "mu", "probabilities", "distances"} {
		if _, ok := p0[k]; !ok {
			t.Errorf("prediction lacks %q: %v", k, p0)
		}
	}
	if d := p0["distances"].([]any); len(d) != 6 {
		t.Errorf("%d distances, want 6 (3 classes x 2 prototypes)", len(d))
	}
	r = ok(t, "predict", "-model", mod, "-data", spec)
	if lines := strings.Count(r.stdout, "\n"); lines != 93 {
		t.Errorf("predict printed %d lines, want 93 (header, 90 samples, legend, total)", lines)
	}

	ex := filepath.Join(dir, "explain")
	ok(t, "explain", "-model", mod, "-data", spec, "-o", ex, "-n", "3")
	checkExplanation(t, ex, 3)
	// Explaining sets gives image contributions M.
	ex2 := filepath.Join(dir, "explain-sets")
	ok(t, "explain", "-model", mod, "-data", spec, "-o", ex2, "-m", "6", "-samples", "0,5")
	js := checkExplanation(t, ex2, 2)
	plus := js[0]["plus"].(map[string]any)
	if m, ok := plus["image_contributions"].([]any); !ok || len(m) != 6 {
		t.Errorf("image contributions: %v, want 6 rows (one per image)", plus["image_contributions"])
	}
	if qw := plus["q_w"].([]any); len(qw) != 3 {
		t.Errorf("q_w has %d rows, want d = 3", len(qw))
	}
}

// checkExplanation checks explain's output folder and returns the
// per-sample JSON objects.
func checkExplanation(t *testing.T, dir string, n int) []map[string]any {
	t.Helper()
	checkPNG(t, filepath.Join(dir, "prototypes.png"))
	checkPNG(t, filepath.Join(dir, "relevances.png"))
	b, err := os.ReadFile(filepath.Join(dir, "explanation.json"))
	if err != nil {
		t.Fatal(err)
	}
	sum := decodeJSON(t, string(b), "samples", "relevances")
	samples := sum["samples"].([]any)
	if len(samples) != n {
		t.Fatalf("explanation.json lists %d samples, want %d", len(samples), n)
	}
	var out []map[string]any
	for _, s := range samples {
		s := s.(map[string]any)
		checkPNG(t, filepath.Join(dir, s["picture"].(string)))
		b, err := os.ReadFile(filepath.Join(dir, s["json"].(string)))
		if err != nil {
			t.Fatal(err)
		}
		j := decodeJSON(t, string(b), "plus", "minus", "margin", "relevances")
		for _, side := range []string{"plus", "minus"} {
			sd := j[side].(map[string]any)
			for _, k := range []string{"angles", "contributions", "q_w", "distance"} {
				if _, ok := sd[k]; !ok {
					t.Errorf("%s.%s missing", side, k)
				}
			}
		}
		out = append(out, j)
	}
	return out
}

func TestIDX(t *testing.T) {
	dir := t.TempDir()
	imgs, labs := filepath.Join(dir, "img.idx"), filepath.Join(dir, "lab.idx")
	writeIDX(t, imgs, labs, 3, 20, -1)
	spec := "idx:" + imgs + "," + labs
	mod := filepath.Join(dir, "m.grlgq")
	ok(t, "train", "-data", spec, "-d", "2", "-m", "5", "-epochs", "3", "-o", mod, "-quiet")
	r := ok(t, "eval", "-model", mod, "-data", spec, "-json")
	fraction(t, decodeJSON(t, r.stdout, "accuracy"), "accuracy")

	// A label file of the wrong length.
	writeIDX(t, imgs, labs, 3, 20, 59)
	fails(t, 1, []string{"labels"}, "train", "-data", spec, "-o", mod)
	fails(t, 1, []string{"labels"}, "eval", "-model", mod, "-data", spec)
}

func TestFolderSets(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "sets")
	writeFolder(t, root, 2, 4, 6)
	spec := "folder:" + root
	mod := filepath.Join(dir, "m.grlgq")
	r := ok(t, "train", "-data", spec, "-d", "3", "-epochs", "5", "-o", mod)
	if !strings.Contains(r.stdout, "8 image sets") {
		t.Errorf("train does not describe the sets:\n%s", r.stdout)
	}
	r = ok(t, "eval", "-model", mod, "-data", spec, "-json")
	em := decodeJSON(t, r.stdout, "accuracy")
	if em["samples"] != "set" || em["n"].(float64) != 8 {
		t.Errorf("eval on folder: samples %v n %v, want 8 sets", em["samples"], em["n"])
	}
	ok(t, "predict", "-model", mod, "-data", spec)
	ex := filepath.Join(dir, "ex")
	ok(t, "explain", "-model", mod, "-data", spec, "-o", ex, "-n", "2")
	js := checkExplanation(t, ex, 2)
	if m := js[0]["plus"].(map[string]any)["image_contributions"].([]any); len(m) != 6 {
		t.Errorf("image contributions have %d rows, want 6", len(m))
	}

	// Resizing: a model of 8x8 images cannot eval 4x4 images, and says so.
	fails(t, 1, []string{"4x4", "the model wants 8x8 images (D=64): use -resize 8x8"}, "eval", "-model", mod, "-data", spec, "-resize", "4x4")
	fails(t, 1, []string{"the model wants 8x8 images (D=64): use -resize 8x8"}, "predict", "-model", mod, "-data", spec, "-width", "5", "-height", "5")
	// -m groups single images: refused for sets (TestModelMNeedsSingleImages).
	fails(t, 2, []string{"-m needs single-image data (idx, csv, mat): folder data are image sets or bases"}, "eval", "-model", mod, "-data", spec, "-m", "2")

	// A set smaller than d.
	small := filepath.Join(dir, "small")
	writeFolder(t, small, 2, 2, 2)
	fails(t, 1, []string{"fewer images"}, "train", "-data", "folder:"+small, "-d", "3", "-o", mod)
	// ... which -skip-bad leaves out (here: all of them, so still an error).
	fails(t, 1, nil, "train", "-data", "folder:"+small, "-d", "3", "-o", mod, "-skip-bad")
	// Evaluating a tree with one set too small for d: an error, or left out.
	mixed := filepath.Join(dir, "mixed")
	writeFolder(t, mixed, 2, 2, 6)
	tiny := filepath.Join(mixed, "classa", "tiny")
	os.MkdirAll(tiny, 0o755)
	writePNG(t, filepath.Join(tiny, "only.png"), make([]float64, 64))
	fails(t, 1, []string{"classa/tiny", "-skip-bad"}, "eval", "-model", mod, "-data", "folder:"+mixed)
	r = ok(t, "eval", "-model", mod, "-data", "folder:"+mixed, "-skip-bad", "-json")
	if em := decodeJSON(t, r.stdout, "accuracy", "skipped"); em["n"].(float64) != 4 || len(em["skipped"].([]any)) != 1 {
		t.Errorf("eval -skip-bad: n %v, skipped %v; want 4 sets and 1 skipped", em["n"], em["skipped"])
	}
}

func TestNPY(t *testing.T) {
	dir := t.TempDir()
	data, labels := filepath.Join(dir, "b.npy"), filepath.Join(dir, "l.npy")
	writeNPY(t, data, labels, 12, 10, 2)
	spec := "npy:" + data + "," + labels
	mod := filepath.Join(dir, "m.grlgq")
	r := ok(t, "train", "-data", spec, "-epochs", "3", "-o", mod, "-json")
	if d := decodeJSON(t, r.stdout, "subspace_dim")["subspace_dim"].(float64); d != 2 {
		t.Errorf("subspace_dim %v, want the bases' 2", d)
	}
	r = ok(t, "eval", "-model", mod, "-data", spec, "-json")
	if acc := fraction(t, decodeJSON(t, r.stdout, "accuracy"), "accuracy"); acc < 0.9 {
		t.Errorf("accuracy %.3f on separable bases", acc)
	}
	fails(t, 1, []string{"d=2"}, "train", "-data", spec, "-d", "3", "-epochs", "3", "-o", mod)
}

// TestWorkersIdentical: the model file does not depend on -workers.
func TestWorkersIdentical(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	writeCSV(t, data, 4, 24, 2)
	var files [][]byte
	for _, w := range []string{"1", "2"} {
		mod := filepath.Join(dir, "m"+w)
		ok(t, "train", "-data", "csv:"+data, "-d", "3", "-m", "6", "-protos", "2", "-epochs", "6", "-seed", "11",
			"-val", "0.25", "-workers", w, "-o", mod, "-quiet")
		files = append(files, modelContent(t, mod))
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Fatal("-workers 1 and -workers 2 wrote different model files")
	}
}

func TestCorruptModel(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	writeCSV(t, data, 2, 12, 4)
	spec := "csv:" + data
	mod := filepath.Join(dir, "m.grlgq")
	ok(t, "train", "-data", spec, "-d", "2", "-m", "4", "-epochs", "2", "-o", mod, "-quiet")
	good, err := os.ReadFile(mod)
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)/2] ^= 0x40
	cases := map[string][]byte{
		"flipped":   flipped,
		"truncated": good[:len(good)/3],
		"empty":     {},
		"text":      []byte("this is not a model\n"),
	}
	for name, b := range cases {
		t.Run(name, func(t *testing.T) {
			bad := filepath.Join(dir, name+".grlgq")
			if err := os.WriteFile(bad, b, 0o644); err != nil {
				t.Fatal(err)
			}
			// The file is named, whichever command loads it.
			for _, cmd := range []string{"eval", "predict"} {
				fails(t, 1, []string{"model", "-model " + bad + ": model: "}, cmd, "-model", bad, "-data", spec)
			}
			fails(t, 1, []string{"model", "-model " + bad + ": model: "}, "explain", "-model", bad, "-data", spec, "-o", filepath.Join(dir, "ex-"+name))
			fails(t, 1, []string{"inspect: " + bad + ": model: "}, "inspect", bad)
		})
	}
	fails(t, 1, []string{"no such file"}, "eval", "-model", filepath.Join(dir, "missing"), "-data", spec)
}

// TestBadInput: every kind of bad input is one line on stderr and exit 1,
// and an existing -o file survives.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.csv")
	writeCSV(t, good, 2, 12, 4)
	precious := filepath.Join(dir, "precious.grlgq")
	keep := []byte("the user's old model: keep me")
	if err := os.WriteFile(precious, keep, 0o644); err != nil {
		t.Fatal(err)
	}
	nan := filepath.Join(dir, "nan.csv")
	b, _ := os.ReadFile(good)
	if err := os.WriteFile(nan, bytes.Replace(b, []byte("0,"), []byte("NaN,"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	ragged := filepath.Join(dir, "ragged.csv")
	os.WriteFile(ragged, append(b, []byte("1,2,3\n")...), 0o644)
	oneClass := filepath.Join(dir, "one.csv")
	writeCSV(t, oneClass, 1, 12, 4)
	folder := filepath.Join(dir, "small")
	writeFolder(t, folder, 2, 2, 2)

	cases := []struct {
		name string
		want []string
		args []string
	}{
		{"missing file", []string{"no such file"}, []string{"-data", "csv:" + filepath.Join(dir, "nope.csv")}},
		{"wrong format", []string{"magic"}, []string{"-data", "idx:" + good + "," + good}},
		{"nan pixel", []string{"NaN"}, []string{"-data", "csv:" + nan}},
		{"ragged csv", []string{"line"}, []string{"-data", "csv:" + ragged}},
		{"one class", []string{"2 classes"}, []string{"-data", "csv:" + oneClass, "-d", "2", "-m", "4"}},
		{"set smaller than d", []string{"d=3"}, []string{"-data", "folder:" + folder, "-d", "3"}},
		{"class smaller than m", []string{"m=50"}, []string{"-data", "csv:" + good, "-m", "50"}},
		{"folder is a file", nil, []string{"-data", "folder:" + good}},
		{"mat garbage", nil, []string{"-data", "mat:" + good}},
		{"npy garbage", nil, []string{"-data", "npy:" + good + "," + good}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"train", "-o", precious, "-epochs", "2"}, c.args...)
			fails(t, 1, c.want, args...)
			if got, _ := os.ReadFile(precious); !bytes.Equal(got, keep) {
				t.Fatalf("the existing -o file was changed: %q", got)
			}
		})
	}
	// -o may not be the data.
	fails(t, 2, []string{"data"}, "train", "-data", "csv:"+good, "-d", "2", "-m", "4", "-o", good)
	// Output into a missing folder fails before training.
	fails(t, 1, []string{"output"}, "train", "-data", "csv:"+good, "-d", "2", "-m", "4", "-o", filepath.Join(dir, "no", "such", "m"))
	// A successful run does replace it.
	ok(t, "train", "-data", "csv:"+good, "-d", "2", "-m", "4", "-epochs", "2", "-o", precious, "-quiet")
	if got, _ := os.ReadFile(precious); bytes.Equal(got, keep) {
		t.Fatal("a successful run did not write the model")
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*"))
	if len(left) != 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

func TestEvalUnknownClass(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")
	writeCSV(t, a, 2, 12, 4)
	writeCSV(t, b, 3, 12, 4)
	mod := filepath.Join(dir, "m")
	ok(t, "train", "-data", "csv:"+a, "-d", "2", "-m", "4", "-epochs", "2", "-o", mod, "-quiet")
	fails(t, 1, []string{"classes the model does not know", "2"}, "eval", "-model", mod, "-data", "csv:"+b)
	// predict needs no true labels the model knows.
	ok(t, "predict", "-model", mod, "-data", "csv:"+b)
}

func TestJSONNumbers(t *testing.T) {
	b, err := json.Marshal(map[string]any{"a": jnum(nan()), "b": jnums([]float64{1, nan()})})
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != `{"a":null,"b":[1,null]}` {
		t.Errorf("got %s", b)
	}
}

// TestModelRemembersImageSize trains on folder images resized to 4x4 and
// evaluates without -resize: the model records the size and eval resizes
// to it, giving the same answer as repeating -resize.
func TestModelRemembersImageSize(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "sets")
	writeFolder(t, root, 2, 4, 6)
	spec := "folder:" + root
	mod := filepath.Join(dir, "m.grlgq")
	ok(t, "train", "-data", spec, "-resize", "4x4", "-d", "3", "-epochs", "3", "-o", mod)
	explicit := ok(t, "eval", "-model", mod, "-data", spec, "-resize", "4x4", "-json").stdout
	implicit := ok(t, "eval", "-model", mod, "-data", spec, "-json").stdout
	if explicit != implicit {
		t.Errorf("eval without -resize differs from eval with the training's -resize:\n%s\nvs\n%s", implicit, explicit)
	}
	ok(t, "predict", "-model", mod, "-data", spec)
	// A model trained without resizing (8x8) keeps its native size.
	mod8 := filepath.Join(dir, "m8.grlgq")
	ok(t, "train", "-data", spec, "-d", "3", "-epochs", "3", "-o", mod8)
	ok(t, "eval", "-model", mod8, "-data", spec, "-json")
}

// TestImageSizeWarning: MAT or CSV images whose -image is not the size
// the model records are resized to it, as other sizes are; eval, predict
// and explain say so in one warning line on stderr, so that a typo in
// -image (4x16 for 8x8) does not pass silently. An -image of the model's
// size, none, or a -resize that asks for the resize: no warning.
func TestImageSizeWarning(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	writeCSV(t, data, 2, 12, 4)
	spec := []string{"-data", "csv:" + data, "-pixel-max", "16"}
	mod := filepath.Join(dir, "m.grlgq")
	ok(t, append([]string{"train", "-image", "8x8", "-d", "2", "-m", "4", "-epochs", "1", "-o", mod, "-quiet"}, spec...)...)
	warning := func(cmd, flag string) string {
		return "grlgq: " + cmd + ": warning: -" + flag + " 4x16 is not the model's image size 8x8: the images were resized to 8x8 (check -" + flag + "; give -resize 8x8 if the resize is meant)\n"
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "-image", "4x16"}, warning("eval", "image")},
		{[]string{"eval", "-image", "4x16", "-json"}, warning("eval", "image")},
		{[]string{"eval", "-mat-image", "4x16"}, warning("eval", "mat-image")},
		{[]string{"predict", "-image", "4x16"}, warning("predict", "image")},
		{[]string{"explain", "-image", "4x16", "-n", "1", "-o", filepath.Join(dir, "ex")}, warning("explain", "image")},
		{[]string{"eval", "-image", "8x8"}, ""},
		{[]string{"eval"}, ""},
		{[]string{"eval", "-image", "4x16", "-resize", "8x8"}, ""},
		{[]string{"eval", "-image", "4x16", "-width", "8", "-height", "8"}, ""},
	} {
		args := append(append(append([]string{}, c.args[0], "-model", mod), spec...), c.args[1:]...)
		if r := ok(t, args...); r.stderr != c.want {
			t.Errorf("grlgq %s: stderr %q, want %q", strings.Join(args, " "), r.stderr, c.want)
		}
	}
	// A failure after the data are loaded stays one line: the warning
	// comes only at the end of a successful run.
	bad := filepath.Join(dir, "bad.csv")
	writeCSV(t, bad, 3, 12, 4) // a third class, which eval refuses
	r := fails(t, 1, []string{"does not know"}, "eval", "-model", mod, "-data", "csv:"+bad, "-pixel-max", "16", "-image", "4x16")
	if strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("eval failing after a resize: stderr %q, want one line", r.stderr)
	}
	// A model without an image size resizes nothing: nothing to say.
	flat := filepath.Join(dir, "flat.grlgq")
	ok(t, append([]string{"train", "-d", "2", "-m", "4", "-epochs", "1", "-o", flat, "-quiet"}, spec...)...)
	if r := ok(t, append([]string{"eval", "-model", flat, "-image", "4x16"}, spec...)...); r.stderr != "" {
		t.Errorf("eval of a model without an image size: stderr %q", r.stderr)
	}
}
