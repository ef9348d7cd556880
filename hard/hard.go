package hard

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

// Options are the hard-example settings of Images and Pool.
type Options struct {
	// M is the number of images per hard set (Images only): at least the
	// subspace dimension d; M = d makes a set's subspace the span of its
	// images.
	M int
	// Margin: a sample is hard when its μ (see the package doc) is above
	// −Margin, i.e. misclassified or correct by a relative margin below
	// Margin. Margin <= −1 selects nothing, Margin >= 1 everything.
	Margin float64
	// Copies is how many times each hard set enters an epoch (>= 1; Pool
	// accepts 0: nothing is added).
	Copies int
	// OnSelect, if non-nil, is called before every epoch (1-based, the
	// lifetime epoch of the model being trained) with the number of hard
	// samples and of hard sets the epoch trains on (for Pool both are the
	// number of hard sets of the pool).
	OnSelect func(epoch, hardSamples, hardSets int)
}

// String describes o for a line about a training run: "plus, every epoch,
// C copies of hard sets (m=M images of one class ...)".
func (o Options) String() string {
	return fmt.Sprintf("plus, every epoch, %d copies of hard sets (m=%d images of one class the current model misclassifies or classifies with relative θ_1² margin < %g)", o.Copies, o.M, o.Margin)
}

// Images returns the hook (model.TrainConfig.Augment) of hard-example
// training on single images: before every epoch it adds Copies copies of
// the hard sets of the images imgs (labels labels) under the model of that
// moment. Within each class, the images with μ above −Margin (θ_1²
// distances) are that epoch's hard images; they are sorted from the
// hardest (largest μ) by the class of their nearest wrong prototype (so
// that a set gathers the images one competitor takes), topped up to a
// multiple of M with the class's next hardest images, and cut into sets
// of M, each set's d-dimensional subspace (d the model's) a training set
// of the class. The last group rule differs from dataset.Groups on
// purpose: a set is made of hard images only, so when the class has too
// few images left to top the hard ones up to a multiple of M, the last
// incomplete set is dropped (never completed with easy images from the
// start). A class with fewer than M images gives none. The images are
// read, never changed; pass the training images only (a validation
// image would train through its hard set).
func Images(imgs [][]float64, labels []int, opt Options) (model.AugmentFunc, error) {
	if opt.M < 1 || opt.Copies < 1 {
		return nil, fmt.Errorf("hard: sets of m=%d images and %d copies: want m >= 1 and copies >= 1", opt.M, opt.Copies)
	}
	if len(imgs) != len(labels) {
		return nil, fmt.Errorf("hard: %d images and %d labels", len(imgs), len(labels))
	}
	return func(ctx context.Context, mod *model.Model, epoch int) ([]model.Sample, []int, error) {
		d := mod.SubspaceDim()
		if opt.M < d {
			return nil, nil, fmt.Errorf("hard: sets of m=%d images cannot span d=%d dimensions", opt.M, d)
		}
		mu, comp, err := imageMus(ctx, mod, imgs, labels)
		if err != nil {
			return nil, nil, err
		}
		hx, hy, nhard, err := hardGroups(imgs, labels, mu, comp, d, opt)
		if err != nil {
			return nil, nil, err
		}
		if opt.OnSelect != nil {
			opt.OnSelect(epoch, nhard, len(hx))
		}
		var xs []model.Sample
		var ys []int
		for range opt.Copies {
			for i, s := range hx {
				xs, ys = append(xs, model.Set(s)), append(ys, hy[i])
			}
		}
		return xs, ys, nil
	}, nil
}

// Pool returns the hook (model.TrainConfig.Augment) of hard-example
// training with a fixed pool of candidates: before every epoch it adds
// Copies copies of every sample of pool (labels poolLabels) whose μ under
// the model of that moment is above −Margin (opt.M is not used). With an
// empty pool or Copies = 0 it adds nothing, and training is
// model.Train's, bit for bit.
func Pool(pool []model.Sample, poolLabels []int, opt Options) (model.AugmentFunc, error) {
	if opt.Copies < 0 {
		return nil, fmt.Errorf("hard: %d copies", opt.Copies)
	}
	if len(pool) != len(poolLabels) {
		return nil, fmt.Errorf("hard: %d pool samples and %d labels", len(pool), len(poolLabels))
	}
	return func(ctx context.Context, m *model.Model, epoch int) ([]model.Sample, []int, error) {
		var xs []model.Sample
		var ys []int
		nh := 0
		if len(pool) > 0 && opt.Copies > 0 {
			mu, err := mus(m, pool, poolLabels)
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
		if opt.OnSelect != nil {
			opt.OnSelect(epoch, nh, nh)
		}
		return xs, ys, nil
	}, nil
}

// imageMus returns, for each image imgs[k] (labels y), its μ with δ = θ_1²
// to every prototype, and the class of its nearest prototype of another
// class. The model's batch methods compute the distances (on the cores of
// its training); the result does not depend on them.
func imageMus(ctx context.Context, m *model.Model, imgs [][]float64, y []int) (mus []float64, comp []int, err error) {
	np := m.NumPrototypes()
	labels := m.Labels()
	mus = make([]float64, len(imgs))
	comp = make([]int, len(imgs))
	const chunk = 1024
	n := min(chunk, len(imgs))
	xs := make([]model.Sample, n)
	dist := make([]float64, n*np)
	for a := 0; a < len(imgs); a += chunk {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		b := min(len(imgs), a+chunk)
		for k := a; k < b; k++ {
			xs[k-a] = model.Image(imgs[k])
		}
		if err := m.DistancesTo(dist, xs[:b-a]); err != nil {
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

// mus returns the μ of every sample x[i] (label y[i]) under m, δ the
// distances of the training cost (Σ λ_k θ_k² for a set, θ_1² for an
// image; the chordal terms sin²θ for a chordal model).
func mus(m *model.Model, x []model.Sample, y []int) ([]float64, error) {
	np := m.NumPrototypes()
	labels := m.Labels()
	out := make([]float64, len(x))
	dist, err := m.Distances(x)
	if err != nil {
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
		out[k] = model.Mu(dp, dm)
	}
	return out, nil
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
