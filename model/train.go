package model

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"time"

	"github.com/grlgq/grlgq/engine"
	"github.com/grlgq/grlgq/folds"
	"github.com/grlgq/grlgq/kernels"
	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/subspace"
	"github.com/grlgq/grlgq/svd"
)

// PCG streams of the seeded random choices (one per purpose, so that e.g.
// the validation split does not shift the initialisation).
const (
	streamInit = 0x494e4954_00000000 // "INIT"
	streamPerm = 0x5045524d_00000000 // "PERM" + epoch
)

// permutation returns the order in which Train visits n training sets in
// the (0-based, lifetime) epoch e: a Fisher–Yates shuffle of 0..n-1,
//
//	src := rand.NewPCG(seed, 0x5045524d00000000+uint64(e))
//	for i := n-1; i > 0; i-- { j := bounded(src, i+1); p[i], p[j] = p[j], p[i] }
//
// where bounded(src, k) is Lemire's multiply-shift: the high word of
// src.Uint64()·k, redrawn while the low word is below (2⁶⁴ − k) mod k. It is
// spelled out so that other implementations can reproduce a training run.
func permutation(seed uint64, epoch, n int) []int {
	p := make([]int, n)
	permutationTo(p, seed, epoch)
	return p
}

// permutationTo writes permutation(seed, epoch, len(dst)) into dst.
func permutationTo(dst []int, seed uint64, epoch int) {
	for i := range dst {
		dst[i] = i
	}
	src := rand.NewPCG(seed, streamPerm+uint64(epoch))
	for i := len(dst) - 1; i > 0; i-- {
		j := bounded(src, uint64(i+1))
		dst[i], dst[j] = dst[j], dst[i]
	}
}

// bounded returns a uniform integer in [0, k) (Lemire 2019).
func bounded(src *rand.PCG, k uint64) int {
	hi, lo := bits.Mul64(src.Uint64(), k)
	if lo < k {
		thresh := -k % k
		for lo < thresh {
			hi, lo = bits.Mul64(src.Uint64(), k)
		}
	}
	return int(hi)
}

// EpochStats are the statistics of one training epoch.
type EpochStats struct {
	// Epoch is the lifetime number of the epoch, from 1 (the model's
	// Epochs() after it).
	Epoch int
	// Eta and Gamma are the learning rates the schedule gave this epoch.
	Eta, Gamma float64
	// Cost is the mean over the epoch's steps of (class weight)·φ(μ), each
	// taken before its step's update; skipped steps (μ undefined) are left
	// out (NaN when every step was skipped).
	Cost float64
	// Skipped is the number of the epoch's steps that had no gradient and
	// changed nothing (both winners at distance 0).
	Skipped int
	// Augmented is the number of samples TrainConfig.Augment added to the
	// epoch (its steps count in Cost, Skipped and TrainAccuracy).
	Augmented int
	// TrainAccuracy is the fraction of the epoch's steps whose sample was
	// classified correctly (W⁺ nearer than W⁻, ties to the lower index)
	// before its update: a running accuracy, free to compute.
	TrainAccuracy float64
	// ValAccuracy is the accuracy on the validation part after the epoch
	// (NaN without one).
	ValAccuracy float64
	// Relevances after the epoch (a copy; layout as Model.Relevances).
	Relevances []float64
	// Duration is the wall time of the epoch (with validation).
	Duration time.Duration
	// Model, set only in the EpochStats passed to TrainConfig.OnEpoch,
	// returns a copy of the model after the epoch (the prototypes and
	// relevances trained so far, Epochs() = Epoch: a checkpoint, which
	// Continue resumes bit for bit when the schedule allows; see
	// Continue). It costs one copy of the prototypes; it must not be
	// called after OnEpoch returns. The copy predicts with the training's
	// Workers (Model.WithWorkers), as the model of an Augment hook does.
	Model func() *Model `json:"-"`
	// Search counts the work of the epoch's winners' searches (set
	// steps): the prototypes they considered, and for how many of them
	// singular values were enclosed (the Gram route) or computed (the
	// SVD); the rest were ruled out by the bounds of ‖Pᵀ W‖_F alone.
	Search SearchStats
}

// SearchStats counts the work of pruned searches (EpochStats.Search: the
// winners' searches of an epoch; Model.SearchStats: the nearest-
// prototype searches of PredictLabelsTo and Score): the prototypes
// considered; how many had their singular values enclosed (the Gram route)
// or computed (the SVD); how many were not even projected; and (winners'
// searches) how often the enclosures left two or more candidates of a
// winner within their width, a tie settled on the values. Float64
// counts (winners' searches of a Float64 model run with the engine's
// float32 shadow: engine.SetShadow32) the prototypes projected in float64
// after their float32 projections: the winners and the candidates the
// float32 bounds could not rule out; 0 where every projection is
// float64's (or float32's, a Float32 model).
type SearchStats struct {
	Prototypes, Enclosed, Valued, Skipped, Ties, Float64 int64
}

// History records a training run.
type History struct {
	Epochs []EpochStats
	// Best is the index into Epochs of the epoch whose model was returned
	// (the best validation accuracy with early stopping; else the last).
	// -1 when no epoch ran.
	Best int
	// EarlyStopped reports that Patience ended training.
	EarlyStopped bool
	// Stopped reports that TrainConfig.OnEpoch ended training by returning
	// ErrStop (after the last epoch in Epochs).
	Stopped bool
	// Averaged is the number of epochs' models averaged into the returned
	// model (TrainConfig.AverageLast; 0 without), and AveragedValAccuracy the
	// averaged model's accuracy on the validation part (NaN without
	// averaging or validation).
	Averaged            int
	AveragedValAccuracy float64
	// Train and Val are the indices (into the samples given to Train or
	// Continue) of the training and the validation part
	// (folds.ValidationSplit); samples an Augment hook added are in
	// neither.
	Train, Val []int
}

// Skipped returns the number of steps of the run that had no gradient
// (EpochStats.Skipped summed over the epochs).
func (h *History) Skipped() int {
	n := 0
	for _, s := range h.Epochs {
		n += s.Skipped
	}
	return n
}

// stepResult reports one SGD step: the winners and distances before the
// update.
type stepResult struct {
	Plus, Minus   int     // indices of W⁺ and W⁻
	DPlus, DMinus float64 // their distances d⁺, d⁻
	Mu            float64 // (d⁺ − d⁻)/(d⁺ + d⁻)
	Cost          float64 // weight·φ(μ)
	Correct       bool    // W⁺ was the nearest prototype
	// Skipped reports a step without a gradient: both winners at distance
	// 0 (d⁺ + d⁻ <= 1e-14, i.e. 0 up to the rounding of the angles; μ
	// undefined), e.g. the same subspace in two classes. It changed
	// nothing; Mu and Cost are 0, Correct is d⁺ < d⁻ with ties to the
	// lower index.
	Skipped bool
}

// Init returns the untrained model of structure opt.Model that Train
// starts from when given these training samples (Train calls it on the
// training part of its split): the prototypes placed by opt.Train.Init
// from opt.Train.Seed, relevances 1/d, Epochs() 0, the PredictConfig
// opt.Predict. Labels are 0..C-1 with
// C = max(y)+1 >= 2; every class needs a sample (InitRandom excepted for
// images). The samples are all sets or all images:
//
// For sets, InitSample starts a prototype at a random training set of its
// class (plus InitNoise), InitPCA at the dominant subspace of the class's
// bases; d is opt.Model.SubspaceDim, or the bases' number of columns when 0.
//
// For images, opt.Model.SubspaceDim is required (>= 1), and per class:
//   - InitPCA: the subspace of the class's training images taken as one
//     image set: the top d left singular vectors of the D x n matrix of
//     its images as they are (uncentred, unnormalised, like the subspace
//     of any image set); later prototypes of a class from bootstrap
//     resamples of its images;
//   - InitSample: the span of d distinct random images of the class, plus
//     InitNoise, orthonormalised (the class needs d images);
//   - InitRandom: a random orthonormal basis.
//
// Init runs to the end; Train, which calls it, stops the initialisation
// when its ctx is done.
func Init(opt Options, x []Sample, y []int) (*Model, error) {
	return initModel(context.Background(), opt, x, y)
}

// initModel is Init, stopped with ctx's error (wrapped) when ctx is done:
// checked before each prototype and in each iteration of InitPCA's
// subspace iteration.
func initModel(ctx context.Context, opt Options, x []Sample, y []int) (*Model, error) {
	k, err := kindOf(x)
	if err != nil {
		return nil, err
	}
	if k == kindImage {
		return initImages(ctx, opt, images(x), y)
	}
	return initSets(ctx, opt, sets(x), y)
}

// sets returns the subspaces of the set samples x.
func sets(x []Sample) []*subspace.Subspace {
	out := make([]*subspace.Subspace, len(x))
	for i, s := range x {
		out[i] = s.set
	}
	return out
}

// images returns the pixels of the image samples x.
func images(x []Sample) [][]float64 {
	out := make([][]float64, len(x))
	for i, s := range x {
		out[i] = s.img
	}
	return out
}

// normalise returns opt checked, its training options normalised (Workers
// 0: all cores; no hooks).
func normalise(opt Options) (Options, error) {
	if err := opt.Train.validate(); err != nil {
		return opt, err
	}
	opt.Train = opt.Train.normalised()
	if err := opt.Model.validate(); err != nil {
		return opt, err
	}
	return opt, opt.Predict.validate()
}

// initSets is initModel for training sets.
func initSets(ctx context.Context, opt Options, x []*subspace.Subspace, y []int) (*Model, error) {
	opt, err := normalise(opt)
	if err != nil {
		return nil, err
	}
	dim, d, classes, err := checkData(&opt.Model, x, y, -1, -1, -1, nil)
	if err != nil {
		return nil, err
	}
	m, err := newModel(opt, dim, d, classes)
	if err != nil {
		return nil, err
	}
	if err := initPrototypes(ctx, m, x, y); err != nil {
		return nil, err
	}
	return m, nil
}

