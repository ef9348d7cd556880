package selection

import "errors"

// Sentinel errors, testable with errors.Is. A class too small for the
// folds is folds.ErrTooSmall (package folds makes the splits).
var (
	// ErrGrid: an empty or invalid grid of settings.
	ErrGrid = errors.New("bad grid")
	// ErrData: labels or samples unusable (length mismatch, negative label).
	ErrData = errors.New("bad data")
)
