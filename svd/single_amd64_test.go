//go:build amd64 && !purego

package svd

import (
	"fmt"
	"testing"
)

// TestPermIndices simulates the lane permutation of the single-matrix
// kernel on column labels: every round must pair the columns as one round
// of roundRobin does (as unordered pairs, in any lane order; the kernel
// goes round the circle the other way), each round once per sweep, and a
// sweep must bring every column back to its lane.
func TestPermIndices(t *testing.T) {
	for n := 3; n <= maxSmallAsm; n++ {
		w := NewSmall(n)
		x := w.asm
		m := n + n&1
		h := m / 2
		wv := x.wv
		idxL, idxR := permIndices(h, wv)
		// Lane contents: column label, or -1 for zero lanes (the dummy
		// column of odd n is label n).
		lanes := make([]int, 16*wv)
		for i := range lanes {
			lanes[i] = -1
		}
		for c := 0; c < m; c++ {
			p := 8*wv + (m - 1 - c)
			if c < h {
				p = c
			}
			lanes[p] = c
		}
		start := append([]int(nil), lanes...)
		// The rounds of roundRobin as sets of pairs.
		var rounds []map[[2]int]bool
		for r := 0; r < m-1; r++ {
			set := map[[2]int]bool{}
			for i := 0; i < h; i++ {
				p, q := player(i, r, m), player(m-1-i, r, m)
				if p < n && q < n {
					set[[2]int{min(p, q), max(p, q)}] = true
				}
			}
			rounds = append(rounds, set)
		}
		seen := map[int]bool{}
		for r := 0; r < m-1; r++ {
			got := map[[2]int]bool{}
			for i := 0; i < h; i++ {
				p, q := lanes[i], lanes[8*wv+i]
				if p < 0 || q < 0 {
					t.Fatalf("n=%d round %d: zero lane in pair %d", n, r, i)
				}
				if p >= n || q >= n {
					continue
				}
				got[[2]int{min(p, q), max(p, q)}] = true
			}
			found := -1
			for k, set := range rounds {
				if fmt.Sprint(set) == fmt.Sprint(got) && !seen[k] {
					found = k
				}
			}
			if found < 0 {
				t.Fatalf("n=%d round %d: pairs %v are no unseen round of roundRobin", n, r, got)
			}
			seen[found] = true
			// VPERMT2PD on the tables of the generator.
			next := make([]int, len(lanes))
			vec := func(v int) []int { return lanes[8*v : 8*v+8] }
			L := func(v int) []int { return vec(v) }
			R := func(v int) []int { return vec(wv + v) }
			perm := func(out []int, idx []int64, t1, t2 []int) {
				for j := range out {
					if idx[j] < 8 {
						out[j] = t1[idx[j]]
					} else {
						out[j] = t2[idx[j]-8]
					}
				}
			}
			for v := 0; v < wv; v++ {
				if v == 0 {
					perm(next[0:8], idxL[0:8], L(0), R(0))
				} else {
					perm(next[8*v:8*v+8], idxL[8*v:8*v+8], L(v-1), L(v))
				}
				o := next[8*(wv+v) : 8*(wv+v)+8]
				if v < wv-1 {
					perm(o, idxR[8*v:8*v+8], R(v), R(v+1))
				} else {
					perm(o, idxR[8*v:8*v+8], R(v), L(v))
				}
			}
			lanes = next
		}
		if fmt.Sprint(lanes) != fmt.Sprint(start) {
			t.Errorf("n=%d: after a sweep lanes %v, want %v", n, lanes, start)
		}
	}
}
