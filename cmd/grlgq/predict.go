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
		for i, p := range pred {
			j := predictionJSON{Index: i, Name: s.names[i], True: s.ds.Classes[s.data[i]], Label: className(mod, p.Label), Class: p.Label,
				Rejected: p.Rejected, Margin: jnum(p.Margin), Nearest: p.Nearest, Distances: jnums(p.Distances), Probabilities: jnums(p.Probabilities)}
			ok := p.Label >= 0 && p.Label == s.labels[i]
			j.Correct = &ok
			out[i] = j
		}
		return writeJSON(e.stdout, map[string]any{
			"predictions":      out,
			"n":                len(out),
			"correct":          scorePredictions(mod.NumClasses(), s.labels, pred).Correct,
			"samples":          s.kind,
			"classes":          modelClasses(mod),
			"prototype_labels": mod.Labels(),
			"data":             s.ds.Source,
		})
	}
	w := e.stdout
	names := modelClasses(mod)
	wn, wl := 6, 5
	for _, n := range s.names {
		wn = max(wn, len(n))
	}
	for _, n := range names {
		wl = max(wl, len(n))
	}
	p := mod.NumPrototypes()
	fmt.Fprintf(w, "%-*s  %-*s  %-*s  %-7s  %s\n", wn, "sample", wl, "true", wl, "label", "margin", fmt.Sprintf("distances to the %d prototypes (classes %s)", p, protoClasses(mod)))
	for i, pr := range pred {
		label := className(mod, pr.Label)
		mark := " "
		if pr.Label < 0 || pr.Label != s.labels[i] {
			mark = "*"
		}
		fmt.Fprintf(w, "%-*s  %-*s  %-*s%s %7.4f  %s\n", wn, s.names[i], wl, s.ds.Classes[s.data[i]], wl, label, mark, pr.Margin, fmtFloats(pr.Distances, 4))
	}
	fmt.Fprintf(w, "%d of %d correct (* marks the others)\n", scorePredictions(mod.NumClasses(), s.labels, pred).Correct, len(pred))
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
