package engine

import (
	"math"

	"github.com/grlgq/grlgq/kernels"
	"github.com/grlgq/grlgq/linalg"
)

// The float32 shadow of a float64 engine (SetShadow32): the winners'
// search of a training step (Winners) run on the caller alone projects
// the sample on float32 copies of the prototypes (kernels.AtB32: twice
// the lanes and half the bytes of AtB), bounds every distance from those
// products widened by their error, and computes again in float64
// (kernels.AtB, the bits of Distances' projection) only the projections
// that the bounds cannot settle and the two winners'. The winners, their
// projections and every distance a search returns are those of the
// float64 engine, bit for bit: the float32 products only rule prototypes
// out.
//
// Only a search the caller runs alone (one worker, SetSolo, or adaptive
// splitting's solo mode) uses the shadow; a split one projects in float64
// as before. Split over two cores, the shadow's own memory traffic (the
// sample rounded from memory by one core and read by the other, each
// winner's copy rounded by one core and read by its shard's owner) cost
// more than the float32 projections saved: two-worker epochs on 16 and
// 24 prototypes of 784 x 12 (Zen 5) took 30-34 ms instead of 27-29 ms,
// and adaptive splitting then chose solo. Measured per mode, the race
// (engine.go) compares solo with the shadow against split without it and
// keeps whichever is faster.
//
// The widening. Let M64 be the float64 product Pᵀ W_k (what Distances
// computes) and M32 the float32 one (AtB32 of P and W_k each rounded to
// float32). An entry of M32 is one float32 chain over each block of
// kernels.Chunk32 = 64 rows (FMAs, or products and sums: at most 64
// roundings of u32 = 2^-24 on any term, γ_64 <= 64.001 u32), the blocks'
// sums converted exactly and added in float64 (at most n/64 + 1
// roundings of 2^-53); rounding both operands to float32 moves each
// product by at most (2 u32 + u32²)|p_r||w_r|; M64's entry is itself one
// float64 chain of n terms (n·2^-53). So
//
//	|M32_ij − M64_ij| <= c32 Σ_r |p_ri||w_rj| + a,  c32 = 67·2^-24 + (2n + 8)·2^-53,
//
// with a the absolute error of float32's subnormal range (operands and
// partial sums below 2^-126: at most 2^-150 each), a <= n·2^-148·(1 +
// max|p| + max|w|). By Cauchy–Schwarz Σ_r |p_ri||w_rj| <= ‖p_i‖ ‖w_j‖, so
// ‖M32 − M64‖₂ <= ‖M32 − M64‖_F <= c32 ‖P‖_F ‖W_k‖_F + d·a = eps_k
// (slack). Weyl's theorem then puts every singular value of M64 within
// eps_k of M32's: bounds.go's tier-1 and tier-2 bounds take eps_k into
// their slack (enclosureSlack, sineSum), and σ of M32 may exceed 1 by eps_k
// (the excess of float32 mode, sigmaExcess). At unit columns eps_k is
// about 67·2^-24·d: 4.8e-5 at d = 12, 1e-4 at d = 25, below most gaps
// between the distances of a step's prototypes, so a search computes
// little more than its winners' two float64 projections: 2.5 of 28 per
// step on BenchmarkEpoch's yaleb shape, 2.3 of 16 on 16 prototypes of
// 784 x 12 (the bench's f64-projected).
//
// After the float32 bounds, a group (W⁺'s class, the other classes) left
// with two or more candidates has its candidates projected again in
// float64 and enclosed again without the widening (tier 2), then valued
// where that leaves a tie (tier 3), as on a float64 engine; each winner
// is projected again in float64 if it was not yet. Projection(k) and
// ExactDistance(k) project prototype k again first where its projection
// is still the float32 one, so every caller sees float64 products.
//
// The shadow follows the prototypes through Sync: SetPrototype calls it,
// and a caller that writes a prototype through its Prototype view must
// call Sync before the next search (the trainer does, after every step,
// in every precision). Sync only marks the prototype; the next search
// that uses the shadow rounds it and takes its Frobenius norm (2·D·d per
// step for a step's two winners, against the D·d²·p/2 the projections
// save). Distances, Nearest and the image searches do not use it.
//
// Where it pays (shadowWorth). Beside the float32 projections a search
// pays the sample's rounding (its first read from memory, which the
// float64 projections overlap with their arithmetic), the winners' two
// float64 projections and the rounding of the prototypes written since
// the last search: about five float64 projections' time. The float32
// projections save about 0.45 of one per prototype on AVX-512 (AtB32 at
// 1.7-1.9 times AtB's rate on Zen 5) and 0.5 on AVX2, so the shadow needs
// about a dozen prototypes. One-worker epochs (BenchmarkEpoch, Zen 5,
// AVX-512, alternated runs): 10 prototypes of 784 x 12 (mnist) 45-47 ms
// without, 46-49 ms with; 16 of them 36.9-37.8 against 32.5-35.6 ms; 28 of
// 400 x 25 (yaleb) 48-51 against 42-43 ms. So from 12 prototypes.

