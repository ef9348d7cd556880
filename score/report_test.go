package score

import (
	"bytes"
	"encoding/csv"
	"math"
	"strings"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12 }

func checkMetrics(t *testing.T, what string, got Metrics, p, r, f1 float64, support int) {
	t.Helper()
	if !near(got.Precision, p) || !near(got.Recall, r) || !near(got.F1, f1) || got.Support != support {
		t.Errorf("%s: got %+v, want P %.6g R %.6g F1 %.6g support %d", what, got, p, r, f1, support)
	}
}

// TestReportScikitLearn: the example of scikit-learn's
// classification_report documentation, y_true = [0, 1, 2, 2, 2], y_pred =
// [0, 0, 2, 2, 1], which prints
//
//	              precision    recall  f1-score   support
//	     class 0       0.50      1.00      0.67         1
//	     class 1       0.00      0.00      0.00         1
//	     class 2       1.00      0.67      0.80         3
//	    accuracy                           0.60         5
//	   macro avg       0.50      0.56      0.49         5
//	weighted avg       0.70      0.60      0.61         5
//
// here checked against the exact fractions.
func TestReportScikitLearn(t *testing.T) {
	r := Count(3, []int{0, 1, 2, 2, 2}, []int{0, 0, 2, 2, 1}).Report()
	checkMetrics(t, "class 0", r.Classes[0].Metrics, 0.5, 1, 2.0/3, 1)
	checkMetrics(t, "class 1", r.Classes[1].Metrics, 0, 0, 0, 1)
	checkMetrics(t, "class 2", r.Classes[2].Metrics, 1, 2.0/3, 0.8, 3)
	checkMetrics(t, "macro", r.Macro, 0.5, (1+2.0/3)/3, (2.0/3+0.8)/3, 5)
	checkMetrics(t, "weighted", r.Weighted, (0.5+3)/5, 3.0/5, (2.0/3+3*0.8)/5, 5)
	if !near(r.Accuracy, 0.6) || r.N != 5 || r.Correct != 3 {
		t.Errorf("accuracy %v, n %d, correct %d", r.Accuracy, r.N, r.Correct)
	}
	var b bytes.Buffer
	if err := WriteReport(&b, "text", []string{"class 0", "class 1", "class 2"}, TableOf("", Count(3, []int{0, 1, 2, 2, 2}, []int{0, 0, 2, 2, 1}))); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"     class 0     0.5000     1.0000     0.6667        1",
		"    accuracy                           0.6000        5",
		"   macro avg     0.5000     0.5556     0.4889        5",
		"weighted avg     0.7000     0.6000     0.6133        5",
	} {
		if !strings.Contains(b.String(), want+"\n") {
			t.Errorf("text report lacks %q:\n%s", want, b.String())
		}
	}
}

// TestReportZeroDivision: a class never predicted has precision 0, a
// class of the classifier without samples or predictions enters no
// average (scikit-learn's default labels, zero_division=0):
// classification_report([0, 0, 1], [0, 0, 0], zero_division=0).
func TestReportZeroDivision(t *testing.T) {
	r := Count(3, []int{0, 0, 1}, []int{0, 0, 0}).Report()
	checkMetrics(t, "class 0", r.Classes[0].Metrics, 2.0/3, 1, 0.8, 2)
	checkMetrics(t, "class 1 (never predicted)", r.Classes[1].Metrics, 0, 0, 0, 1)
	checkMetrics(t, "class 2 (absent)", r.Classes[2].Metrics, 0, 0, 0, 0)
	if !r.Classes[0].Present || !r.Classes[1].Present || r.Classes[2].Present {
		t.Errorf("present %v %v %v", r.Classes[0].Present, r.Classes[1].Present, r.Classes[2].Present)
	}
	checkMetrics(t, "macro", r.Macro, 1.0/3, 0.5, 0.4, 3)
	checkMetrics(t, "weighted", r.Weighted, 4.0/9, 2.0/3, 1.6/3, 3)
	// A class predicted but without samples: recall 0, in the macro.
	r = Count(2, []int{0, 0}, []int{0, 1}).Report()
	checkMetrics(t, "class 1 (no samples)", r.Classes[1].Metrics, 0, 0, 0, 0)
	checkMetrics(t, "macro", r.Macro, 0.5, 0.25, 1.0/3, 2)
	checkMetrics(t, "weighted", r.Weighted, 1, 0.5, 2.0/3, 2)
	// Nothing at all: zeros, no NaN.
	r = Count(2, nil, nil).Report()
	checkMetrics(t, "empty macro", r.Macro, 0, 0, 0, 0)
	checkMetrics(t, "empty weighted", r.Weighted, 0, 0, 0, 0)
	if r.Accuracy != 0 {
		t.Errorf("empty accuracy %v", r.Accuracy)
	}
}

