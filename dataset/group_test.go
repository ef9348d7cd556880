package dataset

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGroups checks the grouping rule: groups of m, every item used, the
// last group completed from the start of the shuffle, items untouched,
// the caller's stream, and no draw for a class too small to group.
func TestGroups(t *testing.T) {
	items := []int{10, 11, 12, 13, 14, 15, 16, 17, 18, 19}
	orig := slices.Clone(items)
	g := Groups(items, 4, rand.New(rand.NewPCG(1, 2)))
	if !slices.Equal(items, orig) {
		t.Fatalf("Groups changed items: %v", items)
	}
	if len(g) != 3 {
		t.Fatalf("%d groups of 4 from 10 items, want 3", len(g))
	}
	var flat []int
	for k, grp := range g {
		if len(grp) != 4 || len(slices.Compact(slices.Sorted(slices.Values(grp)))) != 4 {
			t.Fatalf("group %d = %v: want 4 distinct items", k, grp)
		}
		flat = append(flat, grp...)
	}
	// The shuffle is flat[:10]; the last group's 2 extra items are its
	// first two.
	if !slices.Equal(flat[10:], flat[:2]) {
		t.Errorf("last group %v is not completed with the first items of the shuffle %v", g[2], flat[:10])
	}
	if !slices.Equal(slices.Sorted(slices.Values(flat[:10])), orig) {
		t.Errorf("the groups %v do not use every item once before the completion", g)
	}
	if slices.Equal(flat[:10], orig) {
		t.Errorf("no shuffle: %v", flat[:10])
	}
	// The caller's stream: the same seed gives the same groups, another
	// seed others.
	if g2 := Groups(items, 4, rand.New(rand.NewPCG(1, 2))); !slices.EqualFunc(g, g2, slices.Equal) {
		t.Errorf("same stream, different groups: %v vs %v", g, g2)
	}
	if g3 := Groups(items, 4, rand.New(rand.NewPCG(1, 3))); slices.EqualFunc(g, g3, slices.Equal) {
		t.Errorf("another stream gave the same groups %v", g)
	}
	// m divides the count: no completion.
	if g5 := Groups(items, 5, rand.New(rand.NewPCG(1, 2))); len(g5) != 2 || len(g5[0]) != 5 || len(g5[1]) != 5 {
		t.Errorf("groups of 5 from 10: %v", g5)
	}
	// Too few items: no group, nothing drawn from the stream.
	a, b := rand.New(rand.NewPCG(4, 4)), rand.New(rand.NewPCG(4, 4))
	if g := Groups(items[:3], 4, a); g != nil {
		t.Errorf("3 items in groups of 4: %v", g)
	}
	if a.Uint64() != b.Uint64() {
		t.Error("Groups drew from the stream for a class too small to group")
	}
}
