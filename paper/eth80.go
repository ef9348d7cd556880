package paper

import (
	"context"
	"fmt"
	"github.com/grlgq/grlgq/baseline"
	"math/rand/v2"
	"time"

	"github.com/grlgq/grlgq/dataset/imageset"
	"github.com/grlgq/grlgq/folds"
	"github.com/grlgq/grlgq/hard"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

// eth80Spec is the ETH-80 protocol's free choices (see eth80Default).
type eth80Spec struct {
	Train int // objects per category for training (the rest test)
	Setup model.Options
	// Subsets and SubsetSize augment the training data: besides its full
	// set, every training object contributes Subsets further training sets,
	// each the subspace of SubsetSize of its views drawn at random (without
	// replacement; fresh draws per split). Test objects are always whole
	// sets. 0 = no augmentation.
	Subsets, SubsetSize int
	// Hard: hard view subsets added to every epoch (Pool = 0: none).
	Hard setHard
}

// setHard is the hard view subsets of the ETH-80 protocol: every training
// object also has a pool of Pool random view subsets of Size views (drawn
// once per split); before every epoch the current model classifies the
// pool, and each subset it misclassifies or separates with a relative
// margin below Margin (the paper's μ above −Margin) enters that epoch
// Copies times (hard.Pool). Pool = 0: none.
type setHard struct {
	Pool, Size, Copies int
	Margin             float64
}

// eth80Default is the ETH-80 protocol: gray 20x20 images, one object (41
// views) = one set, d = 5; per category 5 objects train and 5 test, Runs
// random splits; one prototype per class (the paper's parameter count,
// 16,005 = 8·400·5 + 5) initialised from a random training set of its class;
// η = 0.05, γ = 1e-4 (the paper; factor 2 kept in G). The paper gives no
// number of epochs; it and the other free choices below were made on
// leave-one-object-per-category-out validation of the training objects
// (docs/notebook.md); the test sets are used only for the final accuracy.
func eth80Default() eth80Spec {
	o := model.DefaultOptions()
	o.Model.SubspaceDim, o.Model.PrototypesPerClass, o.Model.Relevance = 5, 1, model.RelevanceGlobal
	o.Train.Init, o.Train.Eta, o.Train.Gamma = model.InitSample, 0.05, 1e-4
	o.Train.Activation, o.Train.Beta, o.Train.Epochs = model.Sigmoid, eth80Beta, eth80Epochs
	return eth80Spec{
		Train:      5,
		Setup:      o,
		Subsets:    eth80Subsets,
		SubsetSize: eth80SubsetSize,
		Hard:       eth80Hard,
	}
}

// The ETH-80 choices the paper does not fix (see docs/notebook.md):
// the sigmoid φ with β = 5, 4 random 20-view subsets of every training
// object as extra training sets, the hard view subsets eth80Hard, and 80
// epochs (an epoch is 200 steps with the augmentation, plus the hard
// subsets).
const (
	eth80Beta       = 5
	eth80Subsets    = 4
	eth80SubsetSize = 20
	eth80Epochs     = 80
)

// eth80Hard: a pool of 16 random 20-view subsets per training object;
// those the current model misclassifies or separates with a relative
// margin below 0.3 enter each epoch twice. Chosen on the inner
// leave-one-object-per-category-out validation of the 10 splits over 16
// paired draws of the subsets (docs/notebook.md): +1.39 ±
// 0.63 points at 80 epochs over the previous protocol at its 160 epochs,
// every draw positive.
var eth80Hard = setHard{Pool: 16, Size: 20, Copies: 2, Margin: 0.3}

type eth80Data struct {
	classes []string
	names   []string // "category/object"
	x       []*subspace.Subspace
	y       []int
	imgs    [][][]float64 // per set, its gray 20x20 views
}

// loadETH80Context reads eth80/<category>/<object>/*.png as gray 20x20
// images and turns each object's views into its d-dimensional subspace,
// stopping soon when ctx is cancelled.
func loadETH80Context(ctx context.Context, dir string, d, w int) (*eth80Data, error) {
	p, err := dataPath(dir, "eth80")
	if err != nil {
		return nil, err
	}
	tree, err := imageset.Load(ctx, p, imageset.Options{Width: 20, Height: 20, Workers: w})
	if err != nil {
		return nil, err
	}
	data := &eth80Data{classes: tree.Classes}
	for _, s := range tree.Sets {
		sub, err := setSubspace(s.Images, d)
		if err != nil {
			return nil, fmt.Errorf("paper: eth80 %s/%s: %w", tree.Classes[s.Class], s.Name, err)
		}
		data.names = append(data.names, tree.Classes[s.Class]+"/"+s.Name)
		data.imgs = append(data.imgs, s.Images)
		data.x = append(data.x, sub)
		data.y = append(data.y, s.Class)
	}
	return data, nil
}

// splitSets puts, within each class, ntrain random sets into the training
// part and the rest into the test part, in shuffled order (folds.Split).
func splitSets(y []int, classes, ntrain int, rng folds.Shuffler) (train, test []int) {
	byClass := make([][]int, classes)
	for i, c := range y {
		byClass[c] = append(byClass[c], i)
	}
	return folds.Split(folds.Shuffled(byClass, rng), folds.PerClass(ntrain))
}

// eth80Once trains on the sets trainIdx and tests on testIdx.
func eth80Once(ctx context.Context, spec eth80Spec, data *eth80Data, trainIdx, testIdx []int, seed uint64, r int) (acc, base float64, epochs int, trainDur, baseDur time.Duration, err error) {
	t0 := time.Now()
	cfg := spec.Setup
	cfg.Train.Seed = modelSeed(seed, r)
	cfg.Train.Workers = 1
	xtr, ytr := pick(data.x, trainIdx), pick(data.y, trainIdx)
	bxtr, bytr := xtr, ytr // the baseline sees the whole sets only
	if spec.Subsets > 0 {
		xa, ya, err2 := eth80Augment(data, trainIdx, spec.Subsets, spec.SubsetSize, cfg.Model.SubspaceDim, runRNG(seed, streamAug, r))
		if err2 != nil {
			err = err2
			return
		}
		xtr, ytr = append(xtr, xa...), append(ytr, ya...)
	}
	xte, yte := pick(data.x, testIdx), pick(data.y, testIdx)
	tb := time.Now()
	bm, err := baselineModel(cfg, bxtr, bytr)
	if err != nil {
		return
	}
	base, err = setAccuracy(bm, xte, yte)
	if err != nil {
		return
	}
	baseDur = time.Since(tb)
	var px []*subspace.Subspace
	var py []int
	if h := spec.Hard; h.Pool > 0 && h.Copies > 0 {
		if px, py, err = eth80Augment(data, trainIdx, h.Pool, h.Size, cfg.Model.SubspaceDim, runRNG(seed, streamPool, r)); err != nil {
			return
		}
	}
	h := spec.Hard
	if cfg.Train.Augment, err = hard.Pool(model.Sets(px), py, hard.Options{Margin: h.Margin, Copies: h.Copies}); err != nil {
		return
	}
	m, _, err := model.Train(ctx, cfg, model.Sets(xtr), ytr)
	if err != nil {
		err = fmt.Errorf("paper: eth80 split %d: %w", r, err)
		return
	}
	acc, err = setAccuracy(m, xte, yte)
	epochs = cfg.Train.Epochs
	trainDur = time.Since(t0) - baseDur
	return
}

// eth80Augment returns, for every training object trainIdx[k] in order, k
// subspaces of size random views each (views drawn without replacement by
// rng), labelled with its class.
func eth80Augment(data *eth80Data, trainIdx []int, k, size, d int, rng *rand.Rand) ([]*subspace.Subspace, []int, error) {
	var xs []*subspace.Subspace
	var ys []int
	for _, i := range trainIdx {
		views := data.imgs[i]
		if size > len(views) || size < d {
			return nil, nil, fmt.Errorf("paper: eth80 %s: subsets of %d of %d views for d=%d", data.names[i], size, len(views), d)
		}
		sub := make([][]float64, size)
		for range k {
			for j, v := range rng.Perm(len(views))[:size] {
				sub[j] = views[v]
			}
			s, err := setSubspace(sub, d)
			if err != nil {
				return nil, nil, fmt.Errorf("paper: eth80 %s: view subset: %w", data.names[i], err)
			}
			xs, ys = append(xs, s), append(ys, data.y[i])
		}
	}
	return xs, ys, nil
}

func runETH80(ctx context.Context, opt Options) (*Result, error) {
	spec := eth80Default()
	spec.Setup.Model.Precision = opt.Precision
	return runETH80With(ctx, opt, spec)
}

func runETH80With(ctx context.Context, opt Options, spec eth80Spec) (*Result, error) {
	runs := opt.Runs
	if runs <= 0 {
		runs = 10
	}
	pr := newProgress(opt)
	w := workers(opt)
	t0 := time.Now()
	data, err := loadETH80Context(ctx, opt.Dir, spec.Setup.Model.SubspaceDim, w)
	if err != nil {
		return nil, err
	}
	load := time.Since(t0)
	pr.printf("eth80: loaded %d image sets of %d categories as gray 20x20, subspaces d=%d, in %v", len(data.x), len(data.classes), spec.Setup.Model.SubspaceDim, since(t0))
	res := &Result{
		Name: "eth80",
		Protocol: fmt.Sprintf("ETH-80 gray 20x20, one object (41 views) = one set, d=%d; per category %d objects train, the rest test; %d random splits; %d prototype per class from a random training set; %s",
			spec.Setup.Model.SubspaceDim, spec.Train, runs, spec.Setup.Model.PrototypesPerClass, epochsText(spec)),
		Setup:              spec.Setup,
		Accuracies:         make([]float64, runs),
		BaselineAccuracies: make([]float64, runs),
		Paper:              0.945,
		PaperStd:           0.0187,
	}
	res.Setup.Model.ClassNames = data.classes
	baseDur := make([]time.Duration, runs)
	pr.start(runs, &spec.Setup.Train)
	splits := make([]baseline.Split, runs)
	err = forEach(ctx, runs, w, func(r int) error {
		tr, te := splitSets(data.y, len(data.classes), spec.Train, runRNG(opt.Seed, streamSplit, r))
		splits[r] = baseline.Split{Train: tr, Val: te}
		acc, base, epochs, td, bd, err := eth80Once(ctx, spec, data, tr, te, opt.Seed, r)
		if err != nil {
			return err
		}
		res.Accuracies[r], res.BaselineAccuracies[r] = acc, base
		baseDur[r] = bd
		pr.add(1)
		pr.printf("eth80: split %d: GRLGQ %.2f%% (%d epochs), baseline %.2f%% (%v)", r+1, 100*acc, epochs, 100*base, (td + bd).Round(time.Millisecond))
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
	par := time.Duration(min(w, runs))
	res.Wall = time.Since(t0) - sumB/par
	res.BaselineWall = load + sumB/par
	return res, res.runBaselines(ctx, opt, evaluate(data.x, data.y, splits))
}

func epochsText(spec eth80Spec) string {
	s := fmt.Sprintf("%d epochs", spec.Setup.Train.Epochs)
	if spec.Setup.Train.Activation == model.Sigmoid {
		s += fmt.Sprintf(", sigmoid φ (β=%g)", spec.Setup.Train.Beta)
	}
	if spec.Subsets > 0 {
		s += fmt.Sprintf(", each training object also gives %d random %d-view subsets as training sets", spec.Subsets, spec.SubsetSize)
	}
	if h := spec.Hard; h.Pool > 0 && h.Copies > 0 {
		s += fmt.Sprintf("; before every epoch, each of a pool of %d random %d-view subsets per training object that the model misclassifies or separates with a relative margin below %g is added %d times", h.Pool, h.Size, h.Margin, h.Copies)
	}
	return s
}
