package folds

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
)

// Sentinel errors of the named splits, testable with errors.Is.
var (
	// ErrTooSmall: a class has fewer items than the split needs (k-fold:
	// fewer than k).
	ErrTooSmall = errors.New("class too small for the folds")
	// ErrArgs: unusable arguments (a negative label, k < 2, a fraction
	// outside (0, 1), an item out of range).
	ErrArgs = errors.New("bad split arguments")
)

// The PCG streams of the named splits, one per purpose, so that one seed
// gives unrelated draws to each (the high word of rand.NewPCG's second
// argument; k-fold repetition r adds r).
const (
	// StreamKFold: StratifiedKFold and RepeatedStratifiedKFold ("FOLD").
	StreamKFold = 0x464f4c44_00000000
	// StreamValidation: ValidationSplit, the validation part that
	// model.Train carves out ("SPLT").
	StreamValidation = 0x53504c54_00000000
	// StreamHoldout: Holdout (4<<32, the stream dataset.Holdout had).
	StreamHoldout = 4 << 32
)

// Fold is one split of cross-validation: ascending indices of the items
// the fold trains on and of those it validates on.
type Fold struct {
	Train, Val []int
}

// StratifiedKFold partitions the items 0..len(y)-1 into k folds that keep
// the class proportions (fold f is the validation part of Fold f, the rest
// its training part). Each class's items are shuffled with
// rand.New(rand.NewPCG(seed, StreamKFold)) (one stream over the classes in
// order) and dealt to the folds in turn, continuing where the previous
// class stopped (Deal), so fold sizes differ by at most one. Labels are
// 0..C-1; every label below max(y) must occur at least k times
// (ErrTooSmall otherwise, naming the class), and 2 <= k.
func StratifiedKFold(y []int, k int, seed uint64) ([]Fold, error) {
	return stratifiedKFold(y, k, seed, 0)
}

// RepeatedStratifiedKFold returns repeats x k folds: StratifiedKFold
// repeated with independent shuffles (repetition r uses the PCG stream
// StreamKFold + r; r = 0 is StratifiedKFold). Folds r*k .. r*k+k-1 are
// repetition r.
func RepeatedStratifiedKFold(y []int, k, repeats int, seed uint64) ([]Fold, error) {
	if repeats < 1 {
		return nil, fmt.Errorf("folds: %w: %d repeats of k-fold cross-validation", ErrArgs, repeats)
	}
	var out []Fold
	for r := range repeats {
		f, err := stratifiedKFold(y, k, seed, r)
		if err != nil {
			return nil, err
		}
		out = append(out, f...)
	}
	return out, nil
}

func stratifiedKFold(y []int, k int, seed uint64, rep int) ([]Fold, error) {
	if k < 2 {
		return nil, fmt.Errorf("folds: %w: %d folds, want at least 2", ErrArgs, k)
	}
	if err := checkLabels(y); err != nil {
		return nil, err
	}
	byClass := ByClass(y)
	if c, size := TooSmall(byClass, k); c >= 0 {
		return nil, fmt.Errorf("folds: %w: class %d has %d sets, %d-fold cross-validation needs at least %d (use fewer folds)", ErrTooSmall, c, size, k, k)
	}
	fold := Deal(len(y), byClass, k, rand.New(rand.NewPCG(seed, StreamKFold+uint64(rep))))
	val, train := Parts(fold, k)
	out := make([]Fold, k)
	for j := range out {
		out[j] = Fold{Train: train[j], Val: val[j]}
	}
	return out, nil
}

// MaxFolds returns the largest k <= want for which StratifiedKFold(y, k, ·)
// succeeds (the smallest class's size), or 0 when some class has fewer
// than 2 items; also that class and its size (class -1 when every class
// has want items or more).
func MaxFolds(y []int, want int) (k, class, size int) {
	classes := 0
	for _, c := range y {
		classes = max(classes, c+1)
	}
	counts := make([]int, classes)
	for _, c := range y {
		if c >= 0 {
			counts[c]++
		}
	}
	k, class, size = want, -1, want
	for c, n := range counts {
		if n < k {
			k, class, size = n, c, n
		}
	}
	if k < 2 {
		k = 0
	}
	return k, class, size
}

// ValidationSplit returns the indices (ascending) of the training and the
// validation part of a data set with labels y, as model.Train carves them
// for early stopping: within each class, a seeded shuffle (Lemire over
// rand.NewPCG(seed, StreamValidation), one stream over the classes in
// order) puts round(fraction·n_c) items into the validation part, at least
// one and at most n_c−1 when the class has two or more items (Fraction).
// A fraction <= 0 gives every item to training. Labels must be >= 0
// (a programmer error otherwise: ByClass panics).
func ValidationSplit(y []int, fraction float64, seed uint64) (train, val []int) {
	if !(fraction > 0) {
		train = make([]int, len(y))
		for i := range train {
			train[i] = i
		}
		return train, nil
	}
	val, train = Take(ByClass(y), Fraction(fraction), Lemire(rand.NewPCG(seed, StreamValidation)))
	return train, val
}

// Holdout splits items (indices into labels, e.g. a training part) into a
// training part and a validation part, both ascending, by the fraction
// rule (Fraction: a class of n >= 2 items gives round(frac·n) of them to
// validation, at least one and at most n−1; a class of one item stays in
// training), shuffled with rand.New(rand.NewPCG(seed, StreamHoldout)). Use
// it to select models on data other than the test set. Needs
// 0 < frac < 1, items within labels and labels >= 0 (ErrArgs).
func Holdout(labels, items []int, frac float64, seed uint64) (train, val []int, err error) {
	if !(frac > 0 && frac < 1) {
		return nil, nil, fmt.Errorf("folds: %w: holdout fraction %g, want 0 < frac < 1", ErrArgs, frac)
	}
	sub := make([]int, len(items))
	for i, it := range items {
		if it < 0 || it >= len(labels) {
			return nil, nil, fmt.Errorf("folds: %w: holdout: item %d outside [0, %d)", ErrArgs, it, len(labels))
		}
		sub[i] = labels[it]
	}
	if err := checkLabels(sub); err != nil {
		return nil, nil, err
	}
	v, t := Take(ByClass(sub), Fraction(frac), rand.New(rand.NewPCG(seed, StreamHoldout)))
	return pick(items, t), pick(items, v), nil
}

// checkLabels refuses a negative label (ByClass would panic).
func checkLabels(y []int) error {
	for i, c := range y {
		if c < 0 {
			return fmt.Errorf("folds: %w: item %d has label %d", ErrArgs, i, c)
		}
	}
	return nil
}

// pick returns items[i] for each i of at, ascending.
func pick(items, at []int) []int {
	if len(at) == 0 {
		return nil
	}
	out := make([]int, len(at))
	for j, i := range at {
		out[j] = items[i]
	}
	slices.Sort(out)
	return out
}
