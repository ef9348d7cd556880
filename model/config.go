package model

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"strconv"

	"github.com/grlgq/grlgq/kernels"
)

// InitKind selects how Init places the prototypes.
type InitKind uint8

const (
	// InitSample starts each prototype at the basis of a random training
	// set of its class plus Gaussian noise of standard deviation InitNoise
	// per entry, then orthonormalised (the authors' code). Distinct sets are
	// drawn for the prototypes of one class while the class has enough.
	InitSample InitKind = iota
	// InitRandom starts each prototype at a random orthonormal basis (the
	// span of a Gaussian D x d matrix).
	InitRandom
	// InitPCA starts the first prototype of a class at the top d left
	// singular vectors of the class's stacked bases [P_1 ... P_n] (the
	// dominant subspace of Σ P_i P_iᵀ); further prototypes of the class use
	// the stacked bases of a seeded bootstrap resample of the class's sets.
	InitPCA
)

// RelevanceKind selects the relevance model.
type RelevanceKind uint8

const (
	// RelevanceGlobal learns one relevance vector λ (len d) shared by all
	// prototypes (GRLGQ).
	RelevanceGlobal RelevanceKind = iota
	// RelevanceNone keeps λ = 1/d fixed (GLGQ); Gamma is ignored.
	RelevanceNone
	// RelevanceLocal learns one relevance vector per prototype (localized
	// GRLGQ): prototype k's distances use λ_k, and only the two winners'
	// vectors change in a step.
	RelevanceLocal
)

// Distance selects the distance between a sample's subspace and a
// prototype, from their principal angles θ_1 <= ... <= θ_d and the
// relevances λ.
type Distance uint8

const (
	// Geodesic is δ = Σ λ_i θ_i², the relevance-weighted squared geodesic
	// distance on the Grassmannian (the paper).
	Geodesic Distance = iota
	// Chordal is δ = Σ λ_i sin²θ_i, the relevance-weighted squared chordal
	// (projection) distance.
	Chordal
)

// Precision selects the floating-point format of the prototypes and of
// the projections that compare a sample with them.
type Precision uint8

const (
	// Float64: prototypes and projections in float64.
	Float64 Precision = iota
	// Float32: prototypes stored, and projected against, in float32.
	Float32
)

// Schedule selects how the learning rates change with the epoch t (counted
// from 0 over the model's whole life, so Continue resumes the schedule).
type Schedule uint8

const (
	// ScheduleConstant keeps η and γ fixed.
	ScheduleConstant Schedule = iota
	// ScheduleStep halves η and γ every StepEvery epochs:
	// η_t = η · 2^-⌊t/StepEvery⌋ (the authors' NumPy code, StepEvery = 10).
	ScheduleStep
	// ScheduleAnneal uses η_t = η/(1 + t/Tau), and the same for γ.
	ScheduleAnneal
)

// Activation selects φ in the cost E = Σ φ(μ).
type Activation uint8

const (
	// Identity is φ(μ) = μ (the paper).
	Identity Activation = iota
	// Sigmoid is φ(μ) = 1/(1 + exp(-Beta·μ)); every gradient is multiplied
	// by φ'(μ) = Beta·φ(μ)(1-φ(μ)).
	Sigmoid
)

// The default values, as DefaultConfig, DefaultTrainConfig and
// DefaultPredictConfig set them.
const (
	DefaultPrototypesPerClass = 1
	DefaultInitNoise          = 1e-4
	DefaultEta                = 0.02
	DefaultGamma              = 1e-4
	DefaultStepEvery          = 10
	DefaultTau                = 10.0
	DefaultBeta               = 1.0
	DefaultRelevanceFloor     = 1e-4
	DefaultEpochs             = 50
	DefaultTemperature        = 0.1
)

