package experiments

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

// PCG streams of the protocols' random choices, one per purpose; run r of a
// protocol adds r, so runs are independent of each other and of the
// number of workers.
const (
	streamGroups = 0x47525053_00000000 // "GRPS": grouping images into sets
	streamSplit  = 0x53504c49_00000000 // "SPLI": train/test splits and folds
	streamModel  = 0x4d4f444c_00000000 // "MODL": model.TrainConfig.Seed of a run
	streamVal    = 0x56414c49_00000000 // "VALI": validation splits (tuning)
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

// progress serialises opt.Progress.
type progress struct {
	mu sync.Mutex
	f  func(string)
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

// meanStd returns the mean and the sample standard deviation (n-1; 0 for a
// single value).
func meanStd(x []float64) (mean, std float64) {
	if len(x) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	if len(x) < 2 {
		return mean, 0
	}
	var ss float64
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / float64(len(x)-1))
}

// groupSubspaces turns images into training subspaces: within each class,
// the images (indices into imgs, labels y) are shuffled by rng and cut into
// consecutive groups of m; the last, incomplete group of a class is dropped
// (a class with fewer than m images contributes none). Each group's D x m
// matrix (one image per column) becomes its d-dimensional subspace.
func groupSubspaces(imgs [][]float64, y []int, idx []int, classes, m, d int, rng *rand.Rand) ([]*subspace.Subspace, []int, error) {
	byClass := make([][]int, classes)
	for _, i := range idx {
		byClass[y[i]] = append(byClass[y[i]], i)
	}
	var groups [][]int
	var labels []int
	for c, ids := range byClass {
		rng.Shuffle(len(ids), func(a, b int) { ids[a], ids[b] = ids[b], ids[a] })
		for k := 0; k+m <= len(ids); k += m {
			groups = append(groups, ids[k:k+m])
			labels = append(labels, c)
		}
	}
	if len(groups) == 0 {
		return nil, nil, fmt.Errorf("experiments: no class has %d images to group", m)
	}
	dim := len(imgs[groups[0][0]])
	conv, err := subspace.NewConverter(dim, m, d)
	if err != nil {
		return nil, nil, err
	}
	x := linalg.NewDense(dim, m)
	out := make([]*subspace.Subspace, len(groups))
	for g, ids := range groups {
		setColumns(x, imgs, ids)
		if out[g], err = conv.FromSet(x); err != nil {
			return nil, nil, fmt.Errorf("experiments: group %d of class %d: %w", g, labels[g], err)
		}
	}
	return out, labels, nil
}

// setColumns writes images imgs[ids[j]] into column j of x.
func setColumns(x *linalg.Dense, imgs [][]float64, ids []int) {
	for j, i := range ids {
		for r, v := range imgs[i] {
			x.Data[r*x.Stride+j] = v
		}
	}
}

// setSubspace returns the d-dimensional subspace of the image set imgs.
func setSubspace(imgs [][]float64, d int) (*subspace.Subspace, error) {
	ids := make([]int, len(imgs))
	for i := range ids {
		ids[i] = i
	}
	conv, err := subspace.NewConverter(len(imgs[0]), len(imgs), d)
	if err != nil {
		return nil, err
	}
	x := linalg.NewDense(len(imgs[0]), len(imgs))
	setColumns(x, imgs, ids)
	return conv.FromSet(x)
}

// imageAccuracy returns the fraction of the images imgs[idx] (labels y)
// that m classifies correctly, with θ_1 to each prototype. The images are
// cut into w contiguous chunks, each classified by its own single-worker
// Predictor on its own goroutine (see predictParallel).
func imageAccuracy(m *model.Model, imgs [][]float64, y []int, idx []int, w int) (float64, error) {
	labels := make([]int, len(idx))
	err := predictParallel(m, len(idx), w, func(p *model.Predictor, lo, hi int) error {
		xs := make([]model.Sample, hi-lo)
		for k := lo; k < hi; k++ {
			xs[k-lo] = model.Image(imgs[idx[k]])
		}
		return p.PredictBatchTo(labels[lo:hi], xs)
	})
	if err != nil {
		return 0, err
	}
	correct := 0
	for k, i := range idx {
		if labels[k] == y[i] {
			correct++
		}
	}
	return float64(correct) / float64(len(idx)), nil
}

// setAccuracy returns the fraction of the subspaces x (labels y) that m
// classifies correctly (weighted geodesic distance, learned λ).
func setAccuracy(m *model.Model, x []*subspace.Subspace, y []int, w int) (float64, error) {
	labels := make([]int, len(x))
	err := predictParallel(m, len(x), w, func(p *model.Predictor, lo, hi int) error {
		return p.PredictBatchTo(labels[lo:hi], model.Sets(x[lo:hi]))
	})
	if err != nil {
		return 0, err
	}
	correct := 0
	for i, l := range labels {
		if l == y[i] {
			correct++
		}
	}
	return float64(correct) / float64(len(x)), nil
}

// predictParallel cuts [0, n) into up to w contiguous chunks and calls fn
// on each from its own goroutine with its own single-worker Predictor.
// (Single-worker predictors start no engine goroutines; a multi-worker
// engine deadlocked here under load, see the report.) Every prediction is
// computed by the same code whatever w, so results do not depend on it.
func predictParallel(m *model.Model, n, w int, fn func(p *model.Predictor, lo, hi int) error) error {
	w = max(1, min(w, n))
	errs := make([]error, w)
	var wg sync.WaitGroup
	for c := range w {
		lo, hi := c*n/w, (c+1)*n/w
		wg.Add(1)
		go func() {
			defer wg.Done()
			p, err := model.NewPredictor(m, 1)
			if err != nil {
				errs[c] = err
				return
			}
			defer p.Close()
			errs[c] = fn(p, lo, hi)
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

// baselineModel returns the untrained baseline: model.Init with one
// class-PCA prototype per class (the dominant d-dimensional subspace of each
// class's training bases), λ = 1/d.
func baselineModel(cfg Setup, x []*subspace.Subspace, y []int) (*model.Model, error) {
	cfg.Init = model.InitPCA
	cfg.PrototypesPerClass = 1
	cfg.PrototypesOfClass = nil
	cfg.Workers = 1
	return model.Init(cfg.Config, cfg.TrainConfig, model.Sets(x), y)
}

// since returns the time since t0, rounded for messages.
func since(t0 time.Time) time.Duration { return time.Since(t0).Round(time.Millisecond) }

// dataPath joins the data root and a relative path and checks it exists.
func dataPath(dir string, rel ...string) (string, error) {
	p := filepath.Join(append([]string{dir}, rel...)...)
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("experiments: data: %w", err)
	}
	return p, nil
}

// finish fills the summary fields of r.
func (r *Result) finish() {
	r.Mean, r.Std = meanStd(r.Accuracies)
	r.BaselineMean, r.BaselineStd = meanStd(r.BaselineAccuracies)
}
