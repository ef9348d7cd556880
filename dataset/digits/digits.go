package digits

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/grlgq/grlgq/dataset"
)

//go:embed digits.csv.gz
var digitsGz []byte

// Attribution is the credit line the CC BY 4.0 licence of the digits asks for.
const Attribution = "UCI optical digits: E. Alpaydin, C. Kaynak, UCI Machine Learning Repository, CC BY 4.0"

// Image shape and pixel range of the stored digits.
const (
	Width  = 8
	Height = 8
	Max    = 16 // stored values are 0..Max; Load divides by it
)

// CSV returns the embedded file, gzip-compressed CSV (64 pixels 0-16,
// then the label, per line, no header): what `grlgq demo -export-data`
// writes, readable with dataset.CSV{Width: 8, Height: 8, PixelMax: 16}.
// The slice is the package's: do not modify it.
func CSV() []byte { return digitsGz }

// Load returns the digits as a data set of single images: 64 pixels each,
// row-major, scaled to [0, 1] (value/16), classes "0" to "9" (class c is
// digit c), Width and Height 8, in the file's order.
func Load() (*dataset.Dataset, error) {
	zr, err := gzip.NewReader(bytes.NewReader(digitsGz))
	if err != nil {
		return nil, fmt.Errorf("digits: %w", err)
	}
	r := csv.NewReader(zr)
	r.FieldsPerRecord = Width*Height + 1
	var images [][]float64
	var labels []int
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("digits: %w", err)
		}
		img := make([]float64, Width*Height)
		for i := range img {
			v, err := strconv.Atoi(rec[i])
			if err != nil {
				return nil, fmt.Errorf("digits: %w", err)
			}
			img[i] = float64(v) / Max
		}
		l, err := strconv.Atoi(rec[len(img)])
		if err != nil || l < 0 || l > 9 {
			return nil, fmt.Errorf("digits: bad label %q", rec[len(img)])
		}
		images = append(images, img)
		labels = append(labels, l)
	}
	ds := &dataset.Dataset{
		Source:  "embedded UCI digits",
		Classes: []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"},
		Labels:  labels,
		Dim:     Width * Height,
		Width:   Width,
		Height:  Height,
		Images:  images,
	}
	if err := ds.Validate(); err != nil {
		return nil, err
	}
	return ds, nil
}
