package folds

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// Shuffler is the random stream of a split: *rand.Rand, or any source with
// a Fisher–Yates Shuffle.
type Shuffler interface {
	Shuffle(n int, swap func(i, j int))
}

var _ Shuffler = (*rand.Rand)(nil)

// Lemire returns the Fisher–Yates shuffle over src that model training's
// epoch permutations use (the model package's documentation spells it
// out): for i = n−1 down to 1, swap i with the high word of
// src.Uint64()·(i+1), redrawn while the low word is below
// (2⁶⁴ − (i+1)) mod (i+1).
func Lemire(src *rand.PCG) Shuffler { return lemire{src} }

type lemire struct{ src *rand.PCG }

func (l lemire) Shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		k := uint64(i + 1)
		hi, lo := bits.Mul64(l.src.Uint64(), k)
		if lo < k {
			thresh := -k % k
			for lo < thresh {
				hi, lo = bits.Mul64(l.src.Uint64(), k)
			}
		}
		swap(i, int(hi))
	}
}

// ByClass lists the indices of each class 0..max(labels) in ascending
// order (a class with no item has an empty list). It panics on a negative
// label: callers check their labels first and report them in their own
// words.
func ByClass(labels []int) [][]int {
	k := 0
	for _, l := range labels {
		if l < 0 {
			panic("folds: negative label")
		}
		k = max(k, l+1)
	}
	c := make([][]int, k)
	for i, l := range labels {
		c[l] = append(c[l], i)
	}
	return c
}

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

// TooSmall returns the first class of byClass with fewer than k items
// (an empty class included), and its size; class is -1 when every class
// has k or more.
func TooSmall(byClass [][]int, k int) (class, size int) {
	for c, idx := range byClass {
		if len(idx) < k {
			return c, len(idx)
		}
	}
	return -1, 0
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

// Count is how many of a class's n items Take takes.
type Count func(n int) int

// PerClass takes count items of every class, or the whole class when it
// has no more (callers that need a test item in every class check first).
func PerClass(count int) Count {
	return func(n int) int { return min(max(count, 0), n) }
}

// Fraction takes round(fraction·n) items of a class of n >= 2, at least 1
// and at most n−1; nothing of a class of one item, nothing when
// fraction <= 0 (or NaN).
func Fraction(fraction float64) Count {
	return func(n int) int {
		if !(fraction > 0) || n < 2 {
			return 0
		}
		return min(max(int(math.Round(fraction*float64(n))), 1), n-1)
	}
}

// Shuffled returns a copy of every class's list shuffled with rng, the
// classes in order (byClass is not changed).
func Shuffled(byClass [][]int, rng Shuffler) [][]int {
	out := make([][]int, len(byClass))
	for c, idx := range byClass {
		p := slices.Clone(idx)
		rng.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
		out[c] = p
	}
	return out
}

// RoundRobin deals every class of shuffled to folds 0, 1, ..., k-1, 0, ...
// starting again at fold 0 for each class; fold j lists its items class
// by class, in shuffled order.
func RoundRobin(shuffled [][]int, k int) [][]int {
	folds := make([][]int, k)
	for _, ids := range shuffled {
		for j, i := range ids {
			folds[j%k] = append(folds[j%k], i)
		}
	}
	return folds
}

// Split takes the first count(len) items of every class of shuffled;
// taken and rest keep the classes' order and the shuffled order within
// each class (not sorted).
func Split(shuffled [][]int, count Count) (taken, rest []int) {
	for _, p := range shuffled {
		nt := count(len(p))
		taken = append(taken, p[:nt]...)
		rest = append(rest, p[nt:]...)
	}
	return taken, rest
}

// Take shuffles each class's list with rng (a copy: byClass is not
// changed) and takes its first count(len) items; taken and rest are the
// items taken and the others, both ascending. Every class is shuffled
// whatever its count, so one class's count does not change the draws of
// the next.
func Take(byClass [][]int, count Count, rng Shuffler) (taken, rest []int) {
	taken, rest = Split(Shuffled(byClass, rng), count)
	slices.Sort(taken)
	slices.Sort(rest)
	return taken, rest
}
