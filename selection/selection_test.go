package selection

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/grlgq/grlgq/folds"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

func TestGridErrors(t *testing.T) {
	bad := []Grid{
		{},
		{Prototypes: []int{0}, Inits: []model.InitKind{0}, Relevances: []model.RelevanceKind{0}, Etas: []float64{0.1}, Epochs: []int{1}},
		{Prototypes: []int{1}, Inits: []model.InitKind{0}, Relevances: []model.RelevanceKind{0}, Etas: []float64{-1}, Epochs: []int{1}},
		{Prototypes: []int{1}, Inits: []model.InitKind{0}, Relevances: []model.RelevanceKind{0}, Etas: []float64{0.1}, Epochs: []int{-2}},
		{Prototypes: []int{1}, Inits: []model.InitKind{0}, Relevances: []model.RelevanceKind{0}, Etas: []float64{0.1}},
	}
	for i, g := range bad {
		if _, err := g.Settings(); !errors.Is(err, ErrGrid) {
			t.Errorf("grid %d: %v, want ErrGrid", i, err)
		}
	}
	x, y := synth(t, 1, 20, 2, 2, 1, 4, 0.1)
	if _, err := Tune(context.Background(), legacy(model.Config{}, model.TrainConfig{}), nil, model.Sets(x), y, Options{Folds: 2}); !errors.Is(err, ErrGrid) {
		t.Errorf("Tune without settings: %v", err)
	}
	if _, err := Tune(context.Background(), legacy(model.Config{}, model.TrainConfig{}), []Setting{{Prototypes: 1, Eta: math.NaN(), Epochs: 1}}, model.Sets(x), y, Options{Folds: 2}); !errors.Is(err, ErrGrid) || !strings.Contains(err.Error(), "setting 1") {
		t.Errorf("Tune with a NaN rate: %v", err)
	}
	// Bad data is the module's one ErrData, whichever package refuses it.
	if _, err := CrossValidate(context.Background(), legacy(model.Config{}, model.TrainConfig{}), model.Sets(x), y[:len(y)-1], Options{Folds: 2}); !errors.Is(err, ErrData) || !errors.Is(err, model.ErrData) {
		t.Errorf("CrossValidate with a label missing: %v, want selection.ErrData that is model.ErrData", err)
	}
	// Rungs that do not ascend from 1 were dropped without a word.
	one := []Setting{{Prototypes: 1, Eta: 0.1, Epochs: 1}}
	for _, r := range [][]int{{-1}, {0, 2}, {2, 2}, {3, 1}} {
		if _, err := Tune(context.Background(), legacy(model.Config{}, model.TrainConfig{}), one, model.Sets(x), y, Options{Folds: 2, Rungs: r}); !errors.Is(err, ErrGrid) || !strings.Contains(err.Error(), "rungs") {
			t.Errorf("Tune with rungs %v: %v", r, err)
		}
	}
	if _, err := Tune(context.Background(), legacy(model.Config{}, model.TrainConfig{}), one, model.Sets(x), y, Options{Folds: 2, Rungs: []int{1, 5}}); err != nil {
		t.Errorf("Tune with rungs [1 5] (5 beyond the splits: dropped): %v", err)
	}
	// A class too small for the folds: named, with its size.
	_, err := Tune(context.Background(), legacy(model.Config{}, model.TrainConfig{}), []Setting{{Prototypes: 1, Eta: 0.1, Epochs: 1}}, model.Sets(x), y, Options{Folds: 5})
	if !errors.Is(err, folds.ErrTooSmall) || !strings.Contains(err.Error(), "class 0 has 4 sets") {
		t.Errorf("folds > class size: %v", err)
	}
	_, err = CrossValidate(context.Background(), legacy(model.Config{}, model.TrainConfig{}), model.Sets(x), y, Options{Folds: 5})
	if !errors.Is(err, folds.ErrTooSmall) {
		t.Errorf("CrossValidate, folds > class size: %v", err)
	}
	// Deduplication: untrained settings ignore relevance and η.
	g := Grid{Prototypes: []int{1, AllSets}, Inits: []model.InitKind{model.InitSample, model.InitPCA}, Relevances: []model.RelevanceKind{0, 2}, Etas: []float64{0.1, 0.2}, Epochs: []int{0}, NearestNeighbour: true}
	ss, err := g.Settings()
	if err != nil {
		t.Fatal(err)
	}
	if len(ss) != 3 {
		t.Errorf("%d settings, want 3 (sample, pca, 1-NN): %v", len(ss), ss)
	}
}

// recorder replaces the model's entry points and records the samples
// each training and initialisation receives.
type recorder struct {
	mu   sync.Mutex
	sets [][]model.Sample
}

