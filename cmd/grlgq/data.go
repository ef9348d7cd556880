package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/grlgq/grlgq/dataset"
	"github.com/grlgq/grlgq/dataset/imageset"
	"github.com/grlgq/grlgq/internal/limitflag"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

const specHelp = dataset.SpecHelp

// dataFlags are the flags that say where the data are and how to read them.
type dataFlags struct {
	spec          string
	opt           dataset.Options // opt.Limits: the -max-* flags
	width, height int
}

func (f *dataFlags) addFlags(fs *flag.FlagSet) {
	fs.StringVar(&f.spec, "data", "", "the data: "+specHelp)
	addOptionFlags(fs, &f.opt)
	restrictFloat(fs, "pixel-max", &f.opt.PixelMax, 0, maxPixelMax, false, false)
	restrictFloat(fs, "npy-tol", &f.opt.NPYTol, 0, 1, true, false)
	fs.Var(&f.opt.Shape, "mat-image", "same as -image: native image size HxW of MAT/CSV data")
	intVar(fs, &f.width, "width", 0, 0, maxSide, "resize images to this width (with -height; same as -resize HEIGHTxWIDTH; 0: no resize)")
	intVar(fs, &f.height, "height", 0, 0, maxSide, "resize images to this height (with -width; 0: no resize)")
	addLimitFlags(fs, &f.opt.Limits)
}

// addOptionFlags registers the flags of the loaders' options o on fs:
// -image, -resize, -pixel-max, -mat-x, -mat-y, -mat-columns,
// -mat-transpose, -csv-header, -npy-tol, -npy-reorth.
func addOptionFlags(fs *flag.FlagSet, o *dataset.Options) {
	fs.Var(&o.Shape, "image", "native image size HxW of MAT/CSV data (e.g. 32x32)")
	fs.Var(&o.Resize, "resize", "resize images to HxW with Catmull-Rom (e.g. 20x20); pixels must be in [0,1]")
	fs.Float64Var(&o.PixelMax, "pixel-max", 0, "divide MAT/CSV pixel values by this (e.g. 255); 0 keeps them")
	fs.StringVar(&o.MATX, "mat-x", "fea", "MAT variable holding the images")
	fs.StringVar(&o.MATY, "mat-y", "gnd", "MAT variable holding the labels")
	fs.BoolVar(&o.MATColumns, "mat-columns", false, "MAT images are the columns of -mat-x (default: rows)")
	fs.BoolVar(&o.MATTranspose, "mat-transpose", false, "MAT image pixels are in MATLAB column-major order; reorder to row-major (needs -image)")
	fs.BoolVar(&o.CSVHeader, "csv-header", false, "skip the first line of CSV data")
	fs.Float64Var(&o.NPYTol, "npy-tol", dataset.DefaultOrthoTol, "largest |BᵀB-I| entry accepted for an npy basis")
	fs.BoolVar(&o.NPYReorthonormalize, "npy-reorth", false, "re-orthonormalise npy bases instead of rejecting them")
}

// Ranges of the -max-* flags (the loaders' Limits; the defaults are
// dataset.DefaultLimits()). The upper ends are far above what the
// defaults need for the real data (MNIST: 47 MB, 47 M values) and keep
// every product of the loaders within int64; raising a limit lets a
// larger (or more hostile) input take the memory it says it needs.
const (
	maxMaxPixels    = 1 << 30 // -max-pixels: 32768x32768
	maxMaxSetImages = 1 << 24 // -max-set-images
	maxMaxValues    = 1 << 36 // -max-values: 512 GiB of float64
	maxMaxFileBytes = 1 << 40 // -max-file-bytes: 1 TiB
)

// addLimitFlags registers -max-pixels, -max-set-images, -max-values and
// -max-file-bytes, the input budget of every loader, on fs with
// dataset.DefaultLimits() as defaults. Their names are the Limit names of
// dataset.LimitError, so that an error's "(raise max-pixels)" names a flag
// (see internal/limitflag).
func addLimitFlags(fs *flag.FlagSet, lim *dataset.Limits) {
	d := dataset.DefaultLimits()
	int64Var(fs, &lim.PixelsPerImage, imageset.LimitPixels, d.PixelsPerImage, 1, maxMaxPixels,
		"input limit: pixels per image, as an image's header says or as -resize asks (checked before decoding)")
	int64Var(fs, &lim.ImagesPerSet, imageset.LimitSetImages, d.ImagesPerSet, 1, maxMaxSetImages,
		"input limit: images in one set folder (folder data)")
	int64Var(fs, &lim.TotalValues, imageset.LimitValues, d.TotalValues, 1, maxMaxValues,
		fmt.Sprintf("input limit: pixel values of the whole data set, 8 bytes each, plus %d per image or basis", imageset.ItemCost))
	int64Var(fs, &lim.FileBytes, imageset.LimitFileBytes, d.FileBytes, 1, maxMaxFileBytes,
		"input limit: bytes of one data file after decompression (gzip, MAT's zlib), or its size when stored raw")
}

