package dataset

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/grlgq/grlgq/dataset/imageset"
)

// MATLAB level-5 data types (miXXX) and array classes (mxXXX).
const (
	miINT8       = 1
	miUINT8      = 2
	miINT16      = 3
	miUINT16     = 4
	miINT32      = 5
	miUINT32     = 6
	miSINGLE     = 7
	miDOUBLE     = 9
	miINT64      = 12
	miUINT64     = 13
	miMATRIX     = 14
	miCOMPRESSED = 15
	miUTF8       = 16
)

var mxClassNames = [...]string{
	1: "cell", 2: "struct", 3: "object", 4: "char", 5: "sparse", 6: "double",
	7: "single", 8: "int8", 9: "uint8", 10: "int16", 11: "uint16", 12: "int32",
	13: "uint32", 14: "int64", 15: "uint64", 16: "function", 17: "opaque",
}

func mxClassName(c uint32) string {
	if int(c) < len(mxClassNames) && mxClassNames[c] != "" {
		return mxClassNames[c]
	}
	return fmt.Sprintf("class %d", c)
}

const (
	mxDOUBLE = 6
	mxUINT64 = 15
	// Array flag bits (word 0 of the array-flags sub-element).
	mxComplexFlag = 0x0800
	mxLogicalFlag = 0x0200
)

// MATArray is a real numeric MATLAB array (double, single, integer or
// logical), converted to float64.
type MATArray struct {
	Name  string
	Class string // MATLAB class: "double", "single", "uint8", ...; "logical" for logical arrays
	// Dims are the MATLAB dimensions (at least 2).
	Dims []int
	// Data holds the elements in MATLAB (column-major) order: element (i, j)
	// of a 2-D array is Data[i+j*Dims[0]].
	Data []float64

	// Before conversion: the stored elements (MAT.Load converts its images
	// straight from them into the Dataset, so they never exist twice as
	// float64).
	raw   []byte
	typ   uint32
	order binary.ByteOrder
}

// value returns stored element k as float64.
func (a *MATArray) value(k int) float64 { return miValue(a.raw, a.typ, a.order, k) }

// convert fills Data from the stored elements.
func (a *MATArray) convert() {
	a.Data = make([]float64, len(a.raw)/miSizeOf(a.typ))
	convertMI(a.Data, a.raw, a.typ, a.order)
	a.raw = nil
}

// ReadMAT reads the named real numeric variables of a MATLAB level-5
// MAT-file (the default format of MATLAB up to -v7, with or without zlib
// compression, either byte order). Variables not named are skipped without
// being decompressed past their name; with no names, every numeric variable
// is returned and the others (cell, struct, char, sparse, complex) are
// skipped. A named variable that is missing or not real numeric is an error.
// MAT v7.3 files (HDF5) and v4 files are rejected as unsupported. Within
// lim (zero fields: DefaultLimits): the file's size and the bytes
// decompressed from it count against lim.FileBytes, the elements of the
// variables read against lim.TotalValues (checked from their dimensions,
// which are checked against the bytes the element holds, before the data is
// read). ctx is checked as the file is read and decompressed.
func ReadMAT(ctx context.Context, path string, lim Limits, names ...string) (map[string]*MATArray, error) {
	b, err := readMATFile(ctx, path, lim)
	if err != nil {
		return nil, err
	}
	vars, err := parseMAT(ctx, path, b, names, lim)
	if err != nil {
		return nil, err
	}
	for _, a := range vars {
		a.convert()
	}
	return vars, nil
}

// readMATFile reads a whole MAT-file (never gunzipped: MAT-files compress
// their elements with zlib themselves) within lim.FileBytes.
func readMATFile(ctx context.Context, path string, lim Limits) ([]byte, error) {
	s, err := open(ctx, path, lim, false)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	b := make([]byte, 0, s.size+1) // s.size <= lim.FileBytes
	b, err = readAll(s.r, b)
	if err != nil {
		if stopErr(err) {
			return nil, err
		}
		return nil, fmt.Errorf("dataset: %s: %w", path, err)
	}
	return b, nil
}

