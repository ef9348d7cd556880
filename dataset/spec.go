package dataset

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/grlgq/grlgq/dataset/imageset"
)

// ErrSpec: a data set specification that cannot be parsed.
var ErrSpec = errors.New("dataset: bad data set specification")

// Spec is a parsed data set specification (see ParseSpec).
type Spec struct {
	Scheme string   // "idx", "folder", "mat", "npy" or "csv"
	Paths  []string // the files or folder, in the order given
}

// schemes maps each scheme to its number of paths and their names.
var schemes = map[string][]string{
	"idx":    {"IMAGES", "LABELS"},
	"folder": {"DIR"},
	"mat":    {"FILE"},
	"npy":    {"DATA", "LABELS"},
	"csv":    {"FILE"},
}

// SpecHelp is the syntax of a specification, one form per scheme
// separated by " | " (the form ParseSpec's errors quote, and a help text
// can show).
const SpecHelp = "idx:IMAGES,LABELS | folder:DIR | mat:FILE | npy:DATA,LABELS | csv:FILE"

// ParseSpec parses SCHEME:PATH[,PATH]: idx:IMAGES,LABELS, folder:DIR,
// mat:FILE, npy:DATA,LABELS or csv:FILE. Paths may not contain commas.
func ParseSpec(s string) (Spec, error) {
	scheme, rest, ok := strings.Cut(s, ":")
	if !ok {
		return Spec{}, fmt.Errorf("%w %q: want SCHEME:PATH, one of %s", ErrSpec, s, SpecHelp)
	}
	parts, known := schemes[scheme]
	if !known {
		return Spec{}, fmt.Errorf("%w %q: unknown scheme %q, want one of %s", ErrSpec, s, scheme, SpecHelp)
	}
	paths := strings.Split(rest, ",")
	if len(paths) != len(parts) {
		return Spec{}, fmt.Errorf("%w %q: %s needs %d path(s) %s:%s, got %d", ErrSpec, s, scheme, len(parts), scheme, strings.Join(parts, ","), len(paths))
	}
	for i, p := range paths {
		if strings.TrimSpace(p) == "" {
			return Spec{}, fmt.Errorf("%w %q: empty %s", ErrSpec, s, parts[i])
		}
	}
	return Spec{Scheme: scheme, Paths: paths}, nil
}

func (sp Spec) String() string { return sp.Scheme + ":" + strings.Join(sp.Paths, ",") }

// Size is an image size, written HEIGHTxWIDTH on the command line (rows x
// columns, as MATLAB and numpy write shapes: 24 rows of 38 pixels is 24x38).
// The zero Size means "not given".
type Size struct{ Height, Width int }

// String formats s as HxW ("" for the zero Size).
func (s *Size) String() string {
	if s == nil || (s.Height == 0 && s.Width == 0) {
		return ""
	}
	return fmt.Sprintf("%dx%d", s.Height, s.Width)
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

// Options controls Load. The zero value loads every format with its
// defaults.
type Options struct {
	// Shape is the native image shape of MAT and CSV data (IDX and folder
	// data know their own; a MAT 3-D array too).
	Shape Size
	// Resize resamples every image to this size after loading (folder data
	// while decoding), Catmull-Rom; the zero Size keeps the size. The
	// pixels must be in [0, 1] (see PixelMax).
	Resize Size
	// PixelMax divides the pixel values of MAT and CSV data (255 for 8-bit
	// data stored as numbers); 0 keeps them. IDX data is always divided by
	// 255 and folder images are always in [0, 1].
	PixelMax float64

	MATX, MATY          string // MAT variable names; "" means "fea", "gnd"
	MATColumns          bool   // MAT: one image per column of X
	MATTranspose        bool   // MAT: pixels in column-major order; reorder to row-major (needs Shape)
	CSVHeader           bool   // CSV: skip the first line
	NPYTol              float64
	NPYReorthonormalize bool // npy: re-orthonormalise bases instead of rejecting them
	Workers             int  // folder: decoding goroutines, 0 = GOMAXPROCS

	// Limits bounds the input of every format (zero fields:
	// DefaultLimits). A command line maps LimitError.Limit to its own
	// flags.
	Limits Limits
}

// Load is LoadContext without cancellation.
func Load(spec string, opt Options) (*Dataset, error) {
	return LoadContext(context.Background(), spec, opt)
}

// LoadContext parses spec (see ParseSpec) and loads the data set it names
// (see Spec.LoadContext).
func LoadContext(ctx context.Context, spec string, opt Options) (*Dataset, error) {
	sp, err := ParseSpec(spec)
	if err != nil {
		return nil, err
	}
	return sp.LoadContext(ctx, opt)
}

// Load is LoadContext without cancellation.
func (sp Spec) Load(opt Options) (*Dataset, error) {
	return sp.LoadContext(context.Background(), opt)
}

// LoadContext loads the data set sp names, within opt.Limits: a resize
// target over the pixels per image is refused before anything is read.
// When ctx is cancelled the load stops soon (ctx is checked for every read
// of a file or of its decompressed stream, every image decoded or resized,
// every basis)
// with an error wrapping ctx.Err(); a load cancelled at any time before it
// returns returns that error.
func (sp Spec) LoadContext(ctx context.Context, opt Options) (*Dataset, error) {
	var (
		ds  *Dataset
		err error
	)
	lim := opt.Limits.WithDefaults()
	if r := opt.Resize; r != (Size{}) {
		what := "resize to " + r.String()
		if err := checkLimit(sp.String(), what, imageset.LimitPixels, mulSat(int64(r.Width), int64(r.Height)), lim.PixelsPerImage); err != nil {
			return nil, err
		}
	}
	resized := false
	switch sp.Scheme {
	case "idx":
		ds, err = LoadIDXContext(ctx, sp.Paths[0], sp.Paths[1], lim)
	case "folder":
		ds, err = LoadFolderContext(ctx, sp.Paths[0], FolderOptions{Width: opt.Resize.Width, Height: opt.Resize.Height, Workers: opt.Workers, Limits: lim})
		resized = true
	case "mat":
		ds, err = LoadMATContext(ctx, sp.Paths[0], MATOptions{
			X: opt.MATX, Y: opt.MATY, Columns: opt.MATColumns, Transpose: opt.MATTranspose,
			Width: opt.Shape.Width, Height: opt.Shape.Height, PixelMax: opt.PixelMax, Limits: lim,
		})
	case "npy":
		ds, err = LoadNPYContext(ctx, sp.Paths[0], sp.Paths[1], NPYOptions{Tol: opt.NPYTol, Reorthonormalize: opt.NPYReorthonormalize, Limits: lim})
		if err == nil && opt.Resize != (Size{}) {
			return nil, fmt.Errorf("dataset: %s: cannot resize precomputed bases", sp.Paths[0])
		}
	case "csv":
		ds, err = LoadCSVContext(ctx, sp.Paths[0], CSVOptions{Width: opt.Shape.Width, Height: opt.Shape.Height, PixelMax: opt.PixelMax, Header: opt.CSVHeader, Limits: lim})
	default:
		return nil, fmt.Errorf("%w %q: unknown scheme %q, want one of %s", ErrSpec, sp.String(), sp.Scheme, SpecHelp)
	}
	if err == nil && opt.Resize != (Size{}) && !resized {
		ds, err = ds.ResizedContext(ctx, opt.Resize.Width, opt.Resize.Height, lim)
	}
	if err != nil {
		return nil, err
	}
	// Cancelled during the last step (which need not check): the caller
	// asked to stop, so it gets the error, not the data.
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", sp.String(), err)
	}
	return ds, nil
}
