package dataset

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/grlgq/grlgq/dataset/imageset"
)

// Sentinel errors, testable with errors.Is. Every error about the content of
// a file is a *FileError wrapping one of them; errors from the file system
// wrap the os error (errors.Is(err, fs.ErrNotExist) works).
var (
	// ErrFormat: the file is not in the expected format (magic, header,
	// structure, decompression).
	ErrFormat = errors.New("dataset: bad format")
	// ErrSize: sizes disagree (header vs file length, images vs labels,
	// shapes of two arrays, ragged rows).
	ErrSize = errors.New("dataset: size mismatch")
	// ErrValue: a value is not usable (NaN, Inf, non-numeric, out of range,
	// basis not orthonormal).
	ErrValue = errors.New("dataset: bad value")
	// ErrUnsupported: a valid file uses a feature this package does not read
	// (MAT v7.3, complex or sparse arrays, npy dtypes other than the ones
	// documented).
	ErrUnsupported = errors.New("dataset: unsupported")
)

// FileError is a problem with the content of one file. Its message is
// "dataset: FILE: PROBLEM", e.g.
// "dataset: mnist/t10k-images.gz: IDX magic 0x00000801, want 0x00000803".
type FileError struct {
	File string // the path as given to the loader
	Kind error  // ErrFormat, ErrSize, ErrValue or ErrUnsupported
	Msg  string // the problem, with line numbers or offsets where known
}

func (e *FileError) Error() string { return "dataset: " + e.File + ": " + e.Msg }

// Unwrap returns Kind, so errors.Is(err, ErrSize) etc. work.
func (e *FileError) Unwrap() error { return e.Kind }

func fileErr(file string, kind error, format string, a ...any) error {
	return &FileError{File: file, Kind: kind, Msg: fmt.Sprintf(format, a...)}
}

// Kind is what a Dataset holds (Dataset.Kind).
type Kind uint8

const (
	// KindImages: single images (Images, no Sets).
	KindImages Kind = iota
	// KindSets: image sets (Images grouped by Sets).
	KindSets
	// KindBases: precomputed orthonormal bases (Bases).
	KindBases
)

var kindWords = []string{"images", "sets", "bases"}

