package main

import (
	"context"
	"encoding/json"
	"fmt"
	"image"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/grlgq/grlgq/internal/plot"
	"github.com/grlgq/grlgq/linalg"
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
	)
	f.addFlags(fs)
	fs.StringVar(&out, "o", "", "write the pictures and JSON into this folder (created if missing)")
	intVar(fs, &n, "n", 4, 1, maxExplain, "explain this many samples, taken from each class in turn")
	fs.StringVar(&which, "samples", "", "explain these samples instead (comma-separated indices, as listed by grlgq predict)")
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
	g := e.guard(fs)
	if err := f.check(fs, g); err != nil {
		return err
	}
	if err := g.outputDir("-o", out); err != nil {
		return err
	}
	mod, s, err := f.load(fs)
	if err != nil {
		return err
	}
	idx, err := pickSamples(s, n, which)
	if err != nil {
		return usagef(fs, "%v", err)
	}
	h, w := shapeOf(s.ds, mod.Dim())
	if mw, mh := mod.ImageSize(); mw > 0 && mh > 0 {
		h, w = mh, mw
	}

	var files []string
	save := func(name string, img image.Image) error {
		p := filepath.Join(out, name)
		if err := savePicture(g, p, img); err != nil {
			return err
		}
		files = append(files, p)
		return nil
	}
	saveJSON := func(name string, v any) error {
		p := filepath.Join(out, name)
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		if err := g.write(p, append(b, '\n')); err != nil {
			return err
		}
		files = append(files, p)
		return nil
	}

	if err := save("relevances.png", relevanceChart(mod).Render()); err != nil {
		return err
	}
	if err := save("prototypes.png", prototypePicture(mod, h, w)); err != nil {
		return err
	}
	var summary []map[string]any
	for _, i := range idx {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("interrupted")
		}
		label := s.labels[i] // explain w.r.t. the true class; -1: the predicted one
		var ex *model.Explanation
		if s.kind == "image" {
			ex, err = mod.ExplainImage(s.ds.Images[s.images[i]], label)
		} else {
			ex, err = mod.Explain(s.subspaceOf(i), label)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", s.names[i], err)
		}
		pred, err := predictOne(mod, s, i)
		if err != nil {
			return fmt.Errorf("%s: %w", s.names[i], err)
		}
		base := fmt.Sprintf("sample_%0*d", len(strconv.Itoa(s.len()-1)), i)
		if err := save(base+".png", samplePicture(mod, s, i, ex, pred, h, w)); err != nil {
			return err
		}
		j := explanationJSON(mod, s, i, ex, pred, pixels)
		if err := saveJSON(base+".json", j); err != nil {
			return err
		}
		summary = append(summary, map[string]any{
			"index": i, "name": s.names[i], "true": s.ds.Classes[s.data[i]], "predicted": className(mod, pred.Label),
			"mu": jnum(ex.Mu), "picture": base + ".png", "json": base + ".json",
		})
	}
	if err := saveJSON("explanation.json", map[string]any{
		"model":        f.model,
		"data":         s.ds.Source,
		"samples":      summary,
		"relevances":   jnums(mod.Relevances()),
		"image_height": h,
		"image_width":  w,
		"kind":         s.kind,
		"note":         "For each sample: W+ is the nearest prototype of its true class, W- the nearest of another class; mu = (d+ - d-)/(d+ + d-) < 0 means correctly classified. Angles ascend (theta_1 smallest); contributions are lambda_k theta_k^2 (their sum is the distance); q_w column i holds the coefficients with which the prototype's columns build its principal vector v_i; image_contributions M (m x d) say how much each image of the set builds each principal vector u_i (U ≈ X M).",
	}); err != nil {
		return err
	}
	if err := g.commit(); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "explained %d sample(s) of %s with %s into %s:\n", len(idx), s.ds.Source, f.model, out)
	for _, sm := range summary {
		fmt.Fprintf(e.stdout, "  %-20v true %-8v predicted %-8v μ %+.3f  %s\n", sm["name"], sm["true"], sm["predicted"], float64(sm["mu"].(jnum)), sm["picture"])
	}
	fmt.Fprintf(e.stdout, "also: %s, %s, %s\n", filepath.Join(out, "prototypes.png"), filepath.Join(out, "relevances.png"), filepath.Join(out, "explanation.json"))
	return nil
}

// predictOne classifies sample i.
func predictOne(m *model.Model, s *samples, i int) (*model.Prediction, error) {
	if s.kind == "image" {
		return m.PredictImage(s.ds.Images[s.images[i]])
	}
	return m.Predict(s.subspaceOf(i))
}

