package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"image"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/grlgq/grlgq/cmd/internal/base"
	"github.com/grlgq/grlgq/dataset/imageset"
	"github.com/grlgq/grlgq/internal/quote"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/pixels"
)

// rawMagic starts the binary stdin format.
const rawMagic = "GRLGQSET"

// maxValues bounds D*m of a set read from stdin (1 GiB of float64); the
// values are allocated as they are read, never from a declared count.
const maxValues = 1 << 27

// maxSide bounds -width and -height; their product is at most model.MaxDim.
const maxSide = 1 << 15

// defaultMaxValues is the default of -max-values (the values of a folder's
// whole set): 2^24 (128 MiB of float64), a quarter of imageset's, because
// the set is held three times at the end (the images, the D x m set
// matrix, the SVD's work): a set at the default limits stays under 500 MB
// of memory. Pixels per image and images per set default to imageset's;
// the ranges are package base's.
const defaultMaxValues = 1 << 24

// maxField bounds one value of the text format on stdin (a float needs a
// few dozen bytes): a longer token is an error, so that a line takes
// memory only in proportion to what was read.
const maxField = 1 << 10

// maxExcerpt bounds the part of a refused value that an error quotes
// (quote.Short): a value may be maxField bytes of binary, 4 KB quoted in
// full; the error is one line a person reads.
const maxExcerpt = quote.Max

