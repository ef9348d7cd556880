package paper

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/grlgq/grlgq/dataset"
	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/score"
	"github.com/grlgq/grlgq/subspace"
)

// PCG streams of the protocols' random choices, one per purpose; run r of a
// protocol adds r, so runs are independent of each other and of the
// number of workers.
const (
	streamGroups = 0x47525053_00000000 // "GRPS": grouping images into sets
	streamSplit  = 0x53504c49_00000000 // "SPLI": train/test splits and folds
	streamModel  = 0x4d4f444c_00000000 // "MODL": model.TrainConfig.Seed of a run
	streamAug    = 0x41554753_00000000 // "AUGS": training-set augmentation (view subsets)
	streamPool   = 0x504f4f4c_00000000 // "POOL": pools of hard view subsets (ETH-80)
)

// runRNG returns the generator of run r for one purpose.
func runRNG(seed uint64, stream uint64, r int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, stream+uint64(r)))
}

// modelSeed returns the model.TrainConfig.Seed of run r.
func modelSeed(seed uint64, r int) uint64 {
	return runRNG(seed, streamModel, r).Uint64()
}

// progress serialises opt.Progress and opt.Step.
type progress struct {
	mu          sync.Mutex
	f           func(string)
	step        func(done, total int)
	done, total int
}

// newProgress returns the progress of opt.
func newProgress(opt Options) *progress { return &progress{f: opt.Progress, step: opt.Step} }

// start sets the units of the protocol: jobs trainings of tc's epochs,
// each then evaluated, and chains tc.OnEpoch to count an epoch.
func (p *progress) start(jobs int, tc *model.TrainConfig) {
	p.total = jobs * (tc.Epochs + 1)
	prev := tc.OnEpoch
	tc.OnEpoch = func(s model.EpochStats) error {
		p.add(1)
		if prev != nil {
			return prev(s)
		}
		return nil
	}
}

// add counts n units done (at most the total until finish).
func (p *progress) add(n int) {
	if p.step == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = min(p.done+n, max(p.total-1, 0))
	p.step(p.done, p.total)
}

// finish reports every unit done.
func (p *progress) finish() {
	if p.step == nil || p.total == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done = p.total
	p.step(p.done, p.total)
}

func (p *progress) printf(format string, a ...any) {
	if p == nil || p.f == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.f(fmt.Sprintf(format, a...))
}

