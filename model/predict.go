package model

import (
	"fmt"
	"math"
	"runtime"

	"github.com/grlgq/grlgq/engine"
	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/subspace"
)

// Prediction is the outcome of classifying one set or image. Its slices are
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
	// the distances of the nearest and the second-nearest class.
	Margin float64
	// Rejected reports Margin < Config.RejectMargin.
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
	// prototype of class c and T = Config.Temperature.
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
	batch []float64       // n*p distances of batch calls
	bases []*linalg.Dense // batch scratch
	one   Prediction      // scratch of batch calls
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
		temperature: m.cfg.Temperature,
		reject:      m.cfg.RejectMargin,
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
// (0 means m's Config().Workers).
func NewPredictor(m *Model, workers int) (*Predictor, error) {
	if workers <= 0 {
		workers = m.cfg.Workers
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

// Close releases the predictor's workers; it may be called more than once.
func (p *Predictor) Close() {
	if p.eng != nil {
		p.eng.Close()
		p.eng = nil
	}
}

// Workers returns the number of goroutines computing distances.
func (p *Predictor) Workers() int {
	if p.eng == nil {
		return 0
	}
	return p.eng.Workers()
}

func (p *Predictor) open() error {
	if p.eng == nil {
		return fmt.Errorf("model: predictor: %w", ErrClosed)
	}
	return nil
}

// PredictTo classifies the set x (its Basis must be D x d) into dst.
// It allocates nothing when dst's slices have enough capacity.
func (p *Predictor) PredictTo(dst *Prediction, x *subspace.Subspace) error {
	if err := p.open(); err != nil {
		return err
	}
	return p.predictTo(p.eng, dst, x)
}

// PredictImageTo classifies the single image x (len D; its 1-D subspace
// x/‖x‖, θ_1 = arccos(‖Wᵀx‖/‖x‖), distance θ_1²) into dst. It allocates
// nothing when dst's slices have enough capacity. A sparse image (an
// MNIST digit is about 80% exact zeros) costs less: the engine reads the
// prototypes' rows of its nonzero pixels only, with the same result bits.
func (p *Predictor) PredictImageTo(dst *Prediction, x []float64) error {
	if err := p.open(); err != nil {
		return err
	}
	return p.predictImageTo(p.eng, dst, x)
}

// Predict is PredictTo into a new Prediction.
func (p *Predictor) Predict(x *subspace.Subspace) (*Prediction, error) {
	var r Prediction
	if err := p.PredictTo(&r, x); err != nil {
		return nil, err
	}
	return &r, nil
}

// PredictImage is PredictImageTo into a new Prediction.
func (p *Predictor) PredictImage(x []float64) (*Prediction, error) {
	var r Prediction
	if err := p.PredictImageTo(&r, x); err != nil {
		return nil, err
	}
	return &r, nil
}

// DistancesTo writes the distances between the sets x and every prototype
// into dist (n x p, row i for x[i]), using all workers.
func (p *Predictor) DistancesTo(dist []float64, x []*subspace.Subspace) error {
	if err := p.open(); err != nil {
		return err
	}
	p.bases = grow(p.bases, len(x))
	err := p.distancesTo(p.eng, dist, x, p.bases)
	clear(p.bases)
	return err
}

// ImageDistancesTo writes θ_1² between the n images of x (row-major, image
// i at x[i*ldx:i*ldx+D]) and every prototype into dist (n x p), using all
// workers.
func (p *Predictor) ImageDistancesTo(dist []float64, x []float64, ldx, n int) error {
	if err := p.open(); err != nil {
		return err
	}
	return p.imageDistancesTo(p.eng, dist, x, ldx, n)
}

// PredictBatch writes the label of every set of x into labels (-1 for a
// rejected prediction), using all workers. It allocates only when a batch
// is larger than any before.
func (p *Predictor) PredictBatch(labels []int, x []*subspace.Subspace) error {
	if len(labels) < len(x) {
		return fmt.Errorf("model: %w: %d labels for %d sets", ErrData, len(labels), len(x))
	}
	p.batch = grow(p.batch, len(x)*len(p.labels))
	if err := p.DistancesTo(p.batch, x); err != nil {
		return err
	}
	return p.labelRows(&p.one, labels, p.batch, len(x))
}

// PredictImageBatch writes the label of each of the n images of x
// (row-major, image i at x[i*ldx:]) into labels (-1 for a rejected
// prediction), using all workers. It allocates only when a batch is larger
// than any before.
func (p *Predictor) PredictImageBatch(labels []int, x []float64, ldx, n int) error {
	if len(labels) < n {
		return fmt.Errorf("model: %w: %d labels for %d images", ErrData, len(labels), n)
	}
	p.batch = grow(p.batch, max(n, 0)*len(p.labels))
	if err := p.ImageDistancesTo(p.batch, x, ldx, n); err != nil {
		return err
	}
	return p.labelRows(&p.one, labels, p.batch, n)
}

// predictTo classifies the set x into dst with eng.
func (c *classifier) predictTo(eng distancer, dst *Prediction, x *subspace.Subspace) error {
	if x == nil || x.Basis == nil || x.Basis.Rows != c.dim || x.Basis.Cols != c.d {
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
		return fmt.Errorf("model: %w: image of %d pixels, model wants %d", ErrData, len(x), c.dim)
	}
	np := len(c.labels)
	dst.Distances = grow(dst.Distances, np)
	dst.Angles = grow(dst.Angles, np)
	if err := eng.ImageDistances(dst.Distances, dst.Angles, x); err != nil {
		return fmt.Errorf("model: predict image: %w", predictError(err))
	}
	return c.decide(dst)
}

// distancesTo writes the n x p distances of the sets x into dist, with
// bases (len(x)) as scratch.
func (c *classifier) distancesTo(eng distancer, dist []float64, x []*subspace.Subspace, bases []*linalg.Dense) error {
	np := len(c.labels)
	if len(dist) < len(x)*np {
		return fmt.Errorf("model: %w: distance buffer of %d for %d x %d", ErrData, len(dist), len(x), np)
	}
	for i, s := range x {
		if s == nil || s.Basis == nil || s.Basis.Rows != c.dim || s.Basis.Cols != c.d {
			return fmt.Errorf("set %d: %w", i, c.shapeError(s))
		}
		bases[i] = s.Basis
	}
	if err := eng.DistancesBatch(dist[:len(x)*np], bases, c.lambda); err != nil {
		return fmt.Errorf("model: distances: %w", predictError(err))
	}
	return nil
}

// imageDistancesTo writes the n x p distances of the images of x into dist.
func (c *classifier) imageDistancesTo(eng distancer, dist []float64, x []float64, ldx, n int) error {
	np := len(c.labels)
	if n < 0 || ldx < c.dim || (n > 0 && len(x) < (n-1)*ldx+c.dim) || len(dist) < n*np {
		return fmt.Errorf("model: %w: %d images of %d pixels (stride %d) in %d values, %d distances", ErrData, n, c.dim, ldx, len(x), len(dist))
	}
	if err := eng.ImageDistancesBatch(dist[:n*np], x, ldx, n); err != nil {
		return fmt.Errorf("model: image distances: %w", predictError(err))
	}
	return nil
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
	return fmt.Errorf("model: %w: basis is %d x %d, model wants %d x %d (use PredictImage for single images)", ErrData, x.Basis.Rows, x.Basis.Cols, c.dim, c.d)
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
	eng, err := engine.NewShared(m.dim, m.d, m.protos, m.cfg.Workers)
	if err != nil {
		return nil, fmt.Errorf("model: predictor: %w", err)
	}
	s := &server{classifier: newClassifier(m), eng: eng}
	m.srv.Store(s)
	return s, nil
}

// PredictTo classifies the set x into dst (see Predictor.PredictTo) on the
// caller's goroutine. It allocates nothing when dst's slices have enough
// capacity, and may be called from any number of goroutines at once.
func (m *Model) PredictTo(dst *Prediction, x *subspace.Subspace) error {
	s, err := m.server()
	if err != nil {
		return err
	}
	return s.predictTo(s.eng, dst, x)
}

// PredictImageTo classifies the image x into dst (see
// Predictor.PredictImageTo) on the caller's goroutine, like PredictTo.
func (m *Model) PredictImageTo(dst *Prediction, x []float64) error {
	s, err := m.server()
	if err != nil {
		return err
	}
	return s.predictImageTo(s.eng, dst, x)
}

// Predict classifies the set x.
func (m *Model) Predict(x *subspace.Subspace) (*Prediction, error) {
	var r Prediction
	if err := m.PredictTo(&r, x); err != nil {
		return nil, err
	}
	return &r, nil
}

// PredictImage classifies the image x.
func (m *Model) PredictImage(x []float64) (*Prediction, error) {
	var r Prediction
	if err := m.PredictImageTo(&r, x); err != nil {
		return nil, err
	}
	return &r, nil
}

// PredictBatch returns the labels of the sets x (-1 for rejected ones),
// splitting the sets between the caller and goroutines started for the
// call (up to Config().Workers, or all cores) when the batch is large
// enough to gain from it.
func (m *Model) PredictBatch(x []*subspace.Subspace) ([]int, error) {
	s, err := m.server()
	if err != nil {
		return nil, err
	}
	labels := make([]int, len(x))
	dist := make([]float64, len(x)*len(s.labels))
	if err := s.distancesTo(s.eng, dist, x, make([]*linalg.Dense, len(x))); err != nil {
		return nil, err
	}
	if err := s.labelRows(new(Prediction), labels, dist, len(x)); err != nil {
		return nil, err
	}
	return labels, nil
}

// PredictImageBatch returns the labels of the n images of x (row-major,
// image i at x[i*ldx:]; -1 for rejected ones), in parallel like
// PredictBatch.
func (m *Model) PredictImageBatch(x []float64, ldx, n int) ([]int, error) {
	s, err := m.server()
	if err != nil {
		return nil, err
	}
	labels := make([]int, max(n, 0))
	dist := make([]float64, max(n, 0)*len(s.labels))
	if err := s.imageDistancesTo(s.eng, dist, x, ldx, n); err != nil {
		return nil, err
	}
	if err := s.labelRows(new(Prediction), labels, dist, n); err != nil {
		return nil, err
	}
	return labels, nil
}

// DistanceMatrix returns the n x p distances between the sets x and the
// prototypes (row i for x[i]), e.g. for a 2-D embedding of data and
// prototypes; in parallel like PredictBatch.
func (m *Model) DistanceMatrix(x []*subspace.Subspace) (*linalg.Dense, error) {
	s, err := m.server()
	if err != nil {
		return nil, err
	}
	np := len(m.protos)
	dist := make([]float64, len(x)*np)
	if err := s.distancesTo(s.eng, dist, x, make([]*linalg.Dense, len(x))); err != nil {
		return nil, err
	}
	return denseFrom(len(x), np, dist), nil
}

// ImageDistanceMatrix returns the n x p distances θ_1² between the n images
// of x (row-major, image i at x[i*ldx:]) and the prototypes; in parallel
// like PredictBatch.
func (m *Model) ImageDistanceMatrix(x []float64, ldx, n int) (*linalg.Dense, error) {
	s, err := m.server()
	if err != nil {
		return nil, err
	}
	np := len(m.protos)
	dist := make([]float64, max(n, 0)*np)
	if err := s.imageDistancesTo(s.eng, dist, x, ldx, n); err != nil {
		return nil, err
	}
	return denseFrom(n, np, dist), nil
}

func denseFrom(rows, cols int, v []float64) *linalg.Dense {
	out := linalg.NewDense(rows, cols)
	for r := 0; r < rows; r++ {
		copy(out.Row(r), v[r*cols:(r+1)*cols])
	}
	return out
}
