package model

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/grlgq/grlgq/folds"
	"github.com/grlgq/grlgq/internal/reference"
	"github.com/grlgq/grlgq/linalg"
)

// synthImages returns n images per class of dim pixels: class c's images
// are random combinations of d fixed random directions of that class plus
// noise of size sigma, at random positive scales.
func synthImages(seed uint64, dim, d, classes, n int, sigma float64) ([][]float64, []int) {
	rng := rand.New(rand.NewPCG(seed, 1))
	var x [][]float64
	var y []int
	for c := 0; c < classes; c++ {
		basis := make([][]float64, d)
		for j := range basis {
			basis[j] = make([]float64, dim)
			for i := range basis[j] {
				basis[j][i] = rng.NormFloat64()
			}
		}
		for range n {
			img := make([]float64, dim)
			for j := range basis {
				a := rng.NormFloat64()
				for i := range img {
					img[i] += a * basis[j][i]
				}
			}
			s := 0.5 + rng.Float64()
			for i := range img {
				img[i] = s * (img[i] + sigma*rng.NormFloat64())
			}
			x, y = append(x, img), append(y, c)
		}
	}
	return x, y
}

func imageAccuracyOf(t *testing.T, m *Model, x [][]float64, y []int) float64 {
	t.Helper()
	ok := 0
	for i, img := range x {
		p, err := m.Predict(Image(img))
		if err != nil {
			t.Fatal(err)
		}
		if p.Label == y[i] {
			ok++
		}
	}
	return float64(ok) / float64(len(x))
}

// TestImageGradientFiniteDifferences: the gradient an image step follows is
// the derivative of the cost weight·φ(μ), d = θ_1² of the image's 1-D
// subspace, computed from scratch with gonum, along random tangent
// directions of each winner.
func TestImageGradientFiniteDifferences(t *testing.T) {
	for _, act := range []Activation{Identity, Sigmoid} {
		for _, cw := range []bool{false, true} {
			for _, kind := range []Distance{Geodesic, Chordal} {
				t.Run(fmt.Sprintf("%v/act=%d/weights=%v", kind, act, cw), func(t *testing.T) {
					for seed := uint64(1); seed <= 4; seed++ {
						cfg := opts{Config: Config{Distance: kind}, TrainConfig: TrainConfig{Activation: act, Beta: 3, ClassWeights: cw}}
						tr, _, _ := gradCase(t, cfg, seed)
						x, y := synthImages(seed, tr.base.dim, 2, 3, 1, 0.5)
						img, label := x[seed%3], y[seed%3]
						for i := range img {
							img[i] *= 7 // any scale
						}
						nrm, err := imageScale(img)
						if err != nil {
							t.Fatal(err)
						}
						r, err := tr.imageGradient(img, label, nrm)
						if err != nil {
							t.Fatal(err)
						}
						u := mat.NewDense(len(img), 1, nil)
						for i, v := range img {
							u.Set(i, 0, v/nrm)
						}
						wp, wm := toMat(tr.protos[r.Plus]), toMat(tr.protos[r.Minus])
						one := []float64{1}
						c := tr.cfg
						weight := tr.weights[label]
						if e0 := costGonum(&c, tr.base.cfg.Distance, weight, u, wp, wm, one, one); math.Abs(e0-r.Cost) > 1e-12 {
							t.Errorf("cost %v, gonum %v", r.Cost, e0)
						}
						d := tr.base.d
						rng := rand.New(rand.NewPCG(seed, 5))
						const h = 1e-5
						for side, w := range []*mat.Dense{wp, wm} {
							var gw mat.Dense
							gw.Mul(mat.NewDense(len(img), 1, append([]float64(nil), img...)), mat.NewDense(1, d, append([]float64(nil), tr.coef[side*d:side*d+d]...)))
							checkTangentDerivatives(t, fmt.Sprintf("seed %d side %d", seed, side), &gw, w, h, rng, func(ws *mat.Dense) float64 {
								if side == 0 {
									return costGonum(&c, tr.base.cfg.Distance, weight, u, ws, wm, one, one)
								}
								return costGonum(&c, tr.base.cfg.Distance, weight, u, wp, ws, one, one)
							})
						}
					}
				})
			}
		}
	}
}

