package engine

import (
	"fmt"
	"math"

	"github.com/grlgq/grlgq/kernels"
	"github.com/grlgq/grlgq/linalg"
)

// Float32 mode (SetFloat32, NewShared32). The projections Pᵀ W_k and
// Wᵀ x are computed from float32 copies of the prototypes and of the
// sample (kernels.AtB32, kernels.AtX32: float32 FMAs, twice the lanes and
// half the bytes of float64, float64 sums of blocks of 64 pixels); what
// follows them stays float64 and unchanged: the d x d products are
// float64 when the singular values (svd.Batch), the angles (arccos), the
// weighted sums and the winners' factorisation see them (a Float32
// model's trainer then factorises its winners in float32 lanes on the
// asm paths (AVX-512, AVX2) at 3 <= d <= 32: svd.Pair.Factorize32). Those parts are
// O(d³) per prototype against the projections' O(D d²), and float64 there
// keeps the Jacobi rotations and angles from adding error to what the
// float32 products already carry.
//
// Error. Each entry of a projection of unit columns is within about
// (64 + 1)·2^-24 + 2·2^-24 ≈ 4e-6 of the float64 product of the float64
// operands in the worst case (blocked float32 sums, then the rounding of
// both operands to float32), about 5e-7 in practice (random signs); so a
// cosine σ_i is within ‖ΔM‖₂ <= d·4e-6 of its float64 value (Weyl), and
// an angle θ = arccos σ within that divided by sin θ: for θ near zero the
// angle's error is up to √(2·|Δσ|), about 1e-2 rad at d = 12 (worst case) (the cosine
// of angles below about 3e-4 rad is 1 in float32 resolution). The float32
// path is for classification, where a distance is compared to others far
// larger than that; the float64 path is for angles near zero.
//
// Searches. The tier-1 and tier-2 bounds (bounds.go) enclose what
// Distances computes from the projection M as stored, whatever M is; the
// searches and Distances read the same M (AtB32 gives an output the same
// bits whatever the other columns of the call), so the bounds hold for
// float32 products too, with one change: M's singular values may exceed 1
// (by up to about d·4e-6, the product's error, plus the bases' own loss
// of orthonormality), which the clamp to [0, 1] takes to 1; tier 1 then
// takes σ_1 − 1 <= sigmaExcess(M) (σ_1 <= √(‖M‖_1 ‖M‖_∞)) into its lower
// end of Σ cos², and both tiers cap their ends at [0, 1] per value. The
// pivots (Nearest with many prototypes) are off: their triangle
// inequality is for the exact subspaces, within the float64 products'
// error. So Winners and Nearest give the prototypes a scan of the float32
// distances gives (tested like the float64 searches).
//
// Images. A dense image is projected in float32 (AtX32 of x/‖x‖). A
// sparse one (imageSparse: decided from the image alone) takes the
// float64 sparse path (SparseAB over its nonzero pixels) on the float64
// prototypes, which hold the float32 values: faster than reading every
// pixel in float32, and the single and batch forms make the same choice.
//
// The prototypes. SetFloat32 rounds the engine's float64 prototypes to
// float32 values in place and copies them to the float32 copies; so does
// SetPrototype and Sync(k), which a caller that writes a prototype through
// its Prototype view must call before the next distance call. The float64
// prototypes thus hold exactly the values the projections read (once
// fresh: UpdateExact writes the float32 copy alone, and Fresh brings the
// float64 prototype up to date): a model trained in float32 mode is
// float32 data, and a float32 model file loses nothing.
//
// SetFloat32(false) makes every prototype fresh first.

// SetFloat32(true) turns float32 mode on: see above. It allocates the
// float32 copies (half the prototypes' bytes) at the first call. It
// rounds every prototype (Sync of each). SetFloat32(false) turns it off,
// every prototype fresh. A Crew's precision is its Shared's: there it
// does nothing.
func (e *Engine) SetFloat32(on bool) {
	if e.readOnly {
		return
	}
	if !on {
		e.FreshAll()
		e.f32 = false
		return
	}
	e.shadow, e.shadowed = false, false // the copies are the prototypes now
	e.f32 = true
	e.alloc32()
	e.piv = nil
	e.stale = make([]bool, e.p)
	for k := range e.protos {
		e.Sync(k)
	}
}

