package engine

import (
	"cmp"
	"math"
	"slices"

	"github.com/grlgq/grlgq/kernels"
	"github.com/grlgq/grlgq/linalg"
)

// A pivot index bounds every prototype's distance to a sample from below
// before any projection, by the triangle inequality of a metric on the
// subspaces (LAESA: a few prototypes are pivots, and the metric between
// each pivot and every prototype is computed once).
//
// The metric. For weights 0 <= m_1 <= ... <= m_d on the principal angles
// in ascending order, ρ_m(X, Y) = √(Σ_j m_j θ_j(X, Y)²) is a symmetric
// gauge function of the angles (a norm of the angle vector that does not
// depend on their order or signs: the weight grows with the angle), hence
// a metric on the Grassmannian (Qiu, Zhang and Li, SIAM J. Matrix Anal.
// Appl. 27, 2005: every symmetric gauge function of the principal angles
// is a unitarily invariant metric). With m_j = min_{i >= j} λ_i (over every
// prototype's relevances), m <= λ entrywise, so the distance Σ_j λ_j θ_j²
// is at least ρ_m². For a pivot C and a prototype W:
//
//	ρ_m(P, W) >= max(ρ_m(P, C) − ρ_m(C, W), ρ_m(C, W) − ρ_m(P, C)).
//
// Rounding. The metric is of the exact subspaces; what is computed are
// singular values σ̂ of fl(Aᵀ B) for bases A, B that are orthonormal only
// to ε_A, ε_B (‖AᵀA − I‖_2 <= ε_A, measured). The exact cosines of the
// angles are then within Δσ = 8 d u σ̂_1 (twice svd's contract) + γ_D d
// (1 + ε_A)(1 + ε_B) (the product's rounding: ‖fl(AᵀB) − AᵀB‖_2 <=
// γ_D ‖A‖_F ‖B‖_F) + 2.01 (ε_A + ε_B) (the bases' departure from
// orthonormal: σ(AᵀB) is cos θ times factors within (1 ± ε)) of σ̂, and an
// angle within δ = π √(Δσ/2) + 2 εA of the computed one (|arccos a −
// arccos b| <= arccos(1 − |a − b|) <= π √(|a − b|/2) on [0, 1], and εA for
// each kernels.Acos, at its largest: acosErrMax). So ρ_m lies within δ √(Σ m) of the value of the
// computed angles, and the computed distance d̂ that Distances gives is at
// least (ρ_m(P, W) − δ √(Σ m))² (its angles within δ of the exact ones,
// each weighted by λ_j >= m_j). Every end is rounded outwards.

// PivotMinP is the least number of prototypes for which Nearest builds a
// pivot index and skips projections: below it every projection is cheap
// enough to compute.
const PivotMinP = 64

const pivotMinP = PivotMinP

// maxPivots caps the pivots buildPivots chooses (sqrt(p) of them
// otherwise), of which a query uses the first pivotCount.
const maxPivots = 64

// pivotIndex is the LAESA table of an engine's prototypes for weights m.
type pivotIndex struct {
	m   []float64 // metric weights, ascending angles, nondecreasing
	msq float64   // √(Σ m), rounded up
	piv []int32   // the pivot prototypes
	// pivAsc: piv ascending.
	pivAsc []int32
	np     int    // the table's row length: len(piv) once built
	isP    []bool // isP[k]: prototype k is a pivot
	// ent[k*np:(k+1)*np]: prototype k's bounds on ρ_m(C_i, W_k) for
	// every pivot i, by ascending upper end: the order in which a query
	// tries them on prototype k (the bound is a maximum over all pivots,
	// whatever the order), the nearest pivot, of the prototype's own
	// cluster, first: it rules the prototype out at once when the query
	// is far from that cluster.
	ent []pivEntry
	// The prototypes (not pivots) by their first entry's pivot, a group
	// per pivot: group i is gmem[gcut[i]:gcut[i+1]] (ascending), and
	// glo[i], ghi[i] are the least lower end and the greatest upper end
	// of its members' first entries. A query far from pivot i rules out
	// the whole group in one comparison (pivotBounds), so that it reads
	// the rows of the members of the groups near it only.
	gmem     []int32
	gcut     []int32
	glo, ghi []float64
	eps      []float64 // p: ‖W_kᵀ W_k − I‖_2 <= eps[k]
	epsMax   float64   // the largest eps
	// data: the pivots' columns side by side, in the order of piv
	// (dim x ld): a query projects them from this contiguous copy by one
	// call, not from the prototypes' storage, where the pivots lie in as
	// many blocks (or, in an Engine's wide shard matrix, a few bytes in
	// each of dim cache lines and as many memory pages).
	data []float64
	ld   int

	// kind: the metric's angles are θ (Geodesic) or sin θ (Chordal).
	kind DistanceKind
}

