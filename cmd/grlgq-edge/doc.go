// Command grlgq-edge classifies image sets with a trained GRLGQ model: an
// inference-only binary for small devices. Its help (-h) states the
// inputs, the stdin formats and the output in full.
//
// Usage:
//
//	grlgq-edge -model MODEL [-json] [-width W -height H] [-max-pixels N -max-set-images N -max-values N] [-memstats] INPUT...
//
// Each INPUT is a folder (one set) or "-" (standard input, at most once,
// one or more sets), classified in order, one at a time, each printed as
// soon as it is classified: a set on stdin as soon as it is complete (its
// m-th image, or its "---" line or the end of input, is read; nothing
// after it is awaited), so a client on a pipe can send one set and wait
// for its answer. The first set that fails ends the run with exit code 1
// and one line naming it. DIR is a folder of PNG or JPEG images, one image set (files sorted by
// name; other files are ignored). Images are converted to gray in [0, 1]
// and, with -width and -height, resized (Catmull-Rom: package pixels);
// without them, by the model's own rule, Model.SampleFromImages (the
// server path of the library): an image whose size differs from the image
// size recorded in the model (grlgq train records it) is resized to it,
// even one of the same pixel count in another shape; with no recorded
// size, images must have the model's D pixels and are used as they are.
//
// "-" reads sets from standard input in one of two formats, told apart by
// the first 8 bytes of each set:
//
//   - binary: the magic "GRLGQSET", uint32 D, uint32 m (little-endian), then
//     D*m little-endian IEEE-754 float64 values, column-major: image 0's D
//     pixels, then image 1's, and so on; another binary set may follow
//     directly (other bytes after a binary set are an error, found when
//     the next set is read, after this one is printed, as soon as a byte
//     differs from the magic);
//   - text: one image per line, D numbers separated by spaces, tabs or
//     commas (strconv.ParseFloat syntax); blank lines and lines starting
//     with '#' are ignored; a line "---" ends a set and starts the next
//     (none when only blank lines and comments follow it; a set with no
//     image between two "---" lines is an error).
//
// Only the end of standard input ends its sets: a read error on it, between
// sets too, ends the run with exit code 1 and one line.
//
// A set of one image is classified as a 1-D subspace (distance θ_1², or
// sin²θ_1 for a chordal model); a set of m >= d images by the model's
// weighted distance (geodesic or chordal, stored in the model) of its
// d-dimensional subspace (first d left singular vectors, by
// subspace.FromImages). 1 < m < d is an error.
//
// Output (text), per set: "set I INPUT" (only with several INPUTs; "-"
// is one however many sets it holds, since whether another set follows
// on stdin is not known when a set is printed), "label L", "name N" (the
// class's name, when the model names its classes),
// "margin M" (the label-free margin (δ₂ − δ₁)/(δ₂ + δ₁) ∈ [0, 1], see
// package model's "Two margins"), "rejected true|false", "probability c
// NAME p" for every class (model.Prediction.Probabilities, computed with
// kernels.Exp: the same bits on every architecture), then "distance k
// class c δ_k" for every prototype; several sets are separated by a blank
// line. Floats are
// printed with strconv.FormatFloat(v, 'g', -1, 64), the shortest string that
// parses back to the same bits, so outputs can be compared byte for byte
// across machines. -json prints the same as one JSON object (encoding/json
// also prints the shortest round-tripping form), one object per set and
// line (fields set, input, label, name, rejected, margin, images,
// class_names, probabilities, prototype_classes, distances). A rejected prediction
// (margin below the model's reject threshold) prints label -1.
//
// -memstats prints the Go runtime's memory statistics to standard error
// after the prediction.
//
// Limits: -width and -height are 0 to 32768 each, together at most
// model.MaxDim pixels and at most -max-pixels (a usage error, exit code 2,
// otherwise); a set on stdin holds at most 2^27 values, allocated as they
// arrive. A folder is read within -max-pixels (pixels per image, from its
// header, before decoding; default 2^22, range 1 to 2^30),
// -max-set-images (images in DIR, counted before anything is decoded;
// default 2^16, range 1 to 2^24) and -max-values (images x D, plus 8 per
// image, checked before anything is decoded; default 2^24, range 1 to
// 2^36): the defaults keep a folder's set under about 500 MB of memory, so
// hard links to one small PNG that claims 8000x8000 pixels, or thousands of
// links to one, are refused at once. An input over a limit is one line
// naming the flag that raises it ("... (raise it with -max-pixels)"; the
// flags and their ranges are cmd/internal/base's, shared with grlgq). The
// text format on stdin is read a byte at a time into one value of at most
// 1 KB, and a line is refused as soon as its (D+1)-th value starts, so an
// endless line costs what has been read; the error quotes at most 40
// bytes of a refused value (escaped, then "..."). The
// model and the images must be regular files: a FIFO or a device is
// refused at once instead of blocking (package internal/safefile, the
// module's one rule for it). SIGINT and SIGTERM end the binary at any
// stage with "grlgq-edge: interrupted" and exit code 1.
//
// The binary uses the library's public API only (model.LoadFile,
// Model.SampleOf, Model.SampleFromImages, Model.PredictTo) and imports no
// training driver, plotting, or MAT/npy/CSV/IDX loader (a test checks `go
// list -deps`). Build it for devices with
//
//	CGO_ENABLED=0 go build -tags purego -trimpath -ldflags='-s -w' ./cmd/grlgq-edge
//
// where -tags purego selects the pure-Go kernels, written so that amd64,
// arm64 and arm give the same bits (see .ci/edge.sh, which checks it under
// qemu).
package main
