package predict

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/grlgq/grlgq/dataset"
	"github.com/grlgq/grlgq/model"
)

// sets makes a folder-like data set of n sets per class of m images of
// D = 16 pixels (each class near its own 2-D subspace, noise sigma), with
// or without labels; sets are named "cK/sJ" (labelled) or "sK_J".
func sets(n, m int, sigma float64, labelled bool) *dataset.Dataset {
	const dim, classes = 16, 3
	rng := rand.New(rand.NewPCG(7, 1))
	ds := &dataset.Dataset{Source: "synth", Dim: dim}
	if labelled {
		ds.Classes = []string{"apple", "cup", "pear"}
	}
	for c := range classes {
		for j := range n {
			s := dataset.Set{Label: dataset.NoLabel, Name: "s" + string(rune('0'+c)) + "_" + string(rune('0'+j))}
			if labelled {
				s.Label, s.Name = c, ds.Classes[c]+"/s"+string(rune('0'+j))
			}
			for range m {
				img := make([]float64, dim)
				a, b := rng.NormFloat64(), rng.NormFloat64()
				for r := range img {
					img[r] = sigma * rng.NormFloat64()
				}
				img[4*c] += a
				img[4*c+1] += b
				s.Images = append(s.Images, len(ds.Images))
				ds.Images = append(ds.Images, img)
				ds.Files = append(ds.Files, s.Name+"/img"+string(rune('0'+len(s.Images)))+".png")
				if labelled {
					ds.Labels = append(ds.Labels, c)
				}
			}
			ds.Sets = append(ds.Sets, s)
		}
	}
	return ds
}

func trained(t *testing.T) *model.Model {
	t.Helper()
	return trainedNamed(t, true)
}