// Limits of Config, TrainConfig and PredictConfig (also the limits Load
// accepts).
const (
	MaxDim       = 1 << 20 // D, pixels per image
	MaxSubDim    = 64      // d (the SVD workspace's limit)
	MaxPrototype = 1 << 16 // prototypes in a model
	MaxClasses   = 1 << 16

	// The options' limits below are far above any real use: they keep a
	// mistyped value, or a crafted model file, from taking all memory or
	// time, or from loading as a model nothing could have trained.
	MaxEpochs      = 100000 // Epochs, StepEvery, Patience, AverageLast
	MaxRate        = 100    // Eta, Gamma
	MaxTau         = 1e9    // Tau, in epochs
	MaxBeta        = 1e6    // Beta
	MaxInitNoise   = 100    // InitNoise
	MaxTemperature = 1e6    // Temperature
	MaxWorkers     = 1024   // Workers
)

// Options is everything a training run is told, in one place: what the
// model is (Model, stored in its file and kept by Continue), how it is
// trained (Train) and how the trained model predicts (Predict, stored in
// its file). Start from DefaultOptions and change the fields that differ:
//
//	opt := model.DefaultOptions()
//	opt.Model.SubspaceDim = 5
//	opt.Train.Epochs, opt.Train.Seed = 20, 7
//	m, hist, err := model.Train(ctx, opt, x, y)
//
// Options round-trip through encoding/json (a configuration file), the
// enums as their words, all but the hooks TrainConfig.OnEpoch and Augment,
// which it leaves out. A field absent from the JSON keeps the value of the
// Options decoded into, so decode into DefaultOptions() to take the
// defaults for what a file does not say.
type Options struct {
	Model   Config
	Train   TrainConfig
	Predict PredictConfig
}

// DefaultOptions returns the three default configurations.
func DefaultOptions() Options {
	return Options{Model: DefaultConfig(), Train: DefaultTrainConfig(), Predict: DefaultPredictConfig()}
}

// Config is what a model is: its structure, stored in its file and kept
// by Continue. Every field means what it says (0 is zero), except
// SubspaceDim, whose 0 takes d from the training bases; DefaultConfig has
// the defaults.
type Config struct {
	// SubspaceDim is d, the number of columns of every prototype. 0 takes the
	// number of columns of the training subspaces' bases (training on
	// single images needs it set).
	SubspaceDim int

	// PrototypesPerClass is the number of prototypes of every class (at
	// least 1; default 1). PrototypesOfClass, when non-nil, overrides it
	// with one count per class (len = number of classes, every entry >= 1).
	PrototypesPerClass int
	PrototypesOfClass  []int

	// Relevance selects the relevance model (default RelevanceGlobal).
	Relevance RelevanceKind

	// ClassNames optionally names the classes (len = number of classes;
	// a name may be empty, and Init and Train refuse a name given twice).
	ClassNames []string

	// Distance is the distance the model classifies and trains by (default
	// Geodesic). Stored (format version 3 when not Geodesic).
	Distance Distance

	// Precision is the format of the prototypes and their projections
	// (default Float64). Stored (format version 3 when not Float64).
	Precision Precision

	// ImageWidth and ImageHeight optionally record the size of the images
	// the model was trained on (pixels per row, rows; row-major pixels), so
	// that tools, and SampleFromImages, can resize new images without being
	// told again. Both 0 means unknown; otherwise both must be positive with
	// ImageWidth·ImageHeight = D. They are stored (format version 2) but
	// never used by training or prediction.
	ImageWidth, ImageHeight int
}

// DefaultConfig returns the default structure: d from the training bases,
// one prototype per class, global relevances.
func DefaultConfig() Config {
	return Config{PrototypesPerClass: DefaultPrototypesPerClass, Relevance: RelevanceGlobal}
}

// NumPrototypes returns the number of prototypes c gives a model of
// classes classes (PrototypesOfClass summed, or PrototypesPerClass times
// classes), saturating at math.MaxInt64 / 2 for absurd counts.
func (c Config) NumPrototypes(classes int) int64 {
	if c.PrototypesOfClass != nil {
		var n int64
		for _, v := range c.PrototypesOfClass {
			n += int64(max(v, 0))
		}
		return n
	}
	return int64(max(c.PrototypesPerClass, 0)) * int64(max(classes, 0))
}

