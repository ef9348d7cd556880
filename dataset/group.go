package dataset

import (
	"math/rand/v2"
	"slices"
)

// Groups is the one rule that groups the images of one class into sets:
// a copy of items (the class's image indices, in any fixed order) is
// shuffled by rng and cut into consecutive groups of m. When m does not
// divide len(items), the last group is completed with the first images of
// the shuffle, which are then used twice, so that every image is in a
// group. Fewer than m items (or m < 1) give no group and draw nothing from
// rng. items is not changed; the groups do not share memory with it.
//
// The caller owns the random stream: GroupSubspaces passes its own (seeded
// by GroupOptions.Seed), the paper protocols theirs.
func Groups(items []int, m int, rng *rand.Rand) [][]int {
	if m < 1 || len(items) < m {
		return nil
	}
	p := slices.Clone(items)
	rng.Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
	out := make([][]int, (len(p)+m-1)/m)
	for k := range out {
		if end := (k + 1) * m; end <= len(p) {
			out[k] = p[k*m : end : end]
		} else {
			out[k] = append(slices.Clone(p[k*m:]), p[:end-len(p)]...)
		}
	}
	return out
}
