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
	_ "gonum.org/v1/plot/vg/vgimg" // png
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
func (f *Figure) Render(w io.Writer, format string) (err error) {
	if err := CheckFormat(format); err != nil {
		return err
	}
	c, err := draw.NewFormattedCanvas(f.Width, f.Height, format)
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	defer func() {
		// gonum/plot panics on some degenerate input (a colour map of
		// zero width, say); a picture is never worth a crash.
		if r := recover(); r != nil {
			err = fmt.Errorf("plot: %v", r)
		}
	}()
	f.draw(draw.New(c))
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
