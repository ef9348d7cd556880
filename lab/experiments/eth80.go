package experiments

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/grlgq/grlgq/dataset/imageset"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

// eth80Spec is the ETH-80 protocol's free choices (see eth80Default).
type eth80Spec struct {
	Train  int // objects per category for training (the rest test)
	Config Setup
	// EpochGrid, when non-empty, replaces Config.Epochs by nested model
	// selection: each split picks the epoch count of the grid with the best
	// leave-one-object-per-category-out accuracy on its TRAINING sets
	// (ties to fewer epochs), then retrains on all of them.
	EpochGrid []int
	// Subsets and SubsetSize augment the training data: besides its full
	// set, every training object contributes Subsets further training sets,
	// each the subspace of SubsetSize of its views drawn at random (without
	// replacement; fresh draws per split). Test objects are always whole
	// sets. 0 = no augmentation.
	Subsets, SubsetSize int
	// Hard: hard view subsets added to every epoch (Pool = 0: none).
	Hard setHard
	// epochHook, if non-nil, is called after every training epoch of split
	// r with the model of that moment (diagnostics in the tests; nothing
	// of the protocol depends on it).
	epochHook func(r, epoch int, m *model.Model) error
}

// eth80Default is the ETH-80 protocol: gray 20x20 images, one object (41
// views) = one set, d = 5; per category 5 objects train and 5 test, Runs
// random splits; one prototype per class (the paper's parameter count,
// 16,005 = 8·400·5 + 5) initialised from a random training set of its class;
// η = 0.05, γ = 1e-4 (the paper; factor 2 kept in G). The paper gives no
// number of epochs: each split chooses it from eth80EpochGrid by
// cross-validation on its own training sets (see eth80Spec.EpochGrid); the
// test sets are used only for the final accuracy.
func eth80Default() eth80Spec {
	return eth80Spec{
		Train: 5,
		Config: Setup{
			Config: model.Config{
				SubspaceDim:        5,
				PrototypesPerClass: 1,
				Relevance:          model.RelevanceGlobal,
			},
			TrainConfig: model.TrainConfig{
				Init:       model.InitSample,
				Eta:        0.05,
				Gamma:      1e-4,
				Activation: model.Sigmoid,
				Beta:       eth80Beta,
				Epochs:     eth80Epochs,
			},
		},
		Subsets:    eth80Subsets,
		SubsetSize: eth80SubsetSize,
		Hard:       eth80Hard,
	}
}

// The ETH-80 choices the paper does not fix (see docs/notebook.md for the study):
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
// paired draws of the subsets (TestStudyHardETH80; see docs/notebook.md): +1.39 ±
// 0.63 points at 80 epochs over the previous protocol at its 160 epochs,
// every draw positive.
var eth80Hard = setHard{Pool: 16, Size: 20, Copies: 2, Margin: 0.3}

// eth80EpochGrid: candidate epoch counts for eth80Spec.EpochGrid (an epoch
// is 40 steps with 5 training objects per category and no augmentation).
var eth80EpochGrid = []int{10, 20, 40, 80, 160, 320}

type eth80Data struct {
	classes []string
	names   []string // "category/object"
	x       []*subspace.Subspace
	y       []int
	imgs    [][][]float64 // per set, its gray 20x20 views
}

// loadETH80 reads eth80/<category>/<object>/*.png as gray 20x20 images and
// turns each object's views into its d-dimensional subspace.
func loadETH80(dir string, d, w int) (*eth80Data, error) {
	return loadETH80Context(context.Background(), dir, d, w)
}

// loadETH80Context is loadETH80, stopping soon when ctx is cancelled.
func loadETH80Context(ctx context.Context, dir string, d, w int) (*eth80Data, error) {
	p, err := dataPath(dir, "eth80")
	if err != nil {
		return nil, err
	}
	tree, err := imageset.LoadContext(ctx, p, imageset.Options{Width: 20, Height: 20, Workers: w})
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
		data.imgs = append(data.imgs, s.Images)
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
func eth80Once(ctx context.Context, spec eth80Spec, data *eth80Data, trainIdx, testIdx []int, seed uint64, r int) (acc, base float64, epochs int, trainDur, baseDur time.Duration, err error) {
	t0 := time.Now()
	cfg := spec.Config
	cfg.Seed = modelSeed(seed, r)
	cfg.Workers = 1
	if len(spec.EpochGrid) > 0 {
		if cfg.Epochs, err = eth80SelectEpochs(ctx, spec, data, trainIdx, cfg); err != nil {
			return
		}
	}
	xtr, ytr := pickSets(data.x, data.y, trainIdx)
	bxtr, bytr := xtr, ytr // the baseline sees the whole sets only
	if spec.Subsets > 0 {
		xa, ya, err2 := eth80Augment(data, trainIdx, spec.Subsets, spec.SubsetSize, cfg.SubspaceDim, runRNG(seed, streamAug, r))
		if err2 != nil {
			err = err2
			return
		}
		xtr, ytr = append(xtr, xa...), append(ytr, ya...)
	}
	xte, yte := pickSets(data.x, data.y, testIdx)
	tb := time.Now()
	bm, err := baselineModel(cfg, bxtr, bytr)
	if err != nil {
		return
	}
	base, err = setAccuracy(bm, xte, yte, 1)
	bm.Close()
	if err != nil {
		return
	}
	baseDur = time.Since(tb)
	var px []*subspace.Subspace
	var py []int
	if h := spec.Hard; h.Pool > 0 && h.Copies > 0 {
		if px, py, err = eth80Augment(data, trainIdx, h.Pool, h.Size, cfg.SubspaceDim, runRNG(seed, streamPool, r)); err != nil {
			return
		}
	}
	var eval func(e int, m *model.Model, nhard int) error
	if spec.epochHook != nil {
		eval = func(e int, m *model.Model, _ int) error { return spec.epochHook(r, e, m) }
	}
	m, err := trainHardSets(ctx, cfg, xtr, ytr, px, py, spec.Hard.Margin, spec.Hard.Copies, eval)
	if err != nil {
		err = fmt.Errorf("experiments: eth80 split %d: %w", r, err)
		return
	}
	defer m.Close()
	acc, err = setAccuracy(m, xte, yte, 1)
	epochs = cfg.Epochs
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
			return nil, nil, fmt.Errorf("experiments: eth80 %s: subsets of %d of %d views for d=%d", data.names[i], size, len(views), d)
		}
		sub := make([][]float64, size)
		for range k {
			for j, v := range rng.Perm(len(views))[:size] {
				sub[j] = views[v]
			}
			s, err := setSubspace(sub, d)
			if err != nil {
				return nil, nil, fmt.Errorf("experiments: eth80 %s: view subset: %w", data.names[i], err)
			}
			xs, ys = append(xs, s), append(ys, data.y[i])
		}
	}
	return xs, ys, nil
}

