package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/grlgq/grlgq/cmd/internal/base"
	"github.com/grlgq/grlgq/dataset"
	"github.com/grlgq/grlgq/dataset/imageset"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/predict"
	"github.com/grlgq/grlgq/subspace"
)

const specHelp = dataset.SpecHelp

// dataFlags are the flags that say where the data are and how to read
// them: -data (a dataset.SourceFlag, parsed once into the typed source of
// its scheme) and the format flags bound to the typed values' fields.
type dataFlags struct {
	src           dataset.SourceFlag
	shape         dataset.Size // -image, -mat-image: the native size of MAT and CSV images
	width, height int          // -width, -height: -resize in two flags
	noMATLabels   bool         // -mat-y "" given
	progress      io.Writer    // where the bars of decoding and subspaces go (a terminal); nil: none
}

func (f *dataFlags) addFlags(fs *flag.FlagSet) {
	s := &f.src
	fs.Var(s, "data", "the data: "+specHelp+" (leave LABELS out, use -csv-label none, -mat-y \"\", or a folder of set folders for data without labels: predict)")
	fs.Var(&f.shape, "image", "native image size HxW of MAT/CSV data (e.g. 32x32)")
	fs.Var(&f.shape, "mat-image", "same as -image: native image size HxW of MAT/CSV data")
	fs.Var(&s.Resize, "resize", "resize images to HxW with Catmull-Rom (e.g. 20x20); pixels must be in [0,1]")
	floatVar(fs, &s.PixelMax, "pixel-max", 0, 0, maxPixelMax, false, false, "divide MAT/CSV pixel values by this (e.g. 255); 0 keeps them")
	fs.StringVar(&s.MAT.X, "mat-x", "fea", "MAT variable holding the images")
	fs.StringVar(&s.MAT.Y, "mat-y", "gnd", "MAT variable holding the labels (\"\": none)")
	fs.BoolVar(&s.MAT.Columns, "mat-columns", false, "MAT images are the columns of -mat-x (default: rows)")
	fs.BoolVar(&s.MAT.Transpose, "mat-transpose", false, "MAT image pixels are in MATLAB column-major order; reorder to row-major (needs -image)")
	fs.BoolVar(&s.CSV.Header, "csv-header", false, "skip the first line of CSV data")
	fs.TextVar(&s.CSV.Label, "csv-label", dataset.LabelLast, "where CSV lines hold their label: last, first, or none (data without labels)")
	fs.TextVar(&s.Folder.Layout, "layout", dataset.LayoutAuto, "folder data: classes (DIR/<class>/<set>/<images>), sets (DIR/<set>/<images>, no labels), or auto (told from the tree)")
	floatVar(fs, &s.NPY.Tol, "npy-tol", dataset.DefaultOrthoTol, 0, 1, true, false, "largest |BᵀB-I| entry accepted for an npy basis")
	fs.BoolVar(&s.NPY.Reorthonormalize, "npy-reorth", false, "re-orthonormalise npy bases instead of rejecting them")
	intVar(fs, &f.width, "width", 0, 0, maxSide, "resize images to this width (with -height; same as -resize HEIGHTxWIDTH; 0: no resize)")
	intVar(fs, &f.height, "height", 0, 0, maxSide, "resize images to this height (with -width; 0: no resize)")
	base.AddLimitFlags(fs, &s.Limits, dataset.DefaultLimits(), true)
}

// Limits of the data flags: -image and -resize sides (as dataset.Size
// parses them), -image's pixels (the loaders' per-image limit), and
// -pixel-max. -resize is bounded by model.MaxDim pixels per image.
const (
	maxSide        = 1 << 15
	maxImagePixels = 1 << 26
	maxPixelMax    = 1e9
)

// check checks the data flags before any work: -data is given, -width
// and -height go together and agree with -resize, and the image sizes are
// within their limits. It completes the source with the flags that are
// not its fields.
func (f *dataFlags) check(fs *flag.FlagSet) error {
	s := &f.src
	if s.Source() == nil {
		return usagef(fs, "-data is required")
	}
	if (f.width == 0) != (f.height == 0) {
		return usagef(fs, "-width and -height go together (got -width %d -height %d)", f.width, f.height)
	}
	if f.width > 0 {
		if s.Resize != (dataset.Size{}) && s.Resize != (dataset.Size{Height: f.height, Width: f.width}) {
			return usagef(fs, "-resize %s and -width %d -height %d (%s) disagree", s.Resize.String(), f.width, f.height, imageset.FormatSize(f.width, f.height))
		}
		s.Resize = dataset.Size{Height: f.height, Width: f.width}
	}
	if r := s.Resize; r != (dataset.Size{}) {
		// Whichever limit is lower, named: the loaders' (a flag), or the
		// model's D (fixed).
		px := int64(r.Width) * int64(r.Height)
		lim := s.Limits.WithDefaults()
		if lim.PixelsPerImage < model.MaxDim && px > lim.PixelsPerImage {
			return usagef(fs, "-resize %s: %d pixels per image, the limit is %d (-max-pixels)", r.String(), px, lim.PixelsPerImage)
		}
		if px > model.MaxDim {
			return usagef(fs, "-resize %s: %d pixels per image, the limit is %d (a model's D)", r.String(), px, model.MaxDim)
		}
		if s.Source().Kind() == dataset.KindBases {
			return usagef(fs, "-resize %s: %s holds precomputed bases, which cannot be resized", r.String(), s.String())
		}
	}
	if sh := f.shape; sh.Width*sh.Height > maxImagePixels {
		return usagef(fs, "-image %s: %d pixels per image, the limit is %d", sh.String(), sh.Width*sh.Height, maxImagePixels)
	}
	s.Width, s.Height = f.shape.Width, f.shape.Height
	s.MAT.NoLabels = isSet(fs, "mat-y") && s.MAT.Y == ""
	return nil
}

