package plot

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/brewer"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/grlgq/grlgq/model"
)

// angleTicks label x = 0, 1, ... as θ1, θ2, ... .
func angleTicks(d int) plot.ConstantTicks {
	t := make(plot.ConstantTicks, d)
	for k := range t {
		t[k] = plot.Tick{Value: float64(k), Label: fmt.Sprintf("θ%d", k+1)}
	}
	return t
}

// barChart is a bar chart of values at x = 0, 1, ... with each value
// written above its bar when there is room.
func barChart(p *plot.Plot, values []float64, width vg.Length, offset vg.Length, i int, labels bool) *plotter.BarChart {
	v := make(plotter.Values, len(values))
	for k, x := range values {
		if finite(x) {
			v[k] = x
		}
	}
	b, err := plotter.NewBarChart(v, width)
	if err != nil {
		return nil
	}
	b.Color = seriesColor(i)
	b.LineStyle.Width = 0
	b.Offset = offset
	p.Add(b)
	if labels {
		var xy plotter.XYLabels
		for k, x := range values {
			xy.XYs = append(xy.XYs, plotter.XY{X: float64(k), Y: v[k]})
			xy.Labels = append(xy.Labels, fmt.Sprintf("%.3g", x))
		}
		if l, err := plotter.NewLabels(xy); err == nil {
			for k := range l.TextStyle {
				l.TextStyle[k].XAlign = draw.XCenter
				l.TextStyle[k].Font.Size = 9
			}
			l.Offset = vg.Point{X: offset, Y: vg.Points(2)}
			p.Add(l)
		}
	}
	return b
}

// seriesColor is a colour-blind safe palette (Okabe–Ito).
func seriesColor(i int) color.Color {
	okabeIto := []color.RGBA{{0, 114, 178, 255}, {213, 94, 0, 255}, {0, 158, 115, 255}, {204, 121, 167, 255}, {230, 159, 0, 255}, {86, 180, 233, 255}, {0, 0, 0, 255}}
	return okabeIto[((i%len(okabeIto))+len(okabeIto))%len(okabeIto)]
}

// Relevances draws a model's relevance profile λ: one bar per principal
// angle for global (or fixed) relevances; for local relevances a map of
// every prototype's λ (prototypes down, angles across) above the mean
// over the prototypes.
func Relevances(m *model.Model) *Figure {
	d, lam := m.SubspaceDim(), m.Relevances()
	if len(lam) == d {
		title := "Relevance profile λ (θ1 the smallest principal angle)"
		if m.Config().Relevance == model.RelevanceNone {
			title = "Relevances λ = 1/d, fixed (GLGQ)"
		}
		p := newPlot(title, "principal angle", "relevance λ")
		barChart(p, lam, barWidth(d, 1), 0, 0, d <= 20)
		p.X.Tick.Marker = angleTicks(d)
		p.Y.Min = 0
		_, hi, _ := span(lam)
		p.Y.Max = hi * 1.1
		return &Figure{Width: 7 * vg.Inch, Height: 4.5 * vg.Inch, draw: func(c draw.Canvas) {
			p.Draw(draw.Crop(c, vg.Points(4), -vg.Points(8), vg.Points(4), -vg.Points(4)))
		}}
	}
	np := len(lam) / d
	mean := make([]float64, d)
	for k := range np {
		for i := range d {
			mean[i] += lam[k*d+i] / float64(np)
		}
	}
	// The map: one row per prototype, prototype 0 at the top.
	g := &grid{rows: np, cols: d, at: func(r, c int) float64 { return lam[r*d+c] }}
	// Around the uniform 1/d: blue below, red above.
	u := 1 / float64(d)
	dev := 0.0
	for _, v := range lam {
		dev = math.Max(dev, math.Abs(v-u))
	}
	dev = math.Max(dev, 1e-6)
	cm := diverging(dev)
	cm.SetMin(u - dev)
	cm.SetMax(u + dev)
	hm := plotter.NewHeatMap(g, cm.Palette(256))
	hm.Min, hm.Max = cm.Min(), cm.Max()
	hm.NaN = nanColor
	ph := newPlot(fmt.Sprintf("Local relevances λ of each of the %d prototypes", np), "principal angle", "prototype")
	ph.Add(hm)
	ph.X.Tick.Marker = angleTicks(d)
	names := make([]string, np)
	for k := range names {
		names[k] = fmt.Sprintf("W%d (%s)", k, className(m, m.Label(k)))
	}
	ph.Y.Tick.Marker = rowTicks(names)
	ph.Y.Tick.Label.Font.Size = tickFont(np)
	if np*d <= 120 {
		addCellText(ph, g, func(r, c int) string { return fmt.Sprintf("%.3f", lam[r*d+c]) }, func(r, c int) bool { return math.Abs(lam[r*d+c]-u) > 0.6*dev }, cellFont(max(np, d)))
	}
	pm := newPlot("Mean over the prototypes", "principal angle", "mean λ")
	barChart(pm, mean, barWidth(d, 1), 0, 0, d <= 20)
	pm.X.Tick.Marker = angleTicks(d)
	pm.Y.Min = 0
	_, mh, _ := span(mean)
	pm.Y.Max = mh * 1.15
	mapH := vg.Length(math.Min(14, math.Max(3, 0.22*float64(np)+1.2))) * vg.Inch
	return &Figure{Width: 8 * vg.Inch, Height: mapH + 3*vg.Inch, draw: func(c draw.Canvas) {
		bottom := draw.Crop(c, 0, 0, 0, -mapH)
		top := draw.Crop(c, 0, 0, c.Max.Y-c.Min.Y-mapH, 0)
		drawWithColorBar(top, ph, cm, fmt.Sprintf("λ (gray: 1/d = %.3g)", u))
		pm.Draw(draw.Crop(bottom, vg.Points(4), -vg.Inch, vg.Points(4), -vg.Points(10)))
	}}
}

