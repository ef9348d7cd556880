package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/grlgq/grlgq/baseline"
	"github.com/grlgq/grlgq/cmd/internal/base"
	"github.com/grlgq/grlgq/cmd/internal/plot"
	"github.com/grlgq/grlgq/cmd/internal/runfiles"
	"github.com/grlgq/grlgq/dataset"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/score"
	"github.com/grlgq/grlgq/selection"
)

// Cross-validation (grlgq cv) and tuning (grlgq train -tune): flags, text,
// JSON, the progress bar and the picture; the work is package selection's.

const defaultCVFolds = 5

// runCV is "grlgq cv": k-fold cross-validation of the train flags' model.
func runCV(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("cv")
	var (
		df      dataFlags
		tf      trainFlags
		folds   int
		repeats int
		m       int
		asJSON  bool
		quiet   bool
		skipBad bool
	)
	df.addFlags(fs)
	tf.addFlags(fs, defaultOptions())
	intVar(fs, &folds, "folds", defaultCVFolds, 2, maxFolds, "K of stratified K-fold cross-validation (2 up to the size of the smallest class); the folds are seeded by -seed")
	intVar(fs, &repeats, "repeats", 1, 1, maxCVRepeats, "repeat the -folds cross-validation with other shuffles of the folds this many times (seeded by -seed): folds x repeats trainings, whose accuracies all enter the mean and sd; with -tune, the outer folds (-tune-repeats repeats the inner ones); with -baselines, the baselines on the same splits")
	intVar(fs, &m, "m", 0, 0, maxSetImages, "single-image data (idx, csv, mat): images per set, drawn at random from one class (default max(10, 2d)); every image is in one set")
	format := reportFormatFlag(fs, &asJSON)
	plots := fs.String("plots", "", "write the confusion matrix pooled over the folds and the per-fold accuracies as pictures into this folder")
	plotFmt := plotFormatFlag(fs)
	fs.BoolVar(&quiet, "quiet", false, "no progress bar")
	fs.BoolVar(&skipBad, "skip-bad", false, "leave out sets of rank below d instead of failing")
	bl := newBaselineFlags(fs, true)
	tn := newCVTuneFlags(fs, bl) // -tune, -tune-folds, -tune-*
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	if err := checkReportFormat(fs, format, asJSON); err != nil {
		return err
	}
	if err := bl.check(e, fs); err != nil {
		return err
	}
	if err := tn.check(fs, false, 1); err != nil {
		return err
	}
	if err := checkPlotFormat(fs, *plotFmt); err != nil {
		return err
	}
	o, err := tf.options(fs)
	if err != nil {
		return err
	}
	if err := df.check(fs); err != nil {
		return err
	}
	// As train: -m groups single images into sets (folder data are sets
	// already, npy data bases), and d is -d or its default, both known
	// before any file is read.
	if isSet(fs, "m") && df.src.Source().Kind() != dataset.KindImages {
		return usagef(fs, "%s", needsImages("m", df.src.Scheme()))
	}
	if err := checkM(fs, m, o.Model.SubspaceDim); err != nil {
		return err
	}
	g := e.guard(fs)
	if err := g.DataInputs(df.src.Source()); err != nil {
		return err
	}
	var pics []string
	if *plots != "" {
		if pics, err = checkPlots(g, *plots, *plotFmt, "cv_confusion", "cv_folds"); err != nil {
			return err
		}
	}
	if !quiet {
		df.progress = e.stderr
	}
	t0 := time.Now()
	ds, err := df.load(ctx, tf.workers, dataset.Size{})
	if err != nil {
		return err
	}
	// Folders a linked class or set points to are data too: no output
	// may land in them.
	if err := g.DataFolders(ds.Files); err != nil {
		return err
	}
	if ds.Kind() == dataset.KindBases && !isSet(fs, "d") {
		o.Model.SubspaceDim = ds.SubDim
	}
	if m == 0 {
		m = max(10, 2*o.Model.SubspaceDim)
	}
	subs, how, err := trainingSubspaces(ds, o.Model.SubspaceDim, m, 1, o.Train.Seed, tf.workers, skipBad, df.progress)
	if err != nil {
		return err
	}
	o.Model.ClassNames = ds.Classes
	text := io.Discard
	if *format == "text" && !quiet {
		text = e.stdout
	}
	fmt.Fprintf(text, "data       %s\n", describe(ds))
	fmt.Fprintf(text, "sets       %s\n", how)
	fmt.Fprintf(text, "config     %s\n", describeConfig(o, len(ds.Classes)))
	outer := selection.Options{Folds: folds, Repeats: repeats, Seed: o.Train.Seed, Workers: tf.workers}
	var (
		res    *selection.CVResult
		nested *selection.NestedResult
		ss     []selection.Setting
		inner  selection.Options
	)
	if tn.on {
		x := model.Sets(subs.Subs)
		d := o.Model.SubspaceDim
		if len(x) > 0 {
			d = x[0].Subspace().D()
		}
		if ss, inner, err = tn.options(fs, d, false, o.Train.Seed, tf.workers); err != nil {
			return err
		}
		fmt.Fprintf(text, "tuning     in each outer fold, %s\n", describeSearch(ss, inner))
	}
	bar := newProgressPercent(e.stderr, quiet)
	outer.Progress = bar.Update
	if tn.on {
		nested, err = selection.NestedCV(ctx, o, ss, model.Sets(subs.Subs), subs.Labels, outer, inner)
		if err == nil {
			res = nested.CVResult()
		}
	} else {
		res, err = selection.CrossValidate(ctx, o, model.Sets(subs.Subs), subs.Labels, outer)
	}
	bar.Clear()
	if err != nil {
		return selectionError(err)
	}
	acc := make([]float64, len(res.Folds))
	tables := []score.Table{score.TableOf("pooled", res.Pooled())}
	for i, f := range res.Folds {
		acc[i] = f.Accuracy
		tables = append(tables, score.TableOf(strconv.Itoa(i+1), f.Scores))
	}
	var bres *baseline.Result
	if bl.methods != nil {
		name := "GRLGQ"
		if nested != nil {
			name = "GRLGQ (tuned)"
		}
		if bres, err = bl.run(ctx, name, model.Sets(subs.Subs), subs.Labels, res.Splits, acc, o.Train.Seed, tf.workers); err != nil {
			return err
		}
	}
	if pics != nil {
		if err := savePlot(g, pics[0], plot.Confusion(ds.Classes, tables[0].Confusion), *plotFmt); err != nil {
			return err
		}
		if err := savePlot(g, pics[1], plot.FoldAccuracies(acc, res.Mean, res.SD), *plotFmt); err != nil {
			return err
		}
		if err := g.Commit(); err != nil {
			return err
		}
	}
	switch *format {
	case "csv", "latex":
		if bres != nil {
			if err := bl.write(e, io.Discard, bres); err != nil {
				return err
			}
		}
		return score.WriteReport(e.stdout, *format, ds.Classes, tables...)
	case "json":
		correct := make([]int, len(res.Folds))
		n := make([]int, len(res.Folds))
		secs := make([]float64, len(res.Folds))
		for i, f := range res.Folds {
			correct[i], n[i], secs[i] = f.Correct, f.N, f.Duration.Seconds()
		}
		if bres != nil {
			if err := bl.write(e, io.Discard, bres); err != nil {
				return err
			}
		}
		out := map[string]any{
			"data":          ds.Source,
			"classes":       ds.Classes,
			"n":             subs.Len(),
			"skipped":       len(subs.Skipped),
			"folds":         folds,
			"repeats":       repeats,
			"seed":          o.Train.Seed,
			"config":        describeConfig(o, len(ds.Classes)),
			"mean":          jnum(res.Mean),
			"sd":            jnum(res.SD),
			"fold_accuracy": jnums(acc),
			"fold_correct":  correct,
			"fold_n":        n,
			"fold_seconds":  jnums(secs),
			"seconds":       time.Since(t0).Seconds(),
			"pooled":        tables[0],
			"fold_reports":  tables[1:],
			"plots":         append([]string{}, pics...),
			"baselines":     bres,
		}
		if nested != nil {
			out["tune"] = nestedJSON(nested, inner)
		}
		return writeJSON(e.stdout, out)
	}
	for i, f := range res.Folds {
		r := tables[i+1].Report
		which := fmt.Sprintf("fold %d/%d", i+1, len(res.Folds))
		if k := res.Plan.Folds; res.Plan.Repeats > 1 && k > 0 { // the splits of each repeat in turn
			which = fmt.Sprintf("repeat %d fold %d/%d", i/k+1, i%k+1, k)
		}
		fmt.Fprintf(text, "%s  %s (%d/%d)  macro F1 %.4f  weighted F1 %.4f  %s\n", which, pct(f.Accuracy), f.Correct, f.N, r.Macro.F1, r.Weighted.F1, base.RoundDur(f.Duration))
		if nested != nil {
			nf := nested.Folds[i]
			fmt.Fprintf(text, "           chose %d %s (inner %s ± %s, %s)\n", nf.Best+1, nf.Setting, pct(nf.InnerMean), pct(nf.InnerSD), innerHow(nf.Inner))
		}
	}
	if repeats > 1 {
		fmt.Fprintf(text, "\npooled over the folds (every set's out-of-fold prediction, once per repeat):\n")
	} else {
		fmt.Fprintf(text, "\npooled over the folds (every set's out-of-fold prediction):\n")
	}
	score.WriteReport(text, "text", ds.Classes, tables[0])
	for _, p := range pics {
		fmt.Fprintf(text, "plot       %s\n", p)
	}
	what := "stratified cross-validation"
	if nested != nil {
		what = "nested stratified cross-validation of -tune"
	}
	fmt.Fprintf(e.stdout, "accuracy %s ± %s (%s %s, seed %d, %d sets) (%s)\n", pct(res.Mean), pct(res.SD), foldsHow(selection.Plan{Folds: folds, Repeats: repeats}), what, o.Train.Seed, subs.Len(), base.RoundDur(time.Since(t0)))
	if bres != nil {
		return bl.write(e, e.stdout, bres)
	}
	return nil
}

