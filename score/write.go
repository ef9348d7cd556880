package score

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Formats are the table formats of WriteReport: "text" (aligned columns,
// as scikit-learn's classification_report prints), "csv" (one table, RFC
// 4180) and "latex" (booktabs tabulars). JSON is the Report's own
// encoding (encoding/json), left to the caller with what else it reports.
var Formats = []string{"text", "csv", "latex"}

// Table is one report to write: the report and the confusion matrix of
// its Scores (Scores.Confusion), named by Name in WriteReport's "csv"
// output when several are written (a fold: "1", "2", ..., or "pooled").
//
// Its JSON form is the report's fields and "confusion" (rows: true class;
// columns: predicted class, then rejected).
type Table struct {
	Name      string `json:"-"`
	*Report   `json:""`
	Confusion [][]int `json:"confusion"`
}

// TableOf returns the Table of s named name.
func TableOf(name string, s *Scores) Table {
	return Table{Name: name, Report: s.Report(), Confusion: s.Confusion}
}

// WriteReport writes the tables in format (one of Formats) with the
// classes named names (len(names) = the classes; a missing name is the
// class's index):
//
//   - "text": per table, its name as a heading when there are several,
//     the classification report (precision, recall, F1, support per
//     present class, accuracy, macro and weighted averages) and the
//     confusion matrix (rows: true class, columns: predicted; a
//     "rejected" column when a sample was rejected).
//   - "csv": one table of every table's rows, columns [table,] class,
//     precision, recall, f1, support, then one column per predicted class
//     and "rejected" holding the class's confusion row; the rows of a
//     table are its present classes, then "macro avg", "weighted avg"
//     and "accuracy" (in the f1 column, as scikit-learn prints it). The
//     "table" column is there when there are several tables.
//   - "latex": per table, a tabular of the report and one of the
//     confusion matrix (booktabs' rules), names escaped.
//
// Numbers are written with 4 decimals in text and LaTeX, and in full
// (shortest round-trip form) in CSV.
func WriteReport(w io.Writer, format string, names []string, tables ...Table) error {
	bw := bufio.NewWriter(w)
	switch format {
	case "text":
		for i, t := range tables {
			if i > 0 {
				fmt.Fprintln(bw)
			}
			if len(tables) > 1 {
				fmt.Fprintf(bw, "%s:\n", t.Name)
			}
			writeText(bw, names, t)
		}
	case "csv":
		if err := writeCSV(bw, names, tables); err != nil {
			return err
		}
	case "latex":
		for i, t := range tables {
			if i > 0 {
				fmt.Fprintln(bw)
			}
			writeLaTeX(bw, names, t, len(tables) > 1)
		}
	default:
		return fmt.Errorf("score: format %q: want one of %s", format, strings.Join(Formats, ", "))
	}
	return bw.Flush()
}

// name is class c's name.
func name(names []string, c int) string {
	if c < len(names) && names[c] != "" {
		return names[c]
	}
	return strconv.Itoa(c)
}

// rejectedAny reports whether a confusion row counts a rejection.
func rejectedAny(conf [][]int, classes int) bool {
	for _, row := range conf {
		if len(row) > classes && row[classes] > 0 {
			return true
		}
	}
	return false
}

func writeText(w io.Writer, names []string, t Table) {
	r := t.Report
	wn := len("weighted avg")
	for c := range r.Classes {
		wn = max(wn, len(name(names, c)))
	}
	fmt.Fprintf(w, "%*s %10s %10s %10s %8s\n", wn, "", "precision", "recall", "f1-score", "support")
	for c, cr := range r.Classes {
		if cr.Present {
			fmt.Fprintf(w, "%*s %10.4f %10.4f %10.4f %8d\n", wn, name(names, c), cr.Precision, cr.Recall, cr.F1, cr.Support)
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%*s %10s %10s %10.4f %8d\n", wn, "accuracy", "", "", r.Accuracy, r.N)
	fmt.Fprintf(w, "%*s %10.4f %10.4f %10.4f %8d\n", wn, "macro avg", r.Macro.Precision, r.Macro.Recall, r.Macro.F1, r.Macro.Support)
	fmt.Fprintf(w, "%*s %10.4f %10.4f %10.4f %8d\n", wn, "weighted avg", r.Weighted.Precision, r.Weighted.Recall, r.Weighted.F1, r.Weighted.Support)
	if r.Rejected > 0 || r.Unknown > 0 {
		fmt.Fprintf(w, "(%d rejected: in their class's support, never correct; %d of classes the classifier does not know: in the accuracy's count, in no class's support)\n", r.Rejected, r.Unknown)
	}
	fmt.Fprintln(w, "\nconfusion matrix (rows: true class, columns: predicted):")
	k := len(r.Classes)
	rej := rejectedAny(t.Confusion, k)
	short := func(s string) string {
		if len(s) > 8 {
			return s[:8]
		}
		return s
	}
	cw, wn := 4, 5
	for c := range k {
		wn = max(wn, len(name(names, c)))
		cw = max(cw, len(short(name(names, c)))+1)
		for _, v := range t.Confusion[c] {
			cw = max(cw, len(strconv.Itoa(v))+1)
		}
	}
	fmt.Fprintf(w, "  %-*s", wn, "")
	for c := range k {
		fmt.Fprintf(w, "%*s", cw, short(name(names, c)))
	}
	if rej {
		fmt.Fprintf(w, "%*s", cw+1, "rej.")
	}
	fmt.Fprintln(w)
	for c := range k {
		row := t.Confusion[c]
		fmt.Fprintf(w, "  %-*s", wn, name(names, c))
		for _, v := range row[:k] {
			fmt.Fprintf(w, "%*d", cw, v)
		}
		if rej {
			fmt.Fprintf(w, "%*d", cw+1, row[k])
		}
		fmt.Fprintln(w)
	}
}

// csvWriter writes RFC 4180 records (encoding/csv's rules: a field with
// a comma, quote, CR or LF, a leading space, or `\.` alone, is quoted, its quotes
// doubled; lines end in LF), kept here so that package model, which
// imports score, does not bring encoding/csv into the edge binary.
type csvWriter struct{ w io.Writer }

func (c csvWriter) Write(rec []string) error {
	var b strings.Builder
	for i, f := range rec {
		if i > 0 {
			b.WriteByte(',')
		}
		if r, _ := utf8.DecodeRuneInString(f); f == "" || !strings.ContainsAny(f, ",\"\r\n") && !unicode.IsSpace(r) && f != `\.` {
			b.WriteString(f)
			continue
		}
		b.WriteByte('"')
		b.WriteString(strings.ReplaceAll(f, `"`, `""`))
		b.WriteByte('"')
	}
	b.WriteByte('\n')
	_, err := io.WriteString(c.w, b.String())
	return err
}

func writeCSV(w io.Writer, names []string, tables []Table) error {
	cw := csvWriter{w}
	many := len(tables) > 1
	k := 0
	if len(tables) > 0 {
		k = len(tables[0].Report.Classes)
	}
	head := []string{"class", "precision", "recall", "f1", "support"}
	if many {
		head = append([]string{"table"}, head...)
	}
	for c := range k {
		head = append(head, "predicted "+name(names, c))
	}
	head = append(head, "rejected")
	if err := cw.Write(head); err != nil {
		return err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, t := range tables {
		r := t.Report
		row := func(cells ...string) error {
			if many {
				cells = append([]string{t.Name}, cells...)
			}
			for len(cells) < len(head) {
				cells = append(cells, "")
			}
			return cw.Write(cells)
		}
		for c, cr := range r.Classes {
			if !cr.Present {
				continue
			}
			cells := []string{name(names, c), f(cr.Precision), f(cr.Recall), f(cr.F1), strconv.Itoa(cr.Support)}
			for j := range k + 1 {
				v := 0
				if j < len(t.Confusion[c]) {
					v = t.Confusion[c][j]
				}
				cells = append(cells, strconv.Itoa(v))
			}
			if err := row(cells...); err != nil {
				return err
			}
		}
		for _, a := range []struct {
			n string
			m Metrics
		}{{"macro avg", r.Macro}, {"weighted avg", r.Weighted}} {
			if err := row(a.n, f(a.m.Precision), f(a.m.Recall), f(a.m.F1), strconv.Itoa(a.m.Support)); err != nil {
				return err
			}
		}
		if err := row("accuracy", "", "", f(r.Accuracy), strconv.Itoa(r.N)); err != nil {
			return err
		}
	}
	return nil
}

// latexEscaper escapes the characters LaTeX treats specially.
var latexEscaper = strings.NewReplacer(
	`\`, `\textbackslash{}`, `{`, `\{`, `}`, `\}`, `$`, `\$`, `&`, `\&`, `#`, `\#`,
	`^`, `\textasciicircum{}`, `_`, `\_`, `%`, `\%`, `~`, `\textasciitilde{}`)

func writeLaTeX(w io.Writer, names []string, t Table, named bool) {
	r := t.Report
	title := ""
	if named {
		title = " (" + latexEscaper.Replace(t.Name) + ")"
	}
	fmt.Fprintf(w, "%% classification report%s; needs \\usepackage{booktabs}\n", title)
	fmt.Fprintln(w, `\begin{tabular}{lrrrr}`)
	fmt.Fprintln(w, `\toprule`)
	fmt.Fprintln(w, `Class & Precision & Recall & F$_1$ & Support \\`)
	fmt.Fprintln(w, `\midrule`)
	for c, cr := range r.Classes {
		if cr.Present {
			fmt.Fprintf(w, "%s & %.4f & %.4f & %.4f & %d \\\\\n", latexEscaper.Replace(name(names, c)), cr.Precision, cr.Recall, cr.F1, cr.Support)
		}
	}
	fmt.Fprintln(w, `\midrule`)
	fmt.Fprintf(w, "Accuracy & & & %.4f & %d \\\\\n", r.Accuracy, r.N)
	fmt.Fprintf(w, "Macro avg & %.4f & %.4f & %.4f & %d \\\\\n", r.Macro.Precision, r.Macro.Recall, r.Macro.F1, r.Macro.Support)
	fmt.Fprintf(w, "Weighted avg & %.4f & %.4f & %.4f & %d \\\\\n", r.Weighted.Precision, r.Weighted.Recall, r.Weighted.F1, r.Weighted.Support)
	fmt.Fprintln(w, `\bottomrule`)
	fmt.Fprintln(w, `\end{tabular}`)
	k := len(r.Classes)
	rej := rejectedAny(t.Confusion, k)
	cols := k
	if rej {
		cols++
	}
	fmt.Fprintf(w, "\n%% confusion matrix%s: rows true class, columns predicted class\n", title)
	fmt.Fprintf(w, "\\begin{tabular}{l%s}\n\\toprule\n", strings.Repeat("r", cols))
	fmt.Fprint(w, `True \textbackslash{} predicted`)
	for c := range k {
		fmt.Fprintf(w, " & %s", latexEscaper.Replace(name(names, c)))
	}
	if rej {
		fmt.Fprint(w, " & rejected")
	}
	fmt.Fprintln(w, ` \\`)
	fmt.Fprintln(w, `\midrule`)
	for c := range k {
		fmt.Fprint(w, latexEscaper.Replace(name(names, c)))
		for j := range cols {
			fmt.Fprintf(w, " & %d", t.Confusion[c][j])
		}
		fmt.Fprintln(w, ` \\`)
	}
	fmt.Fprintln(w, `\bottomrule`)
	fmt.Fprintln(w, `\end{tabular}`)
}
