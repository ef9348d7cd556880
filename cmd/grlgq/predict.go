package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/predict"
)

func runPredict(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("predict")
	var (
		f      modelFlags
		out    string
		format string
	)
	f.addFlags(fs)
	fs.BoolVar(&f.asJSON, "json", false, "same as -format json")
	fs.StringVar(&out, "o", "", "write the predictions to this file (atomically) instead of standard output, in -format or as its extension says (.csv, .json)")
	fs.StringVar(&format, "format", "", "text, csv or json (default: text, or -o's extension): one row per sample with its index, name, predicted class, margin, μ (labelled data), rejected flag and class probabilities")
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	g := e.guard(fs)
	if f.asJSON {
		if format != "" && format != "json" {
			return usagef(fs, "-json and -format %s disagree", format)
		}
		format = "json"
	}
	if format == "" && out != "" {
		format = map[string]string{".csv": "csv", ".json": "json", ".txt": "text"}[strings.ToLower(filepath.Ext(out))]
		if format == "" {
			return usagef(fs, "-o %s: cannot tell the format from the extension; give -format csv, json or text", out)
		}
	}
	if format != "" && format != "text" && format != "csv" && format != "json" {
		return usagef(fs, "-format %q: want text, csv or json", format)
	}
	if err := f.check(fs, e); err != nil {
		return err
	}
	if out != "" {
		if err := g.CheckOutput("-o", out); err != nil {
			return err
		}
	}
	mod, s, err := f.load(ctx, fs)
	if err != nil {
		return err
	}
	pred, err := predictAll(ctx, mod, s)
	if err != nil {
		return err
	}
	tab := predict.NewTable(mod, s.ps, pred)
	var b bytes.Buffer
	switch format {
	case "csv":
		err = tab.WriteCSV(&b)
	case "json":
		err = tab.WriteJSON(&b)
	default:
		err = tab.WriteText(&b)
	}
	if err != nil {
		return err
	}
	if out == "" {
		if _, err := e.stdout.Write(b.Bytes()); err != nil {
			return err
		}
	} else {
		if err := g.Write(out, b.Bytes()); err != nil {
			return err
		}
		if err := g.Commit(); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "wrote %d predictions (%s) to %s%s\n", tab.N, format, out, scored(tab))
	}
	if len(tab.Unknown) > 0 {
		// After the output, so that a failure stays one line.
		warnUnknown(e, "predict", mod, s, tab.Unknown, tab.Unscored, tab.N)
	}
	return nil
}

// warnUnknown prints the warning of predict and explain about labelled
// data with classes the model does not know (unknown, as
// predict.Samples.UnknownClasses or UnknownAmong names them): n of the of
// samples predicted, or explained, are so as unlabelled and not scored.
func warnUnknown(e *env, verb string, mod *model.Model, s *samples, unknown []string, n, of int) {
	fmt.Fprintf(e.stderr, "grlgq: %s: warning: %s has classes the model does not know: %s (the model's classes: %s); not scored: %d of %d samples\n",
		verb, s.ds.Source, strings.Join(unknown, ", "), strings.Join(modelClasses(mod), ", "), n, of)
}

// scored says how many predictions of labelled data are correct, among
// those scored (not of a class the model does not know).
func scored(t *predict.Table) string {
	n := t.N - t.Unscored
	switch {
	case !t.Labelled:
		return " (no labels to score against)"
	case t.Unscored == 0:
		return fmt.Sprintf(": %d correct (%s)", t.Correct, pct(float64(t.Correct)/float64(max(t.N, 1))))
	case n > 0:
		return fmt.Sprintf(": %d of %d correct (%s), %d not scored (classes the model does not know)", t.Correct, n, pct(float64(t.Correct)/float64(n)), t.Unscored)
	}
	return " (none scored: classes the model does not know)"
}
