// Package model is GRLGQ (Generalized Relevance Learning Grassmann
// Quantization, Mohammadi et al., sections 3-4): training, prediction,
// explanation, and saving of a model of labelled prototype subspaces.
//
// A sample (Sample) is an image set turned into a point of the Grassmann
// manifold (Set of a *subspace.Subspace: a D x d orthonormal basis P, plus
// the singular values and right singular vectors the explanations use), or
// a single image (Image of its D pixels). A model holds p prototypes W_k
// (D x d, orthonormal columns) with class labels, and relevances λ: one
// vector of length d (GRLGQ), fixed at 1/d (GLGQ), or one vector per
// prototype (localized). The distance between a set and a prototype is
// d_λ(P, W) = Σ_k λ_k θ_k², θ the principal angles ascending; a single
// image x is the 1-D subspace x/‖x‖ at distance θ_1²,
// θ_1 = arccos(‖Wᵀx‖/‖x‖). Every operation takes either kind; inside, the
// distance engine keeps the two computations apart (an image reads only the
// prototype rows of its nonzero pixels; a batch of images is one product
// per block of images).
//
// Three configurations, as estimators have them: Config is what a model is
// (d, prototypes per class, relevance kind, class names, image size: its
// structure, kept by Continue), TrainConfig how it is trained
// (initialisation, rates, schedule, cost, epochs, early stopping,
// averaging, seed, workers) and PredictConfig how it predicts (temperature,
// reject margin). A model file stores all three, the training options as
// those of the model's last training (Model.TrainConfig).
//
// Init places the prototypes, Train and Continue run Algorithm 2 (per-sample
// SGD over a seeded permutation each epoch, see Permutation and
// Trainer.Step), on sets or, for models that will classify single images,
// on single images (1-D subspaces, one angle, relevances untouched).
// Predictor and the Model's Predict methods classify samples (one at a time
// without allocation, or in batches on all cores), Explain gives the
// principal angles (those of Predict, bit for bit), the relevance-weighted
// contributions, the pixel maps u_i ∘ v_i and the image contributions
// M = R Λ⁻¹ Q_P behind a decision, with the images of a set ranked by their
// relevance-weighted part in it (Explanation.RankImages), and Save/Load,
// SaveFile/LoadFile and MarshalJSON/UnmarshalJSON store a model. Average is
// the extrinsic mean of models of one shape (prototype k spans the d
// leading eigenvectors of the mean projection of the models' k-th
// prototypes): the snapshots of one run's last epochs
// (TrainConfig.AverageLast does that inside training), or models of other
// seeds.
//
// # Conventions
//
//   - The factor 2: the prototype gradient uses G = diag(2 λ_k θ_k / sin θ_k),
//     as the paper's equations and the authors' NumPy code. Their PyTorch code
//     drops the 2, so its η must be halved here.
//   - θ/sin θ is evaluated by its series 1 + θ²/6 + 7θ⁴/360 below 1e-3 (limit
//     1 at θ = 0, which a prototype initialised from a training set meets);
//     cosines are clamped into [0, 1] before arccos.
//   - Relevances: after each update λ ← max(λ − γ∂E/∂λ, floor)/Σ (floor
//     1e-4 by default), so they stay non-negative and sum to 1.
//   - Ties: the nearest prototype is the lowest index among equals, for the
//     winners of a step and for predictions alike (Prediction.Nearest, Class
//     and Label; a tie between two classes has Margin 0, equal
//     probabilities, and is rejected by any RejectMargin > 0). Prototypes
//     are ordered by class (class 0's first).
//   - Steps without a gradient: a set or image whose two winners are both
//     at distance 0 (d⁺ + d⁻ <= 1e-14: zero up to the rounding of the
//     angles, e.g. the same subspace in two classes) has no defined μ; the
//     step is skipped, changes nothing and is counted (StepResult.Skipped,
//     EpochStats.Skipped), and training goes on.
//   - Orthonormality: a set step moves each winner's principal vectors by
//     an exact rotation, an image step its one moving direction (both
//     Trainer.Step), without re-orthonormalising; a set winner is checked
//     every 32 updates, and every prototype after each epoch of Train and
//     Continue, and re-orthonormalised (CGS2) when max |WᵀW − I| exceeds
//     4e-15.
//   - Non-finite values: training checks the data, every distance, gradient
//     and relevance; a NaN or ±Inf stops it with an error naming the epoch
//     and the set (wrapping ErrNotFinite), and never reaches the model.
//   - Determinism: the configurations (with TrainConfig.Seed) and the data
//     give the same model, bit for bit, whatever the number of workers: the
//     random choices come from math/rand/v2 PCG streams of the seed, the
//     permutation of each epoch is Permutation(seed, epoch, n), and the
//     distance engine returns the same bits for any number of workers. The
//     package's own arithmetic writes products that feed sums as
//     float64(a*b), so that no architecture fuses them into FMAs.
//   - Model selection: with ValidationFraction and Patience, early stopping
//     watches a validation part carved out of the training data, never a
//     test set.
//
// # Ownership and concurrency
//
// Functions never modify their arguments: Train, Continue and Init return
// new models, whose data they own (the input subspaces and images are
// read, not kept; a Sample only refers to them), and the With methods
// return modified copies.
// A Model is immutable, and all its methods may be called from any number
// of goroutines at once (a server's request handlers sharing one loaded
// model), without a lock: the prediction methods share one read-only packed
// copy of the prototypes (an engine.Shared, built by the first prediction),
// take a small workspace from a pool for each call, and classify a single
// set or image on the caller's goroutine; the batch methods (PredictBatch,
// DistanceMatrix) split their samples over the cores with goroutines
// started for the call. A Model owns no goroutine: idle, it uses no CPU;
// Close only drops the packed copy early. The results are the same bits as
// a Predictor's, whatever the number of callers or workers. A Predictor or
// a Trainer owns a distance engine with its own copy of the prototypes and
// persistent worker goroutines that split every call (a single sample
// too): it is for one goroutine at a time, and Close releases the workers.
// Methods ending in To write into memory the caller owns and allocate
// nothing once it is large enough (a Sample is passed by value and
// allocates nothing); accessors such as Prototype and Relevances return
// copies. A batch of images that lie back to back in one slice is read in
// place; other batches of images are first copied into such a block.
//
// # Errors
//
// Returned errors wrap sentinels testable with errors.Is: ErrConfig,
// ErrData (also for the zero Sample, and for sets and images mixed in one
// call), ErrNotFinite, ErrNumerical; and for Load ErrFormat,
// ErrVersion, ErrTruncated, ErrChecksum, ErrCorrupt. A file is checked
// (magic, version, shapes against limits and the declared length, CRC-32C,
// every field) before a model is built from it, and what Load allocates is
// in proportion to the bytes actually read, never to what a header claims.
package model
