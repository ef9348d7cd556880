// Package subspace turns image sets into points of the Grassmann manifold.
//
// An image set is a D x m matrix X (one image per column, row-major
// linalg.Dense). Its subspace is the span of the first d left singular
// vectors of the thin SVD X = P Λ Rᵀ (uncentred, values descending). A
// Subspace keeps P (D x d, orthonormal columns) and, when it came from a set,
// the first d singular values Λ and right singular vectors R (m x d), which
// the explanation of a decision needs (image contributions M = R Λ⁻¹ Q_P).
// A single image x is the 1-D subspace x/‖x‖, with ‖x‖ from linalg.Norm
// (the engine's norm, so it matches the angles of model.Predict on an image).
//
// Images become a set in one place: Converter.FromImages (or the function
// FromImages for a single set) puts image k in column k of the D x m
// matrix and calls FromSet. A Converter owns the SVD workspace and that
// matrix for one (D, m) shape and allocates only the Subspace it returns
// (after its first call); it is not safe for concurrent use.
//
// A set or image of the wrong shape (rows, columns, stride, length) is a
// returned error, never a panic: the arguments are a caller's data. This package
// imports svd and linalg and nothing that reads files.
package subspace
