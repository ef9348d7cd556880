package plot

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/grlgq/grlgq/model"
)

// Layout of the prototype pages.
const (
	protoTilesAcross = 12 // tiles in a row of a page, at most
	protoRowsPerPage = 10 // rows of prototypes on a page, at most
	protoMaxColumns  = 10 // columns of a prototype drawn, at most
)

// Prototypes draws every prototype of m, its columns as h x w images on a
// blue (−) to red (+) scale shared by the page: as many prototypes side by
// side as fit 12 tiles, 8 such rows a page, as many pages as it takes.
// Prototypes with more than 10 columns show their first 10.
func Prototypes(m *model.Model, h, w int) []*Figure {
	p, d := m.NumPrototypes(), m.SubspaceDim()
	cols := min(d, protoMaxColumns)
	across := max(1, protoTilesAcross/cols)
	perPage := across * protoRowsPerPage
	pages := (p + perPage - 1) / perPage
	out := make([]*Figure, 0, pages)
	for pg := range pages {
		first, last := pg*perPage, min(p, (pg+1)*perPage)
		out = append(out, protoPage(m, h, w, first, last, cols, across, pg, pages))
	}
	return out
}

func protoPage(m *model.Model, h, w, first, last, cols, across, page, pages int) *Figure {
	d := m.SubspaceDim()
	vals := make([][][]float64, last-first) // [prototype][column] -> pixels
	scale := 0.0
	for k := first; k < last; k++ {
		pk := m.Prototype(k)
		for j := range cols {
			c := make([]float64, pk.Rows)
			for r := range c {
				c[r] = pk.At(r, j)
			}
			vals[k-first] = append(vals[k-first], c)
			scale = math.Max(scale, maxAbs(c))
		}
	}
	cm := diverging(scale)
	var (
		tile   = 0.8 * vg.Inch
		gap    = vg.Points(3)
		bgap   = vg.Points(16)
		capH   = vg.Points(13)
		rowH   = tile + capH + vg.Points(8)
		margin = vg.Points(10)
		barW   = vg.Inch
		titleH = vg.Points(34)
	)
	rows := (last - first + across - 1) / across
	blockW := vg.Length(cols)*tile + vg.Length(cols-1)*gap
	width := 2*margin + vg.Length(across)*blockW + vg.Length(across-1)*bgap + barW
	height := titleH + vg.Length(rows)*rowH + margin
	what := fmt.Sprintf("columns 1–%d as images", cols)
	if cols == 1 {
		what = "as images"
	}
	title := fmt.Sprintf("Prototypes W%d–W%d of %d: %s, blue − / red +", first, last-1, m.NumPrototypes(), what)
	if first == last-1 {
		title = fmt.Sprintf("Prototype W%d of %d: %s, blue − / red +", first, m.NumPrototypes(), what)
	}
	if cols < d {
		title += fmt.Sprintf(" (of %d)", d)
	}
	if pages > 1 {
		title += fmt.Sprintf(", page %d of %d", page+1, pages)
	}
	return &Figure{Width: max(width, 5*vg.Inch), Height: height, draw: func(c draw.Canvas) {
		body := drawTitle(c, title, 12)
		top := body.Max.Y - vg.Points(4)
		sty := textStyle(9, draw.XLeft, draw.YTop)
		for i, pv := range vals {
			k := first + i
			r, a := i/across, i%across
			x := c.Min.X + margin + vg.Length(a)*(blockW+bgap)
			y := top - vg.Length(r)*rowH
			c.FillText(sty, vg.Point{X: x, Y: y}, fitText(sty, fmt.Sprintf("W%d · class %s", k, className(m, m.Label(k))), blockW+bgap-vg.Points(4)))
			for j, col := range pv {
				img := tileImage(col, h, w, cm)
				drawTile(c, rect(x+vg.Length(j)*(tile+gap), y-capH, tile, tile), "", img)
			}
		}
		bar := vg.Rectangle{Min: vg.Point{X: c.Max.X - barW + vg.Points(10), Y: c.Min.Y + margin}, Max: vg.Point{X: c.Max.X - margin, Y: body.Max.Y - vg.Points(4)}}
		if bar.Max.Y-bar.Min.Y > 3*vg.Inch {
			bar.Min.Y = bar.Max.Y - 3*vg.Inch
		}
		drawColorBar(c, bar, cm, "value")
	}}
}

// fitText cuts s (ending it with "…") to fit width w in sty.
func fitText(sty draw.TextStyle, s string, w vg.Length) string {
	r := []rune(s)
	for n := len(r); n > 1; n-- {
		t := string(r[:n])
		if n < len(r) {
			t = strings.TrimSpace(string(r[:n-1])) + "…"
		}
		if sty.Width(t) <= w {
			return t
		}
	}
	return string(r[:min(len(r), 1)])
}

// shortName cuts s to n runes.
func shortName(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}
