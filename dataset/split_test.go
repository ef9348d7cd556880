package dataset

import (
	"reflect"
	"slices"
	"testing"
)

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
