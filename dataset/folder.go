package dataset

import (
	"context"
	"fmt"

	"github.com/grlgq/grlgq/dataset/imageset"
	"github.com/grlgq/grlgq/pixels"
)

// FolderOptions controls LoadFolder.
type FolderOptions struct {
	// Width and Height: every image is resized to Width x Height
	// (Catmull-Rom). Both 0 keep the native size, the same for all images.
	Width, Height int
	// Workers decoding in parallel; 0 means GOMAXPROCS. Results never
	// depend on it.
	Workers int
	// Limits bounds the input (zero fields: DefaultLimits).
	Limits Limits
}

// LoadFolder is LoadFolderContext without cancellation.
func LoadFolder(root string, opt FolderOptions) (*Dataset, error) {
	return LoadFolderContext(context.Background(), root, opt)
}

// LoadFolderContext reads a folder tree ROOT/<class>/<set>/<images> of PNG or JPEG
// files (see imageset.Load for the rules): one set folder = one image set,
// pixels are gray luma in [0, 1]. Classes are the class folder names,
// sorted; sets are named "class/set" and sorted; images are in set order,
// each set's images sorted by file name. The limits and ctx are checked as
// imageset.LoadContext says.
func LoadFolderContext(ctx context.Context, root string, opt FolderOptions) (*Dataset, error) {
	t, err := imageset.LoadContext(ctx, root, imageset.Options{Width: opt.Width, Height: opt.Height, Workers: opt.Workers, Limits: opt.Limits})
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	ds := &Dataset{
		Source:  root,
		Classes: t.Classes,
		Dim:     t.Width * t.Height,
		Width:   t.Width,
		Height:  t.Height,
		Sets:    make([]Set, len(t.Sets)),
	}
	for si, s := range t.Sets {
		set := Set{Name: t.Classes[s.Class] + "/" + s.Name, Label: s.Class}
		for _, img := range s.Images {
			set.Images = append(set.Images, len(ds.Images))
			ds.Images = append(ds.Images, img)
			ds.Labels = append(ds.Labels, s.Class)
		}
		ds.Sets[si] = set
	}
	return ds, nil
}

// Resized is ResizedContext without cancellation, with the default Limits.
func (ds *Dataset) Resized(w, h int) (*Dataset, error) {
	return ds.ResizedContext(context.Background(), w, h, Limits{})
}

// ResizedContext returns a copy of ds with every image resampled to w x h with
// Catmull-Rom (see pixels.Resize): the shape must be known and the pixels
// in [0, 1] (load with a pixel max, e.g. 255). Labels, classes and sets are
// shared with ds. Resizing to the current size copies. The target size and
// the values of all resized images are checked against lim before anything
// is allocated; ctx is checked for every image.
func (ds *Dataset) ResizedContext(ctx context.Context, w, h int, lim Limits) (*Dataset, error) {
	if ds.Images == nil {
		return nil, fmt.Errorf("dataset: %s: resize: no images", ds.Source)
	}
	if ds.Width == 0 || ds.Height == 0 {
		return nil, fmt.Errorf("dataset: %s: resize: image shape unknown (give it as height x width)", ds.Source)
	}
	if w <= 0 || h <= 0 {
		return nil, fmt.Errorf("dataset: %s: resize to %dx%d", ds.Source, h, w)
	}
	lim = lim.WithDefaults()
	what := fmt.Sprintf("resize to %dx%d", h, w)
	if err := checkLimit(ds.Source, what, imageset.LimitPixels, mulSat(int64(w), int64(h)), lim.PixelsPerImage); err != nil {
		return nil, err
	}
	if err := checkLimit(ds.Source, fmt.Sprintf("%s of %d images", what, len(ds.Images)), imageset.LimitValues, imageset.CountValues(int64(len(ds.Images)), int64(w)*int64(h)), lim.TotalValues); err != nil {
		return nil, err
	}
	out := *ds
	out.Width, out.Height, out.Dim = w, h, w*h
	flat := make([]float64, len(ds.Images)*w*h)
	out.Images = rows(flat, len(ds.Images), w*h)
	for i, x := range ds.Images {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("dataset: %s: %w", ds.Source, err)
		}
		if w == ds.Width && h == ds.Height {
			copy(out.Images[i], x)
			continue
		}
		y, err := pixels.Resize(x, ds.Width, ds.Height, w, h)
		if err != nil {
			return nil, fmt.Errorf("dataset: %s: resize image %d: %w (scale pixels to [0, 1] first, e.g. with a pixel max of 255)", ds.Source, i, err)
		}
		copy(out.Images[i], y)
	}
	return &out, nil
}
