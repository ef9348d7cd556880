package plot

import (
	"bytes"
	"flag"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// -plot-out DIR keeps the pictures the tests draw, to look at them.
var outDir = flag.String("plot-out", "", "write the test pictures to this folder")

// roundTrip encodes img as PNG, decodes it and returns the decoded picture.
func roundTrip(t *testing.T, name string, img image.Image) image.Image {
	t.Helper()
	var buf bytes.Buffer
	if err := Encode(&buf, img); err != nil {
		t.Fatalf("%s: encode: %v", name, err)
	}
	if *outDir != "" {
		if err := os.WriteFile(filepath.Join(*outDir, name+".png"), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dec, err := png.Decode(&buf)
	if err != nil {
		t.Fatalf("%s: decode: %v", name, err)
	}
	if dec.Bounds() != img.Bounds() {
		t.Fatalf("%s: decoded %v, drew %v", name, dec.Bounds(), img.Bounds())
	}
	return dec
}

// inked counts pixels that are not white.
func inked(img image.Image) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if r != 0xffff || g != 0xffff || bl != 0xffff {
				n++
			}
		}
	}
	return n
}

func TestLineChart(t *testing.T) {
	cost := []float64{0.2, 0.1, 0.05, -0.01, -0.05, -0.08, -0.1, -0.11, -0.12, -0.125}
	acc := []float64{0.6, 0.7, 0.8, 0.85, 0.88, 0.9, 0.91, 0.92, 0.93, 0.935}
	c := LineChart{Title: "Learning curves", XLabel: "epoch", YLabel: "accuracy",
		Series: []Series{{Name: "train", Y: acc}, {Name: "cost", Y: cost}}, Width: 500, Height: 300}
	img := roundTrip(t, "line", c.Render())
	if b := img.Bounds(); b.Dx() != 500 || b.Dy() != 300 {
		t.Fatalf("size %v, want 500x300", b)
	}
	if inked(img) < 2000 {
		t.Errorf("only %d inked pixels", inked(img))
	}
}

func TestLineChartDegenerate(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	cases := map[string]LineChart{
		"empty":      {},
		"no-points":  {Series: []Series{{Name: "a"}}},
		"all-nan":    {Series: []Series{{Name: "a", Y: []float64{nan, nan}}}},
		"one-point":  {Series: []Series{{Name: "a", Y: []float64{3}}}},
		"mixed":      {Series: []Series{{Name: "a", Y: []float64{1, nan, 2, inf, -inf, 3}}}},
		"x-short":    {Series: []Series{{X: []float64{1}, Y: []float64{1, 2, 3}}}},
		"huge":       {Series: []Series{{Y: []float64{1e300, -1e300, 1e-300}}}},
		"tiny-frame": {Width: 3, Height: 2, Series: []Series{{Y: []float64{1, 2}}}},
		"fixed-bad":  {YFixed: true, YMin: 1, YMax: 0, Series: []Series{{Y: []float64{0.5}}}},
		"fixed":      {YFixed: true, YMin: 0, YMax: 1, Series: []Series{{Y: []float64{0.5, 2, -1}}}},
		"long":       {Series: []Series{{Y: make([]float64, 5000)}}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) { roundTrip(t, "line-"+name, c.Render()) })
	}
}

func TestBarChart(t *testing.T) {
	c := BarChart{Title: "Relevance profile", XLabel: "principal angle", YLabel: "λ",
		Labels: []string{"θ1", "θ2", "θ3", "θ4"}, Values: [][]float64{{0.4, 0.3, 0.2, 0.1}}, ValueLabels: true}
	img := roundTrip(t, "bars", c.Render())
	if b := img.Bounds(); b.Dx() != 640 || b.Dy() != 400 {
		t.Fatalf("size %v, want default 640x400", b)
	}
	g := BarChart{Labels: []string{"a", "b"}, Values: [][]float64{{1, -2}, {math.NaN(), 3}},
		SeriesNames: []string{"one", "two"}}
	roundTrip(t, "bars-grouped", g.Render())
	for name, c := range map[string]BarChart{
		"empty":   {},
		"nan":     {Values: [][]float64{{math.NaN()}}},
		"many":    {Values: [][]float64{make([]float64, 300)}, ValueLabels: true},
		"labels":  {Labels: []string{"x"}},
		"inf":     {Values: [][]float64{{math.Inf(1), 1}}, ValueLabels: true},
		"tinyimg": {Width: 1, Height: 1, Values: [][]float64{{1}}},
	} {
		t.Run(name, func(t *testing.T) { roundTrip(t, "bars-"+name, c.Render()) })
	}
}