// pivEntry bounds the metric between a prototype and pivot i: lo <= ρ_m <=
// hi.
type pivEntry struct {
	lo, hi float64
	i      int32
}

// A pivot index is read-only once built (a Shared's serves every caller);
// a query's scratch is the engine's: e.plo, e.phi (ρ_m(P, C_i) intervals),
// e.ogram (d x d).

// metricWeights writes m_j = min over the relevances (lambda: one vector
// of d, or one per prototype) of λ_i for i >= j into m.
func metricWeights(m, lambda []float64, d int) {
	for j := range m {
		m[j] = math.Inf(1)
	}
	for o := 0; o < len(lambda); o += d {
		l := lambda[o : o+d]
		run := math.Inf(1)
		for j := d - 1; j >= 0; j-- {
			run = min(run, l[j])
			m[j] = min(m[j], run)
		}
	}
}

// pivotsFor returns the engine's pivot index, built at the first call (an
// Engine's; a Shared's workspaces are handed the Shared's), if p >=
// pivotMinP and its weights are at most those of lambda (else nil; also
// after a view of the prototypes was handed out).
func (e *Engine) pivotsFor(lambda []float64) *pivotIndex {
	if e.p < pivotMinP || e.pivOff || e.f32 {
		return nil // float32 mode: the pivots' triangle inequality is proven for float64 products only
	}
	d := e.d
	if e.piv == nil && e.pivBuild {
		e.piv = e.buildPivots(lambda)
		e.pivBuild = e.piv != nil
	}
	pv := e.piv
	if pv == nil || pv.kind != e.kind {
		return nil
	}
	// The index's weights must stay below this call's.
	var ok = true
	for o := 0; o < len(lambda) && ok; o += d {
		run := math.Inf(1)
		for j := d - 1; j >= 0; j-- {
			run = min(run, lambda[o+j])
			if pv.m[j] > run {
				ok = false
				break
			}
		}
	}
	if !ok {
		return nil
	}
	return pv
}

// orthoError returns an upper bound on ‖AᵀA − I‖_2 for the dim x d basis
// a: ‖fl(AᵀA) − I‖_F plus the product's rounding γ_D d (1 + ...), with
// scratch g (d x d).
func orthoError(g []float64, a *linalg.Dense, dim, d int) float64 {
	kernels.AtB(g, d, a.Data, a.Stride, a.Data, a.Stride, dim, d, d)
	var f float64
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			v := g[i*d+j]
			if i == j {
				v--
			}
			f += v * v
		}
	}
	gd := float64(dim+2) * ur * float64(d)
	return up(math.Sqrt(f), 2*d*d) + gd*(1+math.Sqrt(f)) + 0x1p-1000
}

// angleUncertainty returns δ for a pair whose computed values have
// largest sv1 and whose bases are orthonormal to ea and eb (see above).
func (e *Engine) angleUncertainty(sv1, ea, eb float64) float64 {
	d := float64(e.d)
	ds := 8*d*ur*sv1 + float64(e.dim+2)*ur*d*(1+ea)*(1+eb) + 2.01*(ea+eb)
	return up(math.Pi*math.Sqrt(ds/2), 4) + 2*acosErrMax
}

// rhoBounds returns bounds on ρ_m of the exact subspaces from computed
// values sv (descending) with angle uncertainty delta.
func rhoBounds(sv, m []float64, delta float64) (lo, hi float64) {
	var slo, shi float64
	for j, c := range sv {
		t := kernels.Acos(min(max(c, 0), 1))
		tl, th := max(t-delta, 0), t+delta
		slo += m[j] * tl * tl
		shi += m[j] * th * th
	}
	n := 2*len(sv) + 4
	return max(down(math.Sqrt(max(down(slo, n), 0)), 2), 0), up(math.Sqrt(up(shi, n)), 2)
}

