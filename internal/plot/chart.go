package plot

import (
	"image"
	"image/color"
	"math"
)

// Series is one line of a LineChart. X may be nil (then x = 1, 2, ...).
// A NaN or ±Inf point breaks the line.
type Series struct {
	Name string
	X, Y []float64
	// Color overrides the palette colour when its alpha is non-zero.
	Color color.RGBA
	// Dashed draws the line dashed (e.g. a reference level).
	Dashed bool
}

// LineChart is a chart of lines against a common x axis.
type LineChart struct {
	Title, XLabel, YLabel string
	Series                []Series
	// Width and Height of the picture in pixels (default 640 x 400).
	Width, Height int
	// YMin, YMax fix the y range when YFixed is set (e.g. accuracy in
	// [0, 1]); otherwise the range follows the data.
	YFixed     bool
	YMin, YMax float64
	// Markers draws a dot at each point (default: when a series has at
	// most 40 points).
	NoMarkers bool
}

// frame holds the layout shared by line and bar charts.
type frame struct {
	img                   *image.RGBA
	plot                  image.Rectangle // inner plotting area
	xlo, xhi, ylo, yhi    float64
	xticks, yticks        []float64
	xstep, ystep          float64
	title, xlabel, ylabel string
}

func (f *frame) px(x float64) float64 {
	return float64(f.plot.Min.X) + (x-f.xlo)/(f.xhi-f.xlo)*float64(f.plot.Dx()-1)
}

func (f *frame) py(y float64) float64 {
	return float64(f.plot.Max.Y-1) - (y-f.ylo)/(f.yhi-f.ylo)*float64(f.plot.Dy()-1)
}

// newFrame lays out a chart of w x h pixels. yTickLabels decides the left
// margin.
func newFrame(w, h int, title, xlabel, ylabel string, ylo, yhi float64, yticks []float64, ystep float64) *frame {
	if w <= 0 {
		w = 640
	}
	if h <= 0 {
		h = 400
	}
	w, h = max(w, 160), max(h, 120)
	f := &frame{img: image.NewRGBA(image.Rect(0, 0, w, h)), ylo: ylo, yhi: yhi, yticks: yticks, ystep: ystep,
		title: title, xlabel: xlabel, ylabel: ylabel}
	fillRect(f.img, f.img.Bounds(), White)
	lw := 0
	for _, t := range yticks {
		lw = max(lw, textWidth(tickLabel(t, ystep)))
	}
	left := padding + lw + 6
	if ylabel != "" {
		left += lineH + 4
	}
	top := padding
	if title != "" {
		top += lineH + 6
	} else {
		top += lineH / 2
	}
	bottom := padding + lineH + 6
	if xlabel != "" {
		bottom += lineH + 4
	}
	right := padding + 2*charW
	f.plot = image.Rect(left, top, w-right, h-bottom)
	return f
}

// axes draws the title, grid, ticks, labels and frame. xTick labels come
// from xlabelOf (nil: numeric).
func (f *frame) axes(xlabelOf func(float64) string) {
	img, r := f.img, f.plot
	if f.title != "" {
		drawTextAligned(img, f.title, (r.Min.X+r.Max.X)/2, padding, alignCenter, Black)
	}
	for _, t := range f.yticks {
		y := int(math.Round(f.py(t)))
		hline(img, r.Min.X, r.Max.X-1, y, GridGray)
		hline(img, r.Min.X-4, r.Min.X-1, y, Black)
		drawTextAligned(img, tickLabel(t, f.ystep), r.Min.X-7, y-lineH/2, alignRight, TextGray)
	}
	lastRight := math.MinInt
	for _, t := range f.xticks {
		x := int(math.Round(f.px(t)))
		vline(img, x, r.Min.Y, r.Max.Y-1, GridGray)
		vline(img, x, r.Max.Y, r.Max.Y+3, Black)
		s := ""
		if xlabelOf != nil {
			s = xlabelOf(t)
		} else {
			s = tickLabel(t, f.xstep)
		}
		tw := textWidth(s)
		if x-tw/2 > lastRight+4 { // skip labels that would overlap
			drawTextAligned(img, s, x, r.Max.Y+5, alignCenter, TextGray)
			lastRight = x + tw/2
		}
	}
	strokeRect(img, image.Rect(r.Min.X-1, r.Min.Y-1, r.Max.X+1, r.Max.Y+1), Black)
	if f.xlabel != "" {
		drawTextAligned(img, f.xlabel, (r.Min.X+r.Max.X)/2, r.Max.Y+lineH+9, alignCenter, Black)
	}
	if f.ylabel != "" {
		drawTextVertical(img, f.ylabel, padding, (r.Min.Y+r.Max.Y)/2, Black)
	}
}

