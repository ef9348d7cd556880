package plot

import (
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"io"

	"github.com/grlgq/grlgq/internal/safefile"
)

// Panel is one captioned picture of a Grid.
type Panel struct {
	Caption string
	Image   image.Image // nil: an empty cell
}

// Grid lays panels out in rows of cols cells under an optional title; each
// caption sits above its picture. Cells are as large as the largest panel.
func Grid(title string, panels []Panel, cols int) *image.RGBA {
	if cols <= 0 {
		cols = max(len(panels), 1)
	}
	cw, ch := 1, 1
	for _, p := range panels {
		if p.Image != nil {
			b := p.Image.Bounds()
			cw, ch = max(cw, b.Dx()), max(ch, b.Dy())
		}
		cw = max(cw, textWidth(p.Caption))
	}
	const gap = 10
	rows := (len(panels) + cols - 1) / cols
	top := gap
	if title != "" {
		top += lineH + gap
	}
	cellH := lineH + 3 + ch
	w := gap + cols*(cw+gap)
	w = max(w, textWidth(title)+2*gap)
	h := top + rows*(cellH+gap)
	img := image.NewRGBA(image.Rect(0, 0, w, max(h, top+gap)))
	fillRect(img, img.Bounds(), White)
	if title != "" {
		drawTextAligned(img, title, w/2, gap, alignCenter, Black)
	}
	for i, p := range panels {
		r, c := i/cols, i%cols
		x := gap + c*(cw+gap)
		y := top + r*(cellH+gap)
		drawTextAligned(img, p.Caption, x+cw/2, y, alignCenter, Black)
		if p.Image != nil {
			b := p.Image.Bounds()
			dx := x + (cw-b.Dx())/2
			draw.Draw(img, image.Rect(dx, y+lineH+3, dx+b.Dx(), y+lineH+3+b.Dy()), p.Image, b.Min, draw.Src)
		}
	}
	return img
}

// Stack puts pictures one under the other, left-aligned, on white.
func Stack(imgs ...image.Image) *image.RGBA {
	w, h := 1, 0
	for _, m := range imgs {
		if m != nil {
			w = max(w, m.Bounds().Dx())
			h += m.Bounds().Dy()
		}
	}
	img := image.NewRGBA(image.Rect(0, 0, w, max(h, 1)))
	fillRect(img, img.Bounds(), White)
	y := 0
	for _, m := range imgs {
		if m == nil {
			continue
		}
		b := m.Bounds()
		draw.Draw(img, image.Rect(0, y, b.Dx(), y+b.Dy()), m, b.Min, draw.Src)
		y += b.Dy()
	}
	return img
}

// Encode writes img as PNG.
func Encode(w io.Writer, img image.Image) error {
	e := png.Encoder{CompressionLevel: png.BestSpeed}
	return e.Encode(w, img)
}

// Save writes img as a PNG file atomically (package internal/safefile):
// to a temporary file in the same folder, then renamed over path, so a
// failure never leaves a half-written picture (nor destroys an older one);
// it refuses to replace anything but a regular file.
func Save(path string, img image.Image) error {
	if err := safefile.Write(path, func(w io.Writer) error { return Encode(w, img) }); err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	return nil
}