// TestStepImageMovesWinners: one step with a small rate brings the image
// closer to W⁺ and farther from W⁻, keeps the bases orthonormal, leaves
// the relevances and the other prototypes alone.
func TestImageStepMovesWinners(t *testing.T) {
	tr, _, _ := gradCase(t, opts{}, 2)
	x, y := synthImages(3, tr.base.dim, 2, 3, 2, 0.3)
	lam := append([]float64(nil), tr.lambda...)
	before := make([]*linalg.Dense, len(tr.protos))
	for k, w := range tr.protos {
		before[k] = linalg.NewDense(w.Rows, w.Cols)
		before[k].CopyFrom(w)
	}
	r, err := tr.stepSample(Image(x[0]), y[0], 0.05, 0)
	if err != nil {
		t.Fatal(err)
	}
	theta := func(w *linalg.Dense) float64 {
		u := mat.NewDense(len(x[0]), 1, append([]float64(nil), x[0]...))
		return anglesGonum(orthGonum(u), toMat(w))[0]
	}
	if a, b := theta(before[r.Plus]), theta(tr.protos[r.Plus]); !(b < a) {
		t.Errorf("θ to W⁺ went from %v to %v", a, b)
	}
	if a, b := theta(before[r.Minus]), theta(tr.protos[r.Minus]); !(b > a) {
		t.Errorf("θ to W⁻ went from %v to %v", a, b)
	}
	for k, w := range tr.protos {
		if e := linalg.OrthonormalityError(w); e > 1e-13 {
			t.Errorf("prototype %d: orthonormality error %g", k, e)
		}
		if k != r.Plus && k != r.Minus && !sameBits(w, before[k]) {
			t.Errorf("prototype %d moved", k)
		}
	}
	for k := range lam {
		if lam[k] != tr.lambda[k] {
			t.Errorf("relevance %d changed from %v to %v", k, lam[k], tr.lambda[k])
		}
	}
}