// newModel returns a model of the given shape without prototypes, its
// relevances at 1/d, after the checks of the configuration against the
// shape that initSets and initImages share.
func newModel(opt Options, dim, d, classes int) (*Model, error) {
	cfg := opt.Model
	if cfg.PrototypesOfClass != nil && len(cfg.PrototypesOfClass) != classes {
		return nil, fmt.Errorf("model: %w: PrototypesOfClass has %d entries for %d classes", ErrConfig, len(cfg.PrototypesOfClass), classes)
	}
	if cfg.ClassNames != nil && len(cfg.ClassNames) != classes {
		return nil, fmt.Errorf("model: %w: ClassNames has %d entries for %d classes", ErrConfig, len(cfg.ClassNames), classes)
	}
	if err := cfg.checkClassNames(); err != nil {
		return nil, err
	}
	if err := cfg.checkImageSize(dim); err != nil {
		return nil, err
	}
	cfg.SubspaceDim = d
	labels := cfg.prototypeLabels(classes)
	if len(labels) > MaxPrototype {
		return nil, fmt.Errorf("model: %w: %d prototypes (limit %d)", ErrConfig, len(labels), MaxPrototype)
	}
	m := &Model{cfg: cfg, train: opt.Train, pred: opt.Predict, dim: dim, d: d, classes: classes, labels: labels}
	m.cfg.PrototypesOfClass = append([]int(nil), cfg.PrototypesOfClass...)
	m.cfg.ClassNames = append([]string(nil), cfg.ClassNames...)
	nl := d
	if cfg.Relevance == RelevanceLocal {
		nl = len(labels) * d
	}
	m.lambda = make([]float64, nl)
	for i := range m.lambda {
		m.lambda[i] = 1 / float64(d)
	}
	return m, nil
}

// dataOrthoTol is the loss of orthonormality accepted in a training basis.
const dataOrthoTol = 1e-6

// exactDataTol is the largest max |PᵀP − I| of a training set that Train
// and Continue step by the exact update (stepSample); sets further from
// orthonormal (up to dataOrthoTol) take the general route.
const exactDataTol = 1e-14

// checkData validates training sets and labels and returns D, d and the
// number of classes (max label + 1). dim, d, classes >= 0 are required
// values (a model's); -1 means "take from the data". When orthoErr is not
// nil, orthoErr[i] receives set i's max |PᵀP − I|.
func checkData(cfg *Config, x []*subspace.Subspace, y []int, dim, d, classes int, orthoErr []float64) (int, int, int, error) {
	if len(x) == 0 || len(x) != len(y) {
		return 0, 0, 0, fmt.Errorf("model: %w: %d sets and %d labels", ErrData, len(x), len(y))
	}
	if d < 0 {
		d = cfg.SubspaceDim
	}
	maxLabel := -1
	var gram []float64 // PᵀP, reused: one allocation per call, not per set
	for i, s := range x {
		if s == nil || s.Basis == nil {
			return 0, 0, 0, fmt.Errorf("model: %w: set %d has no basis", ErrData, i)
		}
		b := s.Basis
		if dim < 0 {
			dim = b.Rows
		}
		if d <= 0 {
			d = b.Cols
		}
		if b.Rows != dim || b.Cols != d {
			return 0, 0, 0, fmt.Errorf("model: %w: set %d has a %d x %d basis, want %d x %d", ErrData, i, b.Rows, b.Cols, dim, d)
		}
		if b.Stride < b.Cols || len(b.Data) < (b.Rows-1)*b.Stride+b.Cols {
			return 0, 0, 0, fmt.Errorf("model: %w: set %d: basis of %d x %d has stride %d and %d values", ErrData, i, b.Rows, b.Cols, b.Stride, len(b.Data))
		}
		if err := b.Validate(); err != nil {
			return 0, 0, 0, fmt.Errorf("model: set %d: %w: %v", i, ErrNotFinite, err)
		}
		if n := b.Cols * b.Cols; len(gram) < n {
			gram = make([]float64, n)
		}
		e := orthonormalityError(gram, b)
		if !(e <= dataOrthoTol) {
			return 0, 0, 0, fmt.Errorf("model: %w: set %d: %s", ErrData, i, notOrthonormal(e))
		}
		if orthoErr != nil {
			orthoErr[i] = e
		}
		if y[i] < 0 || y[i] >= MaxClasses {
			return 0, 0, 0, fmt.Errorf("model: %w: set %d has label %d", ErrData, i, y[i])
		}
		maxLabel = max(maxLabel, y[i])
	}
	if d < 1 || d > MaxSubDim || dim < d || dim > MaxDim {
		return 0, 0, 0, fmt.Errorf("model: %w: subspaces of dimension %d in %d pixels", ErrData, d, dim)
	}
	if classes < 0 {
		classes = maxLabel + 1
		if classes < 2 {
			return 0, 0, 0, fmt.Errorf("model: %w: need at least 2 classes, labels go up to %d", ErrData, maxLabel)
		}
	} else if maxLabel >= classes {
		return 0, 0, 0, fmt.Errorf("model: %w: label %d but the model has %d classes", ErrData, maxLabel, classes)
	}
	return dim, d, classes, nil
}

// notOrthonormal is the message of a basis further than dataOrthoTol from
// orthonormal, e its max |PᵀP − I|: training's and prediction's.
func notOrthonormal(e float64) string {
	return fmt.Sprintf("basis columns not orthonormal (max |PᵀP − I| = %.3g)", e)
}

// checkSampleBasis checks the basis of a set to classify (its shape
// checked against the model's) as training checks its sets: its stride
// and length, and max |PᵀP − I| <= dataOrthoTol, with PᵀP (one
// kernels.AtB) in gram (len >= Cols²; nothing allocated). The error
// wraps ErrData, or ErrNotFinite for a basis that holds a NaN or an
// infinity (looked for only when the check fails).
func checkSampleBasis(gram []float64, b *linalg.Dense) error {
	if b.Stride < b.Cols || len(b.Data) < (b.Rows-1)*b.Stride+b.Cols {
		return fmt.Errorf("model: %w: basis of %d x %d has stride %d and %d values", ErrData, b.Rows, b.Cols, b.Stride, len(b.Data))
	}
	e := orthonormalityError(gram, b)
	if e <= dataOrthoTol {
		return nil
	}
	if err := b.Validate(); err != nil {
		return fmt.Errorf("model: %w: %v", ErrNotFinite, err)
	}
	return fmt.Errorf("model: %w: %s", ErrData, notOrthonormal(e))
}

// orthonormalityError is linalg.OrthonormalityError(b) (max |BᵀB − I|,
// NaN if any entry is) with BᵀB in the caller's gram (len >= Cols²).
func orthonormalityError(gram []float64, b *linalg.Dense) float64 {
	n := b.Cols
	linalg.Gram(gram, n, b)
	var worst float64
	for i := 0; i < n; i++ {
		for j, v := range gram[i*n : i*n+n] {
			if i == j {
				v--
			}
			if v = math.Abs(v); v > worst || v != v {
				worst = v
			}
		}
	}
	return worst
}

// Train initialises a model of structure opt.Model (Init on the training
// part) and trains it for opt.Train.Epochs epochs (Algorithm 2:
// per-sample SGD over a seeded permutation of the training part each
// epoch, see the package documentation). The samples are all sets (steps
// on their bases) or all single images (steps on 1-D subspaces: one
// angle, relevances untouched), for models that will classify single
// images; the images are read, never changed or kept. With
// ValidationFraction > 0 the validation part (folds.ValidationSplit) is
// held out and evaluated after every epoch; an Augment hook adds samples
// to every epoch. The model predicts with opt.Predict. Train(ctx, opt, x,
// y) gives the same model as Continue(ctx, Init(opt, train part),
// opt.Train, x, y). Epochs = 0 returns the initial model and an empty
// History.
//
// Training stops early on ctx's cancellation, on Patience, or when OnEpoch
// returns ErrStop. ctx is checked first, during the initialisation (before
// each prototype, and in each iteration of InitPCA's subspace iteration),
// before the first epoch and before every step. On an error (cancellation
// included) Train returns the error together with the model as it stands
// (every step before the failing one applied; a failing step never changes
// it) and the history so far; a setup error, and a cancellation before the
// initial model is made, return a nil model and history. The error of a
// cancellation names the epoch it stopped in, or the prototype being
// initialised, or says that training had not started.
func Train(ctx context.Context, opt Options, x []Sample, y []int) (*Model, *History, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, notStarted(err)
	}
	k, err := kindOf(x)
	if err != nil {
		return nil, nil, err
	}
	dt := newData(k, x, y)
	tr, va, err := splitData(opt.Train, len(x), y, -1, dt.item())
	if err != nil {
		return nil, nil, err
	}
	yt := make([]int, len(tr))
	xt := make([]Sample, len(tr))
	for i, j := range tr {
		xt[i], yt[i] = x[j], y[j]
	}
	m, err := initModel(ctx, opt, xt, yt)
	if err != nil {
		return nil, nil, err
	}
	return runData(ctx, m, opt.Train, dt, tr, va)
}

// Continue trains a copy of m for tc.Epochs more epochs on (x, y), which
// may be the old training data or new data with the model's classes, sets
// or single images whatever m was trained on. The model's Config, its
// PredictConfig and the Init and InitNoise it was made with are kept; the
// other options (rates, schedule, activation, epochs, validation, seed,
// workers) are tc's. Epoch numbers, and so the schedule and the
// permutations, continue from m.Epochs(). m is not changed.
//
// A checkpoint (EpochStats.Model after epoch k of a Train or Continue)
// continued for the remaining epochs with the same data and TrainConfig
// gives the model an uninterrupted run would have, bit for bit, when
// training keeps no state beyond the model: without early stopping
// (Patience with a validation part: its best model and counter restart),
// AverageLast (its tail of models restarts) and an Augment hook that
// depends on more than the model and the epoch.
//
// ctx is checked as in Train: at the call (a nil model and history), before
// the first epoch and before every step.
func Continue(ctx context.Context, m *Model, tc TrainConfig, x []Sample, y []int) (*Model, *History, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, notStarted(err)
	}
	k, err := kindOf(x)
	if err != nil {
		return nil, nil, err
	}
	dt := newData(k, x, y)
	tr, va, err := splitData(tc, len(x), y, m.classes, dt.item())
	if err != nil {
		return nil, nil, err
	}
	return runData(ctx, m, tc, dt, tr, va)
}

