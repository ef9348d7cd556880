package model

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/grlgq/grlgq/engine"
	"github.com/grlgq/grlgq/kernels"
	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/score"
	"github.com/grlgq/grlgq/subspace"
)

// Prediction is the outcome of classifying one sample (a set or an image). Its slices are
// reused by the ...To methods when their capacity suffices, so a Prediction
// kept across calls makes them allocation-free.
type Prediction struct {
	// Label is the predicted class, or -1 when the prediction is rejected.
	Label int
	// Class is the nearest class, rejected or not.
	Class int
	// Nearest is the index of the nearest prototype (ties to the lowest).
	Nearest int
	// Margin is the label-free margin, the separation (δ₂ − δ₁)/(δ₂ + δ₁)
	// ∈ [0, 1] between the distances of the nearest and the second-nearest
	// class (0: a tie, 1: one class only). It needs no label; the paper's
	// μ needs one (Model.Mu): when the predicted class is the true one,
	// Margin = −μ. See "Two margins" in the package documentation.
	Margin float64
	// Rejected reports Margin < PredictConfig.RejectMargin.
	Rejected bool
	// Distances holds the distance to every prototype (len p): Σ_k λ_k θ_k²
	// for a set, θ_1² for a single image (Chordal: Σ_k λ_k sin²θ_k and
	// sin²θ_1).
	Distances []float64
	// Angles holds the principal angles, ascending per prototype: p x d
	// (prototype k at k*d) for a set, p (θ_1 of each prototype) for an
	// image.
	Angles []float64
	// Probabilities is a class-probability estimate (len C):
	// softmax(−δ_c/T) over the classes, δ_c the distance to the nearest
	// prototype of class c and T = PredictConfig.Temperature (with
	// kernels.Exp: the same bits on every architecture).
	Probabilities []float64
}

// classifier is what a prediction needs besides the distances: shapes,
// labels, relevances and the decision rule. The Model's shared server
// holds one (read-only).
type classifier struct {
	dim, d, classes int
	labels          []int
	lambda          []float64
	temperature     float64
	reject          float64
	// workers bounds the goroutines a batch's basis checks use (checkSets;
	// 0 or 1: the caller alone): a server's, all cores or WithWorkers' n.
	workers int
}

func newClassifier(m *Model) classifier {
	return classifier{
		dim: m.dim, d: m.d, classes: m.classes,
		labels:      m.labels,
		lambda:      m.lambda,
		temperature: m.pred.Temperature,
		reject:      m.pred.RejectMargin,
	}
}

// distancer is a distance engine: a Model's *engine.Shared (any number of
// callers), or an *engine.Engine (its own workers, one caller). Both give
// the same bits.
type distancer interface {
	Distances(dist, theta []float64, P *linalg.Dense, lambda []float64) error
	ImageDistances(dist, theta []float64, x []float64) error
	DistancesBatch(dist []float64, sets []*linalg.Dense, lambda []float64) error
	ImageDistancesBatch(dist []float64, x []float64, ldx, n int) error
}

// searches reports whether the labels of the samples x are found by the
// engine's pruned nearest-prototype search instead of every distance: sets
// with at least engine.PivotMinP prototypes, where the search skips most
// projections (the labels are the same).
func (c *classifier) searches(x []Sample) bool {
	if len(c.labels) < engine.PivotMinP || len(x) == 0 {
		return false
	}
	for _, s := range x {
		if s.kind() != kindSet {
			return false
		}
	}
	return true
}

// labelSets writes the labels of the sets x (-1 for a rejected one) into
// labels, from the nearest prototype and, with a reject margin, the
// nearest of another class that search (one engine.Nearest per sample)
// finds: the distances decide takes from every distance, bit for bit.
// r and b are scratch (len(x) each), gram too (d²).
func (c *classifier) labelSets(r []engine.Nearest, b []*linalg.Dense, gram []float64, labels []int, x []Sample, search func(r []engine.Nearest, b []*linalg.Dense, second bool) error) error {
	if err := c.checkSets(b, gram, x); err != nil {
		return err
	}
	second := c.reject > 0
	if err := search(r, b, second); err != nil {
		return fmt.Errorf("model: predict: %w", predictError(err))
	}
	for i, ri := range r {
		labels[i] = c.labelOf(ri, second)
	}
	return nil
}

