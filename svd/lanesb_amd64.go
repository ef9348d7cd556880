//go:build amd64 && !purego

package svd

import (
	"math"
	"slices"
)

// Layout of the params array of jacobi1b (see ../asm/jacobi/lanesb.go).
const (
	bTol    = 0
	bNegl   = 1
	bOne    = 2
	bHalf   = 3
	bThreeH = 4
	bSign   = 5
	bAbs    = 6
	bIdxL   = 8
	bIdxR   = 24
	bOutL   = 40
	bOutR   = 56
)

// lanesB is the workspace of the single-matrix kernel with the batch
// kernel's bits (jacobi1bW1AVX512, jacobi1bW2AVX512): an n x n matrix,
// 2 <= n <= 32, the m/2 column pairs of a round of roundRobin (m = n
// rounded up to even) in the lanes of W = 1 or 2 ZMM vectors; lane i of the
// left vectors holds the column at position i of the circle, lane i of
// the right vectors the column at position m-1-i (player). The column n
// of an odd n is zero (its pairs never rotate, as roundRobin leaves them
// out).
type lanesB struct {
	n, w, rounds int
	buf          []float64 // n rows of 2w vectors, 64-byte aligned
	params       [72]float64
	flips        []uint8 // per round, w bytes: the lanes whose left column has the larger index
	colL, colR   []int   // round 0: the column in lane i of the left, right vectors (-1: none, n: the zero column)
}

// newLanesB returns the workspace for n x n matrices, or nil where the
// kernel does not apply (n < 2 or n > 32).
func newLanesB(n int, tol float64) *lanesB {
	m := n + n&1
	h := m / 2
	w := (h + 7) / 8
	if n < 2 || w > 2 {
		return nil
	}
	x := &lanesB{n: n, w: w, rounds: m - 1,
		buf: aligned64(make([]float64, n*2*w*lanes+8), n*2*w*lanes),
	}
	// Slot contents by round: token c >= 0 a column (n: the zero column),
	// -1-s an unused slot s (it must stay where it is).
	slots := 2 * w * lanes
	content := func(r int) []int {
		c := make([]int, slots)
		for s := range c {
			c[s] = -1 - s
		}
		for i := 0; i < h; i++ {
			c[i] = player(i, r, m)
			c[w*lanes+i] = player(m-1-i, r, m)
		}
		return c
	}
	// The two source vectors of each output vector (vector v: left w' at
	// v = w', right at w + w'); see the generator.
	src := [][2]int{{0, 1}, {1, 0}} // w = 1: L' from (L, R), R' from (R, L)
	if w == 2 {
		src = [][2]int{{0, 1}, {1, 3}, {2, 0}, {3, 2}}
	}
	idx := func(r int) []int64 {
		from, to := content(r), content((r+1)%(m-1))
		out := make([]int64, slots)
		for s, want := range to {
			v := s / lanes
			found := false
			for k, sv := range src[v] {
				for j := 0; j < lanes; j++ {
					if from[sv*lanes+j] == want {
						out[s] = int64(k*lanes + j)
						found = true
					}
				}
			}
			if !found {
				panic("svd: lanesB: the circle's step is not a two-source permutation")
			}
		}
		return out
	}
	first := idx(0)
	for r := 1; r < m-1; r++ {
		if !slices.Equal(idx(r), first) {
			panic("svd: lanesB: the circle's step differs between rounds")
		}
	}
	for s := 0; s < w*lanes; s++ {
		x.params[bIdxL+s] = math.Float64frombits(uint64(first[s]))
		x.params[bIdxR+s] = math.Float64frombits(uint64(first[w*lanes+s]))
	}
	x.flips = make([]uint8, (m-1)*w)
	for r := 0; r < m-1; r++ {
		for i := 0; i < h; i++ {
			p, q := player(i, r, m), player(m-1-i, r, m)
			if p > q && p < n {
				x.flips[r*w+i/lanes] |= 1 << (i % lanes)
			}
		}
	}
	c0 := content(0)
	x.colL, x.colR = make([]int, w*lanes), make([]int, w*lanes)
	for i := range x.colL {
		x.colL[i], x.colR[i] = max(c0[i], -1), max(c0[w*lanes+i], -1)
	}
	x.params[bTol] = tol * tol
	x.params[bOne] = 1
	x.params[bHalf] = 0.5
	x.params[bThreeH] = 1.5
	x.params[bSign] = math.Float64frombits(1 << 63)
	x.params[bAbs] = math.Float64frombits(1<<63 - 1)
	return x
}

// values writes into s[:n] the values of the n x n matrix a (row stride
// lda), scaled by 2^-e when scaled, with the negligible threshold
// negl·2^-120 (see groupScale): Batch.Values' bits. It reports false if
// the iteration did not converge.
func (x *lanesB) values(s []float64, a []float64, lda int, sc groupScale, m int) bool {
	n, w := x.n, x.w
	row := 2 * w * lanes
	e := -sc.exp[m]
	for r := 0; r < n; r++ {
		ar, br := a[r*lda:r*lda+n], x.buf[r*row:(r+1)*row]
		for i, c := range x.colL {
			br[i] = 0
			if c >= 0 && c < n {
				br[i] = ar[c]
				if sc.scaled[m] {
					br[i] = math.Ldexp(br[i], e)
				}
			}
		}
		for i, c := range x.colR {
			br[w*lanes+i] = 0
			if c >= 0 && c < n {
				br[w*lanes+i] = ar[c]
				if sc.scaled[m] {
					br[w*lanes+i] = math.Ldexp(br[w*lanes+i], e)
				}
			}
		}
	}
	x.params[bNegl] = sc.negl[m] * 0x1p-120
	var failed uint64
	if w == 1 {
		failed = jacobi1bW1AVX512(&x.buf[0], n, x.rounds, &x.params, &x.flips[0], MaxSweeps)
	} else {
		failed = jacobi1bW2AVX512(&x.buf[0], n, x.rounds, &x.params, &x.flips[0], MaxSweeps)
	}
	if failed != 0 {
		return false
	}
	out := s[:n]
	k := 0
	for i, c := range x.colL {
		if c >= 0 && c < n {
			out[k] = x.params[bOutL+i]
			k++
		}
	}
	for i, c := range x.colR {
		if c >= 0 && c < n {
			out[k] = x.params[bOutR+i]
			k++
		}
	}
	for j, v := range out {
		out[j] = math.Ldexp(math.Sqrt(v), sc.exp[m])
	}
	slices.Sort(out)
	slices.Reverse(out)
	return true
}
