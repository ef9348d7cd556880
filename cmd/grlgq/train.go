package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/grlgq/grlgq/cmd/internal/base"
	"github.com/grlgq/grlgq/cmd/internal/plot"
	"github.com/grlgq/grlgq/cmd/internal/record"
	"github.com/grlgq/grlgq/cmd/internal/runfiles"
	"github.com/grlgq/grlgq/dataset"
	hardex "github.com/grlgq/grlgq/hard"
	"github.com/grlgq/grlgq/model"
)

// lrHelp is said next to every learning-rate flag (see DESIGN.md).
const lrHelp = "The prototype gradient keeps the factor 2 in G = diag(2λθ/sinθ) (-distance chordal: diag(2λcosθ)) (the paper's equations, the authors' NumPy code): halve an η taken from code that drops it (the authors' PyTorch code)."

// trainFlags are the model options shared by train, cv and demo: what the
// model is, how it is trained and how it predicts (model.Options).
type trainFlags struct {
	d, epochs           int
	protos              *model.ClassCounts
	lr, lrRel           float64
	seed                uint64
	init                model.InitKind
	relevance           model.RelevanceKind
	precision           model.Precision
	distance            model.Distance
	sched               model.Schedule
	stepEvery           int
	tau                 float64
	sigmoid             float64
	classWeights        bool
	val                 float64
	patience            int
	minDelta            float64
	averageLast         int
	workers             int
	floor, noise        float64
	reject, temperature float64
}

// addFlags registers the flags with the defaults of def.
func (t *trainFlags) addFlags(fs *flag.FlagSet, def model.Options) {
	intVar(fs, &t.d, "d", def.Model.SubspaceDim, 1, model.MaxSubDim, "subspace dimension d: principal angles per set (npy data: default the bases' d)")
	t.protos = model.NewClassCounts(max(def.Model.PrototypesPerClass, 1))
	fs.Var(t.protos, "protos", fmt.Sprintf("prototypes per class: `N` for every class, a list N1,N2,... with one count per class (in the data's class order: sorted folder names or labels, as grlgq inspect lists a model's), "+
		"or class=N pairs (the other classes get 1, or the one plain N among the pairs: 3,cat=5); each count 1 to %d, at most %d prototypes in all", model.MaxClassCount, model.MaxPrototype))
	intVar(fs, &t.epochs, "epochs", def.Train.Epochs, 1, model.MaxEpochs, "passes over the training sets")
	floatVar(fs, &t.lr, "lr", def.Train.Eta, 0, model.MaxRate, true, false, "prototype learning rate η. "+lrHelp)
	floatVar(fs, &t.lrRel, "lr-rel", def.Train.Gamma, 0, model.MaxRate, true, false, "relevance learning rate γ (γ ≪ η; same convention as -lr: factor 2 in G kept)")
	uint64Var(fs, &t.seed, "seed", 1, "seed of every random choice (groups, initialisation, validation split, epoch order)")
	fs.TextVar(&t.init, "init", def.Train.Init, "prototype initialisation: sample (a random training set of the class plus noise), random, pca (class-wise PCA subspace)")
	fs.TextVar(&t.relevance, "relevance", def.Model.Relevance, "relevances of the principal angles: global (GRLGQ), none (λ = 1/d fixed, GLGQ), local (one vector per prototype)")
	fs.TextVar(&t.precision, "precision", def.Model.Precision, "format of the prototypes and their projections: float64, or float32 (twice the SIMD lanes, half the model file; angles near 0 less accurate, see docs/bounds.md)")
	fs.TextVar(&t.distance, "distance", def.Model.Distance, "distance between a set's subspace and a prototype: geodesic (Σ λ_k θ_k², the paper) or chordal (Σ λ_k sin²θ_k, the projection distance); stored in the model")
	fs.TextVar(&t.sched, "schedule", def.Train.Schedule, "learning-rate schedule: constant, step (halve every -step-every epochs), anneal (η/(1+t/τ))")
	intVar(fs, &t.stepEvery, "step-every", def.Train.StepEvery, 1, model.MaxEpochs, "epochs between halvings with -schedule step")
	floatVar(fs, &t.tau, "tau", def.Train.Tau, 0, model.MaxTau, true, false, "τ of -schedule anneal, in epochs")
	floatVar(fs, &t.sigmoid, "sigmoid", 0, 0, model.MaxBeta, false, false, "use the cost φ(μ) = 1/(1+exp(-β μ)) with this slope β (0: φ = identity, as in the paper)")
	fs.BoolVar(&t.classWeights, "class-weights", false, "weight each step by the inverse frequency of its class (imbalanced data)")
	floatVar(fs, &t.val, "val", 0, 0, 1, false, true, "fraction of each class's training sets held out for validation (0: none); with -groupings > 1 an image can sit in a training and a validation set")
	intVar(fs, &t.patience, "patience", 0, 0, model.MaxEpochs, "with -val: stop after this many epochs without an improvement of the validation accuracy (by -min-delta) and keep the best epoch (0: train all epochs)")
	floatVar(fs, &t.minDelta, "min-delta", 0, 0, 1, false, false, "with -patience: the validation accuracy (a fraction) an epoch must gain over the best epoch to improve on it; 0: ties improve, so the later of equal epochs is kept and a saturated validation set trains on")
	intVar(fs, &t.averageLast, "average-last", 0, 0, model.MaxEpochs, "return the average (model.Average) of the models after each of the last N epochs: tail averaging, for a constant -lr (0: the last epoch's model; not with -patience)")
	intVar(fs, &t.workers, "workers", defaultWorkers(), 1, model.MaxWorkers, "goroutines computing distances (results never depend on it)")
	floatVar(fs, &t.floor, "floor", def.Train.RelevanceFloor, 0, 1, false, true, "floor of every relevance λ_k after an update, before renormalising (0: no floor)")
	floatVar(fs, &t.noise, "noise", def.Train.InitNoise, 0, model.MaxInitNoise, false, false, "standard deviation of the noise added to -init sample prototypes (0: none)")
	floatVar(fs, &t.reject, "reject", def.Predict.RejectMargin, 0, 1, false, false, "reject a prediction whose relative margin is below this (0: never), stored in the model")
	floatVar(fs, &t.temperature, "temperature", def.Predict.Temperature, 0, model.MaxTemperature, true, false, "temperature of the class probabilities softmax(-δ/T), stored in the model")
}

