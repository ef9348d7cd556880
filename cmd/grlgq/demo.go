package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/grlgq/grlgq/cmd/internal/base"
	"github.com/grlgq/grlgq/dataset"
	"github.com/grlgq/grlgq/dataset/digits"
	"github.com/grlgq/grlgq/folds"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/predict"
)

// The demo's protocol over the embedded UCI digits (package
// dataset/digits): a stratified holdout of demoTestFraction of them
// (folds.Holdout, seeded), training sets of m random same-class training
// digits (seeded by the seed), test sets of m test digits (seed+1, so that
// they are not the training grouping's twins), and the untrained
// baseline. The test and training digits are disjoint.
const (
	demoM            = 10  // digits per set
	demoD            = 4   // d
	demoTestFraction = 0.3 // of each class, held out for the test
	maxDemoM         = 100 // a class has about 125 training digits
)

// demoDefaults is the demo's model: d = 4, 3 prototypes per class from
// training sets, 30 epochs, η 0.05, γ 1e-4.
func demoDefaults() model.Options {
	o := model.DefaultOptions()
	o.Model.SubspaceDim, o.Model.PrototypesPerClass = demoD, 3
	o.Train.Epochs, o.Train.Eta, o.Train.Gamma, o.Train.Init = 30, 0.05, 1e-4, model.InitSample
	return o
}

// demoData is what the demo trains and tests on.
type demoData struct {
	digits            *dataset.Dataset
	trainIdx, testIdx []int // the holdout, ascending indices
	train, testSets   *dataset.Subspaces
}

// prepareDemo loads the digits, holds out the test digits and groups both
// parts into sets of m digits turned into d-dimensional subspaces.
func prepareDemo(m, d int, seed uint64, workers int) (*demoData, error) {
	ds, err := digits.Load()
	if err != nil {
		return nil, err
	}
	all := make([]int, len(ds.Images))
	for i := range all {
		all[i] = i
	}
	trainIdx, testIdx, err := folds.Holdout(ds.Labels, all, demoTestFraction, seed)
	if err != nil {
		return nil, err
	}
	train, err := dataset.GroupSubspaces(ds, trainIdx, dataset.GroupOptions{M: m, D: d, Seed: seed, Workers: workers})
	if err != nil {
		return nil, err
	}
	testSets, err := dataset.GroupSubspaces(ds, testIdx, dataset.GroupOptions{M: m, D: d, Seed: seed + 1, Workers: workers})
	if err != nil {
		return nil, err
	}
	return &demoData{digits: ds, trainIdx: trainIdx, testIdx: testIdx, train: train, testSets: testSets}, nil
}

// baseline is the untrained baseline the demo compares with: one
// class-wise PCA prototype per class and uniform relevances λ = 1/d, with
// the other settings of o, initialised on the training sets.
func (dt *demoData) baseline(o model.Options) (*model.Model, error) {
	o.Model.PrototypesPerClass, o.Model.PrototypesOfClass, o.Model.Relevance = 1, nil, model.RelevanceNone
	o.Train.Init = model.InitPCA
	return model.Init(o, model.Sets(dt.train.Subs), dt.train.Labels)
}

