package plot

import (
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/grlgq/grlgq/model"
)

// line adds a line with point markers (up to 60 points) named name to p;
// NaN and ±Inf points break it.
func line(p *plot.Plot, name string, x, y []float64, i int, dashed bool) {
	col := seriesColor(i)
	var first *plotter.Line
	var firstS *plotter.Scatter
	seg := plotter.XYs{}
	flush := func() {
		if len(seg) == 0 {
			return
		}
		l, err := plotter.NewLine(seg)
		if err != nil {
			return
		}
		l.Color, l.Width = col, vg.Points(1.5)
		if dashed {
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		p.Add(l)
		if len(x) <= 60 {
			s, err := plotter.NewScatter(seg)
			if err == nil {
				s.Color, s.Shape, s.Radius = col, plotutil.Shape(i), vg.Points(2.5)
				p.Add(s)
				if firstS == nil {
					firstS = s
				}
			}
		}
		if first == nil {
			first = l
		}
		seg = plotter.XYs{}
	}
	for j := range min(len(x), len(y)) {
		if !finite(x[j]) || !finite(y[j]) {
			flush()
			continue
		}
		seg = append(seg, plotter.XY{X: x[j], Y: y[j]})
	}
	flush()
	if first != nil && name != "" {
		if firstS != nil {
			p.Legend.Add(name, first, firstS)
		} else {
			p.Legend.Add(name, first)
		}
	}
}

// epochTicks are integer ticks on the epoch axis.
type epochTicks struct{}

func (epochTicks) Ticks(lo, hi float64) []plot.Tick {
	n := hi - lo
	step := 1.0
	for _, s := range []float64{1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10000} {
		step = s
		if n/s <= 10 {
			break
		}
	}
	var t []plot.Tick
	for v := math.Ceil(lo/step) * step; v <= hi+1e-9; v += step {
		t = append(t, plot.Tick{Value: v, Label: fmt.Sprint(v)})
	}
	return t
}

// stack draws plots one under another, with aligned axes, under a title.
func stack(c draw.Canvas, title string, plots ...*plot.Plot) {
	c = drawTitle(c, title, 14)
	rows := make([][]*plot.Plot, len(plots))
	for i, p := range plots {
		rows[i] = []*plot.Plot{p}
	}
	t := draw.Tiles{Rows: len(plots), Cols: 1, PadX: vg.Points(4), PadY: vg.Points(14), PadTop: vg.Points(2), PadBottom: vg.Points(4), PadLeft: vg.Points(4), PadRight: vg.Points(10)}
	cs := plot.Align(rows, t, c)
	for i, p := range plots {
		p.Draw(cs[i][0])
	}
}

// LearningCurves draws the cost per epoch above the training (running)
// and validation accuracy per epoch, in percent, with the epoch whose model
// was kept marked when that is not the last. The accuracy axis reaches a
// little above 100% so that a saturated curve stays visible.
func LearningCurves(h *model.History) *Figure {
	pc, pa := learningPlots(h)
	return &Figure{Width: 8 * vg.Inch, Height: 7 * vg.Inch, draw: func(c draw.Canvas) {
		stack(c, "", pc, pa)
	}}
}

// learningPlots are LearningCurves' cost and accuracy plots.
func learningPlots(h *model.History) (cost, acc *plot.Plot) {
	n := len(h.Epochs)
	x := make([]float64, n)
	costs, tacc, vacc := make([]float64, n), make([]float64, n), make([]float64, n)
	hasVal := false
	for i, s := range h.Epochs {
		x[i] = float64(s.Epoch)
		costs[i], tacc[i], vacc[i] = s.Cost, 100*s.TrainAccuracy, 100*s.ValAccuracy
		hasVal = hasVal || finite(s.ValAccuracy)
	}
	xlo, xhi, ok := span(x)
	if !ok {
		xlo, xhi = 0, 1
	}
	if xhi-xlo < 1 {
		xlo, xhi = xlo-0.5, xhi+0.5
	}
	pad := 0.02 * (xhi - xlo)

	pc := newPlot("Cost: mean φ(μ) per epoch, μ = (d+ − d−)/(d+ + d−)", "", "cost")
	line(pc, "training cost", x, costs, 0, false)
	pc.Legend.Top = true

	pa := newPlot("Accuracy per epoch", "epoch", "accuracy (%)")
	line(pa, "training (running, during the epoch)", x, tacc, 1, false)
	var vals []float64
	vals = append(vals, tacc...)
	if hasVal {
		line(pa, "validation (after the epoch)", x, vacc, 2, false)
		vals = append(vals, vacc...)
	}
	if h.Averaged > 0 && finite(h.AveragedValAccuracy) && n > 0 {
		v := 100 * h.AveragedValAccuracy
		s, err := plotter.NewScatter(plotter.XYs{{X: x[n-1], Y: v}})
		if err == nil {
			s.Shape, s.Color, s.Radius = draw.CrossGlyph{}, color.Black, vg.Points(4)
			pa.Add(s)
			pa.Legend.Add(fmt.Sprintf("average of the last %d epochs' models (validation)", h.Averaged), s)
			vals = append(vals, v)
		}
	}
	lo, _, ok := span(vals)
	if !ok {
		lo = 0
	}
	// From a round value below the lowest point to just above 100%.
	step := 10.0
	if lo > 90 {
		step = 2
	} else if lo > 70 {
		step = 5
	}
	pa.Y.Min = math.Max(0, math.Floor((lo-0.5)/step)*step)
	pa.Y.Max = 100 + 0.04*(100-pa.Y.Min)
	pa.Y.Tick.Marker = capTicks{max: 100}
	if h.Best >= 0 && h.Best < n-1 {
		b := x[h.Best]
		l, err := plotter.NewLine(plotter.XYs{{X: b, Y: pa.Y.Min}, {X: b, Y: 100}})
		if err == nil {
			l.Color, l.Dashes, l.Width = color.Gray{Y: 90}, []vg.Length{vg.Points(3), vg.Points(3)}, vg.Points(1)
			pa.Add(l)
			pa.Legend.Add(fmt.Sprintf("epoch %d: the model kept", h.Epochs[h.Best].Epoch), l)
		}
	}
	pa.Legend.Top = false
	pa.Legend.Left = false
	pa.Legend.YOffs = vg.Points(4)
	for _, p := range []*plot.Plot{pc, pa} {
		p.X.Min, p.X.Max = xlo-pad, xhi+pad
		p.X.Tick.Marker = epochTicks{}
		p.Legend.TextStyle.Font.Size = 10
		p.Legend.Padding = vg.Points(4)
	}
	return pc, pa
}

// capTicks are the default ticks without those above max (the padding
// above 100% gets no label).
type capTicks struct{ max float64 }

func (t capTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, tk := range (plot.DefaultTicks{}).Ticks(lo, hi) {
		if tk.Value <= t.max+1e-9 {
			out = append(out, tk)
		}
	}
	return out
}

// RelevanceHistory draws the relevances λ_k after each epoch, one line per
// principal angle; for local relevances (p vectors of d) the mean over the
// prototypes. It returns nil when the history recorded no relevances.
func RelevanceHistory(h *model.History, d int) *Figure {
	var x []float64
	var lam [][]float64 // [angle][epoch]
	local := false
	for _, s := range h.Epochs {
		if d <= 0 || len(s.Relevances) < d || len(s.Relevances)%d != 0 {
			continue
		}
		if lam == nil {
			lam = make([][]float64, d)
		}
		p := len(s.Relevances) / d
		local = local || p > 1
		x = append(x, float64(s.Epoch))
		for k := range d {
			var v float64
			for j := range p {
				v += s.Relevances[j*d+k]
			}
			lam[k] = append(lam[k], v/float64(p))
		}
	}
	if len(x) == 0 {
		return nil
	}
	title := "Relevances λk after each epoch (θ1 the smallest angle)"
	if local {
		title = "Mean over the prototypes of the local relevances λ_k after each epoch"
	}
	p := newPlot(title, "epoch", "relevance λ")
	for k := range d {
		line(p, fmt.Sprintf("λ%d (θ%d)", k+1, k+1), x, lam[k], k, k >= 7)
	}
	p.X.Tick.Marker = epochTicks{}
	lo, hi, _ := span(x)
	if hi-lo < 1 {
		lo, hi = lo-0.5, hi+0.5
	}
	p.X.Min, p.X.Max = lo, hi
	p.Legend.TextStyle.Font.Size = 10
	p.Legend.Padding = vg.Points(3)
	if d > 12 {
		p.Legend.TextStyle.Font.Size = 7
	}
	return &Figure{Width: 8.5 * vg.Inch, Height: 4.5 * vg.Inch, draw: func(c draw.Canvas) {
		drawLegendRight(c, p)
	}}
}

// drawLegendRight draws p in c with its legend in a column on the right,
// outside the data.
func drawLegendRight(c draw.Canvas, p *plot.Plot) {
	l := p.Legend
	p.Legend = plot.NewLegend()
	l.Top, l.Left = true, true
	w := l.Rectangle(c).Size().X + vg.Points(16)
	p.Draw(draw.Crop(c, vg.Points(4), -w, vg.Points(4), -vg.Points(4)))
	lc := draw.Crop(c, c.Max.X-c.Min.X-w+vg.Points(10), 0, 0, -vg.Points(40))
	l.Draw(lc)
	p.Legend = l
}
