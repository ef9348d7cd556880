// Package folds is the one home of the stratified splitting rules that
// paper (the protocols' splits), dataset (Holdout: the demo's holdout),
// selection (cross-validation) and model (the validation part of early
// stopping) share. Every rule works class by class on ByClass's lists and draws from
// the caller's random stream: each caller keeps its own seed and PCG stream
// (so its splits stay what they were) and its own checks of the arguments
// (a caller's policy, e.g. selection refusing a class smaller than k);
// this package only shuffles, deals and counts.
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
// A *rand.Rand is a Shuffler; model.ValidationSplit passes Lemire, the
// spelled-out shuffle of model.Permutation, so that its runs stay
// reproducible by other implementations (rand.Rand's Shuffle masks powers
// of two instead: other numbers from the same stream).
//
// Every function returns new slices; the caller's lists are not changed.
package folds
