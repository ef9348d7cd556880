package model

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/grlgq/grlgq/engine"
	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/subspace"
)

// synth returns n sets per class of `classes` classes: set i of class c is
// the span of C_c + sigma·G (C_c a random orthonormal D x d "centre" of the
// class, G Gaussian), with labels.
func synth(t testing.TB, seed uint64, dim, d, classes, n int, sigma float64) ([]*subspace.Subspace, []int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	orth := linalg.NewOrthonormalizer(dim, d)
	centres := make([]*linalg.Dense, classes)
	for c := range centres {
		centres[c] = linalg.NewDense(dim, d)
		if err := orth.Random(centres[c], rng); err != nil {
			t.Fatal(err)
		}
	}
	var xs []*subspace.Subspace
	var ys []int
	for i := 0; i < n; i++ {
		for c := 0; c < classes; c++ {
			b := linalg.NewDense(dim, d)
			for r := 0; r < dim; r++ {
				row, src := b.Row(r), centres[c].Row(r)
				for j := range row {
					row[j] = src[j] + sigma*rng.NormFloat64()
				}
			}
			if err := orth.Orthonormalize(b); err != nil {
				t.Fatal(err)
			}
			xs = append(xs, &subspace.Subspace{Basis: b})
			ys = append(ys, c)
		}
	}
	return xs, ys
}

// synthSets is synth through real image sets: X = C_c A + sigma·G (D x m),
// converted by subspace.Converter, so Values and Right are set.
func synthSets(t testing.TB, seed uint64, dim, d, m, classes, n int, sigma float64) ([]*subspace.Subspace, []int, []*linalg.Dense) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 9))
	conv, err := subspace.NewConverter(dim, m, d)
	if err != nil {
		t.Fatal(err)
	}
	orth := linalg.NewOrthonormalizer(dim, d)
	centres := make([]*linalg.Dense, classes)
	for c := range centres {
		centres[c] = linalg.NewDense(dim, d)
		if err := orth.Random(centres[c], rng); err != nil {
			t.Fatal(err)
		}
	}
	var xs []*subspace.Subspace
	var ys []int
	var raw []*linalg.Dense
	for i := 0; i < n; i++ {
		for c := 0; c < classes; c++ {
			x := linalg.NewDense(dim, m)
			a := make([]float64, d*m)
			for j := range a {
				a[j] = rng.NormFloat64()
			}
			for r := 0; r < dim; r++ {
				row, cr := x.Row(r), centres[c].Row(r)
				for j := range row {
					var s float64
					for k := 0; k < d; k++ {
						s += cr[k] * a[k*m+j]
					}
					row[j] = s + sigma*rng.NormFloat64()
				}
			}
			s, err := conv.FromSet(x)
			if err != nil {
				t.Fatal(err)
			}
			xs = append(xs, s)
			ys = append(ys, c)
			raw = append(raw, x)
		}
	}
	return xs, ys, raw
}

// toMat copies a Dense into a gonum matrix.
func toMat(a *linalg.Dense) *mat.Dense {
	m := mat.NewDense(a.Rows, a.Cols, nil)
	for r := 0; r < a.Rows; r++ {
		for c, v := range a.Row(r) {
			m.Set(r, c, v)
		}
	}
	return m
}

// fromMat copies a gonum matrix into a Dense.
func fromMat(m mat.Matrix) *linalg.Dense {
	r, c := m.Dims()
	a := linalg.NewDense(r, c)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			a.Set(i, j, m.At(i, j))
		}
	}
	return a
}

// anglesGonum returns the principal angles (ascending) between span(P) and
// span(W) for orthonormal P, W, via gonum: an oracle independent of svd/.
func anglesGonum(p, w *mat.Dense) []float64 {
	var m mat.Dense
	m.Mul(p.T(), w)
	var s mat.SVD
	if !s.Factorize(&m, mat.SVDNone) {
		panic("svd failed")
	}
	v := s.Values(nil)
	out := make([]float64, len(v))
	for i, c := range v {
		out[i] = math.Acos(math.Min(math.Max(c, 0), 1))
	}
	return out
}

// orthGonum returns an orthonormal basis of span(a) by thin QR.
func orthGonum(a *mat.Dense) *mat.Dense {
	var qr mat.QR
	qr.Factorize(a)
	r, c := a.Dims()
	var q mat.Dense
	qr.QTo(&q)
	return mat.DenseCopyOf(q.Slice(0, r, 0, c))
}

