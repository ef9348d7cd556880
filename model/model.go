package model

import (
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/grlgq/grlgq/linalg"
)

// Model is a trained (or initialised) GRLGQ model: p labelled prototypes,
// each a D x d orthonormal basis, and relevances λ (one vector of length d,
// or one per prototype).
//
// A Model is immutable once returned by Init, Train, Continue or Load, or
// decoded into (UnmarshalBinary, UnmarshalJSON: only into a new zero
// Model): training makes a new Model. All its methods may be called from
// any number of goroutines at once, without a lock. The prediction methods share one
// read-only packed copy of the prototypes (built at the first prediction),
// take a small workspace from a pool for each call, and run a single set or
// image on the caller's goroutine, so that a server's request handlers
// scale with its cores; a lone caller's large sample is split by
// prototypes with the model's crew (persistent workers on the other cores,
// for one call at a time; a caller that finds it busy runs alone); the
// batch methods split their samples over the cores with goroutines started
// for the call (all cores, or the n of WithWorkers); Explain uses the distances of the prediction methods and
// allocates its own results. There is nothing to close: the crew's workers
// spin briefly after a call and then park (an idle Model uses no CPU), and
// they exit when the Model is collected.
type Model struct {
	cfg     Config        // validated
	train   TrainConfig   // the options of the last training, normalised (no hooks)
	pred    PredictConfig // validated
	dim, d  int
	classes int
	labels  []int
	protos  []*linalg.Dense
	lambda  []float64   // d (global / none) or p*d (local)
	epochs  int         // epochs trained so far
	meta    []metaEntry // provenance (WithMetadata), sorted by key; nil: none
	workers int         // the predictions' goroutines (WithWorkers; 0: all cores); not stored

	mu  sync.Mutex             // taken only to build srv
	srv atomic.Pointer[server] // the prediction methods' shared state, built by server()
}

// Dim returns D, the number of pixels of an image.
func (m *Model) Dim() int { return m.dim }

// SubspaceDim returns d, the number of columns of every prototype.
func (m *Model) SubspaceDim() int { return m.d }

// NumPrototypes returns p.
func (m *Model) NumPrototypes() int { return len(m.protos) }

// NumClasses returns C; class labels are 0..C-1.
func (m *Model) NumClasses() int { return m.classes }

// Label returns the class of prototype k, 0 <= k < NumPrototypes() (it
// panics otherwise, as an index out of range does).
func (m *Model) Label(k int) int { return m.labels[k] }

// Labels returns a copy of the prototypes' classes.
func (m *Model) Labels() []int { return append([]int(nil), m.labels...) }

// ClassName returns the name of class c ("" if the model has no names, or
// c is not one of its classes: a name is for display, where an unnamed
// class prints as its number).
func (m *Model) ClassName(c int) string {
	if c < 0 || c >= len(m.cfg.ClassNames) {
		return ""
	}
	return m.cfg.ClassNames[c]
}

// Epochs returns the number of epochs the model has been trained for.
func (m *Model) Epochs() int { return m.epochs }

// Config returns what the model is, defaults filled in (SubspaceDim is d).
func (m *Model) Config() Config {
	c := m.cfg
	c.PrototypesOfClass = append([]int(nil), c.PrototypesOfClass...)
	c.ClassNames = append([]string(nil), c.ClassNames...)
	return c
}

// TrainConfig returns the options of the model's last training, defaults
// filled in, as the model file stores them: Init and InitNoise are those
// of its initialisation (Continue keeps them); OnEpoch is nil, and
// Workers, MinDelta and AverageLast are those of the call that made the
// model, or 0 for a loaded one.
func (m *Model) TrainConfig() TrainConfig { return m.train }

// PredictConfig returns the model's prediction options, defaults filled in.
func (m *Model) PredictConfig() PredictConfig { return m.pred }

// WithPredictConfig returns a copy of m that predicts with the options pc
// (errors wrap ErrConfig).
func (m *Model) WithPredictConfig(pc PredictConfig) (*Model, error) {
	if err := pc.validate(); err != nil {
		return nil, err
	}
	c := m.clone()
	c.pred = pc
	return c, nil
}

