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
	bNegl2  = 7
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
	flips        []uint8   // per round, w bytes: the lanes whose left column has the larger index
	colL, colR   []int     // round 0: the column in lane i of the left, right vectors (-1: none, n: the zero column)
	dbuf         []float64 // w = 1: two matrices, n rows of four vectors (jacobi1bDualAVX512)
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
	if w == 1 {
		x.dbuf = aligned64(make([]float64, n*4*lanes+8), n*4*lanes)
	}
	x.params[bTol] = tol * tol
	x.params[bOne] = 1
	x.params[bHalf] = 0.5
	x.params[bThreeH] = 1.5
	x.params[bSign] = math.Float64frombits(1 << 63)
	x.params[bAbs] = math.Float64frombits(1<<63 - 1)
	return x
}

// load writes matrix m of the group sc (a, row stride lda) into the rows
// of buf (stride row float64), its left columns from vector l, its right
// columns from vector r (both in vectors of 8).
func (x *lanesB) load(buf []float64, row, l, r int, a []float64, lda int, sc groupScale, m int) {
	n := x.n
	for i := 0; i < n; i++ {
		ar, br := a[i*lda:i*lda+n], buf[i*row:(i+1)*row]
		gatherCols(br[l*lanes:l*lanes+len(x.colL)], x.colL, ar, sc.scaled[m], -sc.exp[m])
		gatherCols(br[r*lanes:r*lanes+len(x.colR)], x.colR, ar, sc.scaled[m], -sc.exp[m])
	}
}

// gatherCols sets dst[j] to row[cols[j]], scaled by 2^e where scaled, or
// to 0 where cols[j] is no column of row.
func gatherCols(dst []float64, cols []int, row []float64, scaled bool, e int) {
	for j, c := range cols {
		v := 0.0
		if uint(c) < uint(len(row)) {
			v = row[c]
			if scaled {
				v = math.Ldexp(v, e) // VSCALEFPD: exact, or rounded once
			}
		}
		dst[j] = v
	}
}

// finish writes into out[:n] the values from the squared norms of the
// left and right lanes (lanes of vectors at params[bOutL+8v],
// params[bOutR+8v]) scaled back by 2^exp, in descending order.
func (x *lanesB) finish(out []float64, v, exp int) {
	n := x.n
	out = out[:n]
	k := 0
	for i, c := range x.colL {
		if c >= 0 && c < n {
			out[k] = x.params[bOutL+8*v+i]
			k++
		}
	}
	for i, c := range x.colR {
		if c >= 0 && c < n {
			out[k] = x.params[bOutR+8*v+i]
			k++
		}
	}
	valuesFromNorms(out, exp)
}

// values2 is values on the matrices a0 and a1 (members m0 and m1 of sc) at
// once (n <= 16: jacobi1bDualAVX512), into s0[:n] and s1[:n]. It returns
// 0 or 1, the first matrix whose iteration did not converge, or -1.
func (x *lanesB) values2(s0, s1 []float64, a0, a1 []float64, lda int, sc groupScale, m0, m1 int) int {
	x.load(x.dbuf, 4*lanes, 0, 2, a0, lda, sc, m0)
	x.load(x.dbuf, 4*lanes, 1, 3, a1, lda, sc, m1)
	x.params[bNegl] = sc.negl[m0] * 0x1p-120
	x.params[bNegl2] = sc.negl[m1] * 0x1p-120
	if jacobi1bDualAVX512(&x.dbuf[0], x.n, x.rounds, &x.params, &x.flips[0], MaxSweeps) != 0 {
		// Which one: each alone (never seen on finite input).
		if !x.values(s0, a0, lda, sc, m0) {
			return 0
		}
		if !x.values(s1, a1, lda, sc, m1) {
			return 1
		}
		return -1
	}
	x.finish(s0, 0, sc.exp[m0])
	x.finish(s1, 1, sc.exp[m1])
	return -1
}

// values writes into s[:n] the values of the n x n matrix a (row stride
// lda), scaled by 2^-e when scaled, with the negligible threshold
// negl·2^-120 (see groupScale): Batch.Values' bits. It reports false if
// the iteration did not converge.
func (x *lanesB) values(s []float64, a []float64, lda int, sc groupScale, m int) bool {
	n, w := x.n, x.w
	x.load(x.buf, 2*w*lanes, 0, w, a, lda, sc, m)
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
	x.finish(s, 0, sc.exp[m])
	return true
}
