package plot

import (
	"fmt"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/grlgq/grlgq/model"
)

// Tile is one captioned image: Height x Width values, row-major.
type Tile struct {
	Caption string
	Values  []float64
}

// Sample is what an explanation page shows of the explained sample.
type Sample struct {
	// Title heads the page (the sample's name, its true and predicted
	// class, ...).
	Title string
	// Images are the images of the sample to draw (the image itself, or
	// some images of a set), at most 5; each is drawn in gray on its own
	// range.
	Images []Tile
	// Height and Width are the images' shape (Height*Width = D).
	Height, Width int
}

// matrix is what the pictures read of the model's matrices (a
// *linalg.Dense): the package draws, it does no linear algebra.
type matrix interface {
	Dims() (rows, cols int)
	At(i, j int) float64
}

// column returns column j of a (a copy).
func column(a matrix, j int) []float64 {
	rows, _ := a.Dims()
	out := make([]float64, rows)
	for r := range out {
		out[r] = a.At(r, j)
	}
	return out
}

// Explanation draws the explanation of one sample: its images; for a set,
// the map M of how much each of its images builds each principal vector
// u_i; then one row per principal angle θ_i with the data's principal
// vector u_i and the prototype's v_i, and the pixel maps u_i∘v_i of W⁺
// and W⁻ and their difference on a common scale; last the contributions
// λ_k θ_k² (a chordal model's λ_k sin²θ_k) of every angle to d⁺ and d⁻.
func Explanation(m *model.Model, ex *model.Explanation, s Sample) *Figure {
	h, w := s.Height, s.Width
	nang := len(ex.Plus.Angles)
	plusName, minusName := className(m, ex.Plus.Class), className(m, ex.Minus.Class)
	var (
		tile   = 1.15 * vg.Inch
		gap    = vg.Points(6)
		capH   = vg.Points(12)
		rowH   = tile + capH + vg.Points(8)
		barW   = 0.8 * vg.Inch
		margin = vg.Points(10)
		mapH   = 2 * vg.Inch
		barsH  = 2.8 * vg.Inch
	)
	width := 2*margin + 5*tile + 4*gap + 2*barW + 2*gap
	sub := fmt.Sprintf("μ = %+.3f (< 0: classified as %s)    d+ = %.4g (W%d, class %s)    d− = %.4g (W%d, class %s)",
		ex.Mu, className(m, ex.Label), ex.Plus.Distance, ex.Plus.Prototype, plusName, ex.Minus.Distance, ex.Minus.Prototype, minusName)
	mc := ex.Plus.ImageContributions
	var mplot *plot.Plot
	mcm := diverging(1)
	if mc != nil && mc.Rows > 0 && mc.Cols > 0 {
		mplot, mcm = contributionMap(mc)
	}
	height := vg.Points(46) + rowH + vg.Length(nang)*rowH + barsH + margin
	if mplot != nil {
		height += mapH
	}
	bars := contributionBars(ex, m.Config().Distance, plusName, minusName)
	return &Figure{Width: width, Height: height, draw: func(c draw.Canvas) {
		body := drawTitle(c, s.Title, 12)
		body = drawTitle(body, sub, 10)
		x0, y := c.Min.X+margin, body.Max.Y-vg.Points(2)
		// The sample.
		if len(s.Images) == 0 {
			c.FillText(textStyle(10, draw.XLeft, draw.YTop), vg.Point{X: x0, Y: y - capH}, "(a precomputed basis: no images to show)")
		}
		for i, t := range s.Images[:min(len(s.Images), 5)] {
			drawTile(c, rect(x0+vg.Length(i)*(tile+gap), y, tile, rowH-vg.Points(8)), t.Caption, tileImage(t.Values, h, w, grayRange(t.Values)))
		}
		y -= rowH
		if mplot != nil {
			r := rect(c.Min.X, y, c.Max.X-c.Min.X, mapH)
			drawWithColorBar(draw.Canvas{Canvas: c.Canvas, Rectangle: r}, mplot, mcm, "weight")
			y -= mapH
		}
		// One row per principal angle.
		for a := range nang {
			u, vp := column(ex.Plus.U, a), column(ex.Plus.V, a)
			mp, mm, df := column(ex.Plus.PixelMaps, a), column(ex.Minus.PixelMaps, a), column(ex.PixelMapDiff, a)
			uv := diverging(maxAbs(u, vp))
			pm := diverging(maxAbs(mp, mm, df))
			x := x0
			drawTile(c, rect(x, y, tile, rowH-vg.Points(8)), fmt.Sprintf("u%d (the sample)", a+1), tileImage(u, h, w, uv))
			x += tile + gap
			drawTile(c, rect(x, y, tile, rowH-vg.Points(8)), fmt.Sprintf("v%d of W%d (class %s)", a+1, ex.Plus.Prototype, shortName(plusName, 10)), tileImage(vp, h, w, uv))
			x += tile
			drawColorBar(c, rect(x+vg.Points(8), y-capH-vg.Points(4), barW-vg.Points(12), tile-vg.Points(8)), uv, "")
			x += barW + gap
			drawTile(c, rect(x, y, tile, rowH-vg.Points(8)), fmt.Sprintf("u·v of W+, θ%d = %.3f", a+1, ex.Plus.Angles[a]), tileImage(mp, h, w, pm))
			x += tile + gap
			drawTile(c, rect(x, y, tile, rowH-vg.Points(8)), fmt.Sprintf("u·v of W−, θ%d = %.3f", a+1, ex.Minus.Angles[a]), tileImage(mm, h, w, pm))
			x += tile + gap
			drawTile(c, rect(x, y, tile, rowH-vg.Points(8)), "(W+) − (W−)", tileImage(df, h, w, pm))
			x += tile
			drawColorBar(c, rect(x+vg.Points(8), y-capH-vg.Points(4), barW-vg.Points(12), tile-vg.Points(8)), pm, "")
			y -= rowH
		}
		r := vg.Rectangle{Min: vg.Point{X: c.Min.X + margin, Y: c.Min.Y + margin}, Max: vg.Point{X: c.Max.X - margin, Y: y}}
		bars.Draw(draw.Canvas{Canvas: c.Canvas, Rectangle: r})
	}}
}

