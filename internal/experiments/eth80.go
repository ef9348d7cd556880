package experiments

import (
	"context"
	"fmt"
	"time"

	"github.com/grlgq/grlgq/dataset/imageset"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

// eth80Spec is the ETH-80 protocol's free choices (see eth80Default).
type eth80Spec struct {
	Train  int // objects per category for training (the rest test)
	Config model.Config
}

// eth80Default is the ETH-80 protocol: gray 20x20 images, one object (41
// views) = one set, d = 5; per category 5 objects train and 5 test, Runs
// random splits; one prototype per class (the paper's parameter count,
// 16,005 = 8·400·5 + 5) initialised from a random training set of its class;
// η = 0.05, γ = 1e-4 (the paper; factor 2 kept in G). The paper gives no
// number of epochs: eth80Epochs is fixed a priori (see there).
func eth80Default() eth80Spec {
	return eth80Spec{
		Train: 5,
		Config: model.Config{
			SubspaceDim:        5,
			PrototypesPerClass: 1,
			Init:               model.InitSample,
			Relevance:          model.RelevanceGlobal,
			Eta:                0.05,
			Gamma:              1e-4,
			Epochs:             eth80Epochs,
		},
	}
}

// eth80Epochs: 40 training sets, so an epoch is 40 steps.
const eth80Epochs = 100

type eth80Data struct {
	classes []string
	names   []string // "category/object"
	x       []*subspace.Subspace
	y       []int
}

// loadETH80 reads eth80/<category>/<object>/*.png as gray 20x20 images and
// turns each object's views into its d-dimensional subspace.
func loadETH80(dir string, d, w int) (*eth80Data, error) {
	p, err := dataPath(dir, "eth80")
	if err != nil {
		return nil, err
	}
	tree, err := imageset.Load(p, imageset.Options{Width: 20, Height: 20, Workers: w})
	if err != nil {
		return nil, err
	}
	data := &eth80Data{classes: tree.Classes}
	for _, s := range tree.Sets {
		sub, err := setSubspace(s.Images, d)
		if err != nil {
			return nil, fmt.Errorf("experiments: eth80 %s/%s: %w", tree.Classes[s.Class], s.Name, err)
		}
		data.names = append(data.names, tree.Classes[s.Class]+"/"+s.Name)
		data.x = append(data.x, sub)
		data.y = append(data.y, s.Class)
	}
	return data, nil
}

// splitSets puts, within each class, ntrain random sets into the training
// part and the rest into the test part.
func splitSets(y []int, classes, ntrain int, rng interface{ Shuffle(int, func(int, int)) }) (train, test []int) {
	byClass := make([][]int, classes)
	for i, c := range y {
		byClass[c] = append(byClass[c], i)
	}
	for _, ids := range byClass {
		rng.Shuffle(len(ids), func(a, b int) { ids[a], ids[b] = ids[b], ids[a] })
		k := min(ntrain, len(ids))
		train = append(train, ids[:k]...)
		test = append(test, ids[k:]...)
	}
	return train, test
}

func pickSets(x []*subspace.Subspace, y []int, idx []int) ([]*subspace.Subspace, []int) {
	xs := make([]*subspace.Subspace, len(idx))
	ys := make([]int, len(idx))
	for k, i := range idx {
		xs[k], ys[k] = x[i], y[i]
	}
	return xs, ys
}

// eth80Once trains on the sets trainIdx and tests on testIdx.
func eth80Once(ctx context.Context, spec eth80Spec, data *eth80Data, trainIdx, testIdx []int, seed uint64, r int) (acc, base float64, trainDur, baseDur time.Duration, err error) {
	t0 := time.Now()
	cfg := spec.Config
	cfg.Seed = modelSeed(seed, r)
	cfg.Workers = 1
	xtr, ytr := pickSets(data.x, data.y, trainIdx)
	xte, yte := pickSets(data.x, data.y, testIdx)
	bm, err := baselineModel(cfg, xtr, ytr)
	if err != nil {
		return
	}
	if base, err = setAccuracy(bm, xte, yte, 1); err != nil {
		return
	}
	baseDur = time.Since(t0)
	m, _, err := model.Train(ctx, cfg, xtr, ytr)
	if err != nil {
		err = fmt.Errorf("experiments: eth80 split %d: %w", r, err)
		return
	}
	defer m.Close()
	acc, err = setAccuracy(m, xte, yte, 1)
	trainDur = time.Since(t0) - baseDur
	return
}

func runETH80(ctx context.Context, opt Options) (*Result, error) {
	return runETH80With(ctx, opt, eth80Default())
}

func runETH80With(ctx context.Context, opt Options, spec eth80Spec) (*Result, error) {
	runs := opt.Runs
	if runs <= 0 {
		runs = 10
	}
	pr := &progress{f: opt.Progress}
	w := workers(opt)
	t0 := time.Now()
	data, err := loadETH80(opt.Dir, spec.Config.SubspaceDim, w)
	if err != nil {
		return nil, err
	}
	load := time.Since(t0)
	pr.printf("eth80: loaded %d image sets of %d categories as gray 20x20, subspaces d=%d, in %v", len(data.x), len(data.classes), spec.Config.SubspaceDim, since(t0))
	res := &Result{
		Name: "eth80",
		Protocol: fmt.Sprintf("ETH-80 gray 20x20, one object (41 views) = one set, d=%d; per category %d objects train, the rest test; %d random splits; %d prototype per class from a random training set; %d epochs",
			spec.Config.SubspaceDim, spec.Train, runs, spec.Config.PrototypesPerClass, spec.Config.Epochs),
		Config:             spec.Config,
		Accuracies:         make([]float64, runs),
		BaselineAccuracies: make([]float64, runs),
		Paper:              0.945,
		PaperStd:           0.0187,
	}
	res.Config.ClassNames = data.classes
	baseDur := make([]time.Duration, runs)
	err = forEach(ctx, runs, w, func(r int) error {
		tr, te := splitSets(data.y, len(data.classes), spec.Train, runRNG(opt.Seed, streamSplit, r))
		acc, base, td, bd, err := eth80Once(ctx, spec, data, tr, te, opt.Seed, r)
		if err != nil {
			return err
		}
		res.Accuracies[r], res.BaselineAccuracies[r] = acc, base
		baseDur[r] = bd
		pr.printf("eth80: split %d: GRLGQ %.2f%%, baseline %.2f%% (%v)", r+1, 100*acc, 100*base, (td + bd).Round(time.Millisecond))
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
	par := time.Duration(min(w, runs))
	res.Wall = time.Since(t0) - sumB/par
	res.BaselineWall = load + sumB/par
	return res, nil
}