// TestReportRejectedUnknown: a rejection counts against its class's
// recall and in no precision; a sample of an unknown class against the
// precision of the class it was given (classification_report(y_true,
// y_pred, labels=[0, 1], zero_division=0) with y_true = [0, 0, 1, -1, 5],
// y_pred = [0, -1, 1, 1, 0]).
func TestReportRejectedUnknown(t *testing.T) {
	s := Count(2, []int{0, 0, 1, -1, 5}, []int{0, Rejected, 1, 1, 0})
	r := s.Report()
	checkMetrics(t, "class 0", r.Classes[0].Metrics, 0.5, 0.5, 0.5, 2)
	checkMetrics(t, "class 1", r.Classes[1].Metrics, 0.5, 1, 2.0/3, 1)
	checkMetrics(t, "macro", r.Macro, 0.5, 0.75, (0.5+2.0/3)/2, 3)
	checkMetrics(t, "weighted", r.Weighted, 0.5, 2.0/3, (1+2.0/3)/3, 3)
	if !near(r.Accuracy, 0.4) || r.Rejected != 1 || r.Unknown != 2 {
		t.Errorf("accuracy %v rejected %d unknown %d", r.Accuracy, r.Rejected, r.Unknown)
	}
	// The text says where each kind counts: a rejection in its class's
	// support (class 0 has 2), an unknown class in none.
	var b bytes.Buffer
	if err := WriteReport(&b, "text", nil, TableOf("", s)); err != nil {
		t.Fatal(err)
	}
	if want := "(1 rejected: in their class's support, never correct; 2 of classes the classifier does not know: in the accuracy's count, in no class's support)\n"; !strings.Contains(b.String(), want) {
		t.Errorf("text report lacks %q:\n%s", want, b.String())
	}
}

// TestPool: pooling the scores of parts is scoring the whole.
func TestPool(t *testing.T) {
	truth := []int{0, 0, 1, 2, 2, -1, 1, 0, 2}
	pred := []int{0, 1, 1, Rejected, 2, 0, 1, 2, 2}
	whole := Count(3, truth, pred)
	pooled := Pool(Count(3, truth[:4], pred[:4]), Count(3, truth[4:], pred[4:]), Count(3, nil, nil))
	if a, b := whole.Report(), pooled.Report(); !equalReports(a, b) || !equalInts(whole.Confusion, pooled.Confusion) {
		t.Errorf("pooled %+v\nwhole %+v", b, a)
	}
	if Pool() != nil {
		t.Error("Pool of nothing")
	}
	defer func() {
		if recover() == nil {
			t.Error("pooling 2 and 3 classes did not panic")
		}
	}()
	Pool(Count(2, nil, nil), Count(3, nil, nil))
}

func equalReports(a, b *Report) bool {
	if len(a.Classes) != len(b.Classes) || a.Macro != b.Macro || a.Weighted != b.Weighted || a.Accuracy != b.Accuracy || a.N != b.N || a.Rejected != b.Rejected || a.Unknown != b.Unknown {
		return false
	}
	for c := range a.Classes {
		if a.Classes[c] != b.Classes[c] {
			return false
		}
	}
	return true
}

func equalInts(a, b [][]int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if a[i][j] != b[i][j] {
				return false
			}
		}
	}
	return true
}

// TestWriteReport: CSV reads back as one rectangular table whose numbers
// are the report's; LaTeX escapes the names; an unknown format is an
// error.
func TestWriteReport(t *testing.T) {
	names := []string{"cup_1", "50%&more", "dog"}
	s := Count(3, []int{0, 1, 1, 2}, []int{0, 1, Rejected, 0})
	var b bytes.Buffer
	if err := WriteReport(&b, "csv", names, TableOf("1", s), TableOf("pooled", Pool(s, s))); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatalf("CSV does not read back: %v", err)
	}
	wantHead := "table,class,precision,recall,f1,support,predicted cup_1,predicted 50%&more,predicted dog,rejected"
	if strings.Join(rows[0], ",") != wantHead || len(rows) != 1+2*(3+3) {
		t.Fatalf("CSV: %q", rows)
	}
	if got := strings.Join(rows[2], ","); got != "1,50%&more,1,0.5,0.6666666666666666,2,0,1,0,1" {
		t.Errorf("class row %q", got)
	}
	if got := strings.Join(rows[6], ","); got != "1,accuracy,,,0.5,4,,,," {
		t.Errorf("accuracy row %q", got)
	}
	if got := rows[8][0] + "," + rows[8][5]; got != "pooled,4" {
		t.Errorf("pooled row %q", rows[8])
	}
	b.Reset()
	if err := WriteReport(&b, "latex", names, TableOf("", s)); err != nil {
		t.Fatal(err)
	}
	tex := b.String()
	for _, want := range []string{`cup\_1 & 0.5000 & 1.0000 & 0.6667 & 1 \\`, `50\%\&more & 1.0000 & 0.5000 & 0.6667 & 2 \\`, `& rejected \\`, `dog & 1 & 0 & 0 & 0 \\`, `\end{tabular}`} {
		if !strings.Contains(tex, want) {
			t.Errorf("LaTeX lacks %q:\n%s", want, tex)
		}
	}
	if strings.Count(tex, `\begin{tabular}`) != 2 || strings.Count(tex, `\end{tabular}`) != 2 {
		t.Errorf("LaTeX tabulars unbalanced:\n%s", tex)
	}
	if err := WriteReport(&b, "xml", names); err == nil {
		t.Error("format xml accepted")
	}
}

// TestCSVQuoting: the CSV writer quotes as encoding/csv does.
func TestCSVQuoting(t *testing.T) {
	var b bytes.Buffer
	rec := []string{"plain", "a,b", `say "hi"`, " lead", "\u00a0nbsp", "line\nbreak", "", "tab\tin", `\.`}
	if err := (csvWriter{&b}).Write(rec); err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	w := csv.NewWriter(&want)
	w.Write(rec)
	w.Flush()
	if b.String() != want.String() {
		t.Errorf("got %q, want %q", b.String(), want.String())
	}
	got, err := csv.NewReader(&b).Read()
	if err != nil || strings.Join(got, "|") != strings.Join(rec, "|") {
		t.Errorf("read back %q, %v", got, err)
	}
}
