// Package dataset loads labelled image data and turns it into points of the
// Grassmann manifold for GRLGQ: loaders, splits, and image sets ->
// subspaces. It knows nothing of training (it never imports model) and
// prints nothing.
//
// # Formats
//
//   - IDX (LoadIDX): MNIST-style images (magic 0x00000803, uint8,
//     n x rows x cols) and labels (0x00000801, uint8, n).
//   - Folder trees (LoadFolder, via package imageset): ROOT/<class>/<set>/
//     of PNG or JPEG files; one set folder = one image set.
//   - MATLAB level-5 MAT-files (LoadMAT, ReadMAT): real numeric variables
//     (double, single, integer, logical), compressed or not, either byte
//     order; images as rows, columns or an H x W x N array. Not v7.3 (HDF5).
//   - .npy (LoadNPY): precomputed orthonormal bases (N, D, d) float64 (or
//     float32), C or Fortran order, with labels (N,) in a second file.
//   - CSV (LoadCSV): one image per line, pixels then the label, no header.
//
// IDX, CSV and npy files may be gzipped; gzip is recognised by its magic
// bytes, not the file name. Load parses a command-line specification
// (idx:IMAGES,LABELS, folder:DIR, mat:FILE, npy:DATA,LABELS, csv:FILE) and
// Options.AddFlags registers the flags that go with it.
//
// The MAT, npy, IDX and CSV parsers are our own (the npy reader of
// github.com/sbinet/npyio v0.6.0 panics on a malformed header, and no MAT
// reader was available from the module proxy); each has a fuzz target.
//
// # Pixels and scaling
//
// Images are row-major float64 vectors of Dim = Width*Height pixels (pixel
// (x, y) at index y*Width+x). IDX bytes become v/255; folder images are
// luma in [0, 1] (an 8-bit gray value v becomes exactly v/255); MAT and CSV
// values are divided by Options.PixelMax (0 keeps them: Yale B needs 255,
// the UCI digits 16). MAT images stored column by column (MATLAB's X(:), as
// in Yale B) are reordered to row-major with MATOptions.Transpose. Scaling
// does not change a subspace (the span of a set, or x/‖x‖), only how images
// look and whether they can be resized: Dataset.Resized needs [0, 1].
//
// # Labels and order
//
// Labels index Dataset.Classes. Integer labels map to classes in ascending
// numeric order and keep their value as the class name (MNIST class 3 is
// "3"; Yale B's 1..38 become classes 0..37 named "1".."38"); other labels
// sort as strings; folder classes are the sorted folder names. Images keep
// file order; folder trees are read in sorted name order (byte order:
// "apple10" before "apple2"). Every result is deterministic: parallel
// decoding and SVDs place results by index, and every random choice (splits,
// groups) comes from math/rand/v2 PCG seeded by the caller, with a separate
// stream per purpose.
//
// # Memory and aliasing
//
// A Dataset owns its pixel memory: all images share one backing array and
// each Images[i] is capped, so appending to it cannot overwrite its
// neighbour. Resized returns a new Dataset sharing labels, classes and
// sets. Subspaces own their bases; Subspaces.Sources records which items
// each came from. Headers are checked against the file length before any
// allocation, and decompression buffers grow with the data actually read,
// so a hostile header cannot make a loader allocate gigabytes.
//
// # Errors
//
// Loaders never panic on bad input. A problem with a file's content is a
// *FileError, "dataset: FILE: PROBLEM" with line numbers (CSV) or
// offsets/indices, wrapping ErrFormat, ErrSize, ErrValue or ErrUnsupported
// (test with errors.Is); file-system errors wrap the os error. Preparation
// errors name the set, group or image and wrap subspace.ErrTooFewImages,
// subspace.ErrRankDeficient, subspace.ErrZeroImage or ErrTooSmall; the
// SkipBad options skip such inputs instead and list them in
// Subspaces.Skipped. Wrong arguments (bad indices, d > m) are returned
// errors too.
//
// # Preparation
//
// SetSubspaces (image-set data: ETH-80, videos), GroupSubspaces (image
// classification: training subspaces from shuffled groups of m images of
// one class), ImageSubspaces (test images as 1-D subspaces) and
// BasisSubspaces (npy). Splits: StratifiedKFold, RepeatedStratifiedKFold,
// PerClassSplits, LeaveOneOut, and Holdout for a validation part carved out
// of training data. Augmentation: Shifted (an image moved by whole pixels,
// edges replicated).
package dataset
