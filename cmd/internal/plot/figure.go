package plot

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	_ "gonum.org/v1/plot/vg/vgpdf" // pdf
	_ "gonum.org/v1/plot/vg/vgsvg" // svg

	"github.com/grlgq/grlgq/model"
)

// Formats are the output formats Render accepts; the first is the default.
var Formats = []string{"png", "svg", "pdf"}

// CheckFormat returns an error unless format is one of Formats.
func CheckFormat(format string) error {
	for _, f := range Formats {
		if f == format {
			return nil
		}
	}
	return fmt.Errorf("plot: format %q: want one of %s", format, strings.Join(Formats, ", "))
}

// Figure is one page: its size and what to draw on it.
type Figure struct {
	Width, Height vg.Length
	draw          func(c draw.Canvas)
}

// Render writes the figure to w as format ("png", "svg" or "pdf"). PNG is
// drawn at 96 dots per inch.
func (f *Figure) Render(w io.Writer, format string) error {
	return f.RenderSize(w, format, Size{})
}

// Size sets the size of a picture (Width x Height; zero: the figure's
// own) and the resolution of a PNG (DPI dots per inch; zero: 96). SVG and
// PDF are vector pictures: DPI plays no part.
type Size struct {
	Width, Height vg.Length
	DPI           int
}

// Limits of ParseSize and of a Size's DPI: each side from MinSide to
// MaxSide inches, DPI from MinDPI to MaxDPI, and a PNG of at most
// MaxPixels pixels (4 bytes each in memory).
const (
	MinSide   = 1.0
	MaxSide   = 100.0
	MinDPI    = 24
	MaxDPI    = 1200
	MaxPixels = 1 << 26
)

// ParseSize parses "WxH" in inches ("6x4", "3.5x2.5") within MinSide to
// MaxSide; "" is the zero size (each figure's own).
func ParseSize(s string) (w, h vg.Length, err error) {
	if s == "" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(strings.ToLower(s), "x")
	x, err1 := strconv.ParseFloat(strings.TrimSpace(a), 64)
	y, err2 := strconv.ParseFloat(strings.TrimSpace(b), 64)
	if !ok || err1 != nil || err2 != nil || !(x >= MinSide && x <= MaxSide && y >= MinSide && y <= MaxSide) {
		return 0, 0, fmt.Errorf("want WxH in inches, each side from %g to %g, like 6x4", MinSide, MaxSide)
	}
	return vg.Length(x) * vg.Inch, vg.Length(y) * vg.Inch, nil
}

// Set parses a -plot-size flag's WxH into s's Width and Height
// (ParseSize); with String it makes *Size a flag.Value.
func (s *Size) Set(v string) (err error) {
	s.Width, s.Height, err = ParseSize(v)
	return err
}

// String is the WxH of s in inches ("" for the zero size).
func (s *Size) String() string {
	if s == nil || s.Width == 0 {
		return ""
	}
	return fmt.Sprintf("%gx%g", s.Width/vg.Inch, s.Height/vg.Inch)
}

// Check returns an error when a PNG of s would have more than
// MaxPixels pixels or s.DPI is outside MinDPI..MaxDPI (0 allowed), saying
// which limit.
func (s Size) Check() error {
	if s.DPI != 0 && (s.DPI < MinDPI || s.DPI > MaxDPI) {
		return fmt.Errorf("plot: %d dpi: want %d to %d", s.DPI, MinDPI, MaxDPI)
	}
	dpi := float64(s.DPI)
	if dpi == 0 {
		dpi = 96
	}
	if px := (float64(s.Width) / vg.Inch.Points()) * (float64(s.Height) / vg.Inch.Points()) * dpi * dpi; px > MaxPixels {
		return fmt.Errorf("plot: %.0f pixels at %.0f dpi, over the limit of %d", px, dpi, MaxPixels)
	}
	return nil
}

