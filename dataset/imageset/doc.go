// Package imageset decodes images and folder trees of image sets into gray
// pixel vectors. It imports only the standard library and
// golang.org/x/image, so that the edge inference binary can read images
// without pulling in the MAT, npy and CSV loaders of package dataset.
//
// Formats: PNG and JPEG (by content; Load picks files by the extensions
// .png, .jpg, .jpeg). Folder layout for Load: ROOT/<class>/<set>/<images>,
// one set folder = one image set.
//
// Pixels: luma (ITU-R BT.601 weights, Go's color.Gray16Model) of the
// alpha-premultiplied 16-bit channels, divided by 65535, so values lie in
// [0, 1] and an 8-bit value v becomes v/255 exactly. Images are row-major
// (pixel (x, y) at index y*Width+x). Resizing uses Catmull-Rom bicubic
// (draw.CatmullRom) on the 16-bit gray image, so it rounds to 1/65535.
// x/image computes the filter in float64 in pure Go: on arm64 the compiler
// may fuse its multiply-adds, which can move a result across a 1/65535
// rounding boundary, so resized pixels are not guaranteed bit-identical
// across architectures (unresized ones are). In practice the rounding to
// 1/65535 absorbs the difference: .ci/edge.sh resizes 13x11 colour PNG and
// JPEG images under qemu and gets byte-identical predictions on arm64 and
// arm v7.
//
// Order: classes, sets and files are sorted by name (byte order, so
// "obj10" precedes "obj2"); Load decodes in parallel but places every image
// by its index, and returns the first error in file order, so results and
// errors never depend on the number of workers.
//
// Memory: all images of a Tree share one backing array owned by the Tree.
// Image headers are checked (image.DecodeConfig) before decoding, and
// images over 2^26 pixels are refused.
//
// Errors name the file or folder and wrap ErrDecode, ErrLayout, ErrSize or
// ErrRange (or the os error: errors.Is(err, fs.ErrNotExist) works).
package imageset
