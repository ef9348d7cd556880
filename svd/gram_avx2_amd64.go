//go:build amd64 && !purego

package svd

import (
	"math"

	"github.com/grlgq/grlgq/internal/cpu"
)

// useGramAVX2 selects the AVX2 kernels of Gram.Enclose: on every CPU that
// runs AVX2 and FMA and is not capped below them (internal/cpu: the AVX2
// or the AVX-512 decision; the AVX-512 CPUs run these 256-bit kernels).
// Tests flip it.
var useGramAVX2 = cpu.AVX2 || cpu.AVX512

// gramAVX2 is the AVX2 workspace of a Gram: a group of 4 matrices, one per
// 64-bit lane (see ../asm/jacobi/gram4.go for the layouts).
type gramAVX2 struct {
	n4          int
	at          []float64 // n4 columns of n rows (columns n.. zero)
	g           []float64 // n4 x n4
	d, e, e2, y []float64 // n vectors
	qd, qe      []float64 // the QL iteration's copies of d and e2
	x           []float64 // shifts of the Sturm counts: k4 vectors
	cnt         []int64   // their counts
	k4          int       // 2n rounded up to a multiple of 4
	params      [8]float64
	exp         [lanes4]int
	skip        [lanes4]bool // lane's bounds set without the kernels
	slack       [lanes4]float64
	tnorm       [lanes4]float64 // ‖T‖_F of each lane's tridiagonal
	dmax, emax  [lanes4]float64 // largest |d|, |e|
	tail        [lanes4]uint64  // the loaders' mask of the first n mod 4 lanes
}

func newGramAVX2(n int) *gramAVX2 {
	n4 := (n + 3) &^ 3
	k4 := (2*n + 3) &^ 3
	x := &gramAVX2{
		n4:   n4,
		k4:   k4,
		tail: tailMask(n),
		at:   aligned32(make([]float64, n4*n*lanes4+4), n4*n*lanes4),
		g:    aligned32(make([]float64, n4*n4*lanes4+4), n4*n4*lanes4),
		d:    aligned32(make([]float64, n*lanes4+4), n*lanes4),
		e:    aligned32(make([]float64, n*lanes4+4), n*lanes4),
		e2:   aligned32(make([]float64, n*lanes4+4), n*lanes4),
		y:    aligned32(make([]float64, n*lanes4+4), n*lanes4),
		qd:   aligned32(make([]float64, n*lanes4+4), n*lanes4),
		qe:   aligned32(make([]float64, n*lanes4+4), n*lanes4),
		x:    aligned32(make([]float64, k4*lanes4+4), k4*lanes4),
		cnt:  make([]int64, k4*lanes4),
	}
	x.params[gOne] = 1
	x.params[gHalf] = 0.5
	x.params[gAbs] = math.Float64frombits(1<<63 - 1)
	x.params[gSign] = math.Float64frombits(1 << 63)
	x.params[gPivmin] = pivmin
	x.params[gMaxIter] = math.Float64frombits(gramQLMaxIter)
	return x
}

// Layout of the params array of the Gram kernels (see ../asm/jacobi).
const (
	gTol     = 0 // (unused)
	gOne     = 1 // 1
	gHalf    = 2 // 0.5
	gAbs     = 3 // all bits but the sign
	gSign    = 4 // the sign bit
	gPivmin  = 5 // Sturm counts: least pivot magnitude
	gMaxIter = 6 // QL: iterations per eigenvalue (an integer)
)

// ql16Space is the workspace of ql16AVX512 and ql32AVX512: the QL
// iteration's d and e² of up to four groups of 8 lanes (eight of
// gramAVX2's groups of 4, lane l of group g at lane 4g+l), and its
// scratch.
type ql16Space struct {
	d, e    [4][]float64 // n x 8 each, 64-byte aligned
	dp, ep  [4]*float64
	scratch []float64 // 256
}

// useQL16 selects ql16AVX512 for three and four groups of 4 (CPUs that run
// the AVX-512 kernels; tests flip it).
var useQL16 = cpu.AVX512

func newQL16(n int) *ql16Space {
	if !cpu.HasAVX512 {
		return nil
	}
	q := &ql16Space{scratch: make([]float64, 256)}
	for h := range q.d {
		q.d[h] = aligned64(make([]float64, n*8+8), n*8)
		q.e[h] = aligned64(make([]float64, n*8+8), n*8)
		q.dp[h], q.ep[h] = &q.d[h][0], &q.e[h][0]
	}
	return q
}

