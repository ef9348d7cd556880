package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/grlgq/grlgq/dataset"
	"github.com/grlgq/grlgq/internal/demo"
	"github.com/grlgq/grlgq/model"
)

// The demo's protocol: a stratified 70/30 split of the digit images; the
// training images become sets of demoM random same-class digits; test
// accuracy is given for sets of demoM test digits and for single test
// digits (θ_1, as the paper's MNIST experiment).
const (
	maxDemoM     = 100 // -m: a class has about 125 training digits
	demoM        = 10
	demoD        = 4
	demoTestFrac = 0.3
)

func demoDefaults() modelConfig {
	return modelConfig{Config: model.Config{SubspaceDim: demoD, PrototypesPerClass: 3}, TrainConfig: model.TrainConfig{Epochs: 30, Eta: 0.05, Gamma: 1e-4, Init: model.InitSample}}
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
	fs.StringVar(&plots, "plots", "", "also write learning curves and the relevance pictures as PNG into this folder")
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
	g := e.guard(fs)
	if export != "" {
		if err := g.checkOutput("-export-data", export); err != nil {
			return err
		}
		if err := g.write(export, demo.DigitsCSV()); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		if err := g.commit(); err != nil {
			return fmt.Errorf("export: %w", err)
		}
		fmt.Fprintf(e.stdout, "wrote %s (%s); train on it with\n  grlgq train -data csv:%s -image 8x8 -pixel-max 16 -d 4 -m 10 -protos 3 -o digits.grlgq\n", export, demo.Attribution, export)
		return nil
	}
	cfg, err := tf.config(fs)
	if err != nil {
		return err
	}
	if m < cfg.SubspaceDim {
		return usagef(fs, "-m %d and -d %d: want d <= m", m, cfg.SubspaceDim)
	}
	if save != "" {
		if err := g.checkOutput("-o", save); err != nil {
			return err
		}
	}
	if plots != "" {
		if err := checkPlots(g, plots, "png"); err != nil {
			return err
		}
	}
	text := io.Discard
	if !asJSON {
		text = e.stdout
	}
	t0 := time.Now()
	ds, err := demoDataset()
	if err != nil {
		return err
	}
	all := make([]int, len(ds.Images))
	for i := range all {
		all[i] = i
	}
	trainIdx, testIdx, err := dataset.Holdout(ds.Labels, all, demoTestFrac, cfg.Seed)
	if err != nil {
		return err
	}
	// Test and training images are disjoint; test sets use their own
	// shuffle (seed+1) so they are not the training grouping's twins.
	train, err := dataset.GroupSubspaces(ds, trainIdx, dataset.GroupOptions{M: m, D: cfg.SubspaceDim, Seed: cfg.Seed, Workers: cfg.Workers})
	if err != nil {
		return setError(err, cfg.SubspaceDim)
	}
	testSets, err := dataset.GroupSubspaces(ds, testIdx, dataset.GroupOptions{M: m, D: cfg.SubspaceDim, Seed: cfg.Seed + 1, Workers: cfg.Workers})
	if err != nil {
		return setError(err, cfg.SubspaceDim)
	}
	cfg.ClassNames = ds.Classes

	fmt.Fprintf(text, "GRLGQ demo: handwritten digits as image sets, classified by prototype subspaces\n\n")
	fmt.Fprintf(text, "data       %d digits of 8x8 pixels (D=64), 10 classes, values 0-16 scaled to [0,1]\n", len(ds.Images))
	fmt.Fprintf(text, "           (%s)\n", demo.Attribution)
	fmt.Fprintf(text, "split      stratified: %d training digits, %d test digits\n", len(trainIdx), len(testIdx))
	fmt.Fprintf(text, "sets       each set = %d random digits of one class -> its d=%d-dim subspace (SVD)\n", m, cfg.SubspaceDim)
	fmt.Fprintf(text, "           %d training sets, %d test sets\n", train.Len(), testSets.Len())
	fmt.Fprintf(text, "config     %s\n\n", describeConfig(cfg, len(ds.Classes)))

	res, err := trainModel(ctx, e, cfg, nil, train, nil, nil, text, quiet)
	if err != nil {
		return err
	}
	mod := res.model
	defer mod.Close()

	// Set-level and single-image test accuracy.
	setSamples := &samples{kind: "set", ds: ds, subs: testSets, labels: testSets.Labels, data: testSets.Labels, names: testSets.Names}
	setPred, err := predictAll(ctx, mod, setSamples, cfg.Workers)
	if err != nil {
		return err
	}
	setScore := score(mod.NumClasses(), setSamples.labels, setPred)
	imgSamples := &samples{kind: "image", ds: ds, images: testIdx}
	for _, i := range testIdx {
		imgSamples.labels = append(imgSamples.labels, ds.Labels[i])
		imgSamples.names = append(imgSamples.names, fmt.Sprintf("image %d", i))
	}
	imgSamples.data = imgSamples.labels
	imgPred, err := predictAll(ctx, mod, imgSamples, cfg.Workers)
	if err != nil {
		return err
	}
	imgScore := score(mod.NumClasses(), imgSamples.labels, imgPred)

	// The untrained baseline: class-wise PCA prototypes, λ = 1/d.
	bcfg := cfg
	bcfg.Init, bcfg.PrototypesPerClass, bcfg.Relevance = model.InitPCA, 1, model.RelevanceNone
	base, err := model.Init(bcfg.Config, bcfg.TrainConfig, model.Sets(train.Subs), train.Labels)
	if err == nil {
		base, err = bcfg.finish(base)
	}
	if err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	defer base.Close()
	basePred, err := predictAll(ctx, base, imgSamples, cfg.Workers)
	if err != nil {
		return err
	}
	baseScore := score(base.NumClasses(), imgSamples.labels, basePred)

	var pics []string
	if plots != "" {
		if pics, err = writeTrainingPlots(g, plots, res.hist, mod, "png"); err != nil {
			return err
		}
	}
	if save != "" {
		f, err := g.create(save)
		if err != nil {
			return err
		}
		if err := mod.Save(f); err != nil {
			return err
		}
	}
	if err := g.commit(); err != nil {
		return err
	}
	wall := time.Since(t0)
	if asJSON {
		return writeJSON(e.stdout, map[string]any{
			"accuracy":                jnum(imgScore.accuracy()),
			"image_accuracy":          jnum(imgScore.accuracy()),
			"set_accuracy":            jnum(setScore.accuracy()),
			"baseline_image_accuracy": jnum(baseScore.accuracy()),
			"n_test_images":           imgScore.n,
			"n_test_sets":             setScore.n,
			"n_train_sets":            train.Len(),
			"m":                       m,
			"subspace_dim":            mod.SubspaceDim(),
			"epochs":                  mod.Epochs(),
			"relevances":              jnums(mod.Relevances()),
			"history":                 historyJSON(res.hist),
			"plots":                   append([]string{}, pics...),
			"seconds":                 wall.Seconds(),
			"data":                    demo.Attribution,
		})
	}
	fmt.Fprintf(text, "\ntest accuracy\n")
	fmt.Fprintf(text, "  sets of %d digits   %s  (%d/%d; distance Σ λ_k θ_k²)\n", m, pct(setScore.accuracy()), setScore.correct, setScore.n)
	fmt.Fprintf(text, "  single digits      %s  (%d/%d; distance θ_1², as the paper's MNIST test)\n", pct(imgScore.accuracy()), imgScore.correct, imgScore.n)
	fmt.Fprintf(text, "  untrained baseline %s  (single digits; class-wise PCA prototypes, λ = 1/d)\n\n", pct(baseScore.accuracy()))
	relevanceText(text, mod)
	for _, p := range pics {
		fmt.Fprintf(text, "plot       %s\n", p)
	}
	if save != "" {
		fmt.Fprintf(text, "model      saved to %s\n", save)
	}
	fmt.Fprintf(text, "\ndone in %s (training %s, %d CPU(s)). Next: grlgq demo -export-data digits.csv.gz, then grlgq train / eval / explain on it.\n",
		roundDur(wall), roundDur(res.wall), runtime.GOMAXPROCS(0))
	return nil
}

// demoDataset wraps the embedded digits as a data set.
func demoDataset() (*dataset.Dataset, error) {
	x, y, err := demo.Digits()
	if err != nil {
		return nil, err
	}
	ds := &dataset.Dataset{
		Source:  "embedded UCI digits",
		Classes: []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"},
		Labels:  y,
		Dim:     demo.DigitWidth * demo.DigitHeight,
		Width:   demo.DigitWidth,
		Height:  demo.DigitHeight,
		Images:  x,
	}
	if err := ds.Validate(); err != nil {
		return nil, err
	}
	return ds, nil
}