// describeSearch says in a line how the tuner chooses (the settings,
// its folds, halving and references).
func describeSearch(ss []selection.Setting, opt selection.Options) string {
	k := "automatic"
	if opt.Folds > 0 {
		k = strconv.Itoa(opt.Folds)
	}
	how := fmt.Sprintf("%d settings by stratified cross-validation on the outer training part (folds %s", len(ss), k)
	if opt.Repeats > 0 {
		how += fmt.Sprintf(", %d repeats", opt.Repeats)
	}
	how += ")"
	if opt.Rungs != nil {
		how += fmt.Sprintf(", successive halving at splits %v", opt.Rungs)
	}
	return how + fmt.Sprintf("; the references are the first %d, another setting must gain %g paired standard errors", max(opt.Preferred, 1), opt.Confidence)
}

// innerHow names an inner cross-validation: "3-fold", "2 x 5-fold", or
// that there was none.
func innerHow(p selection.Plan) string {
	if p.Folds == 0 {
		return "no inner cross-validation"
	}
	return foldsHow(p)
}

// foldsHow names the folds of a plan: "3-fold", or "2 x 5-fold" with
// repeats.
func foldsHow(p selection.Plan) string {
	if p.Repeats > 1 {
		return fmt.Sprintf("%d x %d-fold", p.Repeats, p.Folds)
	}
	return fmt.Sprintf("%d-fold", p.Folds)
}

