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

// gramAVX2 is the workspace of a Gram's group of L matrices, one per
// 64-bit lane: L = 4 for the AVX2 kernels (YMM registers), 8 for their
// AVX-512 forms (ZMM registers, from the same generators at 8 lanes). The
// layouts are those of ../asm/jacobi/gram4.go with L lanes.
type gramAVX2 struct {
	L           int // lanes: 4 or 8
	n4          int
	at          []float64 // n4 columns of n rows (columns n.. zero)
	g           []float64 // n4 x n4
	d, e, e2, y []float64 // n vectors
	qd, qe      []float64 // the QL iteration's copies of d and e2
	x           []float64 // shifts of the Sturm counts: k4 vectors
	cnt         []int64   // their counts
	k4          int       // 2n rounded up to a multiple of 4
	params      [8]float64
	exp         [lanes8]int
	skip        [lanes8]bool // lane's bounds set without the kernels
	slack       [lanes8]float64
	tnorm       [lanes8]float64 // ‖T‖_F of each lane's tridiagonal
	dmax, emax  [lanes8]float64 // largest |d|, |e|
	tail        [lanes4]uint64  // the loaders' mask of the first n mod 4 lanes
}

// lanes8 is the lanes of the AVX-512 Gram kernels.
const lanes8 = 8

func newGramAVX2(n int) *gramAVX2 { return newGramLanes(n, lanes4) }

