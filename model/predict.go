package model

import (
	"fmt"
	"math"
	"runtime"

	"github.com/grlgq/grlgq/engine"
	"github.com/grlgq/grlgq/linalg"
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
	// Margin is the relative margin (δ₂ − δ₁)/(δ₂ + δ₁) ∈ [0, 1] between
	// the distances of the nearest and the second-nearest class. It needs
	// no label; when the predicted class is the true one it is −μ (Mu of
	// the same distances: the paper's μ is negative when right).
	Margin float64
	// Rejected reports Margin < PredictConfig.RejectMargin.
	Rejected bool
	// Distances holds the distance to every prototype (len p): Σ_k λ_k θ_k²
	// for a set, θ_1² for a single image.
	Distances []float64
	// Angles holds the principal angles, ascending per prototype: p x d
	// (prototype k at k*d) for a set, p (θ_1 of each prototype) for an
	// image.
	Angles []float64
	// Probabilities is a class-probability estimate (len C):
	// softmax(−δ_c/T) over the classes, δ_c the distance to the nearest
	// prototype of class c and T = PredictConfig.Temperature.
	Probabilities []float64
}

// Predictor classifies sets and images with its own copy of a model's
// prototypes in a distance engine whose persistent workers split every call
// (a single set or image too) over the cores. It is not safe for concurrent
// use; Close releases its workers. A server whose goroutines classify
// concurrently should call the Model's methods instead: they share one
// copy of the prototypes and run each single sample on its caller.
type Predictor struct {
	classifier
	eng   *engine.Engine
	batch []float64        // n*p distances of batch calls
	bases []*linalg.Dense  // batch scratch
	near  []engine.Nearest // batch scratch: the nearest-prototype searches
	block []float64        // batch scratch: images copied back to back
	one   Prediction       // scratch of batch calls
}