// source returns the typed source the flags describe, with workers
// decoding goroutines; it follows check.
func (f *dataFlags) source(workers int) dataset.Source {
	f.src.Workers = workers
	return f.src.Source()
}

// load loads the data (dataset.LoadAt at modelSize, the image size a
// model was trained on, zero when unknown or training: without a resize
// of their own, images of another size are resized to it, so that eval,
// predict and explain need not repeat the training's -resize). It follows
// check. The load stops soon when ctx is cancelled (the error then wraps
// ctx.Err()); it works within the -max-* limits, and an input over one of
// them is an error that names its flag.
func (f *dataFlags) load(ctx context.Context, workers int, modelSize dataset.Size) (*dataset.Dataset, error) {
	bar := base.NewPercent(orDiscard(f.progress), "decoding images", f.progress == nil)
	f.src.Progress = bar.Update
	src := f.source(workers)
	ds, err := dataset.LoadAt(ctx, src, modelSize.Width, modelSize.Height)
	bar.Clear()
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("interrupted while loading %s: %w", src, ctx.Err())
		}
		return nil, base.Hint(fmt.Errorf("load %s: %w", src, err))
	}
	return ds, nil
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

// sizeWarnings are the warnings about data loaded for a model whose
// image size is w x h (eval, predict, explain and train -resume):
// imageWarning's and resizeWarning's, those that have something to say.
// The callers keep them for the end of a successful run (env.warnLater),
// so that a failure stays one line.
func (f *dataFlags) sizeWarnings(fs *flag.FlagSet, w, h int) []string {
	var out []string
	for _, msg := range []string{f.imageWarning(fs, w, h), f.resizeWarning(fs, w, h)} {
		if msg != "" {
			out = append(out, msg)
		}
	}
	return out
}

// resizeWarning says when -resize (or -width and -height) gives images a
// size other than w x h, the model's, with as many pixels: a size with
// other pixels fails (evalSamples; Model.Fits for train -resume), but
// this one is classified or trained on, its pixels read as an image of
// the model's shape (16x64 for a 32x32 model), as silently as a typo in
// -image. Leaving -resize out resizes to the model's size. "" when there
// is nothing to say.
func (f *dataFlags) resizeWarning(fs *flag.FlagSet, w, h int) string {
	r, want := f.src.Resize, dataset.Size{Height: h, Width: w}
	if w <= 0 || h <= 0 || r == (dataset.Size{}) || r == want || r.Width*r.Height != w*h {
		return ""
	}
	given, name := "-resize "+r.String(), "-resize"
	if !isSet(fs, "resize") {
		given, name = fmt.Sprintf("-width %d -height %d", r.Width, r.Height), "-width/-height"
	}
	return fmt.Sprintf("%s is not the model's image size %s: the images were resized to %s and their %d pixels read as %s ones (check %s; leave it out to resize to %s)",
		given, want.String(), r.String(), w*h, want.String(), name, want.String())
}

// imageWarning says when -image (or -mat-image) gives MAT or CSV images a
// size other than w x h, the model's, and no -resize says to resize
// them: the load then resizes them to the model's size, as it should
// when they are of another resolution, but a typo in -image (4x16 for
// 8x8: the same pixels, read as another shape) is resized to garbage
// as silently. "" when there is nothing to say.
func (f *dataFlags) imageWarning(fs *flag.FlagSet, w, h int) string {
	shape, want := f.shape, dataset.Size{Height: h, Width: w}
	switch f.src.Source().(type) {
	case dataset.MAT, dataset.CSV:
	default:
		return "" // -image does not apply
	}
	if w <= 0 || h <= 0 || shape == (dataset.Size{}) || shape == want || f.src.Resize != (dataset.Size{}) {
		return ""
	}
	name := "image"
	if isSet(fs, "mat-image") && !isSet(fs, "image") {
		name = "mat-image"
	}
	return fmt.Sprintf("-%s %s is not the model's image size %s: the images were resized to %s (check -%s; give -resize %s if the resize is meant)",
		name, shape.String(), want.String(), want.String(), name, want.String())
}

