package dataset

import "math/rand/v2"

// PCG stream numbers, one per kind of randomness, so that the same seed
// gives unrelated draws for different purposes; the number is the high half
// of the PCG stream. (Streams 1, 2 and 4 were the k-fold, per-class and
// holdout splits, which live in package folds now: the others keep their
// numbers, so their draws stay what they were.)
const streamGroups = 3

func newRand(seed uint64, stream int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(stream)<<32))
}
