// Package linalg holds the dense-matrix type of the GRLGQ library and the
// few factorisation-free operations built directly on package kernels: Gram
// matrices and projections (Aᵀ A, Pᵀ W), orthonormalisation of a basis by
// classical Gram–Schmidt applied twice (block CGS2 on a column-major copy,
// panels of four columns, see Orthonormalizer) with rank-deficiency
// detection, random orthonormal bases, and Norm, the one Euclidean norm of
// a single image (the engine's, the model's and package subspace's).
//
// # Layout
//
// A Dense is row-major with an explicit row stride: element (r, c) is
// Data[r*Stride+c]. A D x d subspace basis has one row per pixel and one
// column per basis vector. NewDense uses Stride = kernels.Stride(cols) (cols
// rounded up to a multiple of 8, one 64-byte cache line), keeps the padding
// columns Stride-cols zero, and returns Data with its first element 64-byte
// aligned, which is the layout the assembly kernels are fastest with. The
// padding must stay zero: code that writes through Data directly must not
// write there (At, Set, Row, CopyFrom and every function in this package
// respect it).
//
// # Ownership
//
// A Dense owns nothing beyond its Data slice; views made by NewDenseOn share
// the caller's memory. Workspace for repeated work is owned by a reusable
// value (Orthonormalizer) so that hot paths allocate nothing; such a value
// must not be used by two goroutines at once.
//
// # Aliasing
//
// Orthonormalize works in place. OrthonormalizeTo accepts dst == src but not
// partially overlapping matrices. Gram and ProjectTo write a small d x d
// result that must not overlap their inputs.
//
// # Errors
//
// Wrong shapes are programmer errors and panic with "linalg: ..." messages.
// Bad data returns errors testable with errors.Is: ErrNotFinite (the
// module's one "not finite" sentinel, the same value in every package) for
// NaN or ±Inf entries, ErrRankDeficient (as a *RankError naming the column) when a
// column lies numerically in the span of the columns before it.
package linalg
