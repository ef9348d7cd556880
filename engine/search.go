package engine

import (
	"errors"
	"fmt"
	"math"

	"github.com/grlgq/grlgq/internal/cpu"
	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/svd"
)

// Pruned searches: the winners of a training step and the nearest classes
// of a prediction, with the prototypes and distances an exhaustive scan of
// Distances gives, bit for bit, but values (svd.Batch.Values) computed only
// for the prototypes that can still win.
//
// A search computes every projection Pᵀ W_k (the floor: nothing is known
// about a prototype before it), then narrows the candidates in tiers, each
// an interval that contains the distance Distances would compute (see
// bounds.go for the proofs):
//
//  1. from ‖Pᵀ W_k‖_F² (d² multiply-adds; wide: a factor π²/4 and the
//     spread of λ apart), every prototype;
//  2. from enclosures of the singular values by the Gram matrix and a
//     symmetric tridiagonal eigensolver (svd.Gram), the prototypes that
//     tier 1 did not rule out;
//  3. the values themselves (svd.Batch.Values, Distances' bits), the
//     prototypes whose tier-2 intervals overlap the best one's of their
//     group: the winners when the intervals leave a tie (within about
//     1e-12 of the distance), and any distance the caller needs and
//     cannot get otherwise.
//
// A prototype is ruled out only when its lower bound exceeds the upper
// bound of another prototype of its group (strictly: ties go to the lowest
// index, decided on the values). On any input the bounds do not cover
// (NaN or ±Inf in a projection, a negative relevance) a search computes
// every distance by Distances and scans them, so errors are Distances'
// too.

// Winners is the outcome of Engine.Winners for one sample: the nearest
// prototype of its class (Plus, index 0 of the arrays) and the nearest of
// another class (Minus, index 1), ties to the lowest index, as a scan of
// the distances Distances computes would find them.
type Winners struct {
	Plus, Minus int
	// Lo and Hi bound the winners' distances as Distances computes them.
	// Where Exact is set, Dist holds that distance, with Distances' bits
	// (its values were computed to settle a tie); otherwise the caller
	// gets it from the winner's singular values with those bits
	// (svd.Small.FactorizeValues) through Distance (geodesic) or, for
	// the engine's kind, DistanceKind.Value.
	Lo, Hi, Dist [2]float64
	Exact        [2]bool
}

// Stats counts the work of an engine's searches (Winners, Nearest) since
// it was made: how many prototypes they considered, and for how many of
// them values were computed by each route. Values skipped are the
// difference.
type Stats struct {
	Searches   int64 // calls
	Prototypes int64 // prototypes considered: p per call
	Enclosed   int64 // tier 2: singular values enclosed (svd.Gram)
	Values     int64 // tier 3: singular values computed (svd.Batch.Values)
	Exhaustive int64 // calls that computed every distance (input the bounds do not cover)
	Skipped    int64 // prototypes not even projected (Nearest's pivot bounds)
	// Reprojected counts the float64 projections of Winners with the
	// float32 shadow on (SetShadow32): prototypes whose float32 products
	// left them candidates, and the winners.
	Reprojected int64
	Ties        int64 // Winners' groups left with two or more candidates by the enclosures (tier 2), settled on values
}

// Stats returns the engine's search counts.
func (e *Engine) Stats() Stats { return e.stats }

// Distance returns Σ_i λ_i θ_i², θ_i = arccos(clamp(σ_i, 0, 1)), with the
// bits Distances computes from the same values σ (descending, len d) and
// relevances λ (len d), storing θ into theta unless it is nil: the
// geodesic distance (Geodesic.Value; Chordal.Value is the chordal one).
func Distance(theta, sigma, lambda []float64) float64 {
	return weightedAngles(theta, sigma, lambda)
}

