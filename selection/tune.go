package selection

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/grlgq/grlgq/folds"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/score"
)

// Row is one setting's line of the tuner's table.
type Row struct {
	Setting Setting
	// Mean and SD (n−1) of the folds' accuracies; Folds the accuracies.
	Mean, SD float64
	Folds    []float64
	// Duration is the wall time the setting cost summed over the folds
	// (for a setting scored on the way to more epochs, the time up to its
	// own epochs).
	Duration time.Duration
}

// TuneResult is the outcome of Tune.
type TuneResult struct {
	// Table has one row per setting, in the order given.
	Table []Row
	// Best is the index in Table of the chosen setting: the highest mean
	// accuracy, ties to the first in the table; with Options.Confidence,
	// the best of the preferred settings unless a later one is confidently
	// better (see Options.Preferred). The order of the settings
	// is thus their order of preference: DefaultSettings starts with the
	// package defaults and 1-NN. (A rule "the simplest among ties" picked
	// untrained or barely trained settings whenever several settings were
	// perfect on the inner folds, and lost on the held-out data; see
	// docs/tuning.md.)
	Best int
	// Model is the chosen setting trained on all the data given to Tune
	// (untrained for Epochs 0), History its training (nil for Epochs 0).
	Model   *model.Model
	History *model.History
	// Folds is K, Repeats the repetitions: each row has K·Repeats scores.
	Folds, Repeats int
	// Plan is the cross-validation that ran (Folds and Repeats, and whether
	// K was lowered to the smallest class).
	Plan Plan
	// Splits are the folds, in the order of every row's Folds (for
	// baselines on the same folds: package baseline).
	Splits []folds.Fold
}

// BestSetting returns the chosen setting.
func (r *TuneResult) BestSetting() Setting { return r.Table[r.Best].Setting }