// eth80SelectEpochs returns the epoch count of spec.EpochGrid with the best
// cross-validated accuracy on the training sets trainIdx alone: fold h holds
// out the h-th training object of every category (trainIdx lists each
// category's objects in its split's random order) and trains on the others,
// continuing one model through the grid (Continue resumes the same
// schedule and permutations, so the model after e epochs is the model
// Train would give for e epochs). Ties go to fewer epochs.
func eth80SelectEpochs(ctx context.Context, spec eth80Spec, data *eth80Data, trainIdx []int, cfg Setup) (int, error) {
	grid := spec.EpochGrid
	correct := make([]int, len(grid))
	pos := make(map[int]int) // class -> objects seen so far
	rank := make([]int, len(trainIdx))
	for k, i := range trainIdx {
		rank[k] = pos[data.y[i]]
		pos[data.y[i]]++
	}
	for h := range spec.Train {
		var tr, va []int
		for k, i := range trainIdx {
			if rank[k] == h {
				va = append(va, i)
			} else {
				tr = append(tr, i)
			}
		}
		if len(va) == 0 || len(tr) == 0 {
			continue
		}
		xtr, ytr := pickSets(data.x, data.y, tr)
		xva, yva := pickSets(data.x, data.y, va)
		c := cfg
		c.Epochs = grid[0]
		m, _, err := model.Train(ctx, c.Config, c.TrainConfig, model.Sets(xtr), ytr)
		if err != nil {
			return 0, fmt.Errorf("experiments: eth80 epoch selection: %w", err)
		}
		for g, e := range grid {
			if g > 0 {
				c.Epochs = e - grid[g-1]
				next, _, err := model.Continue(ctx, m, c.TrainConfig, model.Sets(xtr), ytr)
				m.Close()
				if err != nil {
					return 0, fmt.Errorf("experiments: eth80 epoch selection: %w", err)
				}
				m = next
			}
			acc, err := setAccuracy(m, xva, yva, 1)
			if err != nil {
				m.Close()
				return 0, err
			}
			correct[g] += int(acc*float64(len(va)) + 0.5)
		}
		m.Close()
	}
	best := 0
	for g := range grid {
		if correct[g] > correct[best] {
			best = g
		}
	}
	return grid[best], nil
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
	data, err := loadETH80Context(ctx, opt.Dir, spec.Config.SubspaceDim, w)
	if err != nil {
		return nil, err
	}
	load := time.Since(t0)
	pr.printf("eth80: loaded %d image sets of %d categories as gray 20x20, subspaces d=%d, in %v", len(data.x), len(data.classes), spec.Config.SubspaceDim, since(t0))
	res := &Result{
		Name: "eth80",
		Protocol: fmt.Sprintf("ETH-80 gray 20x20, one object (41 views) = one set, d=%d; per category %d objects train, the rest test; %d random splits; %d prototype per class from a random training set; %s",
			spec.Config.SubspaceDim, spec.Train, runs, spec.Config.PrototypesPerClass, epochsText(spec)),
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
		acc, base, epochs, td, bd, err := eth80Once(ctx, spec, data, tr, te, opt.Seed, r)
		if err != nil {
			return err
		}
		res.Accuracies[r], res.BaselineAccuracies[r] = acc, base
		baseDur[r] = bd
		how := ""
		if len(spec.EpochGrid) > 0 {
			how = ", chosen on the training sets"
		}
		pr.printf("eth80: split %d: GRLGQ %.2f%% (%d epochs%s), baseline %.2f%% (%v)", r+1, 100*acc, epochs, how, 100*base, (td + bd).Round(time.Millisecond))
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

func epochsText(spec eth80Spec) string {
	s := fmt.Sprintf("%d epochs", spec.Config.Epochs)
	if len(spec.EpochGrid) > 0 {
		s = fmt.Sprintf("epochs chosen per split from %v by leave-one-object-per-category-out CV on the training sets", spec.EpochGrid)
	}
	if spec.Config.Activation == model.Sigmoid {
		s += fmt.Sprintf(", sigmoid φ (β=%g)", spec.Config.Beta)
	}
	if spec.Subsets > 0 {
		s += fmt.Sprintf(", each training object also gives %d random %d-view subsets as training sets", spec.Subsets, spec.SubsetSize)
	}
	if h := spec.Hard; h.Pool > 0 && h.Copies > 0 {
		s += fmt.Sprintf("; before every epoch, each of a pool of %d random %d-view subsets per training object that the model misclassifies or separates with a relative margin below %g is added %d times", h.Pool, h.Size, h.Margin, h.Copies)
	}
	return s
}
