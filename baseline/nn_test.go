package baseline

import (
	"context"
	"math/rand/v2"
	"sort"
	"testing"
)

// tablePairs is a Pairs whose every distance kind is dist(i, j) (called
// for i <= j).
func tablePairs(n int, dist func(i, j int) float64) *Pairs {
	p := &Pairs{n: n, dim: 1, d: make([]int, n), scale: make([]float64, n), pos: make([]int32, n), rank: make([]int32, n), nt: n}
	for i := range n {
		p.d[i], p.scale[i], p.pos[i] = 1, 1, int32(i)
	}
	size := n * (n + 1) / 2
	for k := range p.dist {
		p.dist[k] = make([]float64, size)
	}
	p.proj = make([]float64, size)
	for i := range n {
		for j := i; j < n; j++ {
			v := dist(i, j)
			for k := range p.dist {
				p.dist[k][p.index(i, j)] = v
			}
		}
	}
	return p
}

// bruteKNN is the k-NN rule spelled out: sort all training samples by
// (distance, index), count the classes of the first k, and among the
// classes with the most votes take the one appearing first in that order.
func bruteKNN(p *Pairs, kind Distance, q int, train, cls []int, k int) int {
	type cand struct {
		d      float64
		i, cls int
	}
	var all []cand
	for t, i := range train {
		all = append(all, cand{p.Distance(kind, q, i), i, cls[t]})
	}
	sort.Slice(all, func(a, b int) bool {
		if all[a].d != all[b].d {
			return all[a].d < all[b].d
		}
		return all[a].i < all[b].i
	})
	if k > len(all) {
		k = len(all)
	}
	votes := map[int]int{}
	top := 0
	for _, c := range all[:k] {
		votes[c.cls]++
		top = max(top, votes[c.cls])
	}
	for _, c := range all[:k] {
		if votes[c.cls] == top {
			return c.cls
		}
	}
	return -1
}

// TestKNNBrute: knn against the brute-force rule on real pair tables and
// on tables with many equal distances (rounded to a coarse grid), for
// k = 1..12 and every distance.
func TestKNNBrute(t *testing.T) {
	x, y := synth(t, 4, 8, 30, 3, 4, 1.0, 21)
	real, err := NewPairs(context.Background(), x, 2)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	coarse := tablePairs(len(x), func(i, j int) float64 { return float64(rng.IntN(4)) })
	for name, p := range map[string]*Pairs{"real": real, "ties": coarse} {
		for _, sp := range kfold(y, 4, 3) {
			cls := pick(y, sp.Train)
			best := make([]neighbour, 0, 16)
			votes := make([]int, 4)
			for k := 1; k <= 12; k++ {
				for kind := range numDistances {
					for _, q := range sp.Val {
						got := knn(p, kind, q, sp.Train, cls, k, best, votes)
						if want := bruteKNN(p, kind, q, sp.Train, cls, k); got != want {
							t.Fatalf("%s k=%d %v q=%d: %d, want %d", name, k, kind, q, got, want)
						}
					}
				}
			}
		}
	}
}

// TestKNNTieRule pins the tie rules on a hand-made table: sample 0 is the
// query; training samples 1..6 at the distances below.
func TestKNNTieRule(t *testing.T) {
	dist := []float64{0, 2, 1, 1, 3, 3, 0.5}
	p := tablePairs(7, func(i, j int) float64 {
		if i == 0 {
			return dist[j]
		}
		return 9
	})
	train := []int{1, 2, 3, 4, 5, 6}
	best := make([]neighbour, 0, 8)
	votes := make([]int, 3)
	for _, tc := range []struct {
		name string
		cls  []int // classes of samples 1..6
		k    int
		want int
	}{
		// 1-NN: sample 6 (0.5) is nearest.
		{"nearest", []int{0, 0, 0, 0, 0, 1}, 1, 1},
		// k=3: sample 6 (class 0), 2 (class 1), 3 (class 1): majority 1.
		{"majority", []int{2, 1, 1, 2, 2, 0}, 3, 1},
		// k=2: one vote each for 0 (sample 6) and 1 (sample 2): the
		// class of the nearer neighbour, 0, whatever the labels' order.
		{"vote tie, nearer class", []int{2, 1, 2, 2, 2, 0}, 2, 0},
		{"vote tie, nearer class (higher label)", []int{2, 0, 2, 2, 2, 1}, 2, 1},
		// k=4: 6 (0), 2 (1), 3 (1), 1 (0): two each, class 0 has the nearest.
		{"vote tie of two each", []int{0, 1, 1, 2, 2, 0}, 4, 0},
		// k larger than the training set: all six vote.
		{"k > n", []int{2, 2, 2, 1, 1, 1}, 50, 1},
	} {
		if got := knn(p, Geodesic, 0, train, tc.cls, tc.k, best, votes); got != tc.want {
			t.Errorf("%s: class %d, want %d", tc.name, got, tc.want)
		}
	}
	// Equal distances: samples 2 and 3 (both at 1, nearest) -> the lower
	// index, 2, in either order of the training list.
	dist[6] = 4
	p = tablePairs(7, func(i, j int) float64 {
		if i == 0 {
			return dist[j]
		}
		return 9
	})
	cls := []int{0, 2, 1, 0, 0, 0}
	if got := knn(p, Geodesic, 0, train, cls, 1, best, votes); got != 2 {
		t.Errorf("equal distance: class %d, want 2 (sample 2's)", got)
	}
	rev := []int{6, 5, 4, 3, 2, 1}
	rcls := []int{0, 0, 0, 1, 2, 0}
	if got := knn(p, Geodesic, 0, rev, rcls, 1, best, votes); got != 2 {
		t.Errorf("equal distance, reversed list: class %d, want 2 (sample 2's)", got)
	}
}
