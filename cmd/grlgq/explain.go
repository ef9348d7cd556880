package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/grlgq/grlgq/cmd/internal/plot"
	"github.com/grlgq/grlgq/model"
)

func runExplain(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("explain")
	var (
		f      modelFlags
		out    string
		n      int
		which  string
		pixels bool
		top    int
		wrong  bool
	)
	plotFmt := plotFormatFlag(fs)
	f.addFlags(fs)
	fs.StringVar(&out, "o", "", "write the pictures and JSON into this folder (created if missing). An earlier explain's folder (with its explanation.json) is replaced: "+
		"its files this run does not write (the samples' files and the pages that explanation.json lists) are removed once this run's are in place, never by a failed or interrupted run. "+
		"Refused before anything is written: a file at a name this run writes that explanation.json does not list (a user's, or the relevances picture of train or demo -plots, which write that name too), "+
		"and a folder with sample_* or prototypes* files but no explanation.json of an earlier explain (or one too large to be explain's)")
	intVar(fs, &n, "n", 4, 1, maxExplain, "explain this many samples, taken from each class in turn")
	fs.StringVar(&which, "samples", "", "explain these samples instead: comma-separated indices (0-based, grlgq predict's index column) or names (a set's folder, \"class/set\" or \"set\"; an image's file; \"row N\")")
	fs.BoolVar(&wrong, "misclassified", false, "explain every misclassified sample instead (labelled data; a sample of a class the model does not know is explained as unlabelled, never as misclassified)")
	intVar(fs, &top, "top", 5, 1, maxSetImages, "image sets: rank each set's images by their relevance-weighted part in the decision (support of W+ over W-, model.Explanation.RankImages), "+
		"list the top K in the text and JSON, and draw them (at most 5) instead of the first ones")
	fs.BoolVar(&pixels, "pixels", false, "also put the pixel maps u_i∘v_i (D values per angle) into the JSON")
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	if out == "" {
		return usagef(fs, "-o DIR is required")
	}
	if wrong && which != "" {
		return usagef(fs, "-samples and -misclassified exclude each other")
	}
	g := e.guard(fs)
	if err := f.check(fs, e); err != nil {
		return err
	}
	if err := g.OutputDir("-o", out); err != nil {
		return err
	}
	if err := checkPlotFormat(fs, *plotFmt); err != nil {
		return err
	}
	mod, s, err := f.load(ctx, fs)
	if err != nil {
		return err
	}
	idx, err := pickSamples(ctx, mod, s, n, which, wrong)
	if err != nil {
		return err
	}
	h, w := shapeOf(s.ds, mod.Dim())
	if mw, mh := mod.ImageSize(); mw > 0 && mh > 0 {
		h, w = mh, mw
	}

	// The files this run writes; the earlier explain's others in -o go
	// when they are committed. Its pages are listed in explanation.json,
	// as its samples' files are, so that a later run knows them for its
	// own (relevancesPage: train and demo -plots write that name too).
	protoPages := plot.Prototypes(mod, h, w)
	pages := []string{plot.PageName("relevances", 0, 1, *plotFmt)}
	for pg := range protoPages {
		pages = append(pages, plot.PageName("prototypes", pg, len(protoPages), *plotFmt))
	}
	writes := map[string]bool{"explanation.json": true}
	for _, p := range pages {
		writes[p] = true
	}
	for _, i := range idx {
		writes[sampleBase(i, s.len())+"."+*plotFmt], writes[sampleBase(i, s.len())+".json"] = true, true
	}
	earlier, err := earlierExplain(out, writes)
	if err != nil {
		return err
	}
	for _, p := range earlier.remove {
		if err := g.RemoveOnCommit(p); err != nil {
			return err
		}
	}

	save := func(name string, f *plot.Figure) error {
		return savePlot(g, filepath.Join(out, name), f, *plotFmt)
	}
	saveJSON := func(name string, v any) error {
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		return g.Write(filepath.Join(out, name), append(b, '\n'))
	}

	if err := save(pages[0], plot.Relevances(mod)); err != nil {
		return err
	}
	for pg, f := range protoPages {
		if err := save(pages[1+pg], f); err != nil {
			return err
		}
	}
	// Each explanation (D x d' matrices per side) is dropped once its
	// files are written: only its line of explanation.json and its lines
	// of text, printed once the outputs are committed, stay to the end.
	var (
		summary []sampleSummary
		text    bytes.Buffer
	)
	for _, i := range idx {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("interrupted")
		}
		label := s.labels[i] // explain w.r.t. the true class; -1: the predicted one
		ex, err := mod.Explain(s.x[i], label)
		if err != nil {
			return fmt.Errorf("%s: %w", s.Names[i], err)
		}
		pred, err := mod.Predict(s.x[i])
		if err != nil {
			return fmt.Errorf("%s: %w", s.Names[i], err)
		}
		base := sampleBase(i, s.len())
		ranked := topImages(s, i, ex, top)
		sm := sampleOf(mod, s, i, pred, h, w)
		if ranked != nil {
			sm.Images = rankedTiles(s, ranked)
		}
		if err := save(base+"."+*plotFmt, plot.Explanation(mod, ex, sm)); err != nil {
			return err
		}
		j := explanationJSON(mod, s, i, ex, pred, pixels)
		if ranked != nil {
			j["top_images"], j["image_scores"] = ranked, jnums(ex.ImageScores)
		}
		if err := saveJSON(base+".json", j); err != nil {
			return err
		}
		sj := sampleSummary{Index: i, Name: s.Names[i], True: s.trueName(i), Predicted: className(mod, pred.Class), Rejected: pred.Rejected,
			Margin: jnum(pred.Margin), Picture: base + "." + *plotFmt, JSON: base + ".json", TopImages: ranked}
		if s.labels[i] >= 0 {
			mu := jnum(ex.Mu)
			sj.Mu = &mu
		}
		summary = append(summary, sj)
		printExplained(&text, mod, &sj, ex)
	}
	if err := saveJSON("explanation.json", map[string]any{
		"model":        f.model,
		"data":         s.ds.Source,
		"samples":      summary,
		"pages":        pages,
		"relevances":   jnums(mod.Relevances()),
		"image_height": h,
		"image_width":  w,
		"kind":         sampleWord(s.Kind),
		"distance":     mod.Config().Distance.String(),
		"note":         explainNote(mod.Config().Distance),
	}); err != nil {
		return err
	}
	if testHookExplainCommit != nil {
		testHookExplainCommit()
	}
	if err := g.Commit(); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "explained %d sample(s) of %s with %s (%s distance) into %s (μ < 0: right; margin: label-free, 0 to 1):\n", len(idx), s.ds.Source, f.model, mod.Config().Distance, out)
	text.WriteTo(e.stdout)
	fmt.Fprintf(e.stdout, "also: %s, %s, %s\n", filepath.Join(out, plot.PageName("prototypes", 0, len(protoPages), *plotFmt)), filepath.Join(out, pages[0]), filepath.Join(out, "explanation.json"))
	if gone := removed(earlier.remove); len(gone) > 0 {
		fmt.Fprintf(e.stdout, "replaced the earlier explanation in %s: removed its %d file(s) this one does not write (%s)\n", out, len(gone), someNames(baseNames(gone)))
	}
	// Warnings after the output, so that a failure stays one line.
	if n := len(earlier.kept); n > 0 {
		fmt.Fprintf(e.stderr, "grlgq: explain: warning: %s holds %d file(s) named like explain's that its earlier explanation.json did not list (%s): left there, beside this run's files\n", out, n, someNames(earlier.kept))
	}
	if n := len(earlier.notRegular); n > 0 {
		fmt.Fprintf(e.stderr, "grlgq: explain: warning: %s holds %d file(s) of its earlier explanation that are not regular files (%s): left there, beside this run's files\n", out, n, someNames(earlier.notRegular))
	}
	// Over the samples explained, or, with -misclassified, over all: each
	// was scored to find the misclassified ones, and the warning says why
	// those of an unknown class are not among them.
	scored := idx
	if wrong {
		scored = make([]int, s.len())
		for i := range scored {
			scored[i] = i
		}
	}
	if unknown, n := s.ps.UnknownAmong(scored); n > 0 {
		warnUnknown(e, "explain", mod, s, unknown, n, len(scored))
	}
	return nil
}

