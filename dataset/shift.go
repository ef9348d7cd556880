package dataset

import "fmt"

// Shifted returns a copy of the gray image img (width x height, row-major)
// moved by dx pixels to the right and dy pixels down (negative: left, up),
// the pixels that enter at the border repeating the nearest border pixel
// (edge replication, so no artificial dark band appears). It is the
// training-set augmentation of the Yale B protocol (internal/experiments):
// aligned faces shifted by one pixel.
func Shifted(img []float64, width, height, dx, dy int) ([]float64, error) {
	if width <= 0 || height <= 0 || len(img) != width*height {
		return nil, fmt.Errorf("dataset: shift: image of %d pixels is not %dx%d", len(img), width, height)
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
