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
// values, documented in the protocol's file) or chosen on a validation split
// carved from the training data; test data are touched only to report the
// final model's accuracy. No epoch or model is ever selected on test data.
//
// Learning rates follow the model package's convention: the factor 2 of
// G = diag(2 λ_k θ_k / sin θ_k) is kept, as in the paper's equations and the
// authors' NumPy code, so the paper's η values apply unchanged.
//
// Runs (splits, folds) are independent and are spread over opt.Workers
// goroutines, each training its own model single-threaded: with few
// prototypes, parallelism across runs beats parallelism across prototypes.
// Every run draws from its own PCG streams derived from opt.Seed and the run
// index, so results do not depend on the number of workers.
//
// The package reads files (it is a driver, like cmd/grlgq); the model
// package does not.
package experiments