// splitData validates cfg and the labels y of n training items (called
// item in messages; labels below classes, or below MaxClasses when classes
// < 0) and returns the training and validation parts (folds.ValidationSplit):
// the common start of Train and Continue.
func splitData(c TrainConfig, n int, y []int, classes int, item string) (tr, va []int, err error) {
	if err := c.validateRun(); err != nil {
		return nil, nil, err
	}
	if n != len(y) {
		return nil, nil, fmt.Errorf("model: %w: %d %ss and %d labels", ErrData, n, item, len(y))
	}
	for i, v := range y {
		if classes < 0 && (v < 0 || v >= MaxClasses) {
			return nil, nil, fmt.Errorf("model: %w: %s %d has label %d", ErrData, item, i, v)
		}
		if classes >= 0 && (v < 0 || v >= classes) {
			return nil, nil, fmt.Errorf("model: %w: %s %d has label %d, the model has %d classes", ErrData, item, i, v, classes)
		}
	}
	tr, va = folds.ValidationSplit(y, c.ValidationFraction, c.Seed)
	return tr, va, nil
}

// trainingConfig returns the training options of tc, normalised, with the
// initialisation m was made with.
func trainingConfig(m *Model, tc TrainConfig) TrainConfig {
	c := tc.normalised()
	c.Init, c.InitNoise = m.train.Init, m.train.InitNoise
	return c
}

// data is the training data of runData: sets or single images, and their
// labels.
type data struct {
	sets []*subspace.Subspace
	imgs [][]float64
	y    []int
}

func newData(k kind, x []Sample, y []int) data {
	if k == kindImage {
		return data{imgs: images(x), y: y}
	}
	return data{sets: sets(x), y: y}
}

// item names a training sample in messages.
func (dt data) item() string {
	if dt.imgs != nil {
		return "image"
	}
	return "set"
}

// runData is the epoch loop shared by Train and Continue.
func runData(ctx context.Context, m0 *Model, tc TrainConfig, dt data, tr, va []int) (*Model, *History, error) {
	onEpoch, augment := tc.OnEpoch, tc.Augment
	cfg := trainingConfig(m0, tc)
	x, y, imgs := dt.sets, dt.y, dt.imgs
	if imgs != nil {
		if _, _, err := checkImages(imgs, y, m0.dim, m0.classes); err != nil {
			return nil, nil, err
		}
	}
	var orthoErr []float64
	if imgs == nil {
		orthoErr = make([]float64, len(x))
		if _, _, _, err := checkData(&m0.cfg, x, y, m0.dim, m0.d, m0.classes, orthoErr); err != nil {
			return nil, nil, err
		}
	}
	if len(tr) == 0 {
		return nil, nil, fmt.Errorf("model: %w: no training sets", ErrData)
	}
	t, err := newTrainer(m0, cfg)
	if err != nil {
		return nil, nil, err
	}
	defer t.Close()

	var trainX, valX []*linalg.Dense
	var trainExact []bool // the set is orthonormal enough for the exact update
	var trainI, valI [][]float64
	trainY := make([]int, len(tr))
	valY := make([]int, len(va))
	if imgs != nil {
		trainI, valI = make([][]float64, len(tr)), make([][]float64, len(va))
		for i, j := range tr {
			trainI[i], trainY[i] = imgs[j], y[j]
		}
		for i, j := range va {
			valI[i], valY[i] = imgs[j], y[j]
		}
	} else {
		trainX, valX = make([]*linalg.Dense, len(tr)), make([]*linalg.Dense, len(va))
		trainExact = make([]bool, len(tr))
		for i, j := range tr {
			trainX[i], trainY[i] = x[j].Basis, y[j]
			trainExact[i] = orthoErr[j] <= exactDataTol
		}
		for i, j := range va {
			valX[i], valY[i] = x[j].Basis, y[j]
		}
	}
	// Class weights from the training part (and, with Augment, from each
	// epoch's added samples too: see classWeights).
	if cfg.ClassWeights {
		t.classWeights(trainY, nil)
	}
	hist := &History{Best: -1, Train: tr, Val: va, AveragedValAccuracy: math.NaN()}
	var valDist []float64
	if len(va) > 0 {
		valDist = make([]float64, len(va)*len(m0.protos))
	}
	earlyStop := len(va) > 0 && cfg.Patience > 0
	var best *Model
	bestAcc := math.Inf(-1)
	order := make([]int, len(tr))

	// valAccuracy: the accuracy of the trainer's current prototypes on the
	// validation part.
	valAccuracy := func() (float64, error) {
		if valI != nil {
			return t.imageAccuracy(valI, valY)
		}
		return t.accuracy(valDist, valX, valY)
	}
	var tail []*Model // TrainConfig.AverageLast: the models after the last epochs
	finish := func(err error) (*Model, *History, error) {
		if best != nil {
			return best, hist, err
		}
		if hist.Best < 0 && len(hist.Epochs) > 0 {
			hist.Best = len(hist.Epochs) - 1
		}
		if err != nil || len(tail) == 0 {
			return t.Model(), hist, err
		}
		avg, err := Average(tail)
		if err != nil {
			return t.Model(), hist, fmt.Errorf("model: averaging the last %d epochs: %w", len(tail), err)
		}
		hist.Averaged = len(tail)
		if len(va) > 0 {
			// The averaged prototypes into the trainer's engine, for the
			// validation accuracy.
			t.eng.FreshAll()
			for k, w := range avg.protos {
				t.protos[k].CopyFrom(w)
				t.eng.Sync(k)
			}
			acc, err := valAccuracy()
			if err != nil {
				return nil, hist, fmt.Errorf("model: validation of the averaged model: %w", err)
			}
			hist.AveragedValAccuracy = acc
		}
		return avg, hist, nil
	}

	// The samples of one epoch: the training part, then (with Augment)
	// what the hook added for this epoch.
	epX, epI, epY, epExact := trainX, trainI, trainY, trainExact
	rounded := t.roundSets(trainX) // the training part in float32, or nil
	size32 := m0.dim * m0.d
	if err := ctx.Err(); err != nil {
		return finish(notStarted(err))
	}
	for e := 0; e < cfg.Epochs; e++ {
		start := time.Now()
		epoch := t.epochs
		eta, gamma := cfg.rates(epoch)
		added := 0
		if augment != nil {
			ax, ay, err := augment(ctx, t.hookModel(), epoch+1)
			if err != nil {
				return finish(fmt.Errorf("model: epoch %d: augment: %w", epoch+1, err))
			}
			if epX, epI, epY, epExact, err = t.augmented(trainX, trainI, trainY, trainExact, ax, ay); err != nil {
				return finish(fmt.Errorf("model: epoch %d: augment: %w", epoch+1, err))
			}
			added = len(ay)
			if cfg.ClassWeights {
				t.classWeights(trainY, ay)
			}
			order = order[:0]
			for range epY {
				order = append(order, 0)
			}
		}
		permutationTo(order, cfg.Seed, epoch)
		st := EpochStats{Epoch: epoch + 1, Eta: eta, Gamma: gamma, ValAccuracy: math.NaN(), Augmented: added}
		var cost float64
		correct := 0
		stats0 := t.eng.Stats()
		for _, i := range order {
			if err := ctx.Err(); err != nil {
				return finish(fmt.Errorf("model: epoch %d: %w", epoch+1, err))
			}
			var r stepResult
			var err error
			if epI != nil {
				r, err = t.stepImage(epI[i], epY[i], eta)
			} else {
				if i < len(trainX) && rounded != nil {
					t.sample32 = rounded[i*size32 : (i+1)*size32]
				}
				r, err = t.step(epX[i], epY[i], eta, gamma, epExact[i])
				t.sample32 = nil
			}
			if err != nil {
				if i >= len(tr) {
					return finish(fmt.Errorf("model: epoch %d, augmented sample %d: %w", epoch+1, i-len(tr), err))
				}
				return finish(fmt.Errorf("model: epoch %d, sample %d: %w", epoch+1, tr[i], err))
			}
			if r.Skipped {
				st.Skipped++
			} else {
				cost += r.Cost
			}
			if r.Correct {
				correct++
			}
		}
		if epI == nil {
			if err := t.checkAll(); err != nil {
				return finish(fmt.Errorf("model: epoch %d: %w", epoch+1, err))
			}
		}
		t.epochs++
		st.Cost = cost / float64(len(order)-st.Skipped)
		st.TrainAccuracy = float64(correct) / float64(len(order))
		if len(va) > 0 {
			acc, err := valAccuracy()
			if err != nil {
				return finish(fmt.Errorf("model: epoch %d, validation: %w", epoch+1, err))
			}
			st.ValAccuracy = acc
		}
		st.Relevances = append([]float64(nil), t.lambda...)
		st.Duration = time.Since(start)
		stats1 := t.eng.Stats()
		st.Search = SearchStats{
			Prototypes: stats1.Prototypes - stats0.Prototypes,
			Enclosed:   stats1.Enclosed - stats0.Enclosed,
			Valued:     stats1.Values - stats0.Values,
			Ties:       stats1.Ties - stats0.Ties,
			Float64:    stats1.Reprojected - stats0.Reprojected,
		}
		hist.Epochs = append(hist.Epochs, st)
		if earlyStop {
			if st.ValAccuracy >= bestAcc+cfg.MinDelta { // ties: the later epoch (TrainConfig.MinDelta)
				bestAcc = st.ValAccuracy
				best = t.Model()
				hist.Best = len(hist.Epochs) - 1
			} else if len(hist.Epochs)-1-hist.Best >= cfg.Patience {
				hist.EarlyStopped = true
				break
			}
		} else {
			hist.Best = len(hist.Epochs) - 1
		}
		if cfg.AverageLast > 0 && e >= cfg.Epochs-cfg.AverageLast {
			tail = append(tail, t.Model())
		}
		if onEpoch != nil {
			cb := st
			cb.Model = t.hookModel
			if err := onEpoch(cb); err != nil {
				if errors.Is(err, ErrStop) {
					hist.Stopped = true
					break
				}
				return finish(fmt.Errorf("model: epoch %d: callback: %w", epoch+1, err))
			}
		}
	}
	return finish(nil)
}