func workers(opt Options) int {
	if opt.Workers > 0 {
		return opt.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// forEach calls fn(i) for i in [0, n) on up to w goroutines and returns the
// error of the lowest i that failed (or ctx's error). Each fn must write only
// its own outputs.
func forEach(ctx context.Context, n, w int, fn func(i int) error) error {
	w = max(1, min(w, n))
	errs := make([]error, n)
	var next sync.Mutex
	i0 := 0
	var wg sync.WaitGroup
	for range w {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				next.Lock()
				i := i0
				i0++
				next.Unlock()
				if i >= n {
					return
				}
				if err := ctx.Err(); err != nil {
					errs[i] = err
					continue
				}
				errs[i] = fn(i)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// groupSubspaces turns images into training subspaces: within each class
// (ascending), the images (indices into imgs, labels y) are grouped by
// dataset.Groups with rng (shuffled and cut into groups of m, the last
// group completed from the start of the shuffle; a class with fewer than m
// images contributes none). Each group's D x m matrix (one image per
// column) becomes its d-dimensional subspace.
func groupSubspaces(imgs [][]float64, y []int, idx []int, classes, m, d int, rng *rand.Rand) ([]*subspace.Subspace, []int, error) {
	byClass := make([][]int, classes)
	for _, i := range idx {
		byClass[y[i]] = append(byClass[y[i]], i)
	}
	var groups [][]int
	var labels []int
	for c, ids := range byClass {
		for _, g := range dataset.Groups(ids, m, rng) {
			groups = append(groups, g)
			labels = append(labels, c)
		}
	}
	if len(groups) == 0 {
		return nil, nil, fmt.Errorf("paper: no class has %d images to group", m)
	}
	conv, err := subspace.NewConverter(len(imgs[groups[0][0]]), m, d)
	if err != nil {
		return nil, nil, err
	}
	out := make([]*subspace.Subspace, len(groups))
	for g, ids := range groups {
		if out[g], err = conv.FromImages(pick(imgs, ids)); err != nil {
			return nil, nil, fmt.Errorf("paper: group %d of class %d: %w", g, labels[g], err)
		}
	}
	return out, labels, nil
}

// imageSubspaces returns the images as 1-D subspaces x/‖x‖, the values of
// subspace.FromImage, on one array with stride 1 (FromImage pads each row
// to 8 values: 500 MB for MNIST's 10,000 test images instead of 63 MB).
func imageSubspaces(imgs [][]float64) ([]*subspace.Subspace, error) {
	if len(imgs) == 0 {
		return nil, nil
	}
	dim := len(imgs[0])
	data := make([]float64, len(imgs)*dim)
	out := make([]*subspace.Subspace, len(imgs))
	for i, img := range imgs {
		if len(img) != dim {
			return nil, fmt.Errorf("image %d has %d pixels, want %d", i, len(img), dim)
		}
		nrm, err := linalg.Norm(img)
		if err != nil {
			return nil, fmt.Errorf("image %d: %w", i, err)
		}
		if nrm == 0 {
			return nil, fmt.Errorf("image %d: %w", i, subspace.ErrZeroImage)
		}
		v := data[i*dim : (i+1)*dim]
		for r, p := range img {
			v[r] = p / nrm
		}
		out[i] = &subspace.Subspace{Basis: linalg.NewDenseOn(dim, 1, 1, v)}
	}
	return out, nil
}

// setSubspace returns the d-dimensional subspace of the image set imgs.
func setSubspace(imgs [][]float64, d int) (*subspace.Subspace, error) {
	return subspace.FromImages(imgs, d)
}

// imageAccuracy returns the fraction of the images imgs[idx] (labels y)
// that m classifies correctly, with θ_1 to each prototype (Model.Score:
// its batches split over the workers of m's training; the result does
// not depend on them).
func imageAccuracy(m *model.Model, imgs [][]float64, y []int, idx []int) (float64, error) {
	m, err := m.WithWorkers(m.TrainConfig().Workers)
	if err != nil {
		return 0, err
	}
	sc, err := m.Score(model.Images(pick(imgs, idx)), pick(y, idx))
	if err != nil {
		return 0, err
	}
	return sc.Accuracy(), nil
}

// setAccuracy returns the fraction of the subspaces x (labels y) that m
// classifies correctly (weighted geodesic distance, learned λ; on the
// workers of m's training, as imageAccuracy).
func setAccuracy(m *model.Model, x []*subspace.Subspace, y []int) (float64, error) {
	m, err := m.WithWorkers(m.TrainConfig().Workers)
	if err != nil {
		return 0, err
	}
	sc, err := m.Score(model.Sets(x), y)
	if err != nil {
		return 0, err
	}
	return sc.Accuracy(), nil
}

// baselineModel returns the untrained baseline: model.Init with one
// class-PCA prototype per class (the dominant d-dimensional subspace of each
// class's training bases), λ = 1/d.
func baselineModel(cfg model.Options, x []*subspace.Subspace, y []int) (*model.Model, error) {
	cfg.Train.Init = model.InitPCA
	cfg.Model.PrototypesPerClass = 1
	cfg.Model.PrototypesOfClass = nil
	cfg.Train.Workers = 1
	return model.Init(cfg, model.Sets(x), y)
}

// since returns the time since t0, rounded for messages.
func since(t0 time.Time) time.Duration { return time.Since(t0).Round(time.Millisecond) }

// dataPath joins the data root and a relative path and checks it exists.
func dataPath(dir string, rel ...string) (string, error) {
	p := filepath.Join(append([]string{dir}, rel...)...)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("paper: data: %w", err)
	}
	return p, nil
}

// finish fills the summary fields of r.
func (r *Result) finish() {
	r.Mean, r.Std = score.MeanSD(r.Accuracies)
	r.BaselineMean, r.BaselineStd = score.MeanSD(r.BaselineAccuracies)
}
