package model

import "errors"

// Sentinel errors, testable with errors.Is. Returned errors wrap them with
// context ("model: epoch 3, sample 17: ...").
var (
	// ErrConfig: a Config field is out of range.
	ErrConfig = errors.New("invalid config")
	// ErrData: the training or prediction data do not fit the model (shapes,
	// labels, too few classes, a class without sets).
	ErrData = errors.New("invalid data")
	// ErrNotFinite: a NaN or ±Inf appeared (in the data, a distance, a
	// gradient or an update); the model never receives it.
	ErrNotFinite = errors.New("non-finite value")
	// ErrNumerical: a factorisation failed (no convergence, a rank-deficient
	// updated prototype). Both winners at distance zero is not an error:
	// the step is skipped (StepResult.Skipped).
	ErrNumerical = errors.New("numerical failure")
	// ErrStop, returned by Config.OnEpoch, ends training early without error.
	ErrStop = errors.New("stop training")
	// ErrClosed: the model's or predictor's workers have been released.
	ErrClosed = errors.New("closed")

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
	// prototypes, bad relevances).
	ErrCorrupt = errors.New("corrupt model file")
)