// notStarted is the error of a cancellation before the first epoch of a
// run.
func notStarted(err error) error { return fmt.Errorf("model: training not started: %w", err) }

// classWeights sets the trainer's class weights N/(C·n_c) from the labels
// of the training part and of the samples added to the epoch.
func (t *trainer) classWeights(y, added []int) {
	counts := make([]int, t.base.classes)
	for _, c := range y {
		counts[c]++
	}
	for _, c := range added {
		counts[c]++
	}
	n := len(y) + len(added)
	for c, k := range counts {
		t.weights[c] = 0
		if k > 0 {
			t.weights[c] = float64(n) / (float64(t.base.classes) * float64(k))
		}
	}
}

// augmented returns the training part followed by the samples ax (labels
// ay) an Augment hook returned, checked as training data are: of the
// training data's kind, shapes, labels of the model's classes, finite
// values, bases orthonormal (and whether each is close enough for the
// exact update).
func (t *trainer) augmented(x []*linalg.Dense, imgs [][]float64, y []int, exact []bool, ax []Sample, ay []int) ([]*linalg.Dense, [][]float64, []int, []bool, error) {
	if len(ax) != len(ay) {
		return nil, nil, nil, nil, fmt.Errorf("model: %w: %d samples and %d labels", ErrData, len(ax), len(ay))
	}
	outY := append(append(make([]int, 0, len(y)+len(ay)), y...), ay...)
	if len(ax) == 0 {
		return x, imgs, outY, exact, nil
	}
	k, err := kindOf(ax)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	m := t.base
	if imgs != nil {
		if k != kindImage {
			return nil, nil, nil, nil, fmt.Errorf("model: %w: sets added to training on images", ErrData)
		}
		add := images(ax)
		if _, _, err := checkImages(add, ay, m.dim, m.classes); err != nil {
			return nil, nil, nil, nil, err
		}
		return nil, append(append(make([][]float64, 0, len(outY)), imgs...), add...), outY, nil, nil
	}
	if k != kindSet {
		return nil, nil, nil, nil, fmt.Errorf("model: %w: images added to training on sets", ErrData)
	}
	add := sets(ax)
	orthoErr := make([]float64, len(add))
	if _, _, _, err := checkData(&m.cfg, add, ay, m.dim, m.d, m.classes, orthoErr); err != nil {
		return nil, nil, nil, nil, err
	}
	outX := append(make([]*linalg.Dense, 0, len(outY)), x...)
	outE := append(make([]bool, 0, len(outY)), exact...)
	for i, s := range add {
		outX = append(outX, s.Basis)
		outE = append(outE, orthoErr[i] <= exactDataTol)
	}
	return outX, nil, outY, outE, nil
}

// trainer runs SGD steps on a working copy of a model whose prototypes live
// in a distance engine: the engine of the one training loop (runData)
// and of its tests and step benchmarks. A trainer is not safe for
// concurrent use; Close releases its workers.
type trainer struct {
	cfg     TrainConfig
	base    *Model // structure, labels, prediction options; prototypes not current
	eng     *engine.Engine
	protos  []*linalg.Dense // engine views
	lambda  []float64       // current relevances (d or p*d)
	weights []float64       // per class, 1 unless ClassWeights
	epochs  int

	dist, theta []float64        // p, p*d
	pair        *svd.Pair        // both winners at once; its Small(side) per winner, so that both can be factorised at once on two workers
	qp, qw      [2][]float64     // d x d, stride d
	cs, th      [2][]float64     // cos θ and θ of the winners' factorisations
	bv          [2][]float64     // the winners' values with svd.Batch.Values' bits (FactorizeValues)
	needBV      [2]bool          // this step's winners whose distances come from bv
	win         engine.Winners   // this step's winners (engine.Winners)
	gv          [2][]float64     // ∂E/∂V± = U± diag(gv[±])
	gl          []float64        // ∂E/∂λ (d, or 2d for local relevances)
	coef        []float64        // update coefficients: 2 d x d per winner (exact), or B = Q_P diag(−η gv) Q_Wᵀ (general)
	v           [2]*linalg.Dense // the winners before the update (rollback); the general route's new bases
	qs, ps, qt  []float64        // d x d scratch of exactCoefficients
	fk, fb      []float64        // d: exactCoefficients' diagonals
	orth        *linalg.Orthonormalizer
	lamNew      []float64 // new relevances (d, or 2d for local: plus, minus)
	updates     []int     // exact updates of each prototype since its last drift check
	gram        []float64 // d x d: WᵀW of the drift check
	reorths     int       // re-orthonormalisations by the drift check (for the tests)
	// The current step's winners (side 0 = W⁺, 1 = W⁻) and the errors
	// of their factorisations, for the per-winner tasks run by the
	// engine's workers (factorTask, updateTask: method values made once,
	// so that handing them to engine.Tasks allocates nothing).
	sideK                  [2]int
	sideP                  *linalg.Dense // the step's sample, during updateExact's tasks
	side32                 []float32     // a Float32 model's: its float32 rounding
	sideErr                [2]error
	updErr                 [2]error // of updateTask (engine.UpdateExact)
	sideCheck              [2]bool  // a drift check follows the winner's update
	factorTask, updateTask func(side int)
	imageSolo              bool // an image step's distances run on the caller alone (soloImageWork)
	shadowTried            bool // a set step has turned the engine's float32 shadow on where it pays
	// sample32: a Float32 model's current step's sample rounded to
	// float32 (from roundSets, or by step), for the search and the
	// exact update.
	sample32 []float32
	own32    []float32     // sample32 where step rounds the sample itself
	p64      *linalg.Dense // a Float32 model's exact update: sample32 widened
	maxDrift float64       // driftCheck's tolerance: maxDrift, or maxDrift32 for a Float32 model
	// An image step: per winner, f and ‖Wᵀx‖ (coef = f Wᵀx), v = W q, the new
	// column w and ‖w‖.
	imgF, imgNorm, imgNu [2]float64
	imgV, imgW           [2][]float64
}

// soloImageWork: when p·D·d (the multiply-adds of one image's distances)
// is below it, an image step computes its distances on the caller's goroutine
// alone (engine.SetSolo): splitting so small a call saves less than moving
// the just-updated winners between cores costs (BenchmarkTrainImageStep,
// D=784, d=12, p=10: 61 µs on one worker against 82-179 µs on two). The
// bits are the same either way.
const soloImageWork = 1 << 20

// soloSetWork: when p·D·d² (the multiply-adds of one set's projections)
// is below it, the trainer's engine has one shard, so that every step runs
// on the caller's goroutine alone, for the reason of soloImageWork: a step
// of the eth80 shape (D=400, d=5, p=8: 80,000) is a few microseconds of
// work per prototype, less than moving the two updated winners between
// cores costs (BenchmarkEpoch/eth80: ours 4.0 ms against 3.2 ms on one
// worker when the steps were split; with two shards and every step on the
// caller, still 5-10% slower than one shard). Image steps are then solo
// too (p·D·d < soloImageWork). The bits are the same either way. (A
// variable for the tests, which set 0 to split the steps of small shapes
// too.)
var soloSetWork = 1 << 18

// exhaustiveSearch makes the trainers' engines compute every distance
// instead of pruning the winners' search (engine.SetExhaustive): the same
// models; the tests compare the two.
var exhaustiveSearch = false

// newTrainer returns a trainer starting at a copy of m, with the training
// options of tc (see Continue; class weights are 1).
func newTrainer(m *Model, tc TrainConfig) (*trainer, error) {
	cfg := trainingConfig(m, tc)
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	p, dim, d := len(m.protos), m.dim, m.d
	workers := cfg.Workers
	if p*dim*d*d < soloSetWork {
		workers = 1 // every step on the caller (soloSetWork)
	}
	eng, err := engine.New(dim, d, p, workers)
	if err != nil {
		return nil, fmt.Errorf("model: %w", err)
	}
	eng.SetExhaustive(exhaustiveSearch)
	if err := eng.SetDistanceKind(m.cfg.Distance.engineKind()); err != nil {
		eng.Close()
		return nil, fmt.Errorf("model: %w", err)
	}
	t := &trainer{
		cfg:       cfg,
		base:      m,
		eng:       eng,
		protos:    make([]*linalg.Dense, p),
		lambda:    append([]float64(nil), m.lambda...),
		weights:   make([]float64, m.classes),
		epochs:    m.epochs,
		dist:      make([]float64, p),
		theta:     make([]float64, p*d),
		coef:      make([]float64, max(4*d*d, 2*d)),
		orth:      linalg.NewOrthonormalizer(dim, d),
		qs:        make([]float64, d*d),
		ps:        make([]float64, d*d),
		qt:        make([]float64, d*d),
		fk:        make([]float64, d),
		fb:        make([]float64, d),
		lamNew:    make([]float64, 2*d),
		updates:   make([]int, p),
		gram:      make([]float64, d*d),
		gl:        make([]float64, 2*d),
		imageSolo: p*dim*d < soloImageWork,
	}
	t.factorTask, t.updateTask = t.factorSide, t.updateSide
	t.pair = svd.NewPair(d)
	for k := range t.protos {
		t.protos[k] = eng.Prototype(k)
		t.protos[k].CopyFrom(m.protos[k])
	}
	t.maxDrift = maxDrift
	if m.cfg.Precision == Float32 {
		// Prototypes rounded to float32 (they already are, but for a model
		// made by hand), projections in float32; the drift check's
		// tolerance is that of float32 values.
		eng.SetFloat32(true)
		t.maxDrift = maxDrift32
	}
	for c := range t.weights {
		t.weights[c] = 1
	}
	for s := 0; s < 2; s++ {
		t.qp[s] = make([]float64, d*d)
		t.qw[s] = make([]float64, d*d)
		t.cs[s] = make([]float64, d)
		t.bv[s] = make([]float64, d)
		t.th[s] = make([]float64, d)
		t.gv[s] = make([]float64, d)
		if t.protos[0].Stride == d {
			// The engine's prototypes are contiguous (stride d): so are
			// the copies, and CopyFrom and addTo between them run in
			// one sweep instead of row by row.
			t.v[s] = linalg.NewDenseOn(dim, d, d, linalg.AlignedSlice(dim*d))
		} else {
			t.v[s] = linalg.NewDense(dim, d)
		}
		t.imgV[s] = make([]float64, dim)
		t.imgW[s] = make([]float64, dim)
	}
	return t, nil
}