// RenderSize is Render at size s (see Size; its zero fields keep the
// figure's own). A picture larger than the figure is laid out at its size
// (texts keep their point sizes); a smaller one is the figure laid out at
// the aspect ratio asked for and scaled down, texts included, so that
// nothing overlaps at any size.
func (f *Figure) RenderSize(w io.Writer, format string, s Size) (err error) {
	if err := CheckFormat(format); err != nil {
		return err
	}
	if s.Width == 0 || s.Height == 0 {
		s.Width, s.Height = f.Width, f.Height
	}
	if err := s.Check(); err != nil {
		return err
	}
	var c vg.CanvasWriterTo
	if format == "png" && s.DPI != 0 {
		c = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(s.Width, s.Height), vgimg.UseDPI(s.DPI))}
	} else if c, err = draw.NewFormattedCanvas(s.Width, s.Height, format); err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	defer func() {
		// gonum/plot panics on some degenerate input (a colour map of
		// zero width, say); a picture is never worth a crash.
		if r := recover(); r != nil {
			err = fmt.Errorf("plot: %v", r)
		}
	}()
	dc := draw.New(c)
	if k := min(float64(s.Width/f.Width), float64(s.Height/f.Height)); k < 1 {
		// Smaller than the figure: laid out at 1/k of the size asked
		// for (the figure's own scale, texts included) and drawn scaled
		// by k, so that texts shrink with the picture and never overlap.
		c.Scale(k, k)
		dc = draw.Canvas{Canvas: c, Rectangle: vg.Rectangle{Max: vg.Point{X: s.Width / vg.Length(k), Y: s.Height / vg.Length(k)}}}
	}
	f.draw(dc)
	if _, err := c.WriteTo(w); err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	return nil
}

// PageName is the file name of page i (from 0) of n of a picture called
// base: "base.format" for a single page, else "base_1.format" ... .
func PageName(base string, i, n int, format string) string {
	if n <= 1 {
		return base + "." + format
	}
	return fmt.Sprintf("%s_%d.%s", base, i+1, format)
}

// textStyle is the default font at size, aligned as given.
func textStyle(size vg.Length, xa draw.XAlignment, ya draw.YAlignment) draw.TextStyle {
	return draw.TextStyle{Color: color.Black, Font: font.From(plot.DefaultFont, size), XAlign: xa, YAlign: ya, Handler: plot.DefaultTextHandler}
}

// drawTitle writes text centred at the top of c and returns the canvas
// below it.
func drawTitle(c draw.Canvas, text string, size vg.Length) draw.Canvas {
	if text == "" {
		return c
	}
	pad := size / 2
	lines, sty := fitLines(textStyle(size, draw.XCenter, draw.YTop), text, c.Max.X-c.Min.X-2*pad)
	h := pad
	for _, l := range lines {
		c.FillText(sty, vg.Point{X: (c.Min.X + c.Max.X) / 2, Y: c.Max.Y - h}, l)
		h += sty.Height(l)
	}
	return draw.Crop(c, 0, 0, 0, -(h + pad))
}

// newPlot is a plot with a title, axis labels and a light grid.
func newPlot(title, xlabel, ylabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = ylabel
	p.Title.TextStyle.Font.Size = 13
	g := plotterGrid()
	p.Add(g)
	return p
}

// finite reports whether v is neither NaN nor ±Inf.
func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// span returns the range of the finite values of xs, ok false when there
// are none.
func span(xs ...[]float64) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range xs {
		for _, v := range s {
			if finite(v) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
				ok = true
			}
		}
	}
	return lo, hi, ok
}

// maxAbs is the largest finite |v| of xs (0 when none).
func maxAbs(xs ...[]float64) float64 {
	m := 0.0
	for _, s := range xs {
		for _, v := range s {
			if finite(v) {
				m = math.Max(m, math.Abs(v))
			}
		}
	}
	return m
}

// className is the name of class c, or its number when the model has no
// names.
func className(m *model.Model, c int) string {
	if n := m.ClassName(c); n != "" {
		return n
	}
	return strconv.Itoa(c)
}