// TrainConfig is how a model is trained: initialisation, optimiser,
// schedule, epochs, early stopping, averaging, hooks, seed and workers.
// Every field means what it says (0 is zero: no noise, no floor, no
// training), except Workers, whose 0 takes all cores; DefaultTrainConfig
// has the defaults, and a field whose 0 means nothing (Eta, Gamma,
// StepEvery, Tau, Beta) is an error when left at 0. A model file stores
// the options of the model's last training (all but MinDelta, AverageLast,
// OnEpoch, Augment and Workers), for the record: see Model.TrainConfig.
//
// Learning rates: the prototype gradient keeps the factor 2 of
// G = diag(2 λ_k θ_k / sin θ_k) (the paper's equations and the authors'
// NumPy code). The authors' PyTorch code drops it, so an η taken from that
// code must be halved here.
type TrainConfig struct {
	// Init selects the initialisation (default InitPCA). InitNoise is the
	// standard deviation of the Gaussian noise added to each entry of an
	// InitSample prototype before orthonormalisation (default 1e-4; 0: no
	// noise). Continue keeps the model's.
	Init      InitKind
	InitNoise float64

	// Eta is the prototype learning rate η (default 0.02; the paper's value
	// for image sets is 0.05, with the factor 2 in G kept: docs/tuning.md
	// has the study that chose the defaults). Gamma is the relevance
	// learning rate γ (default 1e-4; γ ≪ η). Both in (0, 100].
	Eta   float64
	Gamma float64

	// Schedule of η and γ (default ScheduleConstant); StepEvery is the k of
	// ScheduleStep (default 10), Tau the τ of ScheduleAnneal (default 10).
	Schedule  Schedule
	StepEvery int
	Tau       float64

	// Activation φ of the cost (default Identity); Beta is the sigmoid's
	// slope β (default 1).
	Activation Activation
	Beta       float64

	// ClassWeights multiplies every step's gradients (and its cost) by the
	// inverse class frequency of the sample's class, N/(C·n_c), so that each
	// class carries the same total weight.
	ClassWeights bool

	// RelevanceFloor is the floor applied to each λ_k after a relevance
	// update, before renormalising λ to sum 1 (default 1e-4, the authors'
	// PyTorch code; 0: no floor, λ_k >= 0 only): λ ← max(λ − γ∂E/∂λ,
	// floor)/Σ, as the reference, so after the renormalisation a λ_k sits
	// below the floor by the factor 1/Σ.
	RelevanceFloor float64

	// Epochs is the number of passes over the training data (default 50;
	// 0: none, Train returns the initial model).
	Epochs int

	// ValidationFraction is the fraction of each class's training samples
	// carved out (folds.ValidationSplit: stratified, seeded) as a
	// validation set; 0 means none. With Patience > 0 training stops after
	// Patience epochs without an improvement, and the model of the best
	// epoch is returned; Patience needs a validation part (Train and
	// Continue refuse Patience > 0 with ValidationFraction 0). An epoch improves, and becomes the best epoch,
	// when its validation accuracy is at least the best epoch's plus
	// MinDelta (the first epoch always does); patience counts the epochs
	// since the best one. So with MinDelta = 0 ties go to the later epoch:
	// a saturated validation set (100% from the first epoch) trains all
	// epochs and keeps the last. MinDelta (in [0, 1], an accuracy fraction)
	// is not stored in model files.
	ValidationFraction float64
	Patience           int
	MinDelta           float64

	// AverageLast > 0 makes Train and Continue return the Average of the
	// models after each of the last AverageLast epochs of the call (all of
	// them when fewer ran): tail averaging, which removes much of the noise
	// a constant rate leaves in the final prototypes. It cannot be combined
	// with Patience (early stopping returns one epoch's model). Model files
	// do not store it.
	AverageLast int

	// OnEpoch, if non-nil, is called after every epoch with its statistics
	// (the slices in it are copies the callee may keep). Returning ErrStop
	// ends training normally; any other error aborts it. Like Augment, it
	// is code, not configuration: encoding/json leaves it out.
	OnEpoch func(EpochStats) error `json:"-"`

	// Augment, if non-nil, adds samples to every epoch (hard examples,
	// per-epoch augmentation): see AugmentFunc. Package hard's Images and
	// Pool are such hooks.
	Augment AugmentFunc `json:"-"`

	// Workers is the number of goroutines computing distances (0: all
	// cores, runtime.GOMAXPROCS(0) when training starts). Results never
	// depend on it. It bounds the training and the predictions of the
	// models it hands its hooks, not those of the model it returns (see
	// Model.WithWorkers).
	Workers int

	// Seed seeds the initialisation, the validation split and every epoch's
	// permutation (rand.NewPCG with fixed per-purpose streams).
	Seed uint64
}