// newGramLanes returns a group of L lanes (4 or 8), its vectors 64-byte
// aligned.
func newGramLanes(n, L int) *gramAVX2 {
	n4 := (n + 3) &^ 3
	k4 := (2*n + 3) &^ 3
	vec := func(m int) []float64 { return aligned64(make([]float64, m*L+8), m*L) }
	x := &gramAVX2{
		L: L, n4: n4, k4: k4,
		tail: tailMask(n),
		at:   vec(n4 * n),
		g:    vec(n4 * n4),
		d:    vec(n), e: vec(n), e2: vec(n), y: vec(n), qd: vec(n), qe: vec(n),
		x:   vec(k4),
		cnt: make([]int64, k4*L),
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

// ql16Space is the AVX-512 path of a Gram: four groups of 8 lanes and
// the scratch of ql16AVX512 and ql32AVX512, which run the QL iteration
// of two or four of them at once on their own qd and qe.
type ql16Space struct {
	g       [4]*gramAVX2
	dp, ep  [4]*float64 // the groups' qd and qe
	scratch []float64   // 256
}

// useQL16 selects the AVX-512 Gram kernels (CPUs that run the AVX-512
// kernels; tests flip it).
var useQL16 = cpu.AVX512

func newQL16(n int) *ql16Space {
	if !cpu.HasAVX512 {
		return nil
	}
	q := &ql16Space{scratch: make([]float64, 256)}
	for h := range q.g {
		q.g[h] = newGramLanes(n, lanes8)
		q.dp[h], q.ep[h] = &q.g[h].qd[0], &q.g[h].qe[0]
		if h > 0 {
			q.g[h].shareDead(q.g[0])
		}
	}
	return q
}

// shareDead makes x use the loaded matrices, the Gram matrix and the
// reduction's vector of group g: they are dead once a group is reduced
// (prepare), before the next group is loaded, so a Gram's groups share
// them: 90 KB at n = 25 on AVX-512 that stay in cache from one group to
// the next instead of four times that from L3 (each training step's
// projections stream the prototypes through L2).
func (x *gramAVX2) shareDead(g *gramAVX2) {
	x.at, x.g, x.y = g.at, g.g, g.y
}

// encloseAVX2 is Enclose on the AVX2 kernels, 8 matrices at a time: two
// groups of 4 in the lanes of YMM registers, each through the Gram matrix,
// the reduction and the Sturm counts on its own and both through one QL
// run (ql8AVX2: their chains interleaved), or one group (ql4AVX2). With
// AVX-512 (useQL16) it is encloseAVX512.
func (w *Gram) encloseAVX2(lo, hi []float64, ld int, m matrices, lda, k int) error {
	if useQL16 && w.q16 != nil {
		return w.encloseAVX512(lo, hi, ld, m, lda, k)
	}
	n := w.n
	for i0 := 0; i0 < k; i0 += 2 * lanes4 {
		ng := 1
		if k-i0 > lanes4 {
			ng = 2
		}
		for g := 0; g < ng; g++ {
			j0 := i0 + g*lanes4
			if err := w.avx2[g].prepare(n, m, j0, lda, min(lanes4, k-j0), w.ql8[g*32+8:]); err != nil {
				return err
			}
		}
		var failed uint64
		if ng == 2 {
			failed = ql8AVX2(&w.avx2[0].qd[0], &w.avx2[0].qe[0], &w.avx2[1].qd[0], &w.avx2[1].qe[0], n, &w.avx2[0].params, &w.ql8[0])
		} else {
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

// encloseAVX512 is Enclose on the AVX-512 forms of the kernels, 32
// matrices at a time: up to four groups of 8 in the lanes of ZMM
// registers, each through the Gram matrix, the reduction and the Sturm
// counts on its own (gram8AVX512, tridiag8AVX512, sturm8AVX512: the 4-lane
// kernels' operations lane by lane) and all through one QL run of two or
// four groups (ql16AVX512, ql32AVX512: the QL iteration is one long
// dependency chain per lane, so more lanes per step is what speeds it;
// absent groups are zero, converged at once). Each matrix's bounds are
// the bits of the AVX2 path's.
func (w *Gram) encloseAVX512(lo, hi []float64, ld int, m matrices, lda, k int) error {
	n, q := w.n, w.q16
	for i0 := 0; i0 < k; i0 += 4 * lanes8 {
		ng := min((k-i0+lanes8-1)/lanes8, 4)
		for g := 0; g < ng; g++ {
			j0 := i0 + g*lanes8
			if err := q.g[g].prepare(n, m, j0, lda, min(lanes8, k-j0), q.scratch[g*64+16:]); err != nil {
				return err
			}
		}
		top := 2
		if ng > 2 {
			top = 4
		}
		for g := ng; g < top; g++ {
			clear(q.g[g].qd)
			clear(q.g[g].qe)
			clear(q.scratch[g*64+16 : g*64+16+lanes8])
		}
		var failed uint64
		if top == 2 {
			failed = ql16AVX512(&q.dp, &q.ep, n, &q.g[0].params, &q.scratch[0])
		} else {
			failed = ql32AVX512(&q.dp, &q.ep, n, &q.g[0].params, &q.scratch[0])
		}
		for g := 0; g < ng; g++ {
			j0 := i0 + g*lanes8
			w.finishAVX2(q.g[g], lo[j0*ld:], hi[j0*ld:], ld, min(lanes8, k-j0), failed>>(8*g))
		}
	}
	return nil
}

// prepare readies the group for its QL run: the cnt matrices j0.. of m
// loaded (load), reduced (reduce) and their deflation thresholds in tol
// (tols); a NaN or Inf gives the BatchError of its matrix.
func (x *gramAVX2) prepare(n int, m matrices, j0, lda, cnt int, tol []float64) error {
	if bad := x.load(n, m, j0, lda, cnt); bad >= 0 {
		return &BatchError{Index: j0 + bad, Err: errNotFinite}
	}
	x.reduce(n)
	x.tols(tol)
	return nil
}

// reduce runs the group's Gram matrix and tridiagonal reduction (the
// kernels of its width), its norms, and the QL iteration's copies of d
// and e².
func (x *gramAVX2) reduce(n int) {
	if x.L == lanes8 {
		gram8AVX512(&x.at[0], &x.g[0], n, x.n4)
		tridiag8AVX512(&x.g[0], n, x.n4, &x.d[0], &x.e[0], &x.y[0], &x.params)
	} else {
		gram4AVX2(&x.at[0], &x.g[0], n, x.n4)
		tridiag4AVX2(&x.g[0], n, x.n4, &x.d[0], &x.e[0], &x.y[0], &x.params)
	}
	x.norms(n)
	copy(x.qd, x.d)
	copy(x.qe, x.e2)
}

// tols writes each lane's QL deflation threshold tol² into tol[:x.L].
func (x *gramAVX2) tols(tol []float64) {
	for l := 0; l < x.L; l++ {
		t := gramQLTol * x.tnorm[l]
		tol[l] = t * t
	}
}

// norms sets each lane's ‖T‖_F, largest |d| and |e|, and e² of the group's
// tridiagonal (x.d, x.e).
//
// The lanes are the inner loop: each lane's sums run over i in the same
// order as a loop per lane (the same bits), the lanes' chains side by
// side and the reads contiguous.
func (x *gramAVX2) norms(n int) {
	L := x.L
	var dmax, emax, tn [lanes8]float64
	d, e, e2 := x.d[:n*L], x.e[:n*L], x.e2[:n*L]
	for i := 0; i < n; i++ {
		di, ei, e2i := d[i*L:i*L+L], e[i*L:i*L+L], e2[i*L:i*L+L]
		for l, dv := range di {
			ev := ei[l]
			dmax[l] = max(dmax[l], math.Abs(dv))
			emax[l] = max(emax[l], math.Abs(ev))
			tn[l] += float64(dv*dv) + 2*float64(ev*ev)
			e2i[l] = float64(ev * ev)
		}
	}
	for l := 0; l < L; l++ {
		x.dmax[l], x.emax[l], x.tnorm[l] = dmax[l], emax[l], math.Sqrt(tn[l])
	}
}

// finishAVX2 certifies the QL estimates of the group x (x.qd; lanes in
// failed did not converge) by Sturm counts and writes the bounds of its
// cnt matrices (matrix l at lo[l*ld:], hi[l*ld:]).
func (w *Gram) finishAVX2(x *gramAVX2, lo, hi []float64, ld, cnt int, failed uint64) {
	n, L := w.n, x.L
	var delta [lanes8]float64
	for l := range L {
		delta[l] = 8*float64(n)*ur*x.tnorm[l] + 0x1p-1000
	}
	for i := 0; i < n; i++ {
		for l := 0; l < L; l++ {
			mu := x.qd[i*L+l]
			x.x[2*i*L+l] = mu - delta[l]
			x.x[(2*i+1)*L+l] = mu + delta[l]
		}
	}
	if L == lanes8 {
		sturm8AVX512(&x.d[0], &x.e2[0], n, &x.x[0], x.k4, &x.cnt[0], &x.params)
	} else {
		sturm4AVX2(&x.d[0], &x.e2[0], n, &x.x[0], x.k4, &x.cnt[0], &x.params)
	}
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
				w.d[j], w.e[j] = x.d[j*L+l], x.e[j*L+l]
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
		L := x.L
		xm, xp := x.x[2*i*L+l], x.x[(2*i+1)*L+l]
		cm, cp := int(x.cnt[2*i*L+l]), int(x.cnt[(2*i+1)*L+l])
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

// load writes the cnt <= x.L matrices i0.. of m (n x n, row stride lda)
// into the lanes of x.at, transposed and each scaled by its power of two
// 2^-e_l (see loadTransposed), and each lane's gramSlack into x.slack;
// lanes l >= cnt, and lanes whose bounds need no kernel (zero, or beyond
// the scaling range: x.skip), are zero. It returns the index of the first
// matrix with a NaN or Inf entry, or -1. Eight lanes load as two halves
// of four (gramLoad48AVX2), a half with no matrix from matrix i0 (finite:
// the first half checked it) times zero.
func (x *gramAVX2) load(n int, m matrices, i0, lda, cnt int) int {
	for h := 0; h < x.L/lanes4; h++ {
		var scale [lanes4]float64 // 0 for the lanes whose bounds need no kernel
		c := min(max(cnt-lanes4*h, 0), lanes4)
		var src [lanes4]*float64
		var bits [lanes4]uint64
		if c > 0 {
			_, src, bits = groupMaxAt(m, i0+lanes4*h, n, lda, c, &x.tail)
		} else {
			for l := range src {
				src[l] = &m.at(i0)[0]
			}
		}
		for l := 0; l < lanes4; l++ {
			L := lanes4*h + l
			x.skip[L], x.exp[L] = true, 0
			if l >= c {
				continue
			}
			if bits[l] >= 0x7ff<<52 {
				return L
			}
			if amax := math.Float64frombits(bits[l]); amax > 0 {
				_, e := math.Frexp(amax)
				if e > -1000 && e < 1000 {
					x.exp[L], scale[l], x.skip[L] = e, math.Ldexp(1, -e), false
				} else {
					x.exp[L] = 1000
				}
			}
		}
		var fro [lanes4]float64
		if x.L == lanes8 {
			gramLoad48AVX2(&x.at[lanes4*h], n, &src, lda, &scale, &x.tail, &fro)
		} else {
			gramLoad4AVX2(&x.at[0], n, &src, lda, &scale, &x.tail, &fro)
		}
		for l := range fro {
			x.slack[lanes4*h+l] = gramSlack(n, fro[l])
		}
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