// Close releases the trainer's workers.
func (t *trainer) Close() {
	if t.eng != nil {
		t.eng.FreshAll() // the prototypes outlive the engine (Model)
		t.eng.Close()
		t.eng = nil
	}
}

// Model returns a snapshot of the model being trained.
func (t *trainer) Model() *Model {
	if t.eng != nil {
		t.eng.FreshAll()
	}
	m := &Model{
		cfg:     t.base.Config(),
		train:   t.cfg,
		pred:    t.base.pred,
		dim:     t.base.dim,
		d:       t.base.d,
		classes: t.base.classes,
		labels:  append([]int(nil), t.base.labels...),
		protos:  make([]*linalg.Dense, len(t.protos)),
		lambda:  append([]float64(nil), t.lambda...),
		epochs:  t.epochs,
	}
	for k, w := range t.protos {
		m.protos[k] = linalg.NewDense(m.dim, m.d)
		m.protos[k].CopyFrom(w)
	}
	return m
}

// hookModel is the snapshot a hook gets (Augment, EpochStats.Model): it
// is used during the run, so it predicts with the run's Workers, while
// the model Train returns takes all cores (see Model.WithWorkers).
func (t *trainer) hookModel() *Model {
	m := t.Model()
	m.workers = t.cfg.Workers
	return m
}

// relevanceOf returns the current relevances of prototype k (a view).
func (t *trainer) relevanceOf(k int) []float64 {
	d := t.base.d
	if len(t.lambda) == d {
		return t.lambda
	}
	return t.lambda[k*d : (k+1)*d]
}

// stepSample performs one SGD step of GRLGQ (Algorithm 2) on the training sample
// x with label y, with learning rates eta and gamma (gamma is not used by
// an image: see the comment at the top of images.go). It allocates
// nothing; on error nothing changes.
//
// For a set, with basis p (D x d, orthonormal columns to working
// precision):
//
//  1. distances to all prototypes (engine); W⁺ = nearest with label y, W⁻ =
//     nearest with another label, ties to the lowest index;
//     μ = (d⁺ − d⁻)/S, S = d⁺ + d⁻; c = φ'(μ)·weight(y); when S = 0 (both
//     winners at distance 0 up to rounding, S <= 1e-14: no gradient) the
//     step is skipped (stepResult.Skipped) and changes nothing;
//  2. for each winner, Pᵀ W = Q_P diag(cos θ) Q_Wᵀ (angles recomputed from
//     this factorisation), U = P Q_P, V = W Q_W, G = diag(2 λ_k θ_k/sin θ_k)
//     (Chordal: G = diag(2 λ_k cos θ_k), the derivative of λ_k sin²θ_k
//     with respect to cos θ_k, bounded at θ = 0 without a series);
//  3. W⁺ ← V⁺ + η c (2d⁻/S²) U⁺G⁺ and W⁻ ← V⁻ − η c (2d⁺/S²) U⁻G⁻, each
//     column then normalised: with a_j the coefficient of u_j, the new
//     column v_j + a_j u_j is orthogonal to the others (u_iᵀv_j = 0 and
//     u_iᵀu_j = 0 for i ≠ j: principal vectors) and has the norm
//     n_j = √(1 + a_j(2 cos θ_j + a_j)), so the new basis, rotated back
//     by Q_Wᵀ (only the span matters), W ← W (I + K) + P B with
//     K = Q_W diag(1/n − 1) Q_Wᵀ and B = Q_P diag(a/n) Q_Wᵀ, is
//     orthonormal without a re-orthonormalisation (one pass over the D
//     rows; see exactCoefficients). A step so large that some n_j < 1/2
//     takes the general route instead: W ← W + P Q_P diag(a) Q_Wᵀ (the
//     same span as V + U diag(a)), then CGS2. Every 32nd update of a
//     prototype checks max |WᵀW − I| and re-orthonormalises it (CGS2)
//     above 4e-15;
//  4. λ ← λ − γ c (2/S²)(d⁻ θ⁺² − d⁺ θ⁻²) (Chordal: sin²θ for θ², from
//     the factorisation's cosines as (1 − cos θ)(1 + cos θ); local: each
//     winner's own λ gets its term), floored at RelevanceFloor,
//     renormalised to sum 1.
//
// Every gradient uses the state before the step. On error nothing changes
// (a prototype's basis may be rotated within its span, which no distance
// sees).
//
// The exact update keeps the prototypes orthonormal only as far as p is:
// a basis orthonormal to rounding (any basis made by package subspace or
// linalg) adds nothing measurable, one that is not (Train and Continue
// accept bases up to 1e-6 from orthonormal) adds about a_i a_j (PᵀP − I)
// to WᵀW at every step, until the next drift check. Train and Continue
// step sets further than 1e-14 from orthonormal by the general route and
// check every prototype after each epoch.
//
// For a single image x (len Dim(), any positive scale): distances θ_1²
// (Chordal: sin²θ_1) to all prototypes (engine), winners as for a set
// (both at distance 0: the step is skipped, stepResult.Skipped), then the
// rank-one updates of W⁺
// and W⁻, each an exact rotation of the one direction that moves (O(D d),
// no re-orthonormalisation). Relevances are not changed.
func (t *trainer) stepSample(x Sample, y int, eta, gamma float64) (stepResult, error) {
	switch x.kind() {
	case kindSet:
		return t.step(x.set.Basis, y, eta, gamma, true)
	case kindImage:
		return t.stepImage(x.img, y, eta)
	}
	return stepResult{}, emptySample()
}

// step is stepSample on a set; exact = false forces the general update (W + P B, then
// CGS2), which does not rely on p's orthonormality.
func (t *trainer) step(p *linalg.Dense, y int, eta, gamma float64, exact bool) (stepResult, error) {
	if t.base.cfg.Precision == Float32 && t.sample32 == nil {
		// A Float32 model's search and exact update read the sample
		// rounded to float32: rounded here where the caller has not
		// (roundSets).
		if err := t.base.checkBasis(p); err != nil {
			return stepResult{}, err
		}
		if t.own32 == nil {
			t.own32 = make([]float32, t.base.dim*t.base.d)
		}
		kernels.Round32Rows(t.own32, t.base.d, p.Data, p.Stride, t.base.dim, t.base.d)
		t.sample32 = t.own32
		defer func() { t.sample32 = nil }()
	}
	r, err := t.gradient(p, y)
	if err != nil || r.Skipped {
		return r, err
	}
	d := t.base.d
	plus, minus := r.Plus, r.Minus
	defer t.sync(plus, minus)

	// New relevances into scratch: λ − γ ∂E/∂λ, floored and renormalised.
	learnRel := t.base.cfg.Relevance != RelevanceNone
	if learnRel {
		if t.base.cfg.Relevance == RelevanceGlobal {
			for k, l := range t.lambda {
				t.lamNew[k] = l - float64(gamma*t.gl[k])
			}
		} else {
			lp, lm := t.relevanceOf(plus), t.relevanceOf(minus)
			for k := 0; k < d; k++ {
				t.lamNew[k] = lp[k] - float64(gamma*t.gl[k])
				t.lamNew[d+k] = lm[k] - float64(gamma*t.gl[d+k])
			}
			if err := t.normalise(t.lamNew[d:]); err != nil {
				return r, err
			}
		}
		if err := t.normalise(t.lamNew[:d]); err != nil {
			return r, err
		}
	}

	if exact {
		exact, err = t.exactCoefficients(r, eta)
		if err != nil {
			return r, err
		}
	}
	if exact {
		if err := t.updateExact(p, r); err != nil {
			return r, err
		}
	} else if err := t.updateGeneral(p, r, eta); err != nil {
		return r, err
	}
	if learnRel {
		if t.base.cfg.Relevance == RelevanceGlobal {
			copy(t.lambda, t.lamNew[:d])
		} else {
			copy(t.relevanceOf(plus), t.lamNew[:d])
			copy(t.relevanceOf(minus), t.lamNew[d:])
		}
	}
	return r, nil
}

// minExactNorm: below this new column norm n_j (1 when the step is small)
// a step takes the general route instead of the exact update, whose
// rounding error grows as 1/n_j² (a variable for the tests).
var minExactNorm = 0.5

