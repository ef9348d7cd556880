// Package numerr declares the module's one "not finite" sentinel (and its
// one "invalid data" sentinel, ErrData, which model, selection and
// baseline re-export). It sits
// below packages svd and linalg (the lowest layers that find NaN or ±Inf,
// and which do not import each other) so that every package returns the
// same value: svd, linalg, engine, subspace and model re-export it as their
// ErrNotFinite, and errors.Is(err, X.ErrNotFinite) holds for an error of
// any of them whichever X the caller names. Callers wrap it with context
// (fmt.Errorf("pkg: ...: %w", ...)). The package has no other content and
// imports only the standard library.
package numerr