// legend draws a box with one swatch per named entry in the corner of the
// plotting area that hides the fewest of the points pts (pixel coordinates).
func (f *frame) legend(names []string, colors []color.RGBA, pts []image.Point) {
	w, n := 0, 0
	for _, s := range names {
		if s != "" {
			w = max(w, textWidth(s))
			n++
		}
	}
	if n == 0 {
		return
	}
	bw, bh := w+30, n*(lineH+3)+6
	p := f.plot
	corners := []image.Rectangle{
		image.Rect(p.Max.X-bw-6, p.Min.Y+6, p.Max.X-6, p.Min.Y+6+bh), // top right
		image.Rect(p.Max.X-bw-6, p.Max.Y-6-bh, p.Max.X-6, p.Max.Y-6), // bottom right
		image.Rect(p.Min.X+6, p.Min.Y+6, p.Min.X+6+bw, p.Min.Y+6+bh), // top left
		image.Rect(p.Min.X+6, p.Max.Y-6-bh, p.Min.X+6+bw, p.Max.Y-6), // bottom left
	}
	r, best := corners[0], -1
	for _, c := range corners {
		hit := 0
		for _, q := range pts {
			if q.In(c.Inset(-4)) {
				hit++
			}
		}
		if best < 0 || hit < best {
			r, best = c, hit
		}
	}
	fillRect(f.img, r, White)
	strokeRect(f.img, r, TextGray)
	y := r.Min.Y + 4
	for i, s := range names {
		if s == "" {
			continue
		}
		col := SeriesColor(i)
		if i < len(colors) {
			col = colors[i]
		}
		fillRect(f.img, image.Rect(r.Min.X+5, y+4, r.Min.X+19, y+9), col)
		drawText(f.img, s, r.Min.X+24, y, Black)
		y += lineH + 3
	}
}

// Render draws the chart.
func (c *LineChart) Render() *image.RGBA {
	var xs, ys [][]float64
	for _, s := range c.Series {
		xs = append(xs, xsOf(s))
		ys = append(ys, s.Y)
	}
	var ylo, yhi float64
	if c.YFixed && finite(c.YMin) && finite(c.YMax) && c.YMax > c.YMin {
		ylo, yhi = c.YMin, c.YMax
	} else {
		var ok bool
		ylo, yhi, ok = span(ys...)
		if !ok {
			ylo, yhi = 0, 1
		}
	}
	ylo, yhi, yticks, ystep := niceRangeStep(ylo, yhi, 5)
	if c.YFixed && finite(c.YMin) && finite(c.YMax) && c.YMax > c.YMin {
		ylo, yhi = c.YMin, c.YMax
		yticks = yticks[:0]
		ystep = niceStep(ylo, yhi, 5)
		for t := math.Ceil(ylo/ystep) * ystep; t <= yhi+ystep*1e-9; t += ystep {
			yticks = append(yticks, t)
		}
	}
	f := newFrame(c.Width, c.Height, c.Title, c.XLabel, c.YLabel, ylo, yhi, yticks, ystep)
	xlo, xhi, ok := span(xs...)
	if !ok {
		xlo, xhi = 0, 1
	}
	integer := true
	for _, x := range xs {
		for _, v := range x {
			if finite(v) && v != math.Trunc(v) {
				integer = false
			}
		}
	}
	n := max(2, min(10, f.plot.Dx()/60))
	if xlo == xhi {
		xlo, xhi = xlo-1, xhi+1
	}
	f.xstep = niceStep(xlo, xhi, n)
	if integer {
		f.xstep = math.Max(1, math.Round(f.xstep))
	}
	f.xlo, f.xhi = xlo, xhi
	for t := math.Ceil(xlo/f.xstep) * f.xstep; t <= xhi+f.xstep*1e-9; t += f.xstep {
		f.xticks = append(f.xticks, t)
	}
	f.axes(nil)

	names := make([]string, len(c.Series))
	colors := make([]color.RGBA, len(c.Series))
	clip := f.plot.Inset(-1)
	var pts []image.Point
	for i, s := range c.Series {
		col := SeriesColor(i)
		if s.Color.A != 0 {
			col = s.Color
		}
		names[i], colors[i] = s.Name, col
		x := xs[i]
		m := min(len(x), len(s.Y))
		markers := !c.NoMarkers && m <= 40
		prev := -1
		for j := 0; j < m; j++ {
			if !finite(x[j]) || !finite(s.Y[j]) {
				prev = -1
				continue
			}
			if prev >= 0 && !(s.Dashed && j%2 == 1) {
				line(f.img, f.px(x[prev]), f.py(s.Y[prev]), f.px(x[j]), f.py(s.Y[j]), 2, col, clip)
			}
			cx, cy := f.px(x[j]), f.py(s.Y[j])
			pts = append(pts, image.Pt(int(cx), int(cy)))
			if prev >= 0 { // the segment's midpoint, so long segments count too
				pts = append(pts, image.Pt(int((cx+f.px(x[prev]))/2), int((cy+f.py(s.Y[prev]))/2)))
			}
			if markers {
				fillRect(f.img, image.Rect(int(cx)-2, int(cy)-2, int(cx)+3, int(cy)+3).Intersect(clip), col)
			}
			prev = j
		}
	}
	f.legend(names, colors, pts)
	return f.img
}

func xsOf(s Series) []float64 {
	if s.X != nil {
		return s.X
	}
	x := make([]float64, len(s.Y))
	for i := range x {
		x[i] = float64(i + 1)
	}
	return x
}

