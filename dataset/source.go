package dataset

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/grlgq/grlgq/dataset/imageset"
)

// Source is a data set on disk in one format: IDX, Folder, MAT, NPY or
// CSV, each a typed value holding its files, its options and its limits.
// Load reads it (within its Limits, stopping soon when ctx is cancelled:
// the error then wraps ctx.Err()); Kind says what it holds before it is
// read (single images, image sets or bases: the Kind of the Dataset Load
// returns); Inputs lists the files or the folder it reads; String is its
// command-line form, SCHEME:PATH[,PATH] (see ParseSource).
type Source interface {
	Load(ctx context.Context) (*Dataset, error)
	Kind() Kind
	Inputs() []string
	String() string
}

// Kind returns KindImages.
func (IDX) Kind() Kind { return KindImages }

// Kind returns KindSets.
func (Folder) Kind() Kind { return KindSets }

// Kind returns KindImages.
func (MAT) Kind() Kind { return KindImages }

// Kind returns KindBases.
func (NPY) Kind() Kind { return KindBases }

// Kind returns KindImages.
func (CSV) Kind() Kind { return KindImages }

// ErrSpec: a data set specification that cannot be parsed.
var ErrSpec = errors.New("dataset: bad data set specification")

// SpecHelp is the syntax of a specification, one form per scheme
// separated by " | " (the form ParseSource's errors quote, and a help
// text can show). Brackets mark what may be left out: data without
// labels.
const SpecHelp = "idx:IMAGES[,LABELS] | folder:DIR | mat:FILE | npy:DATA[,LABELS] | csv:FILE"

// schemes maps each scheme to the names of its paths and how many of
// them it needs.
var schemes = map[string]struct {
	paths []string
	need  int
}{
	"idx":    {[]string{"IMAGES", "LABELS"}, 1},
	"folder": {[]string{"DIR"}, 1},
	"mat":    {[]string{"FILE"}, 1},
	"npy":    {[]string{"DATA", "LABELS"}, 1},
	"csv":    {[]string{"FILE"}, 1},
}

// parseSpec splits SCHEME:PATH[,PATH] and checks its paths.
func parseSpec(s string) (string, []string, error) {
	scheme, rest, ok := strings.Cut(s, ":")
	if !ok {
		return "", nil, fmt.Errorf("%w %q: want SCHEME:PATH%s, one of %s", ErrSpec, s, guessScheme(s), SpecHelp)
	}
	sc, known := schemes[scheme]
	if !known {
		return "", nil, fmt.Errorf("%w %q: unknown scheme %q%s, want one of %s", ErrSpec, s, scheme, guessScheme(rest), SpecHelp)
	}
	paths := strings.Split(rest, ",")
	if len(paths) < sc.need || len(paths) > len(sc.paths) {
		form := scheme + ":" + sc.paths[0]
		if len(sc.paths) > 1 {
			form += "[," + sc.paths[1] + "]"
		}
		return "", nil, fmt.Errorf("%w %q: %s takes %s, got %d path(s)", ErrSpec, s, scheme, form, len(paths))
	}
	for i, p := range paths {
		if strings.TrimSpace(p) == "" {
			return "", nil, fmt.Errorf("%w %q: empty %s", ErrSpec, s, sc.paths[i])
		}
	}
	return scheme, paths, nil
}

// guessScheme is the hint of an error about the specification path that
// has no scheme (or an unknown one): " (did you mean csv:PATH?)" when
// the name says which scheme it takes (.csv and .csv.gz, .npy, .mat,
// IDX's -ubyte and .idx names, a name ending in a slash), "" otherwise.
// From the name alone, never guessed into a valid specification: the
// scheme says how to read the file, and a wrong guess would read it
// wrongly without a word.
func guessScheme(path string) string {
	name := strings.ToLower(path)
	var scheme string
	switch {
	case path == "":
		return ""
	case strings.HasSuffix(name, ".csv"), strings.HasSuffix(name, ".csv.gz"):
		scheme = "csv"
	case strings.HasSuffix(name, ".npy"):
		scheme = "npy"
	case strings.HasSuffix(name, ".mat"):
		scheme = "mat"
	case strings.HasSuffix(name, "-ubyte"), strings.HasSuffix(name, "-ubyte.gz"), strings.HasSuffix(name, ".idx"), strings.HasSuffix(name, ".idx.gz"):
		scheme = "idx"
	case strings.HasSuffix(path, "/"):
		scheme = "folder"
	default:
		return ""
	}
	return " (did you mean " + scheme + ":" + path + "?)"
}

