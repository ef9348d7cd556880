package engine

import (
	"fmt"
	"math"

	"github.com/grlgq/grlgq/linalg"
)

// Nearest is the outcome of a nearest-prototype search (Engine.Nearest,
// Shared.Nearest): the nearest prototype (First) and, when asked for, the
// nearest prototype of another class (Second; -1 with DSecond = +Inf when
// every prototype has First's label), ties to the lowest index, as a scan
// of the distances Distances computes finds them, with those distances'
// bits.
type Nearest struct {
	First, Second   int
	DFirst, DSecond float64
}

// Nearest finds, for the sample P (dim x d), the nearest prototype and,
// if second, the nearest prototype whose label (labels[k], len p) differs
// from the nearest one's: what a classifier needs for its label, and with
// second for its margin. lambda is as for Distances.
//
// Distances are computed only where the bounds (see search.go) leave a
// candidate. With many prototypes (p >= pivotMinP) most projections are
// skipped too: a pivot index (pivots.go), built at the first call with
// relevances the metric covers and kept until a prototype changes, bounds
// every distance from below by the triangle inequality of a metric on
// the subspaces before any projection; only prototypes whose bound is
// below the best distance among the pivots are projected.
func (e *Engine) Nearest(r *Nearest, P *linalg.Dense, lambda []float64, labels []int, second bool) error {
	if e.closed {
		return ErrClosed
	}
	if len(labels) != e.p {
		return fmt.Errorf("%w: Nearest: %d labels for %d prototypes", ErrShape, len(labels), e.p)
	}
	if err := e.checkSet(P, "sample"); err != nil {
		return err
	}
	if err := e.checkLambda(lambda); err != nil {
		return err
	}
	if sh := e.from; sh != nil {
		sh.nearestSpace(e, lambda)
		s0 := e.stats
		defer func() { sh.count(s0, e.stats) }()
	}
	e.searchSpace()
	e.tick()
	e.stats.Searches++
	e.stats.Prototypes += int64(e.p)
	e.shadowed = false // float64 projections only
	if !e.prunable(lambda) {
		return e.nearestExhaustive(r, P, lambda, labels, second)
	}
	if pv := e.pivotsFor(lambda); pv != nil {
		ok, err := e.pivotBounds(pv, P, lambda, labels, second)
		if err != nil {
			return err
		}
		if !ok {
			return e.nearestExhaustive(r, P, lambda, labels, second)
		}
		if err := e.projectCand(P, lambda); err != nil {
			return e.nearestExhaustive(r, P, lambda, labels, second)
		}
		e.live = mergeAscending(e.live[:0], pv.pivAsc, e.cand)
		return e.settleNearest(r, lambda, labels, second, e.live)
	} else if !e.projectAndCheck(P, lambda, false) {
		return e.nearestExhaustive(r, P, lambda, labels, second)
	}
	return e.settleNearest(r, lambda, labels, second, e.all)
}

// nearestExhaustive is Nearest by Distances and a scan.
func (e *Engine) nearestExhaustive(r *Nearest, P *linalg.Dense, lambda []float64, labels []int, second bool) error {
	e.stats.Exhaustive++
	e.stats.Values += int64(e.p)
	if err := e.Distances(e.sdist, nil, P, lambda); err != nil {
		return err
	}
	for k := range e.tier {
		e.tier[k] = 3
		e.blo[k], e.bhi[k] = e.sdist[k], e.sdist[k]
	}
	return e.pickNearest(r, labels, second, nil)
}

// pickNearest scans the prototypes in tier 3 (all, or those of ks) for
// the nearest and, if second, the nearest of another label.
func (e *Engine) pickNearest(r *Nearest, labels []int, second bool, ks []int32) error {
	*r = Nearest{First: -1, Second: -1, DFirst: math.Inf(1), DSecond: math.Inf(1)}
	visit := func(k int) error {
		if e.tier[k] != 3 {
			return nil
		}
		dk := e.sdist[k]
		if !(dk <= math.MaxFloat64) {
			return fmt.Errorf("engine: %w: distance to prototype %d is %v", ErrNotFinite, k, dk)
		}
		if r.First < 0 || dk < r.DFirst {
			r.First, r.DFirst = k, dk
		}
		return nil
	}
	if err := e.forEach(ks, visit); err != nil {
		return err
	}
	if second {
		c := labels[r.First]
		_ = e.forEach(ks, func(k int) error {
			if e.tier[k] == 3 && labels[k] != c && (r.Second < 0 || e.sdist[k] < r.DSecond) {
				r.Second, r.DSecond = k, e.sdist[k]
			}
			return nil
		})
	}
	return nil
}

// forEach calls f for every prototype, or for those of ks, ascending.
func (e *Engine) forEach(ks []int32, f func(k int) error) error {
	if ks == nil {
		for k := 0; k < e.p; k++ {
			if err := f(k); err != nil {
				return err
			}
		}
		return nil
	}
	for _, k := range ks {
		if err := f(int(k)); err != nil {
			return err
		}
	}
	return nil
}

