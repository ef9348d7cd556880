package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/grlgq/grlgq/dataset/imageset"
	"github.com/grlgq/grlgq/internal/limitflag"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

// rawMagic starts the binary stdin format.
const rawMagic = "GRLGQSET"

// maxValues bounds D*m of a set read from stdin (1 GiB of float64); the
// values are allocated as they are read, never from a declared count.
const maxValues = 1 << 27

// maxSide bounds -width and -height; their product is at most model.MaxDim.
const maxSide = 1 << 15

// Input limits of a folder of images (-max-pixels, -max-set-images,
// -max-values; imageset.Limits): defaults and the upper ends of their
// ranges. Pixels per image and images per set default to imageset's; the
// values of the whole set default to 2^24 (128 MiB of float64), a quarter
// of imageset's, because the set is held three times at the end (the
// images, the D x m set matrix, the SVD's work): a set at the default
// limits stays under 500 MB of memory.
const (
	defaultMaxValues = 1 << 24
	maxMaxPixels     = 1 << 30
	maxMaxSetImages  = 1 << 24
	maxMaxValues     = 1 << 36
)

func main() {
	handleSignals()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// handleSignals ends the process on SIGINT or SIGTERM at any stage, even
// while it is blocked reading: one line "grlgq-edge: interrupted" and exit
// code 1. The binary writes no file, so nothing is left to clean up.
func handleSignals() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ch
		fmt.Fprintln(os.Stderr, "grlgq-edge: interrupted")
		os.Exit(1)
	}()
}

// run is main without the process: it returns the exit status (0 ok, 1
// failure, 2 usage).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("grlgq-edge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	modelPath := fs.String("model", "", "model file written by grlgq train (required)")
	asJSON := fs.Bool("json", false, "print the result as one JSON object")
	width := fs.Int("width", 0, fmt.Sprintf("resize images to this width, 0 to %d (with -height, at most %d pixels; 0: the image size recorded in the model)", maxSide, model.MaxDim))
	height := fs.Int("height", 0, fmt.Sprintf("resize images to this height, 0 to %d (with -width)", maxSide))
	memstats := fs.Bool("memstats", false, "print Go memory statistics to stderr after the prediction")
	maxPixels := fs.Int64("max-pixels", imageset.DefaultPixelsPerImage, fmt.Sprintf("input limit: pixels per image, as its header says or as -width x -height asks, 1 to %d (checked before decoding)", int64(maxMaxPixels)))
	maxSetImages := fs.Int64("max-set-images", imageset.DefaultImagesPerSet, fmt.Sprintf("input limit: images in DIR, 1 to %d", int64(maxMaxSetImages)))
	maxValues := fs.Int64("max-values", defaultMaxValues, fmt.Sprintf("input limit: values of the whole set (images x D, plus %d per image), 1 to %d (checked before decoding)", imageset.ItemCost, int64(maxMaxValues)))
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: grlgq-edge -model MODEL [-json] [-width W -height H] [-max-pixels N -max-set-images N -max-values N] [-memstats] (DIR | -)")
		fmt.Fprintln(stderr, "  DIR: a folder of PNG/JPEG images (one image set); -: the set on stdin (binary GRLGQSET or text, see go doc)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "grlgq-edge: "+format+"\n", a...)
		fs.Usage()
		return 2
	}
	switch {
	case *modelPath == "":
		return usage("-model MODEL is required")
	case fs.NArg() != 1:
		return usage("want one input, a folder or - (got %d)", fs.NArg())
	case *width < 0 || *width > maxSide || *height < 0 || *height > maxSide:
		return usage("-width %d -height %d: each must be 0 to %d", *width, *height, maxSide)
	case (*width == 0) != (*height == 0):
		return usage("-width and -height go together (got %d x %d)", *width, *height)
	case *maxPixels < 1 || *maxPixels > maxMaxPixels:
		return usage("-max-pixels %d: want 1 to %d", *maxPixels, int64(maxMaxPixels))
	case *maxSetImages < 1 || *maxSetImages > maxMaxSetImages:
		return usage("-max-set-images %d: want 1 to %d", *maxSetImages, int64(maxMaxSetImages))
	case *maxValues < 1 || *maxValues > maxMaxValues:
		return usage("-max-values %d: want 1 to %d", *maxValues, int64(maxMaxValues))
	case *maxPixels < model.MaxDim && int64(*width)*int64(*height) > *maxPixels:
		return usage("-width %d -height %d: %d pixels, the limit is %d (-max-pixels)", *width, *height, *width**height, *maxPixels)
	case *width**height > model.MaxDim:
		return usage("-width %d -height %d: %d pixels, the limit is %d (a model's D)", *width, *height, *width**height, model.MaxDim)
	}
	lim := imageset.Limits{PixelsPerImage: *maxPixels, ImagesPerSet: *maxSetImages, TotalValues: *maxValues}
	res, err := classify(*modelPath, fs.Arg(0), *width, *height, lim, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "grlgq-edge: %v\n", limitflag.Hint(err))
		return 1
	}
	var out []byte
	if *asJSON {
		out, err = json.Marshal(res)
		if err != nil {
			fmt.Fprintf(stderr, "grlgq-edge: %v\n", err)
			return 1
		}
		out = append(out, '\n')
	} else {
		out = res.text()
	}
	if _, err := stdout.Write(out); err != nil {
		fmt.Fprintf(stderr, "grlgq-edge: %v\n", err)
		return 1
	}
	if *memstats {
		printMemStats(stderr)
	}
	return 0
}

