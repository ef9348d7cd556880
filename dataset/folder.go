package dataset

import (
	"context"
	"fmt"

	"github.com/grlgq/grlgq/dataset/imageset"
	"github.com/grlgq/grlgq/pixels"
)

// Layout is the arrangement of a folder tree (imageset.Layout):
// LayoutAuto, LayoutClasses (ROOT/<class>/<set>/<images>) or LayoutSets
// (ROOT/<set>/<images>, sets without labels).
type Layout = imageset.Layout

// The layouts of a folder tree.
const (
	LayoutAuto    = imageset.LayoutAuto
	LayoutClasses = imageset.LayoutClasses
	LayoutSets    = imageset.LayoutSets
)

// Folder is a folder tree of PNG or JPEG image sets: ROOT/<class>/<set>/
// <images> (labelled) or ROOT/<set>/<images> (without labels), one set
// folder = one image set (see imageset.Load for the rules).
type Folder struct {
	Root string
	// Layout of the tree (LayoutAuto: told from what ROOT's folders hold).
	Layout Layout
	// Resize: every image is decoded at this size (Catmull-Rom). The zero
	// Size keeps the native size, the same for all images.
	Resize Size
	// Workers decoding in parallel; 0 means GOMAXPROCS. Results never
	// depend on it.
	Workers int
	// Limits bounds the input (zero fields: DefaultLimits).
	Limits Limits
	// Progress, if non-nil, is called after each image decoded (see
	// imageset.Options.Progress).
	Progress func(done, total int)
}

// String returns the source as folder:DIR.
func (s Folder) String() string { return "folder:" + s.Root }

// Inputs returns the folder Load reads.
func (s Folder) Inputs() []string { return []string{s.Root} }

// Load reads the tree: pixels are gray luma in [0, 1]. Classes are the
// class folder names, sorted; sets are named "class/set" (or "set", without
// labels) and sorted; images are in set order, each set's images sorted by
// file name, each named by its file in Files. The limits and ctx are checked as imageset.LoadContext says.
func (s Folder) Load(ctx context.Context) (*Dataset, error) {
	t, err := imageset.Load(ctx, s.Root, imageset.Options{Layout: s.Layout, Width: s.Resize.Width, Height: s.Resize.Height, Workers: s.Workers, Limits: s.Limits, Progress: s.Progress})
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	ds := &Dataset{
		Source:  s.Root,
		Classes: t.Classes,
		Dim:     t.Width * t.Height,
		Width:   t.Width,
		Height:  t.Height,
		Sets:    make([]Set, len(t.Sets)),
	}
	labelled := t.Classes != nil
	for si, st := range t.Sets {
		set := Set{Name: st.Name, Label: NoLabel}
		if labelled {
			set.Name, set.Label = t.Classes[st.Class]+"/"+st.Name, st.Class
		}
		for k, img := range st.Images {
			set.Images = append(set.Images, len(ds.Images))
			ds.Images = append(ds.Images, img)
			ds.Files = append(ds.Files, st.Files[k])
			if labelled {
				ds.Labels = append(ds.Labels, st.Class)
			}
		}
		ds.Sets[si] = set
	}
	return loaded(ctx, s.Root, ds, nil)
}

// Resized returns a copy of ds with every image resampled to w x h with
// Catmull-Rom (see pixels.Resize): the shape must be known and the pixels
// in [0, 1] (load with a pixel max, e.g. 255). Labels, classes and sets are
// shared with ds. Resizing to the current size copies. The target size and
// the values of all resized images are checked against lim (zero fields:
// DefaultLimits) before anything is allocated; ctx is checked for every
// image.
func (ds *Dataset) Resized(ctx context.Context, w, h int, lim Limits) (*Dataset, error) {
	if ds.Images == nil {
		return nil, fmt.Errorf("dataset: %s: resize: no images", ds.Source)
	}
	if ds.Width == 0 || ds.Height == 0 {
		return nil, fmt.Errorf("dataset: %s: resize: image shape unknown (give it as height x width)", ds.Source)
	}
	if w <= 0 || h <= 0 {
		return nil, fmt.Errorf("dataset: %s: resize to %s", ds.Source, imageset.FormatSize(w, h))
	}
	lim = lim.WithDefaults()
	what := "resize to " + imageset.FormatSize(w, h)
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