func main() {
	// The binary writes no file: nothing to clean up on a signal.
	base.HandleSignals("grlgq-edge", os.Stderr, nil)
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is main without the process: it returns the exit status (0 ok, 1
// failure, 2 usage).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := base.NewFlagSet("grlgq-edge")
	modelPath := fs.String("model", "", "model file written by grlgq train (required)")
	asJSON := fs.Bool("json", false, "print one JSON object per set, one per line")
	var width, height int
	base.IntVar(fs, &width, "width", 0, 0, maxSide, fmt.Sprintf("resize images to this width (with -height, at most %d pixels; 0: the image size recorded in the model)", model.MaxDim))
	base.IntVar(fs, &height, "height", 0, 0, maxSide, "resize images to this height (with -width)")
	memstats := fs.Bool("memstats", false, "print Go memory statistics to stderr after the prediction")
	var lim imageset.Limits
	def := imageset.DefaultLimits()
	def.TotalValues = defaultMaxValues
	base.AddLimitFlags(fs, &lim, def, false)
	usageText := func(w io.Writer) {
		fmt.Fprint(w, usageHead)
		base.PrintDefaults(w, fs, nil)
	}
	if err := base.Parse(fs, args); err != nil {
		if errors.Is(err, base.ErrHelp) {
			usageText(stdout)
			return base.ExitOK
		}
		return base.Report(stderr, "grlgq-edge", "", err, "grlgq-edge -h")
	}
	err := check(fs, *modelPath, width, height, lim)
	if err == nil {
		err = classifyAll(*modelPath, fs.Args(), width, height, lim, stdin, stdout, *asJSON)
	}
	if err != nil {
		return base.Report(stderr, "grlgq-edge", "", err, "grlgq-edge -h")
	}
	if *memstats {
		printMemStats(stderr)
	}
	return base.ExitOK
}

// check is the usage errors of the flags and the arguments.
func check(fs *flag.FlagSet, modelPath string, width, height int, lim imageset.Limits) error {
	stdins := 0
	for _, a := range fs.Args() {
		if a == "-" {
			stdins++
		}
	}
	switch {
	case modelPath == "":
		return base.Usagef(fs, "-model MODEL is required")
	case fs.NArg() == 0:
		return base.Usagef(fs, "want at least one input, a folder or - (got none)")
	case stdins > 1:
		return base.Usagef(fs, "- (standard input) given %d times; it may hold several sets", stdins)
	case (width == 0) != (height == 0):
		return base.Usagef(fs, "-width and -height go together (got -width %d -height %d)", width, height)
	case lim.PixelsPerImage < model.MaxDim && int64(width)*int64(height) > lim.PixelsPerImage:
		return base.Usagef(fs, "-width %d -height %d: %d pixels, the limit is %d (-max-pixels)", width, height, width*height, lim.PixelsPerImage)
	case width*height > model.MaxDim:
		return base.Usagef(fs, "-width %d -height %d: %d pixels, the limit is %d (a model's D)", width, height, width*height, model.MaxDim)
	}
	return nil
}

// readDir reads the images of a folder (sorted by name) as the model's
// pixel vectors: resized to w x h if set, else by the model's rule
// (Model.SampleFromImages: to the image size the model records when
// theirs differs; without a recorded size they must have D pixels).
// Within lim, before anything is decoded: the number of images
// (ImagesPerSet), the values they will take (TotalValues: every image
// ends with D values), each image's header and target size
// (PixelsPerImage), and the pixels all of them decode at their native
// sizes (TotalValues too). Images must be regular files (imageset.Decode
// opens them with safefile.Open: a FIFO or a device is refused, not read).
// Each image is converted as soon as it is decoded.
func readDir(dir string, w, h int, m *model.Model, lim imageset.Limits) ([][]float64, error) {
	lim = lim.WithDefaults()
	dim := m.Dim()
	// Stat first: opening a FIFO to read it as a folder would block.
	if fi, err := os.Stat(dir); err != nil {
		return nil, err
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("%s is not a folder (give a folder of images, or - for stdin)", dir)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, e := range entries { // ReadDir sorts by name
		if e.IsDir() || strings.HasPrefix(e.Name(), ".") || !imageset.IsImageName(e.Name()) {
			continue
		}
		paths = append(paths, filepath.Join(dir, e.Name()))
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s: no PNG or JPEG images", dir)
	}
	n := int64(len(paths))
	if n > lim.ImagesPerSet {
		return nil, &imageset.LimitError{File: dir, What: "set folder", Limit: imageset.LimitSetImages, Value: n, Max: lim.ImagesPerSet}
	}
	if v := imageset.CountValues(n, int64(dim)); v > lim.TotalValues {
		return nil, &imageset.LimitError{File: dir, What: fmt.Sprintf("%d images of D = %d", n, dim), Limit: imageset.LimitValues, Value: v, Max: lim.TotalValues}
	}
	// Every header first: the pixels to decode (native sizes) are bounded
	// by -max-values as well, so that links to one small file claiming a
	// large image cost no minutes.
	var decoded int64
	for i, path := range paths {
		iw, ih, err := imageset.ReadConfig(path, lim)
		if err != nil {
			return nil, err
		}
		decoded += int64(iw) * int64(ih)
		if decoded > lim.TotalValues {
			return nil, &imageset.LimitError{File: dir, What: fmt.Sprintf("%d images to decode", i+1), Limit: imageset.LimitValues, Max: lim.TotalValues}
		}
		if mw, _ := m.ImageSize(); w == 0 && mw == 0 && iw*ih != dim {
			return nil, fmt.Errorf("%s: image of %s pixels (HxW, D = %d), the model wants D = %d: %s", path, imageset.FormatSize(iw, ih), iw*ih, dim, edgeSizeHint(dim, 0, 0))
		}
	}
	if w > 0 && w*h != dim {
		mw, mh := m.ImageSize()
		return nil, fmt.Errorf("-width %d -height %d: %d pixels, the model wants D = %d: %s", w, h, w*h, dim, edgeSizeHint(dim, mw, mh))
	}
	imgs := make([][]float64, 0, len(paths))
	for _, path := range paths {
		img, err := imageset.Decode(path, lim)
		if err != nil {
			return nil, err
		}
		if w > 0 {
			imgs = append(imgs, pixels.Gray(img, w, h))
			continue
		}
		x, err := m.SampleFromImages([]image.Image{img}) // one image: its pixels at the model's size
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		imgs = append(imgs, x.Pixels())
	}
	return imgs, nil
}

// readStdin reads a set in the binary or the text format. It reads
// nothing past the set's last byte (a binary set's last value, a text
// set's "---" line), so that a set arriving on a pipe is answered before
// the client sends more; stdinSets checks what follows a binary set.
func readStdin(r *bufio.Reader, dim int) ([][]float64, error) {
	if startsBinary(r) {
		return readBinary(r, dim)
	}
	return readText(r, dim)
}

// startsBinary reports whether r starts with rawMagic, reading no further
// than the first byte that differs from it (peekMagic).
func startsBinary(r *bufio.Reader) bool {
	head, _ := peekMagic(r)
	return string(head) == rawMagic
}

// peekMagic looks at the start of r, without consuming it, as far as it
// must to tell whether it is rawMagic: up to its first byte that differs
// from it, so that a text set shorter than the magic is not held back
// waiting for 8 bytes, and bytes that are not a set are refused as soon
// as one arrives. It returns the bytes looked at (valid until r is read)
// and the error, io.EOF at the end of input, that cut them short.
func peekMagic(r *bufio.Reader) ([]byte, error) {
	var head []byte
	for n := 1; n <= len(rawMagic); n++ {
		var err error
		if head, err = r.Peek(n); len(head) < n {
			return head, err
		}
		if head[n-1] != rawMagic[n-1] {
			break
		}
	}
	return head, nil
}

// errNoImages is readText's error for input that ends before a set's
// first image (nothing, or only blank lines and comments): after a
// set's "---" line it is the end of input, not an error.
var errNoImages = errors.New("stdin: no images (binary sets start with \"GRLGQSET\")")

// stdinSets reads the sets on standard input one at a time, each as soon
// as it is complete: whether another follows is looked at only when it is
// asked for, after the caller has printed the last.
type stdinSets struct {
	r   *bufio.Reader
	dim int
	n   int // sets read
	bin int // images of the last set when it was binary (then only another binary set may follow), else 0
}

// next returns the next set, or io.EOF itself when standard input ends
// after a set, or only blank lines and comments follow a text set's
// "---" line (no set at all is an error). A read error on stdin is an
// error, not the end. Errors of a set after the first name it ("set 1
// of stdin: ...").
func (s *stdinSets) next() ([][]float64, error) {
	head, err := peekMagic(s.r)
	switch {
	case err == io.EOF && len(head) == 0 && s.n > 0:
		return nil, io.EOF
	case err != nil && err != io.EOF:
		return nil, s.setError(s.n, fmt.Errorf("stdin: %w", err))
	}
	bin := string(head) == rawMagic
	if s.bin > 0 && !bin {
		// Refused at the first byte that differs from the magic, not
		// read to the end of input to count them: on a pipe that end
		// may come late or never.
		return nil, s.setError(s.n-1, fmt.Errorf("stdin: bytes after the %d images that do not start another set (%q, not %q)", s.bin, head, rawMagic))
	}
	imgs, err := readStdin(s.r, s.dim)
	if errors.Is(err, errNoImages) && s.n > 0 {
		return nil, io.EOF
	}
	if err != nil {
		return nil, s.setError(s.n, err)
	}
	s.n++
	s.bin = 0
	if bin {
		s.bin = len(imgs)
	}
	return imgs, nil
}

// setError names set k of stdin in err, from the second set on.
func (s *stdinSets) setError(k int, err error) error {
	if k > 0 {
		return fmt.Errorf("set %d of stdin: %w", k, err)
	}
	return err
}

func readBinary(r *bufio.Reader, dim int) ([][]float64, error) {
	var h [len(rawMagic) + 8]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, fmt.Errorf("stdin: binary header: %w", err)
	}
	d := int(binary.LittleEndian.Uint32(h[8:]))
	m := int(binary.LittleEndian.Uint32(h[12:]))
	if d != dim {
		return nil, fmt.Errorf("stdin: images of D = %d pixels, the model wants %d", d, dim)
	}
	if m < 1 || m > maxValues/d { // not d*m: no overflow where int is 32 bits
		return nil, fmt.Errorf("stdin: %d images of %d pixels: out of range: %s", m, d, setRange(d))
	}
	buf := make([]byte, 8*d)
	// Grown as images arrive: a header's m alone allocates nothing.
	var imgs [][]float64
	for j := 0; j < m; j++ {
		if _, err := io.ReadFull(r, buf); err != nil {
			return nil, fmt.Errorf("stdin: image %d of %d: %w", j, m, err)
		}
		img := make([]float64, d)
		for i := range img {
			img[i] = math.Float64frombits(binary.LittleEndian.Uint64(buf[8*i:]))
		}
		imgs = append(imgs, img)
	}
	return imgs, nil
}

// readText reads one set in the text format: one image per line, D
// numbers separated by spaces, tabs or commas; blank lines and lines
// starting with '#' are skipped; a line "---" ends the set (another
// follows); input that ends before the set's first image is errNoImages.
// It reads a byte at a time into one value's buffer
// (at most maxField bytes), so a line costs no more than its D values:
// a line with more than D values, or an endless line, is refused as soon
// as its (D+1)-th value starts; the images, at most maxValues values,
// are allocated as they arrive.
func readText(r *bufio.Reader, dim int) ([][]float64, error) {
	var (
		imgs    [][]float64
		img     []float64
		field   []byte
		line    = 1
		comment bool // the rest of the line is a comment
		start   = true
	)
	value := func() error {
		if len(field) == 0 {
			return nil
		}
		if img == nil {
			if len(imgs) >= maxValues/dim {
				return fmt.Errorf("stdin: line %d starts image %d of the set: out of range: %s", line, len(imgs)+1, setRange(dim))
			}
			img = make([]float64, 0, dim)
		}
		if len(img) == dim {
			return fmt.Errorf("stdin: line %d has more than %d values, the model wants D = %d", line, dim, dim)
		}
		v, err := strconv.ParseFloat(string(field), 64)
		if err != nil {
			return fmt.Errorf("stdin: line %d value %d: %w", line, len(img)+1, parseError(field, err))
		}
		img = append(img, v)
		field = field[:0]
		return nil
	}
	sep := false // the line is "---"
	endLine := func() error {
		if img == nil && string(field) == setSeparator {
			field, sep = field[:0], true
			if len(imgs) == 0 {
				return fmt.Errorf("stdin: line %d: %q before any image of the set", line, setSeparator)
			}
			return nil
		}
		if err := value(); err != nil {
			return err
		}
		if img != nil {
			if len(img) != dim {
				return fmt.Errorf("stdin: line %d has %d values, the model wants D = %d", line, len(img), dim)
			}
			imgs = append(imgs, img)
			img = nil
		}
		line++
		comment, start = false, true
		return nil
	}
	for {
		c, err := r.ReadByte()
		if err == io.EOF {
			if err := endLine(); err != nil {
				return nil, err
			}
			break
		}
		if err != nil {
			return nil, fmt.Errorf("stdin: %w", err)
		}
		switch {
		case c == '\n':
			if err := endLine(); err != nil {
				return nil, err
			}
			if sep {
				return imgs, nil
			}
		case comment:
		case c == ' ' || c == '\t' || c == ',' || c == '\r':
			if img == nil && string(field) == setSeparator {
				continue // "--- " ends the set as "---" does
			}
			if err := value(); err != nil {
				return nil, err
			}
		case c == '#' && start:
			comment = true
		default:
			start = false
			if len(field) >= maxField {
				return nil, fmt.Errorf("stdin: line %d: a value longer than %d bytes", line, maxField)
			}
			field = append(field, c)
		}
	}
	if sep {
		return imgs, nil // "---" at the end: no set follows
	}
	if len(imgs) == 0 {
		return nil, errNoImages
	}
	return imgs, nil
}

// setRange is the range of the images of D = d in a set on stdin, for
// an error that says "out of range".
func setRange(d int) string {
	return fmt.Sprintf("want 1 to %d images of D = %d (at most %d values per set, 2^27)", maxValues/d, d, maxValues)
}

// parseError is err, strconv.ParseFloat's error for field, with field
// quoted by quote.Short instead of in full, and with the range of a float64
// for a value out of it. It wraps the *strconv.NumError's Err
// (strconv.ErrSyntax or strconv.ErrRange).
func parseError(field []byte, err error) error {
	var ne *strconv.NumError
	if !errors.As(err, &ne) {
		return err
	}
	if errors.Is(ne.Err, strconv.ErrRange) {
		return fmt.Errorf("strconv.%s: parsing %s: %w: a float64 is at most %g in magnitude", ne.Func, quote.Short(field), ne.Err, math.MaxFloat64)
	}
	return fmt.Errorf("strconv.%s: parsing %s: %w", ne.Func, quote.Short(field), ne.Err)
}

func printMemStats(w io.Writer) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Fprintf(w, "memstats: Sys %d HeapSys %d HeapAlloc %d TotalAlloc %d StackSys %d NumGC %d\n",
		ms.Sys, ms.HeapSys, ms.HeapAlloc, ms.TotalAlloc, ms.StackSys, ms.NumGC)
}

// edgeSizeHint names the -width and -height that give a model of D dim
// (whose images were width pixels wide and height high, or 0 and 0 when
// it records none) its size.
func edgeSizeHint(dim, width, height int) string {
	if width > 0 {
		return fmt.Sprintf("use -width %d -height %d (or leave them out: the model's image size is the default)", width, height)
	}
	if s := int(math.Round(math.Sqrt(float64(dim)))); s*s == dim {
		return fmt.Sprintf("use -width %d -height %d (or another W and H with W·H = %d)", s, s, dim)
	}
	return fmt.Sprintf("use -width W -height H with W·H = %d", dim)
}
