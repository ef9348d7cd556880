package pixels

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"sync"

	"golang.org/x/image/draw"
)

// Sentinel errors of Resize, testable with errors.Is.
var (
	// ErrSize: a size that is not positive, over MaxPixels, or that does
	// not match the pixels given.
	ErrSize = errors.New("pixels: bad size")
	// ErrRange: a pixel value outside [0, 1].
	ErrRange = errors.New("pixels: pixel value outside [0, 1]")
)

// MaxPixels bounds the target size of Resize, a function on memory the
// caller already holds (the loaders check their own limits first).
const MaxPixels = 1 << 26

// Gray returns the gray pixels of img resized to w x h (see GrayTo).
func Gray(img image.Image, w, h int) []float64 {
	dst := make([]float64, w*h)
	GrayTo(dst, img, w, h)
	return dst
}

// GrayTo writes into dst (len w*h, row-major) the luma of img in [0, 1]:
// Y = (19595 R + 38470 G + 7471 B + 2^15) >> 16 on 16-bit channels
// (ITU-R BT.601 weights 0.299, 0.587, 0.114, exactly Go's
// color.Gray16Model), divided by 65535, so an 8-bit gray value v becomes
// exactly v/255. Channels are alpha-premultiplied: transparent pixels
// count as black. When the size differs from img's, the gray image is
// resized with Catmull-Rom (golang.org/x/image/draw.CatmullRom), whose
// result is rounded to 16 bits. It panics if len(dst) != w*h.
func GrayTo(dst []float64, img image.Image, w, h int) {
	if len(dst) != w*h {
		panic("pixels: dst length is not w*h")
	}
	g := toGray16(img)
	if b := g.Bounds(); b.Dx() != w || b.Dy() != h {
		small := image.NewGray16(image.Rect(0, 0, w, h))
		scaler(w, h, b.Dx(), b.Dy()).Scale(small, small.Bounds(), g, b, draw.Src, nil)
		g = small
	}
	for y := 0; y < h; y++ {
		row := g.Pix[y*g.Stride : y*g.Stride+2*w]
		for x := 0; x < w; x++ {
			dst[y*w+x] = float64(uint16(row[2*x])<<8|uint16(row[2*x+1])) / 65535
		}
	}
}

// scalers caches Catmull-Rom scalers by size: building one computes the
// filter weights, which costs as much as scaling a small image. A Scaler from
// NewScaler is safe for concurrent use (its scratch comes from a sync.Pool).
// The cache holds one scaler per (source, target) size pair ever seen: a
// few kilobytes each, and data sets have few distinct image sizes.
var scalers sync.Map // [4]int{dw, dh, sw, sh} -> draw.Scaler

func scaler(dw, dh, sw, sh int) draw.Scaler {
	key := [4]int{dw, dh, sw, sh}
	if s, ok := scalers.Load(key); ok {
		return s.(draw.Scaler)
	}
	s, _ := scalers.LoadOrStore(key, draw.CatmullRom.NewScaler(dw, dh, sw, sh))
	return s.(draw.Scaler)
}

// toGray16 converts img to 16-bit luma with Go's Gray16 model.
func toGray16(img image.Image) *image.Gray16 {
	if g, ok := img.(*image.Gray16); ok && g.Rect.Min == (image.Point{}) {
		return g
	}
	b := img.Bounds()
	g := image.NewGray16(image.Rect(0, 0, b.Dx(), b.Dy()))
	fast, _ := img.(image.RGBA64Image) // no allocation per pixel
	for y := 0; y < b.Dy(); y++ {
		for x := 0; x < b.Dx(); x++ {
			var r, gg, bb uint32
			if fast != nil {
				c := fast.RGBA64At(b.Min.X+x, b.Min.Y+y)
				r, gg, bb = uint32(c.R), uint32(c.G), uint32(c.B)
			} else {
				r, gg, bb, _ = img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			}
			v := (19595*r + 38470*gg + 7471*bb + 1<<15) >> 16
			g.SetGray16(x, y, color.Gray16{Y: uint16(v)})
		}
	}
	return g
}

// Resize resamples a gray image src (sw x sh, row-major, values in
// [0, 1]) to dw x dh with Catmull-Rom, through 16-bit gray (values are
// rounded to multiples of 1/65535). Values outside [0, 1] are an error:
// scale the data first.
func Resize(src []float64, sw, sh, dw, dh int) ([]float64, error) {
	if sw <= 0 || sh <= 0 || dw <= 0 || dh <= 0 || dw*dh > MaxPixels || len(src) != sw*sh {
		return nil, fmt.Errorf("%w: resize %d pixels as %dx%d to %dx%d", ErrSize, len(src), sw, sh, dw, dh)
	}
	g := image.NewGray16(image.Rect(0, 0, sw, sh))
	for i, v := range src {
		if !(v >= 0 && v <= 1) {
			return nil, fmt.Errorf("%w: pixel %d is %g", ErrRange, i, v)
		}
		q := uint16(math.Round(v * 65535))
		g.Pix[2*i], g.Pix[2*i+1] = byte(q>>8), byte(q)
	}
	dst := make([]float64, dw*dh)
	GrayTo(dst, g, dw, dh)
	return dst, nil
}
