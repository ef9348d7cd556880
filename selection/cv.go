package selection

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/grlgq/grlgq/folds"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/score"
	"github.com/grlgq/grlgq/subspace"
)

// Options are the options of CrossValidate and Tune.
type Options struct {
	// Folds is K of K-fold cross-validation (default 5).
	Folds int
	// Repeats repeats the K-fold cross-validation with other shuffles
	// (RepeatedStratifiedKFold; default 1): K·Repeats trainings, whose
	// scores all enter the mean and sd. It lowers the noise of the scores
	// of small data sets.
	Repeats int
	// Seed seeds the folds (StratifiedKFold). The models are seeded by
	// their TrainConfig.Seed.
	Seed uint64
	// Workers is the number of goroutines (default runtime.GOMAXPROCS(0)).
	// Folds (and settings) train in parallel, each on Workers/jobs distance
	// workers (at least 1), so that about Workers goroutines compute at any
	// time. Results never depend on it.
	Workers int
	// Preferred and Confidence (Tune only) set how the choice trusts the
	// scores. The first Preferred settings of the table (default 1) are
	// the references: the best mean among them is chosen (ties to the
	// first), and a later setting replaces it only when it is confidently
	// better: its per-fold accuracies minus the chosen reference's (the
	// same folds, a paired comparison) have a positive mean of at least
	// Confidence·sd/√F (F the number of scores), and its mean is the
	// highest such. Confidence 0 (the default) makes it the plain best
	// mean, ties to the first.
	Preferred  int
	Confidence float64
	// Progress, if non-nil, is called (from one goroutine at a time) after
	// each unit of work with the units done and the total. A unit is one
	// epoch of one prototype per class on one fold (untrained settings and
	// the evaluation count one), a rough measure of time for an ETA.
	Progress func(done, total int)
}

func (o Options) withDefaults() Options {
	if o.Folds == 0 {
		o.Folds = 5
	}
	if o.Preferred <= 0 {
		o.Preferred = 1
	}
	if o.Repeats == 0 {
		o.Repeats = 1
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	return o
}

// FoldScore is the outcome of one fold.
type FoldScore struct {
	// Correct of N validation sets classified correctly; Accuracy =
	// Correct/N.
	Correct, N int
	Accuracy   float64
	// Duration is the wall time of the fold's training and evaluation.
	Duration time.Duration
}

// CVResult is the outcome of CrossValidate.
type CVResult struct {
	Folds []FoldScore
	// Mean and SD (sample standard deviation, n−1) of the folds'
	// accuracies.
	Mean, SD float64
}

// CrossValidate trains a model of structure cfg with the options tc on the
// training part of each of opt.Folds stratified folds of (x, y) and scores
// it on the fold's validation part (the fraction of its sets whose nearest
// class is theirs; the reject threshold plays no part). Options inside tc
// (early stopping with ValidationFraction and Patience, AverageLast, ...)
// apply within each fold's training part. Folds run in parallel (see
// Options).
func CrossValidate(ctx context.Context, cfg model.Config, tc model.TrainConfig, x []*subspace.Subspace, y []int, opt Options) (*CVResult, error) {
	opt = opt.withDefaults()
	if len(x) != len(y) {
		return nil, fmt.Errorf("selection: %w: %d sets and %d labels", ErrData, len(x), len(y))
	}
	splits, err := folds.RepeatedStratifiedKFold(y, opt.Folds, opt.Repeats, opt.Seed)
	if err != nil {
		return nil, err
	}
	tc.OnEpoch = nil
	epochs := tc.Epochs
	if epochs == 0 {
		epochs = model.DefaultEpochs
	}
	per := max(cfg.PrototypesPerClass, 1)
	prog := newProgress(opt.Progress, len(splits)*(epochs*per+1))
	res := &CVResult{Folds: make([]FoldScore, len(splits))}
	inner := max(opt.Workers/len(splits), 1)
	err = parallel(ctx, len(splits), opt.Workers, func(f int) error {
		t0 := time.Now()
		xt, yt := pick(x, y, splits[f].Train)
		xv, yv := pick(x, y, splits[f].Val)
		c := tc
		c.Workers = inner
		c.OnEpoch = func(model.EpochStats) error { prog.add(per); return nil }
		m, _, err := train(ctx, cfg, c, xt, yt)
		if err != nil {
			return fmt.Errorf("selection: fold %d: %w", f+1, err)
		}
		correct, err := countCorrect(m, xv, yv, inner)
		if err != nil {
			return fmt.Errorf("selection: fold %d: %w", f+1, err)
		}
		prog.add(1)
		res.Folds[f] = FoldScore{Correct: correct, N: len(yv), Accuracy: float64(correct) / float64(len(yv)), Duration: time.Since(t0)}
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
// model.Continue on sets; the tests replace them to see which sets each
// training receives.
var (
	train = func(ctx context.Context, cfg model.Config, tc model.TrainConfig, x []*subspace.Subspace, y []int) (*model.Model, *model.History, error) {
		return model.Train(ctx, cfg, tc, model.Sets(x), y)
	}
	initModel = func(cfg model.Config, tc model.TrainConfig, x []*subspace.Subspace, y []int) (*model.Model, error) {
		return model.Init(cfg, tc, model.Sets(x), y)
	}
	cont = func(ctx context.Context, m *model.Model, tc model.TrainConfig, x []*subspace.Subspace, y []int) (*model.Model, *model.History, error) {
		return model.Continue(ctx, m, tc, model.Sets(x), y)
	}
)

// countCorrect returns how many of the sets x m classifies as y (the nearest
// class; no reject).
func countCorrect(m *model.Model, x []*subspace.Subspace, y []int, workers int) (int, error) {
	p, err := model.NewPredictor(m, workers)
	if err != nil {
		return 0, err
	}
	defer p.Close()
	pred := make([]int, len(x))
	var r model.Prediction
	for i, s := range x {
		if err := p.PredictTo(&r, model.Set(s)); err != nil {
			return 0, err
		}
		pred[i] = r.Class
	}
	return score.Correct(y, pred), nil
}

func pick(x []*subspace.Subspace, y []int, idx []int) ([]*subspace.Subspace, []int) {
	xs := make([]*subspace.Subspace, len(idx))
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
