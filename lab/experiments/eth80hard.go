package experiments

import (
	"context"
	"math"

	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

// setHard is the hard view subsets of the ETH-80 protocol (eth80Spec.Hard):
// every training object also has a pool of Pool random view subsets of
// Size views (drawn once per split); before every epoch the current model
// classifies the pool, and each subset it misclassifies or separates with
// a relative margin μ = (δ⁻ − δ⁺)/(δ⁻ + δ⁺) below Margin enters that
// epoch Copies times (see trainHardSets). Pool = 0: none.
type setHard struct {
	Pool, Size, Copies int
	Margin             float64
}

// trainHardSets trains model.Init(cfg, x, y) for cfg.Epochs epochs, each
// on the sets x plus copies copies of every set of the pool px (labels py)
// that the model of that moment misclassifies or separates with a relative
// margin below margin (see TestStudyHardETH80); without a pool it is
// model.Train. Each epoch is one model.Continue, so the seeded
// permutation and the rate schedule follow the lifetime epoch as in Train.
// eval, if non-nil, is called after each epoch with the number of hard
// subsets it trained on.
func trainHardSets(ctx context.Context, cfg Setup, x []*subspace.Subspace, y []int, px []*subspace.Subspace, py []int, margin float64, copies int, eval func(e int, m *model.Model, nhard int) error) (*model.Model, error) {
	if (len(px) == 0 || copies == 0) && eval == nil {
		m, _, err := model.Train(ctx, cfg.Config, cfg.TrainConfig, model.Sets(x), y)
		return m, err
	}
	nh := 0
	extra := func(_ int, m *model.Model) ([]*subspace.Subspace, []int, error) {
		var xs []*subspace.Subspace
		var ys []int
		nh = 0
		if len(px) > 0 && copies > 0 {
			mu, err := setMargins(m, px, py)
			if err != nil {
				return nil, nil, err
			}
			for k, v := range mu {
				if v < margin {
					nh++
					for range copies {
						xs, ys = append(xs, px[k]), append(ys, py[k])
					}
				}
			}
		}
		return xs, ys, nil
	}
	var after func(e int, m *model.Model) error
	if eval != nil {
		after = func(e int, m *model.Model) error { return eval(e, m, nh) }
	}
	return epochLoop(ctx, cfg, x, y, nil, extra, after)
}

// setMargins returns the relative margin μ = (δ⁻ − δ⁺)/(δ⁻ + δ⁺) of every
// set x[i] (label y[i]) under m, δ the distances of the training cost
// (Σ λ_k sin² θ_k) to the nearest prototype of its class (δ⁺) and of
// another class (δ⁻); μ <= 0: misclassified.
func setMargins(m *model.Model, x []*subspace.Subspace, y []int) ([]float64, error) {
	np := m.NumPrototypes()
	labels := m.Labels()
	mu := make([]float64, len(x))
	err := predictParallel(m, len(x), 1, func(p *model.Predictor, lo, hi int) error {
		dist := make([]float64, (hi-lo)*np)
		if err := p.DistancesTo(dist, model.Sets(x[lo:hi])); err != nil {
			return err
		}
		for k := lo; k < hi; k++ {
			row := dist[(k-lo)*np : (k-lo+1)*np]
			dp, dm := math.Inf(1), math.Inf(1)
			for j, v := range row {
				if labels[j] == y[k] {
					dp = min(dp, v)
				} else {
					dm = min(dm, v)
				}
			}
			if dm+dp > 0 {
				mu[k] = (dm - dp) / (dm + dp)
			}
		}
		return nil
	})
	return mu, err
}