// ParseSource parses the command-line form of a source into its typed
// value with the default options: idx:IMAGES[,LABELS] (IDX),
// folder:DIR (Folder, its layout told from the tree), mat:FILE (MAT, the
// variables fea and gnd), npy:DATA[,LABELS] (NPY) or csv:FILE (CSV, the
// label in the last column). A labels file left out reads data without
// labels. Paths may not contain commas. A command line that sets options
// by flags uses SourceFlag.
func ParseSource(s string) (Source, error) {
	var f SourceFlag
	if err := f.Set(s); err != nil {
		return nil, err
	}
	return f.Source(), nil
}

// SourceFlag is the command-line form of a Source, a flag.Value for a
// flag such as -data SCHEME:PATH[,PATH]: Set parses the specification once
// and chooses the typed value of its scheme; the command line binds its
// format flags to the fields of those values (-mat-x to MAT.X, -csv-header
// to CSV.Header, ...) and its flags of options several formats share to
// the shared fields below, which Source copies into the chosen value.
type SourceFlag struct {
	IDX    IDX
	Folder Folder
	MAT    MAT
	NPY    NPY
	CSV    CSV

	// Shared options, set on every format that has them: the native image
	// size (MAT, CSV), the pixel divisor (MAT, CSV), the resize target
	// (IDX, Folder, MAT, CSV), the decoding goroutines (Folder) and the
	// limits (all).
	Width, Height int
	PixelMax      float64
	Resize        Size
	Workers       int
	Limits        Limits
	// Progress (Folder only): called after each image decoded.
	Progress func(done, total int)

	scheme, spec string
}

// Set parses SCHEME:PATH[,PATH] (see ParseSource).
func (f *SourceFlag) Set(s string) error {
	scheme, paths, err := parseSpec(s)
	if err != nil {
		return err
	}
	path := func(i int) string {
		if i < len(paths) {
			return paths[i]
		}
		return ""
	}
	switch scheme {
	case "idx":
		f.IDX.Images, f.IDX.Labels = path(0), path(1)
	case "folder":
		f.Folder.Root = path(0)
	case "mat":
		f.MAT.File = path(0)
	case "npy":
		f.NPY.Data, f.NPY.Labels = path(0), path(1)
	case "csv":
		f.CSV.File = path(0)
	}
	f.scheme, f.spec = scheme, s
	return nil
}

// String returns the specification given to Set ("" before).
func (f *SourceFlag) String() string {
	if f == nil {
		return ""
	}
	return f.spec
}

// Scheme returns the scheme of the specification ("" before Set).
func (f *SourceFlag) Scheme() string { return f.scheme }

// Source returns the chosen typed value, the shared options copied into
// it (nil before Set).
func (f *SourceFlag) Source() Source {
	switch f.scheme {
	case "idx":
		s := f.IDX
		s.Resize, s.Limits = f.Resize, f.Limits
		return s
	case "folder":
		s := f.Folder
		s.Resize, s.Workers, s.Limits, s.Progress = f.Resize, f.Workers, f.Limits, f.Progress
		return s
	case "mat":
		s := f.MAT
		s.Width, s.Height, s.PixelMax, s.Resize, s.Limits = f.Width, f.Height, f.PixelMax, f.Resize, f.Limits
		return s
	case "npy":
		s := f.NPY
		s.Limits = f.Limits
		return s
	case "csv":
		s := f.CSV
		s.Width, s.Height, s.PixelMax, s.Resize, s.Limits = f.Width, f.Height, f.PixelMax, f.Resize, f.Limits
		return s
	}
	return nil
}

