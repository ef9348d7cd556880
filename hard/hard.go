package hard

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

// Options are the hard-example settings of Train and TrainPool.
type Options struct {
	// M is the number of images per hard set (Train only): at least the
	// subspace dimension d; M = d makes a set's subspace the span of its
	// images.
	M int
	// Margin: a sample is hard when its μ (see the package doc) is above
	// −Margin, i.e. misclassified or correct by a relative margin below
	// Margin. Margin <= −1 selects nothing, Margin >= 1 everything.
	Margin float64
	// Copies is how many times each hard set enters an epoch (>= 1).
	Copies int
	// Workers is the number of goroutines that classify the training
	// images (Train; 0 means 1). The model does not depend on it.
	Workers int
	// OnEpoch, if non-nil, is called after every epoch (1-based, the
	// lifetime epoch of the model being trained) with the number of hard
	// samples and of hard sets that epoch trained on (for TrainPool both
	// are the number of hard sets of the pool).
	OnEpoch func(epoch, hardSamples, hardSets int)
}

// String describes o for a line about a training run: "plus, every epoch,
// C copies of hard sets (m=M images of one class ...)".
func (o Options) String() string {
	return fmt.Sprintf("plus, every epoch, %d copies of hard sets (m=%d images of one class the current model misclassifies or classifies with relative θ_1² margin < %g)", o.Copies, o.M, o.Margin)
}

// Train trains model.Init(cfg, tc, x, y) for tc.Epochs epochs, each one
// model.Continue on the training sets x (labels y) followed by Copies
// copies of the hard sets of the single images imgs (labels labels) under
// the model of that moment. Within each class, the images with μ above
// −Margin are that epoch's hard images; they are sorted from the hardest
// (largest μ) by the class of their nearest wrong prototype (so that a set
// gathers the images one competitor takes), topped up to a multiple of M
// with the class's next hardest images, and cut into sets of M, each set's
// d-dimensional subspace a training set of the class. The last group rule
// differs from dataset.Groups on purpose: a set is made of hard images
// only, so when the class has too few images left to top the hard ones up
// to a multiple of M, the last incomplete set is dropped (never completed
// with easy images from the start). A class with fewer than M images gives
// none. tc.ValidationFraction and tc.AverageLast must be 0 (every image is
// a training image; each epoch is one Continue, whose average would be of
// one model).
func Train(ctx context.Context, cfg model.Config, tc model.TrainConfig, x []*subspace.Subspace, y []int, imgs [][]float64, labels []int, opt Options) (*model.Model, error) {
	if err := checkTrainConfig(tc); err != nil {
		return nil, err
	}
	if opt.M < max(1, cfg.SubspaceDim) || opt.Copies < 1 {
		return nil, fmt.Errorf("hard: sets of m=%d images and %d copies for d=%d: want m >= d and copies >= 1", opt.M, opt.Copies, cfg.SubspaceDim)
	}
	if len(imgs) != len(labels) {
		return nil, fmt.Errorf("hard: %d images and %d labels", len(imgs), len(labels))
	}
	var hx []*subspace.Subspace
	var hy []int
	nhard := 0
	extra := func(mod *model.Model) ([]*subspace.Subspace, []int, error) {
		mu, comp, err := imageMus(mod, imgs, labels, max(1, opt.Workers))
		if err != nil {
			return nil, nil, err
		}
		if hx, hy, nhard, err = hardGroups(imgs, labels, mu, comp, cfg.SubspaceDim, opt); err != nil {
			return nil, nil, err
		}
		var xs []*subspace.Subspace
		var ys []int
		for range opt.Copies {
			xs, ys = append(xs, hx...), append(ys, hy...)
		}
		return xs, ys, nil
	}
	var after func(e int)
	if opt.OnEpoch != nil {
		after = func(e int) { opt.OnEpoch(e, nhard, len(hx)) }
	}
	return epochLoop(ctx, cfg, tc, x, y, extra, after)
}

