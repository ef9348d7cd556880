package dataset

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/grlgq/grlgq/dataset/imageset"
	"github.com/grlgq/grlgq/internal/quote"
)

// csvBlock is the size (in values) of the blocks CSV rows are stored in.
const csvBlock = 1 << 20

// MaxCSVField bounds the bytes of one CSV field: a number needs a few
// dozen, a label a few more; a longer field is an error, so that a field,
// like a line, takes memory only in proportion to what was read and never
// more than this.
const MaxCSVField = 1 << 16

// LabelColumn says where a CSV line holds its label.
type LabelColumn uint8

const (
	// LabelLast: the pixels, then the label (the default).
	LabelLast LabelColumn = iota
	// LabelFirst: the label, then the pixels (Kaggle's MNIST CSV).
	LabelFirst
	// LabelNone: pixels only, no label (new data to classify).
	LabelNone
)

var labelColumnWords = []string{"last", "first", "none"}

// String returns "last", "first" or "none".
func (c LabelColumn) String() string {
	if int(c) < len(labelColumnWords) {
		return labelColumnWords[c]
	}
	return fmt.Sprintf("LabelColumn(%d)", c)
}

// MarshalText returns the word of c; an unknown value is an error.
func (c LabelColumn) MarshalText() ([]byte, error) {
	if int(c) < len(labelColumnWords) {
		return []byte(labelColumnWords[c]), nil
	}
	return nil, fmt.Errorf("dataset: unknown label column %d", c)
}

// UnmarshalText parses "last", "first" or "none".
func (c *LabelColumn) UnmarshalText(b []byte) error {
	for i, w := range labelColumnWords {
		if w == string(b) {
			*c = LabelColumn(i)
			return nil
		}
	}
	return fmt.Errorf("dataset: label column %q: want one of %s", b, strings.Join(labelColumnWords, ", "))
}

// CSV is a CSV file (gzipped or not, detected by the gzip magic) of one
// image per line: the pixels and the label (by default last; see Label),
// no header unless Header.
type CSV struct {
	File string
	// Width and Height give the image shape; both 0 when unknown. When set,
	// Width*Height must equal the number of pixel columns.
	Width, Height int
	// PixelMax: pixel values are divided by it (digits: 16 maps 0..16 to
	// [0, 1]); 0 means 1, values kept as stored.
	PixelMax float64
	// Header: skip the first line.
	Header bool
	// Label says which column holds the label (LabelLast, LabelFirst), or
	// that there is none (LabelNone: data without labels).
	Label LabelColumn
	// Resize resamples every image to this size after loading
	// (Catmull-Rom, Dataset.Resized, pixels in [0, 1]); the zero Size
	// keeps the size.
	Resize Size
	// Limits bounds the input (zero fields: DefaultLimits).
	Limits Limits
}

// String returns the source as csv:FILE.
func (s CSV) String() string { return "csv:" + s.File }

// Inputs returns the file Load reads.
func (s CSV) Inputs() []string { return []string{s.File} }

// Load reads the file. Fields may be quoted (RFC 4180: "" in a quoted
// field is a quote; a quoted field may span lines) and surrounded by
// spaces; blank lines are skipped. Labels are integers (classes in
// ascending numeric order) or any other strings (classes in string
// order). Ragged lines, non-numeric pixels, NaN and Inf are errors naming
// the line. Everything is bounded by what was read: the bytes (after
// decompression) by s.Limits.FileBytes, the fields of a line by the pixels
// per image (plus the label), a field by MaxCSVField bytes, the values in
// all by s.Limits.TotalValues, each checked as the line is read (a file of
// one endless line is refused as soon as its fields pass the pixel
// limit); ctx is checked as the file is read. A UTF-8 byte-order mark at
// the start of the file is skipped.
func (s CSV) Load(ctx context.Context) (*Dataset, error) {
	if err := checkResize(s.File, s.Resize, s.Limits); err != nil {
		return nil, err
	}
	src, err := open(ctx, s.File, s.Limits, true)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	ds, err := readCSV(src, s)
	if err == nil {
		ds, err = resizeLoaded(ctx, ds, s.Resize, s.Limits)
	}
	return loaded(ctx, s.File, ds, err)
}