func TestHeatMap(t *testing.T) {
	v := make([]float64, 64)
	for i := range v {
		v[i] = math.Sin(float64(i)) * float64(i%8)
	}
	h := HeatMap{Values: v, Rows: 8, Cols: 8, Signed: true, ColorBar: true}
	img := roundTrip(t, "heat-signed", h.Render())
	if b := img.Bounds(); b.Dy() != 160 {
		t.Fatalf("height %d, want 160 (8 rows of 20 px)", b.Dy())
	}
	if b := (&HeatMap{Values: v, Rows: 2, Cols: 32, Scale: 3, ScaleY: 10}).Render().Bounds(); b.Dx() != 96 || b.Dy() != 20 {
		t.Fatalf("size %v, want 96x20", b)
	}
	g := HeatMap{Values: v, Rows: 8, Cols: 8, Scale: 3}
	if b := g.Render().Bounds(); b.Dx() != 24 || b.Dy() != 24 {
		t.Fatalf("size %v, want 24x24", b)
	}
	for name, c := range map[string]HeatMap{
		"empty":     {},
		"short":     {Values: []float64{1}, Rows: 2, Cols: 2},
		"nan":       {Values: []float64{math.NaN(), 1, math.Inf(-1), 0}, Rows: 2, Cols: 2, ColorBar: true},
		"nan-sign":  {Values: []float64{math.NaN(), math.NaN()}, Rows: 1, Cols: 2, Signed: true, ColorBar: true},
		"zero":      {Values: make([]float64, 4), Rows: 2, Cols: 2, Signed: true},
		"negative":  {Values: []float64{1}, Rows: -1, Cols: -1},
		"fixed-nan": {Values: []float64{1, 2}, Rows: 1, Cols: 2, Fixed: true, Min: math.NaN(), Max: math.NaN()},
	} {
		t.Run(name, func(t *testing.T) { roundTrip(t, "heat-"+name, c.Render()) })
	}
}

func TestGridAndSave(t *testing.T) {
	h := HeatMap{Values: []float64{0, 1, 2, 3}, Rows: 2, Cols: 2, Scale: 20}
	g := Grid("A grid", []Panel{{Caption: "first", Image: h.Render()}, {Caption: "empty"}, {Caption: "a much longer caption", Image: h.Render()}}, 2)
	roundTrip(t, "grid", g)
	roundTrip(t, "grid-empty", Grid("", nil, 0))
	roundTrip(t, "stack", Stack(g, nil, h.Render()))
	roundTrip(t, "stack-empty", Stack())

	dir := t.TempDir()
	path := filepath.Join(dir, "g.png")
	if err := Save(path, g); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Fatal(err)
	}
	if err := Save(filepath.Join(dir, "missing", "x.png"), g); err == nil {
		t.Fatal("saving into a missing folder succeeded")
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*tmp"))
	if len(left) != 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}

func TestTicks(t *testing.T) {
	for _, c := range []struct{ lo, hi float64 }{{0, 1}, {0.93, 0.95}, {-0.125, 0.2}, {1, 40}, {5, 5}, {0, 0}, {1e-9, 2e-9}} {
		lo, hi, ticks := niceRange(c.lo, c.hi, 5)
		if lo > c.lo || hi < c.hi || len(ticks) < 2 || len(ticks) > 12 {
			t.Errorf("niceRange(%g, %g) = %g, %g, %v", c.lo, c.hi, lo, hi, ticks)
		}
	}
	if s := tickLabel(0.25, 0.05); s != "0.25" {
		t.Errorf("tickLabel(0.25, 0.05) = %q", s)
	}
	if s := tickLabel(0.125, 0.025); s != "0.125" {
		t.Errorf("tickLabel(0.125, 0.025) = %q", s)
	}
	if s := tickLabel(10, 5); s != "10" {
		t.Errorf("tickLabel(10, 5) = %q", s)
	}
}

func TestTickLabelsDistinct(t *testing.T) {
	for _, c := range []struct{ lo, hi float64 }{{0.966, 0.995}, {0.97, 0.99}, {-0.55, -0.35}, {0.0001, 0.0002}, {1, 1.01}} {
		_, _, ticks, step := niceRangeStep(c.lo, c.hi, 5)
		seen := map[string]bool{}
		for _, v := range ticks {
			s := tickLabel(v, step)
			if seen[s] {
				t.Errorf("range [%g, %g]: tick label %q repeats (ticks %v)", c.lo, c.hi, s, ticks)
			}
			seen[s] = true
		}
	}
}
