package experiments

import (
	"context"
	"errors"
	"strings"

	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

// HardOptions are the hard-example training sets of TrainHard, as the MNIST
// and Yale B protocols use them (see hardSpec): before every epoch the
// images the current model misclassifies by θ_1, or classifies with a
// relative θ_1² margin below Margin, are grouped into sets of M images of
// one class, and each set's d-dimensional subspace enters the epoch Copies
// times besides the random training sets.
type HardOptions struct {
	M      int     // images per hard set (>= d)
	Margin float64 // hard: relative margin μ = (δ⁻ − δ⁺)/(δ⁻ + δ⁺) < Margin
	Copies int     // each hard set enters an epoch Copies times (>= 1)
}

// TrainHard trains model.Init(cfg, x, y) for cfg.Epochs epochs, each one
// model.Continue on the training sets x (labels y) plus the hard sets of
// all the images imgs (labels labels, classes classes) under the model of
// that moment: the protocols' trainHard, for drivers such as cmd/grlgq.
// cfg.ValidationFraction must be 0 (every image is a training image);
// cfg.OnEpoch is called after every epoch as in model.Train, then after,
// if non-nil, with the lifetime epoch and the number of hard images and
// hard sets that epoch trained on. workers goroutines classify the images;
// the model does not depend on it.
func TrainHard(ctx context.Context, cfg Setup, x []*subspace.Subspace, y []int, imgs [][]float64, labels []int, classes int, h HardOptions, workers int, after func(epoch, hardImages, hardSets int)) (*model.Model, error) {
	if cfg.ValidationFraction != 0 {
		return nil, errors.New("experiments: hard-example training takes no validation split")
	}
	var eval func(e int, m *model.Model, nhard, nsets int)
	if after != nil {
		eval = func(e int, _ *model.Model, nhard, nsets int) {
			if e > 0 {
				after(e, nhard, nsets)
			}
		}
	}
	spec := hardSpec{M: h.M, Margin: h.Margin, Copies: h.Copies, Every: 1}
	return trainHard(ctx, cfg, x, y, imgs, labels, allIndices(len(imgs)), classes, spec, max(1, workers), eval)
}

// String describes h as the protocols' lines do: "plus, every epoch, C
// copies of hard sets (m=M images of one class ...)".
func (h HardOptions) String() string {
	return strings.TrimPrefix(hardSpec{M: h.M, Margin: h.Margin, Copies: h.Copies}.text(), " ")
}