// buildPivots chooses up to sqrt(p) (at most maxPivots) pivots farthest
// first (prototype 0, then the prototype whose least lower bound to the
// pivots so far is the largest), fills the table from their exact
// singular values against every prototype, and keeps the first
// pivotCount of them. It returns nil if a value is not finite.
func (e *Engine) buildPivots(lambda []float64) *pivotIndex {
	p, d := e.p, e.d
	np := min(max(int(math.Sqrt(float64(p))), 1), maxPivots)
	pv := &pivotIndex{
		kind: e.kind,
		np:   np,
		m:    make([]float64, d),
		isP:  make([]bool, p),
		ent:  make([]pivEntry, np*p),
		eps:  make([]float64, p),
	}
	sig := make([]float64, p*d)
	metricWeights(pv.m, lambda, d)
	var ms float64
	for _, v := range pv.m {
		ms += v
	}
	pv.msq = up(math.Sqrt(up(ms, d)), 2)
	for k := 0; k < p; k++ {
		pv.eps[k] = orthoError(e.ogram, e.protos[k], e.dim, d)
		pv.epsMax = max(pv.epsMax, pv.eps[k])
	}
	least := make([]float64, p) // least lower bound of prototype k to the pivots
	for k := range least {
		least[k] = math.Inf(1)
	}
	next := 0
	for i := 0; i < np; i++ {
		c := next
		pv.piv = append(pv.piv, int32(c))
		pv.isP[c] = true
		if !e.sigmasAll(sig, e.protos[c]) {
			return nil
		}
		for k := 0; k < p; k++ {
			sv := sig[k*d : (k+1)*d]
			lo, hi := e.rhoOf(sv, pv.m, e.uncertainty(sv[0], pv.eps[c], pv.eps[k]))
			pv.ent[k*pv.np+i] = pivEntry{lo: lo, hi: hi, i: int32(i)}
			least[k] = min(least[k], lo)
		}
		next = -1
		for k := 0; k < p; k++ {
			if !pv.isP[k] && (next < 0 || least[k] > least[next]) {
				next = k
			}
		}
		if next < 0 {
			break
		}
	}
	if n := pivotCount(pv, p); n < np {
		// Keep the first n (a farthest-first choice of n; fewer than
		// chosen, or fewer prototypes than np): the table's rows
		// shortened to them.
		for _, c := range pv.piv[n:] {
			pv.isP[c] = false
		}
		pv.piv = pv.piv[:n]
		ent := make([]pivEntry, n*p)
		for k := 0; k < p; k++ {
			copy(ent[k*n:(k+1)*n], pv.ent[k*np:k*np+n])
		}
		pv.ent, pv.np, np = ent, n, n
	}
	n := len(pv.piv)
	pv.pivAsc = slices.Sorted(slices.Values(pv.piv))
	pv.ld = kernels.Stride(n * d)
	pv.data = linalg.AlignedSlice(e.dim * pv.ld)
	for i, c := range pv.piv {
		w := e.protos[c]
		for r := 0; r < e.dim; r++ {
			copy(pv.data[r*pv.ld+i*d:r*pv.ld+(i+1)*d], w.Data[r*w.Stride:r*w.Stride+d])
		}
	}
	for k := 0; k < p; k++ {
		slices.SortStableFunc(pv.ent[k*np:k*np+n], func(a, b pivEntry) int { return cmp.Compare(a.hi, b.hi) })
	}
	pv.group(p)
	return pv
}

// group sorts the prototypes that are not pivots into pv's groups by the
// pivot of their first entry.
func (pv *pivotIndex) group(p int) {
	n := len(pv.piv)
	pv.gcut = make([]int32, n+1)
	pv.glo, pv.ghi = make([]float64, n), make([]float64, n)
	for i := range pv.glo {
		pv.glo[i], pv.ghi[i] = math.Inf(1), math.Inf(-1)
	}
	for k := 0; k < p; k++ {
		if !pv.isP[k] {
			t := pv.ent[k*pv.np]
			pv.gcut[t.i+1]++
			pv.glo[t.i], pv.ghi[t.i] = min(pv.glo[t.i], t.lo), max(pv.ghi[t.i], t.hi)
		}
	}
	for i := 0; i < n; i++ {
		pv.gcut[i+1] += pv.gcut[i]
	}
	pv.gmem = make([]int32, pv.gcut[n])
	at := slices.Clone(pv.gcut[:n])
	for k := 0; k < p; k++ {
		if !pv.isP[k] {
			i := pv.ent[k*pv.np].i
			pv.gmem[at[i]] = int32(k)
			at[i]++
		}
	}
}