// nestedJSON is the -tune part of cv's JSON: the search and, per outer
// fold, the setting chosen and its inner score.
func nestedJSON(r *selection.NestedResult, opt selection.Options) map[string]any {
	folds := make([]map[string]any, len(r.Folds))
	for i, f := range r.Folds {
		folds[i] = settingJSON(f.Setting)
		folds[i]["index"] = f.Best
		folds[i]["inner_mean"], folds[i]["inner_sd"] = jnum(f.InnerMean), jnum(f.InnerSD)
		folds[i]["inner_folds"], folds[i]["inner_repeats"], folds[i]["inner_note"] = f.Inner.Folds, f.Inner.Repeats, f.Inner.Note()
	}
	return map[string]any{
		"inner_folds":   opt.Folds,
		"inner_repeats": opt.Repeats,
		"rungs":         opt.Rungs,
		"preferred":     max(opt.Preferred, 1),
		"confidence":    opt.Confidence,
		"chosen":        folds,
	}
}

// selectionError words the errors of package selection for the command
// line.
func selectionError(err error) error {
	if errors.Is(err, context.Canceled) {
		return errors.New("interrupted: no model written")
	}
	return err
}

// newProgressPercent is a bar in percent for a library's Progress.
func newProgressPercent(w io.Writer, quiet bool) *base.Percent {
	return base.NewPercent(w, "", quiet)
}