// contributionMap is the plot of M (m x d, with U ≈ X M) drawn with the
// angles up and the images across, and its colour map.
func contributionMap(mc matrix) (*plot.Plot, palette.ColorMap) {
	nimg, nang := mc.Dims()
	vals := make([]float64, 0, nimg*nang)
	for i := range nimg {
		for k := range nang {
			vals = append(vals, mc.At(i, k))
		}
	}
	cm := diverging(maxAbs(vals))
	// Row r of the grid is angle θ_(r+1), drawn from the top.
	g := &grid{rows: nang, cols: nimg, at: func(r, c int) float64 { return mc.At(c, r) }}
	hm := plotter.NewHeatMap(g, cm.Palette(256))
	hm.Min, hm.Max, hm.NaN = cm.Min(), cm.Max(), nanColor
	p := newPlot("M: the weight of each image of the set in each principal vector ui (U ≈ X M)", "image of the set", "")
	p.Title.TextStyle.Font.Size = 10
	p.Add(hm)
	names := make([]string, nang)
	for k := range names {
		names[k] = fmt.Sprintf("u%d", k+1)
	}
	p.Y.Tick.Marker = rowTicks(names)
	p.X.Tick.Marker = imageTicks{}
	p.X.Tick.Label.Font.Size = 8
	p.Y.Tick.Label.Font.Size = 8
	p.X.Label.TextStyle.Font.Size = 10
	return p, cm
}

// imageTicks number the images 1, 2, ... at x = 0, 1, ... .
type imageTicks struct{}

func (imageTicks) Ticks(lo, hi float64) []plot.Tick {
	lo, hi = math.Ceil(lo), math.Floor(hi)
	step := 1.0
	for _, s := range []float64{1, 2, 5, 10, 20, 50, 100, 200, 500} {
		step = s
		if (hi-lo)/s <= 20 {
			break
		}
	}
	var t []plot.Tick
	for v := 0.0; v <= hi; v += step {
		if v >= lo {
			t = append(t, plot.Tick{Value: v, Label: fmt.Sprint(v + 1)})
		}
	}
	return t
}

// contributionBars draws the contributions λ_k θ_k² (chordal: λ_k
// sin²θ_k) of every angle to d⁺ and to d⁻ side by side.
func contributionBars(ex *model.Explanation, dist model.Distance, plusName, minusName string) *plot.Plot {
	d := len(ex.Plus.Contributions)
	term, one, which := "θk²", "θ1²", ""
	if dist == model.Chordal {
		term, one, which = "sin²θk", "sin²θ1", "chordal "
	}
	title, ylabel := "Contributions λk·"+term+" of each angle to the "+which+"distance (their sum is the distance)", "λk·"+term
	if d == 1 {
		title, ylabel = "The "+which+"distance "+one+" to W+ and to W−", one
	}
	p := newPlot(title, "principal angle", ylabel)
	p.Title.TextStyle.Font.Size = 11
	bw := barWidth(d, 2)
	if b := barChart(p, ex.Plus.Contributions, bw, -bw/2, 0, false); b != nil {
		p.Legend.Add(fmt.Sprintf("W+ = W%d (class %s): d+ = %.4g", ex.Plus.Prototype, plusName, ex.Plus.Distance), b)
	}
	if b := barChart(p, ex.Minus.Contributions, bw, bw/2, 1, false); b != nil {
		p.Legend.Add(fmt.Sprintf("W− = W%d (class %s): d− = %.4g", ex.Minus.Prototype, minusName, ex.Minus.Distance), b)
	}
	p.X.Tick.Marker = angleTicks(d)
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = 9
	p.Legend.Padding = vg.Points(4)
	p.Y.Min = 0
	_, hi, _ := span(ex.Plus.Contributions, ex.Minus.Contributions)
	p.Y.Max = math.Max(hi, 1e-12) * 1.35 // room for the legend
	p.X.Min, p.X.Max = -0.6, float64(d)-0.4
	return p
}