// SetShadow32(true) turns the float32 shadow on where it pays
// (shadowWorth: d >= gramMinDim, whose tier 2 is the Gram enclosure the
// widened bounds need, and at least shadowMinP prototypes) and reports
// whether it is on; SetShadow32(false) turns it off. A float32 engine
// (SetFloat32), whose projections are float32 already, and a Crew do
// nothing. It allocates the float32 copies at the first call (half the
// prototypes' bytes); the first search that uses them rounds every
// prototype into them.
func (e *Engine) SetShadow32(on bool) bool {
	if e.readOnly || e.f32 || !on || !shadowWorth(e.d, e.p) {
		e.shadow, e.shadowed = false, false
		return false
	}
	e.alloc32()
	if e.exact64 == nil {
		e.exact64 = make([]bool, e.p)
		e.wnorm = make([]float64, e.p)
		e.pgram = make([]float64, e.d*e.d)
		e.dirty32 = make([]bool, e.p)
		e.dirtyList = make([]int32, 0, e.p)
	}
	e.shadow = true
	for k := range e.dirty32 {
		if !e.dirty32[k] {
			e.dirty32[k] = true
			e.dirtyList = append(e.dirtyList, int32(k))
		}
	}
	return true
}

// Shadow32 reports whether the float32 shadow is on.
func (e *Engine) Shadow32() bool { return e.shadow }

// shadowWorth reports whether the shadow pays at these dimensions: tier 2
// must be the Gram enclosure (d >= gramMinDim; below, a search values its
// candidates at once, from float64 products), and the two winners'
// float64 projections must be a small part of the p the float32 ones
// replace.
func shadowWorth(d, p int) bool {
	return d >= gramMinDim && p >= shadowMinP
}

// shadowMinP is the least number of prototypes for the shadow (a variable
// for the tests).
var shadowMinP = 12

// alloc32 allocates the float32 copies of every shard's prototypes (one
// wide block per shard, the prototypes side by side: see col32) and the
// float32 samples, at the first call.
func (e *Engine) alloc32() {
	for _, s := range e.shards {
		if s.protos32 == nil {
			s.bw32, s.ld32 = s.hi-s.lo, shardStride(s.hi-s.lo, e.d)
			s.bs32 = e.dim * s.ld32
			s.protos32 = make([]float32, s.bs32)
			s.p32 = make([]float32, e.dim*e.d)
			s.x32 = make([]float32, e.dim)
		}
	}
}

// syncShadow rounds prototype k into its float32 copy and records its
// Frobenius norm rounded up (and in badNorms whether it is finite).
func (e *Engine) syncShadow(k int) {
	s := e.shards[e.owner[k]]
	w := e.protos[k]
	kernels.Round32Rows(s.protos32[s.col32(k, e.d):], s.ld32, w.Data, w.Stride, e.dim, e.d)
	was := e.wnorm[k] <= math.MaxFloat64
	e.wnorm[k] = frobeniusUp(w)
	switch now := e.wnorm[k] <= math.MaxFloat64; {
	case was && !now:
		e.badNorms++
	case !was && now:
		e.badNorms--
	}
}

// frobeniusUp returns an upper bound on ‖w‖_F (+Inf where it is not
// finite): the sum of its n squares (Dot of each row, then the rows' sums:
// relative error below 2nu) widened by 2nu, its square root rounded up.
func frobeniusUp(w *linalg.Dense) float64 {
	var s float64
	if w.Stride == w.Cols {
		x := w.Data[:w.Rows*w.Cols]
		s = kernels.Dot(x, x)
	} else {
		for r := 0; r < w.Rows; r++ {
			x := w.Data[r*w.Stride : r*w.Stride+w.Cols]
			s += kernels.Dot(x, x)
		}
	}
	if !(s <= math.MaxFloat64) {
		return math.Inf(1)
	}
	n := float64(w.Rows * w.Cols)
	return up(math.Sqrt(up(s*(1+2*n*ur), 2)), 1)
}