// barWidth is the width of one of n bars in each of d groups.
func barWidth(d, n int) vg.Length {
	w := vg.Length(360/max(d, 1)) / vg.Length(n) * 0.8
	return max(min(w, vg.Points(40)), vg.Points(2))
}

// tickFont is the size of row labels for n rows.
func tickFont(n int) vg.Length {
	switch {
	case n > 40:
		return 6
	case n > 20:
		return 8
	}
	return 10
}

// cellFont is the size of text in the cells of an n x n map.
func cellFont(n int) vg.Length {
	switch {
	case n > 20:
		return 6
	case n > 10:
		return 8
	}
	return 10
}

// drawWithColorBar draws p in c with a colour bar of cm on its right.
func drawWithColorBar(c draw.Canvas, p *plot.Plot, cm palette.ColorMap, label string) {
	barW := vg.Inch
	p.Draw(draw.Crop(c, vg.Points(4), -barW, vg.Points(4), -vg.Points(4)))
	r := c.Rectangle
	r.Min.X = r.Max.X - barW + vg.Points(10)
	r.Max.X -= vg.Points(8)
	r.Min.Y += vg.Points(40)
	r.Max.Y -= vg.Points(24)
	drawColorBar(c, r, cm, label)
}

// grid is a plotter.GridXYZ over a rows x cols array whose row 0 is drawn
// at the top (y = rows-1).
type grid struct {
	rows, cols int
	at         func(r, c int) float64
}

func (g *grid) Dims() (c, r int)    { return g.cols, g.rows }
func (g *grid) Z(c, r int) float64  { return g.at(g.rows-1-r, c) }
func (g *grid) X(c int) float64     { return float64(c) }
func (g *grid) Y(r int) float64     { return float64(r) }
func (g *grid) row(y float64) int   { return g.rows - 1 - int(math.Round(y)) }
func (g *grid) yOf(row int) float64 { return float64(g.rows - 1 - row) }

var _ plotter.GridXYZ = (*grid)(nil)

// rowTicks label rows (row 0 at the top) by name, skipping some when
// there are too many to read.
func rowTicks(names []string) plot.ConstantTicks {
	n := len(names)
	every := max(1, (n+59)/60)
	var t plot.ConstantTicks
	for i, s := range names {
		if i%every == 0 {
			t = append(t, plot.Tick{Value: float64(n - 1 - i), Label: s})
		}
	}
	return t
}

// addCellText writes text(r, c) into every cell of g, white where dark(r,
// c).
func addCellText(p *plot.Plot, g *grid, text func(r, c int) string, dark func(r, c int) bool, size vg.Length) {
	for _, white := range []bool{false, true} {
		var xy plotter.XYLabels
		for r := range g.rows {
			for c := range g.cols {
				if dark(r, c) != white {
					continue
				}
				xy.XYs = append(xy.XYs, plotter.XY{X: float64(c), Y: g.yOf(r)})
				xy.Labels = append(xy.Labels, text(r, c))
			}
		}
		if len(xy.Labels) == 0 {
			continue
		}
		l, err := plotter.NewLabels(xy)
		if err != nil {
			continue
		}
		for k := range l.TextStyle {
			l.TextStyle[k].XAlign, l.TextStyle[k].YAlign = draw.XCenter, draw.YCenter
			l.TextStyle[k].Font.Size = size
			if white {
				l.TextStyle[k].Color = color.White
			}
		}
		p.Add(l)
	}
}

// brewerMap is a sequential ColorBrewer palette as a colour map on
// [lo, hi].
func brewerMap(name string, lo, hi float64) palette.ColorMap {
	p, err := brewer.GetPalette(brewer.TypeSequential, name, 9)
	if err != nil {
		return newGray(lo, hi)
	}
	return &stepMap{colors: p.Colors(), min: lo, max: hi}
}

// stepMap interpolates linearly between the colours of a palette.
type stepMap struct {
	colors   []color.Color
	min, max float64
}

func (s *stepMap) At(v float64) (color.Color, error) {
	if !finite(v) {
		return nanColor, nil
	}
	t := (v - s.min) / (s.max - s.min)
	t = math.Max(0, math.Min(1, t)) * float64(len(s.colors)-1)
	i := min(int(t), len(s.colors)-2)
	f := t - float64(i)
	a, b := color.RGBAModel.Convert(s.colors[i]).(color.RGBA), color.RGBAModel.Convert(s.colors[i+1]).(color.RGBA)
	mix := func(x, y uint8) uint8 { return uint8(math.Round(float64(x) + f*(float64(y)-float64(x)))) }
	return color.RGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 255}, nil
}
func (s *stepMap) Max() float64                  { return s.max }
func (s *stepMap) SetMax(v float64)              { s.max = v }
func (s *stepMap) Min() float64                  { return s.min }
func (s *stepMap) SetMin(v float64)              { s.min = v }
func (s *stepMap) Alpha() float64                { return 1 }
func (s *stepMap) SetAlpha(float64)              {}
func (s *stepMap) Palette(n int) palette.Palette { return colorMapPalette(s, n) }
