package paper

import (
	"context"
	"fmt"
	"github.com/grlgq/grlgq/baseline"
	"time"

	"github.com/grlgq/grlgq/dataset"
	"github.com/grlgq/grlgq/folds"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/pixels"
	"github.com/grlgq/grlgq/subspace"
)

// yaleSpec is the Yale B protocol's free choices (see yaleDefault).
type yaleSpec struct {
	M       int // images per set of the class-PCA start and the baseline
	Regroup int // independent random groupings of each fold's training images
	Folds   int
	// Shift > 0: each training image also enters as 4 copies moved by
	// Shift pixels left, right, up and down (dataset.WithShifts).
	Shift int
	Setup model.Options
}

// yaleDefault is the Yale B 32x32 protocol: images resized to 20x20
// (Catmull-Rom bicubic), 4-fold cross-validation repeated Runs times; d = 7,
// one prototype per class, γ = 1e-5 (the paper's values, factor 2 kept in
// G), prototypes initialised at the class-wise PCA subspace of the
// training sets (groups of M images, Regroup groupings; the paper gives
// neither), then trained on the single training images (1-D subspaces,
// model.Continue of model.Image samples), each also shifted by one pixel in 4 directions,
// for yaleEpochs epochs at the paper's η = 1e-2, constant, the final model
// the average of the last yaleAverageLast epochs' models. Every choice
// the paper leaves open was made on inner validation splits of the
// training folds, never on test data (docs/notebook.md); the sets serve
// only the start and the baseline.
func yaleDefault() yaleSpec {
	o := model.DefaultOptions()
	o.Model.SubspaceDim, o.Model.PrototypesPerClass, o.Model.Relevance = 7, 1, model.RelevanceGlobal
	o.Train.Init, o.Train.Eta, o.Train.Gamma = model.InitPCA, yaleEta, 1e-5
	o.Train.Schedule, o.Train.Epochs = model.ScheduleConstant, yaleEpochs
	// the final model is the model.Average of the models after each of
	// the last AverageLast epochs of the image training
	o.Train.AverageLast = yaleAverageLast
	return yaleSpec{M: yaleM, Regroup: yaleRegroup, Folds: 4, Shift: yaleShift, Setup: o}
}

// yaleM, yaleRegroup and yaleEta were chosen on an inner split of the
// training part of outer fold 1 of repetition 1 (seed 1): 2 folds for
// training, 1 for validation, the outer test fold untouched. Inner
// validation accuracy of GRLGQ (baseline), 200 epochs: m=7 ×1, η=1e-2:
// 84.17% (87.83%); m=7 ×5: 84.83% (90.17%); m=14 ×1: 88.83% (89.00%);
// m=14 ×5: 89.17% (90.17%); m=21 ×5: 90.50% (90.67%); η=1e-3: m=7 ×5:
// 90.17% (90.17%); m=14 ×5: 90.67% (90.17%), the best. η went back to the
// paper's 1e-2 with single-image training (see yaleEpochs and
// docs/notebook.md).
const (
	yaleM       = 14
	yaleRegroup = 5
	yaleEta     = 1e-2
)

// yaleEpochs, yaleShift and yaleAverageLast: single-image training from
// the class-PCA start, η = 1e-2 (the paper's), each training image also
// shifted by one pixel in the 4 directions, 40 epochs at the constant
// rate, the final model the average of the models after epochs 11 to 40.
// Chosen on the inner splits of the outer folds of the repetitions (2,404
// validation images each, the outer test folds untouched). Mean inner
// validation accuracy, repetition 1 (2): class-PCA start 90.35% (89.52%);
// single images, 80 epochs halving every 20: 92.80% (92.26%); the same
// with the shifted copies: 93.59% (92.93%), and with 40 epochs halving
// every 10: 93.59% (92.85%); against hard-example sets on the sets (200
// epochs): 91.39%. Over the inner splits of repetitions 1-8, the constant
// rate with the tail average against that step schedule: +0.14 ± 0.16
// points (paired t 2.4 over the 8 repetitions; 6 gain, 1 ties, 1 loses),
// adopted by a rule fixed before repetitions 5-8 were run. See
// docs/notebook.md for the other variants (diagonal or 2-pixel shifts,
// rotations, scalings and seed averages did no better).
const (
	yaleEpochs      = 40
	yaleShift       = 1
	yaleAverageLast = 30
)

