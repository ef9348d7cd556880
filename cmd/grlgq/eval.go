package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/grlgq/grlgq/cmd/internal/base"
	"github.com/grlgq/grlgq/cmd/internal/plot"
	"github.com/grlgq/grlgq/cmd/internal/runfiles"
	"github.com/grlgq/grlgq/dataset"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/predict"
	"github.com/grlgq/grlgq/score"
)

// modelFlags are the flags of the commands that apply a saved model.
type modelFlags struct {
	model   string
	data    dataFlags
	m       int
	seed    uint64
	workers int
	asJSON  bool
	skipBad bool
	// -reject and -temperature: override the model's stored ones.
	reject, temperature float64
	env                 *env // the run's, for a warning at its end
	// files is the run's guard, given to check: load declares the data's
	// linked folders to it.
	files *runfiles.Guard
}

func (f *modelFlags) addFlags(fs *flag.FlagSet) {
	fs.StringVar(&f.model, "model", "", "the model file (written by grlgq train)")
	f.data.addFlags(fs)
	intVar(fs, &f.m, "m", 0, 0, maxSetImages, "single-image data: classify sets of m random same-class images instead of single images (0: single images, θ_1 distance)")
	uint64Var(fs, &f.seed, "seed", 1, "seed of the grouping with -m (needs -m M > 0)")
	intVar(fs, &f.workers, "workers", defaultWorkers(), 1, model.MaxWorkers, "goroutines computing distances")
	fs.BoolVar(&f.skipBad, "skip-bad", false, "leave out image sets that cannot give a d-dimensional subspace (too few images, rank below d) instead of failing")
	floatVar(fs, &f.reject, "reject", 0, 0, 1, false, false, "reject a prediction whose relative margin is below this (0: never) instead of the model's stored threshold (grlgq inspect shows it)")
	floatVar(fs, &f.temperature, "temperature", model.DefaultTemperature, 0, model.MaxTemperature, true, false, "temperature of the class probabilities softmax(-δ/T) instead of the model's stored one (grlgq inspect shows it)")
	// Left out, both are the model's, whatever their flag.Value holds.
	base.ShowDefault(fs, "reject", "the model's")
	base.ShowDefault(fs, "temperature", "the model's")
}

// predictConfig returns mod with -reject and -temperature, when given, in
// place of its stored prediction options (Model.WithPredictConfig).
func (f *modelFlags) predictConfig(fs *flag.FlagSet, mod *model.Model) (*model.Model, error) {
	pc := mod.PredictConfig()
	if !isSet(fs, "reject") && !isSet(fs, "temperature") {
		return mod, nil
	}
	if isSet(fs, "reject") {
		pc.RejectMargin = f.reject
	}
	if isSet(fs, "temperature") {
		pc.Temperature = f.temperature
	}
	return mod.WithPredictConfig(pc)
}

// check checks the flags and declares the model and the data as inputs
// of the run, before any work.
func (f *modelFlags) check(fs *flag.FlagSet, e *env) error {
	g := e.guard(fs)
	if f.model == "" {
		return usagef(fs, "-model MODEL is required")
	}
	if err := f.data.check(fs); err != nil {
		return err
	}
	// -m groups single images into sets: folder data are sets already,
	// npy data bases; it would be ignored there (as in train and cv).
	if isSet(fs, "m") && f.data.src.Source().Kind() != dataset.KindImages {
		return usagef(fs, "%s", needsImages("m", f.data.src.Scheme()))
	}
	// -seed seeds that grouping and nothing else: given without it (no
	// -m, -m 0, or data that are sets or bases already) it would be
	// ignored.
	if isSet(fs, "seed") {
		switch {
		case f.data.src.Source().Kind() != dataset.KindImages:
			return usagef(fs, "%s", needsImages("seed", f.data.src.Scheme()))
		case f.m == 0:
			return usagef(fs, "-seed needs -m M (M > 0): it only seeds the random grouping of single images into sets")
		}
	}
	f.data.progress = g.Stderr() // bars on a terminal only
	f.env = e
	f.files = g
	if err := g.Input("-model", f.model, false); err != nil {
		return fmt.Errorf("model: %w", err)
	}
	return g.DataInputs(f.data.src.Source())
}