// testHookExplainCommit, when set, runs just before explain commits its
// outputs (a test changes the folder between the check and the commit).
var testHookExplainCommit func()

// sampleBase is the name of sample i's files (without extension) among
// n samples: its index, zero-padded to the width of the largest.
func sampleBase(i, n int) string {
	return fmt.Sprintf("sample_%0*d", len(strconv.Itoa(n-1)), i)
}

// baseNames are the last elements of paths.
func baseNames(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = filepath.Base(p)
	}
	return out
}

// sampleSummary is one sample's entry in explanation.json. Its fields are
// in the order of their JSON names: the file's order since the entry was a
// map (encoding/json sorts a map's keys).
type sampleSummary struct {
	Index     int        `json:"index"`
	JSON      string     `json:"json"`
	Margin    jnum       `json:"margin"`
	Mu        *jnum      `json:"mu,omitempty"` // labelled samples only
	Name      string     `json:"name"`
	Picture   string     `json:"picture"`
	Predicted string     `json:"predicted"`
	Rejected  bool       `json:"rejected"`
	TopImages []rankJSON `json:"top_images"`
	True      string     `json:"true"`
}

// printExplained writes the lines of text of one explained sample: its
// summary, the contributions to d+ and d- and its top images.
func printExplained(w io.Writer, m *model.Model, sm *sampleSummary, ex *model.Explanation) {
	fmt.Fprintf(w, "  %4d  %-20v ", sm.Index, sm.Name)
	if sm.Mu != nil {
		fmt.Fprintf(w, "true %-8v μ %+.3f  ", sm.True, float64(*sm.Mu))
	}
	fmt.Fprintf(w, "predicted %-8v margin %.3f  %s\n", sm.Predicted, float64(sm.Margin), sm.Picture)
	printContributions(w, m, ex)
	printTopImages(w, sm.TopImages)
}

