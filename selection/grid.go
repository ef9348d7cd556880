package selection

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

// AllSets as Setting.Prototypes gives every class one prototype per
// training set of the class, placed at the sets themselves (InitSample
// without noise, whatever Setting.Init says). With Epochs = 0 this is the
// 1-nearest-neighbour classifier of the geodesic distance Σθ²/d.
const AllSets = -1

// AllSetsLearned as Setting.Prototypes is 1-NN with learnt relevances: a
// prototype at every training set, like AllSets, untrained, with the
// global relevances λ that one prototype per class, trained with the
// setting's Init, η and Epochs (Relevance global), learnt on the same
// training sets. The distance is Σ λ_k θ_k²: the geodesic 1-NN when λ is
// uniform, weighted where the training found some angles more telling.
// In Tune it shares the training of the one-prototype setting with the
// same Init, Relevance and η (it costs one more scoring per fold).
const AllSetsLearned = -2

// Setting is one point of a search: the options the tuner varies. The
// other options (schedule, seed, ...) come from the base model.Options
// given to Tune (Apply).
//
// Not every zero field keeps the base's. Prototypes, Init and Relevance
// always replace the base's: Prototypes has no zero (an error), and the
// zeros of Init and Relevance are model.InitSample and
// model.RelevanceGlobal, not the base's (model.DefaultOptions' InitPCA
// is replaced by InitSample). Epochs > 0 replaces the base's Epochs and
// Eta; Epochs 0 keeps both (unused: the model is not trained), but Eta
// must be positive all the same. Four fields keep the base's when zero:
// Gamma, Beta and Dim, and Distance, whose zero is model.Geodesic: a
// Setting can choose Chordal over a Geodesic base but not Geodesic over a
// Chordal one, so a search over both distances needs a Geodesic base
// (model.DefaultOptions').
type Setting struct {
	// Prototypes per class (>= 1), or AllSets, AllSetsLearned.
	Prototypes int
	// Init and Relevance always replace the base's, zero values included
	// (InitSample, RelevanceGlobal).
	Init      model.InitKind
	Relevance model.RelevanceKind
	// Eta is the prototype learning rate η (> 0, even with Epochs 0).
	Eta float64
	// Epochs of training; 0 means none: the initial model is scored (and
	// returned), as model.TrainConfig's Epochs 0, and the base's Epochs
	// and Eta are kept.
	Epochs int
	// Gamma is the relevance learning rate γ (0: base's; only with Epochs
	// > 0).
	Gamma float64
	// Beta is the cost: 0 keeps base's, a positive value the sigmoid cost
	// φ(μ) = 1/(1 + exp(−β μ)) of slope β, IdentityCost the identity
	// φ(μ) = μ (only with Epochs > 0).
	Beta float64
	// Dim is d, the number of principal angles (0: base's Model.SubspaceDim,
	// for sets their columns). For sets of more columns Tune trains and
	// scores on their first Dim columns (subspace.Truncate: for bases of
	// left singular vectors in descending order, as if built with d).
	Dim int
	// Distance is the model's distance; Geodesic (the zero value) keeps
	// base's, so only Chordal changes it.
	Distance model.Distance
}

// IdentityCost as Setting.Beta selects the identity cost φ(μ) = μ.
const IdentityCost = -1

// ProtosName is "all" for AllSets, "all+λ" for AllSetsLearned, else the
// number.
func ProtosName(n int) string {
	switch n {
	case AllSets:
		return "all"
	case AllSetsLearned:
		return "all+λ"
	}
	return strconv.Itoa(n)
}

// NearestNeighbour reports whether s is the 1-nearest-neighbour setting
// (AllSets, no training).
func (s Setting) NearestNeighbour() bool { return s.Prototypes == AllSets && s.Epochs == 0 }