// load loads the model and the samples; it follows check.
func (f *modelFlags) load(ctx context.Context, fs *flag.FlagSet) (*model.Model, *samples, error) {
	mod, err := model.LoadFile(f.model)
	if err != nil {
		// The file named, as inspect and train -resume name it.
		return nil, nil, fmt.Errorf("-model %s: %w", f.model, err)
	}
	if mod, err = f.predictConfig(fs, mod); err != nil {
		return nil, nil, err
	}
	if mod, err = mod.WithWorkers(f.workers); err != nil { // -workers: the predictions' cores
		return nil, nil, err
	}
	if f.m > 0 && f.m < mod.SubspaceDim() {
		// Before the data are read: the model says d.
		return nil, nil, fmt.Errorf("sets of -m %d images cannot span the model's d=%d dimensions: use -m %d or more", f.m, mod.SubspaceDim(), mod.SubspaceDim())
	}
	w, h := mod.ImageSize()
	ds, err := f.data.load(ctx, f.workers, dataset.Size{Width: w, Height: h})
	if err != nil {
		return nil, nil, err
	}
	if f.files != nil {
		// Folders a linked class or set points to are data too.
		if err := f.files.DataFolders(ds.Files); err != nil {
			return nil, nil, err
		}
	}
	s, err := evalSamples(mod, ds, f.m, f.seed, f.workers, f.skipBad, f.data.progress)
	if err != nil {
		return nil, nil, err
	}
	if s.len() == 0 {
		return nil, nil, fmt.Errorf("%s: no samples", ds.Source)
	}
	// Printed at the end of a successful run, so that a failure stays
	// one line.
	if f.env != nil {
		for _, msg := range f.data.sizeWarnings(fs, w, h) {
			f.env.warnLater(fs.Name(), msg)
		}
	}
	return mod, s, nil
}

// predictAll classifies every sample (predict.All).
func predictAll(ctx context.Context, mod *model.Model, s *samples) ([]model.Prediction, error) {
	out, err := predict.All(ctx, mod, s.x)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("interrupted")
	}
	return out, err
}

// correct counts the predictions whose label is the model's class of
// their sample.
func correct(s *samples, pred []model.Prediction) int {
	n := 0
	for i, p := range pred {
		if p.Label >= 0 && p.Label == s.labels[i] {
			n++
		}
	}
	return n
}

func runEval(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("eval")
	var f modelFlags
	f.addFlags(fs)
	format := reportFormatFlag(fs, &f.asJSON)
	plots := fs.String("plots", "", "write the confusion matrix as a picture into this folder")
	plotFmt := plotFormatFlag(fs)
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if err := checkPlotFormat(fs, *plotFmt); err != nil {
		return err
	}
	if err := checkReportFormat(fs, format, f.asJSON); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	g := e.guard(fs)
	if err := f.check(fs, e); err != nil {
		return err
	}
	var pic string
	if *plots != "" {
		pics, err := checkPlots(g, *plots, *plotFmt, "confusion")
		if err != nil {
			return err
		}
		pic = pics[0]
	}
	mod, s, err := f.load(ctx, fs)
	if err != nil {
		return err
	}
	if !s.ds.Labelled() {
		return fmt.Errorf("%s has no labels to score against (grlgq predict classifies it)", s.ds.Source)
	}
	if unk := unknownClasses(s); len(unk) > 0 {
		return fmt.Errorf("%s has classes the model does not know: %s (the model's classes: %s)", s.ds.Source, strings.Join(unk, ", "), strings.Join(modelClasses(mod), ", "))
	}
	sc, err := predict.Score(ctx, mod, s.x, s.labels)
	if err != nil {
		return err
	}
	if pic != "" {
		if err := savePlot(g, pic, plot.Confusion(modelClasses(mod), sc.Confusion), *plotFmt); err != nil {
			return err
		}
		if err := g.Commit(); err != nil {
			return err
		}
	}
	switch *format {
	case "json":
		js := evalJSON(mod, s, sc)
		if pic != "" {
			js["plots"] = []string{pic}
		}
		return writeJSON(e.stdout, js)
	case "csv", "latex":
		return score.WriteReport(e.stdout, *format, modelClasses(mod), score.TableOf("", sc))
	}
	printEval(e.stdout, mod, s, sc)
	if pic != "" {
		fmt.Fprintf(e.stdout, "\nplot      %s\n", pic)
	}
	return nil
}