// defaultWorkers is the default of every -workers flag.
func defaultWorkers() int { return min(runtime.GOMAXPROCS(0), model.MaxWorkers) }

// defaultOptions is the model package's defaults with d = 5, the default
// of -d.
func defaultOptions() model.Options {
	o := model.DefaultOptions()
	o.Model.SubspaceDim = 5
	return o
}

// options turns the flags into model.Options: every value as given (a 0
// means what the flag's help says, and so does the model's zero).
func (t *trainFlags) options(fs *flag.FlagSet) (model.Options, error) {
	o := defaultOptions()
	o.Model.SubspaceDim = t.d
	o.Model.PrototypesPerClass = t.protos.All() // a list or names: see ClassCounts.PerClass
	o.Model.Relevance = t.relevance
	o.Model.Precision = t.precision
	o.Model.Distance = t.distance
	tc := &o.Train
	tc.Init, tc.InitNoise, tc.Eta, tc.Gamma = t.init, t.noise, t.lr, t.lrRel
	tc.Schedule, tc.StepEvery, tc.Tau = t.sched, t.stepEvery, t.tau
	tc.ClassWeights, tc.RelevanceFloor, tc.Epochs = t.classWeights, t.floor, t.epochs
	tc.ValidationFraction, tc.Patience, tc.MinDelta, tc.AverageLast = t.val, t.patience, t.minDelta, t.averageLast
	tc.Workers, tc.Seed = t.workers, t.seed
	if t.sigmoid > 0 {
		tc.Activation, tc.Beta = model.Sigmoid, t.sigmoid
	}
	o.Predict = model.PredictConfig{Temperature: t.temperature, RejectMargin: t.reject}
	// The ranges are checked as the flags are parsed; here what depends on
	// two flags.
	switch {
	case t.patience > 0 && t.val == 0:
		return o, usagef(fs, "-patience needs a validation split (-val)")
	case t.protos.Varies() && fs.Name() != "train":
		return o, usagef(fs, "-protos %s: %s takes one count for every class", t.protos, fs.Name())
	case t.minDelta > 0 && t.patience == 0:
		return o, usagef(fs, "-min-delta needs early stopping (-patience)")
	case t.averageLast > 0 && t.patience > 0:
		return o, usagef(fs, "-average-last cannot be combined with -patience: early stopping keeps one epoch's model")
	}
	return o, nil
}

// trainingWords names the prototypes per class ("3", or "2,1,3" per class),
// the initialisation, the rate schedule and the activation of o, as
// train's summary line and inspect write them.
func trainingWords(o model.Options) (per, init, sched, phi string) {
	c, t := o.Model, o.Train
	per = fmt.Sprint(c.PrototypesPerClass)
	if c.PrototypesOfClass != nil {
		per = strings.Trim(strings.Join(strings.Fields(fmt.Sprint(c.PrototypesOfClass)), ","), "[]")
	}
	init = t.Init.String()
	sched = "constant"
	switch t.Schedule {
	case model.ScheduleStep:
		sched = fmt.Sprintf("step (halve every %d epochs)", t.StepEvery)
	case model.ScheduleAnneal:
		sched = fmt.Sprintf("anneal (τ=%g)", t.Tau)
	}
	phi = "identity"
	if t.Activation == model.Sigmoid {
		phi = fmt.Sprintf("sigmoid β=%g", t.Beta)
	}
	return per, init, sched, phi
}

