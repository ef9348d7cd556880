package dataset

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/grlgq/grlgq/dataset/imageset"
)

// csvBlock is the size (in values) of the blocks CSV rows are stored in.
const csvBlock = 1 << 20

// CSVOptions controls LoadCSV.
type CSVOptions struct {
	// Width and Height give the image shape; both 0 when unknown. When set,
	// Width*Height must equal the number of pixel columns.
	Width, Height int
	// PixelMax: pixel values are divided by it (digits: 16 maps 0..16 to
	// [0, 1]); 0 means 1, values kept as stored.
	PixelMax float64
	// Header: skip the first line.
	Header bool
	// Limits bounds the input (zero fields: DefaultLimits).
	Limits Limits
}

// LoadCSV is LoadCSVContext without cancellation.
func LoadCSV(path string, opt CSVOptions) (*Dataset, error) {
	return LoadCSVContext(context.Background(), path, opt)
}

// LoadCSVContext reads a CSV file (gzipped or not, detected by the gzip magic) of
// one image per line: the pixels, then the label, no header unless
// opt.Header. Fields may be quoted and surrounded by spaces. Labels are
// integers (classes in ascending numeric order) or any other strings
// (classes in string order). Ragged lines, non-numeric pixels, NaN and Inf
// are errors naming the line. The bytes read (after decompression), the
// pixels per line and the values in all are checked against opt.Limits as
// they are read; ctx is checked as the file is read.
func LoadCSVContext(ctx context.Context, path string, opt CSVOptions) (*Dataset, error) {
	s, err := open(ctx, path, opt.Limits, true)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	return readCSV(s, opt)
}

func readCSV(s *source, opt CSVOptions) (*Dataset, error) {
	if opt.Width < 0 || opt.Height < 0 || (opt.Width == 0) != (opt.Height == 0) {
		return nil, s.errf(ErrSize, "image shape %dx%d: give both height and width, or neither", opt.Height, opt.Width)
	}
	div, err := pixelDivisor(opt.PixelMax)
	if err != nil {
		return nil, s.errf(ErrValue, "%v", err)
	}
	r := csv.NewReader(s.r)
	r.FieldsPerRecord = -1 // we check, with our own message
	r.ReuseRecord = true
	var (
		blocks [][]float64        // full blocks, each a whole number of rows
		block  []float64          // the current block, rows in block[:used]
		used   int                // values used in block
		ids    []int              // ids[i] indexes raw, the label of line i
		raw    []string           // distinct labels, in order of appearance
		index  = map[string]int{} // raw label -> its index in raw
		dim    = -1
		first  = true
	)
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			if stopErr(err) {
				return nil, err
			}
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, s.errf(ErrFormat, "line %d: %v", pe.Line, pe.Err)
			}
			return nil, s.errf(ErrFormat, "read: %v", err)
		}
		line, _ := r.FieldPos(0)
		if first && opt.Header {
			first = false
			continue
		}
		first = false
		if len(rec) < 2 {
			return nil, s.errf(ErrSize, "line %d: %d field(s), want pixels and a label", line, len(rec))
		}
		if dim < 0 {
			dim = len(rec) - 1
			if opt.Width != 0 && opt.Width*opt.Height != dim {
				return nil, s.errf(ErrSize, "line %d: %d pixels, image shape %dx%d needs %d", line, dim, opt.Height, opt.Width, opt.Width*opt.Height)
			}
			if err := checkLimit(s.name, fmt.Sprintf("line %d", line), imageset.LimitPixels, int64(dim), s.lim.PixelsPerImage); err != nil {
				return nil, err
			}
		} else if len(rec)-1 != dim {
			return nil, s.errf(ErrSize, "line %d: %d fields, want %d (%d pixels and a label) as on the first line", line, len(rec), dim+1, dim)
		}
		if v := imageset.CountValues(int64(len(ids)+1), int64(dim)); v > s.lim.TotalValues {
			return nil, limitErr(s.name, fmt.Sprintf("line %d", line), imageset.LimitValues, v, s.lim.TotalValues)
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
			size := min(csvBlock, max(4096, len(ids)*dim))
			block, used = make([]float64, max(size/dim, 1)*dim), 0
		}
		img := block[used : used+dim]
		used += dim
		for i, f := range rec[:dim] {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, s.errf(ErrValue, "line %d, field %d: %q is not a finite number", line, i+1, f)
			}
			img[i] = v / div
		}
		lab := strings.TrimSpace(rec[dim])
		if lab == "" {
			return nil, s.errf(ErrValue, "line %d: empty label", line)
		}
		// One string per distinct label: a file of millions of short lines
		// costs a value and an int per line.
		k, ok := index[lab]
		if !ok {
			k = len(raw)
			index[lab] = k
			raw = append(raw, strings.Clone(lab))
		}
		ids = append(ids, k)
	}
	if len(ids) == 0 {
		return nil, s.errf(ErrSize, "no data")
	}
	images := make([][]float64, 0, len(ids))
	for _, b := range append(blocks, block[:used]) {
		for off := 0; off < len(b); off += dim {
			images = append(images, b[off:off+dim:off+dim])
		}
	}
	// classesFromStrings on the distinct labels maps each to the class it
	// would get among all of them (the classes depend only on the set of
	// labels).
	rawClass, classes := classesFromStrings(raw)
	lab := make([]int, len(ids))
	for i, k := range ids {
		lab[i] = rawClass[k]
	}
	return &Dataset{
		Source:  s.name,
		Classes: classes,
		Labels:  lab,
		Dim:     dim,
		Width:   opt.Width,
		Height:  opt.Height,
		Images:  images,
	}, nil
}