// pivotCount returns how many of the index's pivots (farthest first,
// the table's rows in that order) a query should use: the n that
// minimises the estimated cost of a query, n pivots valued plus the
// candidates they leave to project, in units of one projection and its
// value (a pivot's and a candidate's cost about the same). The estimate
// takes up to pivotProxies prototypes that are not pivots, evenly
// spaced, as queries (a query near a prototype is the usual case, and
// the table already holds their metric to every pivot): for each, its
// threshold is its least upper bound to the first n pivots (the search's
// threshold is the distance of the nearest pivot), and a prototype is a
// candidate where no pivot's lower bound exceeds it, as in pivotBounds
// without the rounding slack. Each pivot beyond the clusters of the
// prototypes rules little out and costs a value on every query; where
// the bounds rule nothing out (subspaces in general position, all
// near 90° apart) it keeps one. Ties go to fewer pivots. The table is
// built from the model alone, so the choice depends on no query.
func pivotCount(pv *pivotIndex, p int) int {
	n, np := len(pv.piv), pv.np
	pos := make([]int, p) // the order of a pivot, n for the others
	for k := range pos {
		pos[k] = n
	}
	for i, c := range pv.piv {
		pos[c] = i
	}
	var prox []int
	if free := p - n; free > 0 {
		step := max(free/pivotProxies, 1)
		for k, seen := 0, 0; k < p && len(prox) < pivotProxies; k++ {
			if pos[k] < n {
				continue
			}
			if seen%step == 0 {
				prox = append(prox, k)
			}
			seen++
		}
	}
	if len(prox) == 0 {
		return n
	}
	cand := make([]int, n)    // cand[i]: the proxies' candidates with the first i+1 pivots
	row := make([]float64, p) // a proxy's lower bounds so far
	for _, j := range prox {
		clear(row)
		b := math.Inf(1) // its threshold so far
		for i := 0; i < n; i++ {
			q := pv.ent[j*np+i]
			b = min(b, q.hi)
			for k := range row {
				t := pv.ent[k*np+i]
				row[k] = max(row[k], q.lo-t.hi, t.lo-q.hi)
				if row[k] <= b && pos[k] > i {
					cand[i]++
				}
			}
		}
	}
	best, bestCost := n, math.Inf(1)
	for i, c := range cand {
		if cost := float64(i+1) + float64(c)/float64(len(prox)); cost < bestCost {
			best, bestCost = i+1, cost
		}
	}
	return best
}

// pivotProxies is the most prototypes pivotCount takes as queries.
const pivotProxies = 128

// sigmasAll writes the singular values of Cᵀ W_k for every prototype k
// into sig (p x d), through the projections of a search (project) and
// svd.Batch.Values; it reports false for a value that is not finite.
func (e *Engine) sigmasAll(sig []float64, C *linalg.Dense) bool {
	e.project(C, e.onesLambda(), false)
	d, dd := e.d, e.d*e.d
	sv := e.shards[0].sv
	for k0 := 0; k0 < e.p; k0 += chunk {
		k1 := min(k0+chunk, e.p)
		for k := k0; k < k1; k++ {
			e.copyProj(e.vproj[(k-k0)*dd:(k-k0+1)*dd], k)
		}
		if sv.Values(sig[k0*d:], d, e.vproj, d, dd, k1-k0) != nil {
			return false
		}
	}
	return true
}

// onesLambda returns relevances 1/d (for the tier-1 bounds project
// computes on the way; their values do not matter here).
func (e *Engine) onesLambda() []float64 {
	if e.lones == nil {
		e.lones = make([]float64, e.d)
		for i := range e.lones {
			e.lones[i] = 1 / float64(e.d)
		}
	}
	return e.lones
}