// readAll appends r's bytes to b until EOF.
func readAll(r io.Reader, b []byte) ([]byte, error) {
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// matBudget is what is left of a MAT-file's limits while it is parsed.
type matBudget struct {
	ctx      context.Context
	lim      Limits
	inflated int64 // bytes still allowed out of zlib, for the whole file
	values   int64 // elements of the variables read so far
}

// matHeaderLen is the length of the level-5 file header: 116 bytes of text,
// 8 of subsystem offset, 2 of version, 2 of endian indicator.
const matHeaderLen = 128

func parseMAT(ctx context.Context, file string, b []byte, names []string, lim Limits) (map[string]*MATArray, error) {
	lim = lim.WithDefaults()
	mb := &matBudget{ctx: ctx, lim: lim, inflated: lim.FileBytes}
	if len(b) < matHeaderLen {
		return nil, fileErr(file, ErrFormat, "%d bytes, too short for a MAT-file header", len(b))
	}
	text := string(b[:116])
	if strings.HasPrefix(text, "MATLAB 7.3 MAT-file") || (len(b) >= 516 && string(b[512:516]) == "\x89HDF") {
		return nil, fileErr(file, ErrUnsupported, "MAT v7.3 (HDF5) file; save it with -v7 or -v6")
	}
	var order binary.ByteOrder
	switch string(b[126:128]) {
	case "IM":
		order = binary.LittleEndian
	case "MI":
		order = binary.BigEndian
	default:
		return nil, fileErr(file, ErrFormat, "no MAT level-5 endian indicator (bytes 126-127 are %q, want \"IM\" or \"MI\"); not a level-5 MAT-file", b[126:128])
	}
	if v := order.Uint16(b[124:126]); v != 0x0100 {
		return nil, fileErr(file, ErrFormat, "MAT-file version 0x%04x, want 0x0100", v)
	}
	all := len(names) == 0
	want := func(name string) bool { return all || slices.Contains(names, name) }
	out := make(map[string]*MATArray)
	pos := int64(matHeaderLen)
	size := int64(len(b))
	for pos < size {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("dataset: %s: %w", file, err)
		}
		if size-pos < 8 {
			return nil, fileErr(file, ErrFormat, "offset %d: %d stray bytes at the end", pos, size-pos)
		}
		typ := order.Uint32(b[pos:])
		if typ>>16 != 0 {
			return nil, fileErr(file, ErrFormat, "offset %d: top-level element in small format", pos)
		}
		n := int64(order.Uint32(b[pos+4:]))
		body := pos + 8
		if n > size-body {
			return nil, fileErr(file, ErrSize, "offset %d: element of %d bytes, only %d left in the file", pos, n, size-body)
		}
		payload := b[body : body+n]
		var (
			arr *MATArray
			err error
		)
		switch typ {
		case miCOMPRESSED:
			arr, err = readCompressed(mb, file, payload, order, want, all)
		case miMATRIX:
			er := &elemReader{r: bytes.NewReader(payload), order: order, left: n, file: file, budget: mb}
			arr, err = er.matrix(want, all)
		default:
			// Other top-level elements (none in files MATLAB writes) are skipped.
		}
		if err != nil {
			if stopErr(err) {
				return nil, err
			}
			return nil, fmt.Errorf("%w (element at offset %d)", err, pos)
		}
		if arr != nil {
			if _, dup := out[arr.Name]; dup {
				return nil, fileErr(file, ErrFormat, "variable %q appears twice", arr.Name)
			}
			out[arr.Name] = arr
		}
		// Top-level elements are not padded after compressed data (MATLAB
		// and scipy agree); uncompressed matrices are already a multiple of
		// 8 bytes long.
		pos = body + n
	}
	for _, name := range names {
		if _, ok := out[name]; !ok {
			return nil, fileErr(file, ErrFormat, "no numeric variable %q", name)
		}
	}
	return out, nil
}