// String describes s in one line ("protos=3 init=pca relevance=local
// lr=0.05 epochs=25"; "1-NN (protos=all epochs=0)"; "1-NN, λ of protos=1
// init=sample lr=0.05 epochs=50" for AllSetsLearned).
func (s Setting) String() string {
	var b strings.Builder
	switch {
	case s.NearestNeighbour():
		b.WriteString("1-NN (protos=all, epochs=0)")
	case s.Prototypes == AllSetsLearned:
		fmt.Fprintf(&b, "1-NN, λ of protos=1 init=%s lr=%g epochs=%d", s.Init, s.Eta, s.Epochs)
	case s.Epochs == 0:
		fmt.Fprintf(&b, "protos=%s init=%s epochs=0 (untrained)", ProtosName(s.Prototypes), s.Init)
	default:
		fmt.Fprintf(&b, "protos=%s init=%s relevance=%s lr=%g epochs=%d", ProtosName(s.Prototypes), s.Init, s.Relevance, s.Eta, s.Epochs)
	}
	if s.Epochs > 0 {
		if s.Gamma > 0 {
			fmt.Fprintf(&b, " gamma=%g", s.Gamma)
		}
		switch {
		case s.Beta > 0:
			fmt.Fprintf(&b, " sigmoid=%g", s.Beta)
		case s.Beta == IdentityCost:
			b.WriteString(" identity")
		}
	}
	if s.Dim > 0 {
		fmt.Fprintf(&b, " d=%d", s.Dim)
	}
	if s.Distance != model.Geodesic {
		fmt.Fprintf(&b, " %s", s.Distance)
	}
	return b.String()
}

// check validates s.
func (s Setting) check() error {
	switch {
	case s.Prototypes < 1 && s.Prototypes != AllSets && s.Prototypes != AllSetsLearned:
		return fmt.Errorf("prototypes per class %d: want at least 1 (or AllSets, AllSetsLearned)", s.Prototypes)
	case s.Prototypes == AllSetsLearned && s.Relevance != model.RelevanceGlobal:
		return fmt.Errorf("1-NN with learnt relevances: relevance %s, want global", s.Relevance)
	case s.Prototypes == AllSetsLearned && s.Epochs < 1:
		return fmt.Errorf("1-NN with learnt relevances: epochs %d, want at least 1", s.Epochs)
	case s.Prototypes > model.MaxPrototype:
		return fmt.Errorf("prototypes per class %d: at most %d", s.Prototypes, model.MaxPrototype)
	case s.Init > model.InitPCA:
		return fmt.Errorf("unknown init %d", s.Init)
	case s.Relevance > model.RelevanceLocal:
		return fmt.Errorf("unknown relevance %d", s.Relevance)
	case !(s.Eta > 0) || math.IsInf(s.Eta, 0):
		return fmt.Errorf("learning rate %g: want a positive number", s.Eta)
	case s.Epochs < 0:
		return fmt.Errorf("epochs %d: want 0 or more", s.Epochs)
	case !(s.Gamma >= 0 && s.Gamma <= model.MaxRate):
		return fmt.Errorf("relevance rate %g: want 0 (the base's) up to %d", s.Gamma, model.MaxRate)
	case !(s.Beta == IdentityCost || s.Beta >= 0 && s.Beta <= model.MaxBeta):
		return fmt.Errorf("sigmoid slope %g: want 0 (the base's cost), IdentityCost or a positive number up to %g", s.Beta, float64(model.MaxBeta))
	case s.Dim < 0 || s.Dim > model.MaxSubDim:
		return fmt.Errorf("d %d: want 0 (the base's) up to %d", s.Dim, model.MaxSubDim)
	case s.Distance > model.Chordal:
		return fmt.Errorf("unknown distance %d", s.Distance)
	}
	return nil
}

// chain is the part of a setting that a training shares across epochs:
// the setting without its epochs (Epochs 1: a training).
type chain Setting

func (s Setting) chain() chain {
	c := s
	c.Epochs = 1
	if s.Prototypes == AllSetsLearned {
		c.Prototypes = 1
	}
	if s.Prototypes == AllSets {
		c.Init = model.InitSample
	}
	return chain(c)
}