// pivotBounds starts a pruned Nearest: the pivots' distances (valued,
// tier 3) and metric intervals to P, lower bounds on every other
// prototype's distance from them (tier 0), and in e.cand the prototypes
// whose bound is within the threshold. It reports false when the input is
// not covered (a value not finite).
func (e *Engine) pivotBounds(pv *pivotIndex, P *linalg.Dense, lambda []float64, labels []int, second bool) (bool, error) {
	p, d := e.p, e.d
	eP := orthoError(e.ogram, P, e.dim, d)
	if !(eP <= 1e-3) {
		return false, nil // far from orthonormal: the bounds would say nothing
	}
	clear(e.tier)
	clear(e.blo)
	for k := range e.bhi {
		e.bhi[k] = math.Inf(1)
	}
	// The pivots: projections, values, distances, metric to P
	// (pivotChunk), split between the workers like any search's chunks.
	np := len(pv.piv)
	for _, s := range e.shards {
		s.pivFail = false
	}
	if np <= chunk || len(e.shards) == 1 {
		for c0 := 0; c0 < np; c0 += chunk {
			e.pivotChunk(e.shards[0], pv, P, lambda, eP, c0, min(c0+chunk, np))
		}
	} else {
		e.job = job{kind: jobPivots, p: P, lambda: lambda, n: np, piv: pv, eP: eP}
		e.run()
		e.job = job{}
	}
	for _, s := range e.shards {
		if s.pivFail {
			return false, nil
		}
	}
	e.stats.Values += int64(len(pv.piv))
	// The candidates: the others whose lower bound (from the pivots) is
	// within the threshold of the pivots' distances.
	b, cut := e.pivotCut(pv, labels, second, eP)
	plo, phi := e.plo, e.phi
	e.cand = e.cand[:0]
	sorted := true
	for i := 0; i < np; i++ {
		// Every member k of group i has L >= plo[i] − hi_k >= plo[i] −
		// ghi[i] and L >= lo_k − phi[i] >= glo[i] − phi[i] (a rounded
		// difference is monotone in either operand): out if either is
		// above cut.early.
		if plo[i]-pv.ghi[i] > cut.early || pv.glo[i]-phi[i] > cut.early {
			continue
		}
		for _, k32 := range pv.gmem[pv.gcut[i]:pv.gcut[i+1]] {
			k := int(k32)
			lo, out := cut.bound(pv, k, plo, phi)
			if out {
				continue
			}
			e.blo[k] = lo
			if lo <= b {
				if n := len(e.cand); n > 0 && e.cand[n-1] > k32 {
					sorted = false
				}
				e.cand = append(e.cand, k32)
			}
		}
	}
	if !sorted {
		slices.Sort(e.cand) // groups whose prototypes interleave
	}
	e.stats.Skipped += int64(p - len(pv.piv) - len(e.cand))
	return true, nil
}

// pivotLimit is what pivotBounds rules a prototype out by: its greatest
// lower bound L on the metric from the pivots above need (the metric of
// a distance at the threshold, widened by the query's slack).
type pivotLimit struct {
	need, early, slack float64
	rnd                int // roundings of the lower bound L²
}

// pivotCut returns the threshold of the pivots' distances (threshold) and
// the limit on the metric it sets.
func (e *Engine) pivotCut(pv *pivotIndex, labels []int, second bool, eP float64) (float64, pivotLimit) {
	b := e.threshold(labels, second, pv.piv)
	var c pivotLimit
	c.slack = up(e.uncertainty(1.01, eP, pv.epsMax)*pv.msq, 2)
	c.need = up(math.Sqrt(b), 2) + c.slack // L above it: L² − ... > b
	c.rnd = 2
	if e.kind == Chordal {
		// d̂ is within the relative γ_{d+4} of the sum it bounds
		// (chordal.go).
		c.rnd = e.d + 8
		c.need = up(math.Sqrt(up(b, c.rnd)), 2) + c.slack
	}
	// L > early implies down(L, 2) > need (early is need raised by more
	// than down's 4u and its two roundings): a prototype is out at the
	// first pivot that takes L above it, and the decision at the end,
	// down(L, 2) > need for the largest L, is the one the whole maximum
	// would give (down is nondecreasing and L only grows). Every bound is
	// finite (buildPivots and pivotChunk refuse values that are not), so
	// the comparisons below are the maximum's.
	c.early = up(c.need, 8)
	return b, c
}

// bound returns prototype k's lower bound on the distance from the
// pivots' intervals plo, phi to the query, or out if the bound rules it
// out (down(L, 2) > need): L is the maximum over k's entries, tried
// first to last (the nearest pivot first) until one takes it above
// early.
func (c *pivotLimit) bound(pv *pivotIndex, k int, plo, phi []float64) (lo float64, out bool) {
	row := pv.ent[k*pv.np : (k+1)*pv.np]
	t := row[0]
	L := max(plo[t.i]-t.hi, t.lo-phi[t.i], 0)
	if L <= c.early {
		for _, t := range row[1:] {
			if a := plo[t.i] - t.hi; a > L {
				L = a
			}
			if a := t.lo - phi[t.i]; a > L {
				L = a
			}
			if L > c.early {
				break
			}
		}
	}
	if down(L, 2) > c.need {
		return 0, true
	}
	if L = down(L, 2) - c.slack; L > 0 {
		return down(L*L, c.rnd), false
	}
	return 0, false
}