func readCompressed(mb *matBudget, file string, payload []byte, order binary.ByteOrder, want func(string) bool, all bool) (*MATArray, error) {
	zr, err := zlib.NewReader(bytes.NewReader(payload))
	if err != nil {
		return nil, fileErr(file, ErrFormat, "%s", streamMsg("zlib", err))
	}
	defer zr.Close()
	// All the file's compressed elements share lim.FileBytes.
	r := newBudget(mb.ctx, file, zr, mb.inflated)
	r.max = mb.lim.FileBytes
	defer func() { mb.inflated = r.left }()
	var tag [8]byte
	if _, err := io.ReadFull(r, tag[:]); err != nil {
		if stopErr(err) {
			return nil, err
		}
		return nil, fileErr(file, ErrFormat, "compressed element: %v", err)
	}
	typ := order.Uint32(tag[:])
	n := int64(order.Uint32(tag[4:]))
	if typ != miMATRIX {
		return nil, fileErr(file, ErrFormat, "compressed element holds data type %d, want miMATRIX (14)", typ)
	}
	if limit := int64(len(payload)) * maxDeflateRatio; n > limit {
		return nil, fileErr(file, ErrSize, "compressed element claims %d bytes from %d compressed, impossible for deflate", n, len(payload))
	}
	// What the file's elements decompressed so far, plus this one.
	if err := checkLimit(file, "compressed element", imageset.LimitFileBytes, mb.lim.FileBytes-r.left+n, mb.lim.FileBytes); err != nil {
		return nil, err
	}
	er := &elemReader{r: r, order: order, left: n, file: file, compressed: true, budget: mb}
	return er.matrix(want, all)
}

// elemReader reads the sub-elements of one miMATRIX, never past its length.
type elemReader struct {
	r          io.Reader
	order      binary.ByteOrder
	left       int64 // bytes of the matrix not read yet
	file       string
	compressed bool
	budget     *matBudget
}

func (e *elemReader) errf(kind error, format string, a ...any) error {
	return fileErr(e.file, kind, format, a...)
}

// read fills buf from the matrix body.
func (e *elemReader) read(buf []byte, what string) error {
	if int64(len(buf)) > e.left {
		return e.errf(ErrSize, "%s: %d bytes past the end of the array element", what, int64(len(buf))-e.left)
	}
	if _, err := io.ReadFull(e.r, buf); err != nil {
		if stopErr(err) {
			return err
		}
		if e.compressed && err != io.EOF && err != io.ErrUnexpectedEOF {
			return e.errf(ErrFormat, "%s: %s", what, streamMsg("zlib", err))
		}
		return e.errf(ErrSize, "%s: data ends early (%v)", what, err)
	}
	e.left -= int64(len(buf))
	return nil
}

// next reads one sub-element (tag, payload, padding to 8 bytes). The payload
// buffer grows as bytes arrive, so a lying length costs no more memory than
// the data really there.
func (e *elemReader) next(what string) (typ uint32, payload []byte, err error) {
	var tag [8]byte
	if err := e.read(tag[:], what+" tag"); err != nil {
		return 0, nil, err
	}
	w := e.order.Uint32(tag[:])
	if w>>16 != 0 { // small data element: length in the upper half, data in the tag
		typ, n := w&0xffff, w>>16
		if n > 4 {
			return 0, nil, e.errf(ErrFormat, "%s: small element of %d bytes (at most 4)", what, n)
		}
		return typ, slices.Clone(tag[4 : 4+n]), nil
	}
	n := int64(e.order.Uint32(tag[4:]))
	if n > e.left {
		return 0, nil, e.errf(ErrSize, "%s: %d bytes, only %d left in the array element", what, n, e.left)
	}
	var buf bytes.Buffer
	got, err := buf.ReadFrom(io.LimitReader(e.r, n))
	e.left -= got
	if err != nil {
		if stopErr(err) {
			return 0, nil, err
		}
		return 0, nil, e.errf(ErrFormat, "%s: %s", what, streamMsg("zlib", err))
	}
	if got != n {
		return 0, nil, e.errf(ErrSize, "%s: data ends after %d of %d bytes", what, got, n)
	}
	if pad := (8 - n%8) % 8; pad != 0 && e.left > 0 {
		var p [8]byte
		if err := e.read(p[:min(pad, e.left)], what+" padding"); err != nil {
			return 0, nil, err
		}
	}
	return w, buf.Bytes(), nil
}