// Float32 reports whether the engine is in float32 mode.
func (e *Engine) Float32() bool { return e.f32 }

// Sync rounds prototype k to float32 values in place and copies it to
// its float32 copy (float32 mode; with the float32 shadow on, SetShadow32,
// the next search that uses the shadow rounds it into the shadow and
// leaves the prototype as it is; otherwise, and on a Crew, it does
// nothing: a Shared's copies are rounded at NewShared32). A caller
// that writes prototype k through its Prototype view must call it before
// the next distance or search call. On a prototype that UpdateExact left
// stale it does nothing: its float32 copy holds the newer values (a caller
// writes a stale prototype only after Fresh).
func (e *Engine) Sync(k int) {
	if e.shadow {
		if !e.dirty32[k] { // rounded at the next search that uses it
			e.dirty32[k] = true
			e.dirtyList = append(e.dirtyList, int32(k))
		}
		return
	}
	if !e.f32 || e.readOnly || e.stale[k] {
		return
	}
	s := e.shards[e.owner[k]]
	w := e.protos[k]
	kernels.Round32RowsBack(s.protos32[s.col32(k, e.d):], s.ld32, w.Data, w.Stride, e.dim, e.d)
}

// sampleF32 rounds P into s.p32 (dim x d, stride d) in float32 mode and
// returns it (or the caller's rounding of WinnersRounded); otherwise nil.
// The conversions here are the kernels' (the bits of Go's float32(x), at
// vector speed).
func (e *Engine) sampleF32(s *shard, P *linalg.Dense) []float32 {
	if !e.f32 {
		return nil
	}
	if e.given32 != nil {
		return e.given32 // the caller's rounding (WinnersRounded)
	}
	if s.p32 == nil {
		s.p32 = make([]float32, e.dim*e.d)
	}
	kernels.Round32Rows(s.p32, e.d, P.Data, P.Stride, e.dim, e.d)
	return s.p32
}

// imageF32 writes x/‖x‖ rounded to float32 into s.x32 (‖x‖ = xnorm > 0,
// finite): scaled first, so that no pixel overflows float32 and the angle
// is arccos ‖Wᵀ x32‖.
func (e *Engine) imageF32(s *shard, x []float64, xnorm float64) {
	if s.x32 == nil {
		s.x32 = make([]float32, e.dim)
	}
	kernels.ScaleRound32(s.x32, x[:e.dim], 1/xnorm)
}

// imageBlock32 is imageBlock in float32 mode: each image against every
// shard's prototypes by kernels.AtX32 (an output does not depend on the
// other columns of the call, so these are the bits of ImageDistances).
func (e *Engine) imageBlock32(s *shard, dist, x []float64, ldx, i0, i1 int) (int, error) {
	p, d := e.p, e.d
	for i := i0; i < i1; i++ {
		xi := x[i*ldx : i*ldx+e.dim]
		xnorm, err := imageNorm(xi)
		if err == nil {
			if s.nzIdx == nil {
				s.nzIdx, s.nzVal = make([]int32, e.dim), make([]float64, e.dim)
			}
			if nz := e.sparseList(s.nzIdx, s.nzVal, xi); nz > 0 {
				// As ImageDistances: the float64 sparse path.
				for _, r := range e.shards {
					for a := r.lo; a < r.hi; {
						a = sparseRun(s.by[a*d:], s.nzVal[:nz], s.nzIdx[:nz], r, a, r.hi, d)
					}
				}
				err = e.imageAngles(dist[i*p:(i+1)*p], nil, s.by[:p*d], xnorm, 0, p)
			} else {
				e.imageF32(s, xi, xnorm)
				for _, r := range e.shards {
					for a, b := r.lo, r.lo; a < r.hi; a = b {
						b = r.runEnd32(a, r.hi)
						kernels.AtX32(s.by[a*d:], r.protos32[r.col32(a, d):], r.ld32, s.x32, e.dim, (b-a)*d)
					}
				}
				err = e.imageAngles(dist[i*p:(i+1)*p], nil, s.by[:p*d], 1, 0, p)
			}
		}
		if err != nil {
			return i, fmt.Errorf("sample %d: %w", i, err)
		}
	}
	return 0, nil
}