// exactCoefficients writes, for each winner (side s), the coefficients of
// the exact update W ← W (I + K) + P B into t.coef, the 2d x d matrix
// [I + K; B] (stride d) at t.coef[2s·d²:]: K = Q_W diag(1/n − 1) Q_Wᵀ and
// B = Q_P diag(a/n) Q_Wᵀ, where
// a_j = −η t.gv[s][j] and n_j = ‖v_j + a_j u_j‖ = √(1 + a_j(2 cos θ_j + a_j)).
// This is (V N⁻¹ + U diag(a) N⁻¹) Q_Wᵀ: the new principal vectors,
// normalised, rotated back to W's frame. Written so, the identity
// Q_W Q_Wᵀ = I is used instead of computed: the rounding of Q_W, which
// would enter W at every step (and did: 1e-12 after 2,000 steps at
// η = 0.01), enters only in proportion to the step (K and B vanish with
// a). It reports false when some n_j is below minExactNorm (the general
// route must be taken), and an error when a coefficient is not finite.
// Nothing is changed but t.coef and the scratch t.qs, t.ps, t.qt.
func (t *trainer) exactCoefficients(r stepResult, eta float64) (bool, error) {
	d := t.base.d
	dd := d * d
	for side, k := range [2]int{r.Plus, r.Minus} {
		qp, qw, g, cs := t.qp[side], t.qw[side], t.gv[side], t.cs[side]
		ks := t.coef[2*side*dd : (2*side+1)*dd]
		bs := t.coef[(2*side+1)*dd : (2*side+2)*dd]
		// t.qs = Q_W diag(1/n − 1), t.ps = Q_P diag(a/n), then both times
		// Q_Wᵀ: the diagonals first (fk, fb), then row by row.
		fk, fb := t.fk[:d], t.fb[:d]
		for j := 0; j < d; j++ {
			a := float64(-eta * g[j])
			e := float64(a * (float64(2*cs[j]) + a)) // n² − 1
			if !finite(e) {
				return false, fmt.Errorf("model: update of prototype %d: %w", k, ErrNotFinite)
			}
			if !(1+e >= float64(minExactNorm*minExactNorm)) {
				return false, nil
			}
			n := math.Sqrt(1 + e)
			fk[j] = -e / float64(n*(n+1)) // 1/n − 1 without cancellation
			fb[j] = a / n
		}
		for l := 0; l < d; l++ {
			qwl, qpl := qw[l*d:(l+1)*d], qp[l*d:(l+1)*d]
			qsl, psl := t.qs[l*d:(l+1)*d], t.ps[l*d:(l+1)*d]
			for j, x := range qwl {
				qsl[j] = float64(x * fk[j])
			}
			for j, x := range qpl {
				psl[j] = float64(x * fb[j])
			}
		}
		kernels.Transpose(t.qt, d, qw, d, d, d)
		kernels.AB(ks, d, t.qs, d, t.qt, d, d, d, d)
		kernels.AB(bs, d, t.ps, d, t.qt, d, d, d, d)
		for j := 0; j < d; j++ {
			ks[j*d+j]++ // I + K
		}
		if !allFinite(t.coef[2*side*dd : (2*side+2)*dd]) {
			return false, fmt.Errorf("model: update of prototype %d: %w", k, ErrNotFinite)
		}
	}
	return true, nil
}

// updateExact applies the coefficients of exactCoefficients to both
// winners: W ← W (I + K) + P B, one kernels.AB2 in place (one pass that
// reads W and P and writes W, each output one chain over the 2d terms:
// the bits of AB on [W P] and [I + K; B], without copying W and P side
// by side). Every
// driftEvery-th update of a prototype checks its orthonormality
// (driftCheck): the update keeps it only to rounding, which would
// otherwise accumulate. A failing check (never seen: it would take a
// collapsed column) restores both winners.
func (t *trainer) updateExact(p *linalg.Dense, r stepResult) error {
	var check [2]bool
	for side, k := range [2]int{r.Plus, r.Minus} {
		t.updates[k]++
		check[side] = t.updates[k] >= driftEvery
	}
	if check[0] || check[1] {
		t.eng.Fresh(r.Plus)
		t.eng.Fresh(r.Minus)
		t.v[0].CopyFrom(t.protos[r.Plus])
		t.v[1].CopyFrom(t.protos[r.Minus])
	}
	var p32 []float32
	if t.base.cfg.Precision == Float32 {
		// A Float32 model updates from the sample's float32 rounding
		// (exactly widened, or in float32 lanes: engine.UpdateExactRounded),
		// which its projections read too: 4-byte
		// values in cache (engine.UpdateExactRounded). The float64
		// sample, read from memory for the first time here otherwise,
		// cost a one-worker mnist-shape epoch 8% (the update's kernel
		// waiting for it). The difference, 2^-24 of P times the
		// coefficients (of order η), is far below the rounding of the
		// updated prototype to float32. An update on the float64
		// prototype (a drift check follows) reads the rounding widened
		// into a float64 copy.
		p32 = t.sample32
		if check[0] || check[1] {
			if t.p64 == nil {
				t.p64 = linalg.NewDenseOn(t.base.dim, t.base.d, t.base.d, make([]float64, t.base.dim*t.base.d))
			}
			kernels.Widen32Rows(t.p64.Data, t.p64.Stride, p32, t.base.d, t.base.dim, t.base.d)
			p = t.p64
		}
	}
	t.sideK, t.sideP, t.side32, t.sideCheck = [2]int{r.Plus, r.Minus}, p, p32, check
	if t.eng.Workers() == 1 {
		for side := range t.sideK {
			t.updateSide(side)
		}
	} else if err := t.eng.TasksFor(t.sideK[:], t.updateTask); err != nil {
		t.sideP, t.side32 = nil, nil
		return err
	}
	t.sideP, t.side32 = nil, nil
	for _, err := range t.updErr {
		if err != nil {
			return stepError("update", err)
		}
	}
	for side, k := range [2]int{r.Plus, r.Minus} {
		if !check[side] {
			continue
		}
		if err := t.driftCheck(k); err != nil {
			t.eng.Fresh(r.Plus)
			t.eng.Fresh(r.Minus)
			t.protos[r.Plus].CopyFrom(t.v[0])
			t.protos[r.Minus].CopyFrom(t.v[1])
			return err
		}
	}
	return nil
}

// updateSide is the exact update of winner side (0 = W⁺, 1 = W⁻, the
// prototype t.sideK[side]) in place: W ← W (I + K) + P B (P = t.sideP,
// the step's sample), so that both winners can be updated at once
// (engine.Tasks). engine.UpdateExact: kernels.AB2 in place; for a
// Float32 model on the engine's float32 copy, the float64 prototype left
// stale until engine.Fresh (which every other reader or writer of
// t.protos calls first).
//
// A winner whose drift check follows (every driftEvery-th update) is
// updated in place on its float64 prototype (UpdateExact without copy32):
// the check sees the unrounded update, and
// Sync rounds it at the end of the step, as for a Float64 model's copy
// (the bits the model had before the float32 copies were updated
// directly).
func (t *trainer) updateSide(side int) {
	d := t.base.d
	dd := d * d
	k := t.sideK[side]
	ik, b := t.coef[2*side*dd:(2*side+1)*dd], t.coef[(2*side+1)*dd:(2*side+2)*dd]
	// A Float32 model's update goes to the engine's float32 copy (copy32),
	// but where the drift check follows: on the float64 prototype,
	// unrounded.
	copy32 := t.base.cfg.Precision == Float32 && !t.sideCheck[side]
	if copy32 {
		t.updErr[side] = t.eng.UpdateExactRounded(k, ik, d, t.side32, b, d)
		if directUpdate {
			t.eng.Fresh(k)
		}
		return
	}
	t.updErr[side] = t.eng.UpdateExact(k, ik, d, t.sideP, b, d, false)
}

// noShadow (for the tests) keeps the engine's float32 shadow off: the
// reference a Float64 model trained with it is compared with.
var noShadow = false

// directUpdate (for the tests) brings the float64 prototype up to date
// (engine.Fresh) right after each update of a float32 copy: the reference
// for the float64 prototypes left stale until a reader needs them.
var directUpdate = false

// poisonStale (for the tests) fills every stale float64 prototype with
// NaN after every step: a reader that forgot engine.Fresh reads NaN.
var poisonStale = false

// sync tells the engine that the winners plus and minus were written (a
// Float32 model: rounded to float32 and copied to the float32 copies the
// projections read; a Float64 model: marked for its float32 shadow where
// the engine has one).
func (t *trainer) sync(plus, minus int) {
	t.eng.Sync(plus)
	t.eng.Sync(minus)
	if poisonStale {
		for k, w := range t.protos {
			if t.eng.Stale(k) {
				for r := 0; r < w.Rows; r++ {
					for c := range w.Row(r) {
						w.Set(r, c, math.NaN())
					}
				}
			}
		}
	}
}

// driftEvery is the number of exact updates of a prototype after which
// a step checks its orthonormality; maxDrift the largest max |WᵀW − I| it
// leaves alone (CGS2 gives about 1e-15).
var driftEvery = 32 // a variable for the tests

const maxDrift = 4e-15

// maxDrift32 is maxDrift for a Float32 model, whose prototypes are
// rounded to float32 after every update: rounding a unit column's entries
// (2^-24 relative each) moves WᵀW by up to about 6e-8, and each update's
// rounding adds to it like a random walk; CGS2 and rounding restore about
// 6e-8.
var maxDrift32 = 1e-6 // a variable for the tests

// driftCheck re-orthonormalises prototype k by CGS2 when max |WᵀW − I|
// exceeds maxDrift, and restarts its count of updates. It allocates
// nothing.
func (t *trainer) driftCheck(k int) error {
	t.eng.Fresh(k)
	t.updates[k] = 0
	d := t.base.d
	w := t.protos[k]
	if orthonormalityError(t.gram[:d*d], w) <= t.maxDrift {
		return nil
	}
	t.reorths++
	if err := t.orth.Orthonormalize(w); err != nil {
		return stepError(fmt.Sprintf("orthonormalising prototype %d", k), err)
	}
	return nil
}

