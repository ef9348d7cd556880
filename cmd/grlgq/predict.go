package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
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
	if err := f.check(fs, g); err != nil {
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
		printPredictions(&b, mod, tab)
	}
	if err != nil {
		return err
	}
	if out == "" {
		_, err = e.stdout.Write(b.Bytes())
		return err
	}
	if err := g.Write(out, b.Bytes()); err != nil {
		return err
	}
	if err := g.Commit(); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %d predictions (%s) to %s%s\n", tab.N, format, out, scored(tab))
	return nil
}

// scored says how many predictions of labelled data are correct.
func scored(t *predict.Table) string {
	if !t.Labelled {
		return " (no labels to score against)"
	}
	return fmt.Sprintf(": %d correct (%s)", t.Correct, pct(float64(t.Correct)/float64(max(t.N, 1))))
}

// printPredictions writes the table as text: one line per sample, its
// probabilities as columns for up to 8 classes (else the three likeliest).
func printPredictions(w io.Writer, m *model.Model, t *predict.Table) {
	wn, wl := 4, 9
	for _, r := range t.Rows {
		wn = max(wn, len(r.Name))
	}
	for _, n := range t.Classes {
		wl = max(wl, len(n))
	}
	col := func(v string) string { return fmt.Sprintf("%-*s  ", wl, v) }
	head := fmt.Sprintf("%5s  %-*s  ", "index", wn, "name")
	if t.Labelled {
		head += col("true")
	}
	head += col("predicted") + fmt.Sprintf("%-3s  %-6s  ", "rej", "margin")
	if t.Labelled {
		head += fmt.Sprintf("%-7s  ", "μ")
	}
	few := len(t.Classes) <= 8
	if few {
		for _, c := range t.Classes {
			head += fmt.Sprintf("%*s  ", max(6, len(c)+2), "p("+c+")")
		}
	} else {
		head += "likeliest classes"
	}
	fmt.Fprintln(w, strings.TrimRight(head, " "))
	for _, r := range t.Rows {
		line := fmt.Sprintf("%5d  %-*s  ", r.Index, wn, r.Name)
		if t.Labelled {
			line += col(r.True)
		}
		mark, rej := " ", ""
		if r.Correct != nil && !*r.Correct {
			mark = "*"
		}
		if r.Rejected {
			rej = "yes"
		}
		line += fmt.Sprintf("%-*s%s %-3s  %6.4f  ", wl, r.Predicted, mark, rej, r.Margin)
		if t.Labelled {
			mu := "-"
			if r.Mu != nil {
				mu = fmt.Sprintf("%+.4f", *r.Mu)
			}
			line += fmt.Sprintf("%-7s  ", mu)
		}
		if few {
			for c, p := range r.Probabilities {
				line += fmt.Sprintf("%*.4f  ", max(6, len(t.Classes[c])+2), p)
			}
		} else {
			line += likeliest(t.Classes, r.Probabilities, 3)
		}
		fmt.Fprintln(w, strings.TrimRight(line, " "))
	}
	fmt.Fprintf(w, "margin: label-free, (δ₂−δ₁)/(δ₂+δ₁) of the two nearest classes (%d prototypes, reject below %g)", m.NumPrototypes(), m.PredictConfig().RejectMargin)
	if t.Labelled {
		fmt.Fprintf(w, "; μ = (d⁺−d⁻)/(d⁺+d⁻) for the true class, < 0 when right\n%d of %d correct (* marks the others)\n", t.Correct, t.N)
	} else {
		fmt.Fprintf(w, "\n%d samples classified (no labels to score against)\n", t.N)
	}
}

// likeliest lists the k classes of largest probability, as "name 0.93".
func likeliest(classes []string, p []float64, k int) string {
	idx := make([]int, len(p))
	for i := range idx {
		idx[i] = i
	}
	var parts []string
	for n := 0; n < min(k, len(idx)); n++ {
		best := n
		for j := n + 1; j < len(idx); j++ {
			if p[idx[j]] > p[idx[best]] {
				best = j
			}
		}
		idx[n], idx[best] = idx[best], idx[n]
		parts = append(parts, fmt.Sprintf("%s %.4f", classes[idx[n]], p[idx[n]]))
	}
	return strings.Join(parts, ", ")
}