// Apply returns base with s applied, for training data with labels y
// (AllSets counts each class's sets in y), as Setting's documentation
// says field by field: Prototypes (with base's PrototypesOfClass
// cleared), Init and Relevance always; Epochs and Eta, and Gamma and Beta
// when not zero, only with Epochs > 0; Dim and Distance when not zero.
// Epochs = 0 (untrained: Tune scores and returns the model of model.Init)
// leaves base's Epochs and Eta, which the model then records as the
// options it was made with. AllSets also sets Init to InitSample and
// InitNoise to 0. For AllSetsLearned it is the configuration of the
// one-prototype training whose relevances the 1-NN model takes.
func (s Setting) Apply(base model.Options, y []int) model.Options {
	c, t := base.Model, base.Train
	t.Init, c.Relevance = s.Init, s.Relevance
	c.PrototypesOfClass = nil
	if s.Epochs > 0 {
		t.Epochs, t.Eta = s.Epochs, s.Eta
		if s.Gamma > 0 {
			t.Gamma = s.Gamma
		}
		switch {
		case s.Beta > 0:
			t.Activation, t.Beta = model.Sigmoid, s.Beta
		case s.Beta == IdentityCost:
			t.Activation = model.Identity
		}
	}
	if s.Dim > 0 {
		c.SubspaceDim = s.Dim
	}
	if s.Distance != model.Geodesic {
		c.Distance = s.Distance
	}
	if s.Prototypes == AllSetsLearned {
		s.Prototypes = 1
	}
	if s.Prototypes == AllSets {
		classes := 0
		for _, v := range y {
			classes = max(classes, v+1)
		}
		counts := make([]int, classes)
		for _, v := range y {
			counts[v]++
		}
		for i := range counts {
			counts[i] = max(counts[i], 1)
		}
		c.PrototypesPerClass = 1
		c.PrototypesOfClass = counts
		t.Init = model.InitSample
		t.InitNoise = 0
	} else {
		c.PrototypesPerClass = s.Prototypes
	}
	base.Model, base.Train = c, t
	return base
}

// Grid is a search space: Settings is the product of its lists, after
// dropping duplicates (with Epochs = 0 the relevance and η do not matter;
// with AllSets neither does the initialisation).
type Grid struct {
	Prototypes []int // per class, or AllSets
	Inits      []model.InitKind
	Relevances []model.RelevanceKind
	Etas       []float64
	Epochs     []int // 0: untrained
	// NearestNeighbour adds the 1-NN setting (AllSets, Epochs 0).
	NearestNeighbour bool
}

// Space is a search space that Sample draws settings from: a setting
// takes one value of every list (a value listed twice is drawn twice as
// often) and is scored at every epoch count of Epochs (AllSetsEpochs for
// a prototype at every training set, whose epochs cost as much as
// training sets per class), which share one training per fold.
type Space struct {
	Prototypes []int // per class, or AllSets (trained), AllSetsLearned
	Inits      []model.InitKind
	Relevances []model.RelevanceKind
	Etas       []float64
	Gammas     []float64 // 0: the base's
	Betas      []float64 // Setting.Beta: 0 the base's cost, IdentityCost, a sigmoid slope
	Dims       []int     // 0: the base's (the sets' columns)
	Distances  []model.Distance
	Epochs     []int
	// AllSetsEpochs are the epochs of the AllSets settings (nil: Epochs).
	AllSetsEpochs []int
}

// Sample draws n distinct trainings (settings up to their epochs) from sp
// with a PCG stream of seed, in the order drawn, each followed by its
// other epoch counts; it stops early when the space has fewer than n
// trainings (after 100·n draws).
func (sp Space) Sample(n int, seed uint64) []Setting {
	r := rand.New(rand.NewPCG(seed, 0x5e4c))
	seen := map[chain]bool{}
	var out []Setting
	for try := 0; len(seen) < n && try < 100*n; try++ {
		s := Setting{
			Prototypes: pickOne(r, sp.Prototypes, 1),
			Init:       pickOne(r, sp.Inits, model.InitSample),
			Relevance:  pickOne(r, sp.Relevances, model.RelevanceGlobal),
			Eta:        pickOne(r, sp.Etas, model.DefaultEta),
			Gamma:      pickOne(r, sp.Gammas, 0),
			Beta:       pickOne(r, sp.Betas, 0),
			Dim:        pickOne(r, sp.Dims, 0),
			Distance:   pickOne(r, sp.Distances, model.Geodesic),
		}
		epochs := sp.Epochs
		if s.Prototypes == AllSets && sp.AllSetsEpochs != nil {
			epochs = sp.AllSetsEpochs
		}
		if s.Prototypes == AllSetsLearned {
			s.Relevance = model.RelevanceGlobal
		}
		if s.Prototypes == AllSets {
			s.Init = model.InitSample
		}
		k := s.chain()
		if seen[k] || len(epochs) == 0 {
			continue
		}
		seen[k] = true
		for _, e := range epochs {
			s.Epochs = e
			if s.check() == nil {
				out = append(out, s)
			}
		}
	}
	return out
}

