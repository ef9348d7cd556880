package dataset

import (
	"encoding/csv"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
)

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
}

// LoadCSV reads a CSV file (gzipped or not, detected by the gzip magic) of
// one image per line: the pixels, then the label, no header unless
// opt.Header. Fields may be quoted and surrounded by spaces. Labels are
// integers (classes in ascending numeric order) or any other strings
// (classes in string order). Ragged lines, non-numeric pixels, NaN and Inf
// are errors naming the line.
func LoadCSV(path string, opt CSVOptions) (*Dataset, error) {
	s, err := open(path)
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
		flat   []float64
		labels []string
		dim    = -1
		first  = true
	)
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
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
		} else if len(rec)-1 != dim {
			return nil, s.errf(ErrSize, "line %d: %d fields, want %d (%d pixels and a label) as on the first line", line, len(rec), dim+1, dim)
		}
		for i, f := range rec[:dim] {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, s.errf(ErrValue, "line %d, field %d: %q is not a finite number", line, i+1, f)
			}
			flat = append(flat, v/div)
		}
		lab := strings.TrimSpace(rec[dim])
		if lab == "" {
			return nil, s.errf(ErrValue, "line %d: empty label", line)
		}
		labels = append(labels, lab)
	}
	if len(labels) == 0 {
		return nil, s.errf(ErrSize, "no data")
	}
	lab, classes := classesFromStrings(labels)
	return &Dataset{
		Source:  s.name,
		Classes: classes,
		Labels:  lab,
		Dim:     dim,
		Width:   opt.Width,
		Height:  opt.Height,
		Images:  rows(flat, len(labels), dim),
	}, nil
}