// WithWorkers returns a copy of m whose predictions use at most n
// goroutines, the caller's included: the batch methods (PredictBatchTo,
// PredictLabelsTo, DistancesTo, Score and their allocating forms) split
// their samples over up to n, and the crew that splits a lone caller's
// large sample (PredictTo, PredictLabelsTo, Explain) has n workers. n = 1
// runs every call on the caller's goroutine alone; n = 0, the default,
// takes all cores (runtime.GOMAXPROCS(0)). The cores are a resource of
// the program, not a property of the model: n is not stored in the model
// file, and a model from Train, Continue, Init, Average, Load or the
// decoders uses all cores, whatever TrainConfig.Workers its training had
// (the models a training hands its hooks, AugmentFunc and
// EpochStats.Model, use that training's Workers). The other With methods
// keep n. The predictions are the same bits for any n. Errors wrap
// ErrConfig (n outside [0, MaxWorkers]).
func (m *Model) WithWorkers(n int) (*Model, error) {
	if n < 0 || n > MaxWorkers {
		return nil, fmt.Errorf("model: %w: Workers %d outside [0, %d] (0: all cores)", ErrConfig, n, MaxWorkers)
	}
	c := m.clone()
	c.workers = n
	return c, nil
}

// Prototype returns a copy of prototype k (D x d, orthonormal columns),
// 0 <= k < NumPrototypes() (it panics otherwise, as an index out of range
// does).
func (m *Model) Prototype(k int) *linalg.Dense {
	w := linalg.NewDense(m.dim, m.d)
	w.CopyFrom(m.protos[k])
	return w
}

// Relevances returns a copy of the relevance profile: λ (len d) for global
// relevances and for RelevanceNone (1/d each), or the p x d per-prototype
// relevances, row k for prototype k, for RelevanceLocal.
func (m *Model) Relevances() []float64 { return append([]float64(nil), m.lambda...) }

// WithRelevances returns a copy of m whose relevance profile is lambda,
// scaled to sum to 1 per profile: len d for global relevances (and for
// RelevanceNone), p x d for RelevanceLocal, like Relevances. The entries
// must be finite and non-negative, with a positive sum per profile. It
// gives, for instance, a nearest-neighbour model (a prototype at every
// training set) the relevances another model learnt on the same data.
func (m *Model) WithRelevances(lambda []float64) (*Model, error) {
	if len(lambda) != len(m.lambda) {
		return nil, fmt.Errorf("model: %w: %d relevances, want %d", ErrConfig, len(lambda), len(m.lambda))
	}
	c := m.clone()
	for off := 0; off < len(lambda); off += m.d {
		var sum float64
		for _, v := range lambda[off : off+m.d] {
			if !(v >= 0) || math.IsInf(v, 1) {
				return nil, fmt.Errorf("model: %w: relevance %v", ErrConfig, v)
			}
			sum += v
		}
		if !(sum > 0) || math.IsInf(sum, 1) {
			return nil, fmt.Errorf("model: %w: relevances sum to %v", ErrConfig, sum)
		}
		for i := off; i < off+m.d; i++ {
			c.lambda[i] = lambda[i] / sum
		}
	}
	return c, nil
}

// relevanceOf returns the relevances prototype k uses (a view).
func (m *Model) relevanceOf(k int) []float64 {
	if len(m.lambda) == m.d {
		return m.lambda
	}
	return m.lambda[k*m.d : (k+1)*m.d]
}

// clone returns a copy of m without its predictor. Its prototypes are
// m's own matrices: a Model never writes its prototypes once returned (the
// predictor packs a copy of them), so the With methods copy no D x d
// matrix (a nearest-neighbour model has one a training set); a clone that
// writes them takes copies of its own first (ownPrototypes).
func (m *Model) clone() *Model {
	c := &Model{
		cfg:     m.Config(),
		train:   m.train,
		pred:    m.pred,
		dim:     m.dim,
		d:       m.d,
		classes: m.classes,
		labels:  append([]int(nil), m.labels...),
		protos:  append([]*linalg.Dense(nil), m.protos...), // shared: see above
		lambda:  append([]float64(nil), m.lambda...),
		epochs:  m.epochs,
		meta:    m.meta, // never modified in place
		workers: m.workers,
	}
	return c
}

// ownPrototypes gives c copies of its prototypes of its own, for a clone
// that writes them (Average, WithPrecision).
func (c *Model) ownPrototypes() {
	for k, w := range c.protos {
		o := linalg.NewDense(w.Rows, w.Cols)
		o.CopyFrom(w)
		c.protos[k] = o
	}
}

// prototypeLabels returns the class of every prototype: class 0's first,
// then class 1's, ...
func (c *Config) prototypeLabels(classes int) []int {
	var labels []int
	for cl := 0; cl < classes; cl++ {
		for j := 0; j < c.prototypesOf(cl); j++ {
			labels = append(labels, cl)
		}
	}
	return labels
}