// TestStepImageAtZeroAngle: an image inside W⁺ (θ = 0, where θ/sin θ is
// 0/0) and one orthogonal to a winner (θ = π/2) step without NaN.
func TestImageStepAtZeroAngle(t *testing.T) {
	tr, _, _ := gradCase(t, opts{}, 4)
	k := 0
	w := tr.protos[k]
	img := make([]float64, w.Rows)
	for i := range img {
		img[i] = 3 * w.At(i, 1)
	}
	r, err := tr.stepSample(Image(img), tr.base.labels[k], 0.1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Plus != k || r.DPlus > 1e-14 {
		t.Fatalf("W⁺ = %d at distance %g, want %d at 0", r.Plus, r.DPlus, k)
	}
	for k, w := range tr.protos {
		if err := w.Validate(); err != nil {
			t.Fatalf("prototype %d: %v", k, err)
		}
	}
}

func TestImageStepZeroAlloc(t *testing.T) {
	x, y := synthImages(8, 30, 3, 3, 5, 0.3)
	m, err := Init(legacyOptions(Config{SubspaceDim: 4, PrototypesPerClass: 2}, TrainConfig{Init: InitSample}), Images(x), y)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := newTrainer(m, legacyTrain(TrainConfig{Workers: 2}))
	if err != nil {
		t.Fatal(err)
	}
	i := 0
	if a := testing.AllocsPerRun(50, func() {
		if _, err := tr.stepSample(Image(x[i%len(x)]), y[i%len(x)], 0.01, 0); err != nil {
			t.Fatal(err)
		}
		i++
	}); a != 0 {
		t.Errorf("an image step allocates %v times", a)
	}
	tr.Close()
	if _, err := tr.stepSample(Image(x[0]), y[0], 0.01, 0); !errors.Is(err, errClosed) {
		t.Errorf("closed trainer: %v", err)
	}
}

// TestTrainImagesLearns: from a random start, single-image training
// learns to classify the training images of a synthetic problem.
func TestTrainOnImagesLearns(t *testing.T) {
	x, y := synthImages(21, 40, 3, 4, 60, 0.6)
	cfg := opts{Config: Config{SubspaceDim: 3}, TrainConfig: TrainConfig{Init: InitRandom, Epochs: 30, Eta: 0.05, Workers: 1, Seed: 3}}
	m0, err := Init(legacyOptions(cfg.Config, cfg.TrainConfig), Images(x), y)
	if err != nil {
		t.Fatal(err)
	}
	a0 := imageAccuracyOf(t, m0, x, y)
	m, h, err := Train(context.Background(), legacyOptions(cfg.Config, cfg.TrainConfig), Images(x), y)
	if err != nil {
		t.Fatal(err)
	}
	a := imageAccuracyOf(t, m, x, y)
	if a < 0.95 || a < a0+0.3 {
		t.Errorf("training accuracy %.3f after 30 epochs (start %.3f)", a, a0)
	}
	if len(h.Epochs) != 30 || h.Epochs[29].TrainAccuracy < 0.9 || !(h.Epochs[29].Cost < h.Epochs[0].Cost) {
		t.Errorf("history: %d epochs, last %+v, first %+v", len(h.Epochs), h.Epochs[len(h.Epochs)-1], h.Epochs[0])
	}
	if m.Epochs() != 30 {
		t.Errorf("Epochs() = %d", m.Epochs())
	}
	for k := range m.lambda {
		if m.lambda[k] != 1/float64(m.d) {
			t.Errorf("relevances changed by image training: %v", m.lambda)
		}
	}
}

// TestTrainImagesDeterministic: the same seed gives the same model file
// with 1, 2 and 8 workers (validation split included); Train-equivalent
// structure: Train on images = Init on the training part + Continue.
func TestTrainOnImagesDeterministic(t *testing.T) {
	x, y := synthImages(5, 30, 3, 5, 12, 0.4)
	var ref []byte
	for _, w := range []int{1, 2, 8} {
		cfg := opts{Config: Config{SubspaceDim: 3, PrototypesPerClass: 2}, TrainConfig: TrainConfig{Epochs: 4, Workers: w, Seed: 11, ValidationFraction: 0.25, Init: InitPCA}}
		m, h, err := Train(context.Background(), legacyOptions(cfg.Config, cfg.TrainConfig), Images(x), y)
		if err != nil {
			t.Fatal(err)
		}
		if math.IsNaN(h.Epochs[3].ValAccuracy) {
			t.Error("no validation accuracy")
		}
		b := modelBytes(t, m)
		if ref == nil {
			ref = b
		} else if !bytes.Equal(ref, b) {
			t.Errorf("workers=%d: model bytes differ from workers=1", w)
		}
	}
	cfg := opts{Config: Config{SubspaceDim: 3, PrototypesPerClass: 2}, TrainConfig: TrainConfig{Epochs: 4, Workers: 1, Seed: 11, ValidationFraction: 0.25, Init: InitPCA}}
	tr, _ := folds.ValidationSplit(y, 0.25, 11)
	var xt [][]float64
	var yt []int
	for _, i := range tr {
		xt, yt = append(xt, x[i]), append(yt, y[i])
	}
	m0, err := Init(legacyOptions(cfg.Config, cfg.TrainConfig), Images(xt), yt)
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := Continue(context.Background(), m0, legacyTrain(cfg.TrainConfig), Images(x), y)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(modelBytes(t, m), ref) {
		t.Error("Init + Continue on images differs from Train")
	}
	cfg.Seed = 12
	m2, _, _ := Train(context.Background(), legacyOptions(cfg.Config, cfg.TrainConfig), Images(x), y)
	if bytes.Equal(modelBytes(t, m2), ref) {
		t.Error("a different seed gave the same bytes")
	}
}

// TestInitImagesPCA: InitPCA's prototype of a class spans the top d left
// singular vectors of the class's image matrix (gonum's SVD).
func TestInitOnImagesPCA(t *testing.T) {
	x, y := synthImages(9, 25, 3, 3, 20, 0.5)
	m, err := Init(legacyOptions(Config{SubspaceDim: 4}, TrainConfig{Init: InitPCA}), Images(x), y)
	if err != nil {
		t.Fatal(err)
	}
	for c := 0; c < 3; c++ {
		var cols []float64
		n := 0
		for i, img := range x {
			if y[i] == c {
				cols = append(cols, img...)
				n++
			}
		}
		xt := mat.NewDense(n, 25, cols) // images as rows
		var s mat.SVD
		if !s.Factorize(xt.T(), mat.SVDThin) {
			t.Fatal("gonum SVD failed")
		}
		var u mat.Dense
		s.UTo(&u)
		want := u.Slice(0, 25, 0, 4).(*mat.Dense)
		if a := maxAngle(toMat(m.protos[c]), want); a > 1e-9 {
			t.Errorf("class %d: largest angle to gonum's subspace %g", c, a)
		}
	}
}

func TestTrainOnImagesBadInput(t *testing.T) {
	x, y := synthImages(2, 16, 2, 3, 4, 0.3)
	good := opts{Config: Config{SubspaceDim: 2}, TrainConfig: TrainConfig{Epochs: 1, Workers: 1}}
	clone := func() [][]float64 {
		c := make([][]float64, len(x))
		for i := range x {
			c[i] = append([]float64(nil), x[i]...)
		}
		return c
	}
	nan, inf, zero, short := clone(), clone(), clone(), clone()
	nan[3][5] = math.NaN()
	inf[4][0] = math.Inf(-1)
	for i := range zero[2] {
		zero[2][i] = 0
	}
	short[6] = short[6][:15]
	for _, c := range []struct {
		name string
		cfg  opts
		x    [][]float64
		y    []int
		want error
	}{
		{"nan pixel", good, nan, y, ErrNotFinite},
		{"inf pixel", good, inf, y, ErrNotFinite},
		{"zero image", good, zero, y, ErrData},
		{"short image", good, short, y, ErrData},
		{"labels", good, x, y[:5], ErrData},
		{"negative label", good, x, append([]int{-1}, y[1:]...), ErrData},
		{"one class", good, x[:4], y[:4], ErrData},
		{"no d", opts{TrainConfig: TrainConfig{Epochs: 1}}, x, y, ErrConfig},
		{"d too large", opts{Config: Config{SubspaceDim: 17}}, x, y, ErrConfig},
		{"sample init with too few images", opts{Config: Config{SubspaceDim: 5}, TrainConfig: TrainConfig{Init: InitSample}}, x, y, ErrData},
		{"pca init with too few images", opts{Config: Config{SubspaceDim: 5}, TrainConfig: TrainConfig{Init: InitPCA}}, x, y, ErrData},
		{"empty", good, nil, nil, ErrData},
	} {
		m, _, err := Train(context.Background(), legacyOptions(c.cfg.Config, c.cfg.TrainConfig), Images(c.x), c.y)
		if !errors.Is(err, c.want) || m != nil {
			t.Errorf("%s: got %v (model %v), want %v", c.name, err, m != nil, c.want)
		}
	}
	m, err := Init(legacyOptions(good.Config, good.TrainConfig), Images(x), y)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Continue(context.Background(), m, legacyTrain(good.TrainConfig), Images(x), append(append([]int(nil), y[:11]...), 3)); !errors.Is(err, ErrData) {
		t.Errorf("unknown label: %v", err)
	}
	if _, _, err := Continue(context.Background(), m, legacyTrain(good.TrainConfig), Images(nan), y); !errors.Is(err, ErrNotFinite) {
		t.Errorf("NaN pixel: %v", err)
	}
	tr, err := newTrainer(m, legacyTrain(good.TrainConfig))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	for _, img := range [][]float64{nan[3], zero[2], short[6]} {
		if _, err := tr.stepSample(Image(img), 0, 0.1, 0); err == nil {
			t.Error("Step accepted a bad image")
		}
	}
	if _, err := tr.stepSample(Image(x[0]), 3, 0.1, 0); !errors.Is(err, ErrData) {
		t.Errorf("image Step with label 3: %v", err)
	}
}

// TestTrainImagesThenSave: an image-trained model saves and loads bit for
// bit and predicts images as before.
func TestTrainOnImagesThenSave(t *testing.T) {
	x, y := synthImages(6, 20, 2, 3, 10, 0.3)
	m, _, err := Train(context.Background(), legacyOptions(Config{SubspaceDim: 2}, TrainConfig{Epochs: 3, Workers: 1, Init: InitPCA}), Images(x), y)
	if err != nil {
		t.Fatal(err)
	}
	b := modelBytes(t, m)
	m2, err := Load(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(modelBytes(t, m2), b) {
		t.Error("round trip changed the bytes")
	}
	for _, img := range x {
		p1, _ := m.Predict(Image(img))
		p2, _ := m2.Predict(Image(img))
		if p1.Label != p2.Label || p1.Distances[0] != p2.Distances[0] {
			t.Fatal("loaded model predicts differently")
		}
	}
}

func sameBits(a, b *linalg.Dense) bool {
	for r := 0; r < a.Rows; r++ {
		for c := 0; c < a.Cols; c++ {
			if math.Float64bits(a.At(r, c)) != math.Float64bits(b.At(r, c)) {
				return false
			}
		}
	}
	return true
}

// TestOracleImages: single-image training against the plain gonum
// reference (reference.StepImage) from the same start over the same
// permutations: the same winners and distances at every step, prototypes
// spanning the same subspaces at the end (largest angle < 1e-9), for 1, 2
// and 8 workers; Train on images (the public path) ends at the same model.
func TestOracleImages(t *testing.T) {
	variants := []opts{{TrainConfig: TrainConfig{Init: InitPCA, Eta: 0.05}}, {TrainConfig: TrainConfig{Init: InitRandom, Eta: 0.1, Activation: Sigmoid, Beta: 2, ClassWeights: true, Schedule: ScheduleStep, StepEvery: 2}}, {Config: Config{PrototypesPerClass: 1}, TrainConfig: TrainConfig{Init: InitSample, Eta: 0.03, Schedule: ScheduleAnneal, Tau: 3}},
		{Config: Config{Distance: Chordal}, TrainConfig: TrainConfig{Init: InitPCA, Eta: 0.05}}, {Config: Config{Distance: Chordal, PrototypesPerClass: 1}, TrainConfig: TrainConfig{Init: InitRandom, Eta: 0.1, Activation: Sigmoid, Beta: 2, ClassWeights: true}}}
	const epochs = 6
	x, y := synthImages(31, 20, 3, 3, 9, 0.3)
	y = append(y[:len(y)-2:len(y)-2], 0, 0) // imbalanced: class weights matter
	for vi, v := range variants {
		for _, workers := range []int{1, 2, 8} {
			t.Run(fmt.Sprintf("variant=%d/workers=%d", vi, workers), func(t *testing.T) {
				cfg := v
				cfg.SubspaceDim, cfg.Workers, cfg.Seed, cfg.Epochs = 3, workers, 77, epochs
				if cfg.PrototypesPerClass == 0 {
					cfg.PrototypesPerClass = 2
				}
				m0, err := Init(legacyOptions(cfg.Config, cfg.TrainConfig), Images(x), y)
				if err != nil {
					t.Fatal(err)
				}
				full := cfg
				full.TrainConfig = cfg.TrainConfig.legacy()
				ref := toReference(m0, full)
				counts := make([]int, m0.NumClasses())
				for _, c := range y {
					counts[c]++
				}
				weight := func(c int) float64 {
					if !full.ClassWeights {
						return 1
					}
					return float64(len(y)) / float64(len(counts)*counts[c])
				}
				tr, err := newTrainer(m0, legacyTrain(cfg.TrainConfig))
				if err != nil {
					t.Fatal(err)
				}
				defer tr.Close()
				for c := range tr.weights {
					tr.weights[c] = weight(c)
				}
				for e := 0; e < epochs; e++ {
					eta, _ := full.rates(e)
					for _, i := range permutation(cfg.Seed, e, len(x)) {
						got, err := tr.stepSample(Image(x[i]), y[i], eta, 0)
						if err != nil {
							t.Fatal(err)
						}
						want, err := ref.StepImage(x[i], y[i], eta, weight(y[i]))
						if err != nil {
							t.Fatal(err)
						}
						if got.Plus != want.Plus || got.Minus != want.Minus {
							t.Fatalf("epoch %d image %d: winners (%d, %d), reference (%d, %d)", e, i, got.Plus, got.Minus, want.Plus, want.Minus)
						}
						if math.Abs(got.DPlus-want.DPlus) > 1e-10 || math.Abs(got.DMinus-want.DMinus) > 1e-10 || math.Abs(got.Cost-weight(y[i])*want.Cost) > 1e-10 {
							t.Fatalf("epoch %d image %d: distances (%v, %v) cost %v, reference (%v, %v) cost %v", e, i, got.DPlus, got.DMinus, got.Cost, want.DPlus, want.DMinus, want.Cost)
						}
					}
				}
				compareSpans(t, tr.Model(), m0, ref)
				m, _, err := Continue(context.Background(), m0, legacyTrain(cfg.TrainConfig), Images(x), y)
				if err != nil {
					t.Fatal(err)
				}
				compareSpans(t, m, m0, ref)
			})
		}
	}
}

// compareSpans checks that m's prototypes span the reference's (largest
// principal angle < 1e-9), that they moved away from the start m0 (so the
// comparison is not vacuous), and that the relevances stayed at 1/d.
func compareSpans(t *testing.T, m, m0 *Model, ref *reference.Model) {
	t.Helper()
	var worst, moved float64
	for k := 0; k < m.NumPrototypes(); k++ {
		worst = math.Max(worst, maxAngle(toMat(m.protos[k]), ref.Prototypes[k]))
		moved = math.Max(moved, maxAngle(toMat(m.protos[k]), toMat(m0.protos[k])))
	}
	if !(worst < 1e-9) {
		t.Errorf("largest principal angle between our and the reference prototypes: %g", worst)
	}
	if !(moved > 1e-3) {
		t.Errorf("the prototypes moved by at most %g: the comparison is vacuous", moved)
	}
	for k, l := range m.Relevances() {
		if l != 1/float64(m.d) {
			t.Errorf("relevance %d is %v after image training", k, l)
		}
	}
}

// TestStepImageRotation: the exact rotation of an image step spans what the
// general route (W += x cᵀ, then CGS2) spans, step after step; forcing the
// general route (minRotationNorm = +Inf) gives its bits exactly; and after
// many steps at a large rate the bases are still orthonormal to rounding
// (the rotation never re-orthonormalises, so its error must not grow).
func TestImageStepRotation(t *testing.T) {
	x, y := synthImages(12, 40, 3, 4, 30, 0.5)
	m, err := Init(legacyOptions(Config{SubspaceDim: 5, PrototypesPerClass: 2}, TrainConfig{Init: InitSample, Seed: 4}), Images(x), y)
	if err != nil {
		t.Fatal(err)
	}
	a, err := newTrainer(m, legacyTrain(TrainConfig{Workers: 1}))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := newTrainer(m, legacyTrain(TrainConfig{Workers: 1}))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	generalStep := func(tr *trainer, img []float64, label int, eta float64) (stepResult, error) {
		nrm, err := imageScale(img)
		if err != nil {
			return stepResult{}, err
		}
		r, err := tr.imageGradient(img, label, nrm)
		if err != nil {
			return r, err
		}
		return tr.stepImageCGS2(r, img, eta)
	}
	const eta = 0.2
	worst := 0.0
	for s := 0; s < 600; s++ {
		i := (s * 7) % len(x)
		ra, err := a.stepSample(Image(x[i]), y[i], eta, 0)
		if err != nil {
			t.Fatal(err)
		}
		rb, err := generalStep(b, x[i], y[i], eta)
		if err != nil {
			t.Fatal(err)
		}
		if ra.Plus != rb.Plus || ra.Minus != rb.Minus {
			t.Fatalf("step %d: winners (%d, %d) against (%d, %d)", s, ra.Plus, ra.Minus, rb.Plus, rb.Minus)
		}
		for _, k := range []int{ra.Plus, ra.Minus} {
			worst = math.Max(worst, sameSpan(a.protos[k], b.protos[k]))
		}
	}
	if worst > 1e-10 {
		t.Errorf("rotation and CGS2 spans differ by up to %.3g rad", worst)
	}
	t.Logf("600 steps at η=%g: spans agree to %.3g rad", eta, worst)

	// The general route when forced: the same bits as generalStep.
	defer func(v float64) { minRotationNorm = v }(minRotationNorm)
	minRotationNorm = math.Inf(1)
	for k := range a.protos {
		a.protos[k].CopyFrom(b.protos[k])
	}
	for s := 0; s < 50; s++ {
		i := (s * 5) % len(x)
		if _, err := a.stepSample(Image(x[i]), y[i], eta, 0); err != nil {
			t.Fatal(err)
		}
		if _, err := generalStep(b, x[i], y[i], eta); err != nil {
			t.Fatal(err)
		}
	}
	for k := range a.protos {
		if !sameBits(a.protos[k], b.protos[k]) {
			t.Fatalf("forced general route: prototype %d differs from W += x cᵀ then CGS2", k)
		}
	}
	minRotationNorm = 1.0 / 16

	// Drift: 100,000 rotations at a large rate.
	for s := 0; s < 100000; s++ {
		i := (s * 13) % len(x)
		if _, err := a.stepSample(Image(x[i]), y[i], 0.5, 0); err != nil {
			t.Fatal(err)
		}
	}
	for k, w := range a.protos {
		if e := linalg.OrthonormalityError(w); e > 1e-12 {
			t.Errorf("prototype %d: orthonormality error %.3g after 100,000 steps", k, e)
		} else if k == 0 {
			t.Logf("orthonormality error after 100,000 steps: %.3g", e)
		}
	}
}

// TestStepImageHugeSteps: steps far too large for the rotation (they
// cancel the moving direction) take the general route or fail cleanly:
// never a NaN, never a non-orthonormal basis.
func TestImageStepHugeSteps(t *testing.T) {
	x, y := synthImages(5, 20, 2, 3, 10, 0.2)
	m, err := Init(legacyOptions(Config{SubspaceDim: 3}, TrainConfig{Init: InitPCA}), Images(x), y)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := newTrainer(m, legacyTrain(TrainConfig{Workers: 1}))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	for _, eta := range []float64{1, 3, 10, 1e3, 1e8} {
		for i := range x {
			if _, err := tr.stepSample(Image(x[i]), y[i], eta, 0); err != nil {
				continue
			}
			for k, w := range tr.protos {
				if e := linalg.OrthonormalityError(w); !(e < 1e-12) {
					t.Fatalf("η=%g image %d: prototype %d orthonormality error %v", eta, i, k, e)
				}
			}
		}
	}
}

// TestStepImageCancellingStep: an image lying almost in a prototype of
// another class, and the one rate at which the step pushes that
// prototype's matching direction to (nearly) zero: the rotation cannot be
// trusted there, and an image step must take the general route (the same bits
// as W += x cᵀ then CGS2) or fail with nothing changed.
func TestImageStepCancellingStep(t *testing.T) {
	x, y := synthImages(15, 20, 2, 2, 6, 0.2)
	m, err := Init(legacyOptions(Config{SubspaceDim: 3}, TrainConfig{Init: InitPCA}), Images(x), y)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tilt := range []float64{1e-2, 1e-3, 1e-6} {
		a, err := newTrainer(m, legacyTrain(TrainConfig{Workers: 1}))
		if err != nil {
			t.Fatal(err)
		}
		b, err := newTrainer(m, legacyTrain(TrainConfig{Workers: 1}))
		if err != nil {
			t.Fatal(err)
		}
		img, label := x[0], y[0]
		other := 1 - label // the prototype of the other class (one per class)
		w := a.protos[other]
		for r := 0; r < w.Rows; r++ {
			w.Set(r, 0, img[r]+tilt*rng.NormFloat64())
			for c := 1; c < w.Cols; c++ {
				w.Set(r, c, rng.NormFloat64())
			}
		}
		if err := a.orth.Orthonormalize(w); err != nil {
			t.Fatal(err)
		}
		b.protos[other].CopyFrom(w)
		nrm, _ := imageScale(img)
		r, err := a.imageGradient(img, label, nrm)
		if err != nil {
			t.Fatal(err)
		}
		if r.Minus != other {
			t.Fatalf("minus winner %d, want %d", r.Minus, other)
		}
		// α = −η f ‖Wᵀx‖ = −1/‖x‖ makes v + α x vanish (v ≈ x/‖x‖).
		eta := 1 / (nrm * a.imgF[1] * a.imgNorm[1])
		if !(eta > 0) {
			t.Fatalf("rate %v", eta)
		}
		before := linalg.NewDense(w.Rows, w.Cols)
		before.CopyFrom(w)
		_, errA := a.stepSample(Image(img), label, eta, 0)
		rb, _ := b.imageGradient(img, label, nrm)
		_, errB := b.stepImageCGS2(rb, img, eta)
		if (errA == nil) != (errB == nil) {
			t.Fatalf("tilt %g: image step %v, general route %v", tilt, errA, errB)
		}
		if errA != nil {
			if !sameBits(a.protos[other], before) {
				t.Errorf("tilt %g: failed step changed the prototype", tilt)
			}
		} else {
			for k := range a.protos {
				if !sameBits(a.protos[k], b.protos[k]) {
					t.Errorf("tilt %g: prototype %d is not the general route's", tilt, k)
				}
				if e := linalg.OrthonormalityError(a.protos[k]); !(e < 1e-12) {
					t.Errorf("tilt %g: prototype %d orthonormality error %v", tilt, k, e)
				}
			}
		}
		t.Logf("tilt %g: η = %.4g, error %v", tilt, eta, errA)
		a.Close()
		b.Close()
	}
}

// TestImageScale: ‖x‖ at any scale (the fast sum of squares inside the
// safe range, the scaled pass outside it), and the errors.
func TestImageScale(t *testing.T) {
	x, _ := synthImages(3, 50, 2, 2, 1, 0.5)
	img := x[0]
	want := 0.0
	for _, v := range img {
		want += v * v
	}
	want = math.Sqrt(want)
	for _, s := range []float64{1, 1e-300, 1e-200, 1e-100, 1e100, 1e200, 1e300} {
		y := make([]float64, len(img))
		for i, v := range img {
			y[i] = v * s
		}
		got, err := imageScale(y)
		if err != nil {
			t.Fatalf("scale %g: %v", s, err)
		}
		if r := got / (want * s); math.Abs(r-1) > 1e-14 {
			t.Errorf("scale %g: ‖x‖ = %g, want %g", s, got, want*s)
		}
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		y := append([]float64(nil), img...)
		y[7] = bad
		if _, err := imageScale(y); !errors.Is(err, ErrNotFinite) {
			t.Errorf("pixel %v: %v", bad, err)
		}
	}
	if _, err := imageScale(make([]float64, 9)); !errors.Is(err, ErrData) {
		t.Errorf("zero image: %v", err)
	}
}