// UpdateExact sets prototype k to W C1 + P C2, W the prototype (dim x d),
// C1 and C2 d x d (row strides ldc1, ldc2), P dim x d: the exact update
// of a training step, with the bits of kernels.AB2 in place on W.
//
// In float32 mode with copy32 set, the update is computed from the
// float32 copy, whose values the float64 prototype holds exactly, and
// written, rounded, to it by kernels.AB2F32 in place: the bits of AB2 on
// the float64 prototype and Sync, without reading or writing the float64
// prototype, which the projections do not read (half the bytes, and those
// in cache after the projections), nor any float64 copy of it (on AVX2
// one kernel widens W's elements as it loads them and rounds each output
// as it stores it). The float64 prototype is then stale: its Prototype
// view holds the values before the update until Fresh(k).
//
// Otherwise (float64 mode, or copy32 unset) it is AB2 in place on the
// float64 prototype, made fresh first; in float32 mode the caller rounds
// it with Sync, as after any write through the view (a caller that needs
// the update unrounded, as the trainer's drift check does, leaves copy32
// unset).
//
// Two goroutines may update two different prototypes at once (Tasks).
// On a Crew it returns ErrReadOnly.
func (e *Engine) UpdateExact(k int, c1 []float64, ldc1 int, P *linalg.Dense, c2 []float64, ldc2 int, copy32 bool) error {
	if e.readOnly {
		return ErrReadOnly
	}
	dim, d := e.dim, e.d
	if !e.f32 || !copy32 {
		e.Fresh(k)
		w := e.protos[k]
		kernels.AB2(w.Data, w.Stride, w.Data, w.Stride, c1, ldc1, P.Data, P.Stride, c2, ldc2, dim, d, d)
		return nil
	}
	s := e.shards[e.owner[k]]
	w32 := s.protos32[s.col32(k, d):]
	kernels.AB2F32(w32, s.ld32, w32, s.ld32, c1, ldc1, P.Data, P.Stride, c2, ldc2, dim, d, d)
	e.stale[k] = true
	return nil
}

// UpdateExactRounded is UpdateExact in float32 mode with copy32 set, from
// the sample's float32 rounding p32 (dim x d, stride d: WinnersRounded's)
// instead of a float64 sample, in place on the float32 copy: it reads the
// sample's 4-byte values, in cache after the float32 projections, where
// UpdateExact reads its 8-byte values, from memory on a step's first read
// of them. Where kernels.AB2S32 runs in one kernel (the asm paths,
// d <= 32) the update is computed in float32 lanes: W += W K + P B,
// K = c1 − I and c2 rounded to float32, the increment one float32 FMA
// chain added to W (twice the lanes of float64; at D = 784, d = 12 on
// Zen 5 3.1 against 6.9 us); elsewhere by kernels.AB2F32F32, in float64
// from the exactly widened values, rounded once. Either way the result is rounded
// to float32, and the difference between the two, a few float32 ulps of
// the updated prototype, is of the order of that rounding. The float64
// prototype is then stale, as after UpdateExact. Outside float32 mode it
// returns ErrShape, on a Crew ErrReadOnly.
func (e *Engine) UpdateExactRounded(k int, c1 []float64, ldc1 int, p32 []float32, c2 []float64, ldc2 int) error {
	if e.readOnly {
		return ErrReadOnly
	}
	dim, d := e.dim, e.d
	if !e.f32 || len(p32) != dim*d {
		return fmt.Errorf("%w: UpdateExactRounded: %d float32 values for a %dx%d sample (float32 mode %v)", ErrShape, len(p32), dim, d, e.f32)
	}
	s := e.shards[e.owner[k]]
	w32 := s.protos32[s.col32(k, d):]
	switch {
	case d <= 12 && kernels.AB2S32Native(d, d):
		// The coefficients' float32 copies on the stack, zeroed at each
		// call: small ones where they fit.
		var b [2 * 12 * 12]float32
		updateLanes32(w32, s.ld32, c1, ldc1, p32, c2, ldc2, dim, d, b[:])
	case d <= lanes32MaxD && kernels.AB2S32Native(d, d):
		var b [2 * lanes32MaxD * lanes32MaxD]float32
		updateLanes32(w32, s.ld32, c1, ldc1, p32, c2, ldc2, dim, d, b[:])
	default:
		kernels.AB2F32F32(w32, s.ld32, w32, s.ld32, c1, ldc1, p32, d, c2, ldc2, dim, d, d)
	}
	e.stale[k] = true
	return nil
}