// LoadAt loads src with its images at w x h, the size a model was
// trained on, unless src asks for a resize of its own: a folder decodes
// them at that size, and images of another format are resized after
// loading when their shape is known and differs (images of that size are
// not resampled). Bases, and w or h of 0, load as they are. It is how a
// trained model is applied to data of another image size.
func LoadAt(ctx context.Context, src Source, w, h int) (*Dataset, error) {
	target := Size{Height: h, Width: w}
	if w <= 0 || h <= 0 {
		return src.Load(ctx)
	}
	switch s := src.(type) {
	case Folder:
		if s.Resize == (Size{}) {
			s.Resize = target
		}
		return s.Load(ctx)
	case NPY:
		return s.Load(ctx)
	}
	ds, err := src.Load(ctx)
	if err != nil || !resizable(src) || ds.Width <= 0 || ds.Height <= 0 || (ds.Width == w && ds.Height == h) {
		return ds, err
	}
	return ds.Resized(ctx, w, h, limitsOf(src))
}

// resizable reports whether src asks for no resize of its own.
func resizable(src Source) bool {
	switch s := src.(type) {
	case IDX:
		return s.Resize == (Size{})
	case MAT:
		return s.Resize == (Size{})
	case CSV:
		return s.Resize == (Size{})
	}
	return false
}

// limitsOf returns the limits of src.
func limitsOf(src Source) Limits {
	switch s := src.(type) {
	case IDX:
		return s.Limits
	case Folder:
		return s.Limits
	case MAT:
		return s.Limits
	case NPY:
		return s.Limits
	case CSV:
		return s.Limits
	}
	return Limits{}
}

// resizeLoaded resamples the images of ds to r (a Load's Resize option),
// after checking r against the pixels per image before anything is read
// (check, called first) and the values of the result (Resized).
func resizeLoaded(ctx context.Context, ds *Dataset, r Size, lim Limits) (*Dataset, error) {
	if r == (Size{}) {
		return ds, nil
	}
	return ds.Resized(ctx, r.Width, r.Height, lim)
}

// checkResize refuses a resize target over the pixels per image before
// anything is read.
func checkResize(name string, r Size, lim Limits) error {
	if r == (Size{}) {
		return nil
	}
	return checkLimit(name, "resize to "+r.String(), imageset.LimitPixels, mulSat(int64(r.Width), int64(r.Height)), lim.WithDefaults().PixelsPerImage)
}

// loaded is the end of every Load: a load cancelled during its last step
// (which need not check) returns the context's error, not the data.
func loaded(ctx context.Context, name string, ds *Dataset, err error) (*Dataset, error) {
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", name, err)
	}
	return ds, nil
}

// Size is an image size, written HEIGHTxWIDTH on the command line (rows x
// columns, as MATLAB and numpy write shapes: 24 rows of 38 pixels is 24x38).
// The zero Size means "not given". Write a literal with its keys,
// Size{Height: 24, Width: 38}: its fields are height first, unlike the
// (width, height) arguments of LoadAt, Dataset.Resized and Shifted.
type Size struct{ Height, Width int }

// String formats s as HxW (imageset.FormatSize), "" for the zero Size.
// Its receiver is a value, so a Size prints so wherever fmt meets it.
func (s Size) String() string {
	if s == (Size{}) {
		return ""
	}
	return imageset.FormatSize(s.Width, s.Height)
}

// Set parses HxW (with String, Size is a flag.Value for a command line;
// this package registers no flags).
func (s *Size) Set(v string) error {
	hs, ws, ok := strings.Cut(strings.ToLower(v), "x")
	h, err1 := strconv.Atoi(hs)
	w, err2 := strconv.Atoi(ws)
	if !ok || err1 != nil || err2 != nil || h <= 0 || w <= 0 || h > 1<<15 || w > 1<<15 {
		return fmt.Errorf("image size %q: want HEIGHTxWIDTH, e.g. 32x32", v)
	}
	s.Height, s.Width = h, w
	return nil
}