// AugmentFunc is a TrainConfig.Augment hook. Before each epoch (epoch is
// its lifetime number, from 1, as EpochStats.Epoch) the training loop
// calls it with the model as it stands (m: a snapshot the hook may keep
// and predict with, on the training's Workers: see Model.WithWorkers) and appends the samples it returns (with their
// labels, of the model's classes; samples of the training data's kind,
// sets or images) to that epoch's training part: the epoch visits the
// training part followed by them in the seeded order of an epoch of that
// many samples, and class weights count them. They are read during the
// epoch only. An error aborts training (the hook's error is wrapped), and
// ctx is the training's.
type AugmentFunc func(ctx context.Context, m *Model, epoch int) (x []Sample, y []int, err error)

// DefaultTrainConfig returns the default training options: prototypes
// started at the dominant subspace of their class (InitPCA), η = 0.02,
// γ = 1e-4 at a constant rate, the identity cost, a relevance
// floor of 1e-4, 50 epochs, no validation, all cores, seed 0.
func DefaultTrainConfig() TrainConfig {
	return TrainConfig{
		Init:           InitPCA,
		InitNoise:      DefaultInitNoise,
		Eta:            DefaultEta,
		Gamma:          DefaultGamma,
		Schedule:       ScheduleConstant,
		StepEvery:      DefaultStepEvery,
		Tau:            DefaultTau,
		Activation:     Identity,
		Beta:           DefaultBeta,
		RelevanceFloor: DefaultRelevanceFloor,
		Epochs:         DefaultEpochs,
	}
}

// PredictConfig is how a model predicts, stored in its file (a trained
// model has the PredictConfig of its Options; Model.WithPredictConfig sets
// others). DefaultPredictConfig has the defaults.
type PredictConfig struct {
	// Temperature T of the class probabilities softmax(-δ_c/T), δ_c the
	// distance to the nearest prototype of class c (default 0.1; in
	// (0, 1e6]).
	Temperature float64

	// RejectMargin is the reject threshold of prediction: when the relative
	// margin (δ₂ − δ₁)/(δ₂ + δ₁) between the two nearest classes is below
	// it, the prediction carries no label (Label = -1). 0 (the default)
	// never rejects.
	RejectMargin float64
}

// DefaultPredictConfig returns the default prediction options:
// temperature 0.1, no reject option.
func DefaultPredictConfig() PredictConfig {
	return PredictConfig{Temperature: DefaultTemperature}
}

// normalised returns c with Workers 0 replaced by runtime.GOMAXPROCS(0) and
// the hooks dropped: the options a trainer or a model keeps.
func (c TrainConfig) normalised() TrainConfig {
	if c.Workers == 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	c.OnEpoch, c.Augment = nil, nil
	return c
}

func configError(format string, a ...any) error {
	return fmt.Errorf("model: %w: "+format, append([]any{ErrConfig}, a...)...)
}