// result is what the binary prints.
type result struct {
	Label     int       `json:"label"`
	Name      string    `json:"name,omitempty"`
	Rejected  bool      `json:"rejected"`
	Margin    float64   `json:"margin"`
	Images    int       `json:"images"`
	Classes   []int     `json:"prototype_classes"`
	Distances []float64 `json:"distances"`
}

func (r *result) text() []byte {
	var b bytes.Buffer
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	fmt.Fprintf(&b, "label %d\n", r.Label)
	if r.Name != "" {
		fmt.Fprintf(&b, "name %s\n", r.Name)
	}
	fmt.Fprintf(&b, "margin %s\n", g(r.Margin))
	for k, d := range r.Distances {
		fmt.Fprintf(&b, "distance %d class %d %s\n", k, r.Classes[k], g(d))
	}
	return b.Bytes()
}

// classify loads the model and the set and predicts, reading a folder of
// images within lim.
func classify(modelPath, input string, w, h int, lim imageset.Limits, stdin io.Reader) (*result, error) {
	m, err := model.LoadFile(modelPath)
	if err != nil {
		return nil, err
	}
	var imgs [][]float64
	if input == "-" {
		imgs, err = readStdin(bufio.NewReaderSize(stdin, 1<<16), m.Dim())
	} else {
		var mw, mh int
		if w == 0 && h == 0 {
			// Without -width/-height, images of another size than the
			// model's are resized to the size it was trained on.
			mw, mh = m.ImageSize()
		}
		imgs, err = readDir(input, w, h, mw, mh, m.Dim(), lim)
	}
	if err != nil {
		return nil, err
	}
	var pred model.Prediction // on this goroutine: small devices, no worker wake-ups
	switch n := len(imgs); {
	case n == 1:
		err = m.PredictTo(&pred, model.Image(imgs[0]))
	case n < m.SubspaceDim():
		return nil, fmt.Errorf("%w: %d images, the model's subspaces have d = %d (give 1 image or at least %d)", subspace.ErrTooFewImages, n, m.SubspaceDim(), m.SubspaceDim())
	default:
		var s *subspace.Subspace
		if s, err = subspace.FromImages(imgs, m.SubspaceDim()); err != nil {
			return nil, err
		}
		err = m.PredictTo(&pred, model.Set(s))
	}
	if err != nil {
		return nil, err
	}
	r := &result{
		Label:     pred.Label,
		Rejected:  pred.Rejected,
		Margin:    pred.Margin,
		Images:    len(imgs),
		Classes:   m.Labels(),
		Distances: slices.Clone(pred.Distances),
	}
	if pred.Label >= 0 {
		r.Name = m.ClassName(pred.Label)
	}
	return r, nil
}