// describeConfig summarises a training configuration in one line.
func describeConfig(o model.Options, classes int) string {
	c, t := o.Model, o.Train
	relevance := map[model.RelevanceKind]string{model.RelevanceGlobal: "global", model.RelevanceNone: "none (GLGQ)", model.RelevanceLocal: "local"}[c.Relevance]
	per, init, sched, phi := trainingWords(o)
	s := fmt.Sprintf("d=%d, %s prototype(s) per class (%d), init %s, relevance %s, %s distance, η=%g γ=%g (factor 2 in G kept), schedule %s, φ %s, %d epochs, seed %d, %d worker(s)",
		c.SubspaceDim, per, c.NumPrototypes(classes), init, relevance, c.Distance, t.Eta, t.Gamma, sched, phi, t.Epochs, t.Seed, t.Workers)
	if t.ValidationFraction > 0 {
		s += fmt.Sprintf(", validation %g", t.ValidationFraction)
		if t.Patience > 0 {
			s += fmt.Sprintf(" (patience %d, min delta %g)", t.Patience, t.MinDelta)
		}
	}
	if t.ClassWeights {
		s += ", class weights"
	}
	if t.AverageLast > 0 {
		s += fmt.Sprintf(", average of the last %d epochs' models", t.AverageLast)
	}
	return s
}