func readCSV(s *source, opt CSV) (*Dataset, error) {
	if opt.Width < 0 || opt.Height < 0 || (opt.Width == 0) != (opt.Height == 0) {
		return nil, s.errf(ErrSize, "image shape %s: give both height and width, or neither", imageset.FormatSize(opt.Width, opt.Height))
	}
	if opt.Label > LabelNone {
		return nil, s.errf(ErrFormat, "unknown label column %d", opt.Label)
	}
	div, err := pixelDivisor(opt.PixelMax)
	if err != nil {
		return nil, s.errf(ErrValue, "%v", err)
	}
	labelled := opt.Label != LabelNone
	extra := 0 // the label's field
	if labelled {
		extra = 1
	}
	r := newCSVReader(s.r)
	r.skipBOM()
	var (
		blocks [][]float64        // full blocks, each a whole number of rows
		block  []float64          // the current block, rows in block[:used]
		used   int                // values used in block
		first  [][]float64        // the first line's pixels, before dim is known, in chunks of csvBlock
		ids    []int              // ids[i] indexes raw, the label of line i
		raw    []string           // distinct labels, in order of appearance
		index  = map[string]int{} // raw label -> its index in raw
		dim    = -1
		n      int // lines read
		header = opt.Header
		label  string
	)
	// The most fields a line may have: the pixel limit (and the label),
	// then, once the first line has fixed dim, that line's count (one more
	// is counted, to tell a ragged line).
	maxFields := int64(s.lim.PixelsPerImage) + int64(extra)
	for {
		// pixel stores field k of the line (not the label) at pixel p.
		var img []float64
		if dim >= 0 && !header {
			if v := imageset.CountValues(int64(n+1), int64(dim)); v > s.lim.TotalValues {
				return nil, limitErr(s.name, fmt.Sprintf("line %d", r.line), imageset.LimitValues, v, s.lim.TotalValues)
			}
			if used+dim > len(block) {
				// Blocks, not one growing array: no copy on growth, so the
				// peak is the values themselves plus one block. Blocks
				// double from 4096 values to csvBlock. The rows are cut
				// at the end: no pointers for the collector to scan while
				// reading.
				if block != nil {
					blocks = append(blocks, block[:used])
				}
				size := min(csvBlock, max(4096, n*dim))
				block, used = make([]float64, max(size/max(dim, 1), 1)*dim), 0
			}
			img = block[used : used+dim]
		}
		var fieldErr error
		label = ""
		nf, err := r.record(maxFields, func(k int, last bool, field []byte) {
			if fieldErr != nil || header {
				return
			}
			if (opt.Label == LabelFirst && k == 0) || (opt.Label == LabelLast && last) {
				label = strings.TrimSpace(string(field))
				return
			}
			p := k
			if opt.Label == LabelFirst {
				p--
			}
			v, err := strconv.ParseFloat(strings.TrimSpace(string(field)), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				fieldErr = s.errf(ErrValue, "line %d, field %d: %s is not a finite number", r.start, k+1, quote.Short(field))
				return
			}
			switch {
			case img != nil:
				if p < len(img) {
					img[p] = v / div
				}
			case dim < 0:
				// Chunks of csvBlock values, not one growing array: the
				// first line's peak is its values, not twice them.
				if len(first) == 0 || len(first[len(first)-1]) == csvBlock {
					first = append(first, make([]float64, 0, csvBlock))
				}
				c := &first[len(first)-1]
				*c = append(*c, v/div)
			}
		})
		if err == io.EOF {
			break
		}
		if err != nil {
			var fe *csvError
			switch {
			case errors.As(err, &fe) && fe.tooMany && dim < 0:
				// fe.fields 0: counting stopped (LimitError says "more than").
				return nil, limitErr(s.name, fmt.Sprintf("line %d", fe.line), imageset.LimitPixels, int64(max(fe.fields-extra, 0)), s.lim.PixelsPerImage)
			case errors.As(err, &fe) && fe.tooMany:
				n := strconv.Itoa(fe.fields)
				if fe.fields == 0 {
					n = fmt.Sprintf("more than %d", maxFields+csvCountMore)
				}
				return nil, s.errf(ErrSize, "line %d: %s fields, want %d (%d pixels%s) as on the first line", fe.line, n, dim+extra, dim, labelWord(labelled))
			case errors.As(err, &fe):
				return nil, s.errf(ErrFormat, "line %d: %s", fe.line, fe.msg)
			case stopErr(err):
				return nil, err
			case s.gzipped:
				return nil, s.errf(ErrFormat, "read: %s", streamMsg("gzip", err))
			}
			return nil, s.errf(ErrFormat, "read: %v", err)
		}
		if header {
			header = false
			continue
		}
		if labelled && nf < 2 {
			return nil, s.errf(ErrSize, "line %d: %d field(s), want pixels and a label", r.start, nf)
		}
		if fieldErr != nil {
			return nil, fieldErr
		}
		if dim < 0 {
			dim = nf - extra
			if opt.Width != 0 && opt.Width*opt.Height != dim {
				return nil, s.errf(ErrSize, "line %d: %d pixels, image shape %s needs %d", r.start, dim, imageset.FormatSize(opt.Width, opt.Height), opt.Width*opt.Height)
			}
			if err := checkLimit(s.name, fmt.Sprintf("line %d", r.start), imageset.LimitPixels, int64(dim), s.lim.PixelsPerImage); err != nil {
				return nil, err
			}
			if v := imageset.CountValues(1, int64(dim)); v > s.lim.TotalValues {
				return nil, limitErr(s.name, fmt.Sprintf("line %d", r.start), imageset.LimitValues, v, s.lim.TotalValues)
			}
			maxFields = int64(dim + extra + 1)
			size := min(csvBlock, max(4096, dim))
			block, used = make([]float64, max(size/max(dim, 1), 1)*dim), 0
			at := 0
			for _, c := range first {
				at += copy(block[at:], c)
			}
			first = nil
		} else if nf-extra != dim {
			return nil, s.errf(ErrSize, "line %d: %d fields, want %d (%d pixels%s) as on the first line", r.start, nf, dim+extra, dim, labelWord(labelled))
		}
		used += dim
		n++
		if !labelled {
			continue
		}
		if label == "" {
			return nil, s.errf(ErrValue, "line %d: empty label", r.start)
		}
		// One string per distinct label: a file of millions of short lines
		// costs a value and an int per line.
		k, ok := index[label]
		if !ok {
			k = len(raw)
			index[label] = k
			raw = append(raw, label)
		}
		ids = append(ids, k)
	}
	if n == 0 {
		return nil, s.errf(ErrSize, "no data")
	}
	images := make([][]float64, 0, n)
	for _, b := range append(blocks, block[:used]) {
		for off := 0; off < len(b); off += dim {
			images = append(images, b[off:off+dim:off+dim])
		}
	}
	ds := &Dataset{
		Source: s.name,
		Dim:    dim,
		Width:  opt.Width,
		Height: opt.Height,
		Images: images,
	}
	if labelled {
		// classesFromStrings on the distinct labels maps each to the class
		// it would get among all of them (the classes depend only on the
		// set of labels).
		rawClass, classes := classesFromStrings(raw)
		lab := make([]int, len(ids))
		for i, k := range ids {
			lab[i] = rawClass[k]
		}
		ds.Labels, ds.Classes = lab, classes
	}
	return ds, nil
}