// loadYaleContext reads yaleb32/YaleB_32x32.mat (fea: one image per row,
// MATLAB column-major pixels; gnd: labels 1..38), scales pixels to [0, 1]
// and resizes every image to 20x20, stopping soon when ctx is cancelled.
func loadYaleContext(ctx context.Context, dir string) (*dataset.Dataset, error) {
	p, err := dataPath(dir, "yaleb32", "YaleB_32x32.mat")
	if err != nil {
		return nil, err
	}
	ds, err := (dataset.MAT{File: p, Width: 32, Height: 32, Transpose: true, PixelMax: 255}).Load(ctx)
	if err != nil {
		return nil, err
	}
	if ds.Width != 32 || ds.Height != 32 {
		return nil, fmt.Errorf("paper: %s: images are %dx%d, want 32x32", p, ds.Width, ds.Height)
	}
	for i, img := range ds.Images {
		if ds.Images[i], err = pixels.Resize(img, 32, 32, 20, 20); err != nil {
			return nil, fmt.Errorf("paper: %s: image %d: %w", p, i, err)
		}
	}
	ds.Width, ds.Height, ds.Dim = 20, 20, 400
	return ds, nil
}

// stratifiedFolds assigns each index of idx (labels y) to one of k folds:
// within each class the indices are shuffled by rng and dealt round-robin
// from fold 0 (folds.RoundRobin). It returns the indices of each fold.
func stratifiedFolds(y []int, idx []int, classes, k int, rng folds.Shuffler) [][]int {
	byClass := make([][]int, classes)
	for _, i := range idx {
		byClass[y[i]] = append(byClass[y[i]], i)
	}
	return folds.RoundRobin(folds.Shuffled(byClass, rng), k)
}

// yaleOnce trains on the images trainIdx of ds (grouped into sets for the
// start and the baseline, then single) and tests GRLGQ and the baseline on
// the single images testIdx. job numbers
// the (repetition, fold) pair for the random streams.
func yaleOnce(ctx context.Context, spec yaleSpec, ds *dataset.Dataset, trainIdx, testIdx []int, seed uint64, job int) (acc, base float64, trainDur, baseDur time.Duration, err error) {
	t0 := time.Now()
	cfg := spec.Setup
	grng := runRNG(seed, streamGroups, job)
	var x []*subspace.Subspace
	var y []int
	for g := 0; g < max(1, spec.Regroup); g++ {
		xs, ys, err2 := groupSubspaces(ds.Images, ds.Labels, trainIdx, len(ds.Classes), spec.M, cfg.Model.SubspaceDim, grng)
		if err2 != nil {
			err = err2
			return
		}
		x, y = append(x, xs...), append(y, ys...)
	}
	cfg.Train.Seed = modelSeed(seed, job)
	cfg.Train.Workers = 1
	tb := time.Now()
	bm, err := baselineModel(cfg, x, y)
	if err != nil {
		return
	}
	if base, err = imageAccuracy(bm, ds.Images, ds.Labels, testIdx); err != nil {
		return
	}
	baseDur = time.Since(tb)
	imgs := make([][]float64, len(trainIdx))
	ys := make([]int, len(trainIdx))
	for k, i := range trainIdx {
		imgs[k], ys[k] = ds.Images[i], ds.Labels[i]
	}
	if imgs, ys, err = dataset.WithShifts(imgs, ys, ds.Width, ds.Height, spec.Shift); err != nil {
		err = fmt.Errorf("paper: yale job %d: %w", job, err)
		return
	}
	m, _, err := model.Continue(ctx, bm, cfg.Train, model.Images(imgs), ys)
	if err != nil {
		err = fmt.Errorf("paper: yale job %d: %w", job, err)
		return
	}
	acc, err = imageAccuracy(m, ds.Images, ds.Labels, testIdx)
	trainDur = time.Since(t0) - baseDur
	return
}

