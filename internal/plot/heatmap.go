package plot

import (
	"image"
	"image/color"
	"math"
	"strconv"
)

// HeatMap draws an h x w array of values as an image, one square block of
// Scale x Scale pixels per value.
type HeatMap struct {
	// Values holds Rows*Cols values, row-major.
	Values     []float64
	Rows, Cols int
	// Signed uses a diverging blue–white–red scale symmetric around 0
	// (contributions, prototype columns); otherwise a gray scale from the
	// smallest (black) to the largest value (white), for images.
	Signed bool
	// Max bounds the colour scale (|v| <= Max for Signed, [Min, Max]
	// otherwise) when Fixed is set; else the data's own range is used.
	Fixed    bool
	Min, Max float64
	// Scale is the block size in pixels (default: the largest that keeps
	// the longer side at most 160 pixels, at least 1).
	Scale int
	// ScaleY, when positive, is the block height instead (blocks of
	// Scale x ScaleY pixels), for arrays much wider than tall.
	ScaleY int
	// ColorBar appends a labelled colour bar on the right.
	ColorBar bool
}

// Diverging maps t in [-1, 1] to blue (-1), white (0), red (+1).
func Diverging(t float64) color.RGBA {
	if !finite(t) {
		return EmptyGray
	}
	t = math.Max(-1, math.Min(1, t))
	neg := color.RGBA{33, 102, 172, 255}
	pos := color.RGBA{178, 24, 43, 255}
	end := pos
	if t < 0 {
		end, t = neg, -t
	}
	mix := func(a uint8) uint8 { return uint8(math.Round(255 + t*(float64(a)-255))) }
	return color.RGBA{mix(end.R), mix(end.G), mix(end.B), 255}
}

// Gray maps t in [0, 1] to black (0) .. white (1).
func Gray(t float64) color.RGBA {
	if !finite(t) {
		return color.RGBA{230, 180, 180, 255} // a pale red flags a bad value
	}
	g := uint8(math.Round(255 * math.Max(0, math.Min(1, t))))
	return color.RGBA{g, g, g, 255}
}

// scaleRange returns the colour scale's bounds.
func (h *HeatMap) scaleRange() (lo, hi float64) {
	if h.Fixed && finite(h.Min) && finite(h.Max) {
		lo, hi = h.Min, h.Max
	} else {
		var ok bool
		lo, hi, ok = span(h.Values)
		if !ok {
			lo, hi = 0, 1
		}
	}
	if h.Signed {
		m := math.Max(math.Abs(lo), math.Abs(hi))
		if h.Fixed && finite(h.Max) && h.Max > 0 {
			m = h.Max
		}
		if m == 0 {
			m = 1
		}
		return -m, m
	}
	if hi <= lo {
		hi = lo + 1
	}
	return lo, hi
}

func (h *HeatMap) colorOf(v, lo, hi float64) color.RGBA {
	if h.Signed {
		return Diverging(v / hi)
	}
	return Gray((v - lo) / (hi - lo))
}

// Render draws the heat map.
func (h *HeatMap) Render() *image.RGBA {
	rows, cols := max(h.Rows, 0), max(h.Cols, 0)
	if rows*cols > len(h.Values) || rows == 0 || cols == 0 {
		rows, cols = 0, 0
	}
	s := h.Scale
	if s <= 0 {
		s = max(1, 160/max(rows, cols, 1))
	}
	sy := s
	if h.ScaleY > 0 {
		sy = h.ScaleY
	}
	lo, hi := h.scaleRange()
	w, ht := max(cols*s, 1), max(rows*sy, 1)
	barW := 0
	if h.ColorBar {
		barW = 12 + 6 + max(textWidth(formatG(lo)), textWidth(formatG(hi))) + 4
		ht = max(ht, 3*lineH)
	}
	img := image.NewRGBA(image.Rect(0, 0, w+barW, ht))
	fillRect(img, img.Bounds(), White)
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			fillRect(img, image.Rect(c*s, r*sy, (c+1)*s, (r+1)*sy), h.colorOf(h.Values[r*cols+c], lo, hi))
		}
	}
	if h.ColorBar {
		x0 := w + 6
		bh := ht
		for y := 0; y < bh; y++ {
			t := 1 - float64(y)/float64(max(bh-1, 1))
			v := lo + t*(hi-lo)
			hline(img, x0, x0+11, y, h.colorOf(v, lo, hi))
		}
		strokeRect(img, image.Rect(x0, 0, x0+12, bh), TextGray)
		drawText(img, formatG(hi), x0+15, 0, TextGray)
		drawText(img, formatG(lo), x0+15, bh-lineH, TextGray)
	}
	return img
}

func formatF(v float64, dec int) string { return strconv.FormatFloat(v, 'f', dec, 64) }

func formatG(v float64) string { return strconv.FormatFloat(v, 'g', 3, 64) }