// encloseAVX2 is Enclose on the AVX2 kernels, 8 matrices at a time: two
// groups of 4 in the lanes of YMM registers, each through the Gram matrix,
// the reduction and the Sturm counts on its own and both through one QL
// run (ql8AVX2: their chains interleaved), or one group (ql4AVX2). With
// AVX-512 (useQL16), 16 at a time: four groups, whose QL runs as two
// groups of 8 lanes in ZMM registers (ql16AVX512), where there are more
// than two; the QL iteration, one long dependency chain per lane, is
// then twice as many lanes per chain step. Each lane's estimates are the
// same bits in either kernel (the same operations, lane by lane).
func (w *Gram) encloseAVX2(lo, hi []float64, ld int, m matrices, lda, k int) error {
	n := w.n
	step := 2 * lanes4
	if useQL16 && w.q16 != nil {
		step = 8 * lanes4
	}
	for i0 := 0; i0 < k; i0 += step {
		ng := min((k-i0+lanes4-1)/lanes4, step/lanes4)
		for g := 0; g < ng; g++ {
			x := w.avx2[g]
			j0 := i0 + g*lanes4
			if bad := x.load(n, m, j0, lda, min(lanes4, k-j0)); bad >= 0 {
				return &BatchError{Index: j0 + bad, Err: errNotFinite}
			}
			gram4AVX2(&x.at[0], &x.g[0], n, x.n4)
			tridiag4AVX2(&x.g[0], n, x.n4, &x.d[0], &x.e[0], &x.y[0], &x.params)
			x.norms(n)
			copy(x.qd, x.d)
			copy(x.qe, x.e2)
			if ng <= 2 {
				for l := 0; l < lanes4; l++ {
					tol := gramQLTol * x.tnorm[l]
					w.ql8[g*32+8+l] = tol * tol
				}
			}
		}
		var failed uint64
		switch {
		case ng > 2:
			failed = w.ql16(n, ng)
		case ng == 2:
			failed = ql8AVX2(&w.avx2[0].qd[0], &w.avx2[0].qe[0], &w.avx2[1].qd[0], &w.avx2[1].qe[0], n, &w.avx2[0].params, &w.ql8[0])
		default:
			x := w.avx2[0]
			failed = ql4AVX2(&x.qd[0], &x.qe[0], n, &x.params, &w.ql8[0])
		}
		for g := 0; g < ng; g++ {
			j0 := i0 + g*lanes4
			w.finishAVX2(w.avx2[g], lo[j0*ld:], hi[j0*ld:], ld, min(lanes4, k-j0), failed>>(4*g))
		}
	}
	return nil
}

// ql16 runs the QL iteration of the ng (3 to 8) groups' tridiagonals
// (x.qd, x.qe) by ql16AVX512 (up to 4 groups) or ql32AVX512: groups 2h
// and 2h+1 as its group h of 8 lanes (absent lanes zero: converged at
// once), the estimates back into x.qd. It returns the failed lanes, group
// g's at bits 4g.. as ql8AVX2's.
func (w *Gram) ql16(n, ng int) uint64 {
	q := w.q16
	top := 4
	if ng > 4 {
		top = 8
	}
	for g := 0; g < top; g++ {
		h, o := g/2, g%2*lanes4
		d, e, tol := q.d[h], q.e[h], q.scratch[h*64+16+o:h*64+16+o+lanes4]
		if g >= ng {
			for i := 0; i < n; i++ {
				clear(d[i*8+o : i*8+o+lanes4])
				clear(e[i*8+o : i*8+o+lanes4])
			}
			clear(tol)
			continue
		}
		x := w.avx2[g]
		for i := 0; i < n; i++ {
			copy(d[i*8+o:i*8+o+lanes4], x.qd[i*lanes4:(i+1)*lanes4])
			copy(e[i*8+o:i*8+o+lanes4], x.qe[i*lanes4:(i+1)*lanes4])
		}
		for l := range tol {
			t := gramQLTol * x.tnorm[l]
			tol[l] = t * t
		}
	}
	var failed uint64
	if top == 4 {
		failed = ql16AVX512(&q.dp, &q.ep, n, &w.avx2[0].params, &q.scratch[0])
	} else {
		failed = ql32AVX512(&q.dp, &q.ep, n, &w.avx2[0].params, &q.scratch[0])
	}
	for g := 0; g < ng; g++ {
		x, h, o := w.avx2[g], g/2, g%2*lanes4
		for i := 0; i < n; i++ {
			copy(x.qd[i*lanes4:(i+1)*lanes4], q.d[h][i*8+o:i*8+o+lanes4])
		}
	}
	return failed
}

// norms sets each lane's ‖T‖_F, largest |d| and |e|, and e² of the group's
// tridiagonal (x.d, x.e).
func (x *gramAVX2) norms(n int) {
	for l := 0; l < lanes4; l++ {
		var dmax, emax, tn float64
		for i := 0; i < n; i++ {
			dv, ev := x.d[i*lanes4+l], x.e[i*lanes4+l]
			dmax = max(dmax, math.Abs(dv))
			emax = max(emax, math.Abs(ev))
			tn += float64(dv*dv) + 2*float64(ev*ev)
			x.e2[i*lanes4+l] = float64(ev * ev)
		}
		x.dmax[l], x.emax[l], x.tnorm[l] = dmax, emax, math.Sqrt(tn)
	}
}

