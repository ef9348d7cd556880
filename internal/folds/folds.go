// Package folds holds the one rule of stratified k-fold splitting that
// dataset (the paper protocols' splits) and selection (cross-validation)
// share: each class is shuffled and dealt to the folds in turn, continuing
// where the previous class stopped, so fold sizes differ by at most one and
// every fold keeps the class proportions. Callers validate their inputs and
// choose the random stream; this package only deals.
package folds

import (
	"math/rand/v2"
	"slices"
)

// Deal assigns n items to k folds: byClass[c] lists the items of class c
// (each item in exactly one list); each list is shuffled with rng (a copy:
// byClass is not changed) and dealt to folds 0, 1, ..., k-1, 0, ... in
// turn across the classes. fold[i] is item i's fold.
func Deal(n int, byClass [][]int, k int, rng *rand.Rand) (fold []int) {
	fold = make([]int, n)
	f := 0
	for _, idx := range byClass {
		idx = slices.Clone(idx)
		rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		for _, i := range idx {
			fold[i] = f
			f = (f + 1) % k
		}
	}
	return fold
}

// Parts returns, for each of the k folds, the items in it (held out) and
// the others (trained on), both ascending.
func Parts(fold []int, k int) (held, rest [][]int) {
	held, rest = make([][]int, k), make([][]int, k)
	for i, fi := range fold {
		for j := 0; j < k; j++ {
			if j == fi {
				held[j] = append(held[j], i)
			} else {
				rest[j] = append(rest[j], i)
			}
		}
	}
	return held, rest
}