// describe summarises a data set in one line.
func describe(ds *dataset.Dataset) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: ", ds.Source)
	switch ds.Kind() {
	case dataset.KindBases:
		fmt.Fprintf(&b, "%d bases of %d x %d", len(ds.Bases), ds.Dim, ds.SubDim)
	case dataset.KindSets:
		lo, hi := math.MaxInt, 0
		for _, s := range ds.Sets {
			lo, hi = min(lo, len(s.Images)), max(hi, len(s.Images))
		}
		fmt.Fprintf(&b, "%d image sets (%d-%d images each, %d images)", len(ds.Sets), lo, hi, len(ds.Images))
	default:
		fmt.Fprintf(&b, "%d images", len(ds.Images))
	}
	if ds.Width > 0 {
		fmt.Fprintf(&b, " of %s pixels (D=%d)", imageset.FormatSize(ds.Width, ds.Height), ds.Dim)
	} else {
		fmt.Fprintf(&b, " of D=%d pixels", ds.Dim)
	}
	if !ds.Labelled() {
		b.WriteString(", no labels")
		return b.String()
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

// samples are the items a trained model is applied to (predict.Samples:
// single images, image sets as subspaces, or bases), as the model's
// samples, with the model's class of each (-1: unknown, or no labels).
type samples struct {
	*dataset.Samples
	ps     *predict.Samples
	ds     *dataset.Dataset
	x      []model.Sample
	labels []int
}

func (s *samples) len() int { return len(s.x) }

// trueName is the data's class name of sample i ("" without labels).
func (s *samples) trueName(i int) string { return s.ps.TrueName(i) }

// evalSamples turns ds into the samples the model m classifies
// (predict.Prepare: single images for image data unless m > 0 groups
// them into sets of m, image sets for folder data, bases for npy data),
// with the model's class of each; it words the checks of the sizes for the
// command line first.
func evalSamples(mod *model.Model, ds *dataset.Dataset, groupM int, seed uint64, workers int, skipBad bool, progress io.Writer) (*samples, error) {
	if ds.Dim != mod.Dim() {
		h, w := shapeOf(ds, ds.Dim)
		want := fmt.Sprintf("D=%d", mod.Dim())
		if ds.Kind() != dataset.KindBases {
			mw, mh := mod.ImageSize()
			switch s := int(math.Round(math.Sqrt(float64(mod.Dim())))); {
			case mw > 0:
				sz := imageset.FormatSize(mw, mh)
				want = fmt.Sprintf("%s images (D=%d): use -resize %s (the default for this model when -resize is left out)", sz, mod.Dim(), sz)
			case s*s == mod.Dim():
				sz := imageset.FormatSize(s, s)
				want += fmt.Sprintf(" pixels per image, e.g. %s: use -resize %s (or another HxW with H·W = %d)", sz, sz, mod.Dim())
			default:
				want += fmt.Sprintf(" pixels per image: use -resize HxW with H·W = %d", mod.Dim())
			}
		}
		return nil, fmt.Errorf("%s has %d pixels per image (%s), the model wants %s", ds.Source, ds.Dim, imageset.FormatSize(w, h), want)
	}
	d := mod.SubspaceDim()
	if ds.Kind() == dataset.KindBases && ds.SubDim < d {
		return nil, fmt.Errorf("%s holds bases of d=%d, the model has d=%d", ds.Source, ds.SubDim, d)
	}
	bar := base.NewPercent(orDiscard(progress), "building subspaces", progress == nil)
	ps, err := predict.Prepare(mod, ds, dataset.EvalOptions{D: d, M: groupM, Seed: seed, Workers: workers, SkipBad: skipBad, Progress: bar.Update})
	bar.Clear()
	if err != nil {
		if ds.Kind() == dataset.KindBases {
			return nil, err
		}
		return nil, setError(err, d)
	}
	return &samples{Samples: ps.Samples, ps: ps, ds: ds, x: ps.X, labels: ps.Truth}, nil
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
	case errors.Is(err, dataset.ErrNoLabels):
		return fmt.Errorf("%w (training, and -m groups, need labelled data)", err)
	}
	return err
}

// unknownClasses lists the data's classes the model does not know
// (predict.Samples.UnknownClasses).
func unknownClasses(s *samples) []string { return s.ps.UnknownClasses() }

// skippedNames lists the inputs -skip-bad left out.
func skippedNames(s *samples) []string {
	out := []string{}
	if s.Subs != nil {
		for _, k := range s.Subs.Skipped {
			out = append(out, k.Name)
		}
	}
	return out
}

// orDiscard is w, or io.Discard for nil.
func orDiscard(w io.Writer) io.Writer {
	if w == nil {
		return io.Discard
	}
	return w
}