func (r *recorder) install(t *testing.T) {
	train0, init0, cont0 := train, initModel, cont
	t.Cleanup(func() { train, initModel, cont = train0, init0, cont0 })
	note := func(x []model.Sample) {
		r.mu.Lock()
		r.sets = append(r.sets, slices.Clone(x))
		r.mu.Unlock()
	}
	train = func(ctx context.Context, o model.Options, x []model.Sample, y []int) (*model.Model, *model.History, error) {
		note(x)
		return model.Train(ctx, o, x, y)
	}
	initModel = func(o model.Options, x []model.Sample, y []int) (*model.Model, error) {
		note(x)
		return model.Init(o, x, y)
	}
	cont = func(ctx context.Context, m *model.Model, tc model.TrainConfig, x []model.Sample, y []int) (*model.Model, *model.History, error) {
		note(x)
		return model.Continue(ctx, m, tc, x, y)
	}
}

// TestNoLeak checks that no fold's training (initialisation included)
// receives a set of its validation part, and that the final model trains
// on exactly the given sets.
func TestNoLeak(t *testing.T) {
	x, y := synth(t, 2, 30, 3, 3, 1, 6, 0.2)
	var rec recorder
	rec.install(t)
	opt := Options{Folds: 3, Seed: 5, Workers: 2}
	ss := []Setting{{Prototypes: 1, Eta: 0.05, Epochs: 2}, {Prototypes: 1, Eta: 0.05, Epochs: 4}, {Prototypes: AllSets, Eta: 1}}
	res, err := Tune(context.Background(), legacy(model.Config{}, model.TrainConfig{Seed: 3}), ss, model.Sets(x), y, opt)
	if err != nil {
		t.Fatal(err)
	}
	splits, _ := folds.StratifiedKFold(y, 3, 5)
	index := map[*subspace.Subspace]int{}
	for i, s := range x {
		index[s] = i
	}
	checkCalls := func(calls [][]model.Sample, wantFinal bool) {
		t.Helper()
		final := 0
		for _, call := range calls {
			got := make([]int, len(call))
			for i, s := range call {
				j, ok := index[s.Subspace()]
				if !ok {
					t.Fatalf("a training received a set that is not among the inputs")
				}
				got[i] = j
			}
			slices.Sort(got)
			if len(got) == len(x) {
				final++
				continue
			}
			matched := false
			for _, f := range splits {
				if slices.Equal(got, f.Train) {
					matched = true
				}
			}
			if !matched {
				t.Errorf("a training received sets %v: not any fold's training part", got)
			}
		}
		if wantFinal && final != 1 {
			t.Errorf("%d trainings on all the sets, want 1 (the final model)", final)
		}
	}
	checkCalls(rec.sets, true)
	if res.Model == nil {
		t.Fatal("no model")
	}
	rec.sets = nil
	if _, err := CrossValidate(context.Background(), legacy(model.Config{}, model.TrainConfig{Seed: 3, Epochs: 2}), model.Sets(x), y, opt); err != nil {
		t.Fatal(err)
	}
	checkCalls(rec.sets, false)
	if len(rec.sets) != 3 {
		t.Errorf("CrossValidate trained %d times, want 3", len(rec.sets))
	}
}

// TestReadsOnlyItsInput gives Tune a window of a larger slice whose other
// entries would fail any training (NaN bases), and checks that the inputs
// are not modified.
func TestReadsOnlyItsInput(t *testing.T) {
	x, y := synth(t, 3, 30, 3, 2, 1, 6, 0.2)
	poison, _ := synth(t, 4, 30, 3, 2, 1, 2, 0.2)
	for _, p := range poison {
		for i := range p.Basis.Data {
			p.Basis.Data[i] = math.NaN()
		}
	}
	all := append(append(slices.Clone(poison[:2]), x...), poison[2:]...)
	ally := append(append([]int{0, 1}, y...), 0, 1)
	xs, ys := all[2:2+len(x):2+len(x)], ally[2:2+len(y):2+len(y)]
	before := make([][]float64, len(xs))
	for i, s := range xs {
		before[i] = slices.Clone(s.Basis.Data)
	}
	ycopy := slices.Clone(ys)
	ss := []Setting{{Prototypes: 2, Eta: 0.05, Epochs: 3}, {Prototypes: AllSets, Eta: 1}}
	if _, err := Tune(context.Background(), legacy(model.Config{}, model.TrainConfig{}), ss, model.Sets(xs), ys, Options{Folds: 3, Workers: 2}); err != nil {
		t.Fatalf("Tune read outside its input (or failed): %v", err)
	}
	for i, s := range xs {
		if !slices.Equal(before[i], s.Basis.Data) {
			t.Fatalf("set %d modified", i)
		}
	}
	if !slices.Equal(ycopy, ys) {
		t.Fatal("labels modified")
	}
}

