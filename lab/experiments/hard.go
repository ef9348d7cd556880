package experiments

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

// hardSpec describes the hard-example training sets of the image
// protocols (MNIST, Yale B). Before every epoch the current model
// classifies each training image by the test rule (θ_1 to every
// prototype); the images it misclassifies or classifies with a relative
// margin below Margin are that epoch's hard images. Within each class they
// are sorted by the class of their nearest wrong prototype (so that a set
// gathers the images one competitor takes), topped up to a multiple of M
// with the class's next hardest images, and cut into sets of M; each set's
// d-dimensional subspace is a training set of the class, and the epoch
// trains on the random groups plus Copies copies of every hard set. The
// training samples thus stay subspaces of M >= d images of one class, as
// in the paper; only which images are grouped together follows the
// model's errors (as in ALSM-style subspace learning). M = 0 disables it.
type hardSpec struct {
	M      int     // images per hard set (M = d: the set's subspace is their span)
	Margin float64 // hard: μ = (δ⁻ − δ⁺)/(δ⁻ + δ⁺) < Margin, δ = θ_1² (μ <= 0: misclassified)
	Copies int     // each hard set enters an epoch Copies times
	Every  int     // rebuild the hard sets every Every epochs (0 = 1)
	Mode   string  // "" (as above) or "nn": each hard image with its M-1 most cosine-similar hard images of its class
	Min    int     // at least the Min hardest images of every class (0: only those under the margin)
}

// imageMargins returns, for each image imgs[idx[k]] (labels y), its
// relative margin μ_k = (δ⁻ − δ⁺)/(δ⁻ + δ⁺), δ⁺ the θ_1² to the nearest
// prototype of its class and δ⁻ to the nearest of another class (μ <= 0:
// misclassified), and the class of that nearest other prototype. It uses w
// goroutines; the result does not depend on w.
func imageMargins(m *model.Model, imgs [][]float64, y []int, idx []int, w int) (mu []float64, comp []int, err error) {
	np := m.NumPrototypes()
	labels := m.Labels()
	mu = make([]float64, len(idx))
	comp = make([]int, len(idx))
	err = predictParallel(m, len(idx), w, func(p *model.Predictor, lo, hi int) error {
		const chunk = 1024
		xs := make([]model.Sample, chunk)
		dist := make([]float64, chunk*np)
		for a := lo; a < hi; a += chunk {
			b := min(hi, a+chunk)
			for k := a; k < b; k++ {
				xs[k-a] = model.Image(imgs[idx[k]])
			}
			if err := p.DistancesTo(dist, xs[:b-a]); err != nil {
				return err
			}
			for k := a; k < b; k++ {
				row := dist[(k-a)*np : (k-a+1)*np]
				dp, dm, cm := math.Inf(1), math.Inf(1), -1
				for j, v := range row {
					if labels[j] == y[idx[k]] {
						dp = min(dp, v)
					} else if v < dm {
						dm, cm = v, labels[j]
					}
				}
				mu[k], comp[k] = (dm-dp)/(dm+dp), cm
				if dm+dp == 0 {
					mu[k] = 0
				}
			}
		}
		return nil
	})
	return
}

// hardGroups builds the hard sets (subspaces of dimension d) of the images
// idx with margins mu and competitors comp (see hardSpec). It also returns
// the number of images under the margin.
func hardGroups(imgs [][]float64, y []int, idx []int, mu []float64, comp []int, classes, d int, h hardSpec) ([]*subspace.Subspace, []int, int, error) {
	byClass := make([][]int, classes) // positions into idx
	for k, i := range idx {
		byClass[y[i]] = append(byClass[y[i]], k)
	}
	var groups [][]int
	var glabels []int
	nhard := 0
	for c, ks := range byClass {
		sort.SliceStable(ks, func(a, b int) bool { return mu[ks[a]] < mu[ks[b]] })
		n := 0
		for n < len(ks) && mu[ks[n]] < h.Margin {
			n++
		}
		nhard += n
		n = max(n, h.Min)
		if n == 0 || len(ks) < h.M {
			continue
		}
		if r := n % h.M; r != 0 && h.Mode != "nn" {
			n += h.M - r
		}
		n = min(max(n, h.M), len(ks))
		hard := append([]int(nil), ks[:n]...)
		if h.Mode == "nn" {
			for a, ka := range hard {
				type sim struct {
					k int
					s float64
				}
				ss := make([]sim, 0, len(hard)-1)
				for b, kb := range hard {
					if b != a {
						ss = append(ss, sim{kb, cosine(imgs[idx[ka]], imgs[idx[kb]])})
					}
				}
				sort.SliceStable(ss, func(i, j int) bool { return ss[i].s > ss[j].s })
				g := []int{idx[ka]}
				for _, s := range ss[:h.M-1] {
					g = append(g, idx[s.k])
				}
				groups = append(groups, g)
				glabels = append(glabels, c)
			}
			continue
		}
		sort.SliceStable(hard, func(a, b int) bool { return comp[hard[a]] < comp[hard[b]] })
		for k := 0; k+h.M <= len(hard); k += h.M {
			g := make([]int, h.M)
			for j, kk := range hard[k : k+h.M] {
				g[j] = idx[kk]
			}
			groups = append(groups, g)
			glabels = append(glabels, c)
		}
	}
	if len(groups) == 0 {
		return nil, nil, nhard, nil
	}
	dim := len(imgs[idx[0]])
	conv, err := subspace.NewConverter(dim, h.M, d)
	if err != nil {
		return nil, nil, 0, err
	}
	x := linalg.NewDense(dim, h.M)
	out := make([]*subspace.Subspace, len(groups))
	for g, ids := range groups {
		setColumns(x, imgs, ids)
		if out[g], err = conv.FromSet(x); err != nil {
			return nil, nil, 0, err
		}
	}
	return out, glabels, nhard, nil
}