// matrix reads an miMATRIX body: flags, dimensions, name, real part. It
// returns nil (no error) for arrays that are not wanted or, when all
// variables are wanted, not real numeric.
func (e *elemReader) matrix(want func(string) bool, all bool) (*MATArray, error) {
	if e.left == 0 {
		return nil, nil // empty element (as in cells); never a variable
	}
	typ, flags, err := e.next("array flags")
	if err != nil {
		return nil, err
	}
	if typ != miUINT32 || len(flags) != 8 {
		return nil, e.errf(ErrFormat, "array flags: type %d of %d bytes, want miUINT32 of 8", typ, len(flags))
	}
	f := e.order.Uint32(flags)
	class := f & 0xff
	typ, dimb, err := e.next("dimensions")
	if err != nil {
		return nil, err
	}
	if typ != miINT32 || len(dimb)%4 != 0 || len(dimb) < 8 {
		return nil, e.errf(ErrFormat, "dimensions: type %d of %d bytes, want miINT32, at least 2", typ, len(dimb))
	}
	dims := make([]int, len(dimb)/4)
	for i := range dims {
		d := int32(e.order.Uint32(dimb[4*i:]))
		if d < 0 {
			return nil, e.errf(ErrFormat, "dimension %d is negative (%d)", i, d)
		}
		dims[i] = int(d)
	}
	typ, nameb, err := e.next("array name")
	if err != nil {
		return nil, err
	}
	if typ != miINT8 && typ != miUINT8 && typ != miUTF8 {
		return nil, e.errf(ErrFormat, "array name: type %d, want miINT8", typ)
	}
	name := string(nameb)
	dimStr := fmt.Sprint(dims)
	named := want(name)
	if !named {
		return nil, nil
	}
	numeric := class >= mxDOUBLE && class <= mxUINT64
	if !numeric || f&mxComplexFlag != 0 {
		what := mxClassName(class)
		if f&mxComplexFlag != 0 {
			what = "complex " + what
		}
		if all { // skip the variables we cannot read
			return nil, nil
		}
		return nil, e.errf(ErrUnsupported, "variable %q is %s %s, want a real numeric array", name, what, dimStr)
	}
	count := int64(1)
	for _, d := range dims {
		if d != 0 && count > e.left/int64(d) {
			return nil, e.errf(ErrSize, "variable %q: dimensions %s need more bytes than the element holds", name, dimStr)
		}
		count *= int64(d)
	}
	e.budget.values += count
	if err := checkLimit(e.file, fmt.Sprintf("variable %q %s", name, dimStr), imageset.LimitValues, e.budget.values, e.budget.lim.TotalValues); err != nil {
		return nil, err
	}
	typ, data, err := e.next("variable " + name + " data")
	if err != nil {
		return nil, err
	}
	size, ok := miSize(typ)
	if !ok {
		return nil, e.errf(ErrFormat, "variable %q: data type %d is not numeric", name, typ)
	}
	if int64(len(data)) != count*int64(size) {
		return nil, e.errf(ErrSize, "variable %q: dimensions %s need %d elements, data has %d bytes of %d-byte elements", name, dimStr, count, len(data), size)
	}
	cls := mxClassName(class)
	if f&mxLogicalFlag != 0 {
		cls = "logical"
	}
	return &MATArray{Name: name, Class: cls, Dims: dims, raw: data, typ: typ, order: e.order}, nil
}

// miSizeOf is miSize of a numeric type.
func miSizeOf(typ uint32) int {
	n, _ := miSize(typ)
	return n
}

func miSize(typ uint32) (int, bool) {
	switch typ {
	case miINT8, miUINT8:
		return 1, true
	case miINT16, miUINT16:
		return 2, true
	case miINT32, miUINT32, miSINGLE:
		return 4, true
	case miDOUBLE, miINT64, miUINT64:
		return 8, true
	}
	return 0, false
}

// convertMI converts len(dst) elements of storage type typ (MATLAB may store
// a double array as, say, miUINT8 when its values fit) to float64.
func convertMI(dst []float64, b []byte, typ uint32, o binary.ByteOrder) {
	for i := range dst {
		dst[i] = miValue(b, typ, o, i)
	}
}

// miValue returns element i of b, of storage type typ, as float64.
func miValue(b []byte, typ uint32, o binary.ByteOrder, i int) float64 {
	switch typ {
	case miINT8:
		return float64(int8(b[i]))
	case miUINT8:
		return float64(b[i])
	case miINT16:
		return float64(int16(o.Uint16(b[2*i:])))
	case miUINT16:
		return float64(o.Uint16(b[2*i:]))
	case miINT32:
		return float64(int32(o.Uint32(b[4*i:])))
	case miUINT32:
		return float64(o.Uint32(b[4*i:]))
	case miSINGLE:
		return float64(math.Float32frombits(o.Uint32(b[4*i:])))
	case miDOUBLE:
		return math.Float64frombits(o.Uint64(b[8*i:]))
	case miINT64:
		return float64(int64(o.Uint64(b[8*i:])))
	case miUINT64:
		return float64(o.Uint64(b[8*i:]))
	}
	return 0
}