// searchSpace allocates what the searches need, at their first call.
func (e *Engine) searchSpace() {
	if e.trace != nil {
		return
	}
	p, d := e.p, e.d
	e.trace = make([]float64, p)
	e.blo = make([]float64, p)
	e.bhi = make([]float64, p)
	e.tier = make([]uint8, p)
	e.group = make([]uint8, p)
	e.cand = make([]int32, 0, p)
	e.live = make([]int32, 0, p)
	e.bestFirst = make([]int32, 0, p)
	e.all = make([]int32, p)
	for k := range e.all {
		e.all[k] = int32(k)
	}
	e.sdist = make([]float64, p)
	e.vsig = make([]float64, chunk*d)
	e.vproj = linalg.AlignedSlice(chunk * d * d)
	e.plo = make([]float64, maxPivots)
	e.phi = make([]float64, maxPivots)
	e.ogram = make([]float64, d*d)
	for _, s := range e.shards {
		if s.gram == nil {
			s.gram = svd.NewGram(d)
			s.ga = make([]float64, wideChunk*d)
			s.gb = make([]float64, wideChunk*d)
			s.gproj = make([]float64, chunk*d*d)
			s.gmats = make([][]float64, wideChunk)
			s.vproj = linalg.AlignedSlice(chunk * d * d)
			s.vsig = make([]float64, chunk*d)
		}
		if s.sv == nil {
			s.sv = svd.NewBatch(d)
		}
	}
}

// lambdaOf returns prototype k's relevances.
func (e *Engine) lambdaOf(lambda []float64, k int) []float64 {
	if len(lambda) == e.d {
		return lambda
	}
	return lambda[k*e.d : (k+1)*e.d]
}

// project computes every projection (Projection(k) afterwards) and its
// tier-1 bounds: the first phase of a search, split over the workers like
// Distances. winners is set for Winners (training), which projects from
// the float32 shadow where it is on, and where tier 2 is the values of
// one svd.Batch call whatever tier 1 leaves (d < gramMinDim, p <= chunk:
// eth80's shape) sets bounds [0, +Inf] without traces (traceOnly), and
// settle2 values every prototype in that call: tier 1 could only drop
// lanes of it, and took 0.67 of a 10.3 us step; the traces alone, only a
// check for NaN and Inf there (which the values' call makes too), 2.5%.
func (e *Engine) project(P *linalg.Dense, lambda []float64, winners bool) {
	p32 := e.sampleF32(e.shards[0], P)
	e.shadowed = false
	if winners && e.shadow && e.callerAlone() && e.sampleShadow(P) {
		// Float32 products, bounds widened by their error (shadow.go).
		p32, e.shadowed = e.shadowSample(), true
		clear(e.exact64)
	}
	e.traceOnly = winners && e.d < gramMinDim && e.p <= chunk && !e.shadowed
	e.noTrace = winners && e.d >= gramMinDim
	e.training = winners
	e.job = job{kind: jobProject, p: P, lambda: lambda, p32: p32}
	e.run()
	e.job = job{}
}

// projectChunk is jobProject's chunk: prototypes lo..hi of shard s, with
// the workspace of ws.
func (e *Engine) projectChunk(ws, s *shard, P *linalg.Dense, lambda []float64, lo, hi int) {
	e.projectInto(s.proj[projOffset(lo-s.lo, e.d):], P, e.job.p32, lo, hi)
	for k := lo; k < hi; k++ {
		if e.traceOnly || e.noTrace && e.groupN[e.group[k]] >= 2 {
			// No trace: the values of every prototype follow in one
			// call (traceOnly), or tier 2 encloses every prototype of
			// a group of two or more (noTrace; tier 1 rules nothing out
			// in training, docs/bounds.md, and its trace was 3.5% of a
			// float32 yaleb-shape epoch). Either finds a NaN or Inf as
			// the trace would (Winners then searches exhaustively).
			e.tier[k], e.blo[k], e.bhi[k] = 1, 0, math.Inf(1)
			e.trace[k] = 0
			continue
		}
		e.tier[k], e.blo[k] = 1, 0
		e.boundTrace(k, lambda)
	}
}

