package selection

import (
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/grlgq/grlgq/folds"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/score"
)

// Options are the options of CrossValidate and Tune. The zero value is
// valid: its fields' zeros are documented (the automatic folds, all
// cores, one reference), and DefaultOptions is the tuner of `grlgq train
// -tune` with DefaultSearch.
type Options struct {
	// Folds is K of K-fold cross-validation; 0 chooses it from the data
	// (PlanFolds: DefaultFolds, lowered to the smallest class's size).
	Folds int
	// Repeats repeats the K-fold cross-validation with other shuffles
	// (folds.RepeatedStratifiedKFold): K·Repeats trainings, whose scores
	// all enter the mean and sd. It lowers the noise of the scores of
	// small data sets. 0 chooses it with the folds (PlanFolds).
	Repeats int
	// Seed seeds the folds (folds.StratifiedKFold). The models are seeded
	// by their TrainConfig.Seed.
	Seed uint64
	// Workers is the number of goroutines (0: runtime.GOMAXPROCS(0)).
	// Folds (and settings) train in parallel, each on Workers/jobs distance
	// workers (at least 1), so that about Workers goroutines compute at any
	// time. Results never depend on it.
	Workers int
	// Preferred and Confidence (Tune only) set how the choice trusts the
	// scores. The first Preferred settings of the table (0 counts as 1)
	// are the references: the best mean among them is chosen (ties to the
	// first), and a later setting replaces it only when it is confidently
	// better: its per-fold accuracies minus the chosen reference's (the
	// same folds, a paired comparison) have a positive mean of at least
	// Confidence·sd/√F (F the number of scores), and its mean is the
	// highest such. Confidence 0 makes it the plain best mean, ties to the
	// first.
	Preferred  int
	Confidence float64
	// Rungs and Keep (Tune only) make the search successive halving: the
	// settings are scored on the first Rungs[0] splits, the best Keep of
	// them (0: DefaultKeep) and the references go on to the splits up to
	// Rungs[1], and so on; counts of Rungs not below the number of splits
	// are dropped, and the last rung is always all the splits. nil scores
	// every setting on every split. Rungs must ascend from 1 (ErrGrid).
	Rungs []int
	Keep  float64
	// Progress, if non-nil, is called (from one goroutine at a time) after
	// each unit of work with the units done and the total. A unit is one
	// epoch of one prototype per class on one fold (untrained settings and
	// the evaluation count one), a rough measure of time for an ETA.
	Progress func(done, total int)
}

// DefaultOptions returns the options of `grlgq train -tune` with
// DefaultSearch: automatic folds, all cores, seed 0, successive halving (DefaultRungs, DefaultKeep), the references and
// confidence of DefaultPreferred and DefaultConfidence.
func DefaultOptions() Options {
	return Options{Preferred: DefaultPreferred, Confidence: DefaultConfidence, Rungs: DefaultRungs(), Keep: DefaultKeep}
}