// String returns "images", "sets" or "bases".
func (k Kind) String() string {
	if int(k) < len(kindWords) {
		return kindWords[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// MarshalText returns the word of k; an unknown value is an error.
func (k Kind) MarshalText() ([]byte, error) {
	if int(k) < len(kindWords) {
		return []byte(kindWords[k]), nil
	}
	return nil, fmt.Errorf("dataset: unknown kind %d", k)
}

// NoLabel is the label of an item (a set, a subspace, a sample) of data
// without labels.
const NoLabel = -1

// Dataset is a loaded data set: single images (IDX, MAT, CSV), image sets
// (folder) or precomputed orthonormal bases (npy), with or without labels
// (Kind and Labelled say which).
//
// The loaders fill it as follows. Images[i] (or Bases[i]) has class
// Labels[i], an index into Classes. Classes are sorted: numerically when every
// raw label is an integer (so MNIST's class 3 is Classes[3] == "3"), else
// as strings; folder data uses the sorted class folder names. Data without
// labels (a folder of set folders, IDX and npy data without a labels file,
// CSV without a label column, MAT without a label variable) has Labels and
// Classes nil and its sets the label NoLabel. The image rows share one
// backing array (CSV: a few large blocks), which the Dataset owns; callers
// must not append to a row.
type Dataset struct {
	// Source names where the data came from (file or folder), for messages.
	Source string
	// Classes are the class names; Labels index into it. Both nil for data
	// without labels.
	Classes []string
	// Labels[i] is the class of item i (image, or basis when Bases != nil).
	Labels []int

	// Dim is D, the number of pixels of an image (= rows of a basis).
	Dim int
	// Width and Height are the image shape (Width*Height == Dim), 0 when
	// unknown (CSV or MAT without a shape, npy).
	Width, Height int
	// Images[i] is image i, Dim pixels, row-major (row y at
	// Images[i][y*Width:]). nil for bases.
	Images [][]float64
	// Sets groups images into image sets (folder data, one sub-folder = one
	// set); nil when every image stands alone.
	Sets []Set
	// Files[i] is the file image i was read from (folder data: the path
	// as the tree was given, ROOT/<class>/<set>/<file>); nil for the
	// formats that hold many images in one file (ItemName names those by
	// row).
	Files []string

	// Bases[i] is a Dim x SubDim basis with orthonormal columns, row-major
	// (element (r, c) at Bases[i][r*SubDim+c]); nil for images.
	Bases [][]float64
	// SubDim is d, the number of columns of each basis.
	SubDim int
}

// Set is an image set: a group of images of one class (an object seen from
// 41 angles, a video, a person under 64 lightings).
type Set struct {
	// Name is the set's name (folder data: "class/set").
	Name string
	// Label is the class of the set, an index into Dataset.Classes
	// (NoLabel without labels).
	Label int
	// Images are the indices (into Dataset.Images) of the set's images,
	// ascending.
	Images []int
}

// Len returns the number of items: images, or bases when Bases != nil.
func (ds *Dataset) Len() int {
	if ds.Bases != nil {
		return len(ds.Bases)
	}
	return len(ds.Images)
}

// ItemName names item i for people: the file of a folder image (Files[i]),
// else "row i" (the i-th image or basis of the file, counted from 0, a
// CSV header line not counted; labels files count the same way). Every
// index the module prints is 0-based, like this one.
func (ds *Dataset) ItemName(i int) string {
	if i >= 0 && i < len(ds.Files) {
		return ds.Files[i]
	}
	return "row " + strconv.Itoa(i)
}

// Kind returns what ds holds: image sets (Sets != nil), bases (Bases !=
// nil) or single images.
func (ds *Dataset) Kind() Kind {
	switch {
	case ds.Bases != nil:
		return KindBases
	case ds.Sets != nil:
		return KindSets
	}
	return KindImages
}

// Labelled reports whether ds has labels (classes).
func (ds *Dataset) Labelled() bool { return ds.Labels != nil }

// SetLabels returns the class of each set (NoLabel without labels), for
// splitting sets.
func (ds *Dataset) SetLabels() []int {
	l := make([]int, len(ds.Sets))
	for i, s := range ds.Sets {
		l[i] = s.Label
	}
	return l
}

// ClassCounts returns the number of items of each class (none without
// labels).
func (ds *Dataset) ClassCounts() []int {
	c := make([]int, len(ds.Classes))
	for _, l := range ds.Labels {
		c[l]++
	}
	return c
}

// Validate checks the invariants of ds (lengths agree, labels in range,
// pixels and bases finite, sets well formed). Loaders return only valid
// data sets; Validate is for data sets built or modified by hand.
func (ds *Dataset) Validate() error {
	fail := func(format string, a ...any) error {
		return fileErr(ds.Source, ErrSize, format, a...)
	}
	n := ds.Len()
	if ds.Labels != nil && len(ds.Labels) != n {
		return fail("%d items, %d labels", n, len(ds.Labels))
	}
	if ds.Labels == nil && ds.Classes != nil {
		return fail("%d classes but no labels", len(ds.Classes))
	}
	for i, l := range ds.Labels {
		if l < 0 || l >= len(ds.Classes) {
			return fail("label %d of item %d outside [0, %d)", l, i, len(ds.Classes))
		}
	}
	if ds.Files != nil && len(ds.Files) != len(ds.Images) {
		return fail("%d images, %d file names", len(ds.Images), len(ds.Files))
	}
	if ds.Width != 0 || ds.Height != 0 {
		if ds.Width*ds.Height != ds.Dim {
			return fail("shape %s does not match %d pixels", imageset.FormatSize(ds.Width, ds.Height), ds.Dim)
		}
	}
	switch {
	case ds.Bases != nil && ds.Images != nil:
		return fail("both images and bases")
	case ds.Bases != nil:
		if len(ds.Bases) != n {
			return fail("%d bases, %d labels", len(ds.Bases), n)
		}
		for i, b := range ds.Bases {
			if len(b) != ds.Dim*ds.SubDim {
				return fail("basis %d has %d values, want %dx%d", i, len(b), ds.Dim, ds.SubDim)
			}
			if !finite(b) {
				return fileErr(ds.Source, ErrValue, "basis %d has NaN or Inf", i)
			}
		}
	default:
		if len(ds.Images) != n {
			return fail("%d images, %d labels", len(ds.Images), n)
		}
		for i, x := range ds.Images {
			if len(x) != ds.Dim {
				return fail("image %d has %d pixels, want %d", i, len(x), ds.Dim)
			}
			if !finite(x) {
				return fileErr(ds.Source, ErrValue, "image %d has NaN or Inf", i)
			}
		}
	}
	for si, s := range ds.Sets {
		if ds.Labels == nil && s.Label != NoLabel {
			return fail("set %q: label %d in data without labels", s.Name, s.Label)
		}
		if ds.Labels != nil && (s.Label < 0 || s.Label >= len(ds.Classes)) {
			return fail("set %q: label %d outside [0, %d)", s.Name, s.Label, len(ds.Classes))
		}
		for _, i := range s.Images {
			if i < 0 || i >= len(ds.Images) {
				return fail("set %q (%d): image index %d outside [0, %d)", s.Name, si, i, len(ds.Images))
			}
			if ds.Labels != nil && ds.Labels[i] != s.Label {
				return fail("set %q: image %d has label %d, set has %d", s.Name, i, ds.Labels[i], s.Label)
			}
		}
	}
	return nil
}

func finite(x []float64) bool {
	for _, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// rows cuts a flat n*dim array into n rows sharing its memory (full slice
// expressions, so appending to a row cannot clobber the next one).
func rows(flat []float64, n, dim int) [][]float64 {
	r := make([][]float64, n)
	for i := range r {
		r[i] = flat[i*dim : (i+1)*dim : (i+1)*dim]
	}
	return r
}

// maxLabel bounds the magnitude of a numeric label (NPY, MAT): 2^53, up
// to which every integer is exactly a float64. Float labels are checked as
// float64; integer-typed labels as integers (intLabel), never through a
// float64, which would round 2^53+1 to 2^53 and accept it.
const maxLabel = 1 << 53

// labelRange says why the integral float label v is refused: "V, out of
// range: want an integer from -2^53 to 2^53", the range in digits, V in
// full up to 1e21 (any int64) and as %g beyond.
func labelRange(v float64) string {
	n := strconv.FormatFloat(v, 'g', -1, 64)
	if math.Abs(v) < 1e21 {
		n = strconv.FormatFloat(v, 'f', 0, 64)
	}
	return outOfRange(n)
}

// outOfRange is labelRange's message for a label whose digits are n.
func outOfRange(n string) string {
	return fmt.Sprintf("%s, out of range: want an integer from %d to %d", n, int64(-maxLabel), int64(maxLabel))
}

// intLabel checks a label of an integer type (NPY, MAT) in the integer
// domain: u holds its value in 64 bits, sign-extended if signed (an int64),
// zero-extended if not (a uint64). A value beyond ±maxLabel is an error
// saying so with its exact digits (labelRange's form).
func intLabel(u uint64, signed bool) (int64, error) {
	if signed {
		if v := int64(u); v < -maxLabel || v > maxLabel {
			return 0, errors.New(outOfRange(strconv.FormatInt(v, 10)))
		}
		return int64(u), nil
	}
	if u > maxLabel {
		return 0, errors.New(outOfRange(strconv.FormatUint(u, 10)))
	}
	return int64(u), nil
}

// classesFromInts maps raw integer labels to class indices 0..k-1 in
// ascending order of the raw values; Classes are the raw values as decimal
// strings.
func classesFromInts(raw []int64) (labels []int, classes []string) {
	// Data sets have few classes: collect them in a small map, so that
	// millions of labels cost no sort of all of them; many distinct
	// labels fall back to sorting a copy.
	const maxMapped = 1 << 12
	seen := make(map[int64]int)
	for _, v := range raw {
		if _, ok := seen[v]; !ok {
			if len(seen) == maxMapped {
				seen = nil
				break
			}
			seen[v] = 0
		}
	}
	var uniq []int64
	if seen != nil {
		uniq = make([]int64, 0, len(seen))
		for v := range seen {
			uniq = append(uniq, v)
		}
		slices.Sort(uniq)
		for i, v := range uniq {
			seen[v] = i
		}
	} else {
		uniq = slices.Clone(raw)
		slices.Sort(uniq)
		uniq = slices.Compact(uniq)
	}
	classes = make([]string, len(uniq))
	for i, v := range uniq {
		classes[i] = strconv.FormatInt(v, 10)
	}
	labels = make([]int, len(raw))
	for i, v := range raw {
		if seen != nil {
			labels[i] = seen[v]
		} else {
			labels[i], _ = slices.BinarySearch(uniq, v)
		}
	}
	return labels, classes
}

// classesFromStrings maps raw string labels to class indices: numerically
// sorted when all are integers, else sorted as strings.
func classesFromStrings(raw []string) (labels []int, classes []string) {
	ints := make([]int64, len(raw))
	allInt := true
	for i, s := range raw {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			allInt = false
			break
		}
		ints[i] = v
	}
	if allInt {
		return classesFromInts(ints)
	}
	uniq := slices.Clone(raw)
	slices.Sort(uniq)
	uniq = slices.Compact(uniq)
	labels = make([]int, len(raw))
	for i, s := range raw {
		labels[i], _ = slices.BinarySearch(uniq, s)
	}
	return labels, uniq
}

// maxDeflateRatio bounds the expansion of a deflate stream (each 258-byte
// match costs at least 2 bits: 1032:1), plus slack for headers. A gzipped or
// zlib-compressed payload whose header claims more than this many bytes per
// compressed byte cannot be genuine, so we refuse before allocating.
const maxDeflateRatio = 1040

// source is an opened data file, transparently gunzipped.
type source struct {
	name    string    // the path as given, for messages
	r       io.Reader // decompressed bytes, within lim.FileBytes, checking ctx
	size    int64     // file size on disk
	gzipped bool
	f       *os.File
	lim     Limits
}

// open opens path, a regular file (see imageset.OpenRegular: a FIFO or a
// device is refused without blocking), no larger than lim.FileBytes, and
// with gunzip detects gzip by its magic (1f 8b), whatever the name.
// Reading s.r stops with a *LimitError after lim.FileBytes bytes, and with
// ctx's error once ctx is done.
func open(ctx context.Context, path string, lim Limits, gunzip bool) (*source, error) {
	lim = lim.WithDefaults()
	f, err := imageset.OpenRegular(path)
	if err != nil {
		return nil, fmt.Errorf("dataset: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("dataset: %w", err)
	}
	if st.Size() > lim.FileBytes {
		f.Close()
		return nil, limitErr(path, "file size", imageset.LimitFileBytes, st.Size(), lim.FileBytes)
	}
	s := &source{name: path, size: st.Size(), f: f, lim: lim}
	br := bufio.NewReaderSize(f, 1<<16)
	magic, _ := br.Peek(2)
	if gunzip && bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			f.Close()
			return nil, fileErr(path, ErrFormat, "%s", streamMsg("gzip", err))
		}
		s.r, s.gzipped = zr, true
	} else {
		s.r = br
	}
	s.r = newBudget(ctx, path, s.r, lim.FileBytes)
	return s, nil
}

func (s *source) Close() error {
	if s.f == nil {
		return nil
	}
	return s.f.Close()
}

// memSource wraps in-memory bytes (tests, fuzzing), gunzipping them when they
// start with the gzip magic; the default limits apply.
func memSource(name string, b []byte) (*source, error) {
	lim := DefaultLimits()
	s := &source{name: name, size: int64(len(b)), r: bytes.NewReader(b), lim: lim}
	if bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(s.r)
		if err != nil {
			return nil, fileErr(name, ErrFormat, "%s", streamMsg("gzip", err))
		}
		s.r, s.gzipped = zr, true
	}
	s.r = newBudget(context.Background(), name, s.r, lim.FileBytes)
	return s, nil
}

// budget is an io.Reader that allows at most max bytes: reading more
// returns a *LimitError (wrapped: "dataset: FILE: ..."), and reading after
// ctx is done returns ctx's error (wrapped, naming the file). Both stick.
type budget struct {
	ctx  context.Context
	name string
	r    io.Reader
	left int64 // bytes still allowed
	max  int64
	err  error
}

func newBudget(ctx context.Context, name string, r io.Reader, max int64) *budget {
	return &budget{ctx: ctx, name: name, r: r, left: max, max: max}
}

func (b *budget) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if err := b.ctx.Err(); err != nil {
		b.err = fmt.Errorf("dataset: %s: %w", b.name, err)
		return 0, b.err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left+1] // one byte past the budget tells "more" from "exactly"
	}
	n, err := b.r.Read(p)
	if int64(n) > b.left {
		n = int(b.left)
		b.left = 0
		b.err = limitErr(b.name, "data after decompression", imageset.LimitFileBytes, 0, b.max)
		return n, b.err
	}
	b.left -= int64(n)
	return n, err
}