func runDemo(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("demo")
	var (
		tf     trainFlags
		m      int
		plots  string
		asJSON bool
		quiet  bool
		save   string
		export string
	)
	tf.addFlags(fs, demoDefaults())
	intVar(fs, &m, "m", demoM, 1, maxDemoM, "digits per image set, at least d")
	fs.StringVar(&plots, "plots", "", "also write learning curves and the relevance pictures into this folder")
	plotFmt := plotFormatFlag(fs)
	fs.StringVar(&save, "o", "", "also save the model to this file (then try: grlgq explain -model FILE ...)")
	fs.StringVar(&export, "export-data", "", "write the embedded digits (gzipped CSV: 64 pixels 0-16, then the label) to this file and exit")
	fs.BoolVar(&asJSON, "json", false, `print one JSON object with "accuracy" (single digits), "set_accuracy", ... instead of text`)
	fs.BoolVar(&quiet, "quiet", false, "no per-epoch lines and no progress bar")
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	if err := checkPlotFormat(fs, *plotFmt); err != nil {
		return err
	}
	g := e.guard(fs)
	if export != "" {
		if err := g.CheckOutput("-export-data", export); err != nil {
			return err
		}
		if err := g.Write(export, digits.CSV()); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		if err := g.Commit(); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		fmt.Fprintf(e.stdout, "wrote %s (%s); train on it with\n  grlgq train -data csv:%s -image 8x8 -pixel-max 16 -d 4 -m 10 -protos 3 -o digits.grlgq\n", export, digits.Attribution, export)
		return nil
	}
	o, err := tf.options(fs)
	if err != nil {
		return err
	}
	if m < o.Model.SubspaceDim {
		return usagef(fs, "-m %d and -d %d: want d <= m", m, o.Model.SubspaceDim)
	}
	if save != "" {
		if err := g.CheckOutput("-o", save); err != nil {
			return err
		}
	}
	if plots != "" {
		if _, err := checkPlots(g, plots, *plotFmt); err != nil {
			return err
		}
	}
	text := io.Discard
	if !asJSON {
		text = e.stdout
	}
	t0 := time.Now()
	data, err := prepareDemo(m, o.Model.SubspaceDim, o.Train.Seed, o.Train.Workers)
	if err != nil {
		return setError(err, o.Model.SubspaceDim)
	}
	ds, trainIdx, testIdx, train, testSets := data.digits, data.trainIdx, data.testIdx, data.train, data.testSets
	o.Model.ClassNames = ds.Classes

	fmt.Fprintf(text, "GRLGQ demo: handwritten digits as image sets, classified by prototype subspaces\n\n")
	fmt.Fprintf(text, "data       %d digits of 8x8 pixels (D=64), 10 classes, values 0-16 scaled to [0,1]\n", len(ds.Images))
	fmt.Fprintf(text, "           (%s)\n", digits.Attribution)
	fmt.Fprintf(text, "split      stratified: %d training digits, %d test digits\n", len(trainIdx), len(testIdx))
	fmt.Fprintf(text, "sets       each set = %d random digits of one class -> its d=%d-dim subspace (SVD)\n", m, o.Model.SubspaceDim)
	fmt.Fprintf(text, "           %d training sets, %d test sets\n", train.Len(), testSets.Len())
	fmt.Fprintf(text, "config     %s\n\n", describeConfig(o, len(ds.Classes)))

	res, err := trainModel(ctx, e, o, nil, model.Sets(train.Subs), train.Labels, nil, text, quiet)
	if err != nil {
		return err
	}
	// Scored on -workers' cores, as trained (Model.WithWorkers).
	mod, err := res.model.WithWorkers(o.Train.Workers)
	if err != nil {
		return err
	}

	// Set-level and single-image test accuracy (Model.Score), and the
	// untrained baseline's: class-wise PCA prototypes, λ = 1/d.
	imgs := make([][]float64, len(testIdx))
	labels := make([]int, len(testIdx))
	for k, i := range testIdx {
		imgs[k], labels[k] = ds.Images[i], ds.Labels[i]
	}
	setScore, err := predict.Score(ctx, mod, model.Sets(testSets.Subs), testSets.Labels)
	if err != nil {
		return err
	}
	imgScore, err := predict.Score(ctx, mod, model.Images(imgs), labels)
	if err != nil {
		return err
	}
	bm, err := data.baseline(o)
	if err == nil {
		bm, err = bm.WithWorkers(o.Train.Workers)
	}
	if err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	baseScore, err := predict.Score(ctx, bm, model.Images(imgs), labels)
	if err != nil {
		return err
	}

	var pics []string
	if plots != "" {
		if pics, err = writeTrainingPlots(g, plots, res.hist, mod, *plotFmt); err != nil {
			return err
		}
	}
	if save != "" {
		f, err := g.Create(save)
		if err != nil {
			return err
		}
		if err := mod.Save(f); err != nil {
			return err
		}
	}
	if err := g.Commit(); err != nil {
		return err
	}
	wall := time.Since(t0)
	if asJSON {
		return writeJSON(e.stdout, map[string]any{
			"accuracy":                jnum(imgScore.Accuracy()),
			"image_accuracy":          jnum(imgScore.Accuracy()),
			"set_accuracy":            jnum(setScore.Accuracy()),
			"baseline_image_accuracy": jnum(baseScore.Accuracy()),
			"n_test_images":           imgScore.N,
			"n_test_sets":             setScore.N,
			"n_train_sets":            train.Len(),
			"m":                       m,
			"subspace_dim":            mod.SubspaceDim(),
			"epochs":                  mod.Epochs(),
			"relevances":              jnums(mod.Relevances()),
			"history":                 historyJSON(res.hist),
			"plots":                   append([]string{}, pics...),
			"seconds":                 wall.Seconds(),
			"data":                    digits.Attribution,
		})
	}
	fmt.Fprintf(text, "\ntest accuracy\n")
	dist := mod.Config().Distance
	fmt.Fprintf(text, "  sets of %d digits   %s  (%d/%d; distance Σ λ_k %s)\n", m, pct(setScore.Accuracy()), setScore.Correct, setScore.N, dist.Term())
	fmt.Fprintf(text, "  single digits      %s  (%d/%d; distance %s, as the paper's MNIST test)\n", pct(imgScore.Accuracy()), imgScore.Correct, imgScore.N, dist.ImageTerm())
	fmt.Fprintf(text, "  untrained baseline %s  (single digits; class-wise PCA prototypes, λ = 1/d)\n\n", pct(baseScore.Accuracy()))
	relevanceText(text, mod)
	for _, p := range pics {
		fmt.Fprintf(text, "plot       %s\n", p)
	}
	if save != "" {
		fmt.Fprintf(text, "model      saved to %s\n", save)
	}
	fmt.Fprintf(text, "\ndone in %s (training %s, %d CPU(s)). Next: grlgq demo -export-data digits.csv.gz, then grlgq train / eval / explain on it.\n",
		base.RoundDur(wall), base.RoundDur(res.wall), runtime.GOMAXPROCS(0))
	return nil
}