func runTrain(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("train")
	var (
		df      dataFlags
		tf      trainFlags
		prof    profiler
		out     string
		m       int
		groups  int
		plots   string
		asJSON  bool
		quiet   bool
		skipBad bool
		hf      hardFlags
		rf      resumeFlags
		ck      record.Checkpoint
		images  bool
		shift   int
	)
	df.addFlags(fs)
	tf.addFlags(fs, defaultOptions())
	prof.addFlags(fs)
	rf.addFlags(fs)
	fs.StringVar(&ck.Path, "checkpoint", "", "keep the latest model in this file while training (replaced atomically every -checkpoint-every epochs and when interrupted); continue with -resume FILE -epochs REMAINING")
	intVar(fs, &ck.Every, "checkpoint-every", 1, 1, model.MaxEpochs, "with -checkpoint: write it every N epochs")
	tn := newTuneFlags(fs) // -tune, -folds, -tune-*: cv.go
	fs.StringVar(&out, "o", "", "write the model to this file (replaced only when training succeeds)")
	intVar(fs, &m, "m", 0, 0, maxSetImages, "single-image data (idx, csv, mat): images per training set, drawn at random from one class (0: max(10, 2d))")
	intVar(fs, &groups, "groupings", 1, 1, maxGroupings, "single-image data: how many times the images are grouped into sets (each time reshuffled)")
	fs.StringVar(&plots, "plots", "", "write learning curves, the relevance profile and the relevances over the epochs as pictures into this folder")
	plotFmt := plotFormatFlag(fs)
	fs.BoolVar(&asJSON, "json", false, "print one JSON object (history, accuracies, relevances) instead of text")
	fs.BoolVar(&quiet, "quiet", false, "print only the final line: no progress bar, no per-epoch lines")
	hf.addFlags(fs)
	fs.BoolVar(&images, "images", false, "single-image data (idx, csv, mat): train on the single images themselves (1-D subspaces, distance θ_1² or with -distance chordal sin²θ_1, as in prediction; model.Train of model.Image samples) "+
		"instead of on sets of -m images; -init pca starts each class at the subspace of all its training images; relevances are not learned (a single image has one angle)")
	intVar(fs, &shift, "shift", 0, 0, maxShift, "with -images: also train on every training image moved by this many pixels left, right, up and down (edges replicated; 0: off). The Yale B protocol of grlgq repro: 1")
	fs.BoolVar(&skipBad, "skip-bad", false, "leave out image sets that cannot give a d-dimensional subspace (too few images, rank below d) instead of failing")
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	if out == "" {
		return usagef(fs, "-o MODEL is required")
	}
	if err := df.check(fs); err != nil {
		return err
	}
	o, err := tf.options(fs)
	if err != nil {
		return err
	}
	if err := hf.check(fs, o); err != nil {
		return err
	}
	if err := rf.check(fs); err != nil {
		return err
	}
	if err := tn.check(fs, hf.copies > 0, groups); err != nil {
		return err
	}
	kind := df.src.Source().Kind()
	notImages := kind != dataset.KindImages
	for _, c := range []struct {
		bad bool
		msg string
	}{ // the flag combinations train refuses, in this order
		{shift > 0 && !images, fmt.Sprintf("-shift %d needs -images", shift)},
		// As -val: the folds would split an image from its shifted
		// copies, and a copy in a training part would score its own
		// image's validation.
		{shift > 0 && tn.on, "-tune cannot be combined with -shift: an image's shifted copies would train in the folds that validate it; tune without -shift, then train the chosen setting with it"},
		{images && (hf.copies > 0 || isSet(fs, "m") || isSet(fs, "groupings") || skipBad), "-images trains on the single images: it takes no -m, -groupings, -hard-copies or -skip-bad"},
		{images && notImages, needsImages("images", df.src.Scheme())},
		{hf.copies > 0 && notImages, needsImages("hard-copies", df.src.Scheme())},
		// -m and -groupings group single images into sets: folder data
		// are sets already, npy data bases; they would be ignored there.
		{isSet(fs, "m") && notImages, needsImages("m", df.src.Scheme())},
		{isSet(fs, "groupings") && notImages, needsImages("groupings", df.src.Scheme())},
	} {
		if c.bad {
			return usagef(fs, "%s", c.msg)
		}
	}
	// Past the table a given -m groups single images, and d is -d or its
	// default: both known before any file is read (with -resume, d is
	// the model's: checked once the model is read, below).
	if rf.path == "" {
		if err := checkM(fs, m, o.Model.SubspaceDim); err != nil {
			return err
		}
	}
	// -hard-copies is refused with -resume and for data other than
	// single images, so d is -d or its default here too.
	if hm := hf.m; hf.copies > 0 && hm > 0 && hm < o.Model.SubspaceDim {
		return usagef(fs, "hard sets of -hard-m %d images cannot span -d %d dimensions: raise -hard-m or lower -d", hm, o.Model.SubspaceDim)
	}
	if tn.on && ck.Path != "" || ck.Path == "" && isSet(fs, "checkpoint-every") {
		return usagef(fs, "-checkpoint FILE (with -checkpoint-every N) keeps the model of one training, not of -tune's cross-validation")
	}
	// The files: inputs, then outputs, all checked before any work.
	g := e.guard(fs)
	if err := g.DataInputs(df.src.Source()); err != nil {
		return err
	}
	if err := rf.declare(g); err != nil {
		return err
	}
	if err := rf.checkM(m); err != nil {
		return err
	}
	if err := g.CheckOutput("-o", out); err != nil {
		return err
	}
	if ck.Path != "" {
		if err := g.CheckOutput("-checkpoint", ck.Path); err != nil {
			return err
		}
	}
	if err := prof.check(g); err != nil {
		return err
	}
	if err := checkPlotFormat(fs, *plotFmt); err != nil {
		return err
	}
	if plots != "" {
		if _, err := checkPlots(g, plots, *plotFmt); err != nil {
			return err
		}
		if tn.on {
			if err := g.CheckOutput("-plots", filepath.Join(plots, plot.PageName("tuning", 0, 1, *plotFmt))); err != nil {
				return err
			}
		}
	}
	if err := prof.start(g); err != nil {
		return err
	}
	defer prof.stop()

	text := io.Discard
	if !asJSON {
		text = e.stdout
	}
	if !quiet {
		df.progress = e.stderr
	}
	t0 := time.Now()
	ds, err := df.load(ctx, tf.workers, rf.size())
	if err != nil {
		return err
	}
	// Folders a linked class or set points to are data too: no output
	// may land in them.
	if err := g.DataFolders(ds.Files); err != nil {
		return err
	}
	if !quiet {
		fmt.Fprintf(text, "data       %s\n", describe(ds))
	}
	if !ds.Labelled() {
		return fmt.Errorf("%s has no labels: training needs labelled data (classify such data with grlgq predict)", ds.Source)
	}
	if o.Model.PrototypesOfClass, err = tf.protos.PerClass(ds.Classes); err != nil {
		return usagef(fs, "-protos: %v", err)
	}
	if ds.Kind() == dataset.KindBases && !isSet(fs, "d") {
		o.Model.SubspaceDim = ds.SubDim
	}
	if err := rf.apply(ds, &o); err != nil {
		return err
	}
	if rf.model != nil {
		// The data fit the model's D; a shape unlike its image size is
		// said, as eval says it, at the end of a successful run.
		w, h := rf.model.ImageSize()
		for _, msg := range df.sizeWarnings(fs, w, h) {
			e.warnLater(fs.Name(), msg)
		}
	}
	if m == 0 {
		m = max(10, 2*o.Model.SubspaceDim)
	}
	if err := checkSizes(fs, ds, o, m, groups, hf.copies, hf.m, images, df.src.Limits); err != nil {
		return err
	}
	var hard *hardTraining
	if hf.copies > 0 {
		if ds.Kind() != dataset.KindImages {
			return usagef(fs, "-hard-copies needs single-image data (idx, csv, mat): %s holds %s", ds.Source, ds.Kind())
		}
		hm := hf.m // at least d: checked before loading
		if hm == 0 {
			hm = o.Model.SubspaceDim
		}
		hard = &hardTraining{ds: ds, opt: hardex.Options{M: hm, Margin: hf.margin, Copies: hf.copies}}
	}
	var train *dataset.Subspaces
	var how string
	var x []model.Sample // what model.Train trains on
	var y []int
	if images {
		if ds.Kind() != dataset.KindImages {
			return usagef(fs, "-images needs single-image data (idx, csv, mat): %s holds %s", ds.Source, ds.Kind())
		}
		train = &dataset.Subspaces{}
		how = fmt.Sprintf("%d single images as 1-D subspaces (distance θ_1²)", len(ds.Images))
		imgs, labels := ds.Images, ds.Labels
		if shift > 0 {
			if ds.Width <= 0 || ds.Height <= 0 || ds.Width*ds.Height != ds.Dim {
				return usagef(fs, "-shift needs the image size: give -image HxW (or -resize)")
			}
			if o.Train.ValidationFraction > 0 {
				return usagef(fs, "-shift cannot be combined with -val: the shifted copies of validation images would train")
			}
			if imgs, labels, err = dataset.WithShifts(imgs, labels, ds.Width, ds.Height, shift); err != nil {
				return err
			}
			how += fmt.Sprintf(", each also shifted by %d pixel(s) left, right, up and down (%d images)", shift, len(imgs))
		}
		x, y = model.Images(imgs), labels
	} else {
		if train, how, err = trainingSubspaces(ds, o.Model.SubspaceDim, m, groups, o.Train.Seed, tf.workers, skipBad, df.progress); err != nil {
			return err
		}
		x, y = model.Sets(train.Subs), train.Labels
	}
	if hard != nil {
		how += "; " + hard.opt.String()
	}
	if !quiet {
		fmt.Fprintf(text, "training   %s\n", how)
		for _, s := range train.Skipped {
			fmt.Fprintf(text, "skipped    %s: %v\n", s.Name, s.Err)
		}
	}
	o.Model.ClassNames = ds.Classes
	if ds.Width > 0 && ds.Height > 0 && ds.Width*ds.Height == ds.Dim {
		// Recorded in the model: eval, predict and explain resize to it.
		o.Model.ImageWidth, o.Model.ImageHeight = ds.Width, ds.Height
	}
	if tn.on {
		commit := func() error {
			if err := prof.finish(g); err != nil {
				return err
			}
			return g.Commit()
		}
		return tn.run(ctx, e, fs, o, ds, x, y, train, tuneOutput{g: g, commit: commit, model: out, plots: plots, format: *plotFmt, json: asJSON, quiet: quiet, text: text, start: t0, meta: provenance(&df, ds, o, m, t0, nil)})
	}
	if !quiet {
		fmt.Fprintf(text, "config     %s\n", describeConfig(o, len(ds.Classes)))
	}
	loadTime := time.Since(t0)

	ck.Meta = provenance(&df, ds, o, m, t0, rf.model)
	o.Train.OnEpoch = ck.OnEpoch
	ck.Start(e.stderr, rf.epochs()+o.Train.Epochs)
	res, err := trainModel(ctx, e, o, rf.model, x, y, hard, text, quiet)
	ck.Stop()
	if err != nil {
		if ctx.Err() != nil {
			ck.Save()
		}
		return err
	}
	// Every output to its temporary file, then all renamed into place.
	if res.model, err = res.model.WithMetadata(ck.Meta); err != nil {
		return err
	}
	mf, err := g.Create(out)
	if err != nil {
		return err
	}
	if err := res.model.Save(mf); err != nil {
		return err
	}
	var pics []string
	if plots != "" {
		pics, err = writeTrainingPlots(g, plots, res.hist, res.model, *plotFmt)
		if err != nil {
			return err
		}
	}
	if err := prof.finish(g); err != nil {
		return err
	}
	if err := g.Commit(); err != nil {
		return err
	}
	if asJSON {
		js := trainJSON(out, ds, train, res, loadTime, pics)
		if hard != nil {
			js["hard"] = map[string]any{"copies": hard.opt.Copies, "m": hard.opt.M, "margin": jnum(hard.opt.Margin)}
		}
		return writeJSON(e.stdout, js)
	}
	last := res.hist.Epochs[len(res.hist.Epochs)-1]
	if !quiet {
		fmt.Fprintf(text, "relevances λ = %s\n", fmtFloats(res.model.Relevances(), 4))
		for _, p := range pics {
			fmt.Fprintf(text, "plot       %s\n", p)
		}
	}
	msg := fmt.Sprintf("saved %s: %d prototypes, D=%d, d=%d, %d epochs, train accuracy %s", out, res.model.NumPrototypes(), res.model.Dim(), res.model.SubspaceDim(), res.model.Epochs(), pct(last.TrainAccuracy))
	switch h := res.hist; {
	case h.Averaged > 0 && !math.IsNaN(h.AveragedValAccuracy):
		msg += fmt.Sprintf(", validation accuracy %s (the average of the last %d epochs' models)", pct(h.AveragedValAccuracy), h.Averaged)
	case h.Averaged > 0:
		msg += fmt.Sprintf(" (the model: the average of the last %d epochs' models)", h.Averaged)
	case h.Best >= 0 && !math.IsNaN(h.Epochs[h.Best].ValAccuracy):
		msg += fmt.Sprintf(", validation accuracy %s (epoch %d)", pct(h.Epochs[h.Best].ValAccuracy), h.Epochs[h.Best].Epoch)
	}
	if n := res.hist.Skipped(); n > 0 {
		msg += fmt.Sprintf(", %d steps skipped (both winners at distance 0: no gradient)", n)
	}
	fmt.Fprintf(e.stdout, "%s (%s)\n", msg, base.RoundDur(time.Since(t0)))
	return nil
}