func cosine(a, b []float64) float64 {
	var ab, aa, bb float64
	for i := range a {
		ab += a[i] * b[i]
		aa += a[i] * a[i]
		bb += b[i] * b[i]
	}
	return ab / math.Sqrt(aa*bb)
}

// trainHard trains model.Init(cfg, x, y) for cfg.Epochs epochs, each on the
// random groups x plus the hard sets of the training images idx of imgs
// (labels) under the model of that moment (see hardSpec); with h.M = 0 it
// is model.Train. Each epoch is one model.Continue, so the seeded
// permutation and the rate schedule follow the lifetime epoch as in Train.
// eval, if non-nil, is called before the first epoch (e = 0) and after
// each one with the number of hard images and sets. w goroutines classify
// the training images.
func trainHard(ctx context.Context, cfg Setup, x []*subspace.Subspace, y []int, imgs [][]float64, labels []int, idx []int, classes int, h hardSpec, w int, eval func(e int, m *model.Model, nhard, nsets int)) (*model.Model, error) {
	if h.M == 0 && eval == nil {
		m, _, err := model.Train(ctx, cfg.Config, cfg.TrainConfig, model.Sets(x), y)
		return m, err
	}
	var hx []*subspace.Subspace
	var hy []int
	nhard := 0
	extra := func(e int, mod *model.Model) ([]*subspace.Subspace, []int, error) {
		if h.M > 0 && e%max(1, h.Every) == 0 {
			mu, comp, err := imageMargins(mod, imgs, labels, idx, w)
			if err != nil {
				return nil, nil, err
			}
			if hx, hy, nhard, err = hardGroups(imgs, labels, idx, mu, comp, classes, cfg.SubspaceDim, h); err != nil {
				return nil, nil, err
			}
		}
		var xs []*subspace.Subspace
		var ys []int
		for range h.Copies {
			xs, ys = append(xs, hx...), append(ys, hy...)
		}
		return xs, ys, nil
	}
	var before, after func(e int, mod *model.Model) error
	if eval != nil {
		before = func(_ int, mod *model.Model) error { eval(0, mod, 0, 0); return nil }
		after = func(e int, mod *model.Model) error { eval(e, mod, nhard, len(hx)); return nil }
	}
	return epochLoop(ctx, cfg, x, y, before, extra, after)
}

// epochLoop trains model.Init(cfg, x, y) for cfg.Epochs epochs, each one
// model.Continue (so the seeded permutation and the rate schedule follow
// the lifetime epoch as in model.Train) on the sets x, y followed by the
// sets extra returns for that epoch (0-based) under the model of that
// moment. before, if non-nil, sees the initial model; after, if non-nil,
// the model after each epoch (1-based). An error from any of them stops
// training.
func epochLoop(ctx context.Context, cfg Setup, x []*subspace.Subspace, y []int, before func(e int, mod *model.Model) error, extra func(e int, mod *model.Model) ([]*subspace.Subspace, []int, error), after func(e int, mod *model.Model) error) (*model.Model, error) {
	mod, err := model.Init(cfg.Config, cfg.TrainConfig, model.Sets(x), y)
	if err != nil {
		return nil, err
	}
	if before != nil {
		if err := before(0, mod); err != nil {
			mod.Close()
			return nil, err
		}
	}
	c := cfg
	c.Epochs = 1
	for e := 0; e < cfg.Epochs; e++ {
		ex, ey, err := extra(e, mod)
		if err != nil {
			mod.Close()
			return nil, err
		}
		xs, ys := append(append([]*subspace.Subspace(nil), x...), ex...), append(append([]int(nil), y...), ey...)
		next, _, err := model.Continue(ctx, mod, c.TrainConfig, model.Sets(xs), ys)
		mod.Close()
		if err != nil {
			return nil, err
		}
		mod = next
		if after != nil {
			if err := after(e+1, mod); err != nil {
				mod.Close()
				return nil, err
			}
		}
	}
	return mod, nil
}

// text describes h for a protocol line ("" when disabled).
func (h hardSpec) text() string {
	if h.M == 0 {
		return ""
	}
	return fmt.Sprintf(" plus, every epoch, %d copies of hard sets (m=%d images of one class the current model misclassifies or classifies with relative θ_1² margin < %g)", h.Copies, h.M, h.Margin)
}
