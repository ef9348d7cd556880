// Package selection chooses the settings of a GRLGQ model from training
// data alone: k-fold cross-validation of model.Options (CrossValidate:
// what the model is, how it is trained) and a tuner that scores settings
// by inner cross-validation, by successive halving over the folds, and
// retrains the best one on all the training data (Tune); NestedCV
// cross-validates that tuning. They take the samples as []model.Sample,
// image sets (subspaces) or single images, so `grlgq train -tune -images` tunes on
// images. It is a tool over the model package's estimator (scikit-learn's
// cross_val_score and GridSearchCV), not a part of it: it imports model,
// folds and score (which counts the correct validation samples, by
// Model.Score), never a loader or anything with files.
//
// Options' zero value is valid and every zero means what its field says:
// Folds and Repeats 0 choose them from the data (PlanFolds, which the
// command line prints before it starts), Workers 0 all cores, Rungs nil
// every setting on every fold. DefaultSearch is the search of `grlgq
// train -tune` (docs/tuning.md has the study behind it).
//
// # The search
//
// A Setting is what the tuner varies: prototypes per class (or one at
// every training set, trained or not), initialisation, relevances, η,
// epochs, the relevance rate γ, the cost (identity or a sigmoid's slope),
// d (the sets' first d columns: subspace.Truncate) and the distance; the
// rest comes from the base model.Options. Of its fields only Gamma, Beta,
// Dim and Distance keep the base's when zero (Setting says which replace
// it, zeros included: Init's zero is InitSample). DefaultSearch holds the
// references (the package defaults and 1-NN), 1-NN on fewer angles, and
// trainings drawn at random (a fixed seed: the same list for every data
// set) from DefaultSpace. Tune scores them by successive halving
// (Options.Rungs, Keep): all on the first 2 splits, the best third (and
// the references) on 5, the best third of those on all; a setting can be
// chosen only once scored on every split, and must beat the better
// reference by Options.Confidence paired standard errors.
//
// # Folds
//
// The folds are folds.RepeatedStratifiedKFold's (package folds, the one
// home of the splits): each class's items, shuffled by a PCG stream of
// Options.Seed, are dealt to the folds in turn (continuing where the
// previous class stopped), so fold sizes differ by at most one and every
// fold keeps the class proportions. With a K given (Options.Folds) every
// class needs at least K items (folds.ErrTooSmall names the class). With
// the automatic K the tuner never fails where model.Train works
// (PlanFolds): a class of one item is in every fold's training part and
// never validated (Plan.Kept), a class of fewer than K items is dealt to
// as many folds as it has items and so is in every training part
// (Plan.Sparse), K is lowered only when fewer than K items can be
// validated, and with none Tune trains its first setting unscored;
// Plan.Note says which. CrossValidate, which scores one model, refuses a
// class of one item.
//
// # Nested cross-validation
//
// The chosen row of Tune's table is the best of many settings on the very
// folds that chose it: its mean is optimistic, and so are differences to
// baselines on those folds. NestedCV estimates the accuracy of tuning
// itself: on each outer fold (stratified, the folds of CrossValidate) it
// runs Tune on the outer training part alone (its own inner folds, its
// choice, its final model) and scores that model on the outer test part,
// which never takes part in choosing. The outer folds may choose
// different settings (NestedFold says which); the mean is that of the
// procedure "tune, then train", the model `grlgq train -tune` writes, and
// NestedResult.Splits lets baselines run on the same outer folds.
//
// # Determinism
//
// The folds, the trainings and the choice depend only on the data, the
// settings and Options.Seed, never on Options.Workers or on scheduling:
// every (setting, fold) training is independent, its model seeded by the
// Seed of its model.Options' Train, and its result stored at its own index. The model
// package returns the same bits for any number of distance workers, so the
// chosen setting and the retrained model are bit-identical for 1 or 8
// workers.
//
// # Epochs without retraining
//
// Settings that differ only in Epochs share one training per fold: the
// fold's model is trained to the smallest epoch count, scored, continued
// (model.Continue resumes the schedule and the permutations) to the next,
// and so on. Train(E) and Init followed by Continue up to E give the same
// model, so a row of the table is what training that setting alone gives.
// Epochs = 0 is the initial model without any training: with AllSets
// prototypes initialised at the training sets (no noise) and uniform
// relevances it is the 1-nearest-neighbour classifier of the geodesic
// distance, which lets the tuner fall back to it where it is best.
// AllSetsLearned is the same classifier with the relevances of a
// one-prototype training (its distance Σ λ_k θ_k²); it shares that
// training in the folds, so it costs one more scoring per fold. The
// default search uses it with the package defaults' relevances.
//
// # Ownership
//
// Inputs are read, never modified or kept; results own their memory.
package selection