// labelOf is decide's label from the nearest prototype and (second) the
// nearest of another class: the margin from the same two distances.
func (c *classifier) labelOf(r engine.Nearest, second bool) int {
	c1 := c.labels[r.First]
	if !second {
		return c1 // margin >= 0 is never below a reject margin <= 0
	}
	d1, d2 := r.DFirst, r.DSecond
	var margin float64
	switch s := d1 + d2; {
	case math.IsInf(d2, 1):
		margin = 1
	case s > 0:
		margin = (d2 - d1) / s
	}
	if margin < c.reject {
		return -1
	}
	return c1
}

// predictTo classifies x into dst with eng.
func (c *classifier) predictTo(eng distancer, dst *Prediction, x Sample) error {
	switch x.kind() {
	case kindSet:
		return c.predictSetTo(eng, dst, x.set)
	case kindImage:
		return c.predictImageTo(eng, dst, x.img)
	}
	return emptySample()
}

// predictSetTo classifies the set x into dst with eng.
func (c *classifier) predictSetTo(eng distancer, dst *Prediction, x *subspace.Subspace) error {
	if x.Basis == nil || x.Basis.Rows != c.dim || x.Basis.Cols != c.d {
		return c.shapeError(x)
	}
	np := len(c.labels)
	// dst.Angles holds PᵀP for the check before the engine writes the
	// angles into it: no workspace to allocate or pool.
	dst.Angles = grow(dst.Angles, max(np*c.d, c.d*c.d))
	if err := checkSampleBasis(dst.Angles, x.Basis); err != nil {
		return err
	}
	dst.Distances = grow(dst.Distances, np)
	dst.Angles = dst.Angles[:np*c.d]
	if err := eng.Distances(dst.Distances, dst.Angles, x.Basis, c.lambda); err != nil {
		return fmt.Errorf("model: predict: %w", predictError(err))
	}
	return c.decide(dst)
}

// predictImageTo classifies the image x into dst with eng.
func (c *classifier) predictImageTo(eng distancer, dst *Prediction, x []float64) error {
	if len(x) != c.dim {
		return c.imageShapeError(x)
	}
	np := len(c.labels)
	dst.Distances = grow(dst.Distances, np)
	dst.Angles = grow(dst.Angles, np)
	if err := eng.ImageDistances(dst.Distances, dst.Angles, x); err != nil {
		return fmt.Errorf("model: predict image: %w", predictError(err))
	}
	return c.decide(dst)
}

// distancesTo writes the n x p distances of the samples x into dist, with
// bases (len(x)) as scratch for sets and block as scratch for images that
// do not lie back to back in one slice; it returns block (grown).
func (c *classifier) distancesTo(eng distancer, dist []float64, x []Sample, bases []*linalg.Dense, block []float64) ([]float64, error) {
	np := len(c.labels)
	if len(dist) < len(x)*np {
		return block, fmt.Errorf("model: %w: distance buffer of %d for %d x %d", ErrData, len(dist), len(x), np)
	}
	k, err := kindOf(x)
	if err != nil || len(x) == 0 {
		return block, err
	}
	if k == kindImage {
		for i, s := range x {
			if len(s.img) != c.dim {
				return block, fmt.Errorf("sample %d: %w", i, c.imageShapeError(s.img))
			}
		}
		var xs []float64
		xs, block = imageBlock(x, c.dim, block)
		if err := eng.ImageDistancesBatch(dist[:len(x)*np], xs, c.dim, len(x)); err != nil {
			return block, fmt.Errorf("model: image distances: %w", predictError(err))
		}
		return block, nil
	}
	if err := c.checkSets(bases, make([]float64, c.d*c.d), x); err != nil {
		return block, err
	}
	if err := eng.DistancesBatch(dist[:len(x)*np], bases, c.lambda); err != nil {
		return block, fmt.Errorf("model: distances: %w", predictError(err))
	}
	return block, nil
}

// checkSetsWork is the work (D·d² multiply-adds of the checks' products
// PᵀP, summed over a batch) below which checkSets runs on the caller
// alone: a fraction of a millisecond.
const checkSetsWork = 1 << 21

