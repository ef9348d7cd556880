package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/grlgq/grlgq/model"
)

type predictionJSON struct {
	Index         int    `json:"index"`
	Name          string `json:"name"`
	True          string `json:"true,omitempty"`
	Label         string `json:"label"`
	Class         int    `json:"class"`
	Rejected      bool   `json:"rejected,omitempty"`
	Correct       *bool  `json:"correct,omitempty"`
	Margin        jnum   `json:"margin"`
	Nearest       int    `json:"nearest_prototype"`
	Distances     []jnum `json:"distances"`
	Probabilities []jnum `json:"probabilities"`
}

func runPredict(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("predict")
	var f modelFlags
	f.addFlags(fs)
	fs.BoolVar(&f.asJSON, "json", false, `print one JSON object: "predictions" (label, margin, distances per sample), "n"`)
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	if err := f.check(fs, e.guard(fs)); err != nil {
		return err
	}
	mod, s, err := f.load(ctx, fs)
	if err != nil {
		return err
	}
	pred, err := predictAll(ctx, mod, s)
	if err != nil {
		return err
	}
	if f.asJSON {
		out := make([]predictionJSON, len(pred))
		labelled := s.ds.Labelled()
		for i, p := range pred {
			j := predictionJSON{Index: i, Name: s.Names[i], True: s.trueName(i), Label: className(mod, p.Label), Class: p.Label,
				Rejected: p.Rejected, Margin: jnum(p.Margin), Nearest: p.Nearest, Distances: jnums(p.Distances), Probabilities: jnums(p.Probabilities)}
			if labelled {
				ok := p.Label >= 0 && p.Label == s.labels[i]
				j.Correct = &ok
			}
			out[i] = j
		}
		js := map[string]any{
			"predictions":      out,
			"n":                len(out),
			"samples":          sampleWord(s.Kind),
			"classes":          modelClasses(mod),
			"prototype_labels": mod.Labels(),
			"data":             s.ds.Source,
		}
		if labelled {
			js["correct"] = correct(s, pred)
		}
		return writeJSON(e.stdout, js)
	}
	w := e.stdout
	names := modelClasses(mod)
	wn, wl := 6, 5
	for _, n := range s.Names {
		wn = max(wn, len(n))
	}
	for _, n := range names {
		wl = max(wl, len(n))
	}
	p := mod.NumPrototypes()
	labelled := s.ds.Labelled()
	trueCol := func(v string) string {
		if !labelled {
			return ""
		}
		return fmt.Sprintf("%-*s  ", wl, v)
	}
	fmt.Fprintf(w, "%-*s  %s%-*s  %-7s  %s\n", wn, "sample", trueCol("true"), wl, "label", "margin", fmt.Sprintf("distances to the %d prototypes (classes %s)", p, protoClasses(mod)))
	for i, pr := range pred {
		label := className(mod, pr.Label)
		mark := " "
		if labelled && (pr.Label < 0 || pr.Label != s.labels[i]) {
			mark = "*"
		}
		fmt.Fprintf(w, "%-*s  %s%-*s%s %7.4f  %s\n", wn, s.Names[i], trueCol(s.trueName(i)), wl, label, mark, pr.Margin, fmtFloats(pr.Distances, 4))
	}
	if labelled {
		fmt.Fprintf(w, "%d of %d correct (* marks the others)\n", correct(s, pred), len(pred))
	} else {
		fmt.Fprintf(w, "%d samples classified (no labels to score against)\n", len(pred))
	}
	return nil
}

// protoClasses lists the class of every prototype, compactly.
func protoClasses(m *model.Model) string {
	var b strings.Builder
	for k := 0; k < m.NumPrototypes(); k++ {
		if k > 0 {
			b.WriteByte(' ')
		}
		if k == 20 {
			b.WriteString("...")
			break
		}
		b.WriteString(className(m, m.Label(k)))
	}
	return b.String()
}
