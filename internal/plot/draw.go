package plot

import (
	"image"
	"image/color"
	"image/draw"
	"math"
	"strconv"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// Colours used by the charts.
var (
	White     = color.RGBA{255, 255, 255, 255}
	Black     = color.RGBA{0, 0, 0, 255}
	GridGray  = color.RGBA{225, 225, 225, 255}
	TextGray  = color.RGBA{90, 90, 90, 255}
	EmptyGray = color.RGBA{200, 200, 200, 255}
)

// Palette is the sequence of series colours (Okabe–Ito, readable by people
// with colour-vision deficiencies).
var Palette = []color.RGBA{
	{0, 114, 178, 255},   // blue
	{213, 94, 0, 255},    // vermillion
	{0, 158, 115, 255},   // bluish green
	{204, 121, 167, 255}, // reddish purple
	{230, 159, 0, 255},   // orange
	{86, 180, 233, 255},  // sky blue
	{240, 228, 66, 255},  // yellow
	{0, 0, 0, 255},       // black
}

// SeriesColor returns the colour of series i.
func SeriesColor(i int) color.RGBA { return Palette[((i%len(Palette))+len(Palette))%len(Palette)] }

var face = basicfont.Face7x13

// Font metrics of basicfont.Face7x13.
const (
	charW   = 7
	lineH   = 13
	ascent  = 11
	padding = 6
)

// greek spells out the letters the labels use: basicfont has ASCII only.
var greek = strings.NewReplacer("θ", "theta", "λ", "lambda", "η", "eta", "γ", "gamma", "μ", "mu", "φ", "phi", "δ", "delta",
	"±", "+/-", "−", "-", "∘", "*", "·", "*", "²", "^2", "≈", "~", "≤", "<=", "≥", ">=", "…", "...")

// ascii makes s drawable with basicfont: known symbols are spelled out, any
// other non-ASCII rune becomes '?'.
func ascii(s string) string {
	s = greek.Replace(s)
	for _, r := range s {
		if r >= 0x80 || r < 0x20 {
			return strings.Map(func(r rune) rune {
				if r >= 0x80 || r < 0x20 {
					return '?'
				}
				return r
			}, s)
		}
	}
	return s
}

// textWidth returns the width in pixels of s.
func textWidth(s string) int { return font.MeasureString(face, ascii(s)).Ceil() }

// drawText draws s with its top-left corner at (x, y).
func drawText(dst draw.Image, s string, x, y int, c color.Color) {
	d := &font.Drawer{Dst: dst, Src: image.NewUniform(c), Face: face, Dot: fixed.P(x, y+ascent)}
	d.DrawString(ascii(s))
}

// Alignment of text relative to a point.
const (
	alignLeft = iota
	alignCenter
	alignRight
)

// drawTextAligned draws s horizontally aligned at x, top at y.
func drawTextAligned(dst draw.Image, s string, x, y, align int, c color.Color) {
	switch align {
	case alignCenter:
		x -= textWidth(s) / 2
	case alignRight:
		x -= textWidth(s)
	}
	drawText(dst, s, x, y, c)
}

// drawTextVertical draws s rotated 90° counter-clockwise (reading bottom to
// top), centred vertically at cy, its left edge at x.
func drawTextVertical(dst draw.Image, s string, x, cy int, c color.Color) {
	w := textWidth(s)
	if w == 0 {
		return
	}
	tmp := image.NewRGBA(image.Rect(0, 0, w, lineH))
	drawText(tmp, s, 0, 0, c)
	y0 := cy + w/2
	for ty := 0; ty < lineH; ty++ {
		for tx := 0; tx < w; tx++ {
			p := tmp.RGBAAt(tx, ty)
			if p.A == 0 {
				continue
			}
			// (tx, ty) -> (x + ty, y0 - tx)
			dst.Set(x+ty, y0-tx, p)
		}
	}
}

func fillRect(dst draw.Image, r image.Rectangle, c color.Color) {
	draw.Draw(dst, r, image.NewUniform(c), image.Point{}, draw.Src)
}

func hline(dst draw.Image, x0, x1, y int, c color.Color) {
	for x := min(x0, x1); x <= max(x0, x1); x++ {
		dst.Set(x, y, c)
	}
}

func vline(dst draw.Image, x, y0, y1 int, c color.Color) {
	for y := min(y0, y1); y <= max(y0, y1); y++ {
		dst.Set(x, y, c)
	}
}

func strokeRect(dst draw.Image, r image.Rectangle, c color.Color) {
	hline(dst, r.Min.X, r.Max.X-1, r.Min.Y, c)
	hline(dst, r.Min.X, r.Max.X-1, r.Max.Y-1, c)
	vline(dst, r.Min.X, r.Min.Y, r.Max.Y-1, c)
	vline(dst, r.Max.X-1, r.Min.Y, r.Max.Y-1, c)
}

// line draws a segment of the given width (1 or more pixels), clipped to clip.
func line(dst draw.Image, x0, y0, x1, y1 float64, width int, c color.Color, clip image.Rectangle) {
	dx, dy := x1-x0, y1-y0
	n := int(math.Ceil(math.Max(math.Abs(dx), math.Abs(dy))))
	if n > 1<<16 { // absurd coordinates: nothing sensible to draw
		return
	}
	h := width / 2
	for i := 0; i <= n; i++ {
		t := 0.0
		if n > 0 {
			t = float64(i) / float64(n)
		}
		x := int(math.Round(x0 + t*dx))
		y := int(math.Round(y0 + t*dy))
		for oy := -h; oy <= width-1-h; oy++ {
			for ox := -h; ox <= width-1-h; ox++ {
				p := image.Pt(x+ox, y+oy)
				if p.In(clip) {
					dst.Set(p.X, p.Y, c)
				}
			}
		}
	}
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

// niceStep returns a step of the form {1, 2, 2.5, 5} x 10^k close to
// (hi-lo)/n.
func niceStep(lo, hi float64, n int) float64 {
	raw := (hi - lo) / float64(max(n, 1))
	if !(raw > 0) || !finite(raw) {
		return 1
	}
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, f := range []float64{1, 2, 2.5, 5, 10} {
		if f*mag >= raw {
			return f * mag
		}
	}
	return 10 * mag
}

// niceRange widens [lo, hi] to multiples of a nice step and returns the
// ticks. A degenerate range is widened around its value.
func niceRange(lo, hi float64, n int) (nlo, nhi float64, ticks []float64) {
	nlo, nhi, ticks, _ = niceRangeStep(lo, hi, n)
	return nlo, nhi, ticks
}

// niceRangeStep is niceRange that also returns the step of the ticks.
func niceRangeStep(lo, hi float64, n int) (nlo, nhi float64, ticks []float64, step float64) {
	if !finite(lo) || !finite(hi) {
		lo, hi = 0, 1
	}
	if hi < lo {
		lo, hi = hi, lo
	}
	if hi == lo {
		w := math.Abs(lo) * 0.1
		if w == 0 {
			w = 0.5
		}
		lo, hi = lo-w, hi+w
	}
	step = niceStep(lo, hi, n)
	nlo = math.Floor(lo/step) * step
	nhi = math.Ceil(hi/step) * step
	for i := 0; ; i++ {
		t := nlo + float64(i)*step
		if t > nhi+step*1e-9 || i > 100 {
			break
		}
		if math.Abs(t) < step*1e-9 {
			t = 0
		}
		ticks = append(ticks, t)
	}
	return nlo, nhi, ticks, step
}

// tickLabel formats a tick value compactly, with as many decimals as the
// step needs.
func tickLabel(v, step float64) string {
	if v == 0 {
		return "0"
	}
	a := math.Abs(v)
	if a >= 1e5 || a < 1e-3 {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	dec := 0
	if step > 0 && step < 1 {
		dec = int(math.Ceil(-math.Log10(step) - 1e-9))
		if s := step * math.Pow(10, float64(dec)); math.Abs(s-math.Round(s)) > 1e-6 {
			dec++ // 2.5 x 10^-k needs one more
		}
	}
	return strconv.FormatFloat(v, 'f', min(dec, 6), 64)
}