// pickSamples returns the indices of the samples to explain: the listed
// ones, or n taken from each class in turn (in order of appearance).
func pickSamples(s *samples, n int, which string) ([]int, error) {
	if which != "" {
		var out []int
		for _, f := range strings.Split(which, ",") {
			i, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || i < 0 || i >= s.len() {
				return nil, fmt.Errorf("-samples: %q is not a sample index in [0, %d)", f, s.len())
			}
			out = append(out, i)
		}
		return out, nil
	}
	byClass := map[int][]int{}
	var order []int
	for i, c := range s.data {
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

// column returns column j of a (a copy).
func column(a *linalg.Dense, j int) []float64 {
	out := make([]float64, a.Rows)
	for r := range out {
		out[r] = a.At(r, j)
	}
	return out
}

// rowsOf returns a as a slice of rows, for JSON.
func rowsOf(a *linalg.Dense) [][]jnum {
	if a == nil {
		return nil
	}
	out := make([][]jnum, a.Rows)
	for r := range out {
		out[r] = jnums(a.Row(r)[:a.Cols])
	}
	return out
}

func maxAbs(xs ...[]float64) float64 {
	m := 0.0
	for _, x := range xs {
		for _, v := range x {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				m = math.Max(m, math.Abs(v))
			}
		}
	}
	return m
}

// samplePicture draws the explanation of sample i: the sample's images,
// then one row per principal angle with the data's principal vector u_i,
// the prototype's v_i and the pixel maps u_i∘v_i for W⁺ and W⁻ and their
// difference, on a common colour scale.
func samplePicture(m *model.Model, s *samples, i int, ex *model.Explanation, pred *model.Prediction, h, w int) image.Image {
	const cols = 5
	var panels []plot.Panel
	gray := func(x []float64) image.Image {
		return (&plot.HeatMap{Values: x, Rows: h, Cols: w}).Render()
	}
	// Row 0: the sample.
	switch s.kind {
	case "image":
		panels = append(panels, plot.Panel{Caption: "the image", Image: gray(s.ds.Images[s.images[i]])})
	case "set":
		src := s.subs.Sources[i]
		for j, k := range src {
			if j == cols-1 && len(src) > cols {
				break
			}
			panels = append(panels, plot.Panel{Caption: fmt.Sprintf("image %d of %d", j+1, len(src)), Image: gray(s.ds.Images[k])})
		}
		if mc := ex.Plus.ImageContributions; mc != nil && len(src) > cols-1 {
			// Mᵀ: one row per angle, one column per image of the set.
			vals := make([]float64, 0, mc.Rows*mc.Cols)
			for c := 0; c < mc.Cols; c++ {
				vals = append(vals, column(mc, c)...)
			}
			sx := max(2, 150/max(mc.Rows, 1))
			sy := max(4, min(24, 120/max(mc.Cols, 1)))
			panels = append(panels, plot.Panel{Caption: "M (W+): angles x images", Image: (&plot.HeatMap{Values: vals, Rows: mc.Cols, Cols: mc.Rows, Signed: true, Scale: sx, ScaleY: sy, ColorBar: true}).Render()})
		}
	default:
		panels = append(panels, plot.Panel{Caption: "(precomputed basis)"})
	}
	for len(panels)%cols != 0 {
		panels = append(panels, plot.Panel{})
	}
	nang := len(ex.Plus.Angles)
	for a := 0; a < nang; a++ {
		u := column(ex.Plus.U, a)
		vp := column(ex.Plus.V, a)
		mp := column(ex.Plus.PixelMaps, a)
		mm := column(ex.Minus.PixelMaps, a)
		df := column(ex.PixelMapDiff, a)
		scale := maxAbs(mp, mm, df)
		heat := func(x []float64, bar bool) image.Image {
			return (&plot.HeatMap{Values: x, Rows: h, Cols: w, Signed: true, Fixed: true, Max: scale, ColorBar: bar}).Render()
		}
		uvmax := maxAbs(u, vp)
		vec := func(x []float64) image.Image {
			return (&plot.HeatMap{Values: x, Rows: h, Cols: w, Signed: true, Fixed: true, Max: uvmax}).Render()
		}
		th := fmt.Sprintf("θ%d", a+1)
		panels = append(panels,
			plot.Panel{Caption: "u" + strconv.Itoa(a+1) + " (data)", Image: vec(u)},
			plot.Panel{Caption: fmt.Sprintf("v%d of W+ (%s)", a+1, className(m, ex.Plus.Class)), Image: vec(vp)},
			plot.Panel{Caption: fmt.Sprintf("u∘v W+ %s=%.3f", th, ex.Plus.Angles[a]), Image: heat(mp, false)},
			plot.Panel{Caption: fmt.Sprintf("u∘v W- %s=%.3f", th, ex.Minus.Angles[a]), Image: heat(mm, false)},
			plot.Panel{Caption: "(W+) - (W-)", Image: heat(df, true)},
		)
	}
	title := fmt.Sprintf("%s: true %s, predicted %s, mu=%+.3f, d+=%.4f (proto %d), d-=%.4f (proto %d, class %s)",
		s.names[i], s.ds.Classes[s.data[i]], className(m, pred.Label), ex.Mu, ex.Plus.Distance, ex.Plus.Prototype, ex.Minus.Distance, ex.Minus.Prototype, className(m, ex.Minus.Class))
	grid := plot.Grid(title, panels, cols)
	// The relevance-weighted contributions of each angle, + against -.
	labels := make([]string, nang)
	for a := range labels {
		labels[a] = fmt.Sprintf("θ%d", a+1)
	}
	bars := plot.BarChart{Title: "contributions λ_k θ_k² to the distance (sum = distance)", XLabel: "principal angle", Labels: labels,
		Values: [][]float64{ex.Plus.Contributions, ex.Minus.Contributions}, SeriesNames: []string{"W+ (true class)", "W- (nearest other)"},
		Width: grid.Bounds().Dx(), Height: 260}
	return plot.Stack(grid, bars.Render())
}

// prototypePicture draws every prototype's columns as images (up to 24
// prototypes and 8 columns).
func prototypePicture(m *model.Model, h, w int) image.Image {
	d := m.SubspaceDim()
	cols := min(d, 8)
	var panels []plot.Panel
	for k := 0; k < min(m.NumPrototypes(), 24); k++ {
		p := m.Prototype(k)
		for j := 0; j < cols; j++ {
			c := column(p, j)
			panels = append(panels, plot.Panel{
				Caption: fmt.Sprintf("W%d (%s) col %d", k, className(m, m.Label(k)), j+1),
				Image:   (&plot.HeatMap{Values: c, Rows: h, Cols: w, Signed: true, Scale: max(1, 96/max(h, w))}).Render(),
			})
		}
	}
	title := fmt.Sprintf("prototypes: %d of %d, columns as images (red +, blue -)", min(m.NumPrototypes(), 24), m.NumPrototypes())
	return plot.Grid(title, panels, cols)
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
	PixelMaps          [][]jnum `json:"pixel_maps,omitempty"`
}

func sideOf(m *model.Model, sd *model.Side, pixels bool) sideJSON {
	out := sideJSON{Prototype: sd.Prototype, Class: className(m, sd.Class), Distance: jnum(sd.Distance),
		Angles: jnums(sd.Angles), Contributions: jnums(sd.Contributions), QW: rowsOf(sd.QW), QP: rowsOf(sd.QP),
		ImageContributions: rowsOf(sd.ImageContributions)}
	// For each principal vector v_i, the prototype column with the largest
	// coefficient |Q_W[j][i]|.
	if sd.QW != nil {
		for i := 0; i < sd.QW.Cols; i++ {
			best, bv := 0, -1.0
			for j := 0; j < sd.QW.Rows; j++ {
				if a := math.Abs(sd.QW.At(j, i)); a > bv {
					best, bv = j, a
				}
			}
			out.DominantColumn = append(out.DominantColumn, best)
		}
	}
	if pixels && sd.PixelMaps != nil {
		for i := 0; i < sd.PixelMaps.Cols; i++ {
			out.PixelMaps = append(out.PixelMaps, jnums(column(sd.PixelMaps, i)))
		}
	}
	return out
}

func explanationJSON(m *model.Model, s *samples, i int, ex *model.Explanation, pred *model.Prediction, pixels bool) map[string]any {
	j := map[string]any{
		"index":      i,
		"name":       s.names[i],
		"kind":       s.kind,
		"true":       s.ds.Classes[s.data[i]],
		"explained":  className(m, ex.Label),
		"predicted":  className(m, pred.Label),
		"margin":     jnum(pred.Margin),
		"mu":         jnum(ex.Mu),
		"relevances": jnums(ex.Relevance),
		"plus":       sideOf(m, &ex.Plus, pixels),
		"minus":      sideOf(m, &ex.Minus, pixels),
	}
	if s.kind == "set" {
		j["images"] = s.subs.Sources[i]
	}
	return j
}
