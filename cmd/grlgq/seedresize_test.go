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
