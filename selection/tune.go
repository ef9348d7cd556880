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
	"github.com/grlgq/grlgq/subspace"
)

// Row is one setting's line of the tuner's table.
type Row struct {
	Setting Setting
	// Mean and SD (n−1) of the folds' accuracies; Folds the accuracies,
	// on the first len(Folds) splits of TuneResult.Splits: all of them
	// for a setting that reached the last rung of the search, fewer for
	// one left behind at an earlier rung (Options.Rungs).
	Mean, SD float64
	Folds    []float64
	// Duration is the wall time the setting cost summed over the folds
	// (for a setting scored on the way to more epochs, the time up to its
	// own epochs).
	Duration time.Duration
}

// Complete reports whether the row was scored on all n splits.
func (r Row) Complete(n int) bool { return len(r.Folds) == n }

// TuneResult is the outcome of Tune.
type TuneResult struct {
	// Table has one row per setting, in the order given.
	Table []Row
	// Best is the index in Table of the chosen setting: among the rows
	// scored on every split, the highest mean accuracy, ties to the first
	// in the table; with Options.Confidence, the best of the preferred
	// settings unless a later one is confidently better (see
	// Options.Preferred). The order of the settings is thus their order
	// of preference: DefaultSearch starts with the package defaults and
	// 1-NN. (A rule "the simplest among ties" picked untrained or barely
	// trained settings whenever several settings were perfect on the
	// inner folds, and lost on the held-out data; see docs/tuning.md.)
	Best int
	// Model is the chosen setting trained on all the data given to Tune
	// (untrained for Epochs 0), History its training (nil for Epochs 0).
	Model   *model.Model
	History *model.History
	// Folds is K, Repeats the repetitions: a complete row has K·Repeats
	// scores.
	Folds, Repeats int
	// Plan is the cross-validation that ran (PlanFolds: its K, repeats,
	// and the classes too small for it).
	Plan Plan
	// Splits are the folds, in the order of every row's Folds (for
	// baselines on the same folds: package baseline).
	Splits []folds.Fold
	// Rungs are the number of splits of each rung of the search and
	// Alive the number of settings scored at each (Options.Rungs).
	Rungs, Alive []int
}

// BestSetting returns the chosen setting.
func (r *TuneResult) BestSetting() Setting { return r.Table[r.Best].Setting }

