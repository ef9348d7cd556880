package dataset

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// TestClassesFromInts: the map path (few distinct labels) and the sorting
// path (more than 4096) both give classes in ascending numeric order, named
// by their values, with every label the index of its value.
func TestClassesFromInts(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, distinct := range []int64{1, 10, 4096, 4097, 20000} {
		raw := make([]int64, 30000)
		for i := range raw {
			raw[i] = rng.Int64N(distinct)*7 - 1000
		}
		labels, classes := classesFromInts(raw)
		uniq := slices.Clone(raw)
		slices.Sort(uniq)
		uniq = slices.Compact(uniq)
		if len(classes) != len(uniq) {
			t.Fatalf("%d distinct: %d classes, want %d", distinct, len(classes), len(uniq))
		}
		for i, v := range uniq {
			if classes[i] != strconv.FormatInt(v, 10) {
				t.Fatalf("%d distinct: class %d is %q, want %d", distinct, i, classes[i], v)
			}
		}
		for i, v := range raw {
			if classes[labels[i]] != strconv.FormatInt(v, 10) {
				t.Fatalf("%d distinct: label %d is class %q, raw %d", distinct, i, classes[labels[i]], v)
			}
		}
	}
}