// refine raises the prototypes e.cand to tier 2 (their singular values
// enclosed by svd.Gram) or, for d < gramMinDim, where the enclosures cost
// as much as the values, straight to tier 3 (the values), split over the
// workers in chunks of 8.
func (e *Engine) refine(lambda []float64) error {
	if len(e.cand) == 0 {
		return nil
	}
	if e.d < gramMinDim {
		e.stats.Values += int64(len(e.cand))
	} else {
		e.stats.Enclosed += int64(len(e.cand))
	}
	if len(e.cand) <= chunk || e.d < gramMinDim && len(e.cand) <= valuesSoloMax || e.callerAlone() {
		// One chunk (handing it to a worker would make the caller wait),
		// a few values, or the caller alone: the enclosures in calls of up to 32
		// (wideChunk), where svd.Gram runs the QL iterations of up to
		// 32 matrices at once on AVX-512.
		for _, s := range e.shards {
			s.err, s.errAt = nil, -1
		}
		step := chunk
		if e.d >= gramMinDim {
			step = wideChunk
		}
		for c0 := 0; c0 < len(e.cand); c0 += step {
			e.encloseChunk(e.shards[0], lambda, c0, min(c0+step, len(e.cand)))
		}
	} else {
		// Split: chunks of 8, or of 16 where there are more than 16
		// candidates to enclose (each worker's call then runs its QL
		// iterations at once on AVX-512, as on the caller alone).
		cs := chunk
		if e.d >= gramMinDim && len(e.cand) > 2*chunk {
			cs = 2 * chunk
		}
		e.job = job{kind: jobEnclose, lambda: lambda, n: len(e.cand), csize: cs}
		e.run()
		e.job = job{}
	}
	for _, k := range e.cand {
		if e.tier[k] == 3 && !(e.sdist[k] <= math.MaxFloat64) {
			return fmt.Errorf("engine: %w: distance to prototype %d is %v", ErrNotFinite, k, e.sdist[k])
		}
	}
	return e.firstErr()
}

// valuesSoloMax is the most candidates whose values (below gramMinDim)
// refine computes on the caller alone: on BenchmarkPredictSet (d = 5, two
// cores, Zen 5) sixteen took 4.1-4.7 us on the caller and 10 us split
// in two chunks (the worker started 1.4-1.8 us after the call and took
// 4.9-5.3 us for its eight, from caches the caller had filled).
const valuesSoloMax = 3 * chunk

// wideChunk is the most candidates of one svd.Gram call on the caller
// alone (refine): 32, which svd runs as four groups of 8 lanes through one
// QL run on AVX-512 (four runs of 8 elsewhere, as four calls would).
const wideChunk = 4 * chunk

// gramMinDim is the least d whose tier 2 is svd.Gram's enclosure: below,
// the values (svd.Batch.Values) cost about as much and settle the search
// at once. It depends on the kernels svd runs (the decision of
// internal/cpu, which svd follows too); BenchmarkGramEnclose, time per
// matrix of the enclosure over that of the values, eight matrices of
// random near-90° angles, on the Zen 3 machine (November 2026):
//
//   - AVX2: 0.9 at d = 5, 0.75 at 8, 0.64 at 10, 0.56 at 12. At d = 12
//     the one-worker epochs (BenchmarkEpoch and BenchmarkEpochReal,
//     mnist) were 6-8% faster enclosing than valuing, with no ties; at
//     d = 8 (random sets, D = 600, 10 classes) about 3.5% faster; at
//     d = 5 (eth80) no difference showed. So 8.
//   - generic (purego, arm64): 0.5 at d = 5, 0.42 at 8, 0.35 at 10; the
//     epochs at d = 5 no slower. So 5.
//   - AVX-512 (an 8-lane Jacobi; Gram runs the AVX2 kernels), on a Zen 5
//     machine (27 November 2026): 1.87 at d = 5, 1.29 at 8, 1.09 at 10,
//     0.88 at 12, 0.52 at 16. One-worker epochs (x-floor, three runs
//     each, alternated): d = 5 (eth80) 2.63-2.96 valuing, 3.03-3.33
//     enclosing; d = 8 (random sets, D = 600, 10 classes) 3.22-3.31
//     against 3.34-3.38; d = 10 2.76-2.82 either way; d = 12 (mnist)
//     2.85-3.11 against 2.44-2.75. So 11.
//
// (A variable for the tests, which set 1 to enclose at every d.)
var gramMinDim = gramMinDimFor(cpu.AVX512, cpu.AVX2)

// gramMinDimFor is gramMinDim for the kernel paths svd takes.
func gramMinDimFor(avx512, avx2 bool) int {
	switch {
	case avx512:
		return 11
	case avx2:
		return 8
	}
	return 5
}

