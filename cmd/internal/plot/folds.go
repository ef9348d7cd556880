package plot

import (
	"fmt"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// FoldAccuracies is the bar chart of cross-validation's per-fold
// accuracies (fraction 0..1, in fold order, each written above its bar),
// with the mean as a dashed line and mean ± sd as dotted ones.
func FoldAccuracies(acc []float64, mean, sd float64) *Figure {
	n := len(acc)
	p := newPlot(fmt.Sprintf("Accuracy per fold (%d folds; mean %.4f ± %.4f sd)", n, mean, sd), "fold", "accuracy")
	barChart(p, acc, vg.Points(min(40, max(6, 400/float64(max(n, 1))))), 0, 0, n <= 30)
	for k, y := range []float64{mean - sd, mean, mean + sd} {
		if !finite(y) || (k != 1 && sd == 0) {
			continue
		}
		l, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: y}, {X: float64(n) - 0.5, Y: y}})
		if err != nil {
			continue
		}
		l.Color = seriesColor(1)
		l.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
		if k == 1 {
			l.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		}
		p.Add(l)
	}
	ticks := make(plot.ConstantTicks, 0, n)
	step := max(1, n/20)
	for i := 0; i < n; i += step {
		ticks = append(ticks, plot.Tick{Value: float64(i), Label: strconv.Itoa(i + 1)})
	}
	p.X.Tick.Marker = ticks
	p.X.Min, p.X.Max = -0.5, float64(n)-0.5
	p.Y.Min, p.Y.Max = 0, 1.05
	return &Figure{Width: 6 * vg.Inch, Height: 4 * vg.Inch, draw: func(c draw.Canvas) {
		p.Draw(draw.Crop(c, vg.Points(4), -vg.Points(12), vg.Points(4), -vg.Points(4)))
	}}
}
