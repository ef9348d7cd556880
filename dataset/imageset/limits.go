package imageset

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"

	"github.com/grlgq/grlgq/internal/safefile"
)

// Limits is the input budget of the loaders (this package's and package
// dataset's). Every count is checked against what has actually been listed,
// read or decoded, or against a header whose claim has been checked against
// the bytes available, before the memory for it is allocated. A zero field
// means its default (DefaultLimits); raise a limit by setting its field.
//
// The defaults keep the worst case of one load under about 1 GB of memory
// (see DefaultLimits) while admitting the real data sets: MNIST's 60,000
// training images (47 M values, a 47 MB IDX file), Yale B, ETH-80.
type Limits struct {
	// PixelsPerImage bounds Width*Height of one image: as its header says
	// (checked before it is decoded) and as a target size of a resize.
	PixelsPerImage int64
	// ImagesPerSet bounds the images of one set folder (checked while the
	// folder is listed).
	ImagesPerSet int64
	// TotalValues bounds the float64 values a load returns: pixels of all
	// images together (or elements of all bases), 8 bytes each, plus
	// ItemCost per image or basis for its row and label (see CountValues),
	// so that a million one-pixel images cost what they take. A folder
	// load also bounds by it the pixels it decodes (the images' native
	// sizes from their headers, when they are resized): the work of
	// decoding, which small files claiming large images would otherwise
	// multiply.
	TotalValues int64
	// FileBytes bounds the bytes read from one data file after
	// decompression (gzip, MAT's zlib), or its size when it is stored raw.
	FileBytes int64
}

// Default limits. The worst case they allow is a 512 MiB result (TotalValues
// float64s) plus, while it is built, one file's bytes (FileBytes) or the
// images being decoded (at most max(PixelsPerImage, 2^23) pixels of decoded
// images in flight, whatever the number of workers): under 1 GB. Measured
// peaks of resident memory at the limits: 665 MB for 15 hard links to a
// 2048x2048 PNG, 640 MB for 84,700 IDX images of 28x28, 630 MB for a MAT
// variable of 65,000 x 1,000, 280 MB for 64 MiB of gzipped CSV.
const (
	// DefaultPixelsPerImage is 2^22: 2048x2048 (a 16-bit RGBA image of that
	// size decodes to 32 MiB, its float64 gray copy is 32 MiB).
	DefaultPixelsPerImage = 1 << 22
	// DefaultImagesPerSet is 2^16.
	DefaultImagesPerSet = 1 << 16
	// DefaultTotalValues is 2^26 float64s (512 MiB).
	DefaultTotalValues = 1 << 26
	// DefaultFileBytes is 2^26 bytes (64 MiB; MNIST's training images are
	// 47 MB).
	DefaultFileBytes = 1 << 26
)

// DefaultLimits returns the default limits, every field set.
func DefaultLimits() Limits {
	return Limits{
		PixelsPerImage: DefaultPixelsPerImage,
		ImagesPerSet:   DefaultImagesPerSet,
		TotalValues:    DefaultTotalValues,
		FileBytes:      DefaultFileBytes,
	}
}

// WithDefaults returns l with every zero (or negative) field replaced by
// its default.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits()
	if l.PixelsPerImage > 0 {
		d.PixelsPerImage = l.PixelsPerImage
	}
	if l.ImagesPerSet > 0 {
		d.ImagesPerSet = l.ImagesPerSet
	}
	if l.TotalValues > 0 {
		d.TotalValues = l.TotalValues
	}
	if l.FileBytes > 0 {
		d.FileBytes = l.FileBytes
	}
	return d
}

// Names of the limits, as LimitError.Limit gives them: a command line maps
// them to its flags (grlgq and grlgq-edge name theirs after them:
// -max-pixels etc., see cmd/internal/base).
const (
	LimitPixels    = "max-pixels"     // Limits.PixelsPerImage
	LimitSetImages = "max-set-images" // Limits.ImagesPerSet
	LimitValues    = "max-values"     // Limits.TotalValues
	LimitFileBytes = "max-file-bytes" // Limits.FileBytes
)

var limitUnits = map[string]string{
	LimitPixels:    "pixels per image",
	LimitSetImages: "images per set",
	LimitValues:    "values in all",
	LimitFileBytes: "bytes per file",
}

// ErrLimit: an input exceeds one of the Limits. Every such error is a
// *LimitError.
var ErrLimit = errors.New("input over a limit")

// LimitError is an input over one of the Limits. Its message names the
// file, the count, the limit and its name, e.g.
// "a/s/1.png: image of 8000x8000: 64000000 pixels, over the limit of 4194304
// pixels per image (raise max-pixels)".
type LimitError struct {
	File  string // the file or folder
	What  string // what was counted, e.g. "image of 8000x8000"
	Limit string // LimitPixels, LimitSetImages, LimitValues or LimitFileBytes
	// Value is the count; 0 when reading stopped as soon as the count
	// passed Max (a stream is never read further than that).
	Value int64
	Max   int64 // the limit in force
	// Kind is an older sentinel the error also matches (ErrSize here,
	// dataset.ErrSize there), or nil.
	Kind error
}

func (e *LimitError) Error() string {
	unit := limitUnits[e.Limit]
	count := "more than " + strconv.FormatInt(e.Max, 10)
	if e.Value > 0 {
		count = strconv.FormatInt(e.Value, 10)
	}
	return fmt.Sprintf("%s: %s: %s %s, over the limit of %d (raise %s)", e.File, e.What, count, unit, e.Max, e.Limit)
}

// Unwrap returns ErrLimit and Kind, so errors.Is(err, ErrLimit) works, and
// so do the checks of an older size error.
func (e *LimitError) Unwrap() []error {
	if e.Kind == nil {
		return []error{ErrLimit}
	}
	return []error{ErrLimit, e.Kind}
}

// overLimit returns a *LimitError when value > max, else nil.
func overLimit(file, what, limit string, value, max int64) error {
	if value <= max {
		return nil
	}
	return &LimitError{File: file, What: what, Limit: limit, Value: value, Max: max, Kind: ErrSize}
}

// ItemCost is what an image (or basis) costs in Limits.TotalValues besides
// its pixels: its row header and its label, about 8 float64s' worth.
const ItemCost = 8

// CountValues returns what n images (or bases) of size values each count
// against Limits.TotalValues: n*(size+ItemCost), or math.MaxInt64 when that
// overflows.
func CountValues(n, size int64) int64 {
	return mulSat(n, size+ItemCost)
}

// mulSat returns a*b, or math.MaxInt64 when that overflows (a, b >= 0).
func mulSat(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}

// ErrNotRegular: a path that should name a regular file names a FIFO, a
// device, a socket or a folder (or one that should name a folder names a
// FIFO, a device or a socket). It is safefile.ErrNotRegular: the module has
// one rule and one error for special files, whoever opens them.
var ErrNotRegular = safefile.ErrNotRegular

// OpenRegular opens path for reading, refusing anything but a regular file
// (after following symbolic links) without blocking: it is safefile.Open,
// the module's one implementation (a FIFO is opened with O_NONBLOCK, so
// opening it returns at once, and is then refused from its fstat; regular
// files ignore O_NONBLOCK). The error wraps ErrNotRegular ("PATH: a FIFO
// (named pipe), not a regular file"), or is the os error
// (fs.ErrNotExist...).
func OpenRegular(path string) (*os.File, error) { return safefile.Open(path) }