// checkBasis checks the shape of a training or prediction basis.
func (m *Model) checkBasis(p *linalg.Dense) error {
	if p == nil {
		return fmt.Errorf("model: %w: nil basis", ErrData)
	}
	if p.Rows != m.dim || p.Cols != m.d {
		return fmt.Errorf("model: %w: basis is %d x %d, model wants %d x %d", ErrData, p.Rows, p.Cols, m.dim, m.d)
	}
	return nil
}

// ImageSize returns the recorded size of the training images (width =
// pixels per row, height = rows), or 0, 0 when unknown (see
// Config.ImageWidth).
func (m *Model) ImageSize() (width, height int) { return m.cfg.ImageWidth, m.cfg.ImageHeight }

// WithImageSize returns a copy of m that records the image size width x
// height, for a model that has none (made from bases, or loaded from a
// version 1 file) and has learnt from images of that size. A model that
// has a size keeps it: a different one is an error, like a size that does
// not make D pixels (errors wrap ErrConfig).
func (m *Model) WithImageSize(width, height int) (*Model, error) {
	c := m.cfg
	c.ImageWidth, c.ImageHeight = width, height
	if err := c.validate(); err != nil {
		return nil, err
	}
	if err := c.checkImageSize(m.dim); err != nil {
		return nil, err
	}
	if m.cfg.ImageWidth != 0 && (m.cfg.ImageWidth != width || m.cfg.ImageHeight != height) {
		return nil, fmt.Errorf("model: %w: image size %s, the model has %s (height x width)", ErrConfig, formatSize(width, height), formatSize(m.cfg.ImageWidth, m.cfg.ImageHeight))
	}
	out := m.clone()
	out.cfg.ImageWidth, out.cfg.ImageHeight = width, height
	return out, nil
}

// Fits reports whether data can continue training m (Continue) or be
// classified by it: images of dim pixels (d = 0), or bases of dim x d,
// with the classes named classes, in this order (nil: not checked). The
// error, wrapping ErrData, names what differs: D, d, the number of
// classes (listing both), or the first class whose name differs (a model
// without class names takes any).
func (m *Model) Fits(dim, d int, classes []string) error {
	switch {
	case dim != m.dim:
		return fmt.Errorf("model: %w: the model has D=%d values per image, the data has %d", ErrData, m.dim, dim)
	case d != 0 && d != m.d:
		return fmt.Errorf("model: %w: the model has d=%d, the data's bases d=%d", ErrData, m.d, d)
	case classes == nil:
		return nil
	}
	names := make([]string, m.classes)
	for c := range names {
		names[c] = m.ClassName(c)
		if names[c] == "" {
			names[c] = fmt.Sprint(c)
		}
	}
	if len(classes) != len(names) {
		return fmt.Errorf("model: %w: the model has %d classes (%s), the data has %d (%s)", ErrData, len(names), classList(names), len(classes), classList(classes))
	}
	for c, n := range classes {
		if m.ClassName(c) != "" && n != names[c] {
			return fmt.Errorf("model: %w: class %d is %q in the model, %q in the data (classes: model %s; data %s)", ErrData, c, names[c], n, classList(names), classList(classes))
		}
	}
	return nil
}

// classList names classes for a message (the first 20).
func classList(classes []string) string {
	if len(classes) > 20 {
		return strings.Join(classes[:20], ", ") + fmt.Sprintf(", ... (%d in all)", len(classes))
	}
	return strings.Join(classes, ", ")
}

// roundPrototypes rounds the prototypes of a Float32 model to float32
// values in place (what its engines project with and its file stores);
// nothing for Float64.
func (m *Model) roundPrototypes() {
	if m.cfg.Precision != Float32 {
		return
	}
	for _, w := range m.protos {
		for r := 0; r < w.Rows; r++ {
			row := w.Row(r)
			for c, v := range row {
				row[c] = float64(float32(v))
			}
		}
	}
}

// WithPrecision returns a copy of m whose Config.Precision is p: for
// Float32 its prototypes are m's rounded to float32 (a float64 model
// converted for a small device: half the file, float32 projections); for
// Float64 they are m's values. The copy predicts by its own precision;
// m is not changed.
func (m *Model) WithPrecision(p Precision) (*Model, error) {
	if p > Float32 {
		return nil, fmt.Errorf("model: %w: unknown Precision %d", ErrConfig, p)
	}
	c := m.clone()
	c.ownPrototypes()
	c.cfg.Precision = p
	c.roundPrototypes()
	return c, nil
}