// Tune scores every setting by stratified cross-validation (PlanFolds)
// of base (with the setting applied, see Setting.Apply) on (x, y), sets
// or single images, picks the best (TuneResult.Best has the rule) and
// retrains it on all of (x, y). It reads only x and y. In the folds the
// validation part is the fold's, so base.Train's ValidationFraction,
// Patience and AverageLast are not used there (the epochs are a dimension
// of the grid); the final training uses base as given with the chosen
// setting, and the model predicts with base.Predict (which plays no part
// in the scores). The nearest-neighbour settings (AllSets,
// AllSetsLearned) place a prototype at every training set: they need
// sets. Trainings run in parallel (Options); the result does not depend
// on opt.Workers.
func Tune(ctx context.Context, base model.Options, settings []Setting, x []model.Sample, y []int, opt Options) (*TuneResult, error) {
	opt = opt.withDefaults()
	if len(settings) == 0 {
		return nil, fmt.Errorf("selection: %w: no settings", ErrGrid)
	}
	for i, s := range settings {
		if err := s.check(); err != nil {
			return nil, fmt.Errorf("selection: %w: setting %d: %v", ErrGrid, i+1, err)
		}
	}
	if len(x) != len(y) {
		return nil, fmt.Errorf("selection: %w: %d samples and %d labels", ErrData, len(x), len(y))
	}
	if !(opt.Confidence >= 0 && opt.Confidence <= 100) {
		return nil, fmt.Errorf("selection: %w: confidence %g outside [0, 100]", ErrGrid, opt.Confidence)
	}
	if len(x) > 0 && !isSet(x[0]) {
		for i, s := range settings {
			if s.Prototypes == AllSets || s.Prototypes == AllSetsLearned {
				return nil, fmt.Errorf("selection: %w: setting %d (%s) places a prototype at every training set: single images cannot be prototypes", ErrGrid, i+1, s)
			}
		}
	}
	splits, plan, err := splits(y, opt)
	if err != nil {
		return nil, err
	}
	base.Train.OnEpoch = nil

	// Group the settings into chains (one training per fold each) with
	// their ascending epoch checkpoints.
	type chainRun struct {
		key    chain
		epochs []int
		rows   [][]int // per checkpoint, the rows it scores
	}
	var chains []*chainRun
	byKey := map[chain]*chainRun{}
	for i, s := range settings {
		k := s.chain()
		c := byKey[k]
		if c == nil {
			c = &chainRun{key: k}
			byKey[k] = c
			chains = append(chains, c)
		}
		j, found := slices.BinarySearch(c.epochs, s.Epochs)
		if !found {
			c.epochs = slices.Insert(c.epochs, j, s.Epochs)
			c.rows = slices.Insert(c.rows, j, nil)
		}
		c.rows[j] = append(c.rows[j], i)
	}

	// Work units (for the progress bar): epochs x prototypes per class.
	n := float64(len(y))
	classes := 0
	for _, v := range y {
		classes = max(classes, v+1)
	}
	perClass := func(p int) int {
		if p == AllSetsLearned {
			return 1
		}
		if p == AllSets {
			return max(int(n/float64(max(classes, 1))), 1)
		}
		return p
	}
	total := 0
	for _, c := range chains {
		total += len(splits) * (c.epochs[len(c.epochs)-1]*perClass(c.key.Prototypes) + len(c.epochs))
	}
	finalUnits := 0
	for _, s := range settings {
		finalUnits = max(finalUnits, s.Epochs*perClass(s.Prototypes))
	}
	prog := newProgress(opt.Progress, total+finalUnits)

	// One job per (chain, fold), longest chains first for the balance.
	type job struct{ c, f int }
	jobs := make([]job, 0, len(chains)*len(splits))
	for ci := range chains {
		for f := range splits {
			jobs = append(jobs, job{ci, f})
		}
	}
	cost := func(j job) int {
		c := chains[j.c]
		return c.epochs[len(c.epochs)-1] * perClass(c.key.Prototypes)
	}
	slices.SortStableFunc(jobs, func(a, b job) int { return cost(b) - cost(a) })
	inner := max(opt.Workers/len(jobs), 1)

	acc := make([][]float64, len(settings)) // [row][fold]
	dur := make([][]time.Duration, len(settings))
	for i := range acc {
		acc[i] = make([]float64, len(splits))
		dur[i] = make([]time.Duration, len(splits))
	}
	err = parallel(ctx, len(jobs), opt.Workers, func(ji int) error {
		j := jobs[ji]
		c := chains[j.c]
		xt, yt := pick(x, y, splits[j.f].Train)
		xv, yv := pick(x, y, splits[j.f].Val)
		k := c.key
		fo := Setting{k.Prototypes, k.Init, k.Relevance, k.Eta, 1}.Apply(base, yt)
		fo.Train = foldConfig(fo.Train, inner)
		t0 := time.Now()
		fail := func(e int, err error) error {
			return fmt.Errorf("selection: %s, fold %d, epoch %d: %w", Setting{c.key.Prototypes, c.key.Init, c.key.Relevance, c.key.Eta, e}, j.f+1, e, err)
		}
		m, err := initModel(fo, xt, yt)
		if err != nil {
			return fail(0, err)
		}
		at := 0
		per := perClass(c.key.Prototypes)
		for k, e := range c.epochs {
			if e > at {
				cc := fo.Train
				cc.Epochs = e - at
				cc.OnEpoch = func(model.EpochStats) error { prog.add(per); return nil }
				if m, _, err = cont(ctx, m, cc, xt, yt); err != nil {
					return fail(e, err)
				}
				at = e
			}
			// The rows of the checkpoint: the trained model's score, and
			// that of 1-NN with its relevances (AllSetsLearned).
			var scored [2]bool
			var accs [2]float64
			for _, r := range c.rows[k] {
				l := 0
				if settings[r].Prototypes == AllSetsLearned {
					l = 1
				}
				if !scored[l] {
					sm := m
					if l == 1 {
						if sm, err = learntNN(base, m, xt, yt, inner); err != nil {
							return fail(e, err)
						}
					}
					correct, err := countCorrect(sm, xv, yv)
					if err != nil {
						return fail(e, err)
					}
					scored[l], accs[l] = true, float64(correct)/float64(len(yv))
				}
				acc[r][j.f], dur[r][j.f] = accs[l], time.Since(t0)
			}
			prog.add(1)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}

	res := &TuneResult{Table: make([]Row, len(settings)), Folds: plan.Folds, Repeats: plan.Repeats, Plan: plan, Splits: splits}
	for i, s := range settings {
		r := Row{Setting: s, Folds: acc[i]}
		r.Mean, r.SD = score.MeanSD(acc[i])
		for _, d := range dur[i] {
			r.Duration += d
		}
		res.Table[i] = r
	}
	res.Best = best(res.Table, opt.Preferred, opt.Confidence)

	// Retrain the best on everything.
	s := res.Table[res.Best].Setting
	fin := s.Apply(base, y)
	fin.Train.Workers = opt.Workers
	if s.Epochs == 0 {
		if res.Model, err = initModel(fin, x, y); err != nil {
			return nil, fmt.Errorf("selection: %s on all the data: %w", s, err)
		}
	} else {
		per := perClass(s.Prototypes)
		fin.Train.OnEpoch = func(model.EpochStats) error { prog.add(per); return nil }
		if res.Model, res.History, err = train(ctx, fin, x, y); err != nil {
			return nil, fmt.Errorf("selection: %s on all the data: %w", s, err)
		}
		if s.Prototypes == AllSetsLearned {
			if res.Model, err = learntNN(base, res.Model, x, y, opt.Workers); err != nil {
				return nil, fmt.Errorf("selection: %s on all the data: %w", s, err)
			}
		}
	}
	if prog.fn != nil {
		prog.done = prog.total - 1
		prog.add(1)
	}
	return res, nil
}

// learntNN returns the 1-NN model of (x, y) (a prototype at every set,
// base's other options) with the global relevances of m.
func learntNN(base model.Options, m *model.Model, x []model.Sample, y []int, workers int) (*model.Model, error) {
	o := Setting{AllSets, model.InitSample, model.RelevanceGlobal, 1, 0}.Apply(base, y)
	o.Train.Workers = workers
	o.Train.OnEpoch = nil
	nn, err := initModel(o, x, y)
	if err != nil {
		return nil, err
	}
	return nn.WithRelevances(m.Relevances())
}

// foldConfig is the TrainConfig of a training inside a fold: no
// validation split, early stopping or averaging of its own (the fold
// validates), workers as given.
func foldConfig(c model.TrainConfig, workers int) model.TrainConfig {
	c.ValidationFraction, c.Patience, c.AverageLast = 0, 0, 0
	c.Workers = workers
	c.OnEpoch = nil
	return c
}

// isSet reports whether s is a set (Tune's nearest-neighbour settings
// need sets).
func isSet(s model.Sample) bool { return s.Subspace() != nil }

// best returns the index of the chosen row (see TuneResult.Best and
// Options.Preferred).
func best(t []Row, preferred int, z float64) int {
	b := 0
	for i := 1; i < min(preferred, len(t)); i++ {
		if t[i].Mean > t[b].Mean {
			b = i
		}
	}
	ref := b
	for i := max(preferred, 1); i < len(t); i++ {
		if t[i].Mean > t[b].Mean && confident(t[i].Folds, t[ref].Folds, z) {
			b = i
		}
	}
	return b
}

// confident reports whether the paired differences a − ref have a
// positive mean of at least z·sd/√n (always, for z = 0).
func confident(a, ref []float64, z float64) bool {
	if z == 0 {
		return true
	}
	d := make([]float64, len(a))
	for i := range a {
		d[i] = a[i] - ref[i]
	}
	m, sd := score.MeanSD(d)
	return m > 0 && m >= z*sd/math.Sqrt(float64(len(d)))
}
