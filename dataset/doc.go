// Package dataset loads image data, labelled or not, and turns it into
// points of the Grassmann manifold for GRLGQ: typed data sources, the
// Dataset they load, and image sets -> subspaces. It knows nothing of
// training (it never imports model) and prints nothing.
//
// # Sources
//
// Each format is one typed value, a Source, holding its files, its
// options and its limits, with one context-taking Load:
//
//   - IDX: MNIST-style images (magic 0x00000803, uint8, n x rows x cols)
//     and, optionally, labels (0x00000801, uint8, n).
//   - Folder (via package imageset): ROOT/<class>/<set>/<images> (labelled
//     image sets) or ROOT/<set>/<images> (sets without labels), PNG or
//     JPEG; one set folder = one image set; Layout forces one or tells
//     them apart (LayoutAuto). Symbolic links to class or set folders
//     are followed.
//   - MAT: MATLAB level-5 MAT-files (ReadMAT for any variable): real
//     numeric variables (double, single, integer, logical), compressed or
//     not, either byte order; images as rows, columns or an H x W x N
//     array; the label variable may be left out. Not v7.3 (HDF5).
//   - NPY: precomputed orthonormal bases (N, D, d) float64 (or float32), C
//     or Fortran order, d <= MaxNPYSubDim, with labels (N,) in an optional
//     second file.
//   - CSV: one image per line, the pixels and the label (last, first, or
//     no label column: CSV.Label), an optional header line.
//
// IDX, CSV and npy files may be gzipped; gzip is recognised by its magic
// bytes, not the file name. A command line names a source as
// SCHEME:PATH[,PATH] (SpecHelp): ParseSource parses that form, and
// SourceFlag is the flag.Value that parses it once, chooses the typed value
// and lets the command line bind its format flags to that value's fields.
// LoadAt loads a source at a trained model's image size. The package knows
// no flags of its own.
//
// A Dataset says what it holds: Kind (single images, image sets or bases)
// and Labelled; ContentHash is the SHA-256 of its content as loaded (a
// model's provenance). Folder loads and the subspace conversions report
// their progress to an optional callback (Progress fields) for a
// progress bar. Data without labels (for prediction) loads with Labels and
// Classes nil and its sets labelled NoLabel; what needs labels (training
// subspaces) refuses it with ErrNoLabels.
//
// The MAT, npy, IDX and CSV parsers are our own (the npy reader of
// github.com/sbinet/npyio v0.6.0 panics on a malformed header, and no MAT
// reader was available from the module proxy; encoding/csv keeps a whole
// line in memory); each has a fuzz target.
//
// # Pixels and scaling
//
// Images are row-major float64 vectors of Dim = Width*Height pixels (pixel
// (x, y) at index y*Width+x). Sizes are written HEIGHTxWIDTH, rows by
// columns, in messages as in Size's String and Set (the command line's
// -resize): one rule, imageset.FormatSize; function arguments are width
// first (LoadAt, Resized, Shifted). IDX bytes become v/255; folder images are
// luma in [0, 1] (an 8-bit gray value v becomes exactly v/255); MAT and CSV
// values are divided by the source's PixelMax (0 keeps them: Yale B needs
// 255, the UCI digits 16). MAT images stored column by column (MATLAB's
// X(:), as in Yale B) are reordered to row-major with MAT.Transpose. Scaling
// does not change a subspace (the span of a set, or x/‖x‖), only how images
// look and whether they can be resized: Dataset.Resized needs [0, 1].
//
// # Labels and order
//
// Labels index Dataset.Classes. Integer labels map to classes in ascending
// numeric order and keep their value as the class name (MNIST class 3 is
// "3"; Yale B's 1..38 become classes 0..37 named "1".."38"); other labels
// sort as strings; folder classes are the sorted folder names. Numeric
// labels (NPY, MAT) are integers from -2^53 to 2^53: float ones are checked
// as float64, those of an integer type as the integers read, so 2^53+1 is
// refused, never rounded to 2^53. Images keep file order; folder trees are
// read in sorted name order (byte order:
// "apple10" before "apple2"). Folder images keep their file names
// (Dataset.Files); Dataset.ItemName names any item for people, by its file
// or as "row N" (0-based, like every index of the module). Every result is deterministic: parallel
// decoding and SVDs place results by index, and every random choice (splits,
// groups) comes from math/rand/v2 PCG seeded by the caller, with a separate
// stream per purpose.
//
// # Memory and aliasing
//
// A Dataset owns its pixel memory: the images share one backing array (CSV:
// a few blocks of up to 8 MB, so that reading never copies what it has
// read), and each Images[i] is capped, so appending to it cannot overwrite
// its neighbour. Resized returns a new Dataset sharing labels, classes and
// sets. Subspaces own their bases; Subspaces.Sources records which items
// each came from.
//
// # Limits, special files and cancellation
//
// Every loader works within one budget, Limits (= imageset.Limits): pixels
// per image (2^22 by default), images per set folder (2^16), values in all
// (2^26 float64s, 512 MiB; a folder load also bounds by it the pixels it
// decodes at their native size, so hard links to one small file claiming a
// large image cost no minutes) and bytes per file after decompression
// (2^26, 64 MiB; the file's size when it is not compressed). The command
// line grlgq sets them with -max-pixels, -max-set-images, -max-values and
// -max-file-bytes. A zero field means the
// default; set a field to raise it (the Limits field of each source). Headers are checked against the bytes the file
// can hold and against the limits before anything is allocated, streams
// (gzip, MAT's zlib) are read through a counter that stops at the byte limit,
// and buffers grow with the data actually read, so a hostile header or a
// decompression bomb cannot make a loader allocate more than the limits
// allow: with the defaults, one load stays under 1 GB however its input is
// built (the worst cases measured peak at 665 MB of resident memory: 15
// images of 2048x2048, or 64 MB of IDX, MAT or CSV data). A resize target
// is checked before anything is read. Text is read as it streams, bounded
// by what has been read: the CSV reader holds one field at a time (at most
// MaxCSVField bytes) and counts a line's fields against the pixel limit
// (then against the first line's count) as they arrive, so a gzip CSV
// inflating to one endless 64 MB line is refused in about a second with
// some 40 MB allocated; an npy header is read up to its bounded length. Going
// over a limit is a one-line *LimitError naming the file, the count, the
// limit and its name ("... 64000000 pixels per image, over the limit of
// 4194304 (raise max-pixels)"); it matches ErrLimit and ErrSize, and its
// Limit field (imageset.LimitPixels, LimitSetImages, LimitValues,
// LimitFileBytes) tells a command line which of its flags to name.
//
// Data files must be regular files: they are opened with
// imageset.OpenRegular (internal/safefile.Open, the module's one
// implementation, which the command lines and the model loader use too),
// which refuses FIFOs, devices, sockets and folders without blocking (a
// FIFO is opened non-blocking, then refused from its fstat), and a folder
// tree refuses such an image name before opening it. The error matches
// ErrNotRegular (the same error as safefile.ErrNotRegular) and reads
// "PATH: a FIFO (named pipe), not a regular file".
//
// Every load takes a context (Source.Load, LoadAt, ReadMAT,
// Dataset.Resized). A cancelled context ends a load soon, within about a
// second at any stage (ctx is checked for every read of a file or of its
// decompressed stream, which inflates at most 32 KB at a time, every image
// decoded or resized, every basis checked), with an error wrapping
// ctx.Err(), which every load returns whenever ctx was cancelled before it
// returns.
//
// # Errors
//
// Loaders never panic on bad input. A problem with a file's content is a
// *FileError, "dataset: FILE: PROBLEM" with line numbers (CSV) or
// offsets/indices, wrapping ErrFormat, ErrSize, ErrValue or ErrUnsupported
// (test with errors.Is); file-system errors wrap the os error; limits are a
// *LimitError (ErrLimit), special files ErrNotRegular. Preparation
// errors name the set, group or image and wrap subspace.ErrTooFewImages,
// subspace.ErrRankDeficient, subspace.ErrZeroImage or ErrTooSmall; the
// SkipBad options skip such inputs instead and list them in
// Subspaces.Skipped. Wrong arguments (an index outside the data, d < 1,
// d > m) are returned errors too, wrapping ErrArgument.
//
// # Preparation
//
// SetSubspaces (image-set data: ETH-80, videos), GroupSubspaces (image
// classification: training subspaces from shuffled groups of m images of
// one class; Groups is the one grouping rule, also used by the paper
// protocols: every image is used, the last group of a class completed from
// the start of its shuffle), ImageSubspaces (test images as 1-D subspaces) and
// BasisSubspaces (npy); TrainingSubspaces and EvalSamples choose among
// them by the kind of data, as a classifier is trained and evaluated
// on it, and Dataset.ClassMap maps the data's classes to a classifier's by
// name (by index for a classifier without names, only when the classes are
// as many; the package never sees a model: it takes the names). Splits
// (holdouts, k-folds, validation parts) are package folds'. Augmentation: Shifted (an image moved by whole
// pixels, edges replicated).
package dataset
