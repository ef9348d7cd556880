package selection

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/grlgq/grlgq/folds"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

func nestedSettings() []Setting {
	return []Setting{{Prototypes: 1, Eta: 0.05, Epochs: 2}, {Prototypes: 1, Eta: 0.05, Epochs: 4}, {Prototypes: AllSets, Eta: 1}}
}

// TestNestedNoLeak: with one worker everything runs in order, so every
// training and initialisation can be attributed to its outer fold: each
// receives only sets of that fold's training part (never of its test
// part), the last of each fold (Tune's final model) all of them, and the
// outer folds are folds.RepeatedStratifiedKFold's of the outer seed.
func TestNestedNoLeak(t *testing.T) {
	x, y := synth(t, 2, 30, 3, 3, 1, 6, 0.2)
	var rec recorder
	rec.install(t)
	res, err := NestedCV(context.Background(), legacy(model.Config{}, model.TrainConfig{Seed: 3}), nestedSettings(), model.Sets(x), y,
		Options{Folds: 3, Seed: 5, Workers: 1}, Options{Folds: 2, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	want, err := folds.RepeatedStratifiedKFold(y, 3, 1, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Splits) != 3 || len(res.Folds) != 3 {
		t.Fatalf("%d splits, %d folds, want 3", len(res.Splits), len(res.Folds))
	}
	for f := range want {
		if !slices.Equal(res.Splits[f].Train, want[f].Train) || !slices.Equal(res.Splits[f].Val, want[f].Val) {
			t.Fatalf("outer fold %d is not the stratified K-fold's", f+1)
		}
	}
	index := map[*subspace.Subspace]int{}
	for i, s := range x {
		index[s] = i
	}
	f := 0
	for c, call := range rec.sets {
		if f >= len(want) {
			t.Fatalf("call %d after the last outer fold's final model", c)
		}
		got := make([]int, len(call))
		for i, s := range call {
			got[i] = index[s.Subspace()]
		}
		slices.Sort(got)
		for _, i := range got {
			if slices.Contains(want[f].Val, i) {
				t.Fatalf("outer fold %d: a training received set %d of its test part", f+1, i)
			}
		}
		if slices.Equal(got, want[f].Train) {
			f++ // Tune's final model on the whole outer training part
		}
	}
	if f != len(want) {
		t.Errorf("%d outer folds trained a final model on their training part, want %d", f, len(want))
	}
	for i, r := range res.Folds {
		if r.N != len(want[i].Val) || r.Scores == nil || r.Setting != nestedSettings()[r.Best] || r.Inner.Folds != 2 {
			t.Errorf("outer fold %d: %+v", i+1, r)
		}
	}
	if !(res.Mean > 0.5) || res.Pooled().N != len(y) {
		t.Errorf("mean %g, pooled %d of %d", res.Mean, res.Pooled().N, len(y))
	}
}

// TestNestedWorkers: the same folds, choices and scores for 1 and 2
// workers, and the progress reaches its total.
func TestNestedWorkers(t *testing.T) {
	x, y := synth(t, 5, 30, 3, 3, 2, 6, 0.3)
	var out []*NestedResult
	for _, w := range []int{1, 2} {
		var calls, last, total int
		r, err := NestedCV(context.Background(), legacy(model.Config{}, model.TrainConfig{Seed: 9}), nestedSettings(), model.Sets(x), y,
			Options{Folds: 3, Repeats: 2, Seed: 2, Workers: w, Progress: func(d, n int) { calls++; last, total = d, n }}, Options{Folds: 2, Seed: 4})
		if err != nil {
			t.Fatal(err)
		}
		if calls == 0 || last != total {
			t.Errorf("workers %d: progress ended at %d/%d after %d calls", w, last, total, calls)
		}
		out = append(out, r)
	}
	a, b := out[0], out[1]
	if len(a.Folds) != 6 || a.Mean != b.Mean || a.SD != b.SD {
		t.Fatalf("%d folds; mean %g ± %g with 1 worker, %g ± %g with 2", len(a.Folds), a.Mean, a.SD, b.Mean, b.SD)
	}
	for i := range a.Folds {
		fa, fb := a.Folds[i], b.Folds[i]
		if fa.Best != fb.Best || fa.Correct != fb.Correct || fa.InnerMean != fb.InnerMean || !slices.Equal(a.Splits[i].Val, b.Splits[i].Val) {
			t.Errorf("outer fold %d: %+v with 1 worker, %+v with 2", i+1, fa, fb)
		}
	}
}

func TestNestedErrors(t *testing.T) {
	x, y := synth(t, 8, 30, 3, 2, 1, 6, 0.2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	o := legacy(model.Config{}, model.TrainConfig{})
	if _, err := NestedCV(ctx, o, nestedSettings(), model.Sets(x), y, Options{Folds: 3}, Options{Folds: 2}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	if _, err := NestedCV(context.Background(), o, nil, model.Sets(x), y, Options{Folds: 3}, Options{}); !errors.Is(err, ErrGrid) {
		t.Errorf("no settings: %v", err)
	}
	if _, err := NestedCV(context.Background(), o, nestedSettings(), model.Sets(x), y, Options{Folds: 7}, Options{}); !errors.Is(err, folds.ErrTooSmall) || strings.Contains(err.Error(), "inner folds") {
		t.Errorf("7 outer folds of classes of 6: %v", err)
	}
	// Classes of 6 leave 4 or 5 in an outer training part of 3 folds: 5
	// inner folds are too many, and the error says they are the inner ones.
	if _, err := NestedCV(context.Background(), o, nestedSettings(), model.Sets(x), y, Options{Folds: 3}, Options{Folds: 5}); !errors.Is(err, folds.ErrTooSmall) || !strings.Contains(err.Error(), "tuning on its") || !strings.Contains(err.Error(), "(inner folds)") {
		t.Errorf("5 inner folds of classes of 4: %v", err)
	}
}

// TestNestedDim: a chosen setting of smaller d than the sets' is scored
// on the outer test sets' first d columns, as Tune's folds score it.
func TestNestedDim(t *testing.T) {
	x, y := synth(t, 6, 30, 3, 2, 1, 6, 0.2)
	ss := []Setting{{Prototypes: 1, Eta: 0.05, Epochs: 2, Dim: 1}, {Prototypes: AllSets, Eta: 1, Dim: 2}}
	res, err := NestedCV(context.Background(), legacy(model.Config{}, model.TrainConfig{}), ss, model.Sets(x), y, Options{Folds: 3, Workers: 2}, Options{Folds: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range res.Folds {
		if f.Setting.Dim == 0 || f.N != len(res.Splits[i].Val) {
			t.Errorf("outer fold %d: %+v", i+1, f)
		}
	}
}
