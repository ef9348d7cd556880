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
// θ_1 = arccos(‖Wᵀx‖/‖x‖). Config.Distance = Chordal replaces θ_k² by
// sin²θ_k everywhere (training, prediction, explanation, the pruned
// searches): the relevance-weighted chordal distance Σ_k λ_k sin²θ_k, and
// sin²θ_1 for an image; Geodesic (the paper's) is the default. Every operation takes either kind; inside, the
// distance engine keeps the two computations apart (an image reads only the
// prototype rows of its nonzero pixels; a batch of images is one product
// per block of images).
//
// Three configurations, as estimators have them, stated together in one
// Options value: Config is what a model is (d, prototypes per class,
// relevance kind, distance, class names, image size: its structure, kept by
// Continue), TrainConfig how it is trained (initialisation, rates,
// schedule, cost, epochs, early stopping, averaging, hooks, seed,
// workers) and PredictConfig how it predicts (temperature, reject
// margin); the cores a model predicts on are none of these (WithWorkers,
// not stored). DefaultOptions (DefaultConfig, DefaultTrainConfig,
// DefaultPredictConfig) holds every default; a field's zero means zero
// (no noise, no floor, no training), except the documented Workers 0 (all
// cores) and SubspaceDim 0 (d from the bases). A model file stores all
// three, the training options as those of the model's last training
// (Model.TrainConfig).
//
// Init places the prototypes; Train and Continue run Algorithm 2
// (per-sample SGD over a seeded permutation each epoch) on sets or, for
// models that will classify single images, on single images (1-D
// subspaces, one angle, relevances untouched). They are the one training
// loop: a TrainConfig.Augment hook adds samples to every epoch (package
// hard's hard examples), OnEpoch reports every epoch, and every run
// returns its History.
//
// The Model's methods are the one way to predict: PredictTo and Predict
// classify one set or image on the caller's goroutine (split over the other
// cores by the model's crew when it is free and the sample large; without allocation
// into a reused Prediction), PredictBatchTo, PredictBatch and DistancesTo,
// Distances classify many on all cores, PredictLabelsTo and PredictLabels
// give the labels alone (with many prototypes by a pruned nearest-
// prototype search that skips most projections and singular values, the
// same labels), and Score counts a labelled batch through them (accuracy,
// per-class recall, confusion matrix: package score).
// SampleFromImages turns decoded images (image.Image) into the sample of
// a set, or of one image, at the model's image size: the path of a server
// that classifies uploaded pictures. Explain gives the principal angles
// (those of Predict, bit for bit), the relevance-weighted contributions,
// the pixel maps u_i ∘ v_i and the image contributions M = R Λ⁻¹ Q_P
// behind a decision, with the images of a set ranked by their
// relevance-weighted part in it (Explanation.RankImages), and Save/Load,
// SaveFile/LoadFile and MarshalJSON/UnmarshalJSON store a model, with
// its provenance if given (WithMetadata, Metadata: key/value pairs such as
// the tool, the time and the data's hash, in format version 3; a model
// without them is stored as before). EpochStats.Model hands OnEpoch a
// snapshot of the model after each epoch (a checkpoint: Continue resumes
// it bit for bit when the schedule allows), and Kernels names the compute
// path chosen for this CPU. Average
// is the extrinsic mean of models of one shape (prototype k spans the d
// leading eigenvectors of the mean projection of the models' k-th
// prototypes): the snapshots of one run's last epochs
// (TrainConfig.AverageLast does that inside training), or models of other
// seeds.
//
// # Conventions
//
//   - The factor 2: the prototype gradient uses G = diag(2 λ_k θ_k / sin θ_k),
//     as the paper's equations and the authors' NumPy code. Their PyTorch code
//     drops the 2, so its η must be halved here. With the chordal distance
//     G = diag(2 λ_k cos θ_k) (−∂(λ_k sin²θ_k)/∂cos θ_k, with the same
//     factor 2; no 1/sin θ, so nothing to take a limit of at θ = 0), and
//     ∂E/∂λ has sin²θ_k, from the winners' cosines as (1 − cos θ)(1 + cos θ),
//     for θ_k². Explain's Contributions are then λ_k sin²θ_k and its image
//     support uses that G.
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
//     step is skipped, changes nothing and is counted (EpochStats.Skipped),
//     and training goes on.
//   - Orthonormality: a set step moves each winner's principal vectors by
//     an exact rotation, an image step its one moving direction, without
//     re-orthonormalising; a set winner is checked
//     every 32 updates, and every prototype after each epoch of Train and
//     Continue, and re-orthonormalised (CGS2) when max |WᵀW − I| exceeds
//     4e-15.
//   - Non-finite values: training checks the data, every distance, gradient
//     and relevance; a NaN or ±Inf stops it with an error naming the epoch
//     and the set (wrapping ErrNotFinite), and never reaches the model.
//   - Determinism: the configurations (with TrainConfig.Seed) and the data
//     give the same model, bit for bit, whatever the number of workers: the
//     random choices come from math/rand/v2 PCG streams of the seed, and
//     the distance engine returns the same bits for any number of workers.
//     The package's own arithmetic writes products that feed sums as
//     float64(a*b), so that no architecture fuses them into FMAs. The
//     order of an epoch is spelled out below.
//   - Model selection: with ValidationFraction and Patience, early stopping
//     watches a validation part carved out of the training data, never a
//     test set.
//   - Precision: a Float32 model (Config.Precision) projects samples onto
//     float32 copies of its prototypes (engine.SetFloat32, NewShared32);
//     its prototypes are float32 values (rounded after every update, at
//     Init, Average, WithPrecision and when read from JSON), stored in 4
//     bytes each (file version 3). The relevances and the angles stay
//     float64; the winners' factorisation is float32 on the AVX-512 and
//     AVX2 paths for 3 <= d <= 32 (svd.Pair.Factorize32: the products it
//     factorises are float32 sums, so the float64 iteration's last 29
//     bits bought nothing) and float64 elsewhere; the update is float64 but on the
//     asm paths for d <= 32 (below; engine's package documentation says why);
//     a training step reads its set's float32 rounding (made
//     once per training for the training part up to 1 GiB, else and for
//     an Augment hook's sets at each step: engine.WinnersRounded), for
//     the projections and for the exact update, which computes
//     W (I + K) + P₃₂ B from the winner's float32 copy and the rounded
//     set (the difference from the float64 set, 2^-24 of P times
//     coefficients of order η, is far below the update's own rounding to
//     float32) and writes it rounded: on the asm paths for d <= 32 in
//     float32
//     lanes as W + (W K + P₃₂ B), the increment one float32 FMA chain
//     and W rounded once (kernels.AB2S32), elsewhere in float64, rounded
//     once (kernels.AB2F32F32); the two differ by a few float32 ulps
//     (engine.UpdateExactRounded; an update that a drift check follows
//     goes through the float64 prototype, engine.UpdateExact), the
//     float64 prototypes brought up to
//     date (engine.Fresh) before anything else reads them, with the bits
//     of updating them and rounding. A step takes both winners' distances
//     from their factorisation's values (a Float64 step, where the search
//     left a winner's distance enclosed, computes it with the batch
//     kernel's bits: those of the exhaustive scan). Same seed, same model
//     bits for any number of workers and with a pruned or an exhaustive
//     search, as for Float64.
//
// # Two margins
//
// A prediction has two margins, and the module names and signs each one
// the same way everywhere (Go fields, grlgq's text, CSV, JSON and
// pictures):
//
//   - μ ("mu"), the paper's margin, needs the true class: μ = (d⁺ −
//     d⁻)/(d⁺ + d⁻) ∈ [−1, 1], d⁺ the distance to the nearest prototype
//     of the true class, d⁻ to the nearest of any other class; μ < 0
//     means classified correctly, and the more negative the surer.
//     Training minimises it, Explanation.Mu and Model.Mu give it.
//   - margin, the label-free separation: (δ₂ − δ₁)/(δ₂ + δ₁) ∈ [0, 1]
//     between the nearest class (the prediction) and the runner-up class
//     (Prediction.Margin); 0 is a tie, larger is surer, and
//     PredictConfig.RejectMargin rejects the predictions below it.
//
// When the prediction is right the two agree up to the sign: margin =
// −μ. When it is wrong, μ > 0 compares the true class with the predicted
// one, margin the predicted one with the runner-up (which need not be the
// true class). Data without labels have a margin and no μ.
//
// # The order of an epoch
//
// The samples of an epoch are the training part (in the order given, the
// validation part removed) followed by what Augment added; the epoch
// visits them in the order p of the Fisher–Yates shuffle of 0..n-1 for
// the (0-based, lifetime) epoch e, spelled out so that other
// implementations can reproduce a training run:
//
//	src := rand.NewPCG(seed, 0x5045524d00000000+uint64(e))
//	for i := n-1; i > 0; i-- { j := bounded(src, i+1); p[i], p[j] = p[j], p[i] }
//
// where bounded(src, k) is Lemire's multiply-shift: the high word of
// src.Uint64()·k, redrawn while the low word is below (2⁶⁴ − k) mod k.
//
// # Ownership and concurrency
//
// Functions never modify their arguments: Train, Continue and Init return
// new models, whose data they own (the input subspaces and images are
// read, not kept; a Sample only refers to them), and the With methods
// return modified copies.
// A Model is immutable, and all its methods may be called from any number
// of goroutines at once (a server's request handlers sharing one loaded
// model), without a lock: the prediction methods share one read-only
// packed copy of the prototypes (an engine.Shared, built by the first
// prediction), take a small workspace from a pool for each call, and
// classify a single set or image on the caller's goroutine. A lone
// caller's large sample (over engine.CrewMinWork() flops, e.g. a dense
// 784-pixel image against 10 prototypes of 12 columns) is split by
// prototypes between the caller and the model's crew (engine.Shared.Crew:
// workers-1 persistent goroutines over the same copy), which serves one
// call at a time: a caller that finds it busy, as under a server's
// concurrent requests, runs alone, and the cores are used by the
// requests instead. The batch methods (PredictBatchTo, PredictLabelsTo,
// DistancesTo, Score) split their samples over the cores with goroutines
// started for the call. How many cores the predictions use (the batch
// goroutines and the crew's workers) is a resource of the program, not a
// part of the model: all cores by default, for a trained model as for a
// loaded one, or n for the copy Model.WithWorkers(n) returns; it is not
// stored in the model file, and TrainConfig.Workers sets the training's
// alone (and that of the models a training hands its hooks). There is nothing to Close: the crew spins engine.SpinTime() after a call
// and then parks (an idle Model uses no CPU), and it exits when the Model
// is collected (runtime.AddCleanup). Training keeps its own distance engine with
// persistent workers for the length of a run; the results are the same
// bits whatever the number of callers or workers.
// Methods ending in To write into memory the caller owns and allocate
// nothing once it is large enough (a Sample is passed by value and
// allocates nothing; the batch forms allocate scratch once per call);
// accessors such as Prototype and Relevances return copies. A batch of
// images that lie back to back in one slice is read in place; other
// batches of images are first copied into such a block.
//
// # Errors
//
// Returned errors wrap sentinels testable with errors.Is: ErrConfig
// (also for the zero Model, which can neither predict nor be saved, and
// for UnmarshalBinary or UnmarshalJSON into a Model that is not new),
// ErrData (also for the zero Sample, and for sets and images mixed in one
// call), ErrNotFinite, ErrNumerical, ErrStop (an OnEpoch that ends
// training early); and for Load ErrFormat,
// ErrVersion, ErrTruncated, ErrChecksum, ErrCorrupt. A file is checked
// (magic, version, shapes against limits and the declared length, CRC-32C,
// every field) before a model is built from it, and what Load allocates is
// in proportion to the bytes actually read, never to what a header claims.
// Load reads exactly one model and leaves the rest of its reader (models
// saved one after the other read back one Load at a time); LoadFile and
// UnmarshalBinary, whose input is one model, refuse bytes after it.
package model
