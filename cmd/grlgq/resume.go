package main

import (
	"flag"
	"fmt"
	"strings"

	"github.com/grlgq/grlgq/cmd/internal/runfiles"
	"github.com/grlgq/grlgq/dataset"
	"github.com/grlgq/grlgq/model"
)

// resumeFlags is train's -resume MODEL: continue training a saved model
// (model.Continue, on sets or with -images on single images) on data of the
// same shape and classes. The model's structure (d, prototypes per class,
// initialisation, relevance kind, distance) comes from the file, so the flags that
// define it are refused; the optimiser's flags (-epochs, -lr, -lr-rel,
// -schedule, -val, -patience, -seed, ...) apply. Epoch numbers, and so the
// learning-rate schedule and the permutations, continue from the model's.
// -o may name the resumed file itself: it is read whole before training,
// and replaced only when training succeeds. Data of the model's D whose
// -resize or -image is not its image size train with eval's warnings
// (dataFlags.sizeWarnings).
type resumeFlags struct {
	path  string
	model *model.Model
}

// structuralFlags are train's flags that define a model's structure.
var structuralFlags = []string{"d", "protos", "init", "noise", "relevance", "distance"}

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
		return usagef(fs, "-resume keeps the model's structure (d, prototypes per class, initialisation, relevance kind, distance) and trains sets or images, not hard-example sets: leave out %s", strings.Join(given, ", "))
	}
	return nil
}

// declare declares the model as an input of the run, one that -o may
// replace, and loads it. It follows the data's declaration and precedes
// the outputs'.
func (r *resumeFlags) declare(g *runfiles.Guard) error {
	if r.path == "" {
		return nil
	}
	if err := g.InputReplaceable("-resume", r.path); err != nil {
		return fmt.Errorf("-resume: %w", err)
	}
	m, err := model.LoadFile(r.path)
	if err != nil {
		return fmt.Errorf("-resume %s: %w", r.path, err)
	}
	r.model = m
	return nil
}

// checkM refuses a given -m below the resumed model's d, which -resume
// keeps (-d is refused): the advice is to raise -m. It follows declare.
func (r *resumeFlags) checkM(m int) error {
	if r.model == nil || m == 0 || m >= r.model.SubspaceDim() {
		return nil
	}
	d := r.model.SubspaceDim()
	return fmt.Errorf("sets of -m %d images cannot span the model's d=%d dimensions: raise -m to %d or more (-resume keeps the model's d)", m, d, d)
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

// apply checks that the data fit the resumed model (Model.Fits: D, d of
// bases, the classes by count and name, in order) and sets the structural
// fields of o to the model's, so that what train prints and checks is what
// model.Continue will run.
func (r *resumeFlags) apply(ds *dataset.Dataset, o *model.Options) error {
	m := r.model
	if m == nil {
		return nil
	}
	d := 0
	if ds.Kind() == dataset.KindBases {
		d = ds.SubDim
	}
	if err := m.Fits(ds.Dim, d, ds.Classes); err != nil {
		return fmt.Errorf("-resume %s: %s: %w", r.path, ds.Source, err)
	}
	s, st := m.Config(), m.TrainConfig()
	o.Model.SubspaceDim = m.SubspaceDim()
	o.Model.PrototypesPerClass, o.Model.PrototypesOfClass = s.PrototypesPerClass, s.PrototypesOfClass
	o.Train.Init, o.Train.InitNoise, o.Model.Relevance = st.Init, st.InitNoise, s.Relevance
	o.Model.Distance = s.Distance
	return nil
}

// epochs is the resumed model's epochs (0 training from scratch).
func (r *resumeFlags) epochs() int {
	if r.model == nil {
		return 0
	}
	return r.model.Epochs()
}