// Limits of the data flags: -image and -resize sides (as dataset.Size
// parses them), -image's pixels (the loaders' per-image limit), and
// -pixel-max. -resize is bounded by model.MaxDim pixels per image.
const (
	maxSide        = 1 << 15
	maxImagePixels = 1 << 26
	maxPixelMax    = 1e9
)

// check checks the data flags before any work: -data is given and parses,
// -width and -height go together and agree with -resize, and the image
// sizes are within their limits.
func (f *dataFlags) check(fs *flag.FlagSet) error {
	if f.spec == "" {
		return usagef(fs, "-data is required")
	}
	if _, err := dataset.ParseSpec(f.spec); err != nil {
		return usagef(fs, "-data: %v", err)
	}
	if (f.width == 0) != (f.height == 0) {
		return usagef(fs, "-width and -height go together (got %d x %d)", f.width, f.height)
	}
	if f.width > 0 {
		if f.opt.Resize != (dataset.Size{}) && f.opt.Resize != (dataset.Size{Height: f.height, Width: f.width}) {
			return usagef(fs, "-resize %s and -width/-height %dx%d disagree", f.opt.Resize.String(), f.height, f.width)
		}
		f.opt.Resize = dataset.Size{Height: f.height, Width: f.width}
	}
	if r := f.opt.Resize; r != (dataset.Size{}) {
		// Whichever limit is lower, named: the loaders' (a flag), or the
		// model's D (fixed).
		px := int64(r.Width) * int64(r.Height)
		lim := f.opt.Limits.WithDefaults()
		if lim.PixelsPerImage < model.MaxDim && px > lim.PixelsPerImage {
			return usagef(fs, "-resize %s: %d pixels per image, the limit is %d (-max-pixels)", r.String(), px, lim.PixelsPerImage)
		}
		if px > model.MaxDim {
			return usagef(fs, "-resize %s: %d pixels per image, the limit is %d (a model's D)", r.String(), px, model.MaxDim)
		}
	}
	if s := f.opt.Shape; s.Width*s.Height > maxImagePixels {
		return usagef(fs, "-image %s: %d pixels per image, the limit is %d", s.String(), s.Width*s.Height, maxImagePixels)
	}
	return nil
}

// load checks the flags and loads the data. modelSize is the image size a
// model was trained on (zero when unknown, or when training): when the user
// asks for no resize, images of another size are resized to it, so that
// eval, predict and explain need not repeat the training's -resize.
// It must follow check. The load stops soon when ctx is cancelled (the
// error then wraps ctx.Err()); it works within the -max-* limits, and an
// input over one of them is an error that names its flag.
func (f *dataFlags) load(ctx context.Context, fs *flag.FlagSet, workers int, modelSize dataset.Size) (*dataset.Dataset, error) {
	if err := f.check(fs); err != nil {
		return nil, err
	}
	sp, _ := dataset.ParseSpec(f.spec)
	opt := f.opt
	auto := opt.Resize == (dataset.Size{}) && modelSize.Width > 0 && modelSize.Height > 0 && sp.Scheme != "npy"
	if auto && sp.Scheme == "folder" {
		// Folder images are resized as they are decoded, as in training.
		opt.Resize = modelSize
	}
	opt.Workers = workers
	ds, err := sp.LoadContext(ctx, opt)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("interrupted while loading %s: %w", f.spec, ctx.Err())
		}
		return nil, limitflag.Hint(fmt.Errorf("load %s: %w", f.spec, err))
	}
	if auto && ds.Width > 0 && ds.Height > 0 && (ds.Width != modelSize.Width || ds.Height != modelSize.Height) {
		if ds, err = ds.ResizedContext(ctx, modelSize.Width, modelSize.Height, opt.Limits); err != nil {
			return nil, limitflag.Hint(fmt.Errorf("load %s: resize to the model's %s: %w", f.spec, modelSize.String(), err))
		}
	}
	return ds, nil
}

// kind of the items of a data set.
func dataKind(ds *dataset.Dataset) string {
	switch {
	case ds.Bases != nil:
		return "bases"
	case ds.Sets != nil:
		return "sets"
	default:
		return "images"
	}
}

// shapeOf returns the image shape of ds: its own, else a square when D is
// a perfect square, else one row.
func shapeOf(ds *dataset.Dataset, dim int) (h, w int) {
	if ds != nil && ds.Width > 0 && ds.Height > 0 && ds.Width*ds.Height == dim {
		return ds.Height, ds.Width
	}
	if s := int(math.Round(math.Sqrt(float64(dim)))); s*s == dim {
		return s, s
	}
	return 1, dim
}

