// Package experiments reproduces the experiments of the GRLGQ paper
// (section 4) on the real data sets: MNIST (image classification from
// subspaces of random same-class image groups), Yale B 32x32 (faces, 4-fold
// cross-validation repeated 10 times) and ETH-80 (object image sets).
//
// Run(ctx, name, opt) runs one protocol and returns the GRLGQ accuracies
// (one per run or split) beside those of the untrained baseline: one
// class-wise PCA subspace per class (model.InitPCA on the same training
// subspaces, no training step), evaluated by the same rule. Every
// hyper-parameter of a protocol is either fixed a priori (the paper's
// values, documented in the protocol's file) or chosen on validation data
// carved from the training data; test data are touched only to report the
// final model's accuracy. No epoch or model is ever selected on test data:
// every protocol reports the model after its last epoch.
//
// Learning rates follow the model package's convention: the factor 2 of
// G = diag(2 λ_k θ_k / sin θ_k) is kept, as in the paper's equations and the
// authors' NumPy code, so the paper's η values apply unchanged. (Their
// PyTorch code, probably behind the image-set experiments, drops the 2: its
// η = 0.05 is η = 0.025 here. On ETH-80 validation η = 0.025 was no better
// than 0.05, see below, so 0.05 is kept.)
//
// Runs (splits, folds) are independent and are spread over opt.Workers
// goroutines, each training its own model single-threaded: with few
// prototypes, parallelism across runs beats parallelism across prototypes.
// Every run draws from its own PCG streams derived from opt.Seed and the run
// index, so results do not depend on the number of workers.
//
// The package reads files (it is a driver, like cmd/grlgq); the model
// package does not.
//
// # Results (seed 1, 2 cores shared with other work)
//
//	protocol  GRLGQ          baseline       paper          wall
//	mnist     95.03 ± 0.10   94.98 ± 0.09   94.78 ± 0.03   25 s
//	yale      92.82 ± 1.02   92.98 ± 0.98   96.50 ± 0.61   3 m 38 s
//	eth80     93.00 ± 2.84   83.25 ± 4.42   94.50 ± 1.87   11 s
//
// Commands: grlgq repro mnist|yale|eth80 -dir /work/shared/data; or
// GRLGQ_REAL=mnist,yale,eth80 go test -run TestRealProtocol -v -timeout 1h
// ./internal/experiments (MNIST and Yale are opt-in there; the ETH-80
// protocol runs in CI as TestETH80Real).
//
// # How each choice was made
//
// MNIST (mnist.go). Fixed by the paper: d = 12, one prototype per class,
// η = 1e-4, γ = 1e-7, 40 epochs, 3 runs, class-PCA initialisation. Chosen
// on validation: m = 48 images per training set, on 50,000/10,000 images of
// the training file (TestTuneMNIST; the test file never read). Further
// validation study (study_test.go, TestStudyMNIST, same split): fresh
// random groupings every epoch, the sigmoid φ (β = 10, 20), η from 3e-4 to
// 3e-2, γ from 1e-6 to 1e-2, and training sets built from nearest
// neighbours (an anchor image and its m-1 most cosine-similar images of its
// class, so that set errors follow single-image errors: 96-98% of such sets
// are classified correctly, against 100% of random groups). Every setting
// that moves the prototypes away from the class-PCA start lowers the
// single-image validation accuracy (e.g. m = 12, η = 3e-3: 94.08% →
// 92.51% in 10 epochs; with β = 20: 93.41%); the best change was +0.07
// points (neighbour groups, m = 24, η = 3e-4: 94.33% → 94.40%). Learning
// set-to-prototype distances of d-dimensional sets does not teach the
// θ_1 of single images; nothing was adopted and the paper's setting stays.
// The 95.5% bar is not reached.
//
// Yale B (yale.go). Fixed by the paper: 20x20 bicubic, d = 7, 4-fold CV
// repeated 10 times, γ = 1e-5, 200 epochs, one prototype per class (the
// paper's parameter count, 106,407 = 38·400·7 + 7). Chosen on an inner
// split of the training part of outer fold 1 of repetition 1 (2 folds
// train, 1 validates; TestTuneYale): m = 14, 5 groupings, η = 1e-3. Later
// checks on the same inner split (TestStudyYale): sigmoid β = 5 with
// η = 1e-3: 90.67% (identity 90.67%), with η = 1e-2: 91.17%; fresh groupings
// every epoch: 90.50% (baseline 90.17%); and on the inner splits of outer
// folds 2-4 (validation = folds 4, 3, 2 of repetition 1), baseline →
// GRLGQ after 200 epochs: η = 1e-3: 90.67 → 90.33, 91.33 → 91.33,
// 89.24 → 89.24; η = 1e-2 with β = 5: unchanged on all three; η = 1e-4:
// 90.67 → 91.00, 91.33 → 91.50, 89.24 → 89.24. Differences of 1-3
// validation images, so nothing was changed. With the current model code
// GRLGQ does not beat the baseline on Yale B (the previous 93.43% was
// measured with earlier model code); the 96.5% is far off.
//
// ETH-80 (eth80.go). Fixed by the paper: gray 20x20, one object = one set,
// d = 5, 5 training objects per category, 10 random splits, η = 0.05,
// γ = 1e-4, prototypes from random training sets, one prototype per class
// (the paper's parameter count, 16,005 = 8·400·5 + 5). Chosen on
// validation: the sigmoid φ with β = 5, 4 extra training sets per training
// object (subspaces of 20 random views of its 41) and 160 epochs. The
// validation (TestStudyETH80 with X_INNER=1): in each of the protocol's 10
// splits, leave-one-object-per-category-out over the 5 training objects
// (5 folds, 4 objects per category train, 8 sets validate), the mean
// inner accuracy over the splits at 10, 20, 40, 80, 160, 300, 600 and 1000
// epochs. Best of each configuration (at epochs):
//
//	paper setting (identity φ)  88.25 (600)    η = 0.025  87.50 (600)
//	η = 0.1                     88.00 (300)    η = 0.2    88.25 (300)
//	class-PCA init              88.25 (300)    γ = 1e-3   86.50 (80)
//	anneal τ = 50               85.25 (600)    local λ    89.00 (1000)
//	sigmoid β = 3               90.50 (1000)   β = 5      90.75 (1000)
//	β = 10                      89.75 (80)     β = 5, η = 0.1  89.75 (300)
//	β = 5, class-PCA init       90.00 (1000)   mirrored views as objects 88.50 (160)
//	2 prototypes per class      89.00 (300)    3 per class     90.25 (600)
//	view subsets (4 x 20)       91.50 (300)    subsets + β = 5 91.25 (160)
//
// Subsets with β = 5 was chosen for being the best region (90.25-91.25
// from 10 to 1000 epochs, flatter than subsets alone), at 160 epochs, its
// best; more prototypes per class were not adopted (no gain beyond noise,
// and the paper's count is one). The outer test objects of a split never
// served as validation for that split; but the study pools the 10 splits,
// and an object that validates in one split is a test object of another,
// so the pooled choice is not strictly nested (a strictly nested variant,
// the per-split epoch selection of eth80Spec.EpochGrid, chose too few
// epochs: 87.25% with the previous setting). Test accuracy of the final
// setting was computed once, for the table.
//
// # Why model/eth80_test.go measured 94.3% and the protocol 87.25%
//
// Not the preprocessing: model's test decodes to 8-bit gray and resizes in
// 8 bits, package imageset in 16 bits; swapping them changes the mean test
// accuracy by at most 0.75 points. Not the learning rate (both use the same
// convention and η). The difference is (1) the splits: model's test uses
// rand.NewPCG(s, 1) per split and the model seed s, the protocol its own
// streams of the seed; with the same setting (identity φ, 300 epochs)
// model's splits give 94.25% ± 3.34 and the protocol's 89.25% ± 3.13 (the
// per-split standard deviation is about 4 points, 1 object = 2.5 points);
// and (2) the protocol's per-split epoch selection, which picked 20 epochs
// in 4 of 10 splits (87.25% instead of 89.25% with 300 epochs). These test
// accuracies were looked at for this diagnosis only (TestStudyETH80 with
// X_TEST=1); they decided nothing.
package experiments
