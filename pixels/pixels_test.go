package pixels

import (
	"errors"
	"image"
	"image/color"
	"testing"
)

// grayImage is w x h with pixel (x, y) = seed + 10y + x (8-bit gray).
func grayImage(w, h, seed int) *image.Gray {
	g := image.NewGray(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			g.SetGray(x, y, color.Gray{Y: uint8(seed + 10*y + x)})
		}
	}
	return g
}

func TestGrayTo(t *testing.T) {
	// RGB luma with BT.601 weights; transparent counts as black.
	img := image.NewNRGBA(image.Rect(0, 0, 3, 1))
	img.Set(0, 0, color.NRGBA{R: 255, A: 255})
	img.Set(1, 0, color.NRGBA{G: 255, B: 255, A: 255})
	img.Set(2, 0, color.NRGBA{R: 255, G: 255, B: 255, A: 0})
	got := Gray(img, 3, 1)
	if d := got[0] - 0.299; d > 1e-4 || d < -1e-4 {
		t.Fatalf("red luma %v, want 0.299", got[0])
	}
	if d := got[1] - (0.587 + 0.114); d > 1e-4 || d < -1e-4 {
		t.Fatalf("cyan luma %v", got[1])
	}
	if got[2] != 0 {
		t.Fatalf("transparent luma %v", got[2])
	}
	// A sub-image (Min != 0).
	sub := grayImage(6, 6, 0).SubImage(image.Rect(2, 2, 4, 4))
	if g := Gray(sub, 2, 2); g[0] != 22.0/255 || g[3] != 33.0/255 {
		t.Fatalf("sub-image %v", g)
	}
}

func TestResize(t *testing.T) {
	src := make([]float64, 16)
	for i := range src {
		src[i] = float64(i) / 15
	}
	got, err := Resize(src, 4, 4, 4, 4)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range got { // same size: only the 16-bit rounding
		if d := v - src[i]; d > 1.0/65535 || d < -1.0/65535 {
			t.Fatalf("pixel %d = %v, want %v", i, v, src[i])
		}
	}
	// A constant image stays constant.
	c := make([]float64, 64*64)
	for i := range c {
		c[i] = 0.5
	}
	got, err = Resize(c, 64, 64, 20, 20)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range got {
		if v != float64(32768)/65535 {
			t.Fatalf("constant resized to %v", v)
		}
	}
	if _, err := Resize([]float64{0, 2}, 2, 1, 1, 1); !errors.Is(err, ErrRange) {
		t.Fatalf("out of range: %v", err)
	}
	if _, err := Resize([]float64{0, 1}, 3, 1, 1, 1); !errors.Is(err, ErrSize) {
		t.Fatalf("bad length: %v", err)
	}
}
