package paper

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/grlgq/grlgq/baseline"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

// ErrUnknown is returned by Run for a protocol name it does not know.
var ErrUnknown = errors.New("paper: unknown protocol")

// Options controls Run.
type Options struct {
	// Dir is the data root holding mnist/, yaleb32/ and eth80/ (e.g.
	// ../shared/data).
	Dir string
	// Runs is the number of runs (MNIST), repetitions of the 4-fold
	// cross-validation (Yale B) or random splits (ETH-80); 0 takes the
	// protocol's default (3, 10, 10).
	Runs int
	// Seed seeds every random choice (groups, splits, initialisation,
	// permutations); run r uses streams derived from (Seed, r).
	Seed uint64
	// Workers is the number of goroutines (0 = runtime.GOMAXPROCS(0)).
	// Results never depend on it.
	Workers int
	// Precision is the models' Config.Precision (the protocols' setups
	// are otherwise unchanged): Float64, the default, or Float32.
	Precision model.Precision
	// Progress, if non-nil, receives one-line progress messages. It may be
	// called from several goroutines, but never concurrently.
	Progress func(msg string)
	// Step, if non-nil, is called with the units of work done and their
	// total, one call at a time: a unit is one epoch of one run's (or
	// fold's) training, or one run's evaluation, a rough measure of time
	// for a progress bar's ETA. done reaches total when the protocol ends
	// (early stopping skips epochs).
	Step func(done, total int)

	// Baselines, if non-empty, are run on the protocol's own splits
	// (package baseline; Result.Baselines), trained on what GRLGQ trains
	// on and tested on what it tests: ETH-80's sets (baseline.Evaluate),
	// Yale B's single images (1-D subspaces; baseline.Evaluate), MNIST's
	// training sets of each run against the 10,000 single test images
	// (baseline.EvaluateHoldouts: one split per run, the run's own
	// grouping).
	Baselines []baseline.Method
}

// Result is the outcome of one protocol.
type Result struct {
	Name     string
	Protocol string        // one-line description
	Setup    model.Options // the model and how it was trained

	// GRLGQ accuracies (fractions), one per run/split/fold, with their
	// mean and (sample) standard deviation.
	Accuracies []float64
	Mean, Std  float64

	// The untrained baseline: one class-PCA subspace per class (same d),
	// evaluated by the same rule.
	BaselineAccuracies        []float64
	BaselineMean, BaselineStd float64

	// The paper's reported mean accuracy and standard deviation (fractions).
	Paper, PaperStd float64

	// Wall times of the whole protocol: GRLGQ (data loading, subspaces,
	// training, testing) and the baseline (its initialisation and testing).
	Wall, BaselineWall time.Duration

	// Baselines are the methods of Options.Baselines on the same splits
	// as Accuracies, compared with them (Reference "GRLGQ"); nil without.
	Baselines *baseline.Result
}

// runBaselines runs opt.Baselines by eval (baseline.Evaluate on the
// protocol's splits, or EvaluateHoldouts) with the protocol's workers and
// seed, and compares them with res.Accuracies (one per split).
func (res *Result) runBaselines(ctx context.Context, opt Options, eval func(context.Context, baseline.Options) (*baseline.Result, error)) error {
	if len(opt.Baselines) == 0 {
		return nil
	}
	pr := &progress{f: opt.Progress}
	t0 := time.Now()
	b, err := eval(ctx, baseline.Options{Methods: opt.Baselines, Workers: workers(opt), Seed: opt.Seed})
	if err != nil {
		return fmt.Errorf("paper: %s baselines: %w", res.Name, err)
	}
	if err := b.CompareTo("GRLGQ", res.Accuracies); err != nil {
		return err
	}
	res.Baselines = b
	pr.printf("%s: baselines on the same %d splits in %v", res.Name, b.Splits, since(t0))
	return nil
}

// evaluate is baseline.Evaluate on the splits of the samples x (labels y),
// for runBaselines.
func evaluate(x []*subspace.Subspace, y []int, splits []baseline.Split) func(context.Context, baseline.Options) (*baseline.Result, error) {
	return func(ctx context.Context, o baseline.Options) (*baseline.Result, error) {
		return baseline.Evaluate(ctx, x, y, splits, o)
	}
}

// Names lists the protocols Run knows.
func Names() []string { return []string{"mnist", "yale", "eth80"} }

// Run runs the protocol name ("mnist", "yale" or "eth80") on the data under
// opt.Dir.
func Run(ctx context.Context, name string, opt Options) (*Result, error) {
	switch name {
	case "mnist":
		return runMNIST(ctx, opt)
	case "yale":
		return runYale(ctx, opt)
	case "eth80":
		return runETH80(ctx, opt)
	}
	return nil, fmt.Errorf("%w %q (want one of %v)", ErrUnknown, name, Names())
}