// needsImages is the usage message of flag given for data of scheme
// (folder, npy), which are not single images.
func needsImages(flag, scheme string) string {
	return "-" + flag + " needs single-image data (idx, csv, mat): " + scheme + " data are image sets or bases"
}

// checkM refuses a given -m below d, -d or its default (train, cv): sets
// of m images cannot span d dimensions.
func checkM(fs *flag.FlagSet, m, d int) error {
	if m > 0 && m < d {
		return usagef(fs, "sets of -m %d images cannot span -d %d dimensions: raise -m or lower -d", m, d)
	}
	return nil
}

// provenance is the metadata of a model trained on ds (record.Provenance).
func provenance(df *dataFlags, ds *dataset.Dataset, o model.Options, m int, start time.Time, from *model.Model) map[string]string {
	return record.Provenance(df.src.String(), ds, record.Preprocess{Resize: df.src.Resize, PixelMax: df.src.PixelMax, D: o.Model.SubspaceDim, M: m}, start, from)
}

// trainingSubspaces turns ds into training subspaces
// (dataset.TrainingSubspaces) and describes what it did; it words the
// checks of -d and -m for the command line first.
func trainingSubspaces(ds *dataset.Dataset, d, m, groupings int, seed uint64, workers int, skipBad bool, progress io.Writer) (*dataset.Subspaces, string, error) {
	var how string
	switch ds.Kind() {
	case dataset.KindBases:
		if d > ds.SubDim {
			return nil, "", fmt.Errorf("%s holds bases of d=%d; -d %d cannot be more (or leave -d out)", ds.Source, ds.SubDim, d)
		}
		how = fmt.Sprintf("%d precomputed bases, d=%d", len(ds.Bases), d)
		if d < ds.SubDim {
			how += fmt.Sprintf(" (their first %d of %d columns)", d, ds.SubDim)
		}
	case dataset.KindSets:
		how = fmt.Sprintf("one subspace per image set, d=%d", d)
	default:
		if m < d {
			return nil, "", fmt.Errorf("sets of m=%d images cannot span d=%d dimensions: raise -m or lower -d", m, d)
		}
		how = fmt.Sprintf("sets of m=%d random same-class images (%d grouping(s)), d=%d", m, groupings, d)
	}
	bar := base.NewPercent(orDiscard(progress), "building subspaces", progress == nil)
	subs, err := dataset.TrainingSubspaces(ds, dataset.TrainingOptions{D: d, M: m, Groupings: groupings, Seed: seed, SkipBad: skipBad, Workers: workers, Progress: bar.Update})
	bar.Clear()
	if err != nil {
		return nil, "", setError(err, d)
	}
	if subs.Len() == 0 {
		return nil, "", fmt.Errorf("%s: no training subspaces", ds.Source)
	}
	return subs, fmt.Sprintf("%d subspaces: %s", subs.Len(), how), nil
}

