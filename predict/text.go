package predict

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// WriteText writes the table as aligned text for people: one line per
// sample (index, name, true class, predicted class, * when wrong, rej when
// rejected, margin, μ), its probabilities as columns for up to 8 classes
// (else the three likeliest), a legend and the count of correct samples
// (and of those not scored: NewTable).
func (t *Table) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	w = bw
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
	fmt.Fprintf(w, "margin: label-free, (δ₂−δ₁)/(δ₂+δ₁) of the two nearest classes (reject below %g)", t.RejectMargin)
	if t.Labelled {
		fmt.Fprint(w, "; μ = (d⁺−d⁻)/(d⁺+d⁻) for the true class, < 0 when right")
	}
	fmt.Fprintln(w)
	switch unknown := strings.Join(t.Unknown, ", "); {
	case !t.Labelled:
		fmt.Fprintf(w, "%d samples classified (no labels to score against)\n", t.N)
	case t.Unscored == 0:
		fmt.Fprintf(w, "%d of %d correct (* marks the others)\n", t.Correct, t.N)
	case t.Unscored < t.N:
		fmt.Fprintf(w, "%d of %d correct (* marks the others); %d not scored (classes the model does not know: %s)\n", t.Correct, t.N-t.Unscored, t.Unscored, unknown)
	default:
		fmt.Fprintf(w, "%d samples classified, none scored (classes the model does not know: %s)\n", t.N, unknown)
	}
	return bw.Flush()
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