// classifier is what a prediction needs besides the distances: shapes,
// labels, relevances and the decision rule. Predictor and the Model's
// shared server each hold one (read-only).
type classifier struct {
	dim, d, classes int
	labels          []int
	lambda          []float64
	temperature     float64
	reject          float64
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

// distancer is a distance engine: a Predictor's *engine.Engine (its own
// workers, one caller) or a Model's *engine.Shared (any number of callers).
// Both give the same bits.
type distancer interface {
	Distances(dist, theta []float64, P *linalg.Dense, lambda []float64) error
	ImageDistances(dist, theta []float64, x []float64) error
	DistancesBatch(dist []float64, sets []*linalg.Dense, lambda []float64) error
	ImageDistancesBatch(dist []float64, x []float64, ldx, n int) error
}

// NewPredictor returns a Predictor for m using the given number of workers
// (0 means the workers of m's last training, or all cores).
func NewPredictor(m *Model, workers int) (*Predictor, error) {
	if workers <= 0 {
		workers = m.train.Workers
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	eng, err := engine.New(m.dim, m.d, len(m.protos), workers)
	if err != nil {
		return nil, fmt.Errorf("model: predictor: %w", err)
	}
	for k, w := range m.protos {
		// SetPrototype, not a view: the engine then knows the prototypes
		// are finite and lets sparse images skip their zero pixels.
		if err := eng.SetPrototype(k, w); err != nil {
			eng.Close()
			return nil, fmt.Errorf("model: predictor: %w", err)
		}
	}
	return &Predictor{classifier: newClassifier(m), eng: eng}, nil
}

// SearchStats returns the counts of the predictor's nearest-prototype
// searches (the label-only batch paths): the prototypes considered, and
// for how many values were enclosed or computed, and projections skipped.
func (p *Predictor) SearchStats() SearchStats {
	if p.eng == nil {
		return SearchStats{}
	}
	s := p.eng.Stats()
	return SearchStats{Prototypes: s.Prototypes, Enclosed: s.Enclosed, Valued: s.Values, Skipped: s.Skipped}
}

// Close releases the predictor's workers; it may be called more than once.
func (p *Predictor) Close() {
	if p.eng != nil {
		p.eng.Close()
		p.eng = nil
	}
}

func (p *Predictor) open() error {
	if p.eng == nil {
		return fmt.Errorf("model: predictor: %w", ErrClosed)
	}
	return nil
}

// PredictTo classifies x into dst. It allocates nothing when dst's slices
// have enough capacity. A set's Basis must be D x d. A single image (len
// D) is the 1-D subspace x/‖x‖ at distance θ_1², θ_1 = arccos(‖Wᵀx‖/‖x‖);
// a sparse image (an MNIST digit is about 80% exact zeros) costs less: the
// engine reads the prototypes' rows of its nonzero pixels only, with the
// same result bits.
func (p *Predictor) PredictTo(dst *Prediction, x Sample) error {
	if err := p.open(); err != nil {
		return err
	}
	return p.predictTo(p.eng, dst, x)
}

// DistancesTo writes the distances between the samples x (all sets or all
// images) and every prototype into dist (n x p, row i for x[i]), using all
// workers. It allocates only when a batch is larger than any before.
func (p *Predictor) DistancesTo(dist []float64, x []Sample) error {
	if err := p.open(); err != nil {
		return err
	}
	var err error
	p.bases = grow(p.bases, len(x))
	p.block, err = p.distancesTo(p.eng, dist, x, p.bases, p.block)
	clear(p.bases)
	return err
}

// PredictBatchTo writes the label of every sample of x (all sets or all
// images) into labels (-1 for a rejected prediction), using all workers.
// It allocates only when a batch is larger than any before.
func (p *Predictor) PredictBatchTo(labels []int, x []Sample) error {
	if len(labels) < len(x) {
		return fmt.Errorf("model: %w: %d labels for %d samples", ErrData, len(labels), len(x))
	}
	if err := p.open(); err != nil {
		return err
	}
	if p.searches(x) {
		p.near = grow(p.near, len(x))
		p.bases = grow(p.bases, len(x))
		defer clear(p.bases)
		return p.labelSets(p.near, p.bases, labels, x, func(r []engine.Nearest, b []*linalg.Dense, second bool) error {
			for i := range r {
				if err := p.eng.Nearest(&r[i], b[i], p.lambda, p.labels, second); err != nil {
					return fmt.Errorf("sample %d: %w", i, err)
				}
			}
			return nil
		})
	}
	p.batch = grow(p.batch, len(x)*len(p.labels))
	if err := p.DistancesTo(p.batch, x); err != nil {
		return err
	}
	return p.labelRows(&p.one, labels, p.batch, len(x))
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
// r and b are scratch (len(x) each).
func (c *classifier) labelSets(r []engine.Nearest, b []*linalg.Dense, labels []int, x []Sample, search func(r []engine.Nearest, b []*linalg.Dense, second bool) error) error {
	for i, s := range x {
		if s.set.Basis == nil || s.set.Basis.Rows != c.dim || s.set.Basis.Cols != c.d {
			return fmt.Errorf("set %d: %w", i, c.shapeError(s.set))
		}
		b[i] = s.set.Basis
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
	dst.Distances = grow(dst.Distances, np)
	dst.Angles = grow(dst.Angles, np*c.d)
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
	for i, s := range x {
		if b := s.set.Basis; b == nil || b.Rows != c.dim || b.Cols != c.d {
			return block, fmt.Errorf("set %d: %w", i, c.shapeError(s.set))
		}
		bases[i] = s.set.Basis
	}
	if err := eng.DistancesBatch(dist[:len(x)*np], bases, c.lambda); err != nil {
		return block, fmt.Errorf("model: distances: %w", predictError(err))
	}
	return block, nil
}

// labelRows decides the n rows of dist (n x p) into labels, with r as
// scratch.
func (c *classifier) labelRows(r *Prediction, labels []int, dist []float64, n int) error {
	np := len(c.labels)
	for i := 0; i < n; i++ {
		r.Distances = dist[i*np : (i+1)*np]
		if err := c.decide(r); err != nil {
			r.Distances = nil
			return fmt.Errorf("sample %d: %w", i, err)
		}
		labels[i] = r.Label
	}
	r.Distances = nil
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
		e := math.Exp(-(v - d1) / c.temperature)
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
// prototypes (engine.Shared), whose per-call workspaces come from a pool.
// It owns no goroutine.
type server struct {
	classifier
	eng *engine.Shared
}

// server returns the model's server, building it at the first call. Only
// that first build takes m.mu (so that a burst of first callers builds one
// copy of the prototypes); every later call is one atomic load.
func (m *Model) server() (*server, error) {
	if s := m.srv.Load(); s != nil {
		return s, nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.srv.Load(); s != nil {
		return s, nil
	}
	eng, err := engine.NewShared(m.dim, m.d, m.protos, m.train.Workers)
	if err != nil {
		return nil, fmt.Errorf("model: predictor: %w", err)
	}
	s := &server{classifier: newClassifier(m), eng: eng}
	m.srv.Store(s)
	return s, nil
}

// PredictTo classifies x into dst (see Predictor.PredictTo) on the
// caller's goroutine. It allocates nothing when dst's slices have enough
// capacity, and may be called from any number of goroutines at once.
func (m *Model) PredictTo(dst *Prediction, x Sample) error {
	s, err := m.server()
	if err != nil {
		return err
	}
	return s.predictTo(s.eng, dst, x)
}

// Predict classifies x.
func (m *Model) Predict(x Sample) (*Prediction, error) {
	var r Prediction
	if err := m.PredictTo(&r, x); err != nil {
		return nil, err
	}
	return &r, nil
}

// PredictBatch returns the labels of the samples x (all sets or all
// images; -1 for rejected ones), splitting the samples between the caller
// and goroutines started for the call (up to the workers of the model's
// last training, or all cores) when the batch is large enough to gain from
// it. Images are classified a block of them at a time, straight from the
// caller's memory when they lie back to back in one slice (see Images),
// else from a copy.
func (m *Model) PredictBatch(x []Sample) ([]int, error) {
	s, err := m.server()
	if err != nil {
		return nil, err
	}
	labels := make([]int, len(x))
	if s.searches(x) {
		err := s.labelSets(make([]engine.Nearest, len(x)), make([]*linalg.Dense, len(x)), labels, x, func(r []engine.Nearest, b []*linalg.Dense, second bool) error {
			return s.eng.NearestBatch(r, b, s.lambda, s.labels, second)
		})
		if err != nil {
			return nil, err
		}
		return labels, nil
	}
	dist := make([]float64, len(x)*len(s.labels))
	if _, err := s.distancesTo(s.eng, dist, x, make([]*linalg.Dense, len(x)), nil); err != nil {
		return nil, err
	}
	if err := s.labelRows(new(Prediction), labels, dist, len(x)); err != nil {
		return nil, err
	}
	return labels, nil
}

// DistanceMatrix returns the n x p distances between the samples x (all
// sets or all images) and the prototypes (row i for x[i]), e.g. for a 2-D
// embedding of data and prototypes; in parallel like PredictBatch.
func (m *Model) DistanceMatrix(x []Sample) (*linalg.Dense, error) {
	s, err := m.server()
	if err != nil {
		return nil, err
	}
	np := len(m.protos)
	dist := make([]float64, len(x)*np)
	if _, err := s.distancesTo(s.eng, dist, x, make([]*linalg.Dense, len(x)), nil); err != nil {
		return nil, err
	}
	return denseFrom(len(x), np, dist), nil
}

func denseFrom(rows, cols int, v []float64) *linalg.Dense {
	out := linalg.NewDense(rows, cols)
	for r := 0; r < rows; r++ {
		copy(out.Row(r), v[r*cols:(r+1)*cols])
	}
	return out
}