func (o Options) withDefaults() Options {
	if o.Preferred <= 0 {
		o.Preferred = 1
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	return o
}

// Plan is the cross-validation that CrossValidate and Tune run (PlanFolds).
type Plan struct {
	// Folds is K and Repeats the repetitions of K-fold cross-validation.
	// Folds is 0 when no class has 2 samples (no cross-validation can
	// hold one out and train on its class). Asked is the K given, or
	// chosen by DefaultFolds, before any lowering.
	Folds, Repeats, Asked int
	// Class and Size name the smallest class (its label, its samples)
	// when it has fewer samples than Asked; Class is -1 otherwise.
	Class, Size int
	// Lowered reports that the automatic K was lowered below Asked: to the
	// number of samples that can be validated, when there are fewer than
	// Asked.
	Lowered bool
	// Kept lists the classes of a single sample (automatic K only): they
	// are in every fold's training part and never validated, as a model
	// could not learn them from an empty training part. Sparse lists the
	// classes of 2 to K−1 samples: each is validated in as many folds as
	// it has samples, and is in every training part.
	Kept, Sparse []int
}

// Note says in one line how the plan departs from plain stratified K-fold
// cross-validation ("" when it does not).
func (p Plan) Note() string {
	var s []string
	if p.Folds == 0 {
		return "no cross-validation: no class has 2 samples; the first setting is trained without scoring"
	}
	if p.Lowered {
		s = append(s, fmt.Sprintf("%d folds instead of %d: only %d samples can be validated", p.Folds, p.Asked, p.Folds))
	}
	if len(p.Kept) > 0 {
		s = append(s, fmt.Sprintf("class(es) %v have a single sample: in every training part, never validated", p.Kept))
	}
	if len(p.Sparse) > 0 {
		s = append(s, fmt.Sprintf("class(es) %v have fewer samples than the %d folds: validated in fewer folds, in every training part", p.Sparse, p.Folds))
	}
	return strings.Join(s, "; ")
}

// PlanFolds returns the folds of cross-validation for the labels y under
// opt: opt.Folds when given (opt.Repeats, or 1; a class with fewer samples
// is an error of CrossValidate and Tune, named by Class and Size), else
// DefaultFolds of the number of samples and its repeats (unless
// opt.Repeats is given), never failing: classes of a single sample are
// kept in every training part (Kept), smaller classes validated in fewer
// folds (Sparse), K lowered only when fewer samples than K can be
// validated (Lowered), and Folds 0 when none can.
func PlanFolds(y []int, opt Options) Plan {
	k, rep := opt.Folds, opt.Repeats
	if k == 0 {
		k, rep = DefaultFolds(len(y))
		if opt.Repeats > 0 {
			rep = opt.Repeats
		}
	} else if rep == 0 {
		rep = 1
	}
	p := Plan{Folds: k, Repeats: rep, Asked: k, Class: -1}
	if got, class, size := folds.MaxFolds(y, k); got < k || class >= 0 {
		p.Class, p.Size = class, size
	}
	if opt.Folds > 0 {
		return p
	}
	validated := 0
	for c, idx := range byClass(y) {
		switch {
		case len(idx) == 1:
			p.Kept = append(p.Kept, c)
		case len(idx) >= 2:
			validated += len(idx)
			if len(idx) < k {
				p.Sparse = append(p.Sparse, c)
			}
		}
	}
	if validated < k {
		p.Folds, p.Lowered = validated, validated >= 2
		if validated < 2 {
			p.Folds = 0
		}
	}
	return p
}

// byClass is folds.ByClass without its panic on negative labels (which
// it leaves out).
func byClass(y []int) [][]int {
	var out [][]int
	for i, c := range y {
		if c < 0 {
			continue
		}
		for len(out) <= c {
			out = append(out, nil)
		}
		out[c] = append(out[c], i)
	}
	return out
}

// splits returns the folds of the plan for y, or why there are none
// (CrossValidate: every class must have K samples, or 2 for the
// automatic K).
func splits(y []int, opt Options) ([]folds.Fold, Plan, error) {
	p := PlanFolds(y, opt)
	if opt.Folds == 0 && (p.Class >= 0 && p.Size < 2 || p.Folds == 0) {
		return nil, p, fmt.Errorf("selection: %w: class %d has %d sample(s); cross-validation needs at least 2 per class", folds.ErrTooSmall, p.Class, p.Size)
	}
	if opt.Folds == 0 && p.Class >= 0 {
		f, err := lenientFolds(y, p, opt.Seed)
		return f, p, err
	}
	f, err := folds.RepeatedStratifiedKFold(y, p.Folds, p.Repeats, opt.Seed)
	return f, p, err
}

// tuneSplits returns the folds of Tune: those of splits, never failing
// with the automatic K (no folds when no class can be validated).
func tuneSplits(y []int, opt Options) ([]folds.Fold, Plan, error) {
	for i, c := range y {
		if c < 0 {
			return nil, Plan{}, fmt.Errorf("selection: %w: sample %d has label %d", ErrData, i, c)
		}
	}
	p := PlanFolds(y, opt)
	if opt.Folds == 0 {
		if p.Folds == 0 {
			return nil, p, nil
		}
		f, err := lenientFolds(y, p, opt.Seed)
		return f, p, err
	}
	return splits(y, opt)
}

// lenientFolds returns the plan's folds when some class has fewer samples
// than K: the classes of 2 or more samples are dealt to the folds as
// folds.RepeatedStratifiedKFold deals them (the same streams: the same
// folds when no class is small), those of one sample are in every
// training part. Every fold validates at least one sample (K is at most
// the number of validated samples) and trains on every class.
func lenientFolds(y []int, p Plan, seed uint64) ([]folds.Fold, error) {
	var dealt [][]int
	for _, idx := range byClass(y) {
		if len(idx) >= 2 {
			dealt = append(dealt, idx)
		}
	}
	var out []folds.Fold
	for r := range p.Repeats {
		fold := folds.Deal(len(y), dealt, p.Folds, rand.New(rand.NewPCG(seed, folds.StreamKFold+uint64(r))))
		inVal := make([]bool, len(y))
		for _, idx := range dealt {
			for _, i := range idx {
				inVal[i] = true
			}
		}
		fs := make([]folds.Fold, p.Folds)
		for i := range y {
			for f := range fs {
				if inVal[i] && fold[i] == f {
					fs[f].Val = append(fs[f].Val, i)
				} else {
					fs[f].Train = append(fs[f].Train, i)
				}
			}
		}
		out = append(out, fs...)
	}
	return out, nil
}

// FoldScore is the outcome of one fold.
type FoldScore struct {
	// Correct of N validation samples classified correctly; Accuracy =
	// Correct/N.
	Correct, N int
	Accuracy   float64
	// Scores are the fold's validation predictions counted (the nearest
	// class, no reject): the confusion matrix and, with Scores.Report,
	// precision, recall and F1 per class. Pooled over the folds
	// (score.Pool), they are every sample's out-of-fold prediction.
	Scores *score.Scores
	// Duration is the wall time of the fold's training and evaluation.
	Duration time.Duration
}

// CVResult is the outcome of CrossValidate.
type CVResult struct {
	Folds []FoldScore
	// Mean and SD (sample standard deviation, n−1) of the folds'
	// accuracies.
	Mean, SD float64
	// Plan is the cross-validation that ran; Splits its folds, in the
	// order of Folds (for baselines on the same folds: package baseline).
	Plan   Plan
	Splits []folds.Fold
}

// Pooled returns the folds' Scores pooled (score.Pool): with one repeat,
// every sample's out-of-fold prediction counted once; with Repeats, each
// sample counted once per repeat.
func (r *CVResult) Pooled() *score.Scores {
	s := make([]*score.Scores, len(r.Folds))
	for i, f := range r.Folds {
		s[i] = f.Scores
	}
	return score.Pool(s...)
}

// CrossValidate trains a model of opt (model.Train: what the model is,
// how it is trained) on the training part of each stratified fold of
// (x, y) (sets or single images) and scores it on the fold's validation
// part (the fraction of its samples whose nearest class is theirs; the
// reject threshold plays no part). Options inside opt.Train (early
// stopping with ValidationFraction and Patience, AverageLast, an Augment
// hook, ...) apply within each fold's training part; OnEpoch is not
// called. Folds run in parallel (see Options).
func CrossValidate(ctx context.Context, opt model.Options, x []model.Sample, y []int, so Options) (*CVResult, error) {
	so = so.withDefaults()
	if len(x) != len(y) {
		return nil, fmt.Errorf("selection: %w: %d samples and %d labels", ErrData, len(x), len(y))
	}
	splits, plan, err := splits(y, so)
	if err != nil {
		return nil, err
	}
	opt.Train.OnEpoch = nil
	per := max(opt.Model.PrototypesPerClass, 1)
	prog := newProgress(so.Progress, len(splits)*(opt.Train.Epochs*per+1))
	res := &CVResult{Folds: make([]FoldScore, len(splits)), Plan: plan, Splits: splits}
	inner := max(so.Workers/len(splits), 1)
	err = parallel(ctx, len(splits), so.Workers, func(f int) error {
		t0 := time.Now()
		xt, yt := pick(x, y, splits[f].Train)
		xv, yv := pick(x, y, splits[f].Val)
		c := opt
		c.Train.Workers = inner
		c.Train.OnEpoch = func(model.EpochStats) error { prog.add(per); return nil }
		m, _, err := train(ctx, c, xt, yt)
		if err != nil {
			return fmt.Errorf("selection: fold %d: %w", f+1, err)
		}
		sc, err := scoreFold(m, xv, yv)
		if err != nil {
			return fmt.Errorf("selection: fold %d: %w", f+1, err)
		}
		prog.add(1)
		res.Folds[f] = FoldScore{Correct: sc.Correct, N: len(yv), Accuracy: float64(sc.Correct) / float64(len(yv)), Scores: sc, Duration: time.Since(t0)}
		return nil
	})
	if err != nil {
		return nil, err
	}
	acc := make([]float64, len(splits))
	for f, s := range res.Folds {
		acc[f] = s.Accuracy
	}
	res.Mean, res.SD = score.MeanSD(acc)
	return res, nil
}

// train, initModel and cont are model.Train, model.Init and
// model.Continue; the tests replace them to see which samples each
// training receives.
var (
	train     = model.Train
	initModel = model.Init
	cont      = model.Continue
)

// scoreFold counts the predictions of m on x against y (the nearest
// class, no reject; the model's batch methods on the workers of its
// training, a fold's share of the cores).
func scoreFold(m *model.Model, x []model.Sample, y []int) (*score.Scores, error) {
	m, err := m.WithWorkers(m.TrainConfig().Workers)
	if err != nil {
		return nil, err
	}
	preds, err := m.PredictBatch(x)
	if err != nil {
		return nil, err
	}
	pred := make([]int, len(x))
	for i, p := range preds {
		pred[i] = p.Class
	}
	return score.Count(m.NumClasses(), y, pred), nil
}

// countCorrect returns how many of the samples x m classifies as y (the
// nearest class; no reject), with the model's batch methods on the
// workers of its training (a fold's share of the cores).
func countCorrect(m *model.Model, x []model.Sample, y []int) (int, error) {
	m, err := m.WithWorkers(m.TrainConfig().Workers)
	if err != nil {
		return 0, err
	}
	preds, err := m.PredictBatch(x)
	if err != nil {
		return 0, err
	}
	pred := make([]int, len(x))
	for i, p := range preds {
		pred[i] = p.Class
	}
	return score.Correct(y, pred), nil
}

func pick(x []model.Sample, y []int, idx []int) ([]model.Sample, []int) {
	xs := make([]model.Sample, len(idx))
	ys := make([]int, len(idx))
	for i, j := range idx {
		xs[i], ys[i] = x[j], y[j]
	}
	return xs, ys
}

// parallel runs fn(0..n-1) on w goroutines and returns the error of the
// lowest index that failed (so the error too does not depend on
// scheduling); after a failure or ctx's end no new index starts.
func parallel(ctx context.Context, n, w int, fn func(i int) error) error {
	errs := make([]error, n)
	var (
		mu     sync.Mutex
		next   int
		failed bool
		wg     sync.WaitGroup
	)
	for range min(w, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if failed || next >= n || ctx.Err() != nil {
					mu.Unlock()
					return
				}
				i := next
				next++
				mu.Unlock()
				if err := fn(i); err != nil {
					mu.Lock()
					errs[i], failed = err, true
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("selection: %w", err)
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// progress serialises the Progress callback.
type progress struct {
	mu          sync.Mutex
	fn          func(done, total int)
	done, total int
}

func newProgress(fn func(done, total int), total int) *progress {
	return &progress{fn: fn, total: total}
}

func (p *progress) add(n int) {
	if p == nil || p.fn == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = min(p.done+n, p.total)
	p.fn(p.done, p.total)
}