// encloseChunk is jobEnclose's chunk: candidates c0..c1 of e.cand (at
// most 8, or wideChunk for the enclosures on the caller alone), their
// projections enclosed where they lie in one svd.Gram call (its groups of
// lanes filled), or for d < gramMinDim (at most 8) copied side by side
// into the workspace of ws and valued in one svd.Batch.Values call. It
// records the error of the lowest candidate that failed in ws.
func (e *Engine) encloseChunk(ws *shard, lambda []float64, c0, c1 int) {
	d, dd := e.d, e.d*e.d
	ks := e.cand[c0:c1]
	if d < gramMinDim && !e.anyShadow(ks) {
		a, lda, step := e.chunkProj(ks)
		if a == nil {
			for i, k := range ks {
				e.copyProj(ws.gproj[i*dd:(i+1)*dd], int(k))
			}
			a, lda, step = ws.gproj, d, dd
		}
		if err := ws.sv.Values(ws.ga, d, a, lda, step, len(ks)); err != nil {
			ws.batchFail(ks, err)
			return
		}
		e.weightedN(e.sdist, nil, ws.ga, lambda, 0, ks, len(ks))
		for _, k := range ks {
			e.blo[k], e.bhi[k], e.tier[k] = e.sdist[k], e.sdist[k], 3
		}
		return
	}
	mats := ws.gmats[:len(ks)]
	for i, k := range ks {
		mats[i] = e.projView(int(k))
	}
	if err := ws.gram.EncloseEach(ws.ga, ws.gb, d, mats, chunk*d); err != nil {
		// Not finite: where there were traces, project saw it first;
		// a winners' search without them (noTrace) sees it here.
		ws.batchFail(ks, err)
		return
	}
	for i, k32 := range ks {
		k := int(k32)
		a, b, lam := ws.ga[i*d:(i+1)*d], ws.gb[i*d:(i+1)*d], e.lambdaOf(lambda, k)
		var lo, hi float64
		if eps := e.slack(k); e.kind == Chordal {
			lo, hi = chordAngleBounds(a, b, lam, eps)
		} else {
			lo, hi = angleBounds(a, b, lam, eps)
		}
		if !(lo <= hi) && e.noTrace {
			// A projection beyond float64's range (σ² overflows): the
			// trace, which would have been Inf, is not there to say so.
			ws.fail(k, fmt.Errorf("engine: prototype %d: %w", k, ErrNotFinite))
		}
		// Keep the tighter of the two tiers' ends.
		e.blo[k], e.bhi[k] = max(lo, e.blo[k]), min(hi, e.bhi[k])
		e.tier[k] = 2
	}
}

// fail records err as the error of prototype k in ws if no lower
// prototype's error is there.
func (ws *shard) fail(k int, err error) {
	if ws.err == nil || k < ws.errAt {
		ws.err, ws.errAt = err, k
	}
}

// batchFail records the error of an svd batch call on the prototypes ks
// (its *svd.BatchError names the matrix) as that prototype's.
func (ws *shard) batchFail(ks []int32, err error) {
	var be *svd.BatchError
	i := 0
	if errors.As(err, &be) {
		i = be.Index
	}
	k := int(ks[i])
	ws.fail(k, fmt.Errorf("engine: prototype %d: %w", k, err))
}

// values computes the distances of the prototypes ks with Distances' bits
// into dist[k], on the caller: their projections copied side by side,
// svd.Batch.Values in groups of up to 8, weightedAngles.
func (e *Engine) values(dist []float64, ks []int32, lambda []float64) error {
	d, dd := e.d, e.d*e.d
	sv := e.shards[0].sv
	for i0 := 0; i0 < len(ks); i0 += chunk {
		g := ks[i0:min(i0+chunk, len(ks))]
		for i, k := range g {
			e.copyProj(e.vproj[i*dd:(i+1)*dd], int(k))
		}
		if err := sv.Values(e.vsig, d, e.vproj, d, dd, len(g)); err != nil {
			var be *svd.BatchError
			k := int(g[0])
			if errors.As(err, &be) {
				k = int(g[be.Index])
			}
			return fmt.Errorf("engine: prototype %d: %w", k, err)
		}
		e.weightedN(dist, nil, e.vsig, lambda, 0, g, len(g))
	}
	e.stats.Values += int64(len(ks))
	return nil
}

