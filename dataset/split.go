package dataset

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/grlgq/grlgq/internal/folds"
)

// Split is one train/test partition of items (images, sets or bases),
// given as ascending indices.
type Split struct {
	Train, Test []int
}

// PCG stream numbers, one per kind of randomness, so that the same seed
// gives unrelated draws for different purposes. The repetition number is
// the low half of the stream.
const (
	streamKFold    = 1
	streamPerClass = 2
	streamGroups   = 3
	streamHoldout  = 4
)

func newRand(seed uint64, stream, rep int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(stream)<<32|uint64(uint32(rep))))
}

// byClass is folds.ByClass; it panics with this package's name on a
// negative label (a programmer error: loaders never produce one).
func byClass(labels []int) [][]int {
	for _, l := range labels {
		if l < 0 {
			panic("dataset: negative label")
		}
	}
	return folds.ByClass(labels)
}

// StratifiedKFold partitions items 0..len(labels)-1 into k folds that keep
// the class proportions, and returns k splits (fold f is the test set of
// split f). Each class is shuffled (PCG seeded by seed) and dealt to the
// folds in turn, continuing where the previous class stopped, so fold sizes
// differ by at most one (internal/folds, the rule selection uses too).
// Needs 2 <= k <= len(labels) and every class 0..max(labels) to have at
// least k items, so that every fold tests every class.
func StratifiedKFold(labels []int, k int, seed uint64) ([]Split, error) {
	return stratifiedKFold(labels, k, seed, 0)
}

// RepeatedStratifiedKFold returns repeats x k splits: StratifiedKFold
// repeated with independent shuffles (the paper's "4-fold cross-validation
// repeated 10 times" is k = 4, repeats = 10). Splits r*k .. r*k+k-1 are
// repetition r.
func RepeatedStratifiedKFold(labels []int, k, repeats int, seed uint64) ([]Split, error) {
	if repeats < 1 {
		return nil, fmt.Errorf("dataset: %d repeats of k-fold", repeats)
	}
	var out []Split
	for r := range repeats {
		s, err := stratifiedKFold(labels, k, seed, r)
		if err != nil {
			return nil, err
		}
		out = append(out, s...)
	}
	return out, nil
}

func stratifiedKFold(labels []int, k int, seed uint64, rep int) ([]Split, error) {
	n := len(labels)
	if k < 2 || k > n {
		return nil, fmt.Errorf("dataset: %d-fold split of %d items: want 2 <= k <= %d", k, n, n)
	}
	classes := byClass(labels)
	if c, size := folds.TooSmall(classes, k); c >= 0 {
		return nil, fmt.Errorf("dataset: %d-fold split: class %d has %d items, needs at least %d", k, c, size, k)
	}
	fold := folds.Deal(n, classes, k, newRand(seed, streamKFold, rep))
	test, train := folds.Parts(fold, k)
	out := make([]Split, k)
	for j := range out {
		out[j] = Split{Train: train[j], Test: test[j]}
	}
	return out, nil
}

// PerClassSplits returns repeats random splits in which every class puts
// train of its items (chosen with PCG seeded by seed and the repetition) in
// the training set and the rest in the test set: ETH-80's "5 objects per
// category train, 5 test, 10 random splits" is train = 5, repeats = 10.
// Every class needs more than train items.
func PerClassSplits(labels []int, train, repeats int, seed uint64) ([]Split, error) {
	if train < 1 || repeats < 1 {
		return nil, fmt.Errorf("dataset: per-class split with %d training items, %d repeats", train, repeats)
	}
	classes := byClass(labels)
	for c, idx := range classes {
		if len(idx) <= train {
			return nil, fmt.Errorf("dataset: per-class split: class %d has %d items, needs more than %d to leave a test item", c, len(idx), train)
		}
	}
	out := make([]Split, repeats)
	for r := range repeats {
		out[r].Train, out[r].Test = folds.Take(classes, folds.PerClass(train), newRand(seed, streamPerClass, r))
	}
	return out, nil
}

// LeaveOneOut returns n splits; split i tests item i and trains on the
// others. Needs n >= 2.
func LeaveOneOut(n int) ([]Split, error) {
	if n < 2 {
		return nil, fmt.Errorf("dataset: leave-one-out of %d items", n)
	}
	out := make([]Split, n)
	for i := range out {
		out[i].Test = []int{i}
		out[i].Train = make([]int, 0, n-1)
		for j := 0; j < n; j++ {
			if j != i {
				out[i].Train = append(out[i].Train, j)
			}
		}
	}
	return out, nil
}

// Holdout splits items (indices into labels, e.g. a Split's Train) into a
// training part and a validation part, chosen with PCG seeded by seed, by
// the fraction rule of internal/folds (the one model.ValidationSplit uses
// too): a class of n >= 2 items gives round(frac·n) of them to validation,
// at least one and at most n−1; a class of one item stays in training. Use
// it to select models on data other than the test set. Needs 0 < frac < 1.
func Holdout(labels, items []int, frac float64, seed uint64) (train, val []int, err error) {
	if !(frac > 0 && frac < 1) {
		return nil, nil, fmt.Errorf("dataset: holdout fraction %g, want 0 < frac < 1", frac)
	}
	sub := make([]int, len(items))
	for i, it := range items {
		if it < 0 || it >= len(labels) {
			return nil, nil, fmt.Errorf("dataset: holdout: item %d outside [0, %d)", it, len(labels))
		}
		sub[i] = labels[it]
	}
	v, t := folds.Take(byClass(sub), folds.Fraction(frac), newRand(seed, streamHoldout, 0))
	return pick(items, t), pick(items, v), nil
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