// Tune scores the settings by stratified cross-validation (PlanFolds)
// of base (with the setting applied, see Setting.Apply) on (x, y), sets
// or single images, picks the best (TuneResult.Best has the rule) and
// retrains it on all of (x, y). It reads only x and y.
//
// With Options.Rungs it is successive halving: every setting is scored on
// the first Rungs[0] splits, the best Options.Keep of them (and the
// Preferred references, always) go on to the splits up to Rungs[1], and so
// on to all the splits; only the settings that reach the end can be
// chosen. Without, every setting is scored on every split.
//
// In the folds the validation part is the fold's, so base.Train's
// ValidationFraction, Patience and AverageLast are not used there (the
// epochs are a dimension of the search); the final training uses base as
// given with the chosen setting, and the model predicts with
// base.Predict (which plays no part in the scores). The
// nearest-neighbour settings (AllSets, AllSetsLearned) place a prototype
// at every training set: they need sets. Trainings run in parallel
// (Options); the result does not depend on opt.Workers.
//
// When no class has two samples (no cross-validation can hold any out)
// Tune does not score: it trains the first setting on everything, and the
// table's rows have no folds (Plan.Folds 0).
func Tune(ctx context.Context, base model.Options, settings []Setting, x []model.Sample, y []int, opt Options) (*TuneResult, error) {
	opt = opt.withDefaults()
	if err := checkTune(settings, x, y, opt); err != nil {
		return nil, err
	}
	views, err := dimViews(settings, x)
	if err != nil {
		return nil, err
	}
	splits, plan, err := tuneSplits(y, opt)
	if err != nil {
		return nil, err
	}
	base.Train.OnEpoch = nil

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
	rungs := rungsOf(opt.Rungs, len(splits))
	keep := opt.Keep
	if keep == 0 {
		keep = DefaultKeep
	}
	// The progress total: every setting on the first rung's splits, the
	// kept fraction on the later ones, and the final training.
	total, frac, prev := 0.0, 1.0, 0
	all := 0
	for _, s := range settings {
		all += s.Epochs*perClass(s.Prototypes) + 1
	}
	for r, upto := range rungs {
		if r > 0 {
			frac *= keep
		}
		total += frac * float64(all*(upto-prev))
		prev = upto
	}
	finalUnits := 0
	for _, s := range settings {
		finalUnits = max(finalUnits, s.Epochs*perClass(s.Prototypes))
	}
	prog := newProgress(opt.Progress, int(total)+finalUnits)

	acc := make([][]float64, len(settings)) // [row][split]
	dur := make([][]time.Duration, len(settings))
	for i := range acc {
		acc[i] = make([]float64, len(splits))
		dur[i] = make([]time.Duration, len(splits))
	}
	reached := make([]int, len(settings)) // splits scored per row
	alive := make([]int, len(settings))
	for i := range alive {
		alive[i] = i
	}
	res := &TuneResult{Table: make([]Row, len(settings)), Folds: plan.Folds, Repeats: plan.Repeats, Plan: plan, Splits: splits, Rungs: rungs}
	from := 0
	for r, upto := range rungs {
		res.Alive = append(res.Alive, len(alive))
		if err := scoreRows(ctx, base, settings, alive, views, y, splits, from, upto, opt.Workers, perClass, prog, acc, dur); err != nil {
			return nil, err
		}
		for _, i := range alive {
			reached[i] = upto
		}
		from = upto
		if r < len(rungs)-1 {
			alive = promote(alive, acc, upto, opt.Preferred, keep)
		}
	}
	for i, s := range settings {
		row := Row{Setting: s, Folds: acc[i][:reached[i]:reached[i]]}
		row.Mean, row.SD = score.MeanSD(row.Folds)
		for _, d := range dur[i][:reached[i]] {
			row.Duration += d
		}
		res.Table[i] = row
	}
	res.Best = best(res.Table, len(splits), opt.Preferred, opt.Confidence)

	// Retrain the best on everything.
	s := res.Table[res.Best].Setting
	xa := views[s.Dim]
	fin := s.Apply(base, y)
	fin.Train.Workers = opt.Workers
	if s.Epochs == 0 {
		if res.Model, err = initModel(fin, xa, y); err != nil {
			return nil, fmt.Errorf("selection: %s on all the data: %w", s, err)
		}
	} else {
		per := perClass(s.Prototypes)
		fin.Train.OnEpoch = func(model.EpochStats) error { prog.add(per); return nil }
		if res.Model, res.History, err = train(ctx, fin, xa, y); err != nil {
			return nil, fmt.Errorf("selection: %s on all the data: %w", s, err)
		}
		if s.Prototypes == AllSetsLearned {
			if res.Model, err = learntNN(base, s, res.Model, xa, y, opt.Workers); err != nil {
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

// checkTune returns why Tune cannot run the settings on (x, y) under
// opt, or nil.
func checkTune(settings []Setting, x []model.Sample, y []int, opt Options) error {
	if len(settings) == 0 {
		return fmt.Errorf("selection: %w: no settings", ErrGrid)
	}
	for i, s := range settings {
		if err := s.check(); err != nil {
			return fmt.Errorf("selection: %w: setting %d: %v", ErrGrid, i+1, err)
		}
	}
	if len(x) != len(y) {
		return fmt.Errorf("selection: %w: %d samples and %d labels", ErrData, len(x), len(y))
	}
	if !(opt.Confidence >= 0 && opt.Confidence <= 100) {
		return fmt.Errorf("selection: %w: confidence %g outside [0, 100]", ErrGrid, opt.Confidence)
	}
	if !(opt.Keep >= 0 && opt.Keep <= 1) {
		return fmt.Errorf("selection: %w: keep %g outside [0, 1]", ErrGrid, opt.Keep)
	}
	for i, r := range opt.Rungs {
		if r < 1 || i > 0 && r <= opt.Rungs[i-1] {
			return fmt.Errorf("selection: %w: rungs %v: want split counts of at least 1, ascending", ErrGrid, opt.Rungs)
		}
	}
	return nil
}

// DefaultKeep is the fraction of the settings that successive halving
// keeps at each rung when Options.Keep is 0.
const DefaultKeep = 1.0 / 3

// rungsOf returns the rungs (ascending split counts ending at n) of
// Options.Rungs for n splits: the counts below n, and n.
func rungsOf(want []int, n int) []int {
	var out []int
	for _, r := range want {
		if r > 0 && r < n && (len(out) == 0 || r > out[len(out)-1]) {
			out = append(out, r)
		}
	}
	if n > 0 {
		out = append(out, n)
	}
	return out
}

// promote returns the rows that go on after a rung scored on the first
// upto splits: the references (rows below preferred) and the best
// ceil(keep·len(alive)) others by mean accuracy (ties to the earlier row),
// in table order.
func promote(alive []int, acc [][]float64, upto, preferred int, keep float64) []int {
	mean := func(i int) float64 {
		m, _ := score.MeanSD(acc[i][:upto])
		return m
	}
	var refs, rest []int
	for _, i := range alive {
		if i < preferred {
			refs = append(refs, i)
		} else {
			rest = append(rest, i)
		}
	}
	slices.SortStableFunc(rest, func(a, b int) int {
		ma, mb := mean(a), mean(b)
		switch {
		case ma > mb:
			return -1
		case ma < mb:
			return 1
		}
		return a - b
	})
	k := min(max(int(math.Ceil(keep*float64(len(rest)))), 1), len(rest))
	out := append(refs, rest[:k]...)
	slices.Sort(out)
	return out
}

// dimViews returns the samples for every Dim of the settings: x itself
// for 0 and for sets of that many columns, else the sets' first Dim
// columns (subspace.Truncate). Single images need no view (the
// prototypes' d is the setting's).
func dimViews(settings []Setting, x []model.Sample) (map[int][]model.Sample, error) {
	views := map[int][]model.Sample{0: x}
	if len(x) > 0 && !isSet(x[0]) {
		for i, s := range settings {
			if s.Prototypes == AllSets || s.Prototypes == AllSetsLearned {
				return nil, fmt.Errorf("selection: %w: setting %d (%s) places a prototype at every training set: single images cannot be prototypes", ErrGrid, i+1, s)
			}
			views[s.Dim] = x
		}
		return views, nil
	}
	for i, s := range settings {
		if _, ok := views[s.Dim]; ok {
			continue
		}
		v := make([]model.Sample, len(x))
		for j, smp := range x {
			sub := smp.Subspace()
			if sub == nil || sub.Basis == nil {
				return nil, fmt.Errorf("selection: %w: sample %d is not a set", ErrData, j)
			}
			if s.Dim > sub.D() {
				return nil, fmt.Errorf("selection: %w: setting %d (%s): d %d but set %d has %d columns", ErrGrid, i+1, s, s.Dim, j, sub.D())
			}
			t, err := subspace.Truncate(sub, s.Dim)
			if err != nil {
				return nil, fmt.Errorf("selection: %w: set %d: %v", ErrData, j, err)
			}
			v[j] = model.Set(t)
		}
		views[s.Dim] = v
	}
	return views, nil
}

// scoreRows scores the rows alive on the splits [from, upto): one job per
// (chain, split), a chain being the rows that share a training (they
// differ in epochs only), trained to each row's epochs in turn.
func scoreRows(ctx context.Context, base model.Options, settings []Setting, alive []int, views map[int][]model.Sample, y []int, splits []folds.Fold, from, upto, workers int,
	perClass func(int) int, prog *progress, acc [][]float64, dur [][]time.Duration) error {
	type chainRun struct {
		key    chain
		epochs []int
		rows   [][]int // per checkpoint, the rows it scores
	}
	var chains []*chainRun
	byKey := map[chain]*chainRun{}
	for _, i := range alive {
		s := settings[i]
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
	// One job per (chain, split), longest chains first for the balance.
	type job struct{ c, f int }
	jobs := make([]job, 0, len(chains)*(upto-from))
	for ci := range chains {
		for f := from; f < upto; f++ {
			jobs = append(jobs, job{ci, f})
		}
	}
	cost := func(j job) int {
		c := chains[j.c]
		return c.epochs[len(c.epochs)-1] * perClass(c.key.Prototypes)
	}
	slices.SortStableFunc(jobs, func(a, b job) int { return cost(b) - cost(a) })
	inner := max(workers/max(len(jobs), 1), 1)
	return parallel(ctx, len(jobs), workers, func(ji int) error {
		j := jobs[ji]
		c := chains[j.c]
		k := Setting(c.key)
		x := views[k.Dim]
		xt, yt := pick(x, y, splits[j.f].Train)
		xv, yv := pick(x, y, splits[j.f].Val)
		fo := k.Apply(base, yt)
		fo.Train = foldConfig(fo.Train, inner)
		t0 := time.Now()
		fail := func(e int, err error) error {
			s := k
			s.Epochs = e
			return fmt.Errorf("selection: %s, fold %d, epoch %d: %w", s, j.f+1, e, err)
		}
		m, err := initModel(fo, xt, yt)
		if err != nil {
			return fail(0, err)
		}
		at := 0
		per := perClass(k.Prototypes)
		for ci, e := range c.epochs {
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
			for _, r := range c.rows[ci] {
				l := 0
				if settings[r].Prototypes == AllSetsLearned {
					l = 1
				}
				if !scored[l] {
					sm := m
					if l == 1 {
						if sm, err = learntNN(base, k, m, xt, yt, inner); err != nil {
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
}

// learntNN returns the 1-NN model of (x, y) (a prototype at every set,
// the d and distance of s, base's other options) with the global
// relevances of m.
func learntNN(base model.Options, s Setting, m *model.Model, x []model.Sample, y []int, workers int) (*model.Model, error) {
	o := Setting{Prototypes: AllSets, Relevance: model.RelevanceGlobal, Eta: 1, Dim: s.Dim, Distance: s.Distance}.Apply(base, y)
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

// best returns the index of the chosen row among those scored on all n
// splits (see TuneResult.Best and Options.Preferred); the first row when
// there are no splits.
func best(t []Row, n, preferred int, z float64) int {
	if n == 0 {
		return 0
	}
	b := 0
	for i := 1; i < min(preferred, len(t)); i++ {
		if t[i].Complete(n) && t[i].Mean > t[b].Mean {
			b = i
		}
	}
	ref := b
	for i := max(preferred, 1); i < len(t); i++ {
		if t[i].Complete(n) && t[i].Mean > t[b].Mean && confident(t[i].Folds, t[ref].Folds, z) {
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