// lanes32MaxD bounds the d of UpdateExactRounded's float32 coefficient
// copies on the stack (kernels.AB2S32Native is false beyond 32 today).
const lanes32MaxD = 32

// updateLanes32 is UpdateExactRounded's update in float32 lanes:
// W += W K + P B with K = c1 − I (exactly: c1's diagonal is 1 plus a small
// K_ii), so that the float32 chain rounds the increment and W is rounded
// once. b holds the two d x d float32 copies.
func updateLanes32(w32 []float32, ld32 int, c1 []float64, ldc1 int, p32 []float32, c2 []float64, ldc2, dim, d int, b []float32) {
	b1, b2 := b[:d*d], b[d*d:2*d*d]
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			v := c1[i*ldc1+j]
			if i == j {
				v--
			}
			b1[i*d+j] = float32(v)
		}
	}
	kernels.Round32Rows(b2, d, c2, ldc2, d, d)
	kernels.AB2S32(w32, ld32, w32, ld32, b1, d, p32, d, b2, d, dim, d, d)
}

// Fresh brings the float64 prototype k up to date with its float32 copy
// after UpdateExact (the float32 values, exactly); otherwise it does
// nothing. A caller reads or writes a prototype through its Prototype
// view only when it is fresh.
func (e *Engine) Fresh(k int) {
	if !e.f32 || e.readOnly || !e.stale[k] {
		return
	}
	s := e.shards[e.owner[k]]
	w := e.protos[k]
	kernels.Widen32Rows(w.Data, w.Stride, s.protos32[s.col32(k, e.d):], s.ld32, e.dim, e.d)
	e.stale[k] = false
}

// Stale reports whether prototype k's float64 values are older than its
// float32 copy's (UpdateExact since the last Fresh).
func (e *Engine) Stale(k int) bool { return e.f32 && !e.readOnly && e.stale[k] }

// FreshAll is Fresh of every prototype.
func (e *Engine) FreshAll() {
	if !e.f32 || e.readOnly {
		return
	}
	for k, st := range e.stale {
		if st {
			e.Fresh(k)
		}
	}
}

// protoFinite reports whether prototype k's values are all finite: its
// float32 copy's where the float64 prototype is stale (read only: any
// worker may call it).
func (e *Engine) protoFinite(k int) bool {
	if e.readOnly || !e.f32 || !e.stale[k] {
		return e.protos[k].Validate() == nil
	}
	s := e.shards[e.owner[k]]
	w32 := s.protos32[s.col32(k, e.d):]
	for r := 0; r < e.dim; r++ {
		for _, v := range w32[r*s.ld32 : r*s.ld32+e.d] {
			if f := float64(v); !(math.Abs(f) <= math.MaxFloat64) {
				return false
			}
		}
	}
	return true
}
