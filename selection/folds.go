package selection

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/grlgq/grlgq/internal/folds"
)

// Sentinel errors, testable with errors.Is.
var (
	// ErrTooSmall: a class has fewer items than folds.
	ErrTooSmall = errors.New("class too small for the folds")
	// ErrGrid: an empty or invalid grid of settings.
	ErrGrid = errors.New("bad grid")
	// ErrData: labels or sets unusable (length mismatch, negative label).
	ErrData = errors.New("bad data")
)

// Fold is one split of cross-validation: ascending indices of the items
// the fold trains on and of those it validates on.
type Fold struct {
	Train, Val []int
}

// streamFolds is the PCG stream of the fold shuffles ("FOLD").
const streamFolds = 0x464f4c44_00000000

// StratifiedKFold partitions the items 0..len(y)-1 into k folds that keep
// the class proportions (fold f is the validation part of Fold f, the rest
// its training part). Each class's items are shuffled with
// rand.New(rand.NewPCG(seed, 0x464f4c4400000000)) (one stream over the
// classes in order) and dealt to the folds in turn, continuing where the
// previous class stopped, so fold sizes differ by at most one. Labels are
// 0..C-1; every label below max(y) must occur at least k times (ErrTooSmall
// otherwise, naming the class), and 2 <= k.
func StratifiedKFold(y []int, k int, seed uint64) ([]Fold, error) {
	return stratifiedKFold(y, k, seed, 0)
}

// RepeatedStratifiedKFold returns repeats x k folds: StratifiedKFold
// repeated with independent shuffles (repetition r uses the PCG stream
// 0x464f4c4400000000 + r; r = 0 is StratifiedKFold). Folds r*k ..
// r*k+k-1 are repetition r.
func RepeatedStratifiedKFold(y []int, k, repeats int, seed uint64) ([]Fold, error) {
	if repeats < 1 {
		return nil, fmt.Errorf("selection: %w: %d repeats of k-fold cross-validation", ErrData, repeats)
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
		return nil, fmt.Errorf("selection: %w: %d folds, want at least 2", ErrData, k)
	}
	for i, c := range y {
		if c < 0 {
			return nil, fmt.Errorf("selection: %w: item %d has label %d", ErrData, i, c)
		}
	}
	byClass := folds.ByClass(y)
	if c, size := folds.TooSmall(byClass, k); c >= 0 {
		return nil, fmt.Errorf("selection: %w: class %d has %d sets, %d-fold cross-validation needs at least %d (use fewer folds)", ErrTooSmall, c, size, k, k)
	}
	fold := folds.Deal(len(y), byClass, k, rand.New(rand.NewPCG(seed, streamFolds+uint64(rep))))
	val, train := folds.Parts(fold, k)
	out := make([]Fold, k)
	for j := range out {
		out[j] = Fold{Train: train[j], Val: val[j]}
	}
	return out, nil
}

// MaxFolds returns the largest k <= want for which StratifiedKFold(y, k, ·)
// succeeds (the smallest class's size), or 0 when some class has fewer than
// 2 items; also that class and its size.
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