// explainNoteStart begins explanation.json's note: how an earlier
// explain's output folder is recognised.
const explainNoteStart = "For each sample: W+ is the nearest prototype"

// explainNote is explanation.json's note: what its fields mean, for the
// model's distance.
func explainNote(dist model.Distance) string {
	term, g := "lambda_k theta_k^2", "2 lambda_i theta_i / sin theta_i"
	if dist == model.Chordal {
		term, g = "lambda_k sin^2 theta_k", "2 lambda_i cos theta_i"
	}
	return explainNoteStart + " of its true class (of the predicted class without a label), W- the nearest of another class; mu = (d+ - d-)/(d+ + d-) < 0 means correctly classified (only with a true label the model knows); " +
		"margin = (d2 - d1)/(d2 + d1) in [0, 1] is the label-free margin between the two nearest classes (= -mu when right). Indices are 0-based; images are named by their file (folder data) or row. " +
		"The distance is " + dist.String() + ": the sum over the angles of " + term + ". " +
		"Angles ascend (theta_1 smallest); contributions are " + term + " (their sum is the distance); q_w column i holds the coefficients with which the prototype's columns build its principal vector v_i; " +
		"image_contributions M (m x d) say how much each image of the set builds each principal vector u_i (U ≈ X M); image_scores[j] = support of W+ minus support of W- by image j, " +
		"support = sum_i (" + g + ") cos theta_i a_ji with a_ji = M_ji (R Lambda Q_P)_ji image j's share of cos theta_i (model.Side.ImageSupport); top_images are the -top images of largest |score| (positive: for the true class)."
}