// tuneFlags are the -tune flags of train (choose, then train) and cv
// (nested cross-validation of that choice).
type tuneFlags struct {
	on                               bool
	folds, repeats                   int
	confidence                       float64
	protos, inits, rels, lrs, epochs string
	bl                               *baselineFlag
	// foldsFlag names the flag of the (inner) K: train's -folds,
	// cv's -tune-folds (cv's -folds is the outer K).
	foldsFlag string
}

func newTuneFlags(fs *flag.FlagSet) *tuneFlags {
	t := &tuneFlags{foldsFlag: "folds"}
	fs.BoolVar(&t.on, "tune", false, "choose prototypes per class, initialisation, relevances, -lr, -lr-rel, the cost (-sigmoid), d, the distance and -epochs by stratified cross-validation on the training sets "+
		"(successive halving over a fixed random sample of settings; docs/tuning.md), then train the best setting on all of them; the other flags give the rest of the configuration")
	t.addSearchFlags(fs)
	t.bl = newBaselineFlags(fs, false)
	return t
}

// newCVTuneFlags are cv's -tune flags; bl is cv's -baselines, which
// compares the baselines with the tuned model on the outer folds.
func newCVTuneFlags(fs *flag.FlagSet, bl *baselineFlag) *tuneFlags {
	t := &tuneFlags{foldsFlag: "tune-folds", bl: bl}
	fs.BoolVar(&t.on, "tune", false, "nested cross-validation of train -tune: in each of the -folds outer folds, choose the settings as train -tune does (its own inner cross-validation on the outer training part, the -tune-* flags), "+
		"train the chosen setting on the outer training part and score it on the outer test part, which takes no part in the choice: the unbiased estimate of the tuned model's accuracy")
	t.addSearchFlags(fs)
	return t
}

// addSearchFlags adds the flags of the search and its inner folds.
func (t *tuneFlags) addSearchFlags(fs *flag.FlagSet) {
	intVar(fs, &t.folds, t.foldsFlag, 0, 0, maxFolds, "with -tune: K of the stratified K-fold cross-validation that chooses (0: 5 up to 150 training sets, else 3; classes smaller than K are validated in fewer folds, a class of one set is kept in every training part)")
	floatVar(fs, &t.confidence, "tune-confidence", 0, 0, 100, false, false, fmt.Sprintf("with -tune: how many paired standard errors a setting must gain over the reference (the default search: the better of the package defaults and 1-NN; a search from -tune-* lists: its first setting) to be chosen instead (when not given: %g for the default search, 0 = the plain best mean for a search from lists)", selection.DefaultConfidence))
	intVar(fs, &t.repeats, "tune-repeats", 0, 0, 100, "with -tune: repeat the cross-validation with other folds this many times (0: twice up to 100 training sets with the default K, else once)")
	fs.StringVar(&t.protos, "tune-protos", "", "with -tune: prototypes per class to try, e.g. 1,2,4; \"all\" adds 1-NN (a prototype at every training set, untrained). "+
		"Giving any of -tune-protos, -tune-init, -tune-relevance, -tune-lr, -tune-epochs searches the product of the lists, the others taking 1,3,all / sample,pca / global / 0.05 / 25,50")
	fs.StringVar(&t.inits, "tune-init", "", "with -tune: initialisations to try (sample, random, pca)")
	fs.StringVar(&t.rels, "tune-relevance", "", "with -tune: relevances to try (global, none, local)")
	fs.StringVar(&t.lrs, "tune-lr", "", "with -tune: learning rates η to try, e.g. 0.05,0.01 (factor 2 in G kept, as -lr)")
	fs.StringVar(&t.epochs, "tune-epochs", "", "with -tune: epoch counts to try, e.g. 0,10,25,50 (0: untrained); one training per fold serves all of them")
}