// checkAll runs driftCheck on every prototype (Train and Continue after
// every epoch, so that an epoch starts with every count at 0 whether it
// is run by one call or by several, and a prototype that wins less than
// driftEvery times an epoch is still checked). On failure the prototype
// is left as it was.
func (t *trainer) checkAll() error {
	t.eng.FreshAll()
	d := t.base.d
	for k, w := range t.protos {
		t.updates[k] = 0
		if orthonormalityError(t.gram[:d*d], w) <= t.maxDrift {
			continue
		}
		t.v[0].CopyFrom(w) // the rare case: keep it for the rollback
		err := t.driftCheck(k)
		if err != nil {
			w.CopyFrom(t.v[0])
		}
		t.eng.Sync(k)
		if err != nil {
			return err
		}
	}
	return nil
}

// updateGeneral is the update by the general route: W ← W + P B with
// B = Q_P diag(−η g) Q_Wᵀ (the span of V + U diag(−η g), since V = W Q_W
// with Q_W orthogonal), then CGS2. Nothing is written before both new
// bases exist, so a failure leaves both winners as they were without a
// backup copy: W⁺'s new basis waits in t.v[0] while W⁻'s is
// orthonormalised from t.v[1] straight into its prototype
// (OrthonormalizeTo leaves its destination unchanged on error), then
// W⁺'s is copied in. The bits are those of updating each prototype in
// place (t.v[s] = P B + W is W + P B: addition commutes).
func (t *trainer) updateGeneral(p *linalg.Dense, r stepResult, eta float64) error {
	t.eng.Fresh(r.Plus)
	t.eng.Fresh(r.Minus)
	d := t.base.d
	for side, k := range [2]int{r.Plus, r.Minus} {
		qp, qw, g := t.qp[side], t.qw[side], t.gv[side]
		for i := 0; i < d; i++ {
			for j := 0; j < d; j++ {
				var b float64
				for l := 0; l < d; l++ {
					b += float64(float64(qp[i*d+l]*g[l]) * qw[j*d+l])
				}
				t.coef[i*d+j] = float64(-eta * b)
			}
		}
		for _, v := range t.coef[:d*d] {
			if !finite(v) {
				return fmt.Errorf("model: update of prototype %d: %w", k, ErrNotFinite)
			}
		}
		wk, nw := t.protos[k], t.v[side]
		kernels.AB(nw.Data, nw.Stride, p.Data, p.Stride, t.coef, d, t.base.dim, d, d)
		addTo(nw, wk)
		dst := nw // W⁺: kept until W⁻ has succeeded
		if side == 1 {
			dst = wk
		}
		if beforeGeneralOrth != nil {
			beforeGeneralOrth(t, side)
		}
		if err := t.orth.OrthonormalizeTo(dst, nw); err != nil {
			return stepError(fmt.Sprintf("orthonormalising prototype %d", k), err)
		}
	}
	t.protos[r.Plus].CopyFrom(t.v[0])
	return nil
}

// beforeGeneralOrth, when not nil, runs before the general route
// orthonormalises the new basis of side s (tests: a failure of W⁻'s
// after W⁺'s succeeded).
var beforeGeneralOrth func(t *trainer, side int)

// tryShadow turns the engine's float32 shadow on at the first set step
// where that pays: a Float64 model's winners are then searched on float32
// copies of the prototypes (engine.SetShadow32: the same winners and
// bits, fewer float64 projections). Image steps do not search.
func (t *trainer) tryShadow() {
	if t.shadowTried {
		return
	}
	t.shadowTried = true
	if t.base.cfg.Precision != Float32 && !noShadow {
		t.eng.SetShadow32(true)
	}
}

// roundSets returns the sets x rounded to float32, dim x d each at stride
// d, one after another, for a Float32 model, else nil. A Float32 step
// reads its sample's rounding (its projections and its exact update);
// rounded at every step, a sample read for the first time came from
// memory in a pass of its own (8-10% of a one-worker epoch of the mnist
// shape), which rounding each set once per training saves. The copy
// takes at most half the sets' bytes (4 against 8 bytes a value, no
// padding), and is not made beyond maxRoundedBytes (the steps then round
// their samples: the same bits). A Float64 model's float32 shadow rounds
// its sample at each search: rounded once, its epochs measured no faster
// (yaleb shape, five alternations), not worth the memory.
func (t *trainer) roundSets(x []*linalg.Dense) []float32 {
	dim, d := t.base.dim, t.base.d
	if noRoundSets || len(x) == 0 || t.base.cfg.Precision != Float32 || int64(len(x))*int64(dim*d)*4 > maxRoundedBytes {
		return nil
	}
	r := make([]float32, len(x)*dim*d)
	for i, p := range x {
		kernels.Round32Rows(r[i*dim*d:], d, p.Data, p.Stride, dim, d)
	}
	return r
}

// maxRoundedBytes bounds roundSets' copy (a variable for the tests).
var maxRoundedBytes int64 = 1 << 30

// noRoundSets (for the tests) makes roundSets return nil: each step then
// rounds its sample itself (step), with the same bits.
var noRoundSets = false

// gradient computes the winners of the set p (label y) and the gradients
// of its cost E = weight·φ(μ) at the current state:
// ∂E/∂V± = U± diag(t.gv[±]) (side 0 = W⁺, 1 = W⁻), with t.qp, t.qw, t.th
// holding each winner's Q_P, Q_W and angles; ∂E/∂λ in t.gl (d values; for
// local relevances 2d: W⁺'s λ then W⁻'s).
func (t *trainer) gradient(p *linalg.Dense, y int) (stepResult, error) {
	var r stepResult
	if t.eng == nil {
		return r, fmt.Errorf("model: trainer: %w", errClosed)
	}
	if err := t.base.checkBasis(p); err != nil {
		return r, err
	}
	if y < 0 || y >= t.base.classes {
		return r, fmt.Errorf("model: %w: label %d outside [0, %d)", ErrData, y, t.base.classes)
	}
	t.eng.SetSolo(false) // a set step splits (an image step may have set it)
	t.tryShadow()
	// The winners, as a scan of all distances would find them; their
	// distances are computed where a tie had to be settled, else taken
	// from the factorisation below (a Float64 model's with the values of
	// svd.Batch.Values, as the engine's distances; a Float32 model's from
	// the factorisation's own values).
	w := &t.win
	if err := t.eng.WinnersRounded(w, p, t.sample32, t.lambda, t.base.labels, y); err != nil {
		if errors.Is(err, engine.ErrNoGroup) {
			return r, fmt.Errorf("model: %w: class %d has no prototype, or no other class has one", ErrData, y)
		}
		return r, stepError("distances", err)
	}
	plus, minus := w.Plus, w.Minus
	var c float64
	decided := false // r and c set
	if !(w.Lo[0]+w.Lo[1] > zeroDistance) {
		// Perhaps both at distance 0 (a skipped step): decided on the
		// distances before anything is factorised.
		for side, k := range [2]int{plus, minus} {
			if !w.Exact[side] {
				dk, err := t.eng.ExactDistance(k, t.lambda)
				if err != nil {
					return r, stepError("distances", err)
				}
				w.Dist[side], w.Exact[side] = dk, true
			}
		}
		if r, c = t.result(y, plus, minus, w.Dist[0], w.Dist[1]); r.Skipped {
			return r, nil
		}
		decided = true
	}

	// Factorise both projections: on the caller alone, both in one call
	// of the pair (on AVX2, one run of the 4-lane Jacobi kernel for two
	// matrices, two lanes each, instead of two runs for one each); else one task per
	// winner, run at once by the engine's workers, each on the worker
	// whose shard holds its winner (TasksFor: the projection it reads is
	// in that core's cache). The pair on the caller instead measured
	// within the noise of the 2-core VM under load (TrainStep 401 against
	// 474 µs, Epoch/mnist 241 against 232 ms, medians of 10), and on the
	// Zen 5 VM with splitting forced, where AVX-512 runs the pair in one
	// kernel run (7.1 us at d = 12 against 4.4 us for one matrix), it
	// went either way with the VM's state (mnist epochs 8% slower in one
	// series, 5% faster in another); kept as it was. The bits are the
	// same either way. Angles from this factorisation.
	d := t.base.d
	t.sideK = [2]int{plus, minus}
	// A Float32 model's step factorises its winners in float32 lanes
	// where the CPU has the kernel (svd's Factorize32: the AVX-512 and
	// AVX2 paths, 3 <= d <= 32; Factorize elsewhere): their products are
	// float32 sums, about 1e-7 of their scale from the float64 ones,
	// which is what a float32 factorisation keeps. At d = 25 it halved
	// the pair's time (58.6 → 31.4 µs on AVX-512) and took a one-worker
	// float32 yaleb epoch from 1.36 to 1.23 floors (AVX2 1.46 → 1.37).
	// It takes both winners' distances from this factorisation's values,
	// whatever the search computed: not from a run of the batch kernel
	// beside it (Pair.FactorizeValues) for the winners whose distances
	// the search left enclosed, which cost 12% of a float32 yaleb step
	// (two 25 x 25 matrices). Both winners always, so that a pruned search
	// gives the exhaustive one's model, bit for bit. A Float64 model
	// keeps Batch.Values' bits (its model files).
	f32 := t.base.cfg.Precision == Float32
	t.needBV = [2]bool{!w.Exact[0] && !f32, !w.Exact[1] && !f32}
	if t.eng.Solo() && !factorApart {
		t.factorBoth()
	} else if factorApart {
		t.factorSide(0)
		t.factorSide(1)
	} else if err := t.eng.TasksFor(t.sideK[:], t.factorTask); err != nil {
		return r, err
	}
	for _, err := range t.sideErr {
		if err != nil {
			return r, stepError("factorisation", err)
		}
	}
	if !decided || f32 {
		for side, k := range t.sideK {
			switch {
			case f32:
				w.Dist[side] = t.eng.DistanceKind().Value(nil, t.cs[side], t.relevanceOf(k))
			case !w.Exact[side]:
				w.Dist[side] = t.eng.DistanceKind().Value(nil, t.bv[side], t.relevanceOf(k))
			}
		}
		// Not skipped (a Float64 model): the distances are at least Lo,
		// whose sum is above zeroDistance, or were decided above. A
		// Float32 model's skip was decided on the search's distances
		// where Lo could not rule it out, as in an exhaustive search;
		// here the factorisation's values decide it, in either search.
		if r, c = t.result(y, plus, minus, w.Dist[0], w.Dist[1]); r.Skipped {
			return r, nil
		}
	}
	dp, dm := r.DPlus, r.DMinus
	s := dp + dm

	// ∂E/∂V⁺ = −c (2d⁻/S²) U⁺G⁺, ∂E/∂V⁻ = +c (2d⁺/S²) U⁻G⁻,
	// G = diag(2 λ_k θ_k / sin θ_k) (geodesic: ∂θ²/∂cos θ = −2θ/sin θ),
	// G = diag(2 λ_k cos θ_k) (chordal: ∂sin²θ/∂cos θ = −2 cos θ).
	chordal := t.base.cfg.Distance == Chordal
	inv := 2 / float64(s*s)
	scale := [2]float64{-float64(c * float64(inv*dm)), float64(c * float64(inv*dp))}
	for side, k := range [2]int{plus, minus} {
		lam := t.relevanceOf(k)
		for j := 0; j < d; j++ {
			var g float64
			if chordal {
				g = float64(scale[side]*2) * float64(lam[j]*cosine(t.cs[side][j]))
			} else {
				th := t.th[side][j]
				g = float64(scale[side]*2) * float64(lam[j]*thetaOverSin(th))
			}
			if !finite(g) {
				return r, fmt.Errorf("model: prototype gradient %v: %w", g, ErrNotFinite)
			}
			t.gv[side][j] = g
		}
	}
	// ∂E/∂λ = c (2/S²)(d⁻ θ⁺² − d⁺ θ⁻²) (chordal: sin²θ for θ²).
	if t.base.cfg.Relevance != RelevanceNone {
		ci := float64(c * inv)
		thp, thm := t.th[0], t.th[1]
		for k := 0; k < d; k++ {
			var gp, gm float64
			if chordal {
				sp, sm := sine2(cosine(t.cs[0][k])), sine2(cosine(t.cs[1][k]))
				gp = float64(ci * float64(dm*sp))
				gm = -float64(ci * float64(dp*sm))
			} else {
				gp = float64(ci * float64(dm*float64(thp[k]*thp[k])))
				gm = -float64(ci * float64(dp*float64(thm[k]*thm[k])))
			}
			if t.base.cfg.Relevance == RelevanceGlobal {
				t.gl[k] = gp + gm
			} else {
				t.gl[k], t.gl[d+k] = gp, gm
			}
		}
		for k, g := range t.gl {
			if !finite(g) {
				return r, fmt.Errorf("model: relevance gradient %d is %v: %w", k, g, ErrNotFinite)
			}
		}
	}
	return r, nil
}