// TrainPool trains model.Init(cfg, tc, x, y) for tc.Epochs epochs, each one
// model.Continue on the sets x (labels y) followed by Copies copies of
// every set of the pool (labels poolLabels) whose μ under the model of
// that moment is above −Margin (opt.M and opt.Workers are unused). With an
// empty pool or Copies = 0 (and no OnEpoch) it is model.Train.
func TrainPool(ctx context.Context, cfg model.Config, tc model.TrainConfig, x []*subspace.Subspace, y []int, pool []*subspace.Subspace, poolLabels []int, opt Options) (*model.Model, error) {
	if err := checkTrainConfig(tc); err != nil {
		return nil, err
	}
	if (len(pool) == 0 || opt.Copies == 0) && opt.OnEpoch == nil {
		m, _, err := model.Train(ctx, cfg, tc, model.Sets(x), y)
		return m, err
	}
	nh := 0
	extra := func(m *model.Model) ([]*subspace.Subspace, []int, error) {
		var xs []*subspace.Subspace
		var ys []int
		nh = 0
		if len(pool) > 0 && opt.Copies > 0 {
			mu, err := setMus(m, pool, poolLabels)
			if err != nil {
				return nil, nil, err
			}
			for k, v := range mu {
				if v > -opt.Margin {
					nh++
					for range opt.Copies {
						xs, ys = append(xs, pool[k]), append(ys, poolLabels[k])
					}
				}
			}
		}
		return xs, ys, nil
	}
	var after func(e int)
	if opt.OnEpoch != nil {
		after = func(e int) { opt.OnEpoch(e, nh, nh) }
	}
	return epochLoop(ctx, cfg, tc, x, y, extra, after)
}

// checkTrainConfig refuses what one Continue per epoch cannot do.
func checkTrainConfig(tc model.TrainConfig) error {
	if tc.ValidationFraction != 0 {
		return errors.New("hard: hard-example training takes no validation split")
	}
	if tc.AverageLast != 0 {
		return errors.New("hard: hard-example training cannot average the last epochs (each epoch is one model.Continue)")
	}
	return nil
}

// epochLoop trains model.Init(cfg, tc, x, y) for tc.Epochs epochs, each one
// model.Continue (so the seeded permutation and the rate schedule follow
// the lifetime epoch as in model.Train) on the sets x, y followed by the
// sets extra returns for that epoch under the model of that moment.
// after, if non-nil, is called after each epoch (1-based).
func epochLoop(ctx context.Context, cfg model.Config, tc model.TrainConfig, x []*subspace.Subspace, y []int, extra func(mod *model.Model) ([]*subspace.Subspace, []int, error), after func(e int)) (*model.Model, error) {
	mod, err := model.Init(cfg, tc, model.Sets(x), y)
	if err != nil {
		return nil, err
	}
	c := tc
	c.Epochs = 1
	for e := 0; e < tc.Epochs; e++ {
		ex, ey, err := extra(mod)
		if err != nil {
			mod.Close()
			return nil, err
		}
		xs, ys := append(slices.Clone(x), ex...), append(slices.Clone(y), ey...)
		next, _, err := model.Continue(ctx, mod, c, model.Sets(xs), ys)
		mod.Close()
		if err != nil {
			return nil, err
		}
		mod = next
		if after != nil {
			after(e + 1)
		}
	}
	return mod, nil
}