// pivotChunk is jobPivots' chunk: pivots c0..c1 of pv (eP the sample's
// orthonormality error), projected from the index's contiguous copy by
// one AtB (the bits of projectInto's: an output of AtB is the same chain
// whatever the other columns), their values by ws's Batch, their
// distances (tier 3) and their metric's bounds to P; a value that fails
// or a distance that is not finite sets ws.pivFail.
func (e *Engine) pivotChunk(ws *shard, pv *pivotIndex, P *linalg.Dense, lambda []float64, eP float64, c0, c1 int) {
	d := e.d
	dd := d * d
	g := pv.piv[c0:c1]
	ld := len(g) * d
	// The projections side by side (d x ld) in ws.gproj, then one after
	// the other in ws.vproj.
	kernels.AtB(ws.gproj, ld, P.Data, P.Stride, pv.data[c0*d:], pv.ld, e.dim, d, ld)
	for i := range g {
		for r := 0; r < d; r++ {
			copy(ws.vproj[i*dd+r*d:i*dd+(r+1)*d], ws.gproj[r*ld+i*d:r*ld+(i+1)*d])
		}
	}
	if ws.sv.Values(ws.vsig, d, ws.vproj, d, dd, len(g)) != nil {
		ws.pivFail = true
		return
	}
	e.weightedN(e.sdist, nil, ws.vsig, lambda, 0, g, len(g))
	for i, k32 := range g {
		k := int(k32)
		s := ws.vsig[i*d : (i+1)*d]
		dk := e.sdist[k]
		if !(dk <= math.MaxFloat64) {
			ws.pivFail = true
			return
		}
		e.sdist[k], e.blo[k], e.bhi[k], e.tier[k] = dk, dk, dk, 3
		e.plo[c0+i], e.phi[c0+i] = e.rhoOf(s, pv.m, e.uncertainty(s[0], eP, pv.eps[k]))
	}
}

// projectCand computes the projections and tier-1 bounds of the
// prototypes e.cand (one AtB each: the bits of project's), split over the
// workers in groups: the candidates of one chunk of a shard's projections
// each (candGroups), so that a block of the prototypes' layout is one
// kernel call; it returns an error if a trace is not finite.
func (e *Engine) projectCand(P *linalg.Dense, lambda []float64) error {
	if len(e.cand) > 0 {
		e.candCut = e.candGroups(e.candCut[:0])
		if len(e.candCut) <= 2 || len(e.shards) == 1 {
			e.projectListChunk(e.shards[0], P, lambda, 0, len(e.cand))
		} else {
			e.job = job{kind: jobProjectList, p: P, lambda: lambda, n: len(e.candCut) - 1}
			e.run()
			e.job = job{}
		}
	}
	for _, k := range e.cand {
		if !(e.trace[k] <= math.MaxFloat64) {
			return ErrNotFinite
		}
	}
	return nil
}

// candGroups appends to cut the starts of the groups of e.cand (ascending)
// and then len(e.cand): a group is the candidates of one chunk of a
// shard's projections (at most chunk prototypes, which projectListChunk's
// runs do not cross). A Shared's blocks of eight (see col) start at a
// shard's chunks (a crew's shards start at a block), so a group is one
// block: cut in chunks of eight candidates instead, a class of prototypes
// starting inside a block made two calls of every block, each reading
// part of every row's cache lines (a 400 x 40 block from L3: 3.9 us in
// one call, 6.1-7.7 us in two).
func (e *Engine) candGroups(cut []int32) []int32 {
	po, pc := int32(-1), -1
	for i, k32 := range e.cand {
		k, o := int(k32), e.owner[k32]
		c := (k - e.shards[o].lo) / chunk
		if o != po || c != pc {
			cut = append(cut, int32(i))
			po, pc = o, c
		}
	}
	return append(cut, int32(len(e.cand)))
}