// validate checks a Config.
func (c *Config) validate() error {
	bad := configError
	switch {
	case c.SubspaceDim < 0 || c.SubspaceDim > MaxSubDim:
		return bad("SubspaceDim %d outside [0, %d]", c.SubspaceDim, MaxSubDim)
	case c.PrototypesPerClass < 1 || c.PrototypesPerClass > MaxPrototype:
		return bad("PrototypesPerClass %d outside [1, %d] (DefaultConfig has %d)", c.PrototypesPerClass, MaxPrototype, DefaultPrototypesPerClass)
	case c.Relevance > RelevanceLocal:
		return bad("unknown Relevance %d", c.Relevance)
	case c.Distance > Chordal:
		return bad("unknown Distance %d (want one of %v)", c.Distance, distanceWords)
	case c.Precision > Float32:
		return bad("unknown Precision %d (want one of %v)", c.Precision, precisionWords)
	case c.ImageWidth < 0 || c.ImageHeight < 0 || (c.ImageWidth == 0) != (c.ImageHeight == 0) ||
		int64(c.ImageWidth)*int64(c.ImageHeight) > MaxDim:
		return bad("image size %s (height x width): want both positive, at most %d pixels in all, or both 0 (unknown)", formatSize(c.ImageWidth, c.ImageHeight), MaxDim)
	}
	for i, n := range c.PrototypesOfClass {
		if n < 1 || n > MaxPrototype {
			return bad("PrototypesOfClass[%d] = %d", i, n)
		}
	}
	return nil
}

// validate checks a TrainConfig (Workers 0 is all cores).
func (c *TrainConfig) validate() error {
	bad := configError
	pos := func(v float64) bool { return v > 0 && !math.IsInf(v, 0) }
	const hint = " (DefaultTrainConfig has the defaults)"
	switch {
	case c.Init > InitPCA:
		return bad("unknown Init %d", c.Init)
	case !(c.InitNoise >= 0 && c.InitNoise <= MaxInitNoise):
		return bad("InitNoise %g outside [0, %g]", c.InitNoise, float64(MaxInitNoise))
	case !pos(c.Eta) || c.Eta > MaxRate:
		return bad("Eta %g outside (0, %g]"+hint, c.Eta, float64(MaxRate))
	case !pos(c.Gamma) || c.Gamma > MaxRate:
		return bad("Gamma %g outside (0, %g]"+hint, c.Gamma, float64(MaxRate))
	case c.Schedule > ScheduleAnneal:
		return bad("unknown Schedule %d", c.Schedule)
	case c.StepEvery < 1 || c.StepEvery > MaxEpochs:
		return bad("StepEvery %d outside [1, %d]"+hint, c.StepEvery, MaxEpochs)
	case !pos(c.Tau) || c.Tau > MaxTau:
		return bad("Tau %g outside (0, %g]"+hint, c.Tau, float64(MaxTau))
	case c.Activation > Sigmoid:
		return bad("unknown Activation %d", c.Activation)
	case !pos(c.Beta) || c.Beta > MaxBeta:
		return bad("Beta %g outside (0, %g]"+hint, c.Beta, float64(MaxBeta))
	case !(c.RelevanceFloor >= 0 && c.RelevanceFloor < 1):
		return bad("RelevanceFloor %g outside [0, 1)", c.RelevanceFloor)
	case c.Epochs < 0 || c.Epochs > MaxEpochs:
		return bad("Epochs %d outside [0, %d]", c.Epochs, MaxEpochs)
	case !(c.ValidationFraction >= 0 && c.ValidationFraction < 1):
		return bad("ValidationFraction %g outside [0, 1)", c.ValidationFraction)
	case c.Patience < 0 || c.Patience > MaxEpochs:
		return bad("Patience %d outside [0, %d]", c.Patience, MaxEpochs)
	case !(c.MinDelta >= 0 && c.MinDelta <= 1):
		return bad("MinDelta %g outside [0, 1]", c.MinDelta)
	case c.AverageLast < 0 || c.AverageLast > MaxEpochs:
		return bad("AverageLast %d outside [0, %d]", c.AverageLast, MaxEpochs)
	case c.AverageLast > 0 && c.Patience > 0:
		return bad("AverageLast %d with Patience %d: early stopping returns one epoch's model, averaging several", c.AverageLast, c.Patience)
	case c.Workers < 0 || c.Workers > MaxWorkers:
		return bad("Workers %d outside [0, %d] (0: all cores)", c.Workers, MaxWorkers)
	}
	return nil
}

