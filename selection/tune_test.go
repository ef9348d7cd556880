package selection

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

// TestTuneTinyClasses: with the automatic folds Tune never fails where
// model.Train works: a class of a single training set is in every fold's
// training part and never validated, a class of 2 sets is validated in 2
// folds only, the plan says so, and a data set where no class can be
// validated gets the first setting trained without scores.
func TestTuneTinyClasses(t *testing.T) {
	x, y := synth(t, 11, 30, 3, 3, 1, 8, 0.3)
	x, y = append(x, x[0], x[1], x[4]), append(y, 3, 4, 4) // class 3: 1 set, class 4: 2
	for i := range x[len(x)-3:] {
		x[len(x)-3+i] = perturbed(t, x[len(x)-3+i], uint64(i))
	}
	ss := []Setting{{Prototypes: 1, Eta: 0.05, Epochs: 2}, {Prototypes: AllSets, Eta: 1}}
	res, err := Tune(context.Background(), legacy(model.Config{}, model.TrainConfig{}), ss, model.Sets(x), y, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	p := res.Plan
	if p.Folds != 5 || !slices.Equal(p.Kept, []int{3}) || !slices.Equal(p.Sparse, []int{4}) || p.Note() == "" {
		t.Fatalf("plan %+v", p)
	}
	single := len(x) - 3
	valid4 := 0
	for f, s := range res.Splits {
		if !slices.Contains(s.Train, single) || slices.Contains(s.Val, single) {
			t.Errorf("fold %d: the class of one set is not (only) in the training part", f+1)
		}
		for _, c := range []int{0, 1, 2, 3, 4} {
			found := false
			for _, i := range s.Train {
				found = found || y[i] == c
			}
			if !found {
				t.Errorf("fold %d trains on no set of class %d", f+1, c)
			}
		}
		for _, i := range s.Val {
			if y[i] == 4 {
				valid4++
			}
		}
		if len(s.Val)+len(s.Train) != len(y) || len(s.Val) == 0 {
			t.Errorf("fold %d: %d validated + %d trained of %d", f+1, len(s.Val), len(s.Train), len(y))
		}
	}
	if valid4 != 2*p.Repeats {
		t.Errorf("class 4 (2 sets) validated %d times over %d repeats, want twice each", valid4, p.Repeats)
	}
	if res.Model == nil || res.Model.NumClasses() != 5 {
		t.Fatalf("model %v", res.Model)
	}
	// Nothing to validate: the first setting, trained, no scores.
	res, err = Tune(context.Background(), legacy(model.Config{}, model.TrainConfig{}), ss, model.Sets(x[:3]), []int{0, 1, 2}, Options{})
	if err != nil || res.Plan.Folds != 0 || res.Best != 0 || res.Model == nil || res.Model.Epochs() != 2 || len(res.Table[0].Folds) != 0 {
		t.Fatalf("no class to validate: %+v, %v", res, err)
	}
}

func perturbed(t *testing.T, s *subspace.Subspace, seed uint64) *subspace.Subspace {
	t.Helper()
	x, _ := synth(t, 100+seed, s.Dim(), s.D(), 1, 1, 1, 0.5)
	return x[0]
}

// TestTuneHalving: successive halving scores every setting on the first
// rung's splits, keeps the references and the best third, and chooses
// among the settings scored on every split; the table and the model are
// the same for 1 and 2 workers.
func TestTuneHalving(t *testing.T) {
	x, y := synth(t, 3, 30, 3, 3, 2, 10, 0.4)
	var ss []Setting
	ss = append(ss, Setting{Prototypes: 1, Eta: 0.05, Epochs: 3}, Setting{Prototypes: AllSets, Eta: 1})
	for _, eta := range []float64{0.01, 0.1, 0.3} {
		for _, beta := range []float64{IdentityCost, 10} {
			ss = append(ss, Setting{Prototypes: 2, Eta: eta, Beta: beta, Gamma: 1e-3, Epochs: 2}, Setting{Prototypes: 2, Eta: eta, Beta: beta, Gamma: 1e-3, Epochs: 4})
		}
	}
	var first *TuneResult
	for _, w := range []int{1, 2} {
		res, err := Tune(context.Background(), legacy(model.Config{}, model.TrainConfig{Seed: 5}), ss, model.Sets(x), y, Options{Folds: 3, Repeats: 2, Seed: 4, Workers: w, Preferred: 2, Rungs: []int{2, 4}})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(res.Rungs, []int{2, 4, 6}) || res.Alive[0] != len(ss) || res.Alive[1] != 2+4 || res.Alive[2] != 2+2 {
			t.Fatalf("rungs %v, alive %v", res.Rungs, res.Alive)
		}
		n := [7]int{}
		for i, r := range res.Table {
			n[len(r.Folds)]++
			if i < 2 && !r.Complete(6) {
				t.Errorf("reference %d scored on %d splits", i, len(r.Folds))
			}
		}
		if n[2] != len(ss)-6 || n[4] != 2 || n[6] != 4 || !res.Table[res.Best].Complete(6) {
			t.Errorf("rows by splits scored %v", n)
		}
		if first == nil {
			first = res
			continue
		}
		if first.Best != res.Best || string(modelBytes(t, first.Model)) != string(modelBytes(t, res.Model)) {
			t.Errorf("1 and 2 workers: best %d and %d, or different models", first.Best, res.Best)
		}
		for i := range res.Table {
			if !slices.Equal(first.Table[i].Folds, res.Table[i].Folds) {
				t.Errorf("row %d: %v with 1 worker, %v with 2", i, first.Table[i].Folds, res.Table[i].Folds)
			}
		}
	}
}

// TestTuneDim: a setting of d' angles on sets of more columns trains and
// scores on their first d' columns, as if the sets had been built with d'.
func TestTuneDim(t *testing.T) {
	x, y := synth(t, 8, 30, 4, 2, 1, 8, 0.3)
	short := make([]*subspace.Subspace, len(x))
	for i, s := range x {
		var err error
		if short[i], err = subspace.Truncate(s, 2); err != nil {
			t.Fatal(err)
		}
	}
	base := legacy(model.Config{}, model.TrainConfig{Seed: 2})
	a, err := Tune(context.Background(), base, []Setting{{Prototypes: 1, Eta: 0.1, Epochs: 3, Dim: 2}}, model.Sets(x), y, Options{Folds: 3})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Tune(context.Background(), base, []Setting{{Prototypes: 1, Eta: 0.1, Epochs: 3}}, model.Sets(short), y, Options{Folds: 3})
	if err != nil {
		t.Fatal(err)
	}
	if a.Model.SubspaceDim() != 2 || !slices.Equal(a.Table[0].Folds, b.Table[0].Folds) || string(modelBytes(t, a.Model)) != string(modelBytes(t, b.Model)) {
		t.Errorf("d=2 of 4 columns: d %d, folds %v, want %v and the model of the truncated sets", a.Model.SubspaceDim(), a.Table[0].Folds, b.Table[0].Folds)
	}
	if _, err := Tune(context.Background(), base, []Setting{{Prototypes: 1, Eta: 0.1, Epochs: 3, Dim: 5}}, model.Sets(x), y, Options{Folds: 3}); err == nil {
		t.Error("d=5 on sets of 4 columns: no error")
	}
}

// TestDefaultSearchImages: the default search on single images (no
// prototype at a training sample, no truncation) runs end to end.
func TestDefaultSearchImages(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	var x []model.Sample
	var y []int
	for i := range 36 {
		c := i % 3
		img := make([]float64, 12)
		for r := range img {
			img[r] = 0.3 * rng.NormFloat64()
		}
		img[c] += 2
		img[c+3]++
		x, y = append(x, model.Image(img)), append(y, c)
	}
	base := model.DefaultOptions()
	base.Model.SubspaceDim = 2
	ss, opt := DefaultSearch(2, true)
	opt.Seed = 1
	res, err := Tune(context.Background(), base, ss, x, y, opt)
	if err != nil {
		t.Fatal(err)
	}
	if res.Model == nil || res.Model.SubspaceDim() != 2 || !res.Table[res.Best].Complete(len(res.Splits)) || !(res.Table[res.Best].Mean > 0.8) {
		t.Fatalf("best %s: %.2f on %d of %d splits", res.BestSetting(), res.Table[res.Best].Mean, len(res.Table[res.Best].Folds), len(res.Splits))
	}
}

// TestTuneChordal: the distance axis. Once the model accepts the chordal
// distance, DefaultSearch draws it and holds chordal 1-NN, and a chordal
// setting gives a chordal model.
func TestTuneChordal(t *testing.T) {
	if !slices.Contains(Distances(), model.Chordal) {
		t.Skip("the model does not accept Config.Distance = Chordal")
	}
	ss, _ := DefaultSearch(3, false)
	nn, drawn := false, false
	for _, s := range ss {
		nn = nn || s.NearestNeighbour() && s.Distance == model.Chordal
		drawn = drawn || s.Epochs > 0 && s.Distance == model.Chordal
	}
	if !nn || !drawn {
		t.Errorf("DefaultSearch: chordal 1-NN %v, chordal trainings %v", nn, drawn)
	}
	x, y := synth(t, 3, 30, 3, 3, 1, 8, 0.3)
	res, err := Tune(context.Background(), legacy(model.Config{}, model.TrainConfig{}), []Setting{{Prototypes: 1, Eta: 0.05, Epochs: 3, Distance: model.Chordal}}, model.Sets(x), y, Options{Folds: 3})
	if err != nil {
		t.Fatal(err)
	}
	if d := res.Model.Config().Distance; d != model.Chordal {
		t.Errorf("model distance %s, want chordal", d)
	}
}