// checkSets checks that every sample of x is a set of the model's shape
// whose basis has orthonormal columns (checkSampleBasis, as training
// checks) and puts the bases into b (len(x)); gram (d²) is the caller's
// scratch. A large batch on more than one worker (c.workers) is checked
// in contiguous parts, the caller taking the first and goroutines
// started for the call the others: the checks cost about one projection
// a set, which on many cores would otherwise be a serial part as long as
// the batch's parallel projections. The error names the first bad set,
// whatever the split.
func (c *classifier) checkSets(b []*linalg.Dense, gram []float64, x []Sample) error {
	parts := min(c.workers, len(x)*c.dim*c.d*c.d/checkSetsWork, len(x))
	if parts <= 1 {
		return c.checkRange(b, gram, x, 0, len(x))
	}
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for k := 1; k < parts; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[k] = c.checkRange(b, make([]float64, c.d*c.d), x, k*len(x)/parts, (k+1)*len(x)/parts)
		}()
	}
	errs[0] = c.checkRange(b, gram, x, 0, len(x)/parts)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err // the parts in order: the lowest bad index
		}
	}
	return nil
}

// checkRange is checkSets' check of x[lo:hi], with g (d²) as scratch.
func (c *classifier) checkRange(b []*linalg.Dense, g []float64, x []Sample, lo, hi int) error {
	for i := lo; i < hi; i++ {
		p := x[i].set.Basis
		if p == nil || p.Rows != c.dim || p.Cols != c.d {
			return fmt.Errorf("set %d: %w", i, c.shapeError(x[i].set))
		}
		if err := checkSampleBasis(g, p); err != nil {
			return fmt.Errorf("set %d: %w", i, err)
		}
		b[i] = p
	}
	return nil
}

// decide fills the class fields of r from r.Distances.
func (c *classifier) decide(r *Prediction) error {
	k := nearest(r.Distances)
	if k < 0 {
		return fmt.Errorf("model: predict: %w: no finite distance", ErrNotFinite)
	}
	r.Nearest = k
	r.Probabilities = grow(r.Probabilities, c.classes)
	pr := r.Probabilities
	for i := range pr {
		pr[i] = math.Inf(1)
	}
	for j, dj := range r.Distances {
		if l := c.labels[j]; dj < pr[l] {
			pr[l] = dj
		}
	}
	// The nearest class and the nearest other class.
	c1 := c.labels[k]
	d1, d2 := pr[c1], math.Inf(1)
	for l, v := range pr {
		if l != c1 && v < d2 {
			d2 = v
		}
	}
	r.Class = c1
	switch s := d1 + d2; {
	case math.IsInf(d2, 1):
		r.Margin = 1
	case s > 0:
		r.Margin = (d2 - d1) / s
	default:
		r.Margin = 0
	}
	r.Rejected = r.Margin < c.reject
	r.Label = c1
	if r.Rejected {
		r.Label = -1
	}
	var sum float64
	for l, v := range pr {
		e := kernels.Exp(-(v - d1) / c.temperature) // the same bits on every architecture
		pr[l] = e
		sum += e
	}
	for l := range pr {
		pr[l] /= sum
	}
	return nil
}

func (c *classifier) shapeError(x *subspace.Subspace) error {
	if x == nil || x.Basis == nil {
		return fmt.Errorf("model: %w: nil subspace", ErrData)
	}
	return fmt.Errorf("model: %w: basis is %d x %d, model wants %d x %d (use model.Image for single images)", ErrData, x.Basis.Rows, x.Basis.Cols, c.dim, c.d)
}

func (c *classifier) imageShapeError(x []float64) error {
	return fmt.Errorf("model: %w: image of %d pixels, model wants %d", ErrData, len(x), c.dim)
}

