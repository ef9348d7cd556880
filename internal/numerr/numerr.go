package numerr

import "errors"

// ErrNotFinite: a NaN or ±Inf appeared (in the data, a distance, a
// gradient or an update).
var ErrNotFinite = errors.New("non-finite value")