func pickOne[T any](r *rand.Rand, list []T, def T) T {
	if len(list) == 0 {
		return def
	}
	return list[r.IntN(len(list))]
}

// DefaultSpace is the space of `grlgq train -tune` for samples of d
// columns (sets; single images: d is the prototypes'), the levers that
// moved held-out accuracy in docs/tuning.md: prototypes per class (1, 2,
// 3, 5, and a prototype at every training set, trained), the relevance
// rate γ over four decades, the cost (identity, sigmoid of slope 3, 10,
// 30), η from 0.01 to 0.5, d (0: the sets'), 2d/3 and d/3 angles (sets only), the
// distances the model implements (chordal once it validates), class-PCA
// or sample starts, global (twice as often) or local relevances, and 10,
// 25 and 50 epochs (3 and 10 for the prototypes at every set).
func DefaultSpace(d int, images bool) Space {
	sp := Space{
		Prototypes:    []int{1, 1, 2, 3, 5, AllSets},
		Inits:         []model.InitKind{model.InitSample, model.InitPCA},
		Relevances:    []model.RelevanceKind{model.RelevanceGlobal, model.RelevanceGlobal, model.RelevanceLocal},
		Etas:          []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.5},
		Gammas:        []float64{1e-5, 1e-4, 1e-3, 1e-2, 1e-1},
		Betas:         []float64{IdentityCost, 3, 10, 30},
		Distances:     Distances(),
		Epochs:        []int{10, 25, 50},
		AllSetsEpochs: []int{3, 10},
	}
	if images {
		sp.Prototypes = []int{1, 1, 2, 3, 5}
	} else {
		sp.Dims = []int{0} // the sets' d
		for _, f := range []int{2, 1} {
			if v := (d*f + 1) / 3; v >= 1 && v < d && !slices.Contains(sp.Dims, v) {
				sp.Dims = append(sp.Dims, v)
			}
		}
	}
	return sp
}

// Distances returns the distances model.Train accepts (Geodesic, and
// Chordal once the model implements it), as a search axis.
func Distances() []model.Distance {
	chordalOnce.Do(func() {
		o := model.DefaultOptions()
		o.Model.Distance = model.Chordal
		o.Train.Epochs, o.Train.Workers = 1, 1
		b := [2]*linalg.Dense{linalg.NewDense(2, 1), linalg.NewDense(2, 1)}
		b[0].Set(0, 0, 1)
		b[1].Set(1, 0, 1)
		x := []model.Sample{model.Set(&subspace.Subspace{Basis: b[0]}), model.Set(&subspace.Subspace{Basis: b[1]})}
		_, _, err := model.Train(context.Background(), o, x, []int{0, 1})
		chordalOK = err == nil
	})
	if chordalOK {
		return []model.Distance{model.Geodesic, model.Chordal}
	}
	return []model.Distance{model.Geodesic}
}

var (
	chordalOnce sync.Once
	chordalOK   bool
)

// DefaultSamples is the number of trainings DefaultSearch draws from
// DefaultSpace, and SearchSeed the seed it draws them with (the search
// is one fixed list for a given d: the same for every data set).
const (
	DefaultSamples = 20
	SearchSeed     = 23
)

// DefaultSearch returns the search of `grlgq train -tune` and the options
// that go with it, for training samples of d columns that are image sets
// (images false) or single images (images true): the references first,
// the package defaults (one prototype per class from class PCA, global
// relevances, η 0.02, 50 epochs, the base's other options) and,
// for sets, 1-NN (a prototype at every training set, untrained); then, for
// sets, 1-NN on fewer angles and with the chordal distance (cheap: no
// training); then DefaultSamples trainings drawn from DefaultSpace(d,
// images), each at its epoch counts. The options make it successive
// halving (DefaultRungs, DefaultKeep) with the references DefaultPreferred
// (1 for images) and DefaultConfidence. The caller sets Folds, Repeats,
// Seed, Workers and Progress.
func DefaultSearch(d int, images bool) ([]Setting, Options) {
	ss := []Setting{{Prototypes: 1, Init: model.DefaultTrainConfig().Init, Relevance: model.RelevanceGlobal, Eta: model.DefaultEta, Epochs: model.DefaultEpochs}}
	opt := DefaultOptions()
	sp := DefaultSpace(d, images)
	if images {
		opt.Preferred = 1
	} else {
		ss = append(ss, Setting{Prototypes: AllSets, Eta: 1})
		for _, dist := range sp.Distances {
			for _, dd := range sp.Dims {
				if s := (Setting{Prototypes: AllSets, Eta: 1, Dim: dd, Distance: dist}); s != ss[1] {
					ss = append(ss, s)
				}
			}
		}
	}
	ss = append(ss, sp.Sample(DefaultSamples, SearchSeed)...)
	return ss, opt
}