// readDir reads the images of a folder (sorted by name), resized to w x h
// if set, else to mw x mh (the model's image size) when their own size is
// not the model's D. Images already of the right size are never resampled.
// Within lim, before anything is decoded: the number of images
// (ImagesPerSet), the values they will take (TotalValues: every image
// ends with D values), each image's header and target size
// (PixelsPerImage), and the pixels all of them decode at their native
// sizes (TotalValues too). Images must be regular files (imageset.ReadImage opens
// them with safefile.Open: a FIFO or a device is refused, not read).
func readDir(dir string, w, h, mw, mh, dim int, lim imageset.Limits) ([][]float64, error) {
	lim = lim.WithDefaults()
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
	// Every header first: the sizes decide the resize, and the pixels to
	// decode (native sizes) are bounded by -max-values as well, so that
	// links to one small file claiming a large image cost no minutes.
	sizes := make([][2]int, len(paths))
	var decoded int64
	for i, path := range paths {
		iw, ih, err := imageset.ReadConfig(path, lim)
		if err != nil {
			return nil, err
		}
		sizes[i] = [2]int{iw, ih}
		decoded += int64(iw) * int64(ih)
		if decoded > lim.TotalValues {
			return nil, &imageset.LimitError{File: dir, What: fmt.Sprintf("%d images to decode", i+1), Limit: imageset.LimitValues, Max: lim.TotalValues}
		}
	}
	imgs := make([][]float64, 0, len(paths))
	for i, path := range paths {
		tw, th := w, h
		if w == 0 && sizes[i][0]*sizes[i][1] != dim && mw > 0 && mh > 0 {
			tw, th = mw, mh
		}
		pix, iw, ih, err := imageset.ReadImage(path, imageset.Options{Width: tw, Height: th, Limits: lim})
		if err != nil {
			return nil, err
		}
		if len(pix) != dim {
			return nil, fmt.Errorf("%s: %dx%d = %d pixels, the model wants D = %d (resize with -width and -height)", path, iw, ih, len(pix), dim)
		}
		imgs = append(imgs, pix)
	}
	return imgs, nil
}

// readStdin reads a set in the binary or the text format.
func readStdin(r *bufio.Reader, dim int) ([][]float64, error) {
	head, _ := r.Peek(len(rawMagic))
	if string(head) == rawMagic {
		return readBinary(r, dim)
	}
	return readText(r, dim)
}

func readBinary(r io.Reader, dim int) ([][]float64, error) {
	var h [len(rawMagic) + 8]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, fmt.Errorf("stdin: binary header: %w", err)
	}
	d := int(binary.LittleEndian.Uint32(h[8:]))
	m := int(binary.LittleEndian.Uint32(h[12:]))
	if d != dim {
		return nil, fmt.Errorf("stdin: images of D = %d pixels, the model wants %d", d, dim)
	}
	if m < 1 || d*m > maxValues {
		return nil, fmt.Errorf("stdin: %d images of %d pixels: out of range", m, d)
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
	if n, _ := io.Copy(io.Discard, r); n > 0 {
		return nil, fmt.Errorf("stdin: %d bytes after the %d images", n, m)
	}
	return imgs, nil
}

func readText(r *bufio.Reader, dim int) ([][]float64, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 64<<20)
	var imgs [][]float64
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || s[0] == '#' {
			continue
		}
		fields := strings.FieldsFunc(s, func(c rune) bool { return c == ' ' || c == '\t' || c == ',' })
		if len(fields) != dim {
			return nil, fmt.Errorf("stdin: line %d has %d values, the model wants D = %d", line, len(fields), dim)
		}
		if (len(imgs)+1)*dim > maxValues {
			return nil, errors.New("stdin: too many images")
		}
		img := make([]float64, dim)
		for i, f := range fields {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				return nil, fmt.Errorf("stdin: line %d value %d: %w", line, i+1, err)
			}
			img[i] = v
		}
		imgs = append(imgs, img)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("stdin: %w", err)
	}
	if len(imgs) == 0 {
		return nil, errors.New("stdin: no images (binary sets start with \"GRLGQSET\")")
	}
	return imgs, nil
}

func printMemStats(w io.Writer) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Fprintf(w, "memstats: Sys %d HeapSys %d HeapAlloc %d TotalAlloc %d StackSys %d NumGC %d\n",
		ms.Sys, ms.HeapSys, ms.HeapAlloc, ms.TotalAlloc, ms.StackSys, ms.NumGC)
}
