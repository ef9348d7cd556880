// Package imageset decodes images and folder trees of image sets into gray
// pixel vectors. It imports only the standard library, package pixels
// (and through it golang.org/x/image) and internal/safefile (the
// non-blocking open of every input), so that the edge inference binary
// can read images
// without pulling in the MAT, npy and CSV loaders of package dataset.
//
// Formats: PNG and JPEG (by content; Load picks files by the extensions
// .png, .jpg, .jpeg). Folder layouts for Load: ROOT/<class>/<set>/<images>
// (labelled sets) or ROOT/<set>/<images> (sets without labels, new data
// to classify), one set folder = one image set; Options.Layout forces
// one, and LayoutAuto tells them apart by what ROOT's folders hold.
// Class and set folders may be symbolic links to folders, read as real
// ones (a train/test split can be a tree of links, without copies); the
// tree has a fixed depth, so links cannot make the walk loop. A link
// there whose target is missing, or is neither a folder nor a regular
// file, is an error naming it.
//
// Pixels: every image becomes its gray pixel vector by package pixels
// (luma in [0, 1], Catmull-Rom resizing to a target size), the one rule
// that model.Model's SampleFromImages applies to a server's images too.
// Single files: ReadImage decodes one to pixels; Decode returns the
// image.Image (for SampleFromImages), ReadConfig only its size; all three
// check the header against the limits first.
//
// Order: classes, sets and files are sorted by name (byte order, so
// "obj10" precedes "obj2"); Load decodes in parallel but places every image
// by its index, and returns the first error in file order, so results and
// errors never depend on the number of workers.
//
// Memory: all images of a Tree share one backing array owned by the Tree.
// Loading works within Limits (documented there, with the defaults: pixels
// per image, images per set, values in all; the bytes per file are package
// dataset's): a set folder is listed no further than the limit, the target
// size is checked first, then the number of images times their size, then
// every image's header (image.DecodeConfig) before anything is decoded or
// the pixels are allocated, and the pixels all of them decode at their
// native size (the values limit bounds the work of decoding too: 2,000
// hard links to one 2 KB PNG of 1024x1024 zeros resized to 4x4 keep 32,000
// values but would decode 2 G pixels, a minute of work); fewer workers decode at once when images are
// large, so decoded images in flight stay within max(2^23 pixels, the
// largest image). Hard links to one 62 KB PNG of 8000x8000 zeros are
// refused from its header.
//
// Files: image names must be regular files (a FIFO or a device in a set
// folder is refused from its directory entry, one behind a symbolic link when
// it is opened); OpenRegular, exported for the loaders of package dataset,
// opens without blocking on a FIFO. Both are the module's one rule for
// special files, package internal/safefile (Open, CheckRegular), which the
// model loader and the command lines use too: one error, ErrNotRegular
// (= safefile.ErrNotRegular), one message, "PATH: a FIFO (named pipe), not
// a regular file".
//
// Cancellation: Load checks its context for every set folder and
// every image, and returns an error wrapping ctx.Err().
//
// Errors name the file or folder and wrap ErrDecode, ErrLayout, ErrSize,
// ErrLimit (a *LimitError, which also matches ErrSize) or
// ErrNotRegular (or the os error: errors.Is(err, fs.ErrNotExist) works).
// They write image sizes HEIGHTxWIDTH (FormatSize: "24x38" is 24 rows of
// 38 pixels), the order of the command line's -resize, although the
// arguments and fields (Options.Width, Height) are width first.
package imageset
