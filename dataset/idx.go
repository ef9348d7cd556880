package dataset

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/grlgq/grlgq/dataset/imageset"
)

// IDX magic numbers (big-endian): 0x00 0x00, the element type (0x08 =
// uint8), the number of dimensions.
const (
	idxImagesMagic = 0x00000803 // uint8, 3 dims: n x rows x cols
	idxLabelsMagic = 0x00000801 // uint8, 1 dim: n
)

// maxIDXDim bounds each IDX dimension; the format stores them as int32.
const maxIDXDim = math.MaxInt32

// IDX is an MNIST-style pair of IDX files, each raw or gzipped (detected
// by the gzip magic, not the name): images (magic 0x00000803, uint8,
// n x rows x cols) and labels (magic 0x00000801, uint8, n), or the images
// alone (Labels ""): data without labels.
type IDX struct {
	Images, Labels string
	// Resize resamples every image to this size after loading
	// (Catmull-Rom, Dataset.Resized); the zero Size keeps the size.
	Resize Size
	// Limits bounds the input (zero fields: DefaultLimits).
	Limits Limits
}

// String returns the source as idx:IMAGES[,LABELS].
func (s IDX) String() string {
	if s.Labels == "" {
		return "idx:" + s.Images
	}
	return "idx:" + s.Images + "," + s.Labels
}

// Inputs returns the files Load reads.
func (s IDX) Inputs() []string {
	if s.Labels == "" {
		return []string{s.Images}
	}
	return []string{s.Images, s.Labels}
}

// Load reads the files: pixels are scaled to [0, 1] as value/255; Width =
// cols, Height = rows. Labels map to classes in ascending order of their
// values (MNIST: class k is digit k). The headers are checked against the
// file lengths before anything is allocated, the image and label counts
// must agree, and trailing bytes are an error. The claimed sizes are
// checked against s.Limits (bytes per file, pixels per image, values in
// all) before anything is read; ctx is checked as the files are read.
func (s IDX) Load(ctx context.Context) (*Dataset, error) {
	if err := checkResize(s.Images, s.Resize, s.Limits); err != nil {
		return nil, err
	}
	dims, pix, err := readIDXFile(ctx, s.Images, idxImagesMagic, s.Limits)
	if err != nil {
		return nil, err
	}
	var lab []byte
	if s.Labels != "" {
		var ldims []int
		if ldims, lab, err = readIDXFile(ctx, s.Labels, idxLabelsMagic, s.Limits); err != nil {
			return nil, err
		}
		if ldims[0] != dims[0] {
			return nil, fileErr(s.Labels, ErrSize, "%d labels, but %s has %d images", ldims[0], s.Images, dims[0])
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("dataset: %s: %w", s.Images, err)
	}
	ds, err := resizeLoaded(ctx, idxDataset(s.Images, dims, pix, lab), s.Resize, s.Limits)
	return loaded(ctx, s.Images, ds, err)
}

// idxDataset builds the data set of IDX images and labels (lab nil: no
// labels).
func idxDataset(source string, dims []int, pix, lab []byte) *Dataset {
	n, h, w := dims[0], dims[1], dims[2]
	flat := make([]float64, len(pix))
	for i, v := range pix {
		flat[i] = float64(v) / 255
	}
	ds := &Dataset{
		Source: source,
		Dim:    w * h,
		Width:  w,
		Height: h,
		Images: rows(flat, n, w*h),
	}
	if lab != nil {
		raw := make([]int64, len(lab))
		for i, v := range lab {
			raw[i] = int64(v)
		}
		ds.Labels, ds.Classes = classesFromInts(raw)
	}
	return ds
}

func readIDXFile(ctx context.Context, path string, magic uint32, lim Limits) ([]int, []byte, error) {
	s, err := open(ctx, path, lim, true)
	if err != nil {
		return nil, nil, err
	}
	defer s.Close()
	return readIDX(s, magic)
}

// readIDX reads one IDX file of the given magic: its dimensions and its raw
// uint8 payload.
func readIDX(s *source, magic uint32) ([]int, []byte, error) {
	var head [4]byte
	if err := s.readFull(head[:], "IDX header"); err != nil {
		return nil, nil, err
	}
	if got := binary.BigEndian.Uint32(head[:]); got != magic {
		return nil, nil, s.errf(ErrFormat, "IDX magic 0x%08x, want 0x%08x", got, magic)
	}
	ndim := int(magic & 0xff)
	dbuf := make([]byte, 4*ndim)
	if err := s.readFull(dbuf, "IDX dimensions"); err != nil {
		return nil, nil, err
	}
	dims := make([]int, ndim)
	for i := range dims {
		d := binary.BigEndian.Uint32(dbuf[4*i:])
		if d > maxIDXDim {
			return nil, nil, s.errf(ErrFormat, "IDX dimension %d is %d, more than 2^31-1", i, d)
		}
		dims[i] = int(d)
	}
	if ndim == 3 && (dims[1] == 0 || dims[2] == 0) {
		return nil, nil, s.errf(ErrFormat, "IDX images of size %s", imageset.FormatSize(dims[2], dims[1]))
	}
	avail := s.maxBytes() - int64(len(head)+len(dbuf))
	total, fits := int64(1), true
	for _, d := range dims {
		// Stop at the first step past avail: the product cannot overflow.
		if fits = total*int64(d) <= avail; !fits {
			break
		}
		total *= int64(d)
	}
	switch {
	case !fits && s.gzipped:
		return nil, nil, s.errf(ErrSize, "IDX header says %s bytes of data, more than the %d compressed bytes can hold", idxShape(dims), s.size)
	case !fits:
		return nil, nil, s.errf(ErrSize, "IDX header says %s bytes of data, file has %d", idxShape(dims), avail)
	case !s.gzipped && total != avail:
		return nil, nil, s.errf(ErrSize, "IDX header says %s = %d bytes of data, file has %d", idxShape(dims), total, avail)
	}
	what := "IDX header " + idxShape(dims)
	if err := checkLimit(s.name, what, imageset.LimitFileBytes, total, s.lim.FileBytes); err != nil {
		return nil, nil, err
	}
	if ndim == 3 {
		if err := checkLimit(s.name, what, imageset.LimitPixels, int64(dims[1])*int64(dims[2]), s.lim.PixelsPerImage); err != nil {
			return nil, nil, err
		}
		if err := checkLimit(s.name, what, imageset.LimitValues, imageset.CountValues(int64(dims[0]), int64(dims[1])*int64(dims[2])), s.lim.TotalValues); err != nil {
			return nil, nil, err
		}
	}
	data, err := s.readExactly(total, "IDX data")
	if err != nil {
		return nil, nil, err
	}
	if err := s.expectEOF(); err != nil {
		return nil, nil, err
	}
	return dims, data, nil
}

// idxShape formats dims as 60000x28x28.
func idxShape(dims []int) string {
	var b strings.Builder
	for i, d := range dims {
		if i > 0 {
			b.WriteByte('x')
		}
		b.WriteString(strconv.Itoa(d))
	}
	return b.String()
}