// finishAVX2 certifies the QL estimates of the group x (x.qd; lanes in
// failed did not converge) by Sturm counts and writes the bounds of its
// cnt matrices (matrix l at lo[l*ld:], hi[l*ld:]).
func (w *Gram) finishAVX2(x *gramAVX2, lo, hi []float64, ld, cnt int, failed uint64) {
	n := w.n
	var delta [lanes4]float64
	for l := range delta {
		delta[l] = 8*float64(n)*ur*x.tnorm[l] + 0x1p-1000
	}
	for i := 0; i < n; i++ {
		for l := 0; l < lanes4; l++ {
			mu := x.qd[i*lanes4+l]
			x.x[2*i*lanes4+l] = mu - delta[l]
			x.x[(2*i+1)*lanes4+l] = mu + delta[l]
		}
	}
	sturm4AVX2(&x.d[0], &x.e2[0], n, &x.x[0], x.k4, &x.cnt[0], &x.params)
	for l := 0; l < cnt; l++ {
		lo1, hi1 := lo[l*ld:l*ld+n], hi[l*ld:l*ld+n]
		if x.skip[l] {
			x.skipBounds(lo1, hi1, l)
			continue
		}
		ok := failed&(1<<l) == 0 && x.certify(lo1, hi1, n, l, x.slack[l], x.dmax[l], x.emax[l])
		if !ok {
			// The scalar certification, widening δ, on this lane's T.
			gramScalarFallbacks.Add(1)
			for j := 0; j < n; j++ {
				w.d[j], w.e[j] = x.d[j*lanes4+l], x.e[j*lanes4+l]
			}
			if !w.certify(lo1, hi1, x.slack[l]) {
				trivial(lo1, hi1)
				continue
			}
		}
		if e := x.exp[l]; e != 0 {
			s2 := math.Ldexp(1, 2*e)
			for j := range lo1 {
				lo1[j] *= s2
				hi1[j] *= s2
			}
		}
	}
}

// certify encloses lane l's eigenvalues from the Sturm counts at the QL
// estimates ± δ (x.cnt): the count c- at μ - δ and c+ at μ + δ say that
// eigenvalues c-, ..., c+ - 1 of the perturbed T' lie in [μ - δ, μ + δ)
// (Enclose's step 3); each index takes the intersection of the intervals
// that claim it. It reports false if some index is claimed by none.
func (x *gramAVX2) certify(lo, hi []float64, n, l int, slack, dmax, emax float64) bool {
	for j := range lo {
		lo[j], hi[j] = math.Inf(-1), math.Inf(1)
	}
	for i := 0; i < n; i++ {
		xm, xp := x.x[2*i*lanes4+l], x.x[(2*i+1)*lanes4+l]
		cm, cp := int(x.cnt[2*i*lanes4+l]), int(x.cnt[(2*i+1)*lanes4+l])
		for c := max(cm, 0); c < min(cp, n); c++ {
			// Ascending index c: descending position n-1-c.
			lo[n-1-c] = max(lo[n-1-c], xm)
			hi[n-1-c] = min(hi[n-1-c], xp)
		}
	}
	for j := range lo {
		L, U := lo[j], hi[j]
		if math.IsInf(L, -1) || math.IsInf(U, 1) {
			return false
		}
		sl := sturmSlack(L, dmax, emax) + slack
		su := sturmSlack(U, dmax, emax) + slack
		lo[j] = max((L-sl)-4*ur*(math.Abs(L)+sl), 0)
		hi[j] = (U + su) + 4*ur*(math.Abs(U)+su)
	}
	return true
}

// load writes the cnt <= 4 matrices i0.. of m (n x n, row stride lda)
// into the lanes of x.at, transposed and each scaled by its power of two
// 2^-e_l (see loadTransposed), and each lane's gramSlack into x.slack;
// lanes l >= cnt, and lanes whose bounds need no kernel (zero, or beyond
// the scaling range: x.skip), are zero. It returns the index of the first
// matrix with a NaN or Inf entry, or -1.
func (x *gramAVX2) load(n int, m matrices, i0, lda, cnt int) int {
	var scale [lanes4]float64 // 0 for the lanes whose bounds need no kernel
	_, src, bits := groupMaxAt(m, i0, n, lda, cnt, &x.tail)
	for l := 0; l < lanes4; l++ {
		x.skip[l], x.exp[l] = true, 0
		if l >= cnt {
			continue
		}
		if bits[l] >= 0x7ff<<52 {
			return l
		}
		if amax := math.Float64frombits(bits[l]); amax > 0 {
			_, e := math.Frexp(amax)
			if e > -1000 && e < 1000 {
				x.exp[l], scale[l], x.skip[l] = e, math.Ldexp(1, -e), false
			} else {
				x.exp[l] = 1000
			}
		}
	}
	var fro [lanes4]float64
	gramLoad4AVX2(&x.at[0], n, &src, lda, &scale, &x.tail, &fro)
	for l := range fro {
		x.slack[l] = gramSlack(n, fro[l])
	}
	return -1
}

// skipBounds sets the bounds of a lane that was not run: zero (a zero
// matrix) or trivial (beyond the scaling range).
func (x *gramAVX2) skipBounds(lo, hi []float64, l int) {
	if x.exp[l] == 0 {
		clear(lo)
		clear(hi)
		return
	}
	trivial(lo, hi)
}