// reportFormatFlag defines -format and -json (-format json, into asJSON).
func reportFormatFlag(fs *flag.FlagSet, asJSON *bool) *string {
	fs.BoolVar(asJSON, "json", false, "print one JSON object (-format json)")
	return base.ChoiceVar(fs, "format", "text", []string{"text", "json", "csv", "latex"}, "output: text, json (one object with every figure), csv (one table: per-class precision, recall, F1, support and confusion row; "+
		"accuracy, macro and weighted averages) or latex (booktabs tabulars of the report and the confusion matrix)")
}

// checkReportFormat sets -format to json for -json.
func checkReportFormat(fs *flag.FlagSet, format *string, asJSON bool) error {
	if asJSON && isSet(fs, "format") && *format != "json" {
		return usagef(fs, "-json and -format %s disagree: give one", *format)
	} else if asJSON {
		*format = "json"
	}
	return nil
}

// sampleWord is the JSON word of a kind of samples.
func sampleWord(k dataset.Kind) string {
	return map[dataset.Kind]string{dataset.KindImages: "image", dataset.KindSets: "set", dataset.KindBases: "basis"}[k]
}

func modelClasses(m *model.Model) []string {
	out := make([]string, m.NumClasses())
	for c := range out {
		out[c] = className(m, c)
	}
	return out
}

type classJSON struct {
	Class    string `json:"class"`
	N        int    `json:"n"`
	Correct  int    `json:"correct"`
	Accuracy jnum   `json:"accuracy"`
	score.ClassReport
}

func evalJSON(m *model.Model, s *samples, sc *score.Scores) map[string]any {
	names := modelClasses(m)
	rep := sc.Report()
	per := make([]classJSON, len(sc.PerClass))
	for c, p := range sc.PerClass {
		acc := jnum(nan())
		if p.N > 0 {
			acc = jnum(float64(p.Correct) / float64(p.N))
		}
		per[c] = classJSON{Class: names[c], N: p.N, Correct: p.Correct, Accuracy: acc, ClassReport: rep.Classes[c]}
	}
	conf := make([][]int, len(sc.Confusion))
	for c, row := range sc.Confusion {
		conf[c] = row[:len(row)-1]
	}
	rej := make([]int, len(sc.Confusion))
	for c, row := range sc.Confusion {
		rej[c] = row[len(row)-1]
	}
	return map[string]any{
		"accuracy":          jnum(sc.Accuracy()),
		"n":                 sc.N,
		"correct":           sc.Correct,
		"rejected":          sc.Rejected,
		"samples":           sampleWord(s.Kind),
		"classes":           names,
		"per_class":         per,
		"macro_avg":         rep.Macro,
		"weighted_avg":      rep.Weighted,
		"confusion":         conf,
		"confusion_rows":    "true class",
		"confusion_columns": "predicted class",
		"rejected_by_class": rej,
		"data":              s.ds.Source,
		"skipped":           skippedNames(s),
	}
}

func printEval(w io.Writer, m *model.Model, s *samples, sc *score.Scores) {
	fmt.Fprintf(w, "data      %s\n", describe(s.ds))
	if sk := skippedNames(s); len(sk) > 0 {
		fmt.Fprintf(w, "skipped   %d set(s) that cannot give a d=%d subspace: %s\n", len(sk), m.SubspaceDim(), strings.Join(sk, ", "))
	}
	fmt.Fprintf(w, "model     %d prototypes, D=%d, d=%d, %d classes, %d epochs\n", m.NumPrototypes(), m.Dim(), m.SubspaceDim(), m.NumClasses(), m.Epochs())
	dist := m.Config().Distance
	kind := map[dataset.Kind]string{dataset.KindImages: "single images (distance " + dist.ImageTerm() + ")", dataset.KindSets: "image sets (distance Σ λ_k " + dist.Term() + ")", dataset.KindBases: "bases (distance Σ λ_k " + dist.Term() + ")"}[s.Kind]
	fmt.Fprintf(w, "accuracy  %s (%d of %d %s)", pct(sc.Accuracy()), sc.Correct, sc.N, kind)
	if sc.Rejected > 0 {
		fmt.Fprintf(w, ", %d rejected", sc.Rejected)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w)
	score.WriteReport(w, "text", modelClasses(m), score.TableOf("", sc))
}