func runYale(ctx context.Context, opt Options) (*Result, error) {
	spec := yaleDefault()
	spec.Setup.Model.Precision = opt.Precision
	return runYaleWith(ctx, opt, spec)
}

func runYaleWith(ctx context.Context, opt Options, spec yaleSpec) (*Result, error) {
	reps := opt.Runs
	if reps <= 0 {
		reps = 10
	}
	pr := newProgress(opt)
	t0 := time.Now()
	ds, err := loadYaleContext(ctx, opt.Dir)
	if err != nil {
		return nil, err
	}
	load := time.Since(t0)
	pr.printf("yale: loaded %d images of %d people, resized to 20x20, in %v", ds.Len(), len(ds.Classes), since(t0))
	k := spec.Folds
	res := &Result{
		Name:               "yale",
		Protocol:           yaleProtocol(spec, k, reps),
		Setup:              spec.Setup,
		Accuracies:         make([]float64, reps*k),
		BaselineAccuracies: make([]float64, reps*k),
		Paper:              0.9650,
		PaperStd:           0.0061,
	}
	repFolds := make([][][]int, reps)
	all := allIndices(ds.Len())
	for r := range reps {
		repFolds[r] = stratifiedFolds(ds.Labels, all, len(ds.Classes), k, runRNG(opt.Seed, streamSplit, r))
	}
	baseDur := make([]time.Duration, reps*k)
	splits := make([]baseline.Split, reps*k)
	w := workers(opt)
	pr.start(reps*k, &spec.Setup.Train)
	err = forEach(ctx, reps*k, w, func(job int) error {
		r, f := job/k, job%k
		var train []int
		for g := range k {
			if g != f {
				train = append(train, repFolds[r][g]...)
			}
		}
		splits[job] = baseline.Split{Train: train, Val: repFolds[r][f]}
		acc, base, td, bd, err := yaleOnce(ctx, spec, ds, train, repFolds[r][f], opt.Seed, job)
		if err != nil {
			return err
		}
		res.Accuracies[job], res.BaselineAccuracies[job] = acc, base
		baseDur[job] = bd
		pr.add(1)
		pr.printf("yale: repetition %d fold %d: GRLGQ %.2f%%, baseline %.2f%% (%v)", r+1, f+1, 100*acc, 100*base, (td + bd).Round(time.Millisecond))
		return nil
	})
	if err != nil {
		return nil, err
	}
	pr.finish()
	res.finish()
	res.Setup.Train.Seed = opt.Seed
	var sumB time.Duration
	for _, d := range baseDur {
		sumB += d
	}
	par := time.Duration(min(w, reps*k))
	res.Wall = time.Since(t0) - sumB/par
	res.BaselineWall = load + sumB/par
	if len(opt.Baselines) == 0 {
		return res, nil
	}
	x, err := imageSubspaces(ds.Images)
	if err != nil {
		return nil, fmt.Errorf("paper: yale %w", err)
	}
	return res, res.runBaselines(ctx, opt, evaluate(x, ds.Labels, splits))
}

// yaleProtocol describes spec in one line.
func yaleProtocol(spec yaleSpec, k, reps int) string {
	c := spec.Setup
	head := fmt.Sprintf("Yale B 32x32 resized to 20x20: %d-fold cross-validation repeated %d times; d=%d, %d prototype per class", k, reps, c.Model.SubspaceDim, c.Model.PrototypesPerClass)
	shift := ""
	if spec.Shift > 0 {
		shift = fmt.Sprintf(", each also shifted by %d pixel(s) left, right, up and down", spec.Shift)
	}
	rate := fmt.Sprintf("η=%g", c.Train.Eta) // constant (model.ScheduleConstant)
	final := ""
	if c.Train.AverageLast > 0 {
		final = fmt.Sprintf(", the final model the average (model.Average) of the models after each of the last %d epochs", c.Train.AverageLast)
	}
	return fmt.Sprintf("%s started at the class-PCA subspace of the training subspaces (m=%d same-class images, %d groupings), then trained on the single training images (1-D subspaces)%s for %d epochs, %s%s; test = single images by θ_1",
		head, spec.M, spec.Regroup, shift, c.Train.Epochs, rate, final)
}