// miInt returns element i of b, of an integer storage type typ, in 64
// bits: sign-extended if signed (an int64), zero-extended if not (a
// uint64). ok is false for miSINGLE and miDOUBLE.
func miInt(b []byte, typ uint32, o binary.ByteOrder, i int) (u uint64, signed, ok bool) {
	switch typ {
	case miINT8:
		return uint64(int64(int8(b[i]))), true, true
	case miUINT8:
		return uint64(b[i]), false, true
	case miINT16:
		return uint64(int64(int16(o.Uint16(b[2*i:])))), true, true
	case miUINT16:
		return uint64(o.Uint16(b[2*i:])), false, true
	case miINT32:
		return uint64(int64(int32(o.Uint32(b[4*i:])))), true, true
	case miUINT32:
		return uint64(o.Uint32(b[4*i:])), false, true
	case miINT64:
		return o.Uint64(b[8*i:]), true, true
	case miUINT64:
		return o.Uint64(b[8*i:]), false, true
	}
	return 0, false, false
}

// MAT is a MATLAB level-5 MAT-file of images and labels (see ReadMAT for
// the formats read). The zero options read Deng Cai's layout (fea: one
// image per row, gnd: labels) without a shape.
type MAT struct {
	File string
	// X and Y name the image and label variables; "" means "fea" and "gnd".
	// NoLabels reads the images alone: data without labels.
	X, Y     string
	NoLabels bool
	// Columns: one image per column of X (default: one per row). Ignored
	// for a 3-D X, which is always Height x Width x N.
	Columns bool
	// Width and Height give the image shape; both 0 when unknown (then
	// taken from a 3-D X). Width*Height must equal the pixels per image.
	Width, Height int
	// Transpose: each image's pixels are in MATLAB column-major order
	// (the image was flattened column by column, as X(:) does); reorder
	// them to row-major. Needs Width and Height. Implied for a 3-D X.
	Transpose bool
	// PixelMax: pixel values are divided by it (Yale B: 255); 0 means 1
	// (values kept as stored). uint8 arrays are not treated specially.
	PixelMax float64
	// Resize resamples every image to this size after loading
	// (Catmull-Rom, Dataset.Resized, pixels in [0, 1]); the zero Size
	// keeps the size.
	Resize Size
	// Limits bounds the input (zero fields: DefaultLimits).
	Limits Limits
}

// String returns the source as mat:FILE.
func (s MAT) String() string { return "mat:" + s.File }

// Inputs returns the file Load reads.
func (s MAT) Inputs() []string { return []string{s.File} }

// Load reads the images and labels: X is N x D (or D x N with Columns, or
// H x W x N); Y holds N integer labels in any shape (N x 1, 1 x N). It
// works within s.Limits (see ReadMAT; the pixels per image are checked
// too), checking ctx as the file is read and its images converted.
func (s MAT) Load(ctx context.Context) (*Dataset, error) {
	if err := checkResize(s.File, s.Resize, s.Limits); err != nil {
		return nil, err
	}
	b, err := readMATFile(ctx, s.File, s.Limits)
	if err != nil {
		return nil, err
	}
	ds, err := parseMATDataset(ctx, s.File, b, s)
	if err == nil {
		ds, err = resizeLoaded(ctx, ds, s.Resize, s.Limits)
	}
	return loaded(ctx, s.File, ds, err)
}