// grow returns s resliced to n, reallocated only if its capacity is short.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// server is what a Model's prediction methods share, built at the first
// prediction: the decision rule and one read-only packed copy of the
// prototypes (engine.Shared), whose per-call workspaces come from a pool,
// and, on more than one core, a crew over that copy (engine.Shared.Crew; a
// Float32 model's crew keeps its own contiguous copy of each worker's
// float32 columns):
// workers that split one large single-sample prediction by prototypes,
// for one caller at a time (busy). A caller that finds the crew busy
// (another goroutine's prediction) runs on its own goroutine through the
// Shared: concurrent callers scale with the cores, a lone caller gets
// them all. The bits are the same either way. The crew's goroutines spin
// briefly after each call, then park, and are stopped when the server is
// collected (runtime.AddCleanup): nothing to close.
type server struct {
	classifier
	eng  *engine.Shared
	crew *engine.Engine // nil on one core or with one prototype
	busy atomic.Bool    // the crew is in use
	// search holds *searchScratch: the pruned search's per-call slices,
	// so that a served PredictLabelsTo allocates nothing.
	search sync.Pool
}

// searchScratch is one PredictLabelsTo call's scratch for the pruned
// search: a result and a basis per sample, and PᵀP for the check of a
// sample's basis.
type searchScratch struct {
	r    []engine.Nearest
	b    []*linalg.Dense
	gram []float64
}

// searchScratch returns scratch for n samples from the pool (grown if
// needed), to be handed back by putSearchScratch.
func (s *server) searchScratch(n int) *searchScratch {
	sc, _ := s.search.Get().(*searchScratch)
	if sc == nil {
		sc = new(searchScratch)
	}
	if cap(sc.r) < n {
		sc.r, sc.b = make([]engine.Nearest, n), make([]*linalg.Dense, n)
	}
	if sc.gram == nil {
		sc.gram = make([]float64, s.d*s.d)
	}
	sc.r, sc.b = sc.r[:n], sc.b[:n]
	return sc
}

// putSearchScratch hands sc back, dropping its references to the
// caller's bases.
func (s *server) putSearchScratch(sc *searchScratch) {
	clear(sc.b)
	s.search.Put(sc)
}

// acquire returns the crew when there is one and no other call holds it
// (the caller then calls release after its call), else nil.
func (s *server) acquire() *engine.Engine {
	if s.crew != nil && s.busy.CompareAndSwap(false, true) {
		return s.crew
	}
	return nil
}

// release hands the crew back (after acquire returned it).
func (s *server) release() { s.busy.Store(false) }