// printContributions writes the per-angle contributions to d+ and d- of
// an explanation (λ_k θ_k² or λ_k sin²θ_k, by the model's distance), one
// line per side.
func printContributions(w io.Writer, m *model.Model, ex *model.Explanation) {
	dist := m.Config().Distance
	for _, sd := range []struct {
		name string
		s    *model.Side
	}{{"d+", &ex.Plus}, {"d-", &ex.Minus}} {
		if len(sd.s.Contributions) == 1 { // a single image: one angle, no relevance
			fmt.Fprintf(w, "      %s = %s = %.4g (W%d, %s)\n", sd.name, dist.ImageTerm(), sd.s.Distance, sd.s.Prototype, className(m, sd.s.Class))
			continue
		}
		fmt.Fprintf(w, "      %s = %.4g (W%d, %s): λ_k %s per angle %s\n", sd.name, sd.s.Distance, sd.s.Prototype, className(m, sd.s.Class), dist.Term(), gFloats(sd.s.Contributions))
	}
}

// gFloats formats x as [a b ...] with 3 significant digits each.
func gFloats(x []float64) string {
	parts := make([]string, len(x))
	for i, v := range x {
		parts[i] = strconv.FormatFloat(v, 'g', 3, 64)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// pickSamples returns the indices of the samples to explain: the listed
// ones (by index or name), every misclassified one, or n taken from each
// class in turn (in order of appearance).
func pickSamples(ctx context.Context, mod *model.Model, s *samples, n int, which string, wrong bool) ([]int, error) {
	if wrong {
		if !s.ds.Labelled() {
			return nil, fmt.Errorf("-misclassified: %s has no labels", s.ds.Source)
		}
		pred, err := predictAll(ctx, mod, s)
		if err != nil {
			return nil, err
		}
		return s.ps.Misclassified(pred), nil
	}
	if which != "" {
		var out []int
		for _, f := range strings.Split(which, ",") {
			i, ok := s.ps.Lookup(strings.TrimSpace(f))
			if !ok {
				return nil, fmt.Errorf("-samples: %q is neither a sample index in [0, %d) nor the name of one sample (names look like %q)", f, s.len(), s.Names[0])
			}
			if !slices.Contains(out, i) { // named twice: explained once
				out = append(out, i)
			}
		}
		return out, nil
	}
	byClass := map[int][]int{}
	var order []int
	for i, c := range s.Labels {
		if _, ok := byClass[c]; !ok {
			order = append(order, c)
		}
		byClass[c] = append(byClass[c], i)
	}
	var out []int
	for round := 0; len(out) < min(n, s.len()); round++ {
		for _, c := range order {
			if round < len(byClass[c]) && len(out) < n {
				out = append(out, byClass[c][round])
			}
		}
	}
	return out, nil
}

// matrix is what the explanations' matrices offer (a *linalg.Dense,
// which this command does not name: it imports no numerical package).
type matrix interface {
	Dims() (rows, cols int)
	At(i, j int) float64
}

// column returns column j of a (a copy).
func column(a matrix, j int) []float64 {
	r, _ := a.Dims()
	out := make([]float64, r)
	for i := range out {
		out[i] = a.At(i, j)
	}
	return out
}

// rowsOf returns a as a slice of rows, for JSON (nil for nil).
func rowsOf(a matrix) [][]jnum {
	if a == nil || reflect.ValueOf(a).IsNil() {
		return nil
	}
	r, c := a.Dims()
	out := make([][]jnum, r)
	for i := range out {
		row := make([]jnum, c)
		for j := range row {
			row[j] = jnum(a.At(i, j))
		}
		out[i] = row
	}
	return out
}

// sampleOf is what the explanation page of sample i shows of it: its
// image, or the first images of its set, named by their files (or rows).
func sampleOf(m *model.Model, s *samples, i int, pred *model.Prediction, h, w int) plot.Sample {
	sm := plot.Sample{Height: h, Width: w, Labelled: s.labels[i] >= 0, Predicted: className(m, pred.Class), Margin: pred.Margin,
		Title: fmt.Sprintf("%d: %s, true class %s, predicted %s", i, s.Names[i], s.trueName(i), className(m, pred.Label))}
	if !s.ds.Labelled() {
		sm.Title = fmt.Sprintf("%d: %s, predicted %s", i, s.Names[i], className(m, pred.Label))
	}
	for j, k := range s.ps.Images(i)[:min(len(s.ps.Images(i)), 5)] {
		sm.Images = append(sm.Images, plot.Tile{Caption: fmt.Sprintf("image %d: %s", j, filepath.Base(s.ds.ItemName(k))), Values: s.ds.Images[k]})
	}
	return sm
}

type sideJSON struct {
	Prototype          int      `json:"prototype"`
	Class              string   `json:"class"`
	Distance           jnum     `json:"distance"`
	Angles             []jnum   `json:"angles"`
	Contributions      []jnum   `json:"contributions"`
	QW                 [][]jnum `json:"q_w"`
	QP                 [][]jnum `json:"q_p"`
	DominantColumn     []int    `json:"dominant_column"`
	ImageContributions [][]jnum `json:"image_contributions,omitempty"`
	ImageSupport       []jnum   `json:"image_support,omitempty"`
	PixelMaps          [][]jnum `json:"pixel_maps,omitempty"`
}

func sideOf(m *model.Model, sd *model.Side, pixels bool) sideJSON {
	out := sideJSON{Prototype: sd.Prototype, Class: className(m, sd.Class), Distance: jnum(sd.Distance),
		Angles: jnums(sd.Angles), Contributions: jnums(sd.Contributions), QW: rowsOf(sd.QW), QP: rowsOf(sd.QP),
		ImageContributions: rowsOf(sd.ImageContributions), ImageSupport: jnums(sd.ImageSupport)}
	// For each principal vector v_i, the prototype column with the largest
	// coefficient |Q_W[j][i]|.
	if sd.QW != nil {
		rows, cols := sd.QW.Dims()
		for i := 0; i < cols; i++ {
			best, bv := 0, -1.0
			for j := 0; j < rows; j++ {
				if a := math.Abs(sd.QW.At(j, i)); a > bv {
					best, bv = j, a
				}
			}
			out.DominantColumn = append(out.DominantColumn, best)
		}
	}
	if pixels && sd.PixelMaps != nil {
		_, cols := sd.PixelMaps.Dims()
		for i := 0; i < cols; i++ {
			out.PixelMaps = append(out.PixelMaps, jnums(column(sd.PixelMaps, i)))
		}
	}
	return out
}

func explanationJSON(m *model.Model, s *samples, i int, ex *model.Explanation, pred *model.Prediction, pixels bool) map[string]any {
	j := map[string]any{
		"index":      i,
		"name":       s.Names[i],
		"kind":       sampleWord(s.Kind),
		"true":       s.trueName(i),
		"explained":  className(m, ex.Label),
		"predicted":  className(m, pred.Class),
		"rejected":   pred.Rejected,
		"margin":     jnum(pred.Margin),
		"relevances": jnums(ex.Relevance),
		"distance":   m.Config().Distance.String(),
		"plus":       sideOf(m, &ex.Plus, pixels),
		"minus":      sideOf(m, &ex.Minus, pixels),
	}
	if s.labels[i] >= 0 {
		j["mu"] = jnum(ex.Mu)
	}
	if im := s.ps.Images(i); im != nil {
		j["images"] = im
		files := make([]string, len(im))
		for k, src := range im {
			files[k] = s.ds.ItemName(src)
		}
		j["image_files"] = files
	}
	return j
}