// check rejects -tune with options it cannot honour, and the search
// flags without -tune.
func (t *tuneFlags) check(fs *flag.FlagSet, hard bool, groupings int) error {
	if !t.on {
		names := []string{t.foldsFlag, "tune-repeats", "tune-confidence", "tune-protos", "tune-init", "tune-relevance", "tune-lr", "tune-epochs"}
		if t.foldsFlag == "folds" { // train's -baselines compare with the chosen setting
			names = append(names, "baselines")
		}
		for _, n := range names {
			if isSet(fs, n) {
				return usagef(fs, "-%s needs -tune", n)
			}
		}
		return nil
	}
	switch {
	case hard:
		return usagef(fs, "-tune cannot be combined with -hard-copies")
	case groupings > 1:
		return usagef(fs, "-tune with -groupings %d: an image would sit in several sets, in different folds; use one grouping", groupings)
	case t.folds == 1:
		return usagef(fs, "-%s %d: want 2 or more (0: automatic)", t.foldsFlag, t.folds)
	case t.bl.methods != nil && isSet(fs, "images"):
		return usagef(fs, "-baselines compare image sets: not with -images")
	}
	_, _, err := t.settings(fs, 1, false)
	return err
}

// options returns the search and the tuner's options for samples of d
// columns: -tune-* (settings), the K and repeats of the flags, the seed
// and workers given.
func (t *tuneFlags) options(fs *flag.FlagSet, d int, images bool, seed uint64, workers int) ([]selection.Setting, selection.Options, error) {
	ss, opt, err := t.settings(fs, d, images)
	if err != nil {
		return nil, opt, err
	}
	opt.Folds, opt.Repeats, opt.Seed, opt.Workers = t.folds, t.repeats, seed, workers
	if isSet(fs, "tune-confidence") {
		opt.Confidence = t.confidence
	}
	return ss, opt, nil
}

// settings returns the search and its options for samples of d columns:
// selection.DefaultSearch unless a -tune-* flag is given, else the
// product of the lists with one reference (the first setting) and
// confidence 0.
func (t *tuneFlags) settings(fs *flag.FlagSet, d int, images bool) ([]selection.Setting, selection.Options, error) {
	if t.defaultSearch() {
		ss, opt := selection.DefaultSearch(d, images)
		return ss, opt, nil
	}
	ss, err := t.grid(fs, images)
	return ss, selection.Options{}, err
}

// grid returns the product of the -tune-* lists.
func (t *tuneFlags) grid(fs *flag.FlagSet, images bool) ([]selection.Setting, error) {
	g := selection.DefaultGrid()
	g.NearestNeighbour = !images
	if t.protos != "" {
		g.Prototypes, g.NearestNeighbour = nil, false
		for _, w := range splitList(t.protos) {
			if w == "all" {
				if images {
					return nil, usagef(fs, "-tune-protos all (1-NN) places a prototype at every training set: not with -images")
				}
				g.NearestNeighbour = true
				continue
			}
			n, err := strconv.Atoi(w)
			if err != nil || n < 1 || n > model.MaxPrototype {
				return nil, usagef(fs, "-tune-protos %q: want numbers from 1 to %d or all, separated by commas", t.protos, model.MaxPrototype)
			}
			g.Prototypes = append(g.Prototypes, n)
		}
		if len(g.Prototypes) == 0 {
			return []selection.Setting{{Prototypes: selection.AllSets, Eta: 1}}, nil
		}
	}
	if t.inits != "" {
		g.Inits = nil
		for _, w := range splitList(t.inits) {
			var k model.InitKind
			if k.UnmarshalText([]byte(w)) != nil {
				return nil, usagef(fs, "-tune-init %q: want sample, random or pca, separated by commas", t.inits)
			}
			g.Inits = append(g.Inits, k)
		}
	}
	if t.rels != "" {
		g.Relevances = nil
		for _, w := range splitList(t.rels) {
			var k model.RelevanceKind
			if k.UnmarshalText([]byte(w)) != nil {
				return nil, usagef(fs, "-tune-relevance %q: want global, none or local, separated by commas", t.rels)
			}
			g.Relevances = append(g.Relevances, k)
		}
	}
	if t.lrs != "" {
		g.Etas = nil
		for _, w := range splitList(t.lrs) {
			v, err := strconv.ParseFloat(w, 64)
			if err != nil || !(v > 0) || v > 1e6 {
				return nil, usagef(fs, "-tune-lr %q: want positive numbers separated by commas", t.lrs)
			}
			g.Etas = append(g.Etas, v)
		}
	}
	if t.epochs != "" {
		g.Epochs = nil
		for _, w := range splitList(t.epochs) {
			n, err := strconv.Atoi(w)
			if err != nil || n < 0 || n > 1e6 {
				return nil, usagef(fs, "-tune-epochs %q: want numbers from 0 (untrained) to 1000000, separated by commas", t.epochs)
			}
			g.Epochs = append(g.Epochs, n)
		}
	}
	ss, err := g.Settings()
	if err != nil {
		return nil, usagef(fs, "-tune: %v", err)
	}
	return ss, nil
}

