package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestModelSeedNeedsM: in eval, predict and explain (modelFlags) -seed
// seeds the random grouping of -m and nothing else, so a given -seed
// without it (no -m, -m 0) is a usage error, and so is one for folder
// or npy data (image sets or bases already, which -m does not group),
// told by the flag being given, whatever its value (the default 1
// included), before the model or the data are read. With -m, or without
// -seed, as before.
func TestModelSeedNeedsM(t *testing.T) {
	dir := t.TempDir()
	root, specs := setsAndBases(t, dir)
	data := filepath.Join(dir, "d.csv")
	writeCSV(t, data, 2, 12, 4)
	mod := filepath.Join(dir, "m.grlgq")
	ok(t, "train", "-data", "csv:"+data, "-image", "8x8", "-pixel-max", "16", "-d", "2", "-m", "4", "-epochs", "1", "-o", mod, "-quiet")
	folderMod := filepath.Join(dir, "f.grlgq")
	ok(t, "train", "-data", "folder:"+root, "-d", "2", "-epochs", "1", "-o", folderMod, "-quiet")
	ex := filepath.Join(dir, "ex")
	usage := func(verb, msg string) string {
		return "grlgq: " + verb + ": " + msg + "\nrun 'grlgq help " + verb + "'\n"
	}
	const needsM = "-seed needs -m M (M > 0): it only seeds the random grouping of single images into sets"
	for _, verb := range [][]string{{"eval"}, {"predict"}, {"explain", "-o", ex, "-n", "1"}} {
		// The second model and data files do not exist: the refusal
		// comes before either is read.
		for _, mf := range []string{mod, filepath.Join(dir, "missing.grlgq")} {
			for _, spec := range []string{"csv:" + data, "csv:" + filepath.Join(dir, "missing.csv")} {
				for _, extra := range [][]string{{"-seed", "3"}, {"-seed", "1"}, {"-seed=2", "-m", "0"}, {"-m", "0", "-seed", "7"}} {
					args := append(append(append([]string(nil), verb...), "-model", mf, "-data", spec, "-pixel-max", "16"), extra...)
					if r := fails(t, 2, []string{needsM}, args...); r.stderr != usage(verb[0], needsM) {
						t.Errorf("grlgq %s: stderr %q, want %q", strings.Join(args, " "), r.stderr, usage(verb[0], needsM))
					}
				}
			}
			for _, c := range specs {
				want := "-seed needs single-image data (idx, csv, mat): " + c.scheme + " data are image sets or bases"
				args := append(append([]string(nil), verb...), "-model", mf, "-data", c.spec, "-seed", "3")
				if r := fails(t, 2, []string{want}, args...); r.stderr != usage(verb[0], want) {
					t.Errorf("grlgq %s: stderr %q, want %q", strings.Join(args, " "), r.stderr, usage(verb[0], want))
				}
				// -m's own refusal comes first.
				fails(t, 2, []string{"-m needs single-image data"}, append(args, "-m", "4")...)
			}
		}
		if verb[0] == "explain" {
			if _, err := os.Stat(ex); err == nil {
				t.Errorf("explain: a refused run wrote %s", ex)
			}
		}
		// With -m, or without -seed: as before, and silent.
		for _, args := range [][]string{
			{"-model", mod, "-data", "csv:" + data, "-pixel-max", "16", "-m", "4", "-seed", "3"},
			{"-model", mod, "-data", "csv:" + data, "-pixel-max", "16", "-m", "4"},
			{"-model", mod, "-data", "csv:" + data, "-pixel-max", "16"},
			{"-model", folderMod, "-data", "folder:" + root},
		} {
			if r := ok(t, append(append([]string(nil), verb...), args...)...); r.stderr != "" {
				t.Errorf("grlgq %s %s: stderr %q", verb[0], strings.Join(args, " "), r.stderr)
			}
		}
	}
}

