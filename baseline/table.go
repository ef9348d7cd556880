package baseline

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Table is a plain table of text cells: a header and rows of the same
// width. WriteText aligns it for a terminal, WriteCSV writes RFC 4180 CSV;
// JSON is the Result itself (encoding/json).
type Table struct {
	Header []string
	Rows   [][]string
}

// WriteText writes the table with columns separated by two spaces, the
// first column left-aligned and the others right-aligned (numbers), widths
// counted in runes, no trailing spaces.
func (t *Table) WriteText(w io.Writer) error {
	width := make([]int, len(t.Header))
	for _, row := range append([][]string{t.Header}, t.Rows...) {
		for c, s := range row {
			if c < len(width) {
				width[c] = max(width[c], utf8.RuneCountInString(s))
			}
		}
	}
	var b, line strings.Builder
	for _, row := range append([][]string{t.Header}, t.Rows...) {
		line.Reset()
		for c, s := range row {
			if c >= len(width) {
				break
			}
			pad := strings.Repeat(" ", width[c]-utf8.RuneCountInString(s))
			if c == 0 {
				line.WriteString(s)
				line.WriteString(pad)
			} else {
				line.WriteString("  ")
				line.WriteString(pad)
				line.WriteString(s)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteCSV writes the header and the rows as CSV.
func (t *Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(t.Header); err != nil {
		return err
	}
	if err := cw.WriteAll(t.Rows); err != nil {
		return err
	}
	return cw.Error()
}

// pct formats an accuracy (or a difference of accuracies) in per cent
// with two decimals.
func pct(v float64) string { return strconv.FormatFloat(100*v, 'f', 2, 64) }

// Summary is the table of the methods' mean and sd over the splits (per
// cent), with the reference first and, when there is one, every method's
// paired difference to it (method − reference) with its standard error
// and the corrected one (Paired), and its wins/ties/losses.
//
// With one split the standard deviations and errors are undefined: their
// cells say "n/a" (and the JSON has null).
func (r *Result) Summary() *Table {
	t := &Table{Header: []string{"method", "mean %", "sd"}}
	spread := func(v float64) string {
		if r.Splits < 2 {
			return "n/a"
		}
		return pct(v)
	}
	ref := r.Reference
	if ref != nil {
		t.Header = append(t.Header, "diff", "se", "se corr", "w/t/l")
		t.Rows = append(t.Rows, []string{ref.Name, pct(ref.Mean), spread(ref.SD), "", "", "", ""})
	}
	for _, m := range r.Methods {
		row := []string{m.Name, pct(m.Mean), spread(m.SD)}
		if ref != nil {
			v := m.Versus
			row = append(row, signed(v.Mean), spread(v.SE), spread(v.SECorrected), fmt.Sprintf("%d/%d/%d", v.Wins, v.Ties, v.Losses))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func signed(v float64) string {
	s := pct(v)
	if v >= 0 {
		s = "+" + s
	}
	return s
}

// PerSplit is the table of every split's accuracy (per cent): one row per
// split, one column per method (the reference first, when there is one),
// then, for each tuned method, the parameter each split used ("SVM C",
// "GDA reg").
func (r *Result) PerSplit() *Table {
	t := &Table{Header: []string{"split"}}
	if r.Reference != nil {
		t.Header = append(t.Header, r.Reference.Name)
	}
	var tuned []*MethodResult
	for i, m := range r.Methods {
		t.Header = append(t.Header, m.Name)
		if m.Tuned != nil {
			tuned = append(tuned, &r.Methods[i])
		}
	}
	for _, m := range tuned {
		t.Header = append(t.Header, strings.ToUpper(m.Method.String())+" "+m.Method.ParamName())
	}
	for f := range r.Splits {
		row := []string{strconv.Itoa(f + 1)}
		if r.Reference != nil {
			row = append(row, pct(r.Reference.Accuracy[f]))
		}
		for _, m := range r.Methods {
			row = append(row, pct(m.Accuracy[f]))
		}
		for _, m := range tuned {
			row = append(row, strconv.FormatFloat(m.Tuned[f].Param, 'g', -1, 64))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// WriteText writes the summary (mean ± sd, and with a reference the
// paired differences to it) and the per-split table, as the command
// line prints them.
func (r *Result) WriteText(w io.Writer) error {
	ref := "the reference"
	if r.Reference != nil {
		ref = r.Reference.Name
	}
	if r.Splits < 2 {
		fmt.Fprintf(w, "\nbaselines on the same split (diff: method − %s; one split: no sd or standard error)\n", ref)
	} else {
		fmt.Fprintf(w, "\nbaselines on the same %d splits (diff: method − %s, paired; se corr: Nadeau–Bengio)\n", r.Splits, ref)
	}
	if err := r.Summary().WriteText(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	return r.PerSplit().WriteText(w)
}

// MarshalJSON writes the row with "sd": null when there is one split (a
// standard deviation is undefined); the fields are otherwise the struct's.
func (m MethodResult) MarshalJSON() ([]byte, error) {
	type plain MethodResult
	if len(m.Accuracy) > 1 {
		return json.Marshal(plain(m))
	}
	return json.Marshal(struct {
		plain
		SD *float64 `json:"sd"`
	}{plain: plain(m)})
}

// MarshalJSON writes the comparison with "se" and "se_corrected" null when
// there is one split.
func (p Paired) MarshalJSON() ([]byte, error) {
	type plain Paired
	if len(p.Diff) > 1 {
		return json.Marshal(plain(p))
	}
	return json.Marshal(struct {
		plain
		SE          *float64 `json:"se"`
		SECorrected *float64 `json:"se_corrected"`
	}{plain: plain(p)})
}

// MarshalJSON writes the reference with "sd": null when there is one split.
func (r Reference) MarshalJSON() ([]byte, error) {
	type plain Reference
	if len(r.Accuracy) > 1 {
		return json.Marshal(plain(r))
	}
	return json.Marshal(struct {
		plain
		SD *float64 `json:"sd"`
	}{plain: plain(r)})
}
