// Package layers holds one test: that every package of the module keeps
// the import rules of the layer table in DESIGN.md ("Packages and import
// direction"). The table lists each package on one row, top to bottom; a
// package may import (in its non-test files) only packages on rows below
// its own, packages on one row are siblings that import none of each
// other, packages under internal/ import nothing of the module outside
// internal/, and nothing under cmd/ imports engine, svd, linalg or kernels.
// A package missing from the table, or a row naming no package, fails the
// test too, so a new package or an upward import fails CI.
//
// The test parses the Go files itself (go/parser, imports only) over every
// build tag at once: an import in any file counts. The package has no
// code; it imports nothing.
package layers