// factorApart makes every step factorise its winners one by one
// (factorSide, a split step's route) instead of as a pair (factorBoth):
// for the tests, which check that both give the same model, bit for bit.
var factorApart = false

// factorSide factorises the projection onto winner side (0 = W⁺, 1 = W⁻,
// the prototype t.sideK[side]) into t.qp, t.cs, t.qw and the angles t.th
// of that side, with that side's workspace, and its batch values into
// t.bv where t.needBV; the error goes to t.sideErr[side].
func (t *trainer) factorSide(side int) {
	d := t.base.d
	sm := t.pair.Small(side)
	a, lda := t.eng.Projection(t.sideK[side]), t.eng.ProjStride()
	switch {
	case t.needBV[side]:
		t.sideErr[side] = sm.FactorizeValues(t.qp[side], d, t.cs[side], t.qw[side], d, t.bv[side], a, lda)
	case t.base.cfg.Precision == Float32:
		t.sideErr[side] = sm.Factorize32(t.qp[side], d, t.cs[side], t.qw[side], d, a, lda)
	default:
		t.sideErr[side] = sm.Factorize(t.qp[side], d, t.cs[side], t.qw[side], d, a, lda)
	}
	if t.sideErr[side] == nil {
		t.sideAngles(side)
	}
}

// factorBoth is factorSide for both sides in one svd.Pair call (the same
// bits); the error of the first side that failed goes to t.sideErr.
func (t *trainer) factorBoth() {
	d := t.base.d
	a := [2][]float64{t.eng.Projection(t.sideK[0]), t.eng.Projection(t.sideK[1])}
	t.sideErr = [2]error{}
	var err error
	switch {
	case t.needBV[0] || t.needBV[1]:
		err = t.pair.FactorizeValues(t.qp, d, t.cs, t.qw, t.bv, d, a, t.eng.ProjStride())
	case t.base.cfg.Precision == Float32:
		err = t.pair.Factorize32(t.qp, d, t.cs, t.qw, d, a, t.eng.ProjStride())
	default:
		err = t.pair.Factorize(t.qp, d, t.cs, t.qw, d, a, t.eng.ProjStride())
	}
	if err != nil {
		var be *svd.BatchError
		if errors.As(err, &be) {
			t.sideErr[be.Index] = be.Err
		} else {
			t.sideErr[0] = err
		}
		return
	}
	t.sideAngles(0)
	t.sideAngles(1)
}

// sideAngles sets the angles t.th of side from its cosines t.cs.
func (t *trainer) sideAngles(side int) {
	for i, cv := range t.cs[side][:t.base.d] {
		t.th[side][i] = angle(cv)
	}
}

// normalise floors l at the relevance floor and rescales it to sum 1.
func (t *trainer) normalise(l []float64) error {
	floor := t.cfg.RelevanceFloor
	var sum float64
	for k, v := range l {
		if !finite(v) {
			return fmt.Errorf("model: relevance %d is %v: %w", k, v, ErrNotFinite)
		}
		if v < floor {
			v = floor
		}
		l[k] = v
		sum += v
	}
	if !(sum > 0) {
		return fmt.Errorf("model: %w: relevances sum to zero after the floor", ErrNumerical)
	}
	for k := range l {
		l[k] /= sum
	}
	return nil
}

// addTo adds src to dst (same shape).
func addTo(dst, src *linalg.Dense) {
	// One sweep when both are flat (an engine prototype may be a column
	// view of its shard's side-by-side storage, which is not).
	if df := dst.Flat(); df != nil && dst.Stride == src.Stride {
		kernels.Axpy(1, src.Data[:len(df)], df)
		return
	}
	for r := 0; r < dst.Rows; r++ {
		kernels.Axpy(1, src.Row(r), dst.Row(r))
	}
}

// accuracy returns the fraction of sets whose nearest prototype (ties to
// the lowest index) has their label, with the current prototypes.
func (t *trainer) accuracy(dist []float64, x []*linalg.Dense, y []int) (float64, error) {
	if err := t.eng.DistancesBatch(dist, x, t.lambda); err != nil {
		return 0, stepError("validation distances", err)
	}
	p := len(t.protos)
	correct := 0
	for i := range x {
		k := nearest(dist[i*p : (i+1)*p])
		if k >= 0 && t.base.labels[k] == y[i] {
			correct++
		}
	}
	return float64(correct) / float64(len(x)), nil
}

// nearest returns the index of the smallest distance (ties to the lowest
// index; NaN never wins), or -1.
func nearest(dist []float64) int {
	best, bd := -1, math.Inf(1)
	for k, v := range dist {
		if v < bd || (best < 0 && v == bd) {
			best, bd = k, v
		}
	}
	return best
}

// zeroDistance: a step whose winners' distances sum to at most this is
// skipped as "both at distance 0". A cosine within a few ulps of 1 gives
// an angle of about 2e-8 rad whatever the true angle below that, so
// distances under about d·4e-16 are rounding, not geometry; the gradient
// 2d∓/S² of such a step would be 1/S ≈ 1e14 times noise.
const zeroDistance = 1e-14

// winners picks, from the distances in t.dist, W⁺ (nearest with label y)
// and W⁻ (nearest with another label), ties to the lowest index, and
// returns the step's result so far (winners, distances, μ, cost, whether
// the sample is classified correctly) and c = φ'(μ)·weight(y).
func (t *trainer) winners(y int) (stepResult, float64, error) {
	var r stepResult
	plus, minus := -1, -1
	dp, dm := math.Inf(1), math.Inf(1)
	for k, dk := range t.dist {
		if !finite(dk) {
			return r, 0, fmt.Errorf("model: distance to prototype %d is %v: %w", k, dk, ErrNotFinite)
		}
		if t.base.labels[k] == y {
			if dk < dp {
				plus, dp = k, dk
			}
		} else if dk < dm {
			minus, dm = k, dk
		}
	}
	if plus < 0 || minus < 0 {
		return r, 0, fmt.Errorf("model: %w: class %d has no prototype, or no other class has one", ErrData, y)
	}
	r, c := t.result(y, plus, minus, dp, dm)
	return r, c, nil
}

// result returns the step's result for the winners plus and minus at
// distances dp and dm (winners' skip rule, μ, cost, whether the sample is
// classified correctly) and c = φ'(μ)·weight(y).
func (t *trainer) result(y, plus, minus int, dp, dm float64) (stepResult, float64) {
	s := dp + dm
	if s <= zeroDistance {
		// No gradient (μ = 0/0), or only one made of rounding: skipped.
		return stepResult{Plus: plus, Minus: minus, DPlus: dp, DMinus: dm,
			Correct: dp < dm || (dp == dm && plus < minus), Skipped: true}, 0
	}
	mu := Mu(dp, dm)
	phi, dphi := t.cfg.activation(mu)
	w := t.weights[y]
	r := stepResult{Plus: plus, Minus: minus, DPlus: dp, DMinus: dm, Mu: mu, Cost: w * phi,
		Correct: dp < dm || (dp == dm && plus < minus)}
	return r, dphi * w
}
