package plot

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Tuning is the bar chart of a tuner's table: one horizontal bar per
// setting (names[i], top to bottom in order) at its mean cross-validation
// accuracy, with a ± sd whisker; the chosen setting (best) is drawn in a
// second colour.
func Tuning(names []string, mean, sd []float64, best, folds int) *Figure {
	n := len(names)
	p := newPlot(fmt.Sprintf("Settings by %d-fold cross-validation (mean ± sd; the chosen one highlighted)", folds), "accuracy", "")
	vals := make(plotter.Values, n)
	chosen := make(plotter.Values, n)
	errs := make(plotter.XErrors, n)
	pts := make(plotter.XYs, n)
	for i := range n {
		y := n - 1 - i // first setting at the top
		v := 0.0
		if finite(mean[i]) {
			v = mean[i]
		}
		if i == best {
			chosen[y] = v
		} else {
			vals[y] = v
		}
		s := 0.0
		if finite(sd[i]) {
			s = sd[i]
		}
		errs[y].Low, errs[y].High = s, s
		pts[y].X, pts[y].Y = v, float64(y)
	}
	w := vg.Points(min(14, max(4, 300/float64(max(n, 1)))))
	for k, v := range []plotter.Values{vals, chosen} {
		b, err := plotter.NewBarChart(v, w)
		if err != nil {
			continue
		}
		b.Horizontal = true
		b.LineStyle.Width = 0
		b.Color = seriesColor(k)
		p.Add(b)
	}
	if e, err := plotter.NewXErrorBars(struct {
		plotter.XYer
		plotter.XErrorer
	}{pts, errs}); err == nil {
		e.Color = color.Black
		p.Add(e)
	}
	ticks := make(plot.ConstantTicks, n)
	for i, name := range names {
		ticks[n-1-i] = plot.Tick{Value: float64(n - 1 - i), Label: name}
	}
	p.Y.Tick.Marker = ticks
	p.Y.Tick.Label.Font.Size = vg.Points(min(9, max(5, 400/float64(max(n, 1)))))
	p.X.Min, p.X.Max = 0, 1
	h := vg.Points(float64(max(n, 4))*16 + 100)
	return &Figure{Width: 10 * vg.Inch, Height: h, draw: func(c draw.Canvas) {
		p.Draw(draw.Crop(c, vg.Points(4), -vg.Points(12), vg.Points(4), -vg.Points(4)))
	}}
}