// maxAngle returns the largest principal angle between span(a) and span(b)
// (both orthonormal), computed stably from the sines: ‖(I − A Aᵀ) B‖₂.
func maxAngle(a, b *mat.Dense) float64 {
	var proj, res mat.Dense
	proj.Mul(a.T(), b)
	res.Mul(a, &proj)
	res.Sub(b, &res)
	s := mat.Norm(&res, 2)
	return math.Asin(math.Min(s, 1))
}

// sameSpan returns the largest principal angle between two Denses' spans.
func sameSpan(a, b *linalg.Dense) float64 { return maxAngle(toMat(a), toMat(b)) }

// opts is a Config, a TrainConfig and a PredictConfig together, for the
// tests' tables of variants (every field is promoted: o.Seed,
// o.SubspaceDim).
type opts struct {
	Config
	TrainConfig
	PredictConfig
}

// defaultOpts returns opts with every default.
func defaultOpts() opts {
	return opts{Config: DefaultConfig(), TrainConfig: DefaultTrainConfig(), PredictConfig: DefaultPredictConfig()}
}

// legacyOptions turns the configuration literals of these tests, written
// in the convention the package had before DefaultConfig and
// DefaultTrainConfig (a zero field takes its default; a negative InitNoise
// or RelevanceFloor means none), into Options with the default
// PredictConfig. Tests of the configuration itself use the constructors.
func legacyOptions(c Config, t TrainConfig) Options {
	if c.PrototypesPerClass == 0 {
		c.PrototypesPerClass = DefaultPrototypesPerClass
	}
	return Options{Model: c, Train: legacyTrain(t), Predict: DefaultPredictConfig()}
}

// legacyTrain is legacyOptions for a TrainConfig.
func legacyTrain(t TrainConfig) TrainConfig {
	d := DefaultTrainConfig()
	for _, f := range []struct {
		v   *float64
		def float64
	}{{&t.InitNoise, d.InitNoise}, {&t.RelevanceFloor, d.RelevanceFloor}} {
		switch {
		case *f.v == 0:
			*f.v = f.def
		case *f.v < 0:
			*f.v = 0
		}
	}
	for _, f := range []struct {
		v   *float64
		def float64
	}{{&t.Eta, d.Eta}, {&t.Gamma, d.Gamma}, {&t.Tau, d.Tau}, {&t.Beta, d.Beta}} {
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	if t.StepEvery == 0 {
		t.StepEvery = d.StepEvery
	}
	if t.Epochs == 0 {
		t.Epochs = d.Epochs
	}
	return t
}

// legacyPredict is legacyOptions for a PredictConfig.
func legacyPredict(p PredictConfig) PredictConfig {
	if p.Temperature == 0 {
		p.Temperature = DefaultTemperature
	}
	return p
}

// withWorkers returns a copy of m whose predictions use w goroutines
// (WithWorkers, without its check).
func withWorkers(m *Model, w int) *Model {
	c := m.clone()
	c.workers = w
	return c
}

// enginePredictions classifies xs with a one-worker engine.Engine of its
// own (the path of the Predictor the package had before the Model's
// methods became the one way to predict): the reference bits of the
// shared path.
func enginePredictions(t testing.TB, m *Model, xs []Sample) []Prediction {
	t.Helper()
	eng, err := engine.New(m.dim, m.d, len(m.protos), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if err := eng.SetDistanceKind(m.cfg.Distance.engineKind()); err != nil {
		t.Fatal(err)
	}
	for k, w := range m.protos {
		if err := eng.SetPrototype(k, w); err != nil {
			t.Fatal(err)
		}
	}
	c := newClassifier(m)
	out := make([]Prediction, len(xs))
	for i, x := range xs {
		if err := c.predictTo(eng, &out[i], x); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// labelsOf returns the labels of predictions.
func labelsOf(ps []Prediction) []int {
	out := make([]int, len(ps))
	for i, p := range ps {
		out[i] = p.Label
	}
	return out
}

// rowSamples returns the images of flat, dim pixels each, back to back, as
// samples over flat's memory.
func rowSamples(flat []float64, dim int) []Sample {
	rows := make([][]float64, len(flat)/dim)
	for i := range rows {
		rows[i] = flat[i*dim : (i+1)*dim]
	}
	return Images(rows)
}

// legacy is legacyTrain(t): the training options a test's literal means.
func (t TrainConfig) legacy() TrainConfig { return legacyTrain(t) }
