// Package pixels is the one rule that turns an image into the pixel vector
// a GRLGQ model sees: gray luma in [0, 1], row-major, resized with
// Catmull-Rom when the size differs. The folder loaders (package
// dataset/imageset, and so everything `grlgq train` reads from folders),
// the resizing of loaded data sets (dataset.Dataset.Resized, the paper's
// Yale B protocol) and a server's uploaded images (model.Model's
// SampleFromImages) all call it, so that a model sees at prediction the
// pixels it was trained on. It imports only the standard library and
// golang.org/x/image.
//
// Pixels: luma (ITU-R BT.601 weights, Go's color.Gray16Model) of the
// alpha-premultiplied 16-bit channels, divided by 65535, so values lie in
// [0, 1] and an 8-bit value v becomes v/255 exactly. Images are row-major
// (pixel (x, y) at index y*width+x). Resizing uses Catmull-Rom bicubic
// (draw.CatmullRom) on the 16-bit gray image, so it rounds to 1/65535; an
// image already of the target size is not resampled. x/image computes the
// filter in float64 in pure Go: on arm64 the compiler may fuse its
// multiply-adds, which can move a result across a 1/65535 rounding
// boundary, so resized pixels are not guaranteed bit-identical across
// architectures (unresized ones are). In practice the rounding to 1/65535
// absorbs the difference: .ci/edge.sh resizes 13x11 colour PNG and JPEG
// images under qemu and gets byte-identical predictions on arm64 and arm
// v7.
//
// Memory: Gray allocates its result; GrayTo writes into the caller's
// slice. A Catmull-Rom scaler is built once per pair of sizes and cached
// (a few kilobytes each; data sets have few distinct sizes); scalers are
// safe for concurrent use, and so are all functions here.
//
// Errors: Resize returns ErrSize (bad sizes or length) or ErrRange (a
// value outside [0, 1]); GrayTo panics when dst's length is not w*h (a
// programmer error).
package pixels
