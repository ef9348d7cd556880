package selection

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/grlgq/grlgq/folds"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

// weighted2 is Σ λ_k θ_k² between p and q (brute force, one prototype).
func weighted2(p, q *subspace.Subspace, lambda []float64) float64 {
	m, err := model.Init(legacy(model.Config{PrototypesOfClass: []int{1, 1}}, model.TrainConfig{InitNoise: -1, Init: model.InitSample}), model.Sets([]*subspace.Subspace{q, q}), []int{0, 1})
	if err != nil {
		panic(err)
	}
	r, err := m.Predict(model.Set(p))
	if err != nil {
		panic(err)
	}
	d := p.D()
	s := 0.0
	for k := 0; k < d; k++ {
		s += lambda[k] * r.Angles[k] * r.Angles[k]
	}
	return s
}

// TestLearntNearestNeighbour: AllSetsLearned scores, in every fold, 1-NN
// with the relevances of the one-prototype training of the same fold
// (which it shares with that row), and returns a prototype at every set
// with the relevances of that training on all the data.
func TestLearntNearestNeighbour(t *testing.T) {
	x, y := synth(t, 7, 30, 3, 3, 2, 6, 0.4)
	base := model.TrainConfig{Seed: 5}
	one := Setting{Prototypes: 1, Init: model.InitSample, Relevance: model.RelevanceGlobal, Eta: 0.05, Epochs: 4}
	nnl := Setting{Prototypes: AllSetsLearned, Init: model.InitSample, Relevance: model.RelevanceGlobal, Eta: 0.05, Epochs: 4}
	ss := []Setting{nnl, one}
	res, err := Tune(context.Background(), legacy(model.Config{}, base), ss, model.Sets(x), y, Options{Folds: 3, Seed: 3, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.Best != 0 && res.Table[0].Mean >= res.Table[1].Mean {
		t.Fatalf("best %d with means %v, %v", res.Best, res.Table[0].Mean, res.Table[1].Mean)
	}
	splits, _ := folds.StratifiedKFold(y, 3, 3)
	for f, fo := range splits {
		xt, yt := pick(model.Sets(x), y, fo.Train)
		o := one.Apply(legacy(model.Config{}, base), yt)
		o.Train = foldConfig(o.Train, 1)
		m, _, err := model.Train(context.Background(), o, xt, yt)
		if err != nil {
			t.Fatal(err)
		}
		lam := m.Relevances()
		correct := 0
		for _, i := range fo.Val {
			bestD, bestL := math.Inf(1), -1
			for _, j := range fo.Train {
				if dd := weighted2(x[i], x[j], lam); dd < bestD {
					bestD, bestL = dd, y[j]
				}
			}
			if bestL == y[i] {
				correct++
			}
		}
		if want := float64(correct) / float64(len(fo.Val)); math.Abs(res.Table[0].Folds[f]-want) > 1e-12 {
			t.Errorf("fold %d: %v, brute force %v", f, res.Table[0].Folds[f], want)
		}
	}
	// The model of the row on all the data.
	r2, err := Tune(context.Background(), legacy(model.Config{}, base), []Setting{nnl}, model.Sets(x), y, Options{Folds: 3, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	m1, _, err := model.Train(context.Background(), one.Apply(legacy(model.Config{}, base), y), model.Sets(x), y)
	if err != nil {
		t.Fatal(err)
	}
	if r2.Model.NumPrototypes() != len(x) || r2.Model.Epochs() != 0 || r2.History == nil {
		t.Fatalf("model: %d prototypes (want %d), %d epochs, history %v", r2.Model.NumPrototypes(), len(x), r2.Model.Epochs(), r2.History != nil)
	}
	want, got := m1.Relevances(), r2.Model.Relevances()
	var sum float64
	for k := range want {
		sum += want[k]
	}
	for k := range want {
		if math.Abs(got[k]-want[k]/sum) > 1e-12 {
			t.Fatalf("relevances %v, want %v", got, want)
		}
	}
	if r2.Table[0].Folds[0] != res.Table[0].Folds[0] {
		t.Errorf("alone %v, beside its one-prototype row %v", r2.Table[0].Folds, res.Table[0].Folds)
	}
}

func TestLearntNearestNeighbourCheck(t *testing.T) {
	x, y := synth(t, 7, 30, 3, 3, 2, 6, 0.4)
	for _, s := range []Setting{
		{Prototypes: AllSetsLearned, Init: model.InitSample, Relevance: model.RelevanceLocal, Eta: 0.05, Epochs: 4},
		{Prototypes: AllSetsLearned, Init: model.InitSample, Relevance: model.RelevanceGlobal, Eta: 0.05, Epochs: 0},
		{Prototypes: -3, Init: model.InitSample, Relevance: model.RelevanceGlobal, Eta: 0.05, Epochs: 4},
	} {
		if _, err := Tune(context.Background(), legacy(model.Config{}, model.TrainConfig{}), []Setting{s}, model.Sets(x), y, Options{Folds: 3}); err == nil {
			t.Errorf("%v: no error", s)
		}
	}
	if s := (Setting{Prototypes: AllSetsLearned, Init: model.InitSample, Relevance: model.RelevanceGlobal, Eta: 0.05, Epochs: 50}).String(); s == "" || ProtosName(AllSetsLearned) != "all+λ" {
		t.Errorf("names: %q %q", s, ProtosName(AllSetsLearned))
	}
}

// TestLearntNearestNeighbourWorkers: the 1-NN with learnt relevances gives
// the same table and the same model (bit for bit) with 1 and 2 workers,
// alone and in the default search.
func TestLearntNearestNeighbourWorkers(t *testing.T) {
	x, y := synth(t, 5, 40, 3, 3, 2, 8, 0.3)
	nnl := Setting{Prototypes: AllSetsLearned, Init: model.InitSample, Relevance: model.RelevanceGlobal, Eta: 0.05, Epochs: 3}
	search, opt := DefaultSearch(3, false)
	for _, ss := range [][]Setting{{nnl}, search} {
		var results []*TuneResult
		for _, w := range []int{1, 2} {
			r, err := Tune(context.Background(), legacy(model.Config{}, model.TrainConfig{Seed: 9}), ss, model.Sets(x), y, Options{Folds: 4, Seed: 2, Workers: w, Preferred: DefaultPreferred, Confidence: DefaultConfidence, Rungs: opt.Rungs, Keep: opt.Keep})
			if err != nil {
				t.Fatal(err)
			}
			results = append(results, r)
		}
		a, b := results[0], results[1]
		if a.Best != b.Best {
			t.Fatalf("best %d with 1 worker, %d with 2", a.Best, b.Best)
		}
		for i := range a.Table {
			if !slices.Equal(a.Table[i].Folds, b.Table[i].Folds) {
				t.Errorf("row %d (%s): folds %v with 1 worker, %v with 2", i, a.Table[i].Setting, a.Table[i].Folds, b.Table[i].Folds)
			}
		}
		if string(modelBytes(t, a.Model)) != string(modelBytes(t, b.Model)) {
			t.Errorf("%s: the retrained models differ between 1 and 2 workers", a.BestSetting())
		}
	}
}
