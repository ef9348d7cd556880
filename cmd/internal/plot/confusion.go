package plot

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Confusion draws a confusion matrix: counts[t][p] samples of true class
// t predicted as class p (rows of len(classes), or len(classes)+1 whose
// last column counts rejected samples: drawn only when there are some).
// Cells are coloured by their share of the row (on the diagonal: the
// recall of the class) and carry their count when there is room.
func Confusion(classes []string, counts [][]int) *Figure {
	nc := len(classes)
	cols := nc
	rejected := 0
	for _, row := range counts {
		if len(row) > nc {
			rejected += row[nc]
		}
	}
	names := append([]string(nil), classes...)
	if rejected > 0 {
		cols++
		names = append(names, "rejected")
	}
	n, correct := 0, 0
	frac := make([]float64, nc*cols)
	cnt := make([]int, nc*cols)
	for t := range nc {
		var row []int
		if t < len(counts) {
			row = counts[t]
		}
		sum := 0
		for p := range min(len(row), cols) {
			sum += row[p]
		}
		n += sum
		for p := range min(len(row), cols) {
			cnt[t*cols+p] = row[p]
			if sum > 0 {
				frac[t*cols+p] = float64(row[p]) / float64(sum)
			} else {
				frac[t*cols+p] = math.NaN()
			}
		}
		if t < len(row) {
			correct += row[t]
		}
	}
	title := "Confusion matrix (no samples)"
	if n > 0 {
		title = fmt.Sprintf("Confusion matrix: %d of %d correct (%.2f%%)", correct, n, 100*float64(correct)/float64(n))
	}
	if rejected > 0 {
		title += fmt.Sprintf(", %d rejected", rejected)
	}
	g := &grid{rows: nc, cols: cols, at: func(r, c int) float64 { return frac[r*cols+c] }}
	cm := brewerMap("Blues", 0, 1)
	hm := plotter.NewHeatMap(g, cm.Palette(256))
	hm.Min, hm.Max, hm.NaN = 0, 1, nanColor
	p := newPlot(title, "predicted class", "true class")
	p.Add(hm)
	xt := make(plot.ConstantTicks, 0, cols)
	every := max(1, (cols+59)/60)
	for c, s := range names {
		if c%every == 0 {
			xt = append(xt, plot.Tick{Value: float64(c), Label: s})
		}
	}
	p.X.Tick.Marker = xt
	p.Y.Tick.Marker = rowTicks(classes)
	fs := tickFont(max(nc, cols))
	p.X.Tick.Label.Font.Size, p.Y.Tick.Label.Font.Size = fs, fs
	long := 0
	for _, s := range names {
		long = max(long, len([]rune(s)))
	}
	if long*cols > 60 {
		// Names that would run into each other: rotated.
		p.X.Tick.Label.Rotation = math.Pi / 4
		p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	}
	if nc*cols <= 900 {
		addCellText(p, g, func(r, c int) string {
			if cnt[r*cols+c] == 0 {
				return ""
			}
			return fmt.Sprint(cnt[r*cols+c])
		}, func(r, c int) bool { return frac[r*cols+c] > 0.55 }, cellFont(max(nc, cols)))
	}
	side := vg.Length(math.Min(11, math.Max(5, 0.3*float64(cols)+2))) * vg.Inch
	return &Figure{Width: side + vg.Inch, Height: side, draw: func(c draw.Canvas) {
		drawWithColorBar(c, p, cm, "share of the row")
	}}
}
