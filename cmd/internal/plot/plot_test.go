package plot

import (
	"bytes"
	"context"
	"encoding/xml"
	"fmt"
	"go/scanner"
	"go/token"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"golang.org/x/image/font/sfnt"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

// The test data: C classes of 4x4 images, each class a blob at its own
// place plus noise, grouped into sets of m images.
const (
	testH, testW = 4, 4
	testM        = 5
)

func testImage(rng *rand.Rand, class int) []float64 {
	x := make([]float64, testH*testW)
	for i := range x {
		x[i] = 0.2 * rng.Float64()
	}
	x[(class*5)%len(x)] += 1
	x[(class*5+1)%len(x)] += 0.5
	return x
}

type trained struct {
	m    *model.Model
	h    *model.History
	sets []*subspace.Subspace
	srcs [][][]float64
	y    []int
}

var (
	trainOnce sync.Map // key -> *trained
)

// train trains a small model (d=2) of classes x perClass prototypes, once
// per key.
func train(t *testing.T, classes, perClass int, rel model.RelevanceKind) *trained {
	t.Helper()
	key := fmt.Sprint(classes, perClass, rel)
	if v, ok := trainOnce.Load(key); ok {
		return v.(*trained)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	conv, err := subspace.NewConverter(testH*testW, testM, 2)
	if err != nil {
		t.Fatal(err)
	}
	tr := &trained{}
	for c := range classes {
		for range max(3, perClass) {
			x := linalg.NewDense(testH*testW, testM)
			var imgs [][]float64
			for j := range testM {
				img := testImage(rng, c)
				imgs = append(imgs, img)
				for r, v := range img {
					x.Set(r, j, v)
				}
			}
			s, err := conv.FromSet(x)
			if err != nil {
				t.Fatal(err)
			}
			tr.sets, tr.srcs, tr.y = append(tr.sets, s), append(tr.srcs, imgs), append(tr.y, c)
		}
	}
	o := model.DefaultOptions()
	o.Model = model.Config{SubspaceDim: 2, PrototypesPerClass: perClass, Relevance: rel, ImageWidth: testW, ImageHeight: testH}
	o.Train.Epochs, o.Train.Gamma, o.Train.ValidationFraction, o.Train.Workers, o.Train.Seed = 4, 1e-2, 0.25, 1, 3
	tr.m, tr.h, err = model.Train(context.Background(), o, model.Sets(tr.sets), tr.y)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := trainOnce.LoadOrStore(key, tr)
	return v.(*trained)
}

// render renders f in every format and checks the output: a PNG of the
// figure's size at 96 dpi that is not blank, an SVG (well-formed XML)
// that holds every string of want, a PDF.
func render(t *testing.T, name string, f *Figure, want ...string) {
	t.Helper()
	if f == nil {
		t.Fatalf("%s: nil figure", name)
	}
	for _, format := range Formats {
		var b bytes.Buffer
		if err := f.Render(&b, format); err != nil {
			t.Fatalf("%s.%s: %v", name, format, err)
		}
		if dir := os.Getenv("GRLGQ_PLOT_DIR"); dir != "" { // to look at them
			os.WriteFile(filepath.Join(dir, name+"."+format), b.Bytes(), 0o644)
		}
		switch format {
		case "png":
			img, err := png.Decode(bytes.NewReader(b.Bytes()))
			if err != nil {
				t.Fatalf("%s.png: %v", name, err)
			}
			wantW, wantH := int(math.Ceil(f.Width.Dots(96))), int(math.Ceil(f.Height.Dots(96)))
			if sz := img.Bounds().Size(); abs(sz.X-wantW) > 1 || abs(sz.Y-wantH) > 1 {
				t.Errorf("%s.png: %v, want %dx%d", name, sz, wantW, wantH)
			}
			if ink, colours := inkOf(img); ink < 0.01 || colours < 3 {
				t.Errorf("%s.png: %.3f of the pixels drawn in %d colours: blank", name, ink, colours)
			}
		case "svg":
			if err := xml.Unmarshal(b.Bytes(), new(struct{})); err != nil {
				t.Errorf("%s.svg: not XML: %v", name, err)
			}
			s := b.String()
			for _, w := range want {
				if !strings.Contains(s, escapeXML(w)) {
					t.Errorf("%s.svg: no %q", name, w)
				}
			}
		case "pdf":
			if !bytes.HasPrefix(b.Bytes(), []byte("%PDF-")) || b.Len() < 1000 {
				t.Errorf("%s.pdf: %d bytes, not a PDF", name, b.Len())
			}
		}
	}
}

func abs(x int) int { return max(x, -x) }

func escapeXML(s string) string {
	var b bytes.Buffer
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// inkOf returns the fraction of pixels that are not white and the number
// of distinct colours (up to 100).
func inkOf(img image.Image) (float64, int) {
	b := img.Bounds()
	ink, seen := 0, map[color.RGBA]bool{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			if c != (color.RGBA{255, 255, 255, 255}) {
				ink++
			}
			if len(seen) < 100 {
				seen[c] = true
			}
		}
	}
	return float64(ink) / float64(b.Dx()*b.Dy()), len(seen)
}

func TestPlotTraining(t *testing.T) {
	tr := train(t, 3, 2, model.RelevanceGlobal)
	render(t, "learning_curves", LearningCurves(tr.h), "Accuracy per epoch", "validation (after the epoch)", "φ(μ)")
	render(t, "relevances", Relevances(tr.m), "Relevance profile λ", "θ2")
	render(t, "relevance_history", RelevanceHistory(tr.h, tr.m.SubspaceDim()), "λ1 (θ1)", "λ2 (θ2)")
}

func TestPlotLocalRelevances(t *testing.T) {
	tr := train(t, 3, 2, model.RelevanceLocal)
	// Every prototype's profile, not only the mean.
	want := []string{"Local relevances λ", "Mean over the prototypes"}
	for k := range tr.m.NumPrototypes() {
		want = append(want, fmt.Sprintf("W%d (%d)", k, tr.m.Label(k)))
	}
	render(t, "relevances_local", Relevances(tr.m), want...)
	render(t, "relevance_history_local", RelevanceHistory(tr.h, tr.m.SubspaceDim()), "Mean over the prototypes")
}

// A saturated validation accuracy must not sit on the frame.
func TestPlotAccuracyRoomAbove100(t *testing.T) {
	h := &model.History{Best: 2, AveragedValAccuracy: math.NaN()}
	for e := range 3 {
		h.Epochs = append(h.Epochs, model.EpochStats{Epoch: e + 1, Cost: -0.5, TrainAccuracy: 0.9 + 0.05*float64(e), ValAccuracy: 1})
	}
	_, acc := learningPlots(h)
	if !(acc.Y.Max > 100.5) || acc.Y.Min > 90 {
		t.Errorf("accuracy axis [%g, %g]: want room above 100 and the 90%% point inside", acc.Y.Min, acc.Y.Max)
	}
	for _, tk := range acc.Y.Tick.Marker.Ticks(acc.Y.Min, acc.Y.Max) {
		if tk.Value > 100 && tk.Label != "" {
			t.Errorf("tick %q above 100%%", tk.Label)
		}
	}
	// No relevances recorded: no picture.
	if f := RelevanceHistory(h, 2); f != nil {
		t.Error("RelevanceHistory of a history without relevances: want nil")
	}
	// NaN and an empty history draw, they do not fail.
	h.Epochs[1].Cost, h.Epochs[1].TrainAccuracy = math.NaN(), math.Inf(1)
	render(t, "learning_curves_nan", LearningCurves(h), "Accuracy per epoch")
	if err := LearningCurves(&model.History{Best: -1}).Render(new(bytes.Buffer), "png"); err != nil {
		t.Errorf("empty history: %v", err)
	}
}

func TestPlotConfusion(t *testing.T) {
	counts := [][]int{{5, 1, 0, 0}, {0, 6, 0, 2}, {1, 0, 4, 0}}
	render(t, "confusion", Confusion([]string{"cat", "dog", "θ-class"}, counts), "Confusion matrix: 15 of 19 correct", "rejected", "θ-class", "predicted class")
	// Many classes with long names: still renders, names rotated.
	n := 40
	names := make([]string, n)
	big := make([][]int, n)
	for i := range big {
		names[i] = "subject " + strconv.Itoa(i)
		big[i] = make([]int, n+1)
		big[i][i], big[i][(i+1)%n] = 10, 1
	}
	render(t, "confusion_40", Confusion(names, big), "subject 39")
}

// Every class's prototypes are drawn, on as many pages as it takes.
func TestPlotPrototypePages(t *testing.T) {
	tr := train(t, 3, 2, model.RelevanceGlobal)
	pages := Prototypes(tr.m, testH, testW)
	if len(pages) != 1 {
		t.Fatalf("%d pages for 6 prototypes", len(pages))
	}
	render(t, "prototypes", pages[0], "W0 · class 0", "W5 · class 2")

	big := train(t, 31, 2, model.RelevanceNone) // 62 prototypes of d=2: 6 a row, 60 a page
	pages = Prototypes(big.m, testH, testW)
	if len(pages) != 2 {
		t.Fatalf("%d pages for 62 prototypes, want 2", len(pages))
	}
	var all strings.Builder
	for i, p := range pages {
		var b bytes.Buffer
		if err := p.Render(&b, "svg"); err != nil {
			t.Fatal(err)
		}
		all.Write(b.Bytes())
		if i == 1 {
			render(t, "prototypes_many", p, "W60–W61 of 62", "page 2 of 2")
		}
		// Not a strip: no page more than twice as tall as wide.
		if p.Height > 2*p.Width {
			t.Errorf("page %d is %v x %v", i+1, p.Width, p.Height)
		}
	}
	for k := range big.m.NumPrototypes() {
		if w := fmt.Sprintf("W%d · class %d<", k, big.m.Label(k)); !strings.Contains(all.String(), w) {
			t.Errorf("prototype %d missing", k)
		}
	}
	if got := PageName("prototypes", 1, 3, "svg"); got != "prototypes_2.svg" {
		t.Errorf("PageName: %s", got)
	}
}

// TestFitLines: a caption fits its width on one line, on two, smaller,
// or elided from the start, never wider; the neighbours' captions cannot
// meet.
func TestFitLines(t *testing.T) {
	sty := textStyle(8, draw.XCenter, draw.YTop)
	tile := 1.15 * vg.Inch
	for _, c := range []string{"image 3", "#1: cup8-000-000.png, score +0.016", "#12: " + strings.Repeat("very-long-name-", 8) + ".png, score -0.5", strings.Repeat("x", 300), "a"} {
		lines, s := fitLines(sty, c, tile)
		if len(lines) == 0 || len(lines) > 2 || s.Font.Size < minCaptionSize {
			t.Fatalf("%q: %q at %v points", c, lines, s.Font.Size)
		}
		for _, l := range lines {
			if w := s.Width(l); w > tile || l == "" {
				t.Errorf("%q: line %q is %v wide, the tile %v", c, l, w, tile)
			}
		}
		if sty.Width(c) <= tile && (len(lines) != 1 || lines[0] != c) {
			t.Errorf("%q fits, but became %q", c, lines)
		}
	}
}

func TestPlotExplanation(t *testing.T) {
	tr := train(t, 3, 2, model.RelevanceGlobal)
	ex, err := tr.m.Explain(model.Set(tr.sets[0]), tr.y[0])
	if err != nil {
		t.Fatal(err)
	}
	if ex.Plus.ImageContributions == nil {
		t.Fatal("no image contributions")
	}
	p, err := tr.m.Predict(model.Set(tr.sets[0]))
	if err != nil {
		t.Fatal(err)
	}
	s := Sample{Title: "set 0: true class 0", Height: testH, Width: testW, Labelled: true, Predicted: className(tr.m, p.Class), Margin: p.Margin}
	for i, img := range tr.srcs[0] {
		s.Images = append(s.Images, Tile{Caption: fmt.Sprintf("image %d", i+1), Values: img})
	}
	render(t, "explanation_set", Explanation(tr.m, ex, s), "set 0: true class 0", "μ = ", "θ2", "M: the weight", "(W+) − (W−)", "image 5")
	// The header names and signs the margins as everywhere: μ of the true
	// class (a wrong label here: μ > 0, misclassified as the predicted
	// class), and the label-free margin alone without a label.
	wrong := (tr.y[0] + 1) % tr.m.NumClasses()
	exw, err := tr.m.Explain(model.Set(tr.sets[0]), wrong)
	if err != nil {
		t.Fatal(err)
	}
	if h := header(tr.m, exw, s); exw.Mu <= 0 || !strings.Contains(h, "true class "+className(tr.m, wrong)+": μ = +") || !strings.Contains(h, "misclassified as "+s.Predicted) {
		t.Errorf("header of a misclassified set (μ %v): %q", exw.Mu, h)
	}
	if h := header(tr.m, ex, s); ex.Mu >= 0 || !strings.Contains(h, "classified correctly") {
		t.Errorf("header of a correct set (μ %v): %q", ex.Mu, h)
	}
	s.Labelled = false
	if h := header(tr.m, ex, s); strings.Contains(h, "μ") || !strings.Contains(h, fmt.Sprintf("margin %.3f", p.Margin)) {
		t.Errorf("header without a label: %q", h)
	}
	// Long captions at every count of tiles: each fits its tile.
	for n := 1; n <= 5; n++ {
		s.Images = s.Images[:0]
		for i := range n {
			s.Images = append(s.Images, Tile{Caption: fmt.Sprintf("#%d: a-rather-long-folder/cup8-000-%03d-view.png, score %+.3f", i+1, i, 0.016), Values: tr.srcs[0][i%len(tr.srcs[0])]})
		}
		render(t, fmt.Sprintf("explanation_captions_%d", n), Explanation(tr.m, ex, s), "view.png")
	}

	ex, err = tr.m.Explain(model.Image(tr.srcs[3][0]), -1)
	if err != nil {
		t.Fatal(err)
	}
	render(t, "explanation_image", Explanation(tr.m, ex, Sample{Title: "an image", Height: testH, Width: testW,
		Images: []Tile{{Caption: "the image", Values: tr.srcs[3][0]}}}), "The distance θ1²")
	// No images (a precomputed basis), and a shape that is a strip.
	render(t, "explanation_basis", Explanation(tr.m, ex, Sample{Title: "a basis", Height: 1, Width: testH * testW}), "no images")
}

func TestPlotFormats(t *testing.T) {
	f := Confusion([]string{"a", "b"}, [][]int{{1, 0}, {0, 1}})
	for _, bad := range []string{"", "jpg", "PNG", "eps"} {
		if err := f.Render(new(bytes.Buffer), bad); err == nil {
			t.Errorf("format %q: no error", bad)
		}
	}
}

// Every character the pictures write is in the font (gonum/plot draws a
// missing glyph as an empty box).
func TestPlotGlyphs(t *testing.T) {
	face := font.DefaultCache.Lookup(plot.DefaultFont, 12)
	var buf sfnt.Buffer
	files, _ := filepath.Glob("*.go")
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		fs := token.NewFileSet()
		var s scanner.Scanner
		s.Init(fs.AddFile(name, -1, len(src)), src, nil, 0)
		for {
			pos, tok, lit := s.Scan()
			if tok == token.EOF {
				break
			}
			if tok != token.STRING {
				continue
			}
			for _, r := range lit {
				if r < 0x80 {
					continue
				}
				if i, err := face.Face.GlyphIndex(&buf, r); err != nil || i == 0 {
					t.Errorf("%s: %q (%U) is not in %s", fs.Position(pos), r, r, plot.DefaultFont.Typeface)
				}
			}
		}
	}
}

func TestPlotFitText(t *testing.T) {
	sty := textStyle(9, 0, 0)
	long := "W12 · class a very long class name indeed"
	got := fitText(sty, long, sty.Width("W12 · class a very"))
	if !strings.HasSuffix(got, "…") || sty.Width(got) > sty.Width("W12 · class a very") {
		t.Errorf("fitText: %q", got)
	}
	if got := fitText(sty, "W1 · class 0", 1000); got != "W1 · class 0" {
		t.Errorf("fitText cut a short text: %q", got)
	}
}

// TestRenderSize: a Size sets a PNG's pixels (inches x dpi) and is
// checked against its limits; FoldAccuracies draws.
func TestRenderSize(t *testing.T) {
	f := FoldAccuracies([]float64{0.9, 1, 0.95}, 0.95, 0.05)
	var b bytes.Buffer
	if err := f.RenderSize(&b, "png", Size{Width: 3 * vg.Inch, Height: 2 * vg.Inch, DPI: 100}); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&b)
	if err != nil || img.Bounds().Dx() != 300 || img.Bounds().Dy() != 200 {
		t.Fatalf("3x2 in at 100 dpi: %v, %v", err, img.Bounds())
	}
	if w, h, err := ParseSize("3.5x2"); err != nil || w != 3.5*vg.Inch || h != 2*vg.Inch {
		t.Errorf("ParseSize 3.5x2: %v %v %v", w, h, err)
	}
	for _, bad := range []string{"0x2", "3", "3x", "x2", "1000x2", "NaNx2", "3x2x1"} {
		if _, _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) accepted", bad)
		}
	}
	if err := (Size{Width: 100 * vg.Inch, Height: 100 * vg.Inch, DPI: 1200}).Check(); err == nil {
		t.Error("a 120000x120000 PNG accepted")
	}
	if err := f.RenderSize(new(bytes.Buffer), "png", Size{DPI: 5}); err == nil {
		t.Error("5 dpi accepted")
	}
}
