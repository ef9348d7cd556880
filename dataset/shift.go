package dataset

import (
	"fmt"

	"github.com/grlgq/grlgq/dataset/imageset"
)

// Shifted returns a copy of the gray image img (width x height, row-major)
// moved by dx pixels to the right and dy pixels down (negative: left, up),
// the pixels that enter at the border repeating the nearest border pixel
// (edge replication, so no artificial dark band appears). It is the
// training-set augmentation of the Yale B protocol (package paper):
// aligned faces shifted by one pixel.
func Shifted(img []float64, width, height, dx, dy int) ([]float64, error) {
	if width <= 0 || height <= 0 || len(img) != width*height {
		return nil, fmt.Errorf("dataset: shift: image of %d pixels is not %s", len(img), imageset.FormatSize(width, height))
	}
	out := make([]float64, len(img))
	for y := range height {
		sy := min(max(y-dy, 0), height-1)
		for x := range width {
			sx := min(max(x-dx, 0), width-1)
			out[y*width+x] = img[sy*width+sx]
		}
	}
	return out, nil
}

// WithShifts returns imgs and their labels y followed, when by > 0, by 4
// copies of every image moved by `by` pixels right, left, down and up
// (Shifted), in that order, image by image. imgs are width x height; they
// are shared, not copied. by = 0 returns imgs and y themselves.
func WithShifts(imgs [][]float64, y []int, width, height, by int) ([][]float64, []int, error) {
	if len(imgs) != len(y) {
		return nil, nil, fmt.Errorf("dataset: shift: %d images and %d labels", len(imgs), len(y))
	}
	if by < 0 {
		return nil, nil, fmt.Errorf("dataset: shift by %d pixels", by)
	}
	if by == 0 {
		return imgs, y, nil
	}
	n := len(imgs)
	outX := append(make([][]float64, 0, 5*n), imgs...)
	outY := append(make([]int, 0, 5*n), y...)
	for k := range n {
		for _, d := range [4][2]int{{by, 0}, {-by, 0}, {0, by}, {0, -by}} {
			s, err := Shifted(imgs[k], width, height, d[0], d[1])
			if err != nil {
				return nil, nil, fmt.Errorf("image %d: %w", k, err)
			}
			outX, outY = append(outX, s), append(outY, y[k])
		}
	}
	return outX, outY, nil
}