// imageMus returns, for each image imgs[k] (labels y), its μ with δ = θ_1²
// to every prototype, and the class of its nearest prototype of another
// class. w goroutines compute the distances; the result does not depend
// on w.
func imageMus(m *model.Model, imgs [][]float64, y []int, w int) (mus []float64, comp []int, err error) {
	np := m.NumPrototypes()
	labels := m.Labels()
	mus = make([]float64, len(imgs))
	comp = make([]int, len(imgs))
	p, err := model.NewPredictor(m, w)
	if err != nil {
		return nil, nil, err
	}
	defer p.Close()
	const chunk = 1024
	n := min(chunk, len(imgs))
	xs := make([]model.Sample, n)
	dist := make([]float64, n*np)
	for a := 0; a < len(imgs); a += chunk {
		b := min(len(imgs), a+chunk)
		for k := a; k < b; k++ {
			xs[k-a] = model.Image(imgs[k])
		}
		if err := p.DistancesTo(dist, xs[:b-a]); err != nil {
			return nil, nil, err
		}
		for k := a; k < b; k++ {
			row := dist[(k-a)*np : (k-a+1)*np]
			dp, dm, cm := math.Inf(1), math.Inf(1), -1
			for j, v := range row {
				if labels[j] == y[k] {
					dp = min(dp, v)
				} else if v < dm {
					dm, cm = v, labels[j]
				}
			}
			mus[k], comp[k] = model.Mu(dp, dm), cm
		}
	}
	return mus, comp, nil
}

// setMus returns the μ of every set x[i] (label y[i]) under m, δ the
// distances of the training cost (Σ λ_k sin² θ_k).
func setMus(m *model.Model, x []*subspace.Subspace, y []int) ([]float64, error) {
	np := m.NumPrototypes()
	labels := m.Labels()
	mus := make([]float64, len(x))
	p, err := model.NewPredictor(m, 1)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	dist := make([]float64, len(x)*np)
	if err := p.DistancesTo(dist, model.Sets(x)); err != nil {
		return nil, err
	}
	for k := range x {
		row := dist[k*np : (k+1)*np]
		dp, dm := math.Inf(1), math.Inf(1)
		for j, v := range row {
			if labels[j] == y[k] {
				dp = min(dp, v)
			} else {
				dm = min(dm, v)
			}
		}
		mus[k] = model.Mu(dp, dm)
	}
	return mus, nil
}

// hardGroups builds the hard sets (subspaces of dimension d) of the images
// with μ mus and competitors comp (see Train). It also returns the number
// of hard images.
func hardGroups(imgs [][]float64, y []int, mus []float64, comp []int, d int, opt Options) ([]*subspace.Subspace, []int, int, error) {
	var byClass [][]int
	for k, c := range y {
		if c < 0 {
			return nil, nil, 0, fmt.Errorf("hard: image %d has label %d", k, c)
		}
		for c >= len(byClass) {
			byClass = append(byClass, nil)
		}
		byClass[c] = append(byClass[c], k)
	}
	var groups [][]int
	var glabels []int
	nhard := 0
	for c, ks := range byClass {
		sort.SliceStable(ks, func(a, b int) bool { return mus[ks[a]] > mus[ks[b]] })
		n := 0
		for n < len(ks) && mus[ks[n]] > -opt.Margin {
			n++
		}
		nhard += n
		if n == 0 || len(ks) < opt.M {
			continue
		}
		if r := n % opt.M; r != 0 {
			n += opt.M - r
		}
		n = min(max(n, opt.M), len(ks))
		hard := slices.Clone(ks[:n])
		sort.SliceStable(hard, func(a, b int) bool { return comp[hard[a]] < comp[hard[b]] })
		for k := 0; k+opt.M <= len(hard); k += opt.M {
			groups = append(groups, hard[k:k+opt.M])
			glabels = append(glabels, c)
		}
	}
	if len(groups) == 0 {
		return nil, nil, nhard, nil
	}
	conv, err := subspace.NewConverter(len(imgs[0]), opt.M, d)
	if err != nil {
		return nil, nil, 0, err
	}
	out := make([]*subspace.Subspace, len(groups))
	set := make([][]float64, opt.M)
	for g, ids := range groups {
		for j, i := range ids {
			set[j] = imgs[i]
		}
		if out[g], err = conv.FromImages(set); err != nil {
			return nil, nil, 0, fmt.Errorf("hard: set %d of class %d: %w", g, glabels[g], err)
		}
	}
	return out, glabels, nhard, nil
}