// SetExhaustive(true) makes the searches (Winners, Nearest) compute every
// distance (Distances and a scan) instead of pruning: the reference the
// pruned searches are tested against, with the same results. It is off
// for a new engine.
func (e *Engine) SetExhaustive(on bool) { e.exhaustive = on }

// prunable reports whether the bounds cover this call: relevances >= 0
// and not huge (every projection's trace finite is checked after
// project).
func (e *Engine) prunable(lambda []float64) bool {
	if e.exhaustive {
		return false
	}
	var sum float64
	for _, l := range lambda {
		if !(l >= 0) {
			return false
		}
		sum += l
	}
	// λ so large that a distance could overflow: Distances reports that
	// as an error, which a search that skips the prototype would not.
	return sum <= 0x1p1000
}

// Winners finds, for the sample P (dim x d) with label y, the nearest
// prototype with label y and the nearest with another label (labels[k]
// the label of prototype k, len p; lambda as for Distances), ties to the
// lowest index: the prototypes a scan of the distances Distances computes
// finds, whose distances (where w.Exact) have Distances' bits. Afterwards
// Projection(k) returns M_k = Pᵀ W_k of every prototype. It returns an
// error when y has no prototype or every prototype has label y.
func (e *Engine) Winners(w *Winners, P *linalg.Dense, lambda []float64, labels []int, y int) error {
	return e.winners(w, P, lambda, labels, y)
}

// WinnersRounded is Winners with the sample's float32 rounding given:
// p32[i*d+j] = float32(P(i, j)) for i < dim, j < d (kernels.Round32Rows
// with stride d), which a float32 engine (SetFloat32) and the float32
// shadow (SetShadow32) read instead of rounding P at this search. A
// sample the search reads for the first time comes from memory, and its
// rounding is then a pass of its own (8-10% of a float32 mnist-shape
// epoch); a trainer that visits the same samples every epoch rounds each
// once. The results are Winners' bit for bit when p32 is P's rounding
// (the caller's promise: the search does not read P to check it); p32 =
// nil is Winners, and a p32 of the wrong length an error.
func (e *Engine) WinnersRounded(w *Winners, P *linalg.Dense, p32 []float32, lambda []float64, labels []int, y int) error {
	if p32 != nil && len(p32) != e.dim*e.d {
		return fmt.Errorf("%w: WinnersRounded: %d float32 values for a %dx%d sample", ErrShape, len(p32), e.dim, e.d)
	}
	e.given32 = p32
	defer func() { e.given32 = nil }() // also if a caller recovers a panic
	return e.winners(w, P, lambda, labels, y)
}

func (e *Engine) winners(w *Winners, P *linalg.Dense, lambda []float64, labels []int, y int) error {
	if e.closed {
		return ErrClosed
	}
	if len(labels) != e.p {
		return fmt.Errorf("%w: Winners: %d labels for %d prototypes", ErrShape, len(labels), e.p)
	}
	if err := e.checkSet(P, "sample"); err != nil {
		return err
	}
	if err := e.checkLambda(lambda); err != nil {
		return err
	}
	e.searchSpace()
	e.tick()
	e.stats.Searches++
	e.stats.Prototypes += int64(e.p)
	// Each prototype's group: 0 for label y (W⁺'s), 1 for the others.
	e.groupN = [2]int{}
	for k, l := range labels {
		e.group[k] = 0
		if l != y {
			e.group[k] = 1
		}
		e.groupN[e.group[k]]++
	}
	if !e.prunable(lambda) || !e.projectAndCheck(P, lambda, true) {
		return e.winnersExhaustive(w, P, lambda)
	}
	err := e.settle2(w, lambda)
	if err != nil && (e.traceOnly || e.noTrace) {
		// Without traces a projection that is not finite shows here
		// first, as the values' or the enclosures' error: the exhaustive
		// search gives Distances' outcome (its error) as where a trace
		// found it.
		return e.winnersExhaustive(w, P, lambda)
	}
	return err
}