// trained is the outcome of trainModel.
type trained struct {
	model *model.Model
	hist  *model.History
	wall  time.Duration
	// hard[i] is the number of hard images and hard sets of epoch i (nil
	// without hard-example sets).
	hard [][2]int
}

// hardFlags are train's hard-example flags (single-image data).
type hardFlags struct {
	copies int
	margin float64
	m      int
}

func (h *hardFlags) addFlags(fs *flag.FlagSet) {
	intVar(fs, &h.copies, "hard-copies", 0, 0, maxHardCopies, "single-image data (idx, csv, mat): before every epoch the current model classifies each training image by θ_1; "+
		"those it misclassifies or classifies with a relative margin below -hard-margin are grouped into extra training sets of -hard-m same-class images, "+
		"each added this many times to the epoch's random sets (0: off; not with -val). The MNIST protocol of grlgq repro: 8")
	floatVar(fs, &h.margin, "hard-margin", 0.1, -1, 1, false, false, "with -hard-copies: an image is hard when the paper's μ = (d⁺ − d⁻)/(d⁺ + d⁻) of its θ_1² distances (as explain's mu: negative when correct) is above minus this, "+
		"i.e. it is misclassified or correct by a relative margin below this")
	intVar(fs, &h.m, "hard-m", 0, 0, maxSetImages, "with -hard-copies: images per hard set, at least d (0: d, a set's subspace is their span)")
}

// check validates the hard-example flags against the model options.
func (h *hardFlags) check(fs *flag.FlagSet, o model.Options) error {
	switch {
	case h.copies == 0 && (isSet(fs, "hard-margin") || isSet(fs, "hard-m")):
		return usagef(fs, "-hard-margin and -hard-m need -hard-copies C > 0")
	case h.copies == 0:
		return nil
	case o.Train.ValidationFraction > 0:
		return usagef(fs, "-hard-copies cannot be combined with -val (nor -patience): the hard sets are built from every image, validation images included")
	}
	return nil
}

// hardTraining is train's hard-example setting: the images and the sets.
type hardTraining struct {
	ds  *dataset.Dataset
	opt hardex.Options
}

