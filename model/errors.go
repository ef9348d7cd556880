package model

import (
	"errors"
	"fmt"

	"github.com/grlgq/grlgq/engine"
	"github.com/grlgq/grlgq/internal/numerr"
)

// errClosed: a trainer used after Close (a bug of this package).
var errClosed = errors.New("closed")

// Sentinel errors, testable with errors.Is. Returned errors wrap them with
// context ("model: epoch 3, sample 17: ...").
var (
	// ErrConfig: a field of Config, TrainConfig or PredictConfig is out of
	// range; also a Model in the wrong state for the call: the zero Model
	// (no prototypes), which can neither predict nor be saved or
	// marshalled, and a Model that is not a new zero Model decoded into
	// (UnmarshalBinary, UnmarshalJSON).
	ErrConfig = errors.New("invalid config")
	// ErrData: the training or prediction data do not fit the model (shapes,
	// labels, too few classes, a class without sets).
	// The module's one "invalid data" sentinel: the same value as
	// selection.ErrData and baseline.ErrData.
	ErrData = numerr.ErrData
	// ErrNotFinite: a NaN or ±Inf appeared (in the data, a distance, a
	// gradient or an update); the model never receives it. It is the
	// module's one "not finite" sentinel, the same value as
	// engine.ErrNotFinite, svd.ErrNotFinite, linalg.ErrNotFinite and
	// subspace.ErrNotFinite, so errors of the layers below need no
	// translation.
	ErrNotFinite = numerr.ErrNotFinite
	// ErrNumerical: a factorisation failed (no convergence, a rank-deficient
	// updated prototype). Both winners at distance zero is not an error:
	// the step is skipped (EpochStats.Skipped counts it).
	ErrNumerical = errors.New("numerical failure")
	// ErrStop, returned by TrainConfig.OnEpoch, ends training early without error.
	ErrStop = errors.New("stop training")

	// Errors of Load.

	// ErrFormat: not a model file (wrong magic).
	ErrFormat = errors.New("not a GRLGQ model file")
	// ErrVersion: a format version this package cannot read.
	ErrVersion = errors.New("unsupported model format version")
	// ErrTruncated: the file ends before its declared content.
	ErrTruncated = errors.New("truncated model file")
	// ErrChecksum: the CRC-32C of the content does not match.
	ErrChecksum = errors.New("model file checksum mismatch")
	// ErrCorrupt: a header or content field is out of range (absurd shapes,
	// lengths beyond the file, labels out of range, non-orthonormal
	// prototypes, bad relevances), or bytes after the model where the
	// input is one model (LoadFile, UnmarshalBinary).
	ErrCorrupt = errors.New("corrupt model file")
)

// stepError wraps an error of a training step's engine, svd or linalg call
// with context and, unless it already is ErrNotFinite (the same value in
// every package), the model's sentinel: ErrData for a shape or an all-zero
// image, else ErrNumerical.
func stepError(what string, err error) error {
	switch {
	case errors.Is(err, ErrNotFinite):
		return fmt.Errorf("model: %s: %w", what, err)
	case errors.Is(err, engine.ErrShape), errors.Is(err, engine.ErrZeroImage):
		return fmt.Errorf("model: %s: %w: %w", what, ErrData, err)
	default:
		return fmt.Errorf("model: %s: %w: %w", what, ErrNumerical, err)
	}
}

// errZeroModel is the error of a method that needs a model's prototypes,
// called on the zero Model.
func errZeroModel(what string) error {
	return fmt.Errorf("model: %s: %w: the zero Model has no prototypes (make one with Init, Train, Continue, Load or UnmarshalBinary)", what, ErrConfig)
}

// predictError adds the model's sentinel to an engine error of a
// prediction: ErrData for a shape or an all-zero image; others
// (ErrNotFinite is the same value everywhere) pass as they are.
func predictError(err error) error {
	switch {
	case errors.Is(err, engine.ErrShape), errors.Is(err, engine.ErrZeroImage):
		return fmt.Errorf("%w: %w", ErrData, err)
	}
	return err
}