// describe summarises a data set in one line.
func describe(ds *dataset.Dataset) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: ", ds.Source)
	switch dataKind(ds) {
	case "bases":
		fmt.Fprintf(&b, "%d bases of %d x %d", len(ds.Bases), ds.Dim, ds.SubDim)
	case "sets":
		lo, hi := math.MaxInt, 0
		for _, s := range ds.Sets {
			lo, hi = min(lo, len(s.Images)), max(hi, len(s.Images))
		}
		fmt.Fprintf(&b, "%d image sets (%d-%d images each, %d images)", len(ds.Sets), lo, hi, len(ds.Images))
	default:
		fmt.Fprintf(&b, "%d images", len(ds.Images))
	}
	if ds.Width > 0 {
		fmt.Fprintf(&b, " of %dx%d pixels (D=%d)", ds.Height, ds.Width, ds.Dim)
	} else {
		fmt.Fprintf(&b, " of D=%d pixels", ds.Dim)
	}
	fmt.Fprintf(&b, ", %d classes", len(ds.Classes))
	counts := make([]int, len(ds.Classes))
	if ds.Sets != nil {
		for _, s := range ds.Sets {
			counts[s.Label]++
		}
	} else {
		counts = ds.ClassCounts()
	}
	const show = 12
	parts := make([]string, 0, show+1)
	for c, n := range counts {
		if c == show {
			parts = append(parts, "...")
			break
		}
		parts = append(parts, fmt.Sprintf("%s:%d", ds.Classes[c], n))
	}
	fmt.Fprintf(&b, " (%s)", strings.Join(parts, " "))
	return b.String()
}

// className returns the name of the model's class c.
func className(m *model.Model, c int) string {
	if c < 0 {
		return "(rejected)"
	}
	if n := m.ClassName(c); n != "" {
		return n
	}
	return fmt.Sprint(c)
}

// samples are the items a trained model is applied to: single images,
// image sets (as subspaces) or bases.
type samples struct {
	kind   string // "image", "set" or "basis"
	ds     *dataset.Dataset
	images []int              // kind "image": indices into ds.Images
	subs   *dataset.Subspaces // kinds "set" and "basis"
	labels []int              // the model's class of each sample, -1 if unknown
	data   []int              // the data set's class of each sample
	names  []string
}

func (s *samples) len() int { return len(s.names) }

// subspaceOf returns sample i as a subspace (kinds "set" and "basis").
func (s *samples) subspaceOf(i int) *subspace.Subspace { return s.subs.Subs[i] }

// evalSamples turns ds into the samples the model m classifies
// (dataset.EvalSamples: single images for image data unless m > 0 groups
// them into sets of m, image sets for folder data, bases for npy data),
// with the model's class of each; it words the checks of the sizes for the
// command line first.
func evalSamples(mod *model.Model, ds *dataset.Dataset, groupM int, seed uint64, workers int, skipBad bool) (*samples, error) {
	if ds.Dim != mod.Dim() {
		h, w := shapeOf(ds, ds.Dim)
		hint := ""
		if ds.Bases == nil {
			hint = " (resize the images with -resize HxW or -width/-height)"
		}
		return nil, fmt.Errorf("%s has %d pixels per image (%dx%d), the model wants D=%d%s", ds.Source, ds.Dim, h, w, mod.Dim(), hint)
	}
	d := mod.SubspaceDim()
	if ds.Bases != nil && ds.SubDim != d {
		return nil, fmt.Errorf("%s holds bases of d=%d, the model has d=%d", ds.Source, ds.SubDim, d)
	}
	ts, err := dataset.EvalSamples(ds, dataset.EvalOptions{D: d, M: groupM, Seed: seed, Workers: workers, SkipBad: skipBad})
	if err != nil {
		if ds.Bases != nil {
			return nil, err
		}
		return nil, setError(err, d)
	}
	names := make([]string, mod.NumClasses())
	for c := range names {
		names[c] = mod.ClassName(c)
	}
	cm := ds.ClassMap(names)
	s := &samples{kind: ts.Kind, ds: ds, images: ts.Images, subs: ts.Subs, data: ts.Labels, names: ts.Names}
	s.labels = make([]int, len(s.data))
	for i, c := range s.data {
		s.labels[i] = cm[c]
	}
	return s, nil
}

// setError adds advice to the error of a set that cannot become a subspace.
func setError(err error, d int) error {
	switch {
	case errors.Is(err, subspace.ErrTooFewImages):
		return fmt.Errorf("%w (every set needs at least d=%d images; lower -d, or pass -skip-bad to leave such sets out)", err, d)
	case errors.Is(err, subspace.ErrRankDeficient):
		return fmt.Errorf("%w (lower -d, or pass -skip-bad to leave such sets out)", err)
	case errors.Is(err, dataset.ErrTooSmall):
		return fmt.Errorf("%w (lower -m)", err)
	}
	return err
}

// unknownClasses lists the data's classes the model does not know.
func unknownClasses(s *samples) []string {
	seen := map[string]bool{}
	for i, l := range s.labels {
		if l < 0 {
			seen[s.ds.Classes[s.data[i]]] = true
		}
	}
	var out []string
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// skippedNames lists the inputs -skip-bad left out.
func skippedNames(s *samples) []string {
	out := []string{}
	if s.subs != nil {
		for _, k := range s.subs.Skipped {
			out = append(out, k.Name)
		}
	}
	return out
}
