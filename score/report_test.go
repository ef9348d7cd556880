package score

import (
	"bytes"
	"encoding/csv"
	"math"
	"slices"
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

// TestReportMatchesScikitLearn: reports bit for bit equal to
// scikit-learn 1.2.1's precision_recall_fscore_support(y_true, y_pred,
// labels=PRESENT, zero_division=0) per class and with average="macro"
// and "weighted", and accuracy_score, printed with repr. A true class
// outside 0..C-1 was given to scikit-learn as 1000+label, a rejection as
// -1 (neither in PRESENT). The cases: classes never predicted, classes
// predicted but absent from the truth, one true class, rejections (all
// rejected too), unknown true classes, and random vectors (PCG 1, 2).
func TestReportMatchesScikitLearn(t *testing.T) {
	for _, c := range []struct {
		name        string
		classes     int
		truth, pred []int
		present     []int
		p, r, f1    []float64
		support     []int
		macro, wavg []float64 // precision, recall, F1
		accuracy    float64
	}{
		{"never_predicted", 4, []int{0, 1, 2, 3, 3, 2, 1, 0}, []int{0, 0, 2, 2, 2, 2, 0, 0},
			[]int{0, 1, 2, 3}, []float64{0.5, 0.0, 0.5, 0.0}, []float64{1.0, 0.0, 1.0, 0.0}, []float64{0.6666666666666666, 0.0, 0.6666666666666666, 0.0}, []int{2, 2, 2, 2},
			[]float64{0.25, 0.5, 0.3333333333333333}, []float64{0.25, 0.5, 0.3333333333333333}, 0.5},
		{"absent_from_truth", 4, []int{0, 0, 1, 1, 1, 0}, []int{0, 3, 1, 2, 1, 3},
			[]int{0, 1, 2, 3}, []float64{1.0, 1.0, 0.0, 0.0}, []float64{0.3333333333333333, 0.6666666666666666, 0.0, 0.0}, []float64{0.5, 0.8, 0.0, 0.0}, []int{3, 3, 0, 0},
			[]float64{0.5, 0.25, 0.325}, []float64{1.0, 0.5, 0.65}, 0.5},
		{"single_class_wrong", 3, []int{1, 1, 1}, []int{1, 0, 2},
			[]int{0, 1, 2}, []float64{0.0, 1.0, 0.0}, []float64{0.0, 0.3333333333333333, 0.0}, []float64{0.0, 0.5, 0.0}, []int{0, 3, 0},
			[]float64{0.3333333333333333, 0.1111111111111111, 0.16666666666666666}, []float64{1.0, 0.3333333333333333, 0.5}, 0.3333333333333333},
		{"rejected", 3, []int{0, 1, 2, 2, 1, 0, 0}, []int{0, -1, 2, -1, 1, -1, 1},
			[]int{0, 1, 2}, []float64{1.0, 0.5, 1.0}, []float64{0.3333333333333333, 0.5, 0.5}, []float64{0.5, 0.5, 0.6666666666666666}, []int{3, 2, 2},
			[]float64{0.8333333333333334, 0.4444444444444444, 0.5555555555555555}, []float64{0.8571428571428571, 0.42857142857142855, 0.5476190476190476}, 0.42857142857142855},
		{"all_rejected", 2, []int{0, 1, 1}, []int{-1, -1, -1},
			[]int{0, 1}, []float64{0.0, 0.0}, []float64{0.0, 0.0}, []float64{0.0, 0.0}, []int{1, 2},
			[]float64{0.0, 0.0, 0.0}, []float64{0.0, 0.0, 0.0}, 0.0},
		{"unknown_truth", 3, []int{0, 1, -1, 2, 5, 2}, []int{0, 1, 2, 2, 0, -1},
			[]int{0, 1, 2}, []float64{0.5, 1.0, 0.5}, []float64{1.0, 1.0, 0.5}, []float64{0.6666666666666666, 1.0, 0.5}, []int{1, 1, 2},
			[]float64{0.6666666666666666, 0.8333333333333334, 0.7222222222222222}, []float64{0.625, 0.75, 0.6666666666666666}, 0.5},
		{"random1", 5, []int{4, 0, 1, 1, 3, 2, 3, 0, 1, 3, 3, 4, 4, 4, 3, 0, 2, 2, 4, 2, 4, 1, 2, 4, 1, 1, 2, 2, 4, 2, 3, 2, 4, 0, 2, 4, 2, 1, 2, 1, 4, 1, 0, 0, 3, 3, 0, 3, 4, 2, 4, 3, 3, 4, 0, 0, 1, 4, 1, 3, 0, 0, 1, 2, 2, 3, 3, 3, 2, 3, 4, 1, 2, 0, 0, 1, 3}, []int{4, 0, 1, 1, 3, 4, 2, 0, 1, 3, 3, 4, 4, 4, 4, 0, 2, 3, 4, 2, 3, -1, 2, -1, 1, 1, 2, 4, 4, 1, 1, 2, 4, -1, 2, 4, 3, 2, 1, 1, -1, -1, 2, 0, 3, 3, 0, 3, 0, 2, 4, 3, 3, 4, 0, 0, 1, 4, 1, 3, 0, 0, 1, 2, 2, 3, 4, 2, 0, 3, 4, 1, 4, 0, 0, 4, 3},
			[]int{0, 1, 2, 3, 4}, []float64{0.8461538461538461, 0.7692307692307693, 0.6923076923076923, 0.8, 0.6666666666666666}, []float64{0.8461538461538461, 0.7142857142857143, 0.5294117647058824, 0.7058823529411765, 0.75}, []float64{0.8461538461538461, 0.7407407407407408, 0.5999999999999999, 0.7500000000000001, 0.7058823529411765}, []int{13, 14, 17, 17, 16},
			[]float64{0.7548717948717948, 0.7091467356173239, 0.7285553879671527}, []float64{0.7507159507159508, 0.7012987012987013, 0.7222660781484311}, 0.7012987012987013},
	} {
		r := Count(c.classes, c.truth, c.pred).Report()
		var present []int
		for k, cr := range r.Classes {
			if cr.Present {
				present = append(present, k)
			}
		}
		if !slices.Equal(present, c.present) {
			t.Errorf("%s: present classes %v, want %v", c.name, present, c.present)
			continue
		}
		for i, k := range c.present {
			m := r.Classes[k].Metrics
			if m.Precision != c.p[i] || m.Recall != c.r[i] || m.F1 != c.f1[i] || m.Support != c.support[i] {
				t.Errorf("%s: class %d: %+v, want P %v R %v F1 %v support %d", c.name, k, m, c.p[i], c.r[i], c.f1[i], c.support[i])
			}
		}
		for _, a := range []struct {
			what string
			got  Metrics
			want []float64
		}{{"macro", r.Macro, c.macro}, {"weighted", r.Weighted, c.wavg}} {
			if a.got.Precision != a.want[0] || a.got.Recall != a.want[1] || a.got.F1 != a.want[2] {
				t.Errorf("%s: %s avg %+v, want %v", c.name, a.what, a.got, a.want)
			}
		}
		if r.Accuracy != c.accuracy {
			t.Errorf("%s: accuracy %v, want %v", c.name, r.Accuracy, c.accuracy)
		}
	}
}