// defaultSearch reports that no -tune-* list was given.
func (t *tuneFlags) defaultSearch() bool {
	return t.protos == "" && t.inits == "" && t.rels == "" && t.lrs == "" && t.epochs == ""
}

func splitList(s string) []string {
	var out []string
	for _, w := range strings.Split(s, ",") {
		if w = strings.TrimSpace(w); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// tuneOutput is what train hands to run.
type tuneOutput struct {
	g                    *runfiles.Guard // the run's outputs, declared by train
	commit               func() error    // profiles and outputs into place
	model, plots, format string
	json, quiet          bool
	text                 io.Writer
	start                time.Time
	meta                 map[string]string // provenance, into the model
}

// run tunes o on the training samples (x, y; train their subspaces, or
// none for single images), writes the retrained model and reports the
// table.
func (t *tuneFlags) run(ctx context.Context, e *env, fs *flag.FlagSet, o model.Options, ds *dataset.Dataset, x []model.Sample, y []int, train *dataset.Subspaces, out tuneOutput) error {
	images := len(x) > 0 && x[0].Pixels() != nil
	d := o.Model.SubspaceDim
	if !images && len(x) > 0 {
		d = x[0].Subspace().D()
	}
	ss, opt, err := t.options(fs, d, images, o.Train.Seed, o.Train.Workers)
	if err != nil {
		return err
	}
	plan := selection.PlanFolds(y, opt)
	if plan.Class >= 0 && t.folds > 0 {
		return fmt.Errorf("-tune: class %d (%s) has %d training %s, fewer than -folds %d: lower -folds (or leave it out)", plan.Class, dataClassName(ds, plan.Class), plan.Size, itemWord(images), t.folds)
	}
	if n := plan.Note(); n != "" {
		fmt.Fprintf(out.text, "note       %s\n", n)
	}
	how := foldsHow(plan)
	if opt.Rungs != nil {
		how = fmt.Sprintf("successive halving (keeping the best third at splits %v) over %s", opt.Rungs, how)
	}
	fmt.Fprintf(out.text, "tuning     %d settings by %s stratified cross-validation on the %d training %s (seed %d); the references are the first %d, another setting must gain %g paired standard errors; the other options: %s\n",
		len(ss), how, len(x), itemWord(images), o.Train.Seed, max(opt.Preferred, 1), opt.Confidence, describeConfig(o, len(ds.Classes)))
	bar := newProgressPercent(e.stderr, out.quiet)
	t0 := time.Now()
	opt.Progress = bar.Update
	res, err := selection.Tune(ctx, o, ss, x, y, opt)
	bar.Clear()
	if err != nil {
		return selectionError(err)
	}
	wall := time.Since(t0)
	var bres *baseline.Result
	if t.bl.methods != nil {
		if bres, err = t.bl.run(ctx, "GRLGQ (chosen)", x, y, res.Splits, res.Table[res.Best].Folds, o.Train.Seed, o.Train.Workers); err != nil {
			return err
		}
	}
	mm, err := res.Model.WithMetadata(out.meta)
	if err != nil {
		return err
	}
	mf, err := out.g.Create(out.model)
	if err != nil {
		return err
	}
	if err := mm.Save(mf); err != nil {
		return err
	}
	var pics []string
	if out.plots != "" {
		p := filepath.Join(out.plots, plot.PageName("tuning", 0, 1, out.format))
		if err := savePlot(out.g, p, tuningFigure(res), out.format); err != nil {
			return err
		}
		pics = append(pics, p)
		if res.History != nil && len(res.History.Epochs) > 0 {
			more, err := writeTrainingPlots(out.g, out.plots, res.History, res.Model, out.format)
			if err != nil {
				return err
			}
			pics = append(pics, more...)
		}
	}
	if err := out.commit(); err != nil {
		return err
	}
	best := res.BestSetting()
	if out.json {
		rows := make([]map[string]any, len(res.Table))
		for i, r := range res.Table {
			rows[i] = settingJSON(r.Setting)
			rows[i]["mean"], rows[i]["sd"], rows[i]["folds"], rows[i]["seconds"] = jnum(r.Mean), jnum(r.SD), jnums(r.Folds), r.Duration.Seconds()
		}
		return writeJSON(e.stdout, map[string]any{
			"model":        out.model,
			"data":         ds.Source,
			"classes":      ds.Classes,
			"n_train":      len(x),
			"skipped":      len(train.Skipped),
			"folds":        plan.Folds,
			"repeats":      plan.Repeats,
			"plan_note":    res.Plan.Note(),
			"rungs":        res.Rungs,
			"alive":        res.Alive,
			"preferred":    max(opt.Preferred, 1),
			"confidence":   opt.Confidence,
			"seed":         o.Train.Seed,
			"table":        rows,
			"best":         res.Best,
			"chosen":       settingJSON(best),
			"cv_mean":      jnum(res.Table[res.Best].Mean),
			"cv_sd":        jnum(res.Table[res.Best].SD),
			"dim":          res.Model.Dim(),
			"subspace_dim": res.Model.SubspaceDim(),
			"prototypes":   res.Model.NumPrototypes(),
			"epochs":       res.Model.Epochs(),
			"relevances":   jnums(res.Model.Relevances()),
			"plots":        append([]string{}, pics...),
			"tune_seconds": wall.Seconds(),
			"seconds":      time.Since(out.start).Seconds(),
			"baselines":    bres,
		})
	}
	writeTable(out.text, res)
	if bres != nil {
		if err := t.bl.write(e, out.text, bres); err != nil {
			return err
		}
		// The chosen row is the best of the table on these very folds
		// (selection bias); the baselines' rows are not.
		fmt.Fprintf(out.text, "note       GRLGQ (chosen) is scored on the folds it was chosen by: its scores and the differences to it favour it; for an unbiased comparison, run grlgq cv -tune -baselines (nested cross-validation)\n")
	}
	for _, p := range pics {
		fmt.Fprintf(out.text, "plot       %s\n", p)
	}
	fmt.Fprintf(e.stdout, "saved %s: %s, cross-validation accuracy %s ± %s; %d prototypes, D=%d, d=%d, %d epochs (%s)\n",
		out.model, best, pct(res.Table[res.Best].Mean), pct(res.Table[res.Best].SD), res.Model.NumPrototypes(), res.Model.Dim(), res.Model.SubspaceDim(), res.Model.Epochs(), base.RoundDur(time.Since(out.start)))
	return nil
}

// itemWord names the training samples in the tuner's lines.
func itemWord(images bool) string {
	if images {
		return "images"
	}
	return "sets"
}

func dataClassName(ds *dataset.Dataset, c int) string {
	if c >= 0 && c < len(ds.Classes) {
		return ds.Classes[c]
	}
	return strconv.Itoa(c)
}

func settingJSON(s selection.Setting) map[string]any {
	return map[string]any{
		"setting":    s.String(),
		"prototypes": selection.ProtosName(s.Prototypes),
		"init":       s.Init.String(),
		"relevance":  s.Relevance.String(),
		"lr":         s.Eta,
		"epochs":     s.Epochs,
		"nn":         s.NearestNeighbour(),
	}
}

// writeTable prints the tuner's table, the chosen row marked with *.
func writeTable(w io.Writer, res *selection.TuneResult) {
	fmt.Fprintf(w, "    %-60s %17s  %s\n", "setting", "mean ± sd", "folds")
	for i, r := range res.Table {
		mark := " "
		if i == res.Best {
			mark = "*"
		}
		var f []string
		for _, a := range r.Folds {
			f = append(f, strconv.FormatFloat(100*a, 'f', 1, 64))
		}
		fmt.Fprintf(w, "%s%2d %-60s %7.2f ± %5.2f%%  %s  %s\n", mark, i+1, r.Setting, 100*r.Mean, 100*r.SD, strings.Join(f, " "), base.RoundDur(r.Duration))
	}
}

// tuningFigure is the bar chart of the table: mean ± sd per setting.
func tuningFigure(res *selection.TuneResult) *plot.Figure {
	names := make([]string, len(res.Table))
	mean := make([]float64, len(res.Table))
	sd := make([]float64, len(res.Table))
	for i, r := range res.Table {
		names[i], mean[i], sd[i] = r.Setting.String(), r.Mean, r.SD
	}
	return plot.Tuning(names, mean, sd, res.Best, res.Folds)
}