// TestResizeShapeWarning: -resize (or -width and -height) to a size with
// the model's pixel count but not its shape (4x16 for an 8x8 model) is
// classified, its rows read as the model's; eval, predict and explain say
// so in one warning line on stderr at the end of a successful run, as
// for -image. The model's size, no -resize, or a model without an image
// size: no warning; another pixel count: the error, alone.
func TestResizeShapeWarning(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	writeCSV(t, data, 2, 12, 4)
	spec := []string{"-data", "csv:" + data, "-image", "8x8", "-pixel-max", "16"}
	mod := filepath.Join(dir, "m.grlgq")
	ok(t, append([]string{"train", "-d", "2", "-m", "4", "-epochs", "1", "-o", mod, "-quiet"}, spec...)...)
	root := filepath.Join(dir, "sets")
	writeFolder(t, root, 2, 4, 6)
	folderMod := filepath.Join(dir, "f.grlgq")
	ok(t, "train", "-data", "folder:"+root, "-d", "2", "-epochs", "1", "-o", folderMod, "-quiet")
	warning := func(cmd, given, size, name string) string {
		return "grlgq: " + cmd + ": warning: " + given + " is not the model's image size 8x8: the images were resized to " + size +
			" and their 64 pixels read as 8x8 ones (check " + name + "; leave it out to resize to 8x8)\n"
	}
	ex := filepath.Join(dir, "ex")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "-resize", "4x16"}, warning("eval", "-resize 4x16", "4x16", "-resize")},
		{[]string{"eval", "-resize", "16x4", "-json"}, warning("eval", "-resize 16x4", "16x4", "-resize")},
		{[]string{"eval", "-resize", "1x64", "-m", "4"}, warning("eval", "-resize 1x64", "1x64", "-resize")},
		{[]string{"eval", "-width", "16", "-height", "4"}, warning("eval", "-width 16 -height 4", "4x16", "-width/-height")},
		{[]string{"eval", "-resize", "4x16", "-width", "16", "-height", "4"}, warning("eval", "-resize 4x16", "4x16", "-resize")},
		{[]string{"predict", "-resize", "4x16"}, warning("predict", "-resize 4x16", "4x16", "-resize")},
		{[]string{"explain", "-resize", "4x16", "-n", "1", "-o", ex}, warning("explain", "-resize 4x16", "4x16", "-resize")},
		// -image unlike the model's with -resize to it: neither warns.
		{[]string{"eval", "-image", "4x16", "-resize", "8x8"}, ""},
		{[]string{"eval", "-resize", "8x8"}, ""},
		{[]string{"eval"}, ""},
	} {
		args := append(append(append([]string{}, c.args[0], "-model", mod), spec...), c.args[1:]...)
		if r := ok(t, args...); r.stderr != c.want {
			t.Errorf("grlgq %s: stderr %q, want %q", strings.Join(args, " "), r.stderr, c.want)
		}
	}
	// Image sets: the same.
	if r := ok(t, "eval", "-model", folderMod, "-data", "folder:"+root, "-resize", "2x32"); r.stderr != warning("eval", "-resize 2x32", "2x32", "-resize") {
		t.Errorf("eval of folder data at -resize 2x32: stderr %q", r.stderr)
	}
	// Another pixel count is an error, one line, without the warning.
	fails(t, 1, []string{"has 16 pixels per image (4x4), the model wants 8x8 images (D=64)"}, append(append([]string{"eval", "-model", mod}, spec...), "-resize", "4x4")...)
	// A failure after the data are loaded: one line, the warning not printed.
	raw, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		rows = append(rows, line[:strings.LastIndex(line, ",")]) // the label left out
	}
	unlabelled := filepath.Join(dir, "u.csv")
	if err := os.WriteFile(unlabelled, []byte(strings.Join(rows, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fails(t, 1, []string{"no labels to score against"}, "eval", "-model", mod, "-data", "csv:"+unlabelled, "-csv-label", "none", "-image", "8x8", "-pixel-max", "16", "-resize", "4x16")
	// A model without an image size resizes nothing: nothing to say.
	flat := filepath.Join(dir, "flat.grlgq")
	ok(t, append([]string{"train", "-d", "2", "-m", "4", "-epochs", "1", "-o", flat, "-quiet"}, spec[:2]...)...)
	if r := ok(t, append([]string{"eval", "-model", flat, "-resize", "4x16"}, spec...)...); r.stderr != "" {
		t.Errorf("eval of a model without an image size: stderr %q", r.stderr)
	}
}

// TestResumeResizeShapeWarning: train -resume checks the data against the
// resumed model's D only, so a -resize (or -width and -height) with the
// model's pixel count in another shape trained on, its pixels read as the
// model's shape; it now says so as eval does, in one warning line at the
// end of a successful run, and so does an -image unlike the model's size.
// The model's size, no -resize, or training from scratch: no warning;
// another pixel count: the error, alone.
func TestResumeResizeShapeWarning(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	writeCSV(t, data, 2, 12, 4)
	spec := []string{"-data", "csv:" + data, "-image", "8x8", "-pixel-max", "16", "-m", "4", "-quiet"}
	mod := filepath.Join(dir, "m.grlgq")
	ok(t, append([]string{"train", "-d", "2", "-epochs", "1", "-o", mod}, spec...)...)
	out := filepath.Join(dir, "out.grlgq")
	warning := func(given, size, name string) string {
		return "grlgq: train: warning: " + given + " is not the model's image size 8x8: the images were resized to " + size +
			" and their 64 pixels read as 8x8 ones (check " + name + "; leave it out to resize to 8x8)\n"
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-resize", "4x16"}, warning("-resize 4x16", "4x16", "-resize")},
		{[]string{"-resize", "16x4", "-json"}, warning("-resize 16x4", "16x4", "-resize")},
		{[]string{"-width", "16", "-height", "4"}, warning("-width 16 -height 4", "4x16", "-width/-height")},
		{[]string{"-image", "4x16"}, "grlgq: train: warning: -image 4x16 is not the model's image size 8x8: the images were resized to 8x8 (check -image; give -resize 8x8 if the resize is meant)\n"},
		{[]string{"-resize", "8x8"}, ""},
		{nil, ""},
	} {
		args := append(append([]string{"train", "-resume", mod, "-epochs", "1", "-o", out}, spec...), c.args...)
		if r := ok(t, args...); r.stderr != c.want {
			t.Errorf("grlgq %s: stderr %q, want %q", strings.Join(args, " "), r.stderr, c.want)
		}
	}
	// Training from scratch at that size: no model to differ from.
	if r := ok(t, append([]string{"train", "-d", "2", "-epochs", "1", "-o", out, "-resize", "4x16"}, spec...)...); r.stderr != "" {
		t.Errorf("train from scratch at -resize 4x16: stderr %q", r.stderr)
	}
	// Another pixel count is an error, one line, without the warning.
	fails(t, 1, []string{"-resume " + mod}, append(append([]string{"train", "-resume", mod, "-epochs", "1", "-o", out}, spec...), "-resize", "4x4")...)
}