// projectAndCheck runs the first phase and reports whether every trace is
// finite.
func (e *Engine) projectAndCheck(P *linalg.Dense, lambda []float64, winners bool) bool {
	e.project(P, lambda, winners)
	for _, t := range e.trace {
		if !(t <= math.MaxFloat64) {
			return false
		}
	}
	return true
}

// winnersExhaustive is Winners by Distances and a scan.
func (e *Engine) winnersExhaustive(w *Winners, P *linalg.Dense, lambda []float64) error {
	e.stats.Exhaustive++
	e.stats.Values += int64(e.p)
	if e.sdist == nil {
		e.sdist = make([]float64, e.p)
	}
	if err := e.Distances(e.sdist, nil, P, lambda); err != nil {
		return err
	}
	*w = Winners{Plus: -1, Minus: -1}
	best := [2]float64{math.Inf(1), math.Inf(1)}
	for k, dk := range e.sdist {
		if !(dk <= math.MaxFloat64) {
			return fmt.Errorf("engine: %w: distance to prototype %d is %v", ErrNotFinite, k, dk)
		}
		g := int(e.group[k])
		if dk < best[g] {
			best[g] = dk
			if g == 0 {
				w.Plus = k
			} else {
				w.Minus = k
			}
		}
	}
	if w.Plus < 0 || w.Minus < 0 {
		return errNoGroup
	}
	for g, k := range [2]int{w.Plus, w.Minus} {
		dk := e.sdist[k]
		w.Lo[g], w.Hi[g], w.Dist[g], w.Exact[g] = dk, dk, dk, true
	}
	return nil
}

// ExactDistance returns the distance of prototype k to the sample of the
// last search (Winners, Nearest), from its projection, with the bits of
// Distances; lambda as for that search.
func (e *Engine) ExactDistance(k int, lambda []float64) (float64, error) {
	if e.closed {
		return 0, ErrClosed
	}
	if k < 0 || k >= e.p || e.sdist == nil {
		return 0, fmt.Errorf("%w: ExactDistance(%d) of %d prototypes, or before a search", ErrShape, k, e.p)
	}
	if e.tier[k] == 3 {
		return e.sdist[k], nil
	}
	e.cand = append(e.cand[:0], int32(k))
	if err := e.valueCand(lambda); err != nil {
		return 0, err
	}
	return e.sdist[k], nil
}

// errNoGroup: a search's group has no prototype.
var errNoGroup = errors.New("engine: a group of the search has no prototype")

// ErrNoGroup reports a search whose class, or every other class, has no
// prototype.
var ErrNoGroup = errNoGroup

