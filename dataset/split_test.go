package dataset

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// checkPartition fails unless train and test are disjoint, ascending and
// cover 0..n-1.
func checkPartition(t *testing.T, s Split, n int) {
	t.Helper()
	if !slices.IsSorted(s.Train) || !slices.IsSorted(s.Test) {
		t.Fatalf("not ascending: %v", s)
	}
	all := append(slices.Clone(s.Train), s.Test...)
	slices.Sort(all)
	if len(all) != n || len(slices.Compact(all)) != n || all[0] != 0 || all[n-1] != n-1 {
		t.Fatalf("train %v test %v is not a partition of 0..%d", s.Train, s.Test, n-1)
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

func TestStratifiedKFold(t *testing.T) {
	labels := labelsOf(40, 23, 9) // 72 items, 7 mod 13 gcd 1 keeps it a permutation
	splits, err := StratifiedKFold(labels, 4, 1)
	if err != nil {
		t.Fatal(err)
	}
	seen := make([]int, len(labels))
	for _, s := range splits {
		checkPartition(t, s, len(labels))
		if len(s.Test) < 17 || len(s.Test) > 19 {
			t.Fatalf("fold of %d items, want 18±1", len(s.Test))
		}
		cnt := make([]int, 3)
		for _, i := range s.Test {
			seen[i]++
			cnt[labels[i]]++
		}
		// 40/4 = 10, 23/4 = 5.75, 9/4 = 2.25: each class within one of its share.
		if cnt[0] != 10 || cnt[1] < 5 || cnt[1] > 6 || cnt[2] < 2 || cnt[2] > 3 {
			t.Fatalf("fold class counts %v", cnt)
		}
	}
	for i, n := range seen {
		if n != 1 {
			t.Fatalf("item %d tested %d times", i, n)
		}
	}
	again, _ := StratifiedKFold(labels, 4, 1)
	other, _ := StratifiedKFold(labels, 4, 2)
	if !reflect.DeepEqual(splits, again) || reflect.DeepEqual(splits, other) {
		t.Fatal("same seed must give the same folds, another seed other folds")
	}
	rep, err := RepeatedStratifiedKFold(labels, 4, 3, 1)
	if err != nil || len(rep) != 12 || !reflect.DeepEqual(rep[:4], splits) || reflect.DeepEqual(rep[4:8], splits) {
		t.Fatalf("repeated: %d splits, %v", len(rep), err)
	}
	for _, k := range []int{1, 73} {
		if _, err := StratifiedKFold(labels, k, 1); err == nil {
			t.Errorf("k=%d: no error", k)
		}
	}
}

func TestPerClassSplits(t *testing.T) {
	labels := labelsOf(10, 10, 12)
	splits, err := PerClassSplits(labels, 5, 10, 7)
	if err != nil {
		t.Fatal(err)
	}
	distinct := map[string]bool{}
	for _, s := range splits {
		checkPartition(t, s, len(labels))
		cnt := make([]int, 3)
		for _, i := range s.Train {
			cnt[labels[i]]++
		}
		if cnt[0] != 5 || cnt[1] != 5 || cnt[2] != 5 {
			t.Fatalf("train class counts %v", cnt)
		}
		distinct[fmt.Sprint(s.Train)] = true
	}
	if len(distinct) < 9 {
		t.Fatalf("only %d distinct splits out of 10", len(distinct))
	}
	again, _ := PerClassSplits(labels, 5, 10, 7)
	if !reflect.DeepEqual(splits, again) {
		t.Fatal("not deterministic")
	}
	if _, err := PerClassSplits(labels, 10, 1, 7); err == nil {
		t.Fatal("10 of 10 items for training: no error")
	}
}

func TestLeaveOneOut(t *testing.T) {
	s, err := LeaveOneOut(5)
	if err != nil || len(s) != 5 {
		t.Fatal(err)
	}
	for i, sp := range s {
		checkPartition(t, sp, 5)
		if len(sp.Test) != 1 || sp.Test[0] != i {
			t.Fatalf("split %d tests %v", i, sp.Test)
		}
	}
	if _, err := LeaveOneOut(1); err == nil {
		t.Fatal("n=1: no error")
	}
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

// Holdout follows the fraction rule of internal/folds: a class of two or
// more items always gives at least one to validation (before that rule was
// shared with model.ValidationSplit, round(0.2·2) = 0 gave none).
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

// A class smaller than k is refused, as selection.StratifiedKFold refuses
// it (internal/folds.TooSmall): before the rule was shared, dataset dealt
// it to fewer than k folds.
func TestStratifiedKFoldSmallClass(t *testing.T) {
	if _, err := StratifiedKFold(labelsOf(10, 3), 4, 1); err == nil || !strings.Contains(err.Error(), "class 1 has 3 items") {
		t.Fatalf("class of 3 for 4 folds: %v", err)
	}
	if _, err := StratifiedKFold([]int{0, 0, 2, 2}, 2, 1); err == nil || !strings.Contains(err.Error(), "class 1 has 0 items") {
		t.Fatalf("empty class: %v", err)
	}
	if _, err := StratifiedKFold(labelsOf(4, 4), 4, 1); err != nil {
		t.Fatal(err)
	}
}