func modelBytes(t *testing.T, m *model.Model) []byte {
	t.Helper()
	var b strings.Builder
	if err := m.Save(&b); err != nil {
		t.Fatal(err)
	}
	return []byte(b.String())
}

// TestWorkersDeterminism: same seed, same table, choice and model (bit for
// bit) with 1 and 2 workers.
func TestWorkersDeterminism(t *testing.T) {
	x, y := synth(t, 5, 40, 3, 3, 2, 8, 0.3)
	g := Grid{Prototypes: []int{1, 2}, Inits: []model.InitKind{model.InitSample, model.InitPCA}, Relevances: []model.RelevanceKind{model.RelevanceGlobal, model.RelevanceLocal}, Etas: []float64{0.05}, Epochs: []int{0, 3, 6}, NearestNeighbour: true}
	ss, err := g.Settings()
	if err != nil {
		t.Fatal(err)
	}
	var results []*TuneResult
	for _, w := range []int{1, 2} {
		var calls, last, total int
		r, err := Tune(context.Background(), legacy(model.Config{}, model.TrainConfig{Seed: 9}), ss, model.Sets(x), y, Options{Folds: 4, Seed: 2, Workers: w,
			Progress: func(done, tot int) { calls++; last, total = done, tot }})
		if err != nil {
			t.Fatal(err)
		}
		if calls == 0 || last != total {
			t.Errorf("workers %d: progress ended at %d/%d after %d calls", w, last, total, calls)
		}
		results = append(results, r)
	}
	a, b := results[0], results[1]
	if a.Best != b.Best {
		t.Fatalf("best %d (%s) with 1 worker, %d (%s) with 2", a.Best, a.BestSetting(), b.Best, b.BestSetting())
	}
	for i := range a.Table {
		if !slices.Equal(a.Table[i].Folds, b.Table[i].Folds) {
			t.Errorf("row %d (%s): folds %v with 1 worker, %v with 2", i, a.Table[i].Setting, a.Table[i].Folds, b.Table[i].Folds)
		}
	}
	if string(modelBytes(t, a.Model)) != string(modelBytes(t, b.Model)) {
		t.Error("the retrained models differ between 1 and 2 workers")
	}
}