// server returns the model's server, building it at the first call. Only
// that first build takes m.mu (so that a burst of first callers builds one
// copy of the prototypes); every later call is one atomic load. The zero
// Model has none (ErrConfig).
func (m *Model) server() (*server, error) {
	if s := m.srv.Load(); s != nil {
		return s, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.srv.Load(); s != nil {
		return s, nil
	}
	if len(m.protos) == 0 {
		return nil, errZeroModel("predict")
	}
	newShared := engine.NewShared
	if m.cfg.Precision == Float32 {
		newShared = engine.NewShared32
	}
	// m.workers (WithWorkers), never TrainConfig.Workers: how a model was
	// trained must not decide the cores it predicts on (0: all cores, as
	// for a loaded model).
	eng, err := newShared(m.dim, m.d, m.protos, m.workers)
	if err == nil {
		err = eng.SetDistanceKind(m.cfg.Distance.engineKind())
	}
	if err != nil {
		return nil, fmt.Errorf("model: predictor: %w", err)
	}
	s := &server{classifier: newClassifier(m), eng: eng}
	workers := m.workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	s.classifier.workers = workers
	if workers > 1 && len(m.protos) > 1 {
		s.crew = eng.Crew(workers)
		runtime.AddCleanup(s, func(c *engine.Engine) { c.Close() }, s.crew)
	}
	m.srv.Store(s)
	return s, nil
}

// PredictTo classifies x into dst on the caller's goroutine, with the
// model's crew of workers on the other cores when no other call is using
// it and x is large enough to gain (see the package documentation). A set's
// Basis must be D x d with orthonormal columns, checked as training checks
// them (max |PᵀP − I| <= 1e-6, else ErrData; one d x d product PᵀP, which
// dst's Angles hold before the angles: their capacity must be d² when p·d
// is less). A single image (len D) is the 1-D subspace x/‖x‖ at
// distance θ_1² (Chordal: sin²θ_1), θ_1 = arccos(‖Wᵀx‖/‖x‖); a sparse image (an MNIST digit
// is about 80% exact zeros) costs less: the engine reads the prototypes'
// rows of its nonzero pixels only, with the same result bits. It
// allocates nothing when dst's slices have enough capacity, and may be
// called from any number of goroutines at once.
func (m *Model) PredictTo(dst *Prediction, x Sample) error {
	s, err := m.server()
	if err != nil {
		return err
	}
	if c := s.acquire(); c != nil {
		err = s.predictTo(c, dst, x)
		s.release()
		return err
	}
	return s.predictTo(s.eng, dst, x)
}

// Predict classifies x (see PredictTo).
func (m *Model) Predict(x Sample) (*Prediction, error) {
	var r Prediction
	if err := m.PredictTo(&r, x); err != nil {
		return nil, err
	}
	return &r, nil
}

// PredictBatchTo classifies the samples x (all sets or all images) into
// dst[:len(x)], splitting them between the caller and goroutines started
// for the call (up to all cores, or the n of WithWorkers, in all; never
// the training's Workers) when the batch is large enough to gain from it: the same
// predictions as PredictTo in a loop, but for Angles, which it leaves
// empty (the batch engines compute distances only). The slices of dst's
// predictions are reused when their capacity suffices; the call
// allocates scratch in proportion to the batch. Images are classified a
// block of them at a time, straight from the caller's memory when they
// lie back to back in one slice (see Images), else from a copy. Sets'
// bases are checked as PredictTo checks them, a large batch's checks
// split over the same goroutines; an error names the first bad set.
func (m *Model) PredictBatchTo(dst []Prediction, x []Sample) error {
	if len(dst) < len(x) {
		return fmt.Errorf("model: %w: %d predictions for %d samples", ErrData, len(dst), len(x))
	}
	s, err := m.server()
	if err != nil {
		return err
	}
	np := len(s.labels)
	return s.batches(x, func(i0 int, dist []float64) error {
		for i := range len(dist) / np {
			r := &dst[i0+i]
			r.Distances = append(r.Distances[:0], dist[i*np:(i+1)*np]...)
			r.Angles = r.Angles[:0]
			if err := s.decide(r); err != nil {
				return fmt.Errorf("sample %d: %w", i0+i, err)
			}
		}
		return nil
	})
}

// PredictBatch returns the predictions of the samples x (see
// PredictBatchTo).
func (m *Model) PredictBatch(x []Sample) ([]Prediction, error) {
	out := make([]Prediction, len(x))
	if err := m.PredictBatchTo(out, x); err != nil {
		return nil, err
	}
	return out, nil
}

// DistancesTo writes the n x p distances between the samples x (all sets
// or all images) and the prototypes into dst (row i for x[i], at
// dst[i*p:]), e.g. for a 2-D embedding of data and prototypes, or the μ
// of each sample; in parallel like PredictBatchTo (all cores, or the n of
// WithWorkers).
func (m *Model) DistancesTo(dst []float64, x []Sample) error {
	np := len(m.protos)
	if len(dst) < len(x)*np {
		return fmt.Errorf("model: %w: distance buffer of %d for %d x %d", ErrData, len(dst), len(x), np)
	}
	s, err := m.server()
	if err != nil {
		return err
	}
	if _, err := s.distancesTo(s.eng, dst, x, make([]*linalg.Dense, len(x)), nil); err != nil {
		return err
	}
	return nil
}

// Distances returns the n x p distances of DistancesTo.
func (m *Model) Distances(x []Sample) ([]float64, error) {
	out := make([]float64, len(x)*len(m.protos))
	if err := m.DistancesTo(out, x); err != nil {
		return nil, err
	}
	return out, nil
}

// PredictLabelsTo writes the label of every sample of x (all sets or all images;
// -1 for a rejected prediction) into dst[:len(x)]: the labels of
// PredictBatchTo, in parallel like it (all cores, or the n of WithWorkers),
// without the rest of a Prediction.
// Because a label needs only the nearest prototype (and, with a reject
// margin, the nearest of another class), sets classified by a model of
// at least engine.PivotMinP prototypes take the engine's pruned
// nearest-prototype search: lower bounds on every distance (a pivot
// index, then the projections' and the enclosures' bounds) leave most
// prototypes without a projection or a singular value, with the same
// labels as every distance gives (see SearchStats); a single set's search
// is split by the model's crew when it is free, as PredictTo is, and
// allocates nothing (its scratch is pooled). Other calls compute every
// distance a block of samples at a time.
func (m *Model) PredictLabelsTo(dst []int, x []Sample) error {
	if len(dst) < len(x) {
		return fmt.Errorf("model: %w: %d labels for %d samples", ErrData, len(dst), len(x))
	}
	s, err := m.server()
	if err != nil {
		return err
	}
	if s.searches(x) {
		sc := s.searchScratch(len(x))
		defer s.putSearchScratch(sc)
		return s.labelSets(sc.r, sc.b, sc.gram, dst, x, func(r []engine.Nearest, b []*linalg.Dense, second bool) error {
			if len(b) == 1 {
				if c := s.acquire(); c != nil {
					// One set: its search split by the crew, which is free.
					err := c.Nearest(&r[0], b[0], s.lambda, s.labels, second)
					s.release()
					return err
				}
			}
			return s.eng.NearestBatch(r, b, s.lambda, s.labels, second)
		})
	}
	np := len(s.labels)
	var r Prediction
	return s.batches(x, func(i0 int, dist []float64) error {
		for i := range len(dist) / np {
			r.Distances = dist[i*np : (i+1)*np]
			if err := s.decide(&r); err != nil {
				return fmt.Errorf("sample %d: %w", i0+i, err)
			}
			dst[i0+i] = r.Label
		}
		return nil
	})
}

// PredictLabels returns the labels of PredictLabelsTo.
func (m *Model) PredictLabels(x []Sample) ([]int, error) {
	out := make([]int, len(x))
	if err := m.PredictLabelsTo(out, x); err != nil {
		return nil, err
	}
	return out, nil
}

// SearchStats returns the counts of the pruned nearest-prototype searches
// the model's PredictLabelsTo (and Score) ran since its first prediction: the
// prototypes they considered, for how many the singular values were
// enclosed or computed, and how many were not even projected.
func (m *Model) SearchStats() SearchStats {
	s := m.srv.Load()
	if s == nil {
		return SearchStats{}
	}
	st := s.eng.Stats()
	return SearchStats{Prototypes: st.Prototypes, Enclosed: st.Enclosed, Valued: st.Values, Skipped: st.Skipped}
}

// Score classifies the samples x (all sets or all images) by PredictLabelsTo and
// counts the predicted labels (-1 for a rejected prediction) against the
// true classes y (score.Count: accuracy, per-class recall, confusion
// matrix; a y outside 0..C-1 is a class the model does not know, never
// correct), in parallel like PredictLabelsTo (all cores, or the n of
// WithWorkers). predict.Score is the same with a context that can end it
// between blocks of samples.
func (m *Model) Score(x []Sample, y []int) (*score.Scores, error) {
	if len(y) != len(x) {
		return nil, fmt.Errorf("model: %w: %d samples and %d labels", ErrData, len(x), len(y))
	}
	pred := make([]int, len(x))
	if err := m.PredictLabelsTo(pred, x); err != nil {
		return nil, err
	}
	return score.Count(m.classes, y, pred), nil
}

// scoreBlock is the number of samples whose distances the batch methods
// hold at once (Score, PredictBatchTo): large enough that every block is
// split over the cores, small enough that the distances of a huge batch
// take no more than a few megabytes.
const scoreBlock = 4096

// batches computes the distances of x, scoreBlock samples at a time, and
// hands each block's (i0, distances) to use in order.
func (s *server) batches(x []Sample, use func(i0 int, dist []float64) error) error {
	if _, err := kindOf(x); err != nil {
		return err
	}
	np := len(s.labels)
	n := min(len(x), scoreBlock)
	dist := make([]float64, n*np)
	bases := make([]*linalg.Dense, n)
	var block []float64
	for i0 := 0; i0 < len(x); i0 += scoreBlock {
		b := x[i0:min(len(x), i0+scoreBlock)]
		var err error
		if block, err = s.distancesTo(s.eng, dist, b, bases, block); err != nil {
			if i0 > 0 {
				return fmt.Errorf("samples %d..%d: %w", i0, i0+len(b)-1, err)
			}
			return err
		}
		if err := use(i0, dist[:len(b)*np]); err != nil {
			return err
		}
	}
	return nil
}
