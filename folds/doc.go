// Package folds is the one home of the stratified splits of labelled
// items: cross-validation folds, holdouts and the validation part of early
// stopping. It imports only the standard library.
//
// The named splits, each seeded by the caller and drawing from its own PCG
// stream (so that one seed gives unrelated draws to each, and every split
// stays what it was when it lived elsewhere):
//
//   - StratifiedKFold and RepeatedStratifiedKFold (StreamKFold): the folds
//     of package selection's CrossValidate and Tune; MaxFolds is the
//     largest k they accept.
//   - ValidationSplit (StreamValidation, with the Lemire shuffle): the
//     validation part model.Train carves out of its training data
//     (TrainConfig.ValidationFraction); History.Train and History.Val are
//     its two parts.
//   - Holdout (StreamHoldout): a validation part carved out of a list of
//     items (the demo's test digits).
//
// Below them, the building blocks, which the paper protocols (package
// paper) combine with their own streams. Every rule works class by class
// on ByClass's lists and draws from the caller's random stream; the
// building blocks only shuffle, deal and count, and the named splits add
// the checks of their arguments.
//
// The rules:
//
//   - k-fold (Deal, Parts): each class is shuffled and dealt to folds 0, 1,
//     ..., k-1, 0, ... in turn, continuing where the previous class stopped,
//     so fold sizes differ by at most one and every fold keeps the class
//     proportions. The k-folds of selection need 2 <= k and
//     every class 0..max(label) to have at least k items (TooSmall finds
//     the first that has not), so that every fold holds every class and no
//     fold is empty. Deal itself accepts any input: a class smaller than k
//     misses some folds, and with k > n some folds are empty (Parts returns
//     nil held parts for them).
//   - fixed counts per class (Take with PerClass): the first count items of
//     each shuffled class are taken, the others left; a class with no more
//     than count items is taken whole.
//   - k-fold restarting at fold 0 for every class (RoundRobin over
//     Shuffled): the Yale B protocol of package paper, whose folds list
//     their items class by class in shuffled order; the first folds of a
//     protocol with classes of n mod k != 0 items are the larger ones.
//   - fraction per class (Take with Fraction): each class of n >= 2 items
//     gives round(fraction·n) items (math.Round: halves away from zero),
//     at least 1 and at most n−1, so every class of two or more items is in
//     both parts; a class of one item is never taken. A fraction <= 0 takes
//     nothing.
//
// Every rule starts from Shuffled: a shuffled copy of each class's list,
// the classes in order from one stream (Deal and Take shuffle class by
// class as they go, which draws the same numbers). Split cuts the shuffled
// classes without sorting (the ETH-80 protocol's train/test split keeps
// that order, which sets the order of its training sets); Take is Split
// with both parts sorted.
//
// Shuffles are Fisher–Yates from the last item down (one draw per item but
// the first), classes in ascending label order, one stream over the classes.
// A *rand.Rand is a Shuffler; ValidationSplit passes Lemire, the
// spelled-out shuffle of model training's epoch permutations (see the
// model package's documentation), so that its runs stay reproducible by
// other implementations (rand.Rand's Shuffle masks powers
// of two instead: other numbers from the same stream).
//
// Every function returns new slices; the caller's lists are not changed.
package folds
