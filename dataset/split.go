package dataset

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/grlgq/grlgq/internal/folds"
)

// PCG stream numbers, one per kind of randomness, so that the same seed
// gives unrelated draws for different purposes; the number is the high half
// of the PCG stream. (Streams 1 and 2 were the k-fold and per-class splits,
// since removed: the others keep their numbers, so their draws stay what
// they were.)
const (
	streamGroups  = 3
	streamHoldout = 4
)

func newRand(seed uint64, stream int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(stream)<<32))
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

// Holdout splits items (indices into labels, e.g. a training part) into a
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
	v, t := folds.Take(byClass(sub), folds.Fraction(frac), newRand(seed, streamHoldout))
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