// threshold returns the distance no candidate may exceed in the current
// bounds: the least upper bound (first only), or with second the least
// upper bound among the prototypes whose label differs from that of the
// one with the least (the second least of the classes' least upper
// bounds: at least two classes have a prototype within it, so the nearest
// prototype and the nearest of another class are both within it), +Inf
// when every prototype has one label. ks holds every prototype with
// bounds (tier >= 1), in any order: which of two with the least upper
// bound is the first changes neither value (a tie of two labels makes b2
// that least bound whichever is first).
func (e *Engine) threshold(labels []int, second bool, ks []int32) float64 {
	b1, k1 := math.Inf(1), -1
	for _, k := range ks {
		if e.tier[k] >= 1 && (k1 < 0 || e.bhi[k] < b1) {
			b1, k1 = e.bhi[k], int(k)
		}
	}
	if !second || k1 < 0 {
		return b1
	}
	b2 := math.Inf(1)
	for _, k := range ks {
		if e.tier[k] >= 1 && labels[k] != labels[k1] {
			b2 = min(b2, e.bhi[k])
		}
	}
	return b2
}

// mergeAscending appends to dst the union of a and b (each ascending,
// disjoint), ascending.
func mergeAscending(dst, a, b []int32) []int32 {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if a[i] < b[j] {
			dst = append(dst, a[i])
			i++
		} else {
			dst = append(dst, b[j])
			j++
		}
	}
	dst = append(dst, a[i:]...)
	return append(dst, b[j:]...)
}

// settleNearest narrows the candidates (prototypes with bounds, tier >= 1,
// whose lower bound is within the threshold) by tiers 2 and 3 until the
// nearest one (and with second every candidate) is valued, then picks.
// live holds every prototype with bounds, ascending (all p, or a pruned
// search's pivots and candidates: the others are out).
func (e *Engine) settleNearest(r *Nearest, lambda []float64, labels []int, second bool, live []int32) error {
	for _, tier := range []uint8{2, 3} {
		b := e.threshold(labels, second, live)
		e.cand = e.cand[:0]
		open := 0
		for _, k := range live {
			if e.tier[k] >= 1 && e.blo[k] <= b {
				open++
				if e.tier[k] < tier {
					e.cand = append(e.cand, k)
				}
			}
		}
		if open == 1 && !second && tier == 2 {
			// One candidate: straight to its value.
			continue
		}
		var err error
		switch {
		case tier == 2 && e.d < gramMinDim:
			err = e.valueBestFirst(lambda, labels, second, live)
		case tier == 2:
			err = e.refine(lambda)
		default:
			err = e.valueCand(lambda)
		}
		if err != nil {
			return err
		}
	}
	return e.pickNearest(r, labels, second, live)
}

// valueBestFirst is tier 2 below gramMinDim, where it is the values
// themselves (refine), in two rounds: the chunk of candidates e.cand
// with the least lower bounds first, then the rest whose lower bound is
// within the threshold those exact distances leave. Where the lower
// bounds order the candidates (tier 1's is λ_min Σ sin²θ, within a few
// percent of the distance for small angles and even relevances) the
// nearest ones are in the first round and the second has little or
// nothing left: BenchmarkPredictSet's 1,000 prototypes value about 9 of
// 99 candidates. Where they do not, the second round values what refine
// would have. What it values has refine's bits; what it drops is out by
// its bound, as in any search (and tier 3 values any candidate still
// within the threshold afterwards).
//
// The first round is one chunk on the caller, whatever the workers: a
// second chunk handed to a worker took longer than both on the caller
// (refine's valuesSoloMax), and the values it adds are mostly ruled out
// by the first chunk's.
func (e *Engine) valueBestFirst(lambda []float64, labels []int, second bool, live []int32) error {
	const first = chunk
	if len(e.cand) <= first {
		return e.refine(lambda)
	}
	// The first chunk: the least (lower bound, index), by insertion into
	// a sorted array of chunk (a sort of all took 3 us of a query's 60).
	less := func(a, b int32) bool {
		return e.blo[a] < e.blo[b] || e.blo[a] == e.blo[b] && a < b
	}
	var best [first]int32
	n := 0
	for _, k := range e.cand {
		if n == first {
			if !less(k, best[first-1]) {
				continue
			}
			n--
		}
		i := n
		for ; i > 0 && less(k, best[i-1]); i-- {
			best[i] = best[i-1]
		}
		best[i] = k
		n++
	}
	rest := append(e.bestFirst[:0], e.cand...) // capacity p: no reallocation
	e.cand = append(e.cand[:0], best[:]...)
	if err := e.refine(lambda); err != nil {
		return err
	}
	b := e.threshold(labels, second, live)
	e.cand = e.cand[:0]
	for _, k := range rest {
		if e.tier[k] < 2 && e.blo[k] <= b {
			e.cand = append(e.cand, k)
		}
	}
	return e.refine(lambda)
}
