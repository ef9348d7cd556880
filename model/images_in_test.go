package model

import (
	"errors"
	"image"
	"image/color"
	"testing"

	"github.com/grlgq/grlgq/pixels"
	"github.com/grlgq/grlgq/subspace"
)

// grayImage is a w x h 8-bit gray image whose pixel (x, y) is f(x, y).
func grayImage(w, h int, f func(x, y int) uint8) *image.Gray {
	g := image.NewGray(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			g.SetGray(x, y, color.Gray{Y: f(x, y)})
		}
	}
	return g
}

// TestSampleFromImages: images of the model's size become exactly the
// pixels a folder load gives (v/255), other sizes are resized by the same
// rule, one image is an Image sample and d or more a Set of their
// subspace; the errors wrap ErrData.
func TestSampleFromImages(t *testing.T) {
	sized := trainedModel(t, RelevanceGlobal) // D = 16 (images 8 wide, 2 high: 2x8), d = 3
	if w, h := sized.ImageSize(); w != 8 || h != 2 {
		t.Fatalf("image size width %d height %d", w, h)
	}
	m := sized.clone()
	m.cfg.ImageWidth, m.cfg.ImageHeight = 0, 0 // a model that records no size
	imgs := []image.Image{
		grayImage(8, 2, func(x, y int) uint8 { return uint8(10*x + 40*y + 7) }),
		grayImage(8, 2, func(x, y int) uint8 { return uint8(200 - 9*x*y) }),
		grayImage(8, 2, func(x, y int) uint8 { return uint8(3 + 30*x + y*y) }),
		grayImage(11, 5, func(x, y int) uint8 { return uint8(17 * (x + 2*y)) }), // resized to 2x8
	}
	one, err := sized.SampleFromImages(imgs[:1])
	if err != nil || one.Pixels() == nil {
		t.Fatalf("one image: %v", err)
	}
	for i, v := range one.Pixels() {
		if want := float64(uint8(10*(i%8)+40*(i/8)+7)) / 255; v != want {
			t.Fatalf("pixel %d = %v, want %v", i, v, want)
		}
	}
	set, err := sized.SampleFromImages(imgs)
	if err != nil || set.Subspace() == nil {
		t.Fatalf("a set: %v", err)
	}
	vecs := [][]float64{pixels.Gray(imgs[0], 8, 2), pixels.Gray(imgs[1], 8, 2), pixels.Gray(imgs[2], 8, 2), pixels.Gray(imgs[3], 8, 2)}
	want, err := subspace.FromImages(vecs, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !sameBits(set.Subspace().Basis, want.Basis) {
		t.Error("the set's subspace differs from subspace.FromImages of the resized pixels")
	}
	p, err := sized.Predict(set)
	q, err2 := sized.Predict(Set(want))
	if err != nil || err2 != nil || p.Label != q.Label || p.Distances[0] != q.Distances[0] {
		t.Errorf("predictions %+v, %+v (%v, %v)", p, q, err, err2)
	}
	// A model without an image size takes images of D pixels as they are.
	if x, err := m.SampleFromImages([]image.Image{grayImage(2, 8, func(x, y int) uint8 { return uint8(x + y + 1) })}); err != nil || len(x.Pixels()) != 16 {
		t.Errorf("no size, 8x2 image: %v", err)
	}
	for name, bad := range map[string][]image.Image{
		"none":         nil,
		"nil image":    {imgs[0], nil, imgs[1]},
		"two of d = 3": imgs[:2],
		"empty image":  {image.NewGray(image.Rect(0, 0, 0, 3))},
	} {
		if _, err := sized.SampleFromImages(bad); !errors.Is(err, ErrData) {
			t.Errorf("%s: %v, want ErrData", name, err)
		}
	}
	if _, err := m.SampleFromImages([]image.Image{imgs[3]}); !errors.Is(err, ErrData) {
		t.Errorf("no size, 5x11 image: %v, want ErrData", err)
	}
	same := []image.Image{imgs[0], imgs[0], imgs[0]}
	if _, err := sized.SampleFromImages(same); !errors.Is(err, ErrData) || !errors.Is(err, subspace.ErrRankDeficient) {
		t.Errorf("three equal images: %v, want ErrData and subspace.ErrRankDeficient", err)
	}
}
