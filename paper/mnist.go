package paper

import (
	"context"
	"fmt"
	"time"

	"github.com/grlgq/grlgq/baseline"
	"github.com/grlgq/grlgq/dataset"
	"github.com/grlgq/grlgq/hard"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

// mnistSpec is the MNIST protocol's free choices (see mnistDefault).
type mnistSpec struct {
	M     int          // images per training set
	Hard  hard.Options // hard-example sets added to every epoch (hard.Images)
	Setup model.Options
}

// mnistDefault is the MNIST protocol: d = 12 and one prototype per class
// (the paper, after GTLVQ), 40 epochs (the paper's value), prototypes
// initialised at the class-wise PCA subspace (the paper's suggestion), the
// identity φ. M (the images per training set, which the paper does not
// give) is mnistM; the hard-example sets, η = 5e-3 and γ = 1e-6 with the
// step schedule (instead of the paper's constant η = 1e-4, γ = 1e-7, which
// barely move the prototypes) are mnistHard, mnistEta and mnistGamma; all
// chosen on validation splits of the training images (docs/notebook.md),
// never on the test set.
func mnistDefault() mnistSpec {
	o := model.DefaultOptions()
	o.Model.SubspaceDim, o.Model.PrototypesPerClass, o.Model.Relevance = 12, 1, model.RelevanceGlobal
	o.Train.Init, o.Train.Eta, o.Train.Gamma = model.InitPCA, mnistEta, mnistGamma
	o.Train.Schedule, o.Train.StepEvery, o.Train.Epochs = model.ScheduleStep, 10, 40
	return mnistSpec{M: mnistM, Hard: mnistHard, Setup: o}
}

// mnistM is the number of images per training set, chosen on a validation
// split (50,000 training / 10,000 validation images of the training file,
// seed 1; the test file untouched; docs/notebook.md). Validation accuracy of
// GRLGQ (class-PCA baseline) at the paper's rates, 40 epochs: m = 12:
// 94.04% (94.08%), m = 24: 94.36% (94.33%), m = 48: 94.39% (94.39%);
// η = 1e-3, γ = 1e-5, 10 epochs: m = 12: 93.91%, m = 24: 94.29%, m = 48:
// 94.34%; η = 1e-2: m = 12: 88.41%. m = 48 is the best; m > 64 is refused
// by subspace.NewConverter (svd.NewTall panics beyond 64 columns). Note that
// set-level training barely moves single-image accuracy: the sets of the
// training data are all classified correctly from the start. The further
// study (docs/notebook.md: regrouping, sigmoid, larger rates,
// nearest-neighbour groups) found nothing better than +0.07 points on
// validation; the hard-example sets below did (see mnistHard).
const mnistM = 48

// mnistHard, mnistEta and mnistGamma (with the step schedule: η and γ
// halved every 10 epochs, the authors' NumPy code) were chosen on the same
// validation split (seed 1; the test file untouched): every epoch, the
// training images the current model misclassifies or classifies with a
// relative θ_1² margin below 0.1 (the paper's μ above −0.1; about 4,500 of
// 50,000) are grouped into sets of m = d = 12 (see hard.Images), each added 8 times
// to the 1,040 random groups of 48. Validation accuracy after 40 epochs,
// 10,000 images: class-PCA start 94.39%; η = 5e-3: 96.26% (a second,
// independent split of the training file: 94.25% → 96.10%); η = 1e-2:
// 96.39% (96.22%). See docs/notebook.md for the whole study; η = 5e-3 is kept for
// its stability margin (doubling it still trains smoothly; at η = 2e-2,
// or with more copies, a larger margin or the sigmoid φ, training
// diverged for tens of epochs before the schedule recovered it).
var mnistHard = hard.Options{M: 12, Margin: 0.1, Copies: 8}

const (
	mnistEta   = 5e-3
	mnistGamma = 1e-6
)

type mnistData struct {
	train, test *dataset.Dataset
}

// loadMNISTContext reads the MNIST training and test files under dir,
// stopping soon when ctx is cancelled.
func loadMNISTContext(ctx context.Context, dir string) (*mnistData, error) {
	var paths [4]string
	for i, f := range []string{"train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"} {
		p, err := dataPath(dir, "mnist", f)
		if err != nil {
			return nil, err
		}
		paths[i] = p
	}
	train, err := (dataset.IDX{Images: paths[0], Labels: paths[1], Limits: dataset.Limits{}}).Load(ctx)
	if err != nil {
		return nil, err
	}
	test, err := (dataset.IDX{Images: paths[2], Labels: paths[3], Limits: dataset.Limits{}}).Load(ctx)
	if err != nil {
		return nil, err
	}
	return &mnistData{train: train, test: test}, nil
}

// pick returns the elements idx of s.
func pick[T any](s []T, idx []int) []T {
	out := make([]T, len(idx))
	for k, i := range idx {
		out[k] = s[i]
	}
	return out
}

func allIndices(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// mnistOnce trains run r on the training images trainIdx of tr and
// evaluates GRLGQ and the baseline on the images testIdx of te (single
// images, θ_1). Everything runs on one worker (the runs run in parallel).
// x and y are the run's training subspaces and their labels.
func mnistOnce(ctx context.Context, spec mnistSpec, tr *dataset.Dataset, trainIdx []int, te *dataset.Dataset, testIdx []int, seed uint64, r int) (acc, base float64, x []*subspace.Subspace, y []int, trainDur, baseDur time.Duration, err error) {
	t0 := time.Now()
	cfg := spec.Setup
	x, y, err = groupSubspaces(tr.Images, tr.Labels, trainIdx, len(tr.Classes), spec.M, cfg.Model.SubspaceDim, runRNG(seed, streamGroups, r))
	if err != nil {
		return
	}
	cfg.Train.Seed = modelSeed(seed, r)
	cfg.Train.Workers = 1
	tb := time.Now()
	bm, err := baselineModel(cfg, x, y)
	if err != nil {
		return
	}
	if base, err = imageAccuracy(bm, te.Images, te.Labels, testIdx); err != nil {
		return
	}
	baseDur = time.Since(tb)
	if cfg.Train.Augment, err = hard.Images(pick(tr.Images, trainIdx), pick(tr.Labels, trainIdx), spec.Hard); err != nil {
		return
	}
	m, _, err := model.Train(ctx, cfg, model.Sets(x), y)
	if err != nil {
		err = fmt.Errorf("paper: mnist run %d: %w", r, err)
		return
	}
	acc, err = imageAccuracy(m, te.Images, te.Labels, testIdx)
	trainDur = time.Since(t0) - baseDur
	return
}

func runMNIST(ctx context.Context, opt Options) (*Result, error) {
	spec := mnistDefault()
	spec.Setup.Model.Precision = opt.Precision
	return runMNISTWith(ctx, opt, spec)
}

func runMNISTWith(ctx context.Context, opt Options, spec mnistSpec) (*Result, error) {
	runs := opt.Runs
	if runs <= 0 {
		runs = 3
	}
	pr := newProgress(opt)
	t0 := time.Now()
	data, err := loadMNISTContext(ctx, opt.Dir)
	if err != nil {
		return nil, err
	}
	load := time.Since(t0)
	pr.printf("mnist: loaded %d training and %d test images in %v", data.train.Len(), data.test.Len(), since(t0))
	res := &Result{
		Name: "mnist",
		Protocol: fmt.Sprintf("MNIST: training subspaces (d=%d) of m=%d random same-class training images%s, %d prototype per class, %d epochs; test = %d single images by θ_1; %d runs",
			spec.Setup.Model.SubspaceDim, spec.M, " "+spec.Hard.String(), spec.Setup.Model.PrototypesPerClass, spec.Setup.Train.Epochs, data.test.Len(), runs),
		Setup:              spec.Setup,
		Accuracies:         make([]float64, runs),
		BaselineAccuracies: make([]float64, runs),
		Paper:              0.9478,
		PaperStd:           0.0003,
	}
	w := workers(opt)
	par := min(w, runs)
	trainDur := make([]time.Duration, runs)
	baseDur := make([]time.Duration, runs)
	trainIdx, testIdx := allIndices(data.train.Len()), allIndices(data.test.Len())
	pr.start(runs, &spec.Setup.Train)
	// With baselines, each run's training sets (1,250 sets of 784 x 12,
	// 126 MB) are kept for them.
	holdouts := make([]baseline.Holdout, runs)
	err = forEach(ctx, runs, par, func(r int) error {
		acc, base, x, y, td, bd, err := mnistOnce(ctx, spec, data.train, trainIdx, data.test, testIdx, opt.Seed, r)
		if err != nil {
			return err
		}
		if len(opt.Baselines) > 0 {
			holdouts[r] = baseline.Holdout{Train: x, TrainLabels: y, TestLabels: data.test.Labels}
		}
		res.Accuracies[r], res.BaselineAccuracies[r] = acc, base
		trainDur[r], baseDur[r] = td, bd
		pr.add(1)
		pr.printf("mnist: run %d: GRLGQ %.2f%%, baseline %.2f%% (%v)", r+1, 100*acc, 100*base, (td + bd).Round(time.Millisecond))
		return nil
	})
	if err != nil {
		return nil, err
	}
	pr.finish()
	res.finish()
	res.Wall = time.Since(t0)
	res.Setup.Train.Seed = opt.Seed
	var sumB time.Duration
	for _, d := range baseDur {
		sumB += d
	}
	// The baseline ran inside the runs: report its share of the wall time.
	res.BaselineWall = load + sumB/time.Duration(par)
	res.Wall -= sumB / time.Duration(par)
	if len(opt.Baselines) == 0 {
		return res, nil
	}
	// The baselines: each run's training sets against the test images,
	// the runs' splits (one with -runs 1: no standard errors).
	test, err := imageSubspaces(data.test.Images)
	if err != nil {
		return nil, fmt.Errorf("paper: mnist test %w", err)
	}
	for r := range holdouts {
		holdouts[r].Test = test
	}
	return res, res.runBaselines(ctx, opt, func(ctx context.Context, o baseline.Options) (*baseline.Result, error) {
		return baseline.EvaluateHoldouts(ctx, holdouts, o)
	})
}