// stopErr reports whether err ends a load as it is, without a *FileError
// around it: a limit, or a cancelled context.
func stopErr(err error) bool {
	return errors.Is(err, ErrLimit) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// streamMsg formats a decompression error once prefixed with the format
// ("gzip: invalid checksum", not "gzip: gzip: invalid checksum"; flate's
// "flate: corrupt input ..." becomes "gzip: flate: corrupt input ...").
func streamMsg(format string, err error) string {
	msg := err.Error()
	if strings.HasPrefix(msg, format+": ") {
		return msg
	}
	return format + ": " + msg
}

// maxBytes is the most bytes the decompressed stream can hold.
func (s *source) maxBytes() int64 {
	if s.gzipped {
		if s.size > math.MaxInt64/maxDeflateRatio {
			return math.MaxInt64
		}
		return s.size * maxDeflateRatio
	}
	return s.size
}

// readExactly reads exactly n bytes (n already checked against maxBytes and
// the limits), growing the buffer as data arrives so a lying gzip stream
// cannot make us allocate more than it really holds. Reading the stream to
// its end also verifies the gzip checksum.
func (s *source) readExactly(n int64, what string) ([]byte, error) {
	var buf []byte
	if !s.gzipped {
		buf = make([]byte, n) // n <= file size, checked by the caller
		if err := s.readFull(buf, what); err != nil {
			return nil, err
		}
		return buf, nil
	}
	var b bytes.Buffer
	got, err := b.ReadFrom(io.LimitReader(s.r, n))
	if err != nil {
		if stopErr(err) {
			return nil, err
		}
		return nil, s.errf(ErrFormat, "%s: %s", what, streamMsg("gzip", err))
	}
	if got != n {
		return nil, s.errf(ErrSize, "%s: file too short: %d of %d bytes", what, got, n)
	}
	return b.Bytes(), nil
}

// readUpTo reads exactly n bytes (n small: a header), the buffer growing
// with what arrives.
func (s *source) readUpTo(n int64, what string) ([]byte, error) {
	var b bytes.Buffer
	got, err := b.ReadFrom(io.LimitReader(s.r, n))
	switch {
	case err != nil && stopErr(err):
		return nil, err
	case err != nil && s.gzipped:
		return nil, s.errf(ErrFormat, "%s: %s", what, streamMsg("gzip", err))
	case err != nil:
		return nil, s.errf(ErrFormat, "%s: %v", what, err)
	case got != n:
		return nil, s.errf(ErrSize, "%s: file too short", what)
	}
	return b.Bytes(), nil
}

// expectEOF reports trailing bytes after the data (and checks the gzip CRC).
// Trailing bytes are counted up to the file's byte limit.
func (s *source) expectEOF() error {
	var one [1]byte
	n, err := io.ReadFull(s.r, one[:])
	if n > 0 {
		extra, err := io.Copy(io.Discard, s.r)
		if err != nil && stopErr(err) {
			return err
		}
		return s.errf(ErrSize, "%d extra bytes after the data", extra+1)
	}
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		if stopErr(err) {
			return err
		}
		return s.errf(ErrFormat, "%s", streamMsg("gzip", err))
	}
	return nil
}

// readFull fills buf, telling a short file from a broken stream.
func (s *source) readFull(buf []byte, what string) error {
	_, err := io.ReadFull(s.r, buf)
	switch {
	case err == nil:
		return nil
	case err == io.EOF, err == io.ErrUnexpectedEOF:
		return s.errf(ErrSize, "%s: file too short", what)
	case stopErr(err):
		return err
	case s.gzipped:
		return s.errf(ErrFormat, "%s: %s", what, streamMsg("gzip", err))
	default:
		return s.errf(ErrFormat, "%s: %v", what, err)
	}
}

func (s *source) errf(kind error, format string, a ...any) error {
	return fileErr(s.name, kind, format, a...)
}

// pixelDivisor checks a PixelMax option: 0 means 1 (values as stored).
// Dividing (rather than multiplying by 1/max) keeps v/255 bit-identical
// across loaders.
func pixelDivisor(pixelMax float64) (float64, error) {
	if pixelMax == 0 {
		return 1, nil
	}
	if !(pixelMax > 0) || math.IsInf(pixelMax, 0) {
		return 0, fmt.Errorf("pixel max %g is not a positive finite number", pixelMax)
	}
	return pixelMax, nil
}
