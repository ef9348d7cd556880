package folds

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestStratifiedKFoldPartition(t *testing.T) {
	// Classes of 7, 12 and 5 items, interleaved.
	var y []int
	for i := 0; i < 24; i++ {
		y = append(y, []int{0, 1, 1, 2, 0, 1}[i%6])
	}
	y = append(y, 0, 0, 0, 2, 2)
	counts := map[int]int{}
	for _, c := range y {
		counts[c]++
	}
	for _, k := range []int{2, 3, 5} {
		folds, err := StratifiedKFold(y, k, 7)
		if err != nil {
			t.Fatal(err)
		}
		seen := make([]int, len(y))
		sizes := []int{}
		for f, fo := range folds {
			if !slices.IsSorted(fo.Train) || !slices.IsSorted(fo.Val) {
				t.Errorf("k=%d fold %d: indices not ascending", k, f)
			}
			if len(fo.Train)+len(fo.Val) != len(y) {
				t.Errorf("k=%d fold %d: %d + %d items, want %d", k, f, len(fo.Train), len(fo.Val), len(y))
			}
			in := map[int]bool{}
			for _, i := range fo.Train {
				in[i] = true
			}
			for _, i := range fo.Val {
				if in[i] {
					t.Errorf("k=%d fold %d: item %d both trains and validates", k, f, i)
				}
				seen[i]++
			}
			// Class proportions: each class's share of the fold within one
			// item of n_c/k.
			per := map[int]int{}
			for _, i := range fo.Val {
				per[y[i]]++
			}
			for c, n := range counts {
				want := float64(n) / float64(k)
				if math.Abs(float64(per[c])-want) >= 1 {
					t.Errorf("k=%d fold %d: class %d has %d validation items, want about %.1f", k, f, c, per[c], want)
				}
			}
			sizes = append(sizes, len(fo.Val))
		}
		for i, n := range seen {
			if n != 1 {
				t.Errorf("k=%d: item %d validates in %d folds, want 1", k, i, n)
			}
		}
		if slices.Max(sizes)-slices.Min(sizes) > 1 {
			t.Errorf("k=%d: fold sizes %v differ by more than one", k, sizes)
		}
		again, _ := StratifiedKFold(y, k, 7)
		other, _ := StratifiedKFold(y, k, 8)
		for f := range folds {
			if !slices.Equal(folds[f].Val, again[f].Val) {
				t.Errorf("k=%d: same seed, different folds", k)
			}
		}
		if k == 3 && slices.Equal(folds[0].Val, other[0].Val) && slices.Equal(folds[1].Val, other[1].Val) {
			t.Errorf("k=%d: seeds 7 and 8 give the same folds", k)
		}
	}
}

func TestStratifiedKFoldErrors(t *testing.T) {
	y := []int{0, 0, 0, 0, 1, 1, 2, 2, 2}
	_, err := StratifiedKFold(y, 3, 1)
	if !errors.Is(err, ErrTooSmall) || !strings.Contains(err.Error(), "class 1 has 2 sets") {
		t.Errorf("class of 2 in 3 folds: %v", err)
	}
	if _, err := StratifiedKFold(y, 1, 1); !errors.Is(err, ErrArgs) {
		t.Errorf("1 fold: %v", err)
	}
	if _, err := StratifiedKFold([]int{0, -1, 1}, 2, 1); !errors.Is(err, ErrArgs) {
		t.Errorf("negative label: %v", err)
	}
	if k, c, n := MaxFolds(y, 5); k != 2 || c != 1 || n != 2 {
		t.Errorf("MaxFolds = %d, %d, %d, want 2, 1, 2", k, c, n)
	}
	if k, _, _ := MaxFolds([]int{0, 0, 1}, 5); k != 0 {
		t.Errorf("MaxFolds with a class of one = %d, want 0", k)
	}
}

func TestRepeatedFolds(t *testing.T) {
	y := []int{0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2}
	f, err := RepeatedStratifiedKFold(y, 3, 2, 4)
	if err != nil || len(f) != 6 {
		t.Fatalf("%d folds, %v", len(f), err)
	}
	one, _ := StratifiedKFold(y, 3, 4)
	for i := range one {
		if !slices.Equal(one[i].Val, f[i].Val) {
			t.Errorf("repetition 0 differs from StratifiedKFold")
		}
	}
	same := true
	for i := range one {
		same = same && slices.Equal(f[i].Val, f[3+i].Val)
	}
	if same {
		t.Error("the two repetitions have the same folds")
	}
	if _, err := RepeatedStratifiedKFold(y, 3, 0, 4); !errors.Is(err, ErrArgs) {
		t.Errorf("0 repeats: %v", err)
	}
}
func labelsOf(counts ...int) []int {
	var l []int
	for c, n := range counts {
		for range n {
			l = append(l, c)
		}
	}
	// Interleave so classes are not contiguous.
	out := make([]int, len(l))
	for i := range l {
		out[(i*7)%len(l)] = l[i]
	}
	return out
}

func TestHoldout(t *testing.T) {
	labels := labelsOf(20, 10, 1)
	items := []int{}
	for i := range labels {
		if i%3 != 0 || labels[i] == 2 {
			items = append(items, i)
		}
	}
	train, val, err := Holdout(labels, items, 0.25, 3)
	if err != nil {
		t.Fatal(err)
	}
	all := append(slices.Clone(train), val...)
	slices.Sort(all)
	if !reflect.DeepEqual(all, items) {
		t.Fatalf("train+val = %v, want %v", all, items)
	}
	cnt := make([]int, 3)
	for _, i := range val {
		cnt[labels[i]]++
	}
	if cnt[2] != 0 {
		t.Fatal("the only item of a class went to validation")
	}
	if cnt[0] < 3 || cnt[0] > 4 || cnt[1] < 1 || cnt[1] > 2 {
		t.Fatalf("validation class counts %v", cnt)
	}
	if _, _, err := Holdout(labels, items, 1, 3); err == nil {
		t.Fatal("frac=1: no error")
	}
}

// Holdout follows the fraction rule: a class of two or more items always
// gives at least one to validation (before that rule was shared with
// ValidationSplit, round(0.2·2) = 0 gave none).
func TestHoldoutSmallClass(t *testing.T) {
	labels := []int{0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2}
	items := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}
	_, val, err := Holdout(labels, items, 0.2, 5)
	if err != nil {
		t.Fatal(err)
	}
	cnt := make([]int, 3)
	for _, i := range val {
		cnt[labels[i]]++
	}
	if cnt[0] != 1 || cnt[1] != 2 || cnt[2] != 0 {
		t.Fatalf("validation class counts %v, want [1 2 0]", cnt)
	}
}