// trainedNamed is trained, its classes named after the data's or not.
func trainedNamed(t *testing.T, named bool) *model.Model {
	t.Helper()
	ds := sets(4, 6, 0.1, true)
	tr, err := dataset.TrainingSubspaces(ds, dataset.TrainingOptions{D: 2})
	if err != nil {
		t.Fatal(err)
	}
	o := model.DefaultOptions()
	o.Model.SubspaceDim = 2
	if named {
		o.Model.ClassNames = ds.Classes
	}
	o.Train.Epochs = 3
	m, _, err := model.Train(context.Background(), o, model.Sets(tr.Subs), tr.Labels)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestUnlabeled: sets without labels are named by their folders, have no
// μ and no truth, and are predicted as the classes they come from.
func TestUnlabeled(t *testing.T) {
	m := trained(t)
	ds := sets(2, 5, 0.1, false)
	s, err := Prepare(m, ds, dataset.EvalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tab, err := Run(context.Background(), m, s)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Labelled || tab.N != 6 || len(tab.Rows) != 6 || tab.Samples != "sets" || strings.Join(tab.Classes, ",") != "apple,cup,pear" {
		t.Fatalf("table %+v", tab)
	}
	for i, r := range tab.Rows {
		if r.Index != i || r.Name != ds.Sets[i].Name || r.Mu != nil || r.Correct != nil || r.True != "" {
			t.Errorf("row %d: %+v", i, r)
		}
		if want := tab.Classes[i/2]; r.Predicted != want || r.Class != i/2 {
			t.Errorf("%s: predicted %s, want %s", r.Name, r.Predicted, want)
		}
		sum := 0.0
		for _, p := range r.Probabilities {
			sum += p
		}
		if math.Abs(sum-1) > 1e-12 || r.Margin < 0 || r.Margin > 1 || len(r.Distances) != m.NumPrototypes() {
			t.Errorf("row %d: probabilities sum %v, margin %v, %d distances", i, sum, r.Margin, len(r.Distances))
		}
	}
	if got := s.Misclassified(make([]model.Prediction, 6)); got != nil {
		t.Errorf("misclassified without labels: %v", got)
	}
	for name, want := range map[string]int{"s1_0": 2, "4": 4, "s9_9": -1, "6": -1, "-1": -1, "": -1} {
		i, ok := s.Lookup(name)
		if ok != (want >= 0) || ok && i != want {
			t.Errorf("Lookup(%q) = %d, %v; want %d", name, i, ok, want)
		}
	}
	if im := s.Images(2); len(im) != 5 || ds.ItemName(im[0]) != "s1_0/img1.png" {
		t.Errorf("images of set 2: %v", im)
	}
}

// TestLabelled: labelled data is scored: the truth, μ (= −margin when
// right, > 0 when wrong), correct, the misclassified list, the CSV's
// columns, and names that find their sets by class/set or by set alone.
func TestLabelled(t *testing.T) {
	m := trained(t)
	ds := sets(4, 3, 0.9, true) // noisy: some wrong
	s, err := Prepare(m, ds, dataset.EvalOptions{D: 2})
	if err != nil {
		t.Fatal(err)
	}
	preds, err := All(context.Background(), m, s.X)
	if err != nil {
		t.Fatal(err)
	}
	tab := NewTable(m, s, preds)
	wrong := s.Misclassified(preds)
	if !tab.Labelled || tab.Correct != tab.N-len(wrong) {
		t.Fatalf("%d correct of %d, %d misclassified", tab.Correct, tab.N, len(wrong))
	}
	t.Logf("%d of %d wrong", len(wrong), tab.N)
	for i, r := range tab.Rows {
		if r.Mu == nil || r.Correct == nil || r.True != ds.Classes[ds.Sets[i].Label] {
			t.Fatalf("row %d: %+v", i, r)
		}
		if *r.Correct && *r.Mu != -r.Margin || !*r.Correct && !r.Rejected && *r.Mu <= 0 {
			t.Errorf("row %d: correct %v, μ %v, margin %v", i, *r.Correct, *r.Mu, r.Margin)
		}
	}
	if i, ok := s.Lookup("cup/s2"); !ok || i != 6 {
		t.Errorf("Lookup(cup/s2) = %d, %v", i, ok)
	}
	if _, ok := s.Lookup("s2"); ok {
		t.Errorf("Lookup(s2): ambiguous between the classes, found")
	}
	var b bytes.Buffer
	if err := tab.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(recs) != tab.N+1 {
		t.Fatalf("CSV: %d lines, %v", len(recs), err)
	}
	if got := strings.Join(recs[0], ","); got != "index,name,true,predicted,rejected,margin,mu,correct,p_apple,p_cup,p_pear" {
		t.Errorf("CSV header %s", got)
	}
	b.Reset()
	if err := tab.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != tab.N+3 || !strings.HasPrefix(lines[0], "index  name") || !strings.Contains(lines[0], "p(cup)") || strings.Count(b.String(), "*") != len(wrong)+1 ||
		!strings.HasPrefix(lines[len(lines)-1], "10 of 12 correct") {
		t.Errorf("text:\n%s", b.String())
	}
	b.Reset()
	if err := tab.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var back Table
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || back.N != tab.N || *back.Rows[3].Mu != *tab.Rows[3].Mu || back.Rows[3].Probabilities[1] != tab.Rows[3].Probabilities[1] {
		t.Errorf("JSON round trip: %v", err)
	}
	// A class the model does not know: predicted, not scored (no μ, no
	// correct), not counted (TestUnknownClasses).
	ds.Classes = []string{"apple", "cup", "plum"}
	s, _ = Prepare(m, ds, dataset.EvalOptions{})
	tab = NewTable(m, s, preds)
	if r := tab.Rows[len(tab.Rows)-1]; r.Mu != nil || r.Correct != nil || r.True != "plum" || s.Truth[len(s.Truth)-1] != -1 {
		t.Errorf("unknown class: %+v", r)
	}
	// Another image size: an error.
	if _, err := Prepare(m, &dataset.Dataset{Source: "x", Dim: 9, Images: [][]float64{make([]float64, 9)}}, dataset.EvalOptions{}); !errors.Is(err, model.ErrData) || !strings.Contains(err.Error(), "D=16") {
		t.Errorf("wrong size: %v", err)
	}
}

// TestPrepareD: EvalOptions.D is the model's d or 0; another is refused
// at once, not at the first prediction.
func TestPrepareD(t *testing.T) {
	m := trained(t) // d = 2
	ds := sets(2, 3, 0.1, true)
	for _, d := range []int{0, 2} {
		if _, err := Prepare(m, ds, dataset.EvalOptions{D: d}); err != nil {
			t.Errorf("D %d: %v", d, err)
		}
	}
	for _, d := range []int{1, 3} {
		if _, err := Prepare(m, ds, dataset.EvalOptions{D: d}); !errors.Is(err, model.ErrData) || !strings.Contains(err.Error(), "the model has d=2") {
			t.Errorf("D %d: %v, want model.ErrData", d, err)
		}
	}
}

// TestWrongPredictions: predictions that are not one per sample, or of a
// class the model does not have, panic with the package's prefix rather
// than make a short table or panic on an index.
func TestWrongPredictions(t *testing.T) {
	m := trained(t)
	s, err := Prepare(m, sets(2, 3, 0.1, true), dataset.EvalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	preds, err := All(context.Background(), m, s.X)
	if err != nil {
		t.Fatal(err)
	}
	other := slices.Clone(preds)
	other[1].Class = 3
	for name, f := range map[string]func(){
		"NewTable, none":          func() { NewTable(m, s, nil) },
		"NewTable, one short":     func() { NewTable(m, s, preds[1:]) },
		"NewTable, one too many":  func() { NewTable(m, s, append(slices.Clone(preds), preds[0])) },
		"NewTable, class 3 of 3":  func() { NewTable(m, s, other) },
		"Misclassified, none":     func() { s.Misclassified(nil) },
		"Misclassified, one more": func() { s.Misclassified(append(slices.Clone(preds), preds[0])) },
	} {
		func() {
			defer func() {
				r := recover()
				if msg, ok := r.(string); !ok || !strings.HasPrefix(msg, "predict: ") {
					t.Errorf("%s: panic %#v, want predict's", name, r)
				}
			}()
			f()
		}()
	}
}

// TestUnknownClasses: the samples of a class the model does not know (a
// test set with an extra class) are predicted but not scored: no μ, no
// correct, no * in the text, an empty correct in the CSV, and left out of
// Correct's count, which the text, the CSV and the JSON say; data whose
// classes are all unknown scores nothing.
func TestUnknownClasses(t *testing.T) {
	m := trained(t)
	ds := sets(4, 3, 0.9, true) // apple, cup, pear; 4 sets each, some wrong
	s, err := Prepare(m, ds, dataset.EvalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	preds, err := All(context.Background(), m, s.X)
	if err != nil {
		t.Fatal(err)
	}
	known := NewTable(m, s, preds)
	ds.Classes = []string{"apple", "cup", "plum"} // the pear sets' class, unknown
	s, _ = Prepare(m, ds, dataset.EvalOptions{})
	if got := s.UnknownClasses(); len(got) != 1 || got[0] != "plum" {
		t.Fatalf("UnknownClasses = %v", got)
	}
	for i := range s.Truth {
		if s.Unknown(i) != (i >= 8) {
			t.Errorf("Unknown(%d) = %v", i, s.Unknown(i))
		}
	}
	if got, n := s.UnknownAmong([]int{9, 0, 11}); len(got) != 1 || got[0] != "plum" || n != 2 {
		t.Errorf("UnknownAmong(9, 0, 11) = %v, %d", got, n)
	}
	if got, n := s.UnknownAmong([]int{0, 7}); got != nil || n != 0 {
		t.Errorf("UnknownAmong(0, 7) = %v, %d", got, n)
	}
	tab := NewTable(m, s, preds)
	right := 0 // among the apple and cup sets
	for i, r := range known.Rows[:8] {
		if *r.Correct {
			right++
		}
		if tr := tab.Rows[i]; tr.Correct == nil || *tr.Correct != *r.Correct || *tr.Mu != *r.Mu {
			t.Errorf("row %d of a known class: %+v, want %+v", i, tr, r)
		}
	}
	for _, r := range tab.Rows[8:] {
		if r.Correct != nil || r.Mu != nil || r.True != "plum" || r.Predicted == "" {
			t.Errorf("row %d of the unknown class: %+v", r.Index, r)
		}
	}
	if !tab.Labelled || tab.N != 12 || tab.Correct != right || tab.Unscored != 4 || strings.Join(tab.Unknown, ",") != "plum" {
		t.Fatalf("table: labelled %v, %d correct of %d, %d unscored, unknown %v; want %d correct, 4 unscored", tab.Labelled, tab.Correct, tab.N, tab.Unscored, tab.Unknown, right)
	}
	var b bytes.Buffer
	if err := tab.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%d of 8 correct (* marks the others); 4 not scored (classes the model does not know: plum)\n", right)
	if !strings.HasSuffix(b.String(), want) || strings.Count(b.String(), "*") != 8-right+1 {
		t.Errorf("text, want %d marks and the last line %q:\n%s", 8-right, want, b.String())
	}
	b.Reset()
	if err := tab.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(recs) != 13 {
		t.Fatalf("CSV: %d lines, %v", len(recs), err)
	}
	for i, r := range recs[1:] {
		mu, correct := r[col(recs[0], "mu")], r[col(recs[0], "correct")]
		if i < 8 && (mu == "" || correct != strconv.FormatBool(*known.Rows[i].Correct)) || i >= 8 && (mu != "" || correct != "") {
			t.Errorf("CSV row %d: mu %q, correct %q", i, mu, correct)
		}
	}
	b.Reset()
	if err := tab.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	var js map[string]any
	if err := json.Unmarshal(b.Bytes(), &js); err != nil || js["unscored"] != 4.0 || fmt.Sprint(js["unknown_classes"]) != "[plum]" || js["correct"] != float64(right) {
		t.Errorf("JSON: %v: unscored %v, unknown_classes %v, correct %v", err, js["unscored"], js["unknown_classes"], js["correct"])
	}
	// Without unknown classes the JSON has neither key.
	b.Reset()
	known.WriteJSON(&b)
	if strings.Contains(b.String(), "unscored") || strings.Contains(b.String(), "unknown_classes") {
		t.Errorf("JSON of known classes: %s", b.String()[:200])
	}

	// No class known: nothing scored.
	ds.Classes = []string{"fig", "kiwi", "plum"}
	s, _ = Prepare(m, ds, dataset.EvalOptions{})
	tab = NewTable(m, s, preds)
	if tab.Correct != 0 || tab.Unscored != 12 || strings.Join(tab.Unknown, ",") != "fig,kiwi,plum" {
		t.Fatalf("no class known: %d correct, %d unscored, unknown %v", tab.Correct, tab.Unscored, tab.Unknown)
	}
	b.Reset()
	tab.WriteText(&b)
	if want := "12 samples classified, none scored (classes the model does not know: fig, kiwi, plum)\n"; !strings.HasSuffix(b.String(), want) || strings.Contains(b.String(), "*") {
		t.Errorf("text, want no marks and the last line %q:\n%s", want, b.String())
	}
}

// TestNamelessModel: a model without class names takes the data's
// classes by index only when the data have as many classes; a subset of
// its classes (cup and pear of apple, cup, pear) is unknown, predicted
// and not scored, not matched to the model's first classes.
func TestNamelessModel(t *testing.T) {
	m := trainedNamed(t, false)
	full := sets(4, 3, 0.1, true)
	s, err := Prepare(m, full, dataset.EvalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.UnknownClasses(); got != nil || fmt.Sprint(s.Truth) != fmt.Sprint(s.Labels) {
		t.Fatalf("as many classes: truth %v, labels %v, unknown %v", s.Truth, s.Labels, got)
	}
	sub := &dataset.Dataset{Source: "cup and pear", Dim: full.Dim, Classes: []string{"cup", "pear"}}
	for _, st := range full.Sets[4:] {
		ns := dataset.Set{Label: st.Label - 1, Name: st.Name}
		for _, i := range st.Images {
			ns.Images = append(ns.Images, len(sub.Images))
			sub.Images = append(sub.Images, full.Images[i])
			sub.Labels = append(sub.Labels, ns.Label)
			sub.Files = append(sub.Files, full.Files[i])
		}
		sub.Sets = append(sub.Sets, ns)
	}
	s, err = Prepare(m, sub, dataset.EvalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.UnknownClasses(); strings.Join(got, ",") != "cup,pear" {
		t.Errorf("a subset of the classes: unknown %v (truth %v), want cup, pear", got, s.Truth)
	}
	tab, err := Run(context.Background(), m, s)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Correct != 0 || tab.Unscored != 8 || tab.Rows[0].Predicted != "1" || tab.Rows[7].Predicted != "2" {
		t.Errorf("a subset of the classes: %d correct, %d unscored, rows 0 and 7 predicted %s, %s; want 0, 8, 1, 2",
			tab.Correct, tab.Unscored, tab.Rows[0].Predicted, tab.Rows[7].Predicted)
	}
}

func col(head []string, name string) int {
	for i, h := range head {
		if h == name {
			return i
		}
	}
	return -1
}

// TestAllCancelled: a cancelled context ends All with its error.
func TestAllCancelled(t *testing.T) {
	m := trained(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := All(ctx, m, []model.Sample{model.Image(make([]float64, 16))}); err == nil || !strings.Contains(err.Error(), "canceled") {
		t.Errorf("cancelled: %v", err)
	}
}

// TestScore: Score gives model.Model.Score's counts over more than one
// block, ends with the context's error when cancelled, refuses a label
// count that is not the sample count, and names the block of a bad
// sample after the first.
func TestScore(t *testing.T) {
	m := trained(t)
	rng := rand.New(rand.NewPCG(4, 4))
	n := Block + 900
	x := make([]model.Sample, n)
	y := make([]int, n)
	for i := range x {
		img := make([]float64, 16)
		for j := range img {
			img[j] = rng.Float64()
		}
		x[i], y[i] = model.Image(img), i%m.NumClasses()
	}
	got, err := Score(context.Background(), m, x, y)
	if err != nil {
		t.Fatal(err)
	}
	want, err := m.Score(x, y)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Score %+v, model's %+v", got, want)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Score(ctx, m, x, y); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := Score(context.Background(), m, x, y[1:]); !errors.Is(err, model.ErrData) {
		t.Errorf("%d labels for %d samples: %v", n-1, n, err)
	}
	bad := append([]model.Sample(nil), x...)
	bad[Block+5] = model.Image(make([]float64, 16))
	_, err = Score(context.Background(), m, bad, y)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("samples %d..%d", Block, n-1)) {
		t.Errorf("a zero image at %d: %v", Block+5, err)
	}
}
