package base

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/grlgq/grlgq/dataset/imageset"
)

// TestReport: the one error format of both binaries.
func TestReport(t *testing.T) {
	fs := NewFlagSet("train")
	limit := fmt.Errorf("load: %w", &imageset.LimitError{File: "x.csv", What: "line 1", Limit: imageset.LimitPixels, Value: 9, Max: 4})
	for _, c := range []struct {
		prog, cmd string
		err       error
		code      int
		want      string
	}{
		{"grlgq", "train", nil, ExitOK, ""},
		{"grlgq", "train", ErrHelp, ExitOK, ""},
		{"grlgq", "train", Usagef(fs, "-d %d: too\nlarge", 0), ExitUsage, "grlgq: train: -d 0: too; large\nrun 'grlgq help train'\n"},
		{"grlgq", "train", errors.New("grlgq: no data"), ExitFail, "grlgq: train: no data\n"},
		{"grlgq-edge", "", limit, ExitFail, "grlgq-edge: load: x.csv: line 1: 9 pixels per image, over the limit of 4 (raise it with -max-pixels)\n"},
	} {
		var b bytes.Buffer
		if code := Report(&b, c.prog, c.cmd, c.err, "grlgq help train"); code != c.code || b.String() != c.want {
			t.Errorf("%v: code %d, printed %q; want %d, %q", c.err, code, b.String(), c.code, c.want)
		}
	}
}

// TestSuggest: an unknown flag one edit from a defined one, or a prefix of
// just one, is named in the usage error.
func TestSuggest(t *testing.T) {
	fs := NewFlagSet("train")
	var n int
	IntVar(fs, &n, "epochs", 1, 1, 10, "")
	IntVar(fs, &n, "protos", 1, 1, 10, "")
	IntVar(fs, &n, "patience", 1, 0, 10, "")
	fs.Bool("plots", false, "")
	for args, want := range map[string]string{
		"-epoch":  "flag provided but not defined: -epoch (did you mean -epochs?)",
		"--epoch": "flag provided but not defined: -epoch (did you mean -epochs?)",
		"-protso": "flag provided but not defined: -protso (did you mean -protos?)",
		"-psotro": "flag provided but not defined: -psotro",
		"-proto":  "flag provided but not defined: -proto (did you mean -protos?)",
		"-p":      "flag provided but not defined: -p",
		"-xyz":    "flag provided but not defined: -xyz",
		"-pl":     "flag provided but not defined: -pl",
		"-plot":   "flag provided but not defined: -plot (did you mean -plots?)",
		"-epochs": "invalid value \"x\" for flag -epochs: want an integer from 1 to 10",
	} {
		err := Parse(fs, []string{args, "x"})
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %s", args, err, want)
		}
	}
}

// TestSuggestNames: Suggest, for a flag's name or a command's, names the
// one name a typo is of: one edit, two adjacent letters swapped, or a
// prefix of 3 letters or more; none when two names qualify.
func TestSuggestNames(t *testing.T) {
	names := []string{"demo", "train", "cv", "eval", "predict", "explain", "inspect", "help"}
	for name, want := range map[string]string{
		"trian":   "train",
		"tran":    "train",
		"trains":  "train",
		"tra":     "train",
		"evl":     "eval",
		"predcit": "predict",
		"exp":     "explain",
		"hlep":    "help",
		"ev":      "cv", // one edit; too short a prefix of eval
		"e":       "",
		"in":      "",
		"frob":    "",
		"":        "",
	} {
		if got := Suggest(name, names); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", name, got, want)
		}
	}
	if got := Suggest("xval", []string{"eval", "cval"}); got != "" {
		t.Errorf("Suggest(xval) between eval and cval = %q, want none", got)
	}
}

// TestProgressPercent: a percent bar counts in %, whatever the total the
// library reports, and redraws after a clear.
func TestProgressPercent(t *testing.T) {
	var b bytes.Buffer
	p := &Percent{bar: &ProgressBar{w: &b, on: true, total: 1000, unit: "%"}, note: "decoding"}
	p.Update(53, 100)
	if got := b.String(); !strings.Contains(got, " 53%  ETA ") || !strings.HasSuffix(got, "decoding") || strings.Contains(got, "‰") {
		t.Errorf("bar %q", got)
	}
	b.Reset()
	p.Clear()
	p.Redraw()
	if got := b.String(); !strings.Contains(got, " 53%") {
		t.Errorf("redraw %q", got)
	}
	b.Reset()
	p.Update(7, 7)
	if got := b.String(); !strings.Contains(got, "100%") || !strings.Contains(got, "[==============================]") {
		t.Errorf("done %q", got)
	}
	// Off when not a terminal: nothing drawn.
	b.Reset()
	q := NewPercent(&b, "x", false)
	q.Update(1, 2)
	q.Clear()
	if b.Len() != 0 {
		t.Errorf("a bar on a buffer drew %q", b.String())
	}
}