// validateRun checks c for a training run (Train, Continue): validate,
// and Patience without a validation part, which early stopping would
// silently ignore. Load checks a stored TrainConfig with validate alone,
// so that files written before this check still load.
func (c *TrainConfig) validateRun() error {
	if err := c.validate(); err != nil {
		return err
	}
	if c.Patience > 0 && c.ValidationFraction == 0 {
		return configError("Patience %d without a validation part (ValidationFraction 0): early stopping watches the validation accuracy", c.Patience)
	}
	return nil
}

// checkClassNames refuses a non-empty class name given twice (a data
// set's class would match either). Init checks it; Load does not, so
// that files written before this check still load.
func (c *Config) checkClassNames() error {
	seen := make(map[string]int, len(c.ClassNames))
	for i, n := range c.ClassNames {
		if n == "" {
			continue
		}
		if j, ok := seen[n]; ok {
			return configError("ClassNames[%d] and ClassNames[%d] are both %q", j, i, n)
		}
		seen[n] = i
	}
	return nil
}

// validate checks a PredictConfig.
func (c *PredictConfig) validate() error {
	switch {
	case !(c.Temperature > 0 && c.Temperature <= MaxTemperature):
		return configError("Temperature %g outside (0, %g] (DefaultPredictConfig has %g)", c.Temperature, float64(MaxTemperature), DefaultTemperature)
	case !(c.RejectMargin >= 0 && c.RejectMargin <= 1):
		return configError("RejectMargin %g outside [0, 1]", c.RejectMargin)
	}
	return nil
}

// checkImageSize checks a recorded image size against D.
func (c *Config) checkImageSize(dim int) error {
	if c.ImageWidth != 0 && int64(c.ImageWidth)*int64(c.ImageHeight) != int64(dim) {
		return fmt.Errorf("model: %w: image size %s (height x width) does not make D = %d pixels", ErrConfig, formatSize(c.ImageWidth, c.ImageHeight), dim)
	}
	return nil
}

// formatSize writes the size of an image width pixels wide and height
// high as HEIGHTxWIDTH, rows by columns ("24x38": 24 rows of 38 pixels):
// the rule of dataset/imageset.FormatSize (which model may not import),
// the order in which the command line's -resize takes a size and
// dataset.Size prints one. Every image size in this package's messages
// is written by it.
func formatSize(width, height int) string {
	return strconv.Itoa(height) + "x" + strconv.Itoa(width)
}

// prototypesOf returns the number of prototypes of class c.
func (c *Config) prototypesOf(class int) int {
	if c.PrototypesOfClass != nil {
		return c.PrototypesOfClass[class]
	}
	return c.PrototypesPerClass
}

// rates returns η_t and γ_t for the (0-based, lifetime) epoch t.
func (c *TrainConfig) rates(t int) (eta, gamma float64) {
	f := 1.0
	switch c.Schedule {
	case ScheduleStep:
		f = math.Ldexp(1, -(t / c.StepEvery))
	case ScheduleAnneal:
		f = 1 / (1 + float64(t)/c.Tau)
	}
	return c.Eta * f, c.Gamma * f
}

// BasisValues returns the float64 values a D x d basis takes in memory (a
// prototype, or a training set's subspace: rows padded to a multiple of 8
// columns, linalg's layout).
func BasisValues(dim, d int) int64 { return int64(dim) * int64(kernels.Stride(d)) }

// TrainingValues returns the float64 values that training a model of p
// prototypes of D x d holds for its prototypes: four copies of them (the
// model it starts from, the trainer's engine, the model it returns, and
// that model's packed copy for predictions). A command line bounds it
// before training, since a resize can make a few tiny images a large D.
func TrainingValues(dim, d, p int) int64 { return 4 * int64(p) * BasisValues(dim, d) }
