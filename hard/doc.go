// Package hard is hard-example training for GRLGQ: before every epoch the
// model of that moment picks the training samples it gets wrong or only
// just right, and the epoch trains on them again besides the ordinary
// training samples.
//
// It is a hook of the one training loop (model.TrainConfig.Augment), so a
// hard-example run is a model.Train or model.Continue like any other, with
// the same History, validation, averaging and cancellation:
//
//	hook, err := hard.Images(imgs, labels, hard.Options{M: 12, Margin: 0.1, Copies: 8})
//	opt.Train.Augment = hook
//	m, hist, err := model.Train(ctx, opt, model.Sets(groups), groupLabels)
//
// Two kinds of data are served:
//
//   - Images (single-image data: `grlgq train -hard-copies`, the paper
//     package's MNIST protocol): the training images the model
//     misclassifies by θ_1, or classifies with a margin below
//     Options.Margin, are grouped into sets of Options.M images of one
//     class, and each set's subspace enters the epoch Options.Copies times.
//   - Pool (image-set data: the ETH-80 protocol): a fixed pool of
//     candidate samples; those under the margin enter the epoch Copies
//     times.
//
// # The margin
//
// Hardness is measured by the paper's μ = (d⁺ − d⁻)/(d⁺ + d⁻), the same
// quantity and sign as model.Explanation.Mu: d⁺ is the distance to the
// nearest prototype of the sample's class, d⁻ to the nearest prototype of
// another class (θ_1² for an image, the weighted geodesic distance of the
// training cost for a set; sin²θ_1 and the weighted chordal distance for a
// model whose Config.Distance is Chordal). μ < 0 when the sample is classified correctly,
// μ >= 0 when it is not. A sample is hard when μ > −Options.Margin: it is
// misclassified, or correct with a relative margin −μ below Margin.
//
// Nothing here reads files, flags or the environment. The distances come
// from the model's batch methods, so the models trained do not depend on
// the number of workers. Inputs are read, never written or kept beyond
// the hook's life.
package hard
