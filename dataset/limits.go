package dataset

import (
	"fmt"
	"math"

	"github.com/grlgq/grlgq/dataset/imageset"
)

// Limits is the input budget of every loader (pixels per image, images per
// set, values in all, bytes per file); it is imageset.Limits, where the
// defaults and their reasons are documented. A zero field means its default.
type Limits = imageset.Limits

// LimitError is an input over one of the Limits; Limit names which
// (imageset.LimitPixels, LimitSetImages, LimitValues, LimitFileBytes). It
// also matches ErrSize.
type LimitError = imageset.LimitError

// ErrLimit: an input exceeds one of the Limits (errors.Is).
var ErrLimit = imageset.ErrLimit

// ErrNotRegular: a data file is a FIFO, a device, a socket or a folder.
var ErrNotRegular = imageset.ErrNotRegular

// DefaultLimits returns the default limits, every field set.
func DefaultLimits() Limits { return imageset.DefaultLimits() }

// limitErr is a *LimitError wrapped as "dataset: FILE: ...", matching
// ErrLimit and ErrSize.
func limitErr(file, what, limit string, value, max int64) error {
	return fmt.Errorf("dataset: %w", &LimitError{File: file, What: what, Limit: limit, Value: value, Max: max, Kind: ErrSize})
}

// checkLimit returns limitErr when value > max.
func checkLimit(file, what, limit string, value, max int64) error {
	if value <= max {
		return nil
	}
	return limitErr(file, what, limit, value, max)
}

// mulSat returns a*b, or math.MaxInt64 when that overflows (a, b >= 0).
func mulSat(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}
