package experiments

import (
	"context"
	"fmt"
	"time"

	"github.com/grlgq/grlgq/dataset"
	"github.com/grlgq/grlgq/dataset/imageset"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

// yaleSpec is the Yale B protocol's free choices (see yaleDefault).
type yaleSpec struct {
	M       int // images per training set
	Regroup int // independent random groupings of each fold's training images
	Folds   int
	Hard    hardSpec // hard-example sets added to every epoch (M = 0: none)
	// Images: train on the single training images (model.Continue of images
	// from the class-PCA start of the sets) instead of on the sets; Hard
	// is then unused.
	Images bool
	// Shift > 0 (with Images): each training image also enters as 4
	// copies moved by Shift pixels left, right, up and down
	// (dataset.Shifted).
	Shift int
	// AverageLast > 0 (with Images): the final model is the model.Average
	// of the models after each of the last AverageLast epochs (tail
	// averaging, model.TrainConfig.AverageLast); 0: the model after the last
	// epoch.
	AverageLast int
	Config      Setup
	// epochHook, if non-nil (with Images), is called after every epoch of
	// job (repetition·Folds + fold) with the plain model after that epoch,
	// from a second run of the same training, one epoch at a time, beside
	// the protocol's own. Diagnostics in the tests; nothing of the
	// protocol depends on it.
	epochHook func(job, epoch int, m *model.Model) error
}

// yaleDefault is the Yale B 32x32 protocol: images resized to 20x20
// (Catmull-Rom bicubic), 4-fold cross-validation repeated Runs times; d = 7,
// one prototype per class, γ = 1e-5, 200 epochs (the paper's values,
// factor 2 kept in G), prototypes initialised at the class-wise PCA
// subspace. M and Regroup (the paper gives neither) and η (the paper's 1e-2
// did worse than 1e-3 on validation) are fixed from a validation split of
// the training folds (see yaleM), never on test data. The hard-example
// sets (yaleHard) and η = 1e-2 (the paper's value) with the step schedule
// (η and γ halved every 10 epochs, the authors' NumPy code) were chosen on
// inner splits too (see yaleHard), and were then replaced, on the same
// inner splits, by training on the single training images from the
// class-PCA start (Images; yaleEpochs), later at a constant rate with the
// final model the average of the last epochs' models (yaleAverageLast):
// the sets now serve only the start and the baseline.
func yaleDefault() yaleSpec {
	return yaleSpec{
		M:           yaleM,
		Regroup:     yaleRegroup,
		Folds:       4,
		Hard:        yaleHard,
		Images:      true,
		Shift:       yaleShift,
		AverageLast: yaleAverageLast,
		Config: Setup{
			Config: model.Config{
				SubspaceDim:        7,
				PrototypesPerClass: 1,
				Relevance:          model.RelevanceGlobal,
			},
			TrainConfig: model.TrainConfig{
				Init:     model.InitPCA,
				Eta:      yaleEta,
				Gamma:    1e-5,
				Schedule: model.ScheduleConstant,
				Epochs:   yaleEpochs,
			},
		},
	}
}

// yaleM, yaleRegroup and yaleEta were chosen on an inner split of the
// training part of outer fold 1 of repetition 1 (seed 1): 2 folds for
// training, 1 for validation, the outer test fold untouched (TestTuneYale).
// Inner validation accuracy of GRLGQ (baseline), 200 epochs:
// m=7 ×1, η=1e-2: 84.17% (87.83%); m=7 ×5: 84.83% (90.17%); m=14 ×1:
// 88.83% (89.00%); m=14 ×5: 89.17% (90.17%); m=21 ×5: 90.50% (90.67%);
// η=1e-3: m=7 ×5: 90.17% (90.17%); m=14 ×5: 90.67% (90.17%), the best.
// (The inner validation images are test images of other outer folds of
// that repetition; no test fold was used to evaluate its own model.)
// Later checks on the same inner split (TestStudyYale, see docs/notebook.md): the
// sigmoid φ (β = 5) and fresh groupings every epoch changed it by 1-3
// validation images, so nothing was changed.
const (
	yaleM       = 14
	yaleRegroup = 5
	yaleEta     = 1e-2
)

// yaleEpochs, yaleShift and yaleAverageLast: single-image training
// (yaleSpec.Images) from the class-PCA start, η = 1e-2 (the paper's),
// each training image also shifted by one pixel in the 4 directions, 40
// epochs at the constant rate, the final model the average of the models
// after epochs 11 to 40. Chosen on the inner splits of the outer folds of
// the repetitions (TestStudyImagesYale; 2,404 validation images each, the
// outer test folds untouched). Mean inner validation accuracy, repetition
// 1 (2): class-PCA start 90.35% (89.52%); single images, 80 epochs
// halving every 20: 92.80% (92.26%); the same with the shifted copies:
// 93.59% (92.93%), and with 40 epochs halving every 10: 93.59% (92.85%),
// adopted then (half the cost); against the hard sets (yaleHard, 200
// epochs, no longer used by default): 91.39%. Later, over the inner
// splits of repetitions 1-8, the constant rate with the tail average
// against that step schedule: +0.14 ± 0.16 points (paired t 2.4 over the
// 8 repetitions; 6 gain, 1 ties, 1 loses), adopted by a rule fixed before
// repetitions 5-8 were run. See docs/notebook.md for the other variants (diagonal or
// 2-pixel shifts, rotations, scalings and seed averages did no better).
const (
	yaleEpochs      = 40
	yaleShift       = 1
	yaleAverageLast = 30
)

// yaleHard: every epoch, the inner-training images the current model
// misclassifies or classifies with a relative θ_1² margin below 0.3
// (about 30-40 of 1,207), topped up to sets of m = d = 7 with their
// class's next hardest images (see hardSpec), each set added 8 times to
// the 380 random groups. Chosen on the inner splits of outer folds 1-4 of
// repetition 1 (TestStudyHardYale, X_FOLDS=0,1,2,3; validation = one of
// the three training folds, about 600 images each, the outer test fold
// untouched). Mean inner validation accuracy after 200 epochs: class-PCA
// start 90.35%; η = 1e-2 with the step schedule: without hard sets
// 90.56%, with them 91.39% (every one of the four splits gains 2 to 10
// images); see docs/notebook.md for the variants (all 90.9-91.6%). Before the
// hard sets, η = 1e-3 with a constant rate had been chosen (yaleM).
var yaleHard = hardSpec{M: 7, Margin: 0.3, Copies: 8, Every: 1}

// loadYale reads yaleb32/YaleB_32x32.mat (fea: one image per row, MATLAB
// column-major pixels; gnd: labels 1..38), scales pixels to [0, 1] and
// resizes every image to 20x20.
func loadYale(dir string) (*dataset.Dataset, error) {
	return loadYaleContext(context.Background(), dir)
}

// loadYaleContext is loadYale, stopping soon when ctx is cancelled.
func loadYaleContext(ctx context.Context, dir string) (*dataset.Dataset, error) {
	p, err := dataPath(dir, "yaleb32", "YaleB_32x32.mat")
	if err != nil {
		return nil, err
	}
	ds, err := dataset.LoadMATContext(ctx, p, dataset.MATOptions{Width: 32, Height: 32, Transpose: true, PixelMax: 255})
	if err != nil {
		return nil, err
	}
	if ds.Width != 32 || ds.Height != 32 {
		return nil, fmt.Errorf("experiments: %s: images are %dx%d, want 32x32", p, ds.Width, ds.Height)
	}
	for i, img := range ds.Images {
		if ds.Images[i], err = imageset.Resize(img, 32, 32, 20, 20); err != nil {
			return nil, fmt.Errorf("experiments: %s: image %d: %w", p, i, err)
		}
	}
	ds.Width, ds.Height, ds.Dim = 20, 20, 400
	return ds, nil
}

// stratifiedFolds assigns each index of idx (labels y) to one of k folds:
// within each class the indices are shuffled by rng and dealt round-robin.
// It returns the indices of each fold.
func stratifiedFolds(y []int, idx []int, classes, k int, rng interface{ Shuffle(int, func(int, int)) }) [][]int {
	byClass := make([][]int, classes)
	for _, i := range idx {
		byClass[y[i]] = append(byClass[y[i]], i)
	}
	folds := make([][]int, k)
	for _, ids := range byClass {
		rng.Shuffle(len(ids), func(a, b int) { ids[a], ids[b] = ids[b], ids[a] })
		for j, i := range ids {
			folds[j%k] = append(folds[j%k], i)
		}
	}
	return folds
}

// yaleOnce trains on the images trainIdx of ds (grouped into sets) and
// tests GRLGQ and the baseline on the single images testIdx. job numbers
// the (repetition, fold) pair for the random streams.
func yaleOnce(ctx context.Context, spec yaleSpec, ds *dataset.Dataset, trainIdx, testIdx []int, seed uint64, job int) (acc, base float64, trainDur, baseDur time.Duration, err error) {
	t0 := time.Now()
	cfg := spec.Config
	grng := runRNG(seed, streamGroups, job)
	var x []*subspace.Subspace
	var y []int
	for g := 0; g < max(1, spec.Regroup); g++ {
		xs, ys, err2 := groupSubspaces(ds.Images, ds.Labels, trainIdx, len(ds.Classes), spec.M, cfg.SubspaceDim, grng)
		if err2 != nil {
			err = err2
			return
		}
		x, y = append(x, xs...), append(y, ys...)
	}
	cfg.Seed = modelSeed(seed, job)
	cfg.Workers = 1
	tb := time.Now()
	bm, err := baselineModel(cfg, x, y)
	if err != nil {
		return
	}
	if base, err = imageAccuracy(bm, ds.Images, ds.Labels, testIdx, 1); err != nil {
		return
	}
	baseDur = time.Since(tb)
	var m *model.Model
	if spec.Images {
		imgs := make([][]float64, len(trainIdx))
		ys := make([]int, len(trainIdx))
		for k, i := range trainIdx {
			imgs[k], ys[k] = ds.Images[i], ds.Labels[i]
		}
		if imgs, ys, err = dataset.WithShifts(imgs, ys, ds.Width, ds.Height, spec.Shift); err != nil {
			err = fmt.Errorf("experiments: yale job %d: %w", job, err)
			return
		}
		if spec.epochHook != nil {
			if err = yaleEachEpoch(ctx, bm, cfg, imgs, ys, func(e int, m *model.Model) error { return spec.epochHook(job, e, m) }); err != nil {
				err = fmt.Errorf("experiments: yale job %d: %w", job, err)
				return
			}
		}
		cfg.AverageLast = spec.AverageLast
		m, _, err = model.Continue(ctx, bm, cfg.TrainConfig, model.Images(imgs), ys)
	} else {
		m, err = trainHard(ctx, cfg, x, y, ds.Images, ds.Labels, trainIdx, len(ds.Classes), spec.Hard, 1, nil)
	}
	bm.Close()
	if err != nil {
		err = fmt.Errorf("experiments: yale job %d: %w", job, err)
		return
	}
	defer m.Close()
	acc, err = imageAccuracy(m, ds.Images, ds.Labels, testIdx, 1)
	trainDur = time.Since(t0) - baseDur
	return
}

// yaleEachEpoch trains m on the images for cfg.Epochs epochs, one
// Continue of images per epoch (the permutations and the rate follow the
// lifetime epoch, so this is the protocol's trajectory), and calls hook
// with the plain model after each; the models are discarded.
func yaleEachEpoch(ctx context.Context, m *model.Model, cfg Setup, imgs [][]float64, ys []int, hook func(e int, m *model.Model) error) error {
	c := cfg
	c.Epochs = 1
	cur := m
	for e := 1; e <= cfg.Epochs; e++ {
		next, _, err := model.Continue(ctx, cur, c.TrainConfig, model.Images(imgs), ys)
		if cur != m {
			cur.Close()
		}
		if err != nil {
			return err
		}
		if err := hook(e, next); err != nil {
			next.Close()
			return err
		}
		cur = next
	}
	if cur != m {
		cur.Close()
	}
	return nil
}

func runYale(ctx context.Context, opt Options) (*Result, error) {
	return runYaleWith(ctx, opt, yaleDefault())
}

func runYaleWith(ctx context.Context, opt Options, spec yaleSpec) (*Result, error) {
	reps := opt.Runs
	if reps <= 0 {
		reps = 10
	}
	pr := &progress{f: opt.Progress}
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
		Config:             spec.Config,
		Accuracies:         make([]float64, reps*k),
		BaselineAccuracies: make([]float64, reps*k),
		Paper:              0.9650,
		PaperStd:           0.0061,
	}
	folds := make([][][]int, reps)
	all := allIndices(ds.Len())
	for r := range reps {
		folds[r] = stratifiedFolds(ds.Labels, all, len(ds.Classes), k, runRNG(opt.Seed, streamSplit, r))
	}
	baseDur := make([]time.Duration, reps*k)
	w := workers(opt)
	err = forEach(ctx, reps*k, w, func(job int) error {
		r, f := job/k, job%k
		var train []int
		for g := range k {
			if g != f {
				train = append(train, folds[r][g]...)
			}
		}
		acc, base, td, bd, err := yaleOnce(ctx, spec, ds, train, folds[r][f], opt.Seed, job)
		if err != nil {
			return err
		}
		res.Accuracies[job], res.BaselineAccuracies[job] = acc, base
		baseDur[job] = bd
		pr.printf("yale: repetition %d fold %d: GRLGQ %.2f%%, baseline %.2f%% (%v)", r+1, f+1, 100*acc, 100*base, (td + bd).Round(time.Millisecond))
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.finish()
	res.Config.Seed = opt.Seed
	var sumB time.Duration
	for _, d := range baseDur {
		sumB += d
	}
	par := time.Duration(min(w, reps*k))
	res.Wall = time.Since(t0) - sumB/par
	res.BaselineWall = load + sumB/par
	return res, nil
}

// yaleProtocol describes spec in one line.
func yaleProtocol(spec yaleSpec, k, reps int) string {
	c := spec.Config
	head := fmt.Sprintf("Yale B 32x32 resized to 20x20: %d-fold cross-validation repeated %d times; d=%d, %d prototype per class", k, reps, c.SubspaceDim, c.PrototypesPerClass)
	if spec.Images {
		shift := ""
		if spec.Shift > 0 {
			shift = fmt.Sprintf(", each also shifted by %d pixel(s) left, right, up and down", spec.Shift)
		}
		rate := fmt.Sprintf("η=%g", c.Eta)
		if c.Schedule == model.ScheduleStep {
			rate += fmt.Sprintf(" halved every %d epochs", c.StepEvery)
		}
		final := ""
		if spec.AverageLast > 0 {
			final = fmt.Sprintf(", the final model the average (model.Average) of the models after each of the last %d epochs", spec.AverageLast)
		}
		return fmt.Sprintf("%s started at the class-PCA subspace of the training subspaces (m=%d same-class images, %d groupings), then trained on the single training images (1-D subspaces)%s for %d epochs, %s%s; test = single images by θ_1",
			head, spec.M, spec.Regroup, shift, c.Epochs, rate, final)
	}
	return fmt.Sprintf("%s; training subspaces of m=%d same-class training images (%d grouping(s))%s, %d epochs; test = single images by θ_1",
		head, spec.M, spec.Regroup, spec.Hard.text(), c.Epochs)
}