func labelWord(labelled bool) string {
	if labelled {
		return " and a label"
	}
	return ""
}

// csvReader reads CSV records field by field, holding one field at a
// time: a record costs memory in proportion to its longest field (at most
// MaxCSVField bytes), never to its length. The syntax is encoding/csv's
// (RFC 4180): fields separated by commas, records by \n (or \r\n), blank
// lines skipped, a field starting with a quote is quoted (a quote inside
// is doubled, commas and newlines are data), a quote inside an unquoted
// field is an error.
type csvReader struct {
	r     io.Reader
	skip  bool   // count the fields of a record, keeping none
	buf   []byte // read buffer
	pos   int    // next byte of buf[:end]
	end   int
	err   error  // the read error after buf[:end]
	back  int    // a byte given back by unread, or -1
	field []byte // the current field
	line  int    // the line of the next byte (from 1)
	start int    // the line where the last record started
}

func newCSVReader(r io.Reader) *csvReader {
	return &csvReader{r: r, buf: make([]byte, 1<<16), line: 1, back: -1}
}

// csvError is a syntax error of a record, or a record of too many fields
// (fields of them).
type csvError struct {
	line    int
	msg     string
	tooMany bool
	fields  int
}

func (e *csvError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// next returns the next byte, or false at the end of the input (r.err set
// when the input failed).
func (r *csvReader) next() (byte, bool) {
	if r.back >= 0 {
		c := byte(r.back)
		r.back = -1
		return c, true
	}
	if r.pos == r.end {
		if r.err != nil {
			return 0, false
		}
		n, err := r.r.Read(r.buf)
		for n == 0 && err == nil {
			n, err = r.r.Read(r.buf)
		}
		r.pos, r.end, r.err = 0, n, err
		if n == 0 {
			return 0, false
		}
	}
	c := r.buf[r.pos]
	r.pos++
	return c, true
}

// utf8BOM is the byte-order mark some programs (spreadsheets saving "CSV
// UTF-8") write at the start of a file.
const utf8BOM = "\xef\xbb\xbf"

// skipBOM skips a UTF-8 byte-order mark at the start of the input; it is
// called before the first record.
func (r *csvReader) skipBOM() {
	for r.end < len(utf8BOM) && r.err == nil {
		n, err := r.r.Read(r.buf[r.end:])
		r.end += n
		r.err = err
	}
	if strings.HasPrefix(string(r.buf[:r.end]), utf8BOM) {
		r.pos = len(utf8BOM)
	}
}

// peek returns the next byte without consuming it.
func (r *csvReader) peek() (byte, bool) {
	c, ok := r.next()
	if ok {
		r.unread(c)
	}
	return c, ok
}

// unread gives c, the byte next returned last, back to the next call of
// next. One byte at most: the buffer may have been refilled since c was
// read (a \r at its end, peeked past), so it is kept apart.
func (r *csvReader) unread(c byte) { r.back = int(c) }

// skip1 consumes the byte peek returned.
func (r *csvReader) skip1() { r.next() }

// csvCountMore is how many fields past maxFields a record's fields are
// still counted (for an exact count in the error) before reading stops.
const csvCountMore = 1 << 16

// record reads the next record and calls use(k, last, field) for each
// field k (from 0), last true for the record's last one; field is valid
// during the call only. It returns the number of fields, io.EOF at the end
// of the input, a *csvError for bad syntax or for more than maxFields
// fields, or the input's error. The fields after maxFields are counted,
// not kept or used, up to csvCountMore of them: then reading stops, and
// the error's count is 0 (unknown: more than maxFields+csvCountMore), so
// that an endless line costs what was read up to there.
func (r *csvReader) record(maxFields int64, use func(k int, last bool, field []byte)) (int, error) {
	if err := r.skipBlank(); err != nil {
		return 0, err
	}
	r.start = r.line
	r.skip = false
	defer func() { r.skip = false }()
	for k := 0; ; k++ {
		r.field = r.field[:0]
		last, err := r.readField()
		if err != nil {
			return 0, err
		}
		if int64(k+1) > maxFields {
			r.skip = true
			if int64(k+1) > maxFields+csvCountMore {
				return 0, &csvError{line: r.start, msg: "too many fields", tooMany: true}
			}
		}
		if !r.skip {
			use(k, last, r.field)
		}
		if last {
			if r.skip {
				return 0, &csvError{line: r.start, msg: "too many fields", tooMany: true, fields: k + 1}
			}
			return k + 1, nil
		}
	}
}

// skipBlank consumes blank lines (\n or \r\n alone); it returns io.EOF (or
// the input's error) when nothing else is left.
func (r *csvReader) skipBlank() error {
	for {
		c, ok := r.next()
		if !ok {
			return r.endErr()
		}
		if c == '\n' {
			r.line++
			continue
		}
		if c == '\r' {
			if d, ok := r.peek(); ok && d == '\n' {
				r.skip1()
				r.line++
				continue
			}
		}
		r.unread(c) // c starts a record
		return nil
	}
}

// endErr is the error at the end of the input: io.EOF, or why it ended.
func (r *csvReader) endErr() error {
	if r.err != nil && r.err != io.EOF {
		return r.err
	}
	return io.EOF
}

// add appends c to the current field, within MaxCSVField (nothing while
// skipping).
func (r *csvReader) add(c byte) error {
	if r.skip {
		return nil
	}
	if len(r.field) >= MaxCSVField {
		return &csvError{line: r.line, msg: fmt.Sprintf("a field longer than %d bytes", MaxCSVField)}
	}
	r.field = append(r.field, c)
	return nil
}

// readField reads one field into r.field and reports whether it ended its
// record (a newline or the end of the input).
func (r *csvReader) readField() (last bool, err error) {
	c, ok := r.next()
	if ok && c == '"' {
		return r.readQuoted()
	}
	for ok {
		switch c {
		case ',':
			return false, nil
		case '\n':
			r.line++
			return true, nil
		case '\r':
			if d, ok := r.peek(); ok && d == '\n' {
				r.skip1() // \r\n ends the record
				r.line++
				return true, nil
			}
		case '"':
			return false, &csvError{line: r.line, msg: `bare " in non-quoted-field`}
		}
		if err := r.add(c); err != nil {
			return false, err
		}
		c, ok = r.next()
	}
	if r.err != nil && r.err != io.EOF {
		return false, r.err
	}
	return true, nil
}

// readQuoted reads a quoted field after its opening quote.
func (r *csvReader) readQuoted() (last bool, err error) {
	for {
		c, ok := r.next()
		if !ok {
			if r.err != nil && r.err != io.EOF {
				return false, r.err
			}
			line := r.line // the last line that holds something, as encoding/csv says
			if n := len(r.field); n > 0 && r.field[n-1] == '\n' {
				line--
			}
			return false, &csvError{line: line, msg: `extraneous or missing " in quoted-field`}
		}
		switch c {
		case '"':
			d, ok := r.next()
			switch {
			case !ok:
				if r.err != nil && r.err != io.EOF {
					return false, r.err
				}
				return true, nil
			case d == '"':
				c = '"'
			case d == ',':
				return false, nil
			case d == '\n':
				r.line++
				return true, nil
			case d == '\r':
				if e, ok := r.peek(); ok && e == '\n' {
					r.skip1()
					r.line++
					return true, nil
				}
				return false, &csvError{line: r.line, msg: `extraneous or missing " in quoted-field`}
			default:
				return false, &csvError{line: r.line, msg: `extraneous or missing " in quoted-field`}
			}
		case '\n':
			r.line++
		case '\r':
			if d, ok := r.peek(); ok && d == '\n' {
				continue // the \n is kept, as encoding/csv does
			}
		}
		if err := r.add(c); err != nil {
			return false, err
		}
	}
}
