package numerr

import "errors"

// ErrNotFinite: a NaN or ±Inf appeared (in the data, a distance, a
// gradient or an update).
var ErrNotFinite = errors.New("non-finite value")

// ErrData: data that cannot be used as given (shapes, labels, splits, a
// basis that is not orthonormal). model, selection and baseline re-export
// it as their ErrData, so that a caller (a server answering "bad input")
// tests one value whichever package refused the data.
var ErrData = errors.New("invalid data")
