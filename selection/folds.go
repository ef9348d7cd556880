package selection

import (
	"errors"

	"github.com/grlgq/grlgq/internal/numerr"
)

// Sentinel errors, testable with errors.Is. A class too small for the
// folds is folds.ErrTooSmall (package folds makes the splits).
var (
	// ErrGrid: an empty or invalid grid of settings.
	ErrGrid = errors.New("bad grid")
	// ErrData: labels or samples unusable (length mismatch, negative label);
	// the same value as model.ErrData and baseline.ErrData.
	ErrData = numerr.ErrData
)