// sampleShadow rounds P into shard 0's p32 for a shadow search (unless
// WinnersRounded gave its rounding: shadowSample returns either) and
// records a bound on its norm and P itself; it reports false (the search
// then projects in float64) where a norm is not finite, which the
// widening needs.
//
// The norm comes from the rounded copy, in cache, rather than from P,
// which a step reads from memory for the first time here (a pass of Dot
// over P cost a mnist step about as much as its float32 projections
// saved): the trace t of P32ᵀ P32 (AtB32, one float32 projection), whose
// diagonal entries are sums of squares, so within a relative 66·2^-24
// of the exact ‖P32‖_F² (see the widening above) plus the subnormal range's
// absolute n·d·2^-148; and |p| <= |p32| (1 + 2^-23) + 2^-149 for each
// entry, so ‖P‖_F <= ‖P32‖_F (1 + 2^-23) + √(n d)·2^-149.
func (e *Engine) sampleShadow(P *linalg.Dense) bool {
	for _, k := range e.dirtyList {
		e.syncShadow(int(k))
		e.dirty32[k] = false
	}
	e.dirtyList = e.dirtyList[:0]
	if e.badNorms > 0 {
		return false
	}
	d := e.d
	p32 := e.given32 // the caller's rounding (WinnersRounded), or:
	if p32 == nil {
		p32 = e.shards[0].p32
		kernels.Round32Rows(p32, d, P.Data, P.Stride, e.dim, d)
	}
	kernels.AtB32(e.pgram, d, p32, d, p32, d, e.dim, d, d)
	var t float64
	for j := 0; j < d; j++ {
		t += e.pgram[j*d+j]
	}
	nd := float64(e.dim * d)
	t = up(t*(1+72*0x1p-24), d+2) + nd*0x1p-148
	e.pnorm = up(up(math.Sqrt(t), 1)*(1+0x1p-23), 2) + math.Sqrt(nd)*0x1p-149
	if !(e.pnorm <= math.MaxFloat64) {
		return false
	}
	e.lastP = P
	return true
}

// slack returns eps_k, the bound on ‖M32 − M64‖₂ of prototype k's
// projection (see above), or 0 where the projection is float64's.
func (e *Engine) slack(k int) float64 {
	if !e.shadowed || e.exact64[k] {
		return 0
	}
	n := float64(e.dim)
	c32 := 67*0x1p-24 + (2*n+8)*ur
	a := n * 0x1p-148 * (1 + e.pnorm + e.wnorm[k])
	return up(c32*e.pnorm*e.wnorm[k]+float64(e.d)*a, 4)
}

// shadowSample returns the float32 sample of a shadow search: the
// caller's rounding (WinnersRounded) or shard 0's p32.
func (e *Engine) shadowSample() []float32 {
	if e.given32 != nil {
		return e.given32
	}
	return e.shards[0].p32
}

// anyShadow reports whether a projection of ks is a float32 product.
func (e *Engine) anyShadow(ks []int32) bool {
	if !e.shadowed {
		return false
	}
	for _, k := range ks {
		if !e.exact64[k] {
			return true
		}
	}
	return false
}

// reproject computes prototype k's projection again in float64 (the
// call of projectInto for one prototype: its bits whatever the other
// columns) where it is a float32 product. Two goroutines may reproject
// two different prototypes at once (the trainer's factorisation tasks,
// through Projection): it writes only k's projection and exact64[k].
func (e *Engine) reproject(k int) {
	if !e.shadowed || e.exact64[k] {
		return
	}
	d := e.d
	s := e.shards[e.owner[k]]
	P := e.lastP
	kernels.AtB(s.proj[projOffset(k-s.lo, d):], chunk*d, P.Data, P.Stride, s.protos[s.col(k, d):], s.ld, e.dim, d, d)
	e.exact64[k] = true
}

// exactify projects the candidates e.cand again in float64 where their
// projections are float32's, and encloses them again (tier 2, without
// the widening: the bounds keep the tighter ends of both).
func (e *Engine) exactify(lambda []float64) error {
	n := 0
	for _, k := range e.cand {
		if !e.exact64[k] {
			e.reproject(int(k))
			e.cand[n] = k
			n++
		}
	}
	e.cand = e.cand[:n]
	e.stats.Reprojected += int64(n)
	return e.refine(lambda)
}