// BarChart draws groups of bars: one group per category (Labels), one bar
// per series in each group.
type BarChart struct {
	Title, XLabel, YLabel string
	// Labels name the categories along the x axis (e.g. "θ1", "θ2", ...).
	Labels []string
	// Values[s][i] is series s's value for category i; SeriesNames name
	// the series in the legend (may be nil for a single series).
	Values      [][]float64
	SeriesNames []string
	// Width and Height of the picture in pixels (default 640 x 400).
	Width, Height int
	// ValueLabels prints each bar's value above it when there is room.
	ValueLabels bool
}

// Render draws the chart.
func (c *BarChart) Render() *image.RGBA {
	ncat := len(c.Labels)
	for _, v := range c.Values {
		ncat = max(ncat, len(v))
	}
	lo, hi, ok := span(c.Values...)
	if !ok {
		lo, hi = 0, 1
	}
	lo, hi = math.Min(lo, 0), math.Max(hi, 0)
	if c.ValueLabels {
		hi += (hi - lo) * 0.08 // room for the labels
	}
	if n := len(c.SeriesNames); n > 0 {
		// Room above the bars for the legend: its height as a fraction of
		// the (approximate) plotting height.
		h := c.Height
		if h <= 0 {
			h = 400
		}
		f := float64(n*(lineH+3)+20) / float64(max(h-70, 50))
		if f < 0.8 {
			hi += (hi - lo) * f / (1 - f)
		}
	}
	lo, hi, yticks, ystep := niceRangeStep(lo, hi, 5)
	f := newFrame(c.Width, c.Height, c.Title, c.XLabel, c.YLabel, lo, hi, yticks, ystep)
	f.xlo, f.xhi = 0, float64(max(ncat, 1))
	// Category i occupies [i, i+1); ticks at centres.
	for i := 0; i < ncat; i++ {
		f.xticks = append(f.xticks, float64(i)+0.5)
	}
	labelOf := func(t float64) string {
		i := int(t)
		if i >= 0 && i < len(c.Labels) {
			return c.Labels[i]
		}
		return ""
	}
	// Draw the grid and frame without vertical grid lines for bars.
	xt := f.xticks
	f.xticks = nil
	f.axes(nil)
	f.xticks = xt
	last := math.MinInt
	for _, t := range f.xticks {
		x := int(math.Round(f.px(t)))
		vline(f.img, x, f.plot.Max.Y, f.plot.Max.Y+3, Black)
		s := labelOf(t)
		tw := textWidth(s)
		if x-tw/2 > last+4 {
			drawTextAligned(f.img, s, x, f.plot.Max.Y+5, alignCenter, TextGray)
			last = x + tw/2
		}
	}
	ns := max(len(c.Values), 1)
	slot := float64(f.plot.Dx()) / float64(max(ncat, 1))
	groupW := slot * 0.8
	barW := groupW / float64(ns)
	y0 := f.py(0)
	colors := make([]color.RGBA, len(c.Values))
	var pts []image.Point
	for s, vals := range c.Values {
		col := SeriesColor(s)
		colors[s] = col
		for i, v := range vals {
			x0 := float64(f.plot.Min.X) + float64(i)*slot + (slot-groupW)/2 + float64(s)*barW
			x1 := x0 + math.Max(barW-1, 1)
			if !finite(v) {
				// An empty bar with a gray outline marks a missing value.
				strokeRect(f.img, image.Rect(int(x0), int(y0)-8, int(x1), int(y0)+1), EmptyGray)
				continue
			}
			y := f.py(v)
			r := image.Rect(int(math.Round(x0)), int(math.Round(math.Min(y, y0))), int(math.Round(x1)), int(math.Round(math.Max(y, y0)))+1)
			fillRect(f.img, r.Intersect(f.plot), col)
			for py := r.Min.Y; py <= r.Max.Y; py += 8 { // the legend avoids the bars
				for px := r.Min.X; px <= r.Max.X; px += 8 {
					pts = append(pts, image.Pt(px, py))
				}
			}
			if c.ValueLabels {
				s := tickLabel(v, math.Abs(v)/100)
				if len(s) > 6 {
					s = formatShort(v)
				}
				if textWidth(s) <= int(slot) {
					cx := int((x0 + x1) / 2)
					ty := r.Min.Y - lineH - 1
					if v < 0 {
						ty = r.Max.Y + 1
					}
					drawTextAligned(f.img, s, cx, ty, alignCenter, TextGray)
				}
			}
		}
	}
	if lo < 0 {
		hline(f.img, f.plot.Min.X, f.plot.Max.X-1, int(math.Round(y0)), Black)
	}
	if len(c.SeriesNames) > 0 {
		f.legend(c.SeriesNames, colors, pts)
	}
	return f.img
}

func formatShort(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 100:
		return formatF(v, 0)
	case a >= 10:
		return formatF(v, 1)
	case a >= 0.01:
		return formatF(v, 3)
	default:
		return formatG(v)
	}
}