// TestEpochChain: a row scored on the way to more epochs is what training
// that setting alone gives.
func TestEpochChain(t *testing.T) {
	x, y := synth(t, 6, 30, 3, 2, 1, 6, 0.3)
	both, err := Tune(context.Background(), legacy(model.Config{}, model.TrainConfig{Seed: 4}), []Setting{{Prototypes: 1, Eta: 0.05, Epochs: 2}, {Prototypes: 1, Eta: 0.05, Epochs: 5}}, model.Sets(x), y, Options{Folds: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	alone, err := CrossValidate(context.Background(), legacy(model.Config{PrototypesPerClass: 1}, model.TrainConfig{Seed: 4, Epochs: 5, Eta: 0.05}), model.Sets(x), y, Options{Folds: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for f, s := range alone.Folds {
		if both.Table[1].Folds[f] != s.Accuracy {
			t.Errorf("fold %d: %v in the chain, %v alone", f, both.Table[1].Folds[f], s.Accuracy)
		}
	}
	if both.Table[1].Mean != alone.Mean || both.Table[1].SD != alone.SD {
		t.Errorf("mean ± sd %v ± %v in the chain, %v ± %v alone", both.Table[1].Mean, both.Table[1].SD, alone.Mean, alone.SD)
	}
	// The folds' scores pool to every sample counted once.
	p := alone.Pooled()
	correct := 0
	for f, s := range alone.Folds {
		correct += s.Correct
		if s.Scores == nil || s.Scores.Correct != s.Correct || s.Scores.N != s.N {
			t.Errorf("fold %d: scores %+v, fold %+v", f, s.Scores, s)
		}
	}
	support := 0
	for _, c := range p.Report().Classes {
		support += c.Support
	}
	if p.N != len(y) || p.Correct != correct || support != len(y) {
		t.Errorf("pooled N %d correct %d support %d; want %d, %d, %d", p.N, p.Correct, support, len(y), correct, len(y))
	}
}

func TestTieRule(t *testing.T) {
	rows := []Row{
		{Setting: Setting{Prototypes: 1, Epochs: 50}, Mean: 0.8, Folds: []float64{0.8, 0.8, 0.8, 0.8}},
		{Setting: Setting{Prototypes: AllSets}, Mean: 0.9, Folds: []float64{0.6, 1, 1, 1}},
		{Setting: Setting{Prototypes: 1, Epochs: 10}, Mean: 0.9, Folds: []float64{0.9, 0.9, 0.9, 0.9}},
		{Setting: Setting{Prototypes: 5, Epochs: 10}, Mean: 0.85, Folds: []float64{0.85, 0.85, 0.85, 0.85}},
	}
	if b := best(rows, 4, 1, 0); b != 1 {
		t.Errorf("best %d, want 1 (highest mean, first among equals)", b)
	}
	// Row 1's gain over row 0 (0.1 ± 0.2, 4 folds) is not confident at
	// z = 2 (0.1 < 2·0.2/2), row 2's (0.1 ± 0) is.
	if b := best(rows, 4, 1, 2); b != 2 {
		t.Errorf("z = 2: best %d, want 2", b)
	}
	rows[2].Folds = []float64{0.7, 1, 1, 0.9}
	if b := best(rows, 4, 1, 2); b != 3 {
		t.Errorf("z = 2: best %d, want 3 (the only confident gain)", b)
	}
	rows[3].Folds = []float64{0.8, 0.8, 0.8, 1}
	if b := best(rows, 4, 1, 2); b != 0 {
		t.Errorf("z = 2: best %d, want 0 (no confident gain)", b)
	}
	// Two references: row 1 wins on its mean alone; row 2 (0.9, the same
	// mean) is not higher; row 3 is not confidently better than row 1.
	if b := best(rows, 4, 2, 2); b != 1 {
		t.Errorf("2 preferred, z = 2: best %d, want 1", b)
	}
}

// TestNearestNeighbourSetting: AllSets without training is 1-NN on the
// geodesic distance.
func TestNearestNeighbourSetting(t *testing.T) {
	x, y := synth(t, 7, 30, 3, 3, 2, 5, 0.4)
	res, err := Tune(context.Background(), legacy(model.Config{}, model.TrainConfig{}), []Setting{{Prototypes: AllSets, Eta: 1}}, model.Sets(x), y, Options{Folds: 5, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Model.NumPrototypes() != len(x) || res.History != nil || res.Model.Epochs() != 0 {
		t.Fatalf("1-NN model: %d prototypes (want %d), %d epochs", res.Model.NumPrototypes(), len(x), res.Model.Epochs())
	}
	splits, _ := folds.StratifiedKFold(y, 5, 3)
	for f, fo := range splits {
		correct := 0
		for _, i := range fo.Val {
			bestD, bestL := math.Inf(1), -1
			for _, j := range fo.Train {
				dd := geodesic2(x[i], x[j])
				if dd < bestD {
					bestD, bestL = dd, y[j]
				}
			}
			if bestL == y[i] {
				correct++
			}
		}
		want := float64(correct) / float64(len(fo.Val))
		if math.Abs(res.Table[0].Folds[f]-want) > 1e-12 {
			t.Errorf("fold %d: %v, brute-force 1-NN %v", f, res.Table[0].Folds[f], want)
		}
	}
}

// geodesic2 is Σθ² between two subspaces, by a plain SVD of PᵀQ.
func geodesic2(p, q *subspace.Subspace) float64 {
	m, err := model.Init(legacy(model.Config{PrototypesOfClass: []int{1, 1}}, model.TrainConfig{InitNoise: -1, Init: model.InitSample}), model.Sets([]*subspace.Subspace{q, q}), []int{0, 1})
	if err != nil {
		panic(err)
	}
	r, err := m.Predict(model.Set(p))
	if err != nil {
		panic(err)
	}
	return r.Distances[0]
}

func TestCancelledTuning(t *testing.T) {
	x, y := synth(t, 9, 30, 3, 2, 1, 6, 0.2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Tune(ctx, legacy(model.Config{}, model.TrainConfig{}), []Setting{{Prototypes: 1, Eta: 0.05, Epochs: 3}}, model.Sets(x), y, Options{Folds: 3})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestCrossValidateCancel(t *testing.T) {
	x, y := synth(t, 8, 30, 3, 2, 1, 6, 0.2)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := CrossValidate(ctx, legacy(model.Config{}, model.TrainConfig{Epochs: 3}), model.Sets(x), y, Options{Folds: 3}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	r, err := CrossValidate(context.Background(), legacy(model.Config{}, model.TrainConfig{Epochs: 3}), model.Sets(x), y, Options{Folds: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Folds) != 3 || !(r.Mean > 0.5) || r.SD < 0 {
		t.Errorf("result %+v", r)
	}
}

// TestTuneImages: the tuner and cross-validation work on single images
// (model.Image samples), the same for 1 and 2 workers, and refuse the
// nearest-neighbour settings, whose prototypes are training sets.
func TestTuneImages(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	const dim, classes, per = 20, 3, 12
	var x []model.Sample
	var y []int
	for i := 0; i < per; i++ {
		for c := 0; c < classes; c++ {
			img := make([]float64, dim)
			for r := range img {
				img[r] = 0.3 * rng.NormFloat64()
			}
			img[c] += 2
			img[c+3] += 1
			x, y = append(x, model.Image(img)), append(y, c)
		}
	}
	base := model.DefaultOptions()
	base.Model.SubspaceDim = 2
	base.Train.Init, base.Train.Seed = model.InitPCA, 3
	ss := []Setting{{Prototypes: 1, Init: model.InitPCA, Relevance: model.RelevanceGlobal, Eta: 0.05, Epochs: 2}, {Prototypes: 1, Init: model.InitPCA, Relevance: model.RelevanceGlobal, Eta: 0.05, Epochs: 4}, {Prototypes: 2, Init: model.InitSample, Relevance: model.RelevanceGlobal, Eta: 0.1, Epochs: 3}}
	var models [][]byte
	for _, w := range []int{1, 2} {
		res, err := Tune(context.Background(), base, ss, x, y, Options{Folds: 3, Seed: 1, Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		if res.Model == nil || res.Plan.Folds != 3 || len(res.Table[0].Folds) != 3 {
			t.Fatalf("result %+v", res)
		}
		models = append(models, modelBytes(t, res.Model))
	}
	if !slices.Equal(models[0], models[1]) {
		t.Error("1 and 2 workers: different models")
	}
	cv, err := CrossValidate(context.Background(), base, x, y, Options{Folds: 3, Seed: 1})
	if err != nil || len(cv.Folds) != 3 || !(cv.Mean > 0.5) {
		t.Fatalf("cross-validation of images: %+v, %v", cv, err)
	}
	for _, s := range []Setting{{Prototypes: AllSets, Eta: 1}, {Prototypes: AllSetsLearned, Init: model.InitSample, Relevance: model.RelevanceGlobal, Eta: 0.05, Epochs: 2}} {
		if _, err := Tune(context.Background(), base, []Setting{s}, x, y, Options{Folds: 3}); !errors.Is(err, ErrGrid) {
			t.Errorf("%s on images: %v, want ErrGrid", s, err)
		}
	}
}

// TestPlanFolds: the automatic folds (DefaultFolds, never lowered for a
// small class: such a class is validated in fewer folds, a class of one
// sample kept in every training part), the folds given, and the plan
// without cross-validation.
func TestPlanFolds(t *testing.T) {
	y := make([]int, 0, 60)
	for i := 0; i < 57; i++ {
		y = append(y, i%3)
	}
	y = append(y, 3, 3, 3) // class 3: 3 samples
	if p := PlanFolds(y, Options{}); p.Folds != 5 || p.Repeats != 2 || p.Lowered || p.Class != 3 || p.Size != 3 || !slices.Equal(p.Sparse, []int{3}) || p.Kept != nil || p.Note() == "" {
		t.Errorf("automatic: %+v, want 5 folds, 2 repeats, class 3 of 3 sparse", p)
	}
	if p := PlanFolds(y, Options{Folds: 5}); p.Folds != 5 || p.Repeats != 1 || p.Lowered || p.Class != 3 || p.Sparse != nil {
		t.Errorf("given: %+v", p)
	}
	if p := PlanFolds(y[:58], Options{Repeats: 4}); p.Folds != 5 || p.Repeats != 4 || !slices.Equal(p.Kept, []int{3}) {
		t.Errorf("a class of one sample: %+v", p)
	}
	if p := PlanFolds([]int{0, 1, 1, 2}, Options{}); p.Folds != 2 || !p.Lowered || !slices.Equal(p.Kept, []int{0, 2}) {
		t.Errorf("two samples to validate: %+v, want 2 folds (lowered)", p)
	}
	if p := PlanFolds([]int{0, 1, 2}, Options{}); p.Folds != 0 || p.Note() == "" {
		t.Errorf("nothing to validate: %+v", p)
	}
	if _, err := CrossValidate(context.Background(), model.DefaultOptions(), make([]model.Sample, 58), y[:58], Options{}); !errors.Is(err, folds.ErrTooSmall) || !strings.Contains(err.Error(), "class 3 has 1 sample") {
		t.Errorf("a class of one sample: %v", err)
	}
}