// settle2 finds the nearest prototype of each of the two groups from the
// tier-1 bounds of project, raising to tier 2 (refine) and to tier 3
// (values) only the prototypes of a group whose bounds leave two or more
// candidates.
func (e *Engine) settle2(w *Winners, lambda []float64) error {
	var count [2]int
	for k := 0; k < e.p; k++ {
		count[int(e.group[k])]++
	}
	if count[0] == 0 || count[1] == 0 {
		return errNoGroup
	}
	// Tier 2, then tier 3, for the open candidates of groups with two or
	// more of them.
	for _, tier := range []uint8{2, 3} {
		best, open := e.open2()
		if tier == 3 && e.shadowed {
			// Bounds from float32 products (shadow.go): the candidates of
			// groups still open, projected again in float64 and enclosed
			// without the widening, before anything is valued.
			e.cand = e.cand[:0]
			for k := 0; k < e.p; k++ {
				if g := int(e.group[k]); open[g] > 1 && e.blo[k] <= best[g] {
					e.cand = append(e.cand, int32(k))
				}
			}
			if err := e.exactify(lambda); err != nil {
				return err
			}
			best, open = e.open2()
		}
		if tier == 3 && e.d >= gramMinDim {
			// Groups whose enclosures left a tie (within their width,
			// about 1e-12 of the distance): settled on the values.
			for _, o := range open {
				if o > 1 {
					e.stats.Ties++
				}
			}
		}
		e.cand = e.cand[:0]
		for k := 0; k < e.p; k++ {
			g := int(e.group[k])
			if open[g] > 1 && e.blo[k] <= best[g] && e.tier[k] < tier || e.traceOnly && e.tier[k] < 3 {
				e.cand = append(e.cand, int32(k))
			}
		}
		if tier == 2 && e.d < gramMinDim && !e.shadowed && len(e.cand)%chunk != 0 {
			// Tier 2 is the values here, 8 matrices a Batch.Values call:
			// a group's only prototype, its winner whatever the bounds,
			// takes a lane the last call leaves free, so that its
			// distance comes exact (the caller then needs no values of
			// it: svd.Pair.FactorizeValues' second run, for eth80's W⁺
			// about a third of a floor).
			for k := 0; k < e.p && len(e.cand)%chunk != 0; k++ {
				if count[int(e.group[k])] == 1 && e.tier[k] < 3 {
					e.cand = append(e.cand, int32(k))
				}
			}
		}
		var err error
		if tier == 2 {
			err = e.refine(lambda)
		} else {
			err = e.valueCand(lambda)
		}
		if err != nil {
			return err
		}
	}
	// Each group's candidates are now one, or all valued.
	best, _ := e.open2()
	win := [2]int{-1, -1}
	var vbest [2]float64
	for k := 0; k < e.p; k++ { // ascending: ties keep the lowest index
		g := int(e.group[k])
		if !(e.blo[k] <= best[g]) {
			continue
		}
		dk := e.blo[k]
		if e.tier[k] == 3 {
			dk = e.sdist[k]
		}
		if win[g] < 0 || dk < vbest[g] {
			vbest[g], win[g] = dk, k
		}
	}
	*w = Winners{Plus: win[0], Minus: win[1]}
	for g, k := range win {
		if e.shadowed && !e.exact64[k] {
			// Its float64 product comes with Projection(k): on the
			// goroutine that factorises it (the trainer's tasks).
			e.stats.Reprojected++
		}
		w.Lo[g], w.Hi[g] = e.blo[k], e.bhi[k]
		if e.tier[k] == 3 {
			w.Dist[g], w.Exact[g] = e.sdist[k], true
		}
	}
	return nil
}

// open2 returns each group's least upper bound and how many prototypes
// of the group have a lower bound below it (the candidates).
func (e *Engine) open2() (best [2]float64, open [2]int) {
	best = [2]float64{math.Inf(1), math.Inf(1)}
	for k := 0; k < e.p; k++ {
		g := int(e.group[k])
		best[g] = min(best[g], e.bhi[k])
	}
	for k := 0; k < e.p; k++ {
		if g := int(e.group[k]); e.blo[k] <= best[g] {
			open[g]++
		}
	}
	return best, open
}

// valueCand raises the candidates e.cand to tier 3: their distances, with
// Distances' bits, into e.sdist, and bounds equal to them.
func (e *Engine) valueCand(lambda []float64) error {
	if err := e.values(e.sdist, e.cand, lambda); err != nil {
		return err
	}
	for _, k := range e.cand {
		dk := e.sdist[k]
		if !(dk <= math.MaxFloat64) {
			return fmt.Errorf("engine: %w: distance to prototype %d is %v", ErrNotFinite, k, dk)
		}
		e.blo[k], e.bhi[k], e.tier[k] = dk, dk, 3
	}
	return nil
}

// chunkProj returns the projections of the candidates ks where they lie,
// as svd.Batch.Values takes them (matrix i at a[i*step], row stride lda),
// when they are consecutive prototypes of one chunk of one shard (the
// projections side by side in its d x 8d block: eth80's eight prototypes
// in one search); otherwise nil, and the caller copies them. Values reads
// the same numbers either way, so the bits are the same.
func (e *Engine) chunkProj(ks []int32) (a []float64, lda, step int) {
	k0 := int(ks[0])
	for i, k := range ks {
		if int(k) != k0+i {
			return nil, 0, 0
		}
	}
	s := e.shards[e.owner[k0]]
	j0, last := k0-s.lo, k0+len(ks)-1
	if last >= s.hi || j0/chunk != (last-s.lo)/chunk {
		return nil, 0, 0
	}
	d := e.d
	o := projOffset(j0, d)
	n := (len(ks)-1)*d + (d-1)*chunk*d + d
	return s.proj[o : o+n : o+n], chunk * d, d
}