// trainModel trains on (x, y) with per-epoch lines on text and a progress
// bar on stderr (when it is a terminal and not quiet): model.Train, or
// model.Continue of from, with hard-example sets (the hook hard.Images)
// when hard != nil.
func trainModel(ctx context.Context, e *env, o model.Options, from *model.Model, x []model.Sample, y []int, hard *hardTraining, text io.Writer, quiet bool) (*trained, error) {
	bar := base.NewProgress(e.stderr, o.Train.Epochs, "epochs", quiet)
	before := 0 // epochs the resumed model had
	if from != nil {
		before = from.Epochs()
	}
	width := len(fmt.Sprint(before + o.Train.Epochs))
	var hardDone [][2]int
	onEpoch := o.Train.OnEpoch // the caller's (a checkpoint)
	o.Train.OnEpoch = func(s model.EpochStats) error {
		if onEpoch != nil {
			if err := onEpoch(s); err != nil {
				return err
			}
		}
		bar.Clear()
		if !quiet {
			line := fmt.Sprintf("epoch %*d/%d  cost %+.4f  train acc %s", width, s.Epoch, before+o.Train.Epochs, s.Cost, pct(s.TrainAccuracy))
			if !math.IsNaN(s.ValAccuracy) {
				line += "  val acc " + pct(s.ValAccuracy)
			}
			if n := len(hardDone); n > 0 {
				line += fmt.Sprintf("  hard %d img %d sets", hardDone[n-1][0], hardDone[n-1][1])
			}
			if s.Skipped > 0 {
				line += fmt.Sprintf("  %d steps skipped (both winners at distance 0)", s.Skipped)
			}
			if o.Model.Relevance == model.RelevanceGlobal && len(s.Relevances) <= 8 {
				line += "  λ " + fmtFloats(s.Relevances, 3)
			}
			line += "  " + base.RoundDur(s.Duration).String()
			fmt.Fprintln(text, line)
		}
		bar.Update(s.Epoch-before, "train acc "+pct(s.TrainAccuracy))
		return nil
	}
	if hard != nil {
		opt := hard.opt
		opt.OnSelect = func(epoch, nimg, nsets int) { hardDone = append(hardDone, [2]int{nimg, nsets}) }
		hook, err := hardex.Images(hard.ds.Images, hard.ds.Labels, opt)
		if err != nil {
			return nil, err
		}
		o.Train.Augment = hook
	}
	var (
		m    *model.Model
		hist *model.History
		err  error
	)
	t0 := time.Now()
	if from != nil {
		m, hist, err = model.Continue(ctx, from, o.Train, x, y)
	} else {
		m, hist, err = model.Train(ctx, o, x, y)
	}
	bar.Clear()
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return nil, errors.New("interrupted: no model written")
		}
		return nil, fmt.Errorf("training: %w", err)
	}
	if from != nil {
		// A resumed model keeps its structure; -reject and -temperature
		// apply, and a model without an image size takes the data's.
		if m, err = m.WithPredictConfig(o.Predict); err == nil {
			if w, _ := m.ImageSize(); w == 0 && o.Model.ImageWidth != 0 {
				m, err = m.WithImageSize(o.Model.ImageWidth, o.Model.ImageHeight)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("training: %w", err)
		}
	}
	if hist == nil || len(hist.Epochs) == 0 {
		return nil, errors.New("training: no epoch ran")
	}
	return &trained{model: m, hist: hist, wall: time.Since(t0), hard: hardDone}, nil
}

type epochJSON struct {
	Epoch         int    `json:"epoch"`
	Cost          jnum   `json:"cost"`
	TrainAccuracy jnum   `json:"train_accuracy"`
	ValAccuracy   jnum   `json:"val_accuracy"`
	Eta           jnum   `json:"eta"`
	Gamma         jnum   `json:"gamma"`
	Relevances    []jnum `json:"relevances"`
	Seconds       jnum   `json:"seconds"`
	// Skipped counts the epoch's steps without a gradient (both winners
	// at distance 0), which changed nothing.
	Skipped int `json:"skipped"`
	// With -hard-copies: the hard images and hard sets of the epoch.
	HardImages *int `json:"hard_images,omitempty"`
	HardSets   *int `json:"hard_sets,omitempty"`
}

func historyJSON(h *model.History) []epochJSON {
	out := make([]epochJSON, len(h.Epochs))
	for i, s := range h.Epochs {
		out[i] = epochJSON{Epoch: s.Epoch, Cost: jnum(s.Cost), TrainAccuracy: jnum(s.TrainAccuracy), ValAccuracy: jnum(s.ValAccuracy),
			Eta: jnum(s.Eta), Gamma: jnum(s.Gamma), Relevances: jnums(s.Relevances), Seconds: jnum(s.Duration.Seconds()), Skipped: s.Skipped}
	}
	return out
}

// hardHistoryJSON is historyJSON with the hard-set counts of each epoch.
func hardHistoryJSON(h *model.History, hard [][2]int) []epochJSON {
	out := historyJSON(h)
	for i := range out {
		if i < len(hard) {
			out[i].HardImages, out[i].HardSets = &hard[i][0], &hard[i][1]
		}
	}
	return out
}