func parseMATDataset(ctx context.Context, path string, b []byte, opt MAT) (*Dataset, error) {
	xn, yn := opt.X, opt.Y
	if xn == "" {
		xn = "fea"
	}
	if yn == "" {
		yn = "gnd"
	}
	if xn == yn && !opt.NoLabels {
		return nil, fileErr(path, ErrFormat, "images and labels both from variable %q", xn)
	}
	names := []string{xn, yn}
	if opt.NoLabels {
		names = names[:1]
	}
	if opt.Width < 0 || opt.Height < 0 || (opt.Width == 0) != (opt.Height == 0) {
		return nil, fileErr(path, ErrSize, "image shape %s: give both height and width, or neither", imageset.FormatSize(opt.Width, opt.Height))
	}
	div, err := pixelDivisor(opt.PixelMax)
	if err != nil {
		return nil, fileErr(path, ErrValue, "%v", err)
	}
	lim := opt.Limits.WithDefaults()
	vars, err := parseMAT(ctx, path, b, names, lim)
	if err != nil {
		return nil, err
	}
	x, y := vars[xn], vars[yn]
	h, w := opt.Height, opt.Width
	var n, dim int
	// at(i, p) is pixel p (in X's own order) of image i.
	var at func(i, p int) float64
	transpose := opt.Transpose
	switch len(x.Dims) {
	case 2:
		r, c := x.Dims[0], x.Dims[1]
		if opt.Columns {
			n, dim = c, r
			at = func(i, p int) float64 { return x.value(p + i*r) }
		} else {
			n, dim = r, c
			at = func(i, p int) float64 { return x.value(i + p*r) }
		}
	case 3:
		hh, ww := x.Dims[0], x.Dims[1]
		if h != 0 && (h != hh || w != ww) {
			return nil, fileErr(path, ErrSize, "variable %q is %v (images %s), options say %s", xn, x.Dims, imageset.FormatSize(ww, hh), imageset.FormatSize(w, h))
		}
		h, w, n, dim, transpose = hh, ww, x.Dims[2], hh*ww, true
		at = func(i, p int) float64 { return x.value(p + i*dim) }
	default:
		return nil, fileErr(path, ErrUnsupported, "variable %q has %d dimensions %v, want 2 (images as rows or columns) or 3 (H x W x N)", xn, len(x.Dims), x.Dims)
	}
	if h != 0 && h*w != dim {
		return nil, fileErr(path, ErrSize, "variable %q: %d pixels per image, shape %s needs %d", xn, dim, imageset.FormatSize(w, h), h*w)
	}
	if transpose && h == 0 {
		return nil, fileErr(path, ErrSize, "transposing images needs their shape (height x width)")
	}
	if n == 0 || dim == 0 {
		return nil, fileErr(path, ErrSize, "variable %q is %v: no images", xn, x.Dims)
	}
	if err := checkLimit(path, fmt.Sprintf("variable %q %v", xn, x.Dims), imageset.LimitPixels, int64(dim), lim.PixelsPerImage); err != nil {
		return nil, err
	}
	if err := checkLimit(path, fmt.Sprintf("variable %q %v", xn, x.Dims), imageset.LimitValues, imageset.CountValues(int64(n), int64(dim)), lim.TotalValues); err != nil {
		return nil, err
	}
	var raw []int64
	if y != nil {
		if m := len(y.raw) / miSizeOf(y.typ); m != n {
			return nil, fileErr(path, ErrSize, "labels %q %v hold %d values, images %q %v hold %d images", yn, y.Dims, m, xn, x.Dims, n)
		}
		raw = make([]int64, n)
		for i := range raw {
			// Labels stored as integers are checked as integers: 2^53+1
			// is no float64.
			if u, signed, ok := miInt(y.raw, y.typ, y.order, i); ok {
				v, err := intLabel(u, signed)
				if err != nil {
					return nil, fileErr(path, ErrValue, "label %s(%d) = %v", yn, i+1, err)
				}
				raw[i] = v
				continue
			}
			v := y.value(i)
			if math.IsInf(v, 0) || v != math.Trunc(v) {
				return nil, fileErr(path, ErrValue, "label %s(%d) = %g is not an integer", yn, i+1, v)
			}
			if math.Abs(v) > maxLabel {
				return nil, fileErr(path, ErrValue, "label %s(%d) = %s", yn, i+1, labelRange(v))
			}
			raw[i] = int64(v)
		}
	}
	flat := make([]float64, n*dim)
	for i := 0; i < n; i++ {
		if i%1024 == 0 && ctx.Err() != nil {
			return nil, fmt.Errorf("dataset: %s: %w", path, ctx.Err())
		}
		img := flat[i*dim : (i+1)*dim]
		for p := range img {
			q := p
			if transpose { // row-major pixel p = (row, col) sits at col*h+row in X
				q = (p%w)*h + p/w
			}
			v := at(i, q)
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fileErr(path, ErrValue, "image %d (1-based, as in MATLAB) has a NaN or Inf pixel", i+1)
			}
			img[p] = v / div
		}
	}
	ds := &Dataset{
		Source: path,
		Dim:    dim,
		Width:  w,
		Height: h,
		Images: rows(flat, n, dim),
	}
	if raw != nil {
		ds.Labels, ds.Classes = classesFromInts(raw)
	}
	return ds, nil
}
