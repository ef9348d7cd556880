package model

import (
	"fmt"
	"image"

	"github.com/grlgq/grlgq/pixels"
	"github.com/grlgq/grlgq/subspace"
)

// SampleFromImages returns the sample a server classifies for a set of
// decoded images (image.Decode of uploaded PNG or JPEG files, say): each
// image becomes its gray pixel vector by the rule the folder loaders
// trained on (package pixels: luma in [0, 1], row-major), resized with
// Catmull-Rom to the model's image size (Model.ImageSize) when its size
// differs; then one image is the single-image sample Image(pixels)
// (distance θ_1²), and d or more images are the set of their
// d-dimensional subspace (subspace.FromImages: the top d left singular
// vectors of the D x n matrix of the images), Set(s). Between 1 and d
// images, no image, a nil image, or (for a model that records no image
// size) an image without D pixels are errors wrapping ErrData, as is a set
// whose images span fewer than d dimensions. It allocates the pixels and
// the subspace, which the returned Sample refers to; the images are read,
// never kept. It may be called from any number of goroutines at once:
//
//	img, _, err := image.Decode(part) // each uploaded file
//	...
//	x, err := mdl.SampleFromImages(imgs)
//	p, err := mdl.Predict(x)
func (m *Model) SampleFromImages(imgs []image.Image) (Sample, error) {
	if len(imgs) == 0 {
		return Sample{}, fmt.Errorf("model: %w: no image", ErrData)
	}
	w, h := m.ImageSize()
	vecs := make([][]float64, len(imgs))
	for i, img := range imgs {
		if img == nil {
			return Sample{}, fmt.Errorf("model: %w: image %d is nil", ErrData, i)
		}
		b := img.Bounds()
		iw, ih := b.Dx(), b.Dy()
		if iw <= 0 || ih <= 0 {
			return Sample{}, fmt.Errorf("model: %w: image %d is empty (%s, height x width)", ErrData, i, formatSize(iw, ih))
		}
		tw, th := w, h
		if tw == 0 {
			// No recorded size: the image must already have D pixels.
			if int64(iw)*int64(ih) != int64(m.dim) {
				return Sample{}, fmt.Errorf("model: %w: image %d has %s = %d pixels (height x width), the model wants D = %d and records no image size to resize to", ErrData, i, formatSize(iw, ih), int64(iw)*int64(ih), m.dim)
			}
			tw, th = iw, ih
		}
		vecs[i] = pixels.Gray(img, tw, th)
	}
	return m.SampleOf(vecs)
}

// SampleOf returns the sample of images given as pixel vectors (each of D
// pixels, any scale): one image is the single-image sample Image(images[0])
// (distance θ_1²), d or more the set of their d-dimensional subspace
// (subspace.FromImages). Between 1 and d images, none, or a vector of
// another length are errors wrapping ErrData, as is a set whose images
// span fewer than d dimensions (wrapping subspace.ErrRankDeficient too).
// The returned Sample refers to images[0] (one image) or owns its
// subspace (a set).
func (m *Model) SampleOf(images [][]float64) (Sample, error) {
	for i, x := range images {
		if len(x) != m.dim {
			return Sample{}, fmt.Errorf("model: %w: image %d has %d pixels, the model wants D = %d", ErrData, i, len(x), m.dim)
		}
	}
	switch n := len(images); {
	case n == 0:
		return Sample{}, fmt.Errorf("model: %w: no image", ErrData)
	case n == 1:
		return Image(images[0]), nil
	case n < m.d:
		return Sample{}, fmt.Errorf("model: %w: %w: %d images, the model's subspaces have d = %d (give 1 image or at least %d)", ErrData, subspace.ErrTooFewImages, n, m.d, m.d)
	}
	s, err := subspace.FromImages(images, m.d)
	if err != nil {
		return Sample{}, fmt.Errorf("model: %w: %w", ErrData, err)
	}
	return Set(s), nil
}