// DefaultPreferred and DefaultConfidence are the Options.Preferred and
// Options.Confidence of `grlgq train -tune` with DefaultSearch: the
// defaults and 1-NN compete on their means; another setting must beat the
// better of them by at least DefaultConfidence paired standard errors.
// DefaultRungs are its rungs of successive halving.
const (
	DefaultPreferred  = 2
	DefaultConfidence = 0.5
)

// DefaultRungs returns the rungs of DefaultSearch: 2 splits, then 5, then
// all of them.
func DefaultRungs() []int { return []int{2, 5} }

// DefaultFolds returns the K and the repeats of cross-validation that
// `grlgq train -tune` uses for n training sets: 5 folds up to 150 sets and
// 3 above (the cost grows with n), the 5 folds repeated twice up to 100
// sets (small data give noisy scores). Callers lower K to the smallest
// class's size (MaxFolds).
func DefaultFolds(n int) (k, repeats int) {
	switch {
	case n <= 100:
		return 5, 2
	case n <= 150:
		return 5, 1
	}
	return 3, 1
}

// DefaultGrid is the grid the CLI starts from when some of its lists are
// given by flags: 1 and 3 prototypes per class, initialised at training
// sets or by class PCA, global relevances, η 0.05, 25 and 50 epochs, plus
// 1-NN.
func DefaultGrid() Grid {
	return Grid{
		Prototypes:       []int{1, 3},
		Inits:            []model.InitKind{model.InitSample, model.InitPCA},
		Relevances:       []model.RelevanceKind{model.RelevanceGlobal},
		Etas:             []float64{0.05},
		Epochs:           []int{25, 50},
		NearestNeighbour: true,
	}
}

// Settings returns the settings of g in a fixed order (prototypes, init,
// relevance, η, epochs, as listed; 1-NN last), or ErrGrid.
func (g Grid) Settings() ([]Setting, error) {
	var out []Setting
	seen := map[Setting]bool{}
	add := func(s Setting) error {
		if err := s.check(); err != nil {
			return fmt.Errorf("selection: %w: %v", ErrGrid, err)
		}
		if s.Epochs == 0 {
			s.Relevance, s.Eta, s.Gamma, s.Beta = model.RelevanceGlobal, 1, 0, 0
		}
		if s.Prototypes == AllSets {
			s.Init = model.InitSample
		}
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
		return nil
	}
	lists := []struct {
		name string
		n    int
	}{{"prototypes", len(g.Prototypes)}, {"inits", len(g.Inits)}, {"relevances", len(g.Relevances)}, {"learning rates", len(g.Etas)}, {"epochs", len(g.Epochs)}}
	var empty []string
	for _, l := range lists {
		if l.n == 0 {
			empty = append(empty, l.name)
		}
	}
	if len(empty) > 0 && len(empty) < len(lists) {
		return nil, fmt.Errorf("selection: %w: no %s", ErrGrid, strings.Join(empty, ", "))
	}
	for _, p := range g.Prototypes {
		for _, in := range g.Inits {
			for _, r := range g.Relevances {
				for _, eta := range g.Etas {
					for _, e := range g.Epochs {
						if err := add(Setting{Prototypes: p, Init: in, Relevance: r, Eta: eta, Epochs: e}); err != nil {
							return nil, err
						}
					}
				}
			}
		}
	}
	if g.NearestNeighbour {
		if err := add(Setting{Prototypes: AllSets, Eta: 1}); err != nil {
			return nil, err
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("selection: %w: no settings", ErrGrid)
	}
	return out, nil
}
