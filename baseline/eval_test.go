package baseline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/grlgq/grlgq/internal/numerr"
	"github.com/grlgq/grlgq/subspace"
)

// TestEvaluateNNReference: the NN rows are the accuracies of 1-NN and
// 3-NN computed straight from gonum's angles.
func TestEvaluateNNReference(t *testing.T) {
	x, y := synth(t, 3, 10, 30, 4, 5, 0.8, 31)
	splits := kfold(y, 5, 2)
	methods := []Method{{NN, 1, Geodesic}, {NN, 1, Chordal}, {NN, 1, FirstAngle}, {NN, 3, Chordal}}
	res, err := Evaluate(context.Background(), x, y, splits, Options{Methods: methods, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	dist := func(kind Distance, th []float64) float64 {
		var s float64
		for _, v := range th {
			switch kind {
			case Geodesic:
				s += v * v
			case Chordal:
				s += math.Sin(v) * math.Sin(v)
			}
		}
		if kind == FirstAngle {
			return th[0]
		}
		return s
	}
	n := len(x)
	angles := make([][][]float64, n)
	for i := range n {
		angles[i] = make([][]float64, n)
		for j := range n {
			angles[i][j] = gonumAngles(t, x[i].Basis, x[j].Basis)
		}
	}
	for m, meth := range methods {
		for f, sp := range splits {
			correct := 0
			for _, q := range sp.Val {
				// Majority of the k nearest, ties to the class of the
				// nearer neighbour (no equal distances here).
				type nb struct {
					d float64
					c int
				}
				var all []nb
				for _, i := range sp.Train {
					all = append(all, nb{dist(meth.Distance, angles[q][i]), y[i]})
				}
				for a := range all {
					for b := a + 1; b < len(all); b++ {
						if all[b].d < all[a].d {
							all[a], all[b] = all[b], all[a]
						}
					}
				}
				votes := map[int]int{}
				top := 0
				for _, v := range all[:meth.K] {
					votes[v.c]++
					top = max(top, votes[v.c])
				}
				for _, v := range all[:meth.K] {
					if votes[v.c] == top {
						if v.c == y[q] {
							correct++
						}
						break
					}
				}
			}
			if got := res.Methods[m].Correct[f]; got != correct {
				t.Errorf("%v split %d: %d correct, reference %d", meth, f, got, correct)
			}
		}
	}
}

// zeroTimes clears the wall times, the only fields that may differ
// between runs.
func zeroTimes(r *Result) {
	r.PairsTime = 0
	for i := range r.Methods {
		r.Methods[i].Time = 0
	}
}

// TestEvaluateDeterministic: 1 and 2 workers (and 7, more than the jobs of
// a phase) give the same result, bit for bit.
func TestEvaluateDeterministic(t *testing.T) {
	x, y := synth(t, 4, 9, 40, 5, 6, 0.6, 41)
	splits := kfold(y, 3, 5)
	var ref *Result
	for _, w := range []int{1, 2, 7} {
		res, err := Evaluate(context.Background(), x, y, splits, Options{Workers: w, Seed: 3, Methods: append(DefaultMethods(), Method{Kind: GDA})})
		if err != nil {
			t.Fatal(err)
		}
		zeroTimes(res)
		if ref == nil {
			ref = res
			continue
		}
		if !reflect.DeepEqual(ref, res) {
			t.Errorf("workers %d: result differs from 1 worker", w)
		}
	}
	for _, kind := range []Kind{SVM, GDA} {
		for f, s := range ref.Method(Method{Kind: kind}).Tuned {
			if s.InnerFolds != 5 || s.Kept != 0 || s.Unconverged != 0 {
				t.Errorf("%v split %d: %+v", kind, f, s)
			}
		}
	}
}

// TestEvaluateSVMSeparable: on well separated classes the SVM is (nearly)
// perfect, and the inner CV reports what it did.
func TestEvaluateSVMSeparable(t *testing.T) {
	x, y := synth(t, 5, 8, 60, 4, 4, 0.05, 51)
	res, err := Evaluate(context.Background(), x, y, kfold(y, 4, 1), Options{Methods: []Method{{Kind: SVM}}})
	if err != nil {
		t.Fatal(err)
	}
	m := res.Methods[0]
	if m.Mean < 0.95 {
		t.Errorf("SVM accuracy %.3f on separable classes", m.Mean)
	}
	for _, f := range m.Tuned {
		if f.InnerFolds != 5 || f.Iterations == 0 || !strings.Contains(f.Note("C"), "inner 5-fold") {
			t.Errorf("%+v: %s", f, f.Note("C"))
		}
	}
}

// TestEvaluateTinyClasses: classes with one training set, or only such
// classes, do not make the SVM fail; it says what it did.
func TestEvaluateTinyClasses(t *testing.T) {
	x, y := synth(t, 4, 6, 30, 3, 4, 0.3, 61)
	// Class 3 keeps 2 sets: one trains, one validates.
	x = x[:20]
	y = y[:20]
	splits := []Split{
		{Train: []int{0, 1, 2, 3, 6, 7, 8, 9, 12, 13, 14, 15, 18}, Val: []int{4, 5, 10, 11, 16, 17, 19}},
		// One set per class in training: no inner CV.
		{Train: []int{0, 6, 12, 18}, Val: []int{1, 7, 13, 19}},
		// Two classes of one set kept in training: a 5-fold inner CV over
		// the two sets of class 0 and the five of class 1.
		{Train: []int{0, 1, 6, 7, 8, 9, 10, 12, 18}, Val: []int{2, 11, 13, 19}},
		// Only one class in training: everything is that class, no inner
		// CV.
		{Train: []int{0, 1, 2}, Val: []int{3, 6}},
	}
	res, err := Evaluate(context.Background(), x, y, splits, Options{Methods: append(DefaultMethods(), Method{Kind: GDA})})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ inner, kept int }{{5, 1}, {0, 4}, {5, 2}, {0, 0}}
	for _, m := range []Method{{Kind: SVM}, {Kind: GDA}} {
		r := res.Method(m)
		for f, w := range want {
			s := r.Tuned[f]
			if s.InnerFolds != w.inner || s.Kept != w.kept {
				t.Errorf("%v split %d: inner %d kept %d, want %d, %d (%s)", m, f, s.InnerFolds, s.Kept, w.inner, w.kept, r.Note(f))
			}
			t.Logf("%v split %d: %s, accuracy %.3f", m, f, r.Note(f), r.Accuracy[f])
		}
		if !strings.Contains(r.Note(1), "default") {
			t.Errorf("%v split 1: %s", m, r.Note(1))
		}
		if r.Correct[3] != 1 {
			t.Errorf("%v, one training class: %d correct of 2, want 1", m, r.Correct[3])
		}
	}
	if c, g := res.Method(Method{Kind: SVM}).Tuned[1].Param, res.Method(Method{Kind: GDA}).Tuned[1].Param; c != 1 || g != 1e-2 {
		t.Errorf("defaults: C %g, reg %g", c, g)
	}
	// A larger InnerFolds than sets to validate is lowered.
	res, err = Evaluate(context.Background(), x, y, splits[2:3], Options{InnerFolds: 10, Methods: []Method{{Kind: SVM}}})
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Methods[0].Tuned[0]; s.InnerFolds != 7 {
		t.Errorf("inner folds %d, want 7 (the sets that can be validated)", s.InnerFolds)
	}
}

// TestEvaluateHostile: bad labels, splits and options are errors, never
// panics.
func TestEvaluateHostile(t *testing.T) {
	x, y := synth(t, 2, 4, 20, 3, 4, 0.3, 71)
	ok := []Split{{Train: []int{0, 1, 4, 5}, Val: []int{2, 3, 6, 7}}}
	ctx := context.Background()
	nanX := make([]*subspace.Subspace, len(x))
	copy(nanX, x)
	b := *x[3].Basis
	b.Data = append([]float64(nil), b.Data...)
	b.Data[b.Stride+1] = math.NaN()
	nanX[3] = &subspace.Subspace{Basis: &b}
	for _, tc := range []struct {
		name   string
		x      []*subspace.Subspace
		y      []int
		splits []Split
		opt    Options
		want   error
	}{
		{"labels length", x, y[:5], ok, Options{}, ErrData},
		{"negative label", x, []int{0, 0, 0, 0, 1, 1, -1, 1}, ok, Options{}, ErrData},
		{"no split", x, y, nil, Options{}, ErrData},
		{"empty val", x, y, []Split{{Train: []int{0, 4}}}, Options{}, ErrData},
		{"empty train", x, y, []Split{{Val: []int{0, 4}}}, Options{}, ErrData},
		{"index out of range", x, y, []Split{{Train: []int{0, 8}, Val: []int{1}}}, Options{}, ErrData},
		{"negative index", x, y, []Split{{Train: []int{0, -1}, Val: []int{1}}}, Options{}, ErrData},
		{"overlap", x, y, []Split{{Train: []int{0, 4}, Val: []int{1, 4}}}, Options{}, ErrData},
		{"duplicate", x, y, []Split{{Train: []int{0, 4, 0}, Val: []int{1}}}, Options{}, ErrData},
		{"no methods", x, y, ok, Options{Methods: []Method{}}, ErrData},
		{"method twice", x, y, ok, Options{Methods: []Method{{Kind: SVM}, {Kind: SVM}}}, ErrData},
		{"k = 0", x, y, ok, Options{Methods: []Method{{Kind: NN}}}, ErrData},
		{"bad distance", x, y, ok, Options{Methods: []Method{{Kind: NN, K: 1, Distance: 9}}}, ErrData},
		{"bad kind", x, y, ok, Options{Methods: []Method{{Kind: 7}}}, ErrData},
		{"inner folds 1", x, y, ok, Options{InnerFolds: 1}, ErrData},
		{"negative C", x, y, ok, Options{CGrid: []float64{-1, 1}}, ErrData},
		{"NaN C", x, y, ok, Options{CGrid: []float64{1, math.NaN()}}, ErrData},
		{"Inf C", x, y, ok, Options{CGrid: []float64{1, math.Inf(1)}}, ErrData},
		{"empty C grid", x, y, ok, Options{CGrid: []float64{}}, ErrData},
		{"bad default C", x, y, ok, Options{DefaultC: -2}, ErrData},
		{"bad GDA grid", x, y, ok, Options{GDAGrid: []float64{0}}, ErrData},
		{"bad GDA default", x, y, ok, Options{GDADefault: math.Inf(1)}, ErrData},
		{"NaN tolerance", x, y, ok, Options{Tol: math.NaN()}, ErrData},
		{"negative iterations", x, y, ok, Options{MaxIter: -1}, ErrData},
		{"NaN basis", nanX, y, ok, Options{}, ErrNotFinite},
	} {
		_, err := Evaluate(ctx, tc.x, tc.y, tc.splits, tc.opt)
		if tc.want == ErrData && !errors.Is(err, numerr.ErrData) {
			t.Errorf("%s: %v, want the module's one ErrData (model.ErrData)", tc.name, err)
		}
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		} else {
			t.Logf("%s: %v", tc.name, err)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := Evaluate(cctx, x, y, ok, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	p, err := NewPairs(ctx, x, 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Evaluate(cctx, y, ok, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := p.Evaluate(ctx, y[:3], ok, Options{}); !errors.Is(err, ErrData) {
		t.Errorf("labels for another table: %v", err)
	}
}

// TestLabelsAnyIntegers: labels need not be 0..C-1; the result is that
// of the compact labels.
func TestLabelsAnyIntegers(t *testing.T) {
	x, y := synth(t, 3, 6, 20, 3, 4, 0.5, 81)
	sparse := make([]int, len(y))
	for i, c := range y {
		sparse[i] = []int{7, 1000000, 3}[c]
	}
	splits := kfold(y, 3, 1)
	a, err := Evaluate(context.Background(), x, y, splits, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Evaluate(context.Background(), x, sparse, splits, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for m := range a.Methods {
		if !reflect.DeepEqual(a.Methods[m].Correct, b.Methods[m].Correct) {
			t.Errorf("%v: %v with labels 0..2, %v with 7, 1e6, 3", a.Methods[m].Method, a.Methods[m].Correct, b.Methods[m].Correct)
		}
	}
}

// TestCompare: the paired differences and their standard errors.
func TestCompare(t *testing.T) {
	a := []float64{0.9, 0.8, 0.7, 1.0}
	b := []float64{0.8, 0.8, 0.75, 0.9}
	p, err := Compare(a, b, 0.25)
	if err != nil {
		t.Fatal(err)
	}
	d := []float64{0.1, 0, -0.05, 0.1}
	mean := 0.0375
	var ss float64
	for i := range d {
		if math.Abs(p.Diff[i]-d[i]) > 1e-15 {
			t.Errorf("diff %v, want %v", p.Diff, d)
		}
		ss += (d[i] - mean) * (d[i] - mean)
	}
	sd := math.Sqrt(ss / 3)
	if math.Abs(p.Mean-mean) > 1e-15 || math.Abs(p.SE-sd/2) > 1e-15 || math.Abs(p.SECorrected-sd*math.Sqrt(0.25+0.25)) > 1e-15 {
		t.Errorf("mean %v se %v corrected %v, want %v %v %v", p.Mean, p.SE, p.SECorrected, mean, sd/2, sd*math.Sqrt(0.5))
	}
	if p.Wins != 2 || p.Losses != 1 || p.Ties != 1 {
		t.Errorf("w/l/t %d/%d/%d", p.Wins, p.Losses, p.Ties)
	}
	if p, err := Compare([]float64{0.5}, []float64{0.25}, 1); err != nil || p.SE != 0 || p.Mean != 0.25 {
		t.Errorf("one split: %+v %v", p, err)
	}
	for _, bad := range [][2][]float64{{{1}, {1, 2}}, {nil, nil}, {{math.NaN()}, {1}}, {{1}, {math.Inf(1)}}} {
		if _, err := Compare(bad[0], bad[1], 0); err == nil {
			t.Errorf("Compare(%v, %v): no error", bad[0], bad[1])
		}
	}
}

// TestResultForms: CompareTo, JSON (no NaN, methods as names), and the
// text and CSV tables.
func TestResultForms(t *testing.T) {
	x, y := synth(t, 3, 5, 20, 3, 4, 0.5, 91)
	res, err := Evaluate(context.Background(), x, y, kfold(y, 5, 1), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.CompareTo("GRLGQ", []float64{1, 0.5}); !errors.Is(err, ErrData) {
		t.Errorf("CompareTo with 2 of 5 splits: %v", err)
	}
	ref := []float64{1, 1, 0.6666666666666666, 1, 1}
	if err := res.CompareTo("GRLGQ", ref); err != nil {
		t.Fatal(err)
	}
	for _, m := range res.Methods {
		if m.Versus == nil || m.Versus.Against != "GRLGQ" || len(m.Versus.Diff) != 5 || math.Abs(m.Versus.Diff[2]-(m.Accuracy[2]-ref[2])) > 1e-15 {
			t.Errorf("%s: versus %+v", m.Name, m.Versus)
		}
	}
	js, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var back Result
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, res) {
		t.Errorf("JSON round trip differs:\n%s", js)
	}
	if !bytes.Contains(js, []byte(`"method":"1nn-geodesic"`)) || !bytes.Contains(js, []byte(`"method":"svm"`)) {
		t.Errorf("JSON methods not by name: %s", js)
	}
	var text, csv bytes.Buffer
	if err := res.Summary().WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if err := res.PerSplit().WriteCSV(&csv); err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s\n%s", text.String(), csv.String())
	lines := strings.Split(strings.TrimSpace(text.String()), "\n")
	if len(lines) != 2+len(res.Methods) || !strings.HasPrefix(lines[1], "GRLGQ") || !strings.Contains(lines[0], "se corr") {
		t.Errorf("summary:\n%s", text.String())
	}
	rows := strings.Split(strings.TrimSpace(csv.String()), "\n")
	if len(rows) != 6 || rows[0] != "split,GRLGQ,1-NN geodesic,1-NN chordal,1-NN MSM (first angle),5-NN geodesic,"+`"SVM, projection kernel"`+",SVM C" {
		t.Errorf("per-split CSV:\n%s", csv.String())
	}
}

// TestTableText: alignment (first column left, others right, by runes).
func TestTableText(t *testing.T) {
	tab := &Table{Header: []string{"name", "θ", "v"}, Rows: [][]string{{"a", "1.5", "x"}, {"longer", "12.25", "yy"}}}
	var b bytes.Buffer
	if err := tab.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := "name        θ   v\n" +
		"a         1.5   x\n" +
		"longer  12.25  yy\n"
	if b.String() != want {
		t.Errorf("got\n%q\nwant\n%q", b.String(), want)
	}
}

// TestParseMethod: names round-trip through text.
func TestParseMethod(t *testing.T) {
	for _, m := range append(DefaultMethods(), Method{NN, 7, Chordal}, Method{NN, 3, FirstAngle}, Method{Kind: GDA}) {
		b, err := m.MarshalText()
		if err != nil {
			t.Fatal(err)
		}
		var back Method
		if err := back.UnmarshalText(b); err != nil || back != m {
			t.Errorf("%v -> %s -> %v, %v", m, b, back, err)
		}
	}
	if m, err := ParseMethod(" NN-Chordal "); err != nil || m != (Method{NN, 1, Chordal}) {
		t.Errorf("nn-chordal: %v %v", m, err)
	}
	for _, bad := range []string{"", "svm2", "0nn-geodesic", "-1nn-geodesic", "3nn", "3nn-euclid", "99999999999999999999nn-msm", "1000000nn-msm"} {
		if _, err := ParseMethod(bad); err == nil {
			t.Errorf("ParseMethod(%q): no error", bad)
		}
	}
	ms, err := ParseMethods("default,3nn-msm, GDA")
	if err != nil || len(ms) != len(DefaultMethods())+2 || ms[len(ms)-1] != (Method{Kind: GDA}) {
		t.Errorf("ParseMethods: %v %v", ms, err)
	}
	if _, err := (Method{Kind: NN}).MarshalText(); err == nil {
		t.Error("MarshalText of K=0: no error")
	}
}

// TestEvaluateImagesAgainstSets: a holdout whose validation samples are
// single images and whose training samples are sets (the MNIST protocol's
// shape): the table holds no image-image pair, 1-NN is the nearest set by
// θ_1 (gonum), and every method runs.
func TestEvaluateImagesAgainstSets(t *testing.T) {
	// Per class 6 training sets; 4 more sets give a single image each:
	// their dominant direction (first basis column).
	x, y := synthShared(t, 3, 10, 30, 4, 4, 0.7, 0.5, 101)
	var sp Split
	for i := range x {
		if i%10 < 6 {
			sp.Train = append(sp.Train, i)
			continue
		}
		img := make([]float64, 30)
		for r := range img {
			img[r] = x[i].Basis.At(r, 0)
		}
		s, err := subspace.FromImage(img)
		if err != nil {
			t.Fatal(err)
		}
		x[i] = s
		sp.Val = append(sp.Val, i)
	}
	res, err := Evaluate(context.Background(), x, y, []Split{sp}, Options{Methods: append(DefaultMethods(), Method{Kind: GDA})})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.SubspaceDims, []int{1, 4}) {
		t.Errorf("subspace dims %v", res.SubspaceDims)
	}
	correct := 0
	for _, q := range sp.Val {
		best, bd := -1, math.Inf(1)
		for _, i := range sp.Train {
			if th := gonumAngles(t, x[q].Basis, x[i].Basis)[0]; th < bd {
				best, bd = i, th
			}
		}
		if y[best] == y[q] {
			correct++
		}
	}
	for _, m := range res.Methods {
		t.Logf("%s: %d/%d", m.Name, m.Correct[0], m.N[0])
		if m.Method.Kind == NN && m.Method.K == 1 && m.Correct[0] != correct {
			t.Errorf("%s: %d correct, gonum θ_1 1-NN %d", m.Name, m.Correct[0], correct)
		}
	}
	// A table made for other trainers is refused.
	p, err := NewPairsFor(context.Background(), x, sp.Train[1:], 1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Evaluate(context.Background(), y, []Split{sp}, Options{}); !errors.Is(err, ErrData) {
		t.Errorf("table without a trainer: %v", err)
	}
}