func trainJSON(out string, ds *dataset.Dataset, train *dataset.Subspaces, res *trained, load time.Duration, pics []string) map[string]any {
	h := res.hist
	best := h.Epochs[max(h.Best, 0)]
	last := h.Epochs[len(h.Epochs)-1]
	val := best.ValAccuracy
	if h.Averaged > 0 {
		val = h.AveragedValAccuracy // the returned model's
	}
	return map[string]any{
		"model":          out,
		"data":           ds.Source,
		"classes":        ds.Classes,
		"n_train":        len(h.Train),
		"n_val":          len(h.Val),
		"skipped":        len(train.Skipped),
		"dim":            res.model.Dim(),
		"subspace_dim":   res.model.SubspaceDim(),
		"distance":       res.model.Config().Distance.String(),
		"prototypes":     res.model.NumPrototypes(),
		"epochs":         res.model.Epochs(),
		"best_epoch":     best.Epoch,
		"early_stopped":  h.EarlyStopped,
		"train_accuracy": jnum(last.TrainAccuracy),
		"val_accuracy":   jnum(val),
		"averaged":       h.Averaged,
		"accuracy":       jnum(last.TrainAccuracy),
		"relevances":     jnums(res.model.Relevances()),
		"history":        hardHistoryJSON(h, res.hard),
		"plots":          append([]string{}, pics...),
		"load_seconds":   load.Seconds(),
		"train_seconds":  res.wall.Seconds(),
	}
}

// plotFormatFlag defines -plot-format, -plot-size and -dpi on fs (every
// command that draws); savePlot reads the last two from the run's flags.
func plotFormatFlag(fs *flag.FlagSet) *string {
	fs.Var(new(plot.Size), "plot-size", fmt.Sprintf("size of every picture, WxH in inches (like 6x4, each side %g to %g; default: each picture's own)", plot.MinSide, plot.MaxSide))
	intVar(fs, new(int), "dpi", 96, plot.MinDPI, plot.MaxDPI, "resolution of PNG pictures, dots per inch")
	return base.ChoiceVar(fs, "plot-format", plot.Formats[0], plot.Formats, "format of the pictures: "+strings.Join(plot.Formats, ", "))
}

// plotSize is the picture size of the flags of plotFormatFlag, checked
// against plot's limits.
func plotSize(fs *flag.FlagSet) (s plot.Size, err error) {
	if f := fs.Lookup("plot-size"); f != nil {
		s = *f.Value.(*plot.Size)
		fmt.Sscan(fs.Lookup("dpi").Value.String(), &s.DPI)
		if err := s.Check(); err != nil {
			return s, usagef(fs, "-plot-size %s -dpi %d: %v (lower -plot-size or -dpi)", f.Value, s.DPI, strings.TrimPrefix(err.Error(), "plot: "))
		}
	}
	return s, nil
}

// The pictures train and demo write into -plots DIR (the history's
// relevance_history only when it recorded relevances).
var plotNames = []string{"learning_curves", "relevances", "relevance_history"}

// checkPlots declares -plots DIR and its pictures in format as outputs.
// With names, they are the pictures instead; it returns their paths.
func checkPlots(g *runfiles.Guard, dir, format string, names ...string) ([]string, error) {
	if err := g.OutputDir("-plots", dir); err != nil {
		return nil, err
	}
	if names == nil {
		names = plotNames
	}
	var paths []string
	for _, n := range names {
		paths = append(paths, filepath.Join(dir, plot.PageName(n, 0, 1, format)))
		if err := g.CheckOutput("-plots", paths[len(paths)-1]); err != nil {
			return nil, err
		}
	}
	return paths, nil
}

// checkPlotFormat checks -plot-size and -dpi together (-plot-format is
// checked as it is parsed).
func checkPlotFormat(fs *flag.FlagSet, format string) error {
	_, err := plotSize(fs)
	return err
}

// savePlot renders f as format into the temporary file of the output
// path (see files.write), committed with the run's other outputs.
func savePlot(g *runfiles.Guard, path string, f *plot.Figure, format string) error {
	size, err := plotSize(g.Flags())
	if err != nil {
		return err
	}
	var b bytes.Buffer
	if err := f.RenderSize(&b, format, size); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return g.Write(path, b.Bytes())
}

// writeTrainingPlots writes learning_curves, relevances and (when the
// history recorded relevances) relevance_history pictures into dir and
// returns their paths.
func writeTrainingPlots(g *runfiles.Guard, dir string, h *model.History, m *model.Model, format string) ([]string, error) {
	figs := []struct {
		name string
		f    *plot.Figure
	}{{"learning_curves", plot.LearningCurves(h)}, {"relevances", plot.Relevances(m)}, {"relevance_history", plot.RelevanceHistory(h, m.SubspaceDim())}}
	var out []string
	for _, f := range figs {
		if f.f == nil {
			continue
		}
		p := filepath.Join(dir, plot.PageName(f.name, 0, 1, format))
		if err := savePlot(g, p, f.f, format); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// relevanceText draws the relevance profile as text bars.
func relevanceText(w io.Writer, m *model.Model) {
	lam := m.Relevances()
	d := m.SubspaceDim()
	if len(lam) != d {
		fmt.Fprintf(w, "relevances: local, %d prototypes x %d angles\n", len(lam)/d, d)
		return
	}
	top := 0.0
	for _, v := range lam {
		top = math.Max(top, v)
	}
	fmt.Fprintln(w, "relevance profile λ (θ1 = smallest principal angle):")
	for k, v := range lam {
		n := 0
		if top > 0 {
			n = int(math.Round(40 * v / top))
		}
		fmt.Fprintf(w, "  θ%-2d %.4f %s\n", k+1, v, strings.Repeat("█", n))
	}
}