// projectListChunk is jobProjectList's chunk: candidates c0..c1 of e.cand
// (ascending, so that the chunks' runs cover disjoint ranges and no two
// workers write one projection), each run of nearby prototypes of one
// chunk of the shard
// projected by one AtB over their side-by-side columns (projectInto: the
// bits of one AtB each, whatever the other columns of the call). A run
// bridges gaps of up to projGap prototypes that are not candidates (a
// pivot among a cluster's prototypes): projecting them again costs less
// than a second, narrower call, and writes a pivot's projection with the
// same bits; their bounds are left as they are.
func (e *Engine) projectListChunk(ws *shard, P *linalg.Dense, lambda []float64, c0, c1 int) {
	ks := e.cand[c0:c1]
	for i := 0; i < len(ks); {
		lo := int(ks[i])
		s := e.shards[e.owner[lo]]
		j := i + 1
		for j < len(ks) && int(ks[j]) <= int(ks[j-1])+1+projGap && int(ks[j]) < s.hi && (int(ks[j])-s.lo)/chunk == (lo-s.lo)/chunk {
			j++
		}
		hi := int(ks[j-1]) + 1
		e.projectInto(s.proj[projOffset(lo-s.lo, e.d):], P, e.job.p32, lo, hi)
		for _, k := range ks[i:j] {
			e.boundTrace(int(k), lambda)
		}
		i = j
	}
}

// projGap is the longest run of non-candidates that projectListChunk
// projects to join two runs of candidates into one call.
const projGap = 2

// traceOf returns ‖M‖_F² of prototype k's projection, summed in four
// chains (the bound of traceBounds, γ_{d²} of the sum of the squares,
// holds for a sum in any order): one chain of d² dependent additions was
// the latency of a tier-1 bound.
func (e *Engine) traceOf(k int) float64 {
	d, ld := e.d, chunk*e.d
	m := e.projView(k)
	var t0, t1, t2, t3 float64
	for i := 0; i < d; i++ {
		row := m[i*ld : i*ld+d]
		j := 0
		for ; j+4 <= len(row); j += 4 {
			t0 += float64(row[j] * row[j])
			t1 += float64(row[j+1] * row[j+1])
			t2 += float64(row[j+2] * row[j+2])
			t3 += float64(row[j+3] * row[j+3])
		}
		for ; j < len(row); j++ {
			t0 += float64(row[j] * row[j])
		}
	}
	return (t0 + t1) + (t2 + t3)
}

// boundTrace sets prototype k's trace and tier-1 bounds from its
// projection (tier 1; NaN bounds for a trace that is not finite).
func (e *Engine) boundTrace(k int, lambda []float64) {
	d := e.d
	m := e.projView(k)
	t := e.traceOf(k)
	e.trace[k] = t
	if !(t <= math.MaxFloat64) {
		e.blo[k], e.bhi[k] = math.NaN(), math.NaN()
		return
	}
	lmin, lmax, lsum := lambdaRange(e.lambdaOf(lambda, k))
	var excess float64
	switch {
	case !(e.f32 || e.shadowed) || t*(1+float64(2*d*d)*ur) <= 1:
		// σ_1² <= ‖M‖_F² <= t (1 + 2d²u) (t a sum of d² rounded squares): at
		// most 1 there, as for far prototypes, and no excess.
	case e.training:
		// A winners' search (training: a shadow search, which only
		// training runs, or a Float32 model's): no excess computed, an infinite one taken instead,
		// which leaves tier 1 its trivial upper end (Σ sin²θ <= d). Tier
		// 1 rules nothing out in training, where tier 2 sets the upper
		// ends; sigmaExcess, a pass over M for every prototype at d = 25
		// (where t > 1 is the rule), cost 2.6% of a one-worker yaleb
		// epoch (shadow) and 3.5% of a float32 one.
		excess = math.Inf(1)
	default:
		excess = sigmaExcess(m, d, chunk*d)
	}
	var lo, hi float64
	if e.kind == Chordal {
		lo, hi = chordTraceBounds(t, e.d, lmin, lmax, lsum, excess, e.slack(k))
	} else {
		lo, hi = traceBounds(t, e.d, lmin, lmax, lsum, excess, e.slack(k))
	}
	if e.tier[k] == 0 {
		// Keep a pivot bound tighter than tier 1's.
		lo = max(lo, e.blo[k])
	}
	e.blo[k], e.bhi[k], e.tier[k] = lo, hi, 1
}
