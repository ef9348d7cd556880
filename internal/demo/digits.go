package demo

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
)

//go:embed digits.csv.gz
var digitsGz []byte

// Attribution is the credit line the CC BY 4.0 licence of the digits asks for.
const Attribution = "UCI optical digits: E. Alpaydin, C. Kaynak, UCI Machine Learning Repository, CC BY 4.0"

// Digit image shape and pixel range.
const (
	DigitWidth  = 8
	DigitHeight = 8
	DigitMax    = 16
)

// DigitsCSV returns the embedded file, gzip-compressed CSV (64 pixels, then
// the label, per line).
func DigitsCSV() []byte { return digitsGz }

// Digits decodes the embedded digits: images[i] has 64 pixels (row-major,
// scaled to [0, 1]) and label labels[i] in 0..9.
func Digits() (images [][]float64, labels []int, err error) {
	zr, err := gzip.NewReader(bytes.NewReader(digitsGz))
	if err != nil {
		return nil, nil, fmt.Errorf("demo: digits: %w", err)
	}
	r := csv.NewReader(zr)
	r.FieldsPerRecord = DigitWidth*DigitHeight + 1
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("demo: digits: %w", err)
		}
		img := make([]float64, DigitWidth*DigitHeight)
		for i := range img {
			v, err := strconv.Atoi(rec[i])
			if err != nil {
				return nil, nil, fmt.Errorf("demo: digits: %w", err)
			}
			img[i] = float64(v) / DigitMax
		}
		l, err := strconv.Atoi(rec[len(img)])
		if err != nil || l < 0 || l > 9 {
			return nil, nil, fmt.Errorf("demo: digits: bad label %q", rec[len(img)])
		}
		images = append(images, img)
		labels = append(labels, l)
	}
	return images, labels, nil
}
