package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/grlgq/grlgq/dataset"
	"github.com/grlgq/grlgq/model"
)

// resumeFlags is train's -resume MODEL: continue training a saved model
// (model.Continue, on sets or with -images on single images) on data of the
// same shape and classes. The model's structure (d, prototypes per class,
// initialisation, relevance kind) comes from the file, so the flags that
// define it are refused; the optimiser's flags (-epochs, -lr, -lr-rel,
// -schedule, -val, -patience, -seed, ...) apply. Epoch numbers, and so the
// learning-rate schedule and the permutations, continue from the model's.
// -o may name the resumed file itself: it is read whole before training,
// and replaced only when training succeeds.
type resumeFlags struct {
	path  string
	model *model.Model
}

// structuralFlags are train's flags that define a model's structure.
var structuralFlags = []string{"d", "protos", "init", "noise", "relevance"}

func (r *resumeFlags) addFlags(fs *flag.FlagSet) {
	fs.StringVar(&r.path, "resume", "", "continue training this model file (same data shape D and classes) for -epochs more epochs; "+
		"its structure is kept, so -"+strings.Join(structuralFlags, ", -")+" and -hard-copies are refused; the optimiser's flags apply. "+
		"-o may be the same file (replaced only when training succeeds)")
}

// check refuses the flags that -resume cannot take. It runs with the
// other usage checks, before any file is touched.
func (r *resumeFlags) check(fs *flag.FlagSet) error {
	if r.path == "" {
		return nil
	}
	var given []string
	for _, n := range append(structuralFlags, "hard-copies") {
		if isSet(fs, n) {
			given = append(given, "-"+n)
		}
	}
	if len(given) > 0 {
		return usagef(fs, "-resume keeps the model's structure (d, prototypes per class, initialisation, relevance kind) and trains sets or images, not hard-example sets: leave out %s", strings.Join(given, ", "))
	}
	return nil
}

// declare declares the model as an input of the run, one that -o may
// replace, and loads it. It follows the data's declaration and precedes
// the outputs'.
func (r *resumeFlags) declare(g *files) error {
	if r.path == "" {
		return nil
	}
	if err := g.input("-resume", r.path, false); err != nil {
		return fmt.Errorf("-resume: %w", err)
	}
	g.inputs[len(g.inputs)-1].replaceable = true
	m, err := model.LoadFile(r.path)
	if err != nil {
		return fmt.Errorf("-resume %s: %w", r.path, err)
	}
	r.model = m
	return nil
}

// size is the image size the data are loaded at: the resumed model's, or
// none (training from scratch).
func (r *resumeFlags) size() dataset.Size {
	if r.model == nil {
		return dataset.Size{}
	}
	w, h := r.model.ImageSize()
	return dataset.Size{Width: w, Height: h}
}

// apply checks that the data fit the resumed model (D, d of bases, the
// classes by count and name, in order) and sets the structural fields of
// cfg to the model's, so that what train prints and checks is what
// model.Continue will run.
func (r *resumeFlags) apply(ds *dataset.Dataset, cfg *modelConfig) error {
	m := r.model
	if m == nil {
		return nil
	}
	if ds.Dim != m.Dim() {
		return fmt.Errorf("-resume %s: the model has D=%d values per image, %s has %d", r.path, m.Dim(), ds.Source, ds.Dim)
	}
	if ds.Bases != nil && ds.SubDim != m.SubspaceDim() {
		return fmt.Errorf("-resume %s: the model has d=%d, the bases of %s d=%d", r.path, m.SubspaceDim(), ds.Source, ds.SubDim)
	}
	names := make([]string, m.NumClasses())
	for c := range names {
		names[c] = className(m, c)
	}
	if len(ds.Classes) != len(names) {
		return fmt.Errorf("-resume %s: the model has %d classes (%s), %s has %d (%s)", r.path, len(names), classList(names), ds.Source, len(ds.Classes), classList(ds.Classes))
	}
	for c, n := range ds.Classes {
		if m.ClassName(c) != "" && n != names[c] {
			return fmt.Errorf("-resume %s: class %d is %q in the model, %q in %s (classes: model %s; data %s)", r.path, c, names[c], n, ds.Source, classList(names), classList(ds.Classes))
		}
	}
	s, st := m.Config(), m.TrainConfig()
	cfg.SubspaceDim = m.SubspaceDim()
	cfg.PrototypesPerClass, cfg.PrototypesOfClass = s.PrototypesPerClass, s.PrototypesOfClass
	cfg.Init, cfg.InitNoise, cfg.Relevance = st.Init, st.InitNoise, s.Relevance
	return nil
}
