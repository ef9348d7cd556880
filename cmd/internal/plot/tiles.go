package plot

import (
	"image"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// nanColor marks a value that is not finite.
var nanColor = color.RGBA{235, 190, 190, 255}

func plotterGrid() *plotter.Grid {
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{Y: 225}
	g.Horizontal.Color = color.Gray{Y: 225}
	return g
}

// grayMap is a palette.ColorMap from black (Min) to white (Max), for
// images: gonum/plot has none.
type grayMap struct{ min, max, alpha float64 }

func newGray(lo, hi float64) *grayMap { return &grayMap{min: lo, max: hi, alpha: 1} }

func (g *grayMap) At(v float64) (color.Color, error) {
	if !finite(v) {
		return nanColor, nil
	}
	t := (v - g.min) / (g.max - g.min)
	y := uint8(math.Round(255 * math.Max(0, math.Min(1, t))))
	return color.NRGBA{y, y, y, uint8(math.Round(255 * g.alpha))}, nil
}
func (g *grayMap) Max() float64       { return g.max }
func (g *grayMap) SetMax(v float64)   { g.max = v }
func (g *grayMap) Min() float64       { return g.min }
func (g *grayMap) SetMin(v float64)   { g.min = v }
func (g *grayMap) Alpha() float64     { return g.alpha }
func (g *grayMap) SetAlpha(a float64) { g.alpha = a }
func (g *grayMap) Palette(n int) palette.Palette {
	return colorMapPalette(g, n)
}

type pal []color.Color

func (p pal) Colors() []color.Color { return p }

func colorMapPalette(cm palette.ColorMap, n int) palette.Palette {
	out := make(pal, max(n, 2))
	for i := range out {
		c, _ := cm.At(cm.Min() + (cm.Max()-cm.Min())*float64(i)/float64(len(out)-1))
		out[i] = c
	}
	return out
}

// diverging is the cool-warm map (blue -, light gray 0, red +) on
// [-m, m]; m <= 0 gives [-1, 1].
func diverging(m float64) palette.ColorMap {
	if !(m > 0) || !finite(m) {
		m = 1
	}
	cm := moreland.SmoothBlueRed()
	cm.SetMin(-m)
	cm.SetMax(m)
	return cm
}

// grayRange is the gray map over the finite range of x.
func grayRange(x []float64) palette.ColorMap {
	lo, hi, ok := span(x)
	if !ok || hi <= lo {
		lo, hi = lo-0.5, lo+0.5
		if !ok {
			lo, hi = 0, 1
		}
	}
	return newGray(lo, hi)
}

// colorAt is cm's colour of v, clamped to its range; not finite: nanColor.
func colorAt(cm palette.ColorMap, v float64) color.Color {
	if !finite(v) {
		return nanColor
	}
	v = math.Max(cm.Min(), math.Min(cm.Max(), v))
	c, err := cm.At(v)
	if err != nil {
		return nanColor
	}
	return c
}

// tileImage maps rows x cols row-major values to an image through cm, one
// block of s x s pixels per value (nearest neighbour, so that no renderer
// smooths the pixels away). A single row of more than 8 values (data that
// are not images) is folded into a near-square, filled in reading order,
// the cells past the end left white.
func tileImage(vals []float64, rows, cols int, cm palette.ColorMap) image.Image {
	if rows <= 0 || cols <= 0 || rows*cols > len(vals) {
		return nil
	}
	n := rows * cols
	if rows == 1 && cols > 8 {
		cols = int(math.Ceil(math.Sqrt(float64(n))))
		rows = (n + cols - 1) / cols
	}
	s := max(1, 160/max(rows, cols))
	img := image.NewRGBA(image.Rect(0, 0, cols*s, rows*s))
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			var col color.Color = color.White
			if i := r*cols + c; i < n {
				col = colorAt(cm, vals[i])
			}
			for y := r * s; y < (r+1)*s; y++ {
				for x := c * s; x < (c+1)*s; x++ {
					img.Set(x, y, col)
				}
			}
		}
	}
	return img
}

// drawTile draws a caption and, under it, img as large as fits in r with
// its aspect kept, centred, framed in gray. A nil img leaves the cell
// empty but for the caption.
func drawTile(c draw.Canvas, r vg.Rectangle, caption string, img image.Image) {
	top := r.Max.Y
	if caption != "" {
		lines, sty := fitLines(textStyle(8, draw.XCenter, draw.YTop), caption, r.Max.X-r.Min.X)
		for _, l := range lines {
			c.FillText(sty, vg.Point{X: (r.Min.X + r.Max.X) / 2, Y: top}, l)
			top -= sty.Height(l)
		}
		top -= 2
	}
	if img == nil {
		return
	}
	b := img.Bounds()
	w, h := r.Max.X-r.Min.X, top-r.Min.Y
	if w <= 0 || h <= 0 {
		return
	}
	aspect := vg.Length(b.Dx()) / vg.Length(b.Dy())
	if w/h > aspect {
		w = h * aspect
	} else {
		h = w / aspect
	}
	x0 := (r.Min.X+r.Max.X)/2 - w/2
	rect := vg.Rectangle{Min: vg.Point{X: x0, Y: top - h}, Max: vg.Point{X: x0 + w, Y: top}}
	c.DrawImage(rect, img)
	c.SetLineStyle(draw.LineStyle{Color: color.Gray{Y: 160}, Width: 0.5})
	var p vg.Path
	p.Move(rect.Min)
	p.Line(vg.Point{X: rect.Max.X, Y: rect.Min.Y})
	p.Line(rect.Max)
	p.Line(vg.Point{X: rect.Min.X, Y: rect.Max.Y})
	p.Close()
	c.Stroke(p)
}

// drawColorBar draws a vertical colour bar of cm, its ticks on the left,
// label (if any) above it, into r (at least 0.6 inch wide).
func drawColorBar(c draw.Canvas, r vg.Rectangle, cm palette.ColorMap, label string) {
	p := plot.New()
	p.HideX()
	p.Add(&plotter.ColorBar{ColorMap: cm, Vertical: true, Colors: 128})
	p.Title.Text = label
	p.Title.TextStyle.Font.Size = 8
	p.Title.Padding = vg.Points(3)
	p.Y.Tick.Label.Font.Size = 8
	p.Y.Padding = 0
	p.Y.Min, p.Y.Max = cm.Min(), cm.Max()
	// The bar takes 12 points on the right of r; the ticks the rest.
	if w := r.Max.X - r.Min.X; w > vg.Points(54) {
		r.Min.X = r.Max.X - vg.Points(54)
	}
	p.Draw(draw.Canvas{Canvas: c.Canvas, Rectangle: r})
}

// rect is the rectangle of size w x h whose top-left corner is (x, y).
func rect(x, y, w, h vg.Length) vg.Rectangle {
	return vg.Rectangle{Min: vg.Point{X: x, Y: y - h}, Max: vg.Point{X: x + w, Y: y}}
}
