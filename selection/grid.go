package selection

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/grlgq/grlgq/model"
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
// other options (d, γ, schedule, activation, seed, ...) come from the
// base model.Options given to Tune.
type Setting struct {
	// Prototypes per class (>= 1), or AllSets.
	Prototypes int
	Init       model.InitKind
	Relevance  model.RelevanceKind
	// Eta is the prototype learning rate η (> 0).
	Eta float64
	// Epochs of training; 0 means none: the initial model is scored (and
	// returned), as model.TrainConfig's Epochs 0.
	Epochs int
}

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
	if s.NearestNeighbour() {
		return "1-NN (protos=all, epochs=0)"
	}
	if s.Prototypes == AllSetsLearned {
		return fmt.Sprintf("1-NN, λ of protos=1 init=%s lr=%g epochs=%d", s.Init, s.Eta, s.Epochs)
	}
	if s.Epochs == 0 {
		return fmt.Sprintf("protos=%s init=%s epochs=0 (untrained)", ProtosName(s.Prototypes), s.Init)
	}
	return fmt.Sprintf("protos=%s init=%s relevance=%s lr=%g epochs=%d", ProtosName(s.Prototypes), s.Init, s.Relevance, s.Eta, s.Epochs)
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
	}
	return nil
}

// chain is the part of a setting that a training shares across epochs.
type chain struct {
	Prototypes int
	Init       model.InitKind
	Relevance  model.RelevanceKind
	Eta        float64
}

func (s Setting) chain() chain {
	c := chain{s.Prototypes, s.Init, s.Relevance, s.Eta}
	if s.Prototypes == AllSetsLearned {
		c.Prototypes = 1
	}
	if s.Prototypes == AllSets {
		c.Init = model.InitSample
	}
	return c
}

// Apply returns base with s applied, for training data with labels y
// (AllSets counts each class's sets in y). Epochs = 0 (untrained: Tune
// scores and returns the model of model.Init) leaves base's Epochs and
// Eta, which the model then records as the options it was made with. For
// AllSetsLearned it is the configuration of the one-prototype training
// whose relevances the 1-NN model takes.
func (s Setting) Apply(base model.Options, y []int) model.Options {
	c, t := base.Model, base.Train
	t.Init, c.Relevance = s.Init, s.Relevance
	c.PrototypesOfClass = nil
	if s.Epochs > 0 {
		t.Epochs, t.Eta = s.Epochs, s.Eta
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

// DefaultSettings is the search of `grlgq train -tune`, in its order of
// preference for ties (docs/tuning.md has the study behind it); its first
// two settings (the defaults and 1-NN with their relevances) are the
// references of DefaultPreferred and DefaultConfidence. It is not a full
// product, which would cost too much and, scored on small data,
// would mostly add settings that win the inner folds by luck; settings
// that differ only in epochs share one training per fold. In order:
//
//  1. the package defaults: one prototype per class from a training set,
//     global relevances, η 0.05, 50 epochs (which the tuner must never do
//     worse than);
//  2. 1-NN with the relevances the defaults learnt (AllSetsLearned:
//     a prototype at every training set, untrained, distance Σ λ_k θ_k²
//     with the λ of row 1's training, which it shares), the fallback
//     where nearest neighbours win (classes made of several clusters);
//     with the defaults' λ it lost less to the defaults than the plain
//     geodesic 1-NN where those are right (docs/tuning.md);
//  3. the defaults after 25 epochs;
//  4. localized relevances, otherwise the defaults;
//  5. one prototype per class from class PCA, global relevances, η 0.05,
//     25 and 50 epochs;
//  6. one prototype per class from a training set, η 0.1, 25 epochs;
//  7. three prototypes per class from training sets, global relevances,
//     η 0.05, 25 epochs.
func DefaultSettings() []Setting {
	var out []Setting
	add := func(p int, in model.InitKind, r model.RelevanceKind, eta float64, epochs ...int) {
		for _, e := range epochs {
			out = append(out, Setting{p, in, r, eta, e})
		}
	}
	add(1, model.InitSample, model.RelevanceGlobal, 0.05, 50)
	add(AllSetsLearned, model.InitSample, model.RelevanceGlobal, 0.05, 50)
	add(1, model.InitSample, model.RelevanceGlobal, 0.05, 25)
	add(1, model.InitSample, model.RelevanceLocal, 0.05, 50)
	add(1, model.InitPCA, model.RelevanceGlobal, 0.05, 25, 50)
	add(1, model.InitSample, model.RelevanceGlobal, 0.1, 25)
	add(3, model.InitSample, model.RelevanceGlobal, 0.05, 25)
	return out
}

// DefaultSearch returns the search of `grlgq train -tune` and the options
// that go with it, for training samples that are image sets (images false)
// or single images (images true). For sets: DefaultSettings with
// DefaultOptions. For single images, where a prototype cannot sit at a
// training sample: DefaultSettings without the nearest-neighbour rows, the
// package defaults the one reference (Preferred 1), and DefaultConfidence.
// The caller sets Folds, Repeats, Seed, Workers and Progress.
func DefaultSearch(images bool) ([]Setting, Options) {
	ss, opt := DefaultSettings(), DefaultOptions()
	if images {
		ss = slices.DeleteFunc(ss, func(s Setting) bool { return s.Prototypes == AllSets || s.Prototypes == AllSetsLearned })
		opt.Preferred = 1
	}
	return ss, opt
}

// DefaultPreferred and DefaultConfidence are the Options.Preferred and
// Options.Confidence of `grlgq train -tune` with DefaultSettings: the
// defaults and 1-NN (with the defaults' relevances) compete on their
// means; another setting must beat the better of them by at least one
// paired standard error.
const (
	DefaultPreferred  = 2
	DefaultConfidence = 1.0
)

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
			s.Relevance, s.Eta = model.RelevanceGlobal, 1
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
						if err := add(Setting{p, in, r, eta, e}); err != nil {
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
