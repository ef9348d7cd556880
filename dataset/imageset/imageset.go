package imageset

import (
	"context"
	"errors"
	"fmt"
	"image"
	_ "image/jpeg" // register the decoders Load and ReadFile accept
	_ "image/png"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/grlgq/grlgq/internal/safefile"
	"github.com/grlgq/grlgq/pixels"
)

// Sentinel errors, testable with errors.Is.
var (
	// ErrDecode: a file could not be decoded as PNG or JPEG.
	ErrDecode = errors.New("imageset: cannot decode image")
	// ErrLayout: the folder tree is not ROOT/<class>/<set>/<images>, or a
	// set or class is empty.
	ErrLayout = errors.New("imageset: bad folder layout")
	// ErrSize: sizes disagree (images of different sizes without a target
	// size, bad target size, pixel counts).
	ErrSize = errors.New("imageset: size mismatch")
)

// FormatSize writes the size of an image width pixels wide and height
// high as HEIGHTxWIDTH, rows by columns ("24x38": 24 rows of 38 pixels),
// the order in which the command line's -resize takes a size and
// dataset.Size prints one. Every size in this package's messages is
// written by it.
func FormatSize(width, height int) string {
	return strconv.Itoa(height) + "x" + strconv.Itoa(width)
}

// badTarget is the error of a target size that is not two positive sides
// or two zeros.
func badTarget(w, h int) error {
	return fmt.Errorf("%w: target size %s: want height and width both positive, or both 0", ErrSize, FormatSize(w, h))
}

// inFlightPixels bounds the pixels of the images Load decodes at once (their
// headers' sizes, summed over the workers), unless one image is larger: a
// decoded 16-bit RGBA image takes 8 bytes a pixel, its gray copy 2 more.
const inFlightPixels = 1 << 23

// Layout is the arrangement of a folder tree.
type Layout uint8

const (
	// LayoutAuto tells the two layouts apart by what ROOT's folders hold:
	// folders of images (classes), or images (sets). A tree that mixes
	// them is an error (ErrLayout): give the layout.
	LayoutAuto Layout = iota
	// LayoutClasses is ROOT/<class>/<set>/<images>: labelled sets.
	LayoutClasses
	// LayoutSets is ROOT/<set>/<images>: sets without labels (new data to
	// classify).
	LayoutSets
)

var layoutWords = []string{"auto", "classes", "sets"}

// String returns "auto", "classes" or "sets".
func (l Layout) String() string {
	if int(l) < len(layoutWords) {
		return layoutWords[l]
	}
	return fmt.Sprintf("Layout(%d)", l)
}

// MarshalText returns the word of l; an unknown value is an error.
func (l Layout) MarshalText() ([]byte, error) {
	if int(l) < len(layoutWords) {
		return []byte(layoutWords[l]), nil
	}
	return nil, fmt.Errorf("imageset: unknown layout %d", l)
}

// UnmarshalText parses "auto", "classes" or "sets".
func (l *Layout) UnmarshalText(b []byte) error {
	for i, w := range layoutWords {
		if w == string(b) {
			*l = Layout(i)
			return nil
		}
	}
	return fmt.Errorf("imageset: layout %q: want one of %s", b, strings.Join(layoutWords, ", "))
}

// Options controls Load.
type Options struct {
	// Layout of the tree (LayoutAuto: told from the tree).
	Layout Layout
	// Width and Height: every image is resized to Width x Height with
	// Catmull-Rom (bicubic). Both 0 keeps the native size, which must then
	// be the same for every image.
	Width, Height int
	// Workers is the number of decoding goroutines; 0 means GOMAXPROCS.
	// The result never depends on it.
	Workers int
	// Limits bounds the input (zero fields: DefaultLimits).
	Limits Limits
	// Progress, if non-nil, is called after each image decoded with the
	// images done and the total, from one goroutine at a time (a
	// progress bar's feed; it must not block for long).
	Progress func(done, total int)
}

// Tree is a loaded folder tree ROOT/<class>/<set>/<images>, or
// ROOT/<set>/<images> (sets without labels). A class or set folder may be
// a symbolic link to a folder; Files keep the path through the link.
type Tree struct {
	Root string
	// Width and Height of every image (Width*Height pixels).
	Width, Height int
	// Classes are the class folder names, sorted; nil for a tree of sets
	// without labels.
	Classes []string
	// Sets are sorted by class, then by set folder name.
	Sets []Set
}

// Set is one image set: the images of one sub-folder.
type Set struct {
	// Class is an index into Tree.Classes, -1 for a set without a label.
	Class int
	// Name is the set folder's name.
	Name string
	// Files are the image paths, sorted by name.
	Files []string
	// Images[k] holds the gray pixels of Files[k] (see pixels.GrayTo). All images of
	// a Tree share one backing array.
	Images [][]float64
}

// IsImageName reports whether name has an extension Load reads: .png,
// .jpg or .jpeg, in any case.
func IsImageName(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".png", ".jpg", ".jpeg":
		return true
	}
	return false
}

// Load reads the tree under root: every class folder, every set
// folder in it, every PNG or JPEG file in those, in sorted name order (byte
// order: "obj10" sorts before "obj2"); or, for a tree of sets without
// labels (Options.Layout), every set folder of root and its images. Names
// starting with '.' are ignored, and so are files that are not images (by
// extension), files beside the class (or set) folders, and folders inside
// set folders. A file directly in a class folder that is an image is an
// error (it belongs to no set), and so is a class without sets, a set
// without images, and an image name that is not a regular file (a FIFO, a
// device: refused before it is opened).
//
// Symbolic links to folders are followed at the class and set levels (and
// when the layout is told), and such a folder is read exactly as a real
// one: a test set made of links to set folders needs no copies. A link
// there whose target is missing, or is neither a folder nor a regular
// file, is an error naming the link; one to a regular file is a file like
// any other. Links to images are followed when the image is opened.
//
// Within opt.Limits: the target size, the images of each set (while
// listing), every image header (before decoding), and the values of all
// images (before allocating them) are checked; memory for the pixels is
// allocated once every header has been read. Images are decoded in
// parallel; the first error in file order is returned, naming the file.
// ctx is checked for every folder and every image: when it is cancelled,
// Load returns an error wrapping ctx.Err() within about one image's
// decoding time.
func Load(ctx context.Context, root string, opt Options) (*Tree, error) {
	lim := opt.Limits.WithDefaults()
	if opt.Width < 0 || opt.Height < 0 || (opt.Width == 0) != (opt.Height == 0) {
		return nil, badTarget(opt.Width, opt.Height)
	}
	if err := overLimit(root, "target size "+FormatSize(opt.Width, opt.Height), LimitPixels, mulSat(int64(opt.Width), int64(opt.Height)), lim.PixelsPerImage); err != nil {
		return nil, fmt.Errorf("imageset: %w", err)
	}
	t, err := walk(ctx, root, opt.Layout, lim)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, s := range t.Sets {
		files = append(files, s.Files...)
	}
	w, h := opt.Width, opt.Height
	if w == 0 {
		// Native size: the first image fixes it.
		cfg, err := decodeConfig(files[0], lim)
		if err != nil {
			return nil, err
		}
		w, h = cfg.Width, cfg.Height
	}
	t.Width, t.Height = w, h
	nval := CountValues(int64(len(files)), int64(w)*int64(h))
	if err := overLimit(root, fmt.Sprintf("%d images of %s", len(files), FormatSize(w, h)), LimitValues, nval, lim.TotalValues); err != nil {
		return nil, fmt.Errorf("imageset: %w", err)
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// Every header first (cheap: a few hundred bytes each): sizes and
	// special files are refused before anything large is allocated.
	pixels := make([]int64, len(files))
	err = forEach(ctx, root, len(files), workers, func(i int) error {
		cfg, err := decodeConfig(files[i], lim)
		if err != nil {
			return err
		}
		if opt.Width == 0 && (cfg.Width != w || cfg.Height != h) {
			return sizeErr(files[i], cfg.Width, cfg.Height, w, h)
		}
		pixels[i] = int64(cfg.Width) * int64(cfg.Height)
		return nil
	})
	if err != nil {
		return nil, err
	}
	// What decoding costs: every image is decoded at its native size
	// before it is resized, so small files that claim large images (hard
	// links to one PNG of zeros) are bounded by the pixels they decode,
	// not only by the values they keep.
	var decoded int64
	for _, p := range pixels {
		decoded += p // each at most PixelsPerImage <= 2^62 / 2^24 images
	}
	if err := overLimit(root, fmt.Sprintf("%d images to decode", len(files)), LimitValues, decoded, lim.TotalValues); err != nil {
		return nil, fmt.Errorf("imageset: %w", err)
	}
	// Fewer workers when the images are large, so that the decoded images
	// in flight stay within max(inFlightPixels, the largest image).
	if biggest := slices.Max(pixels); biggest > 0 {
		workers = max(1, min(workers, int(max(inFlightPixels, biggest)/biggest)))
	}
	flat := make([]float64, len(files)*w*h)
	images := make([][]float64, len(files))
	for i := range images {
		images[i] = flat[i*w*h : (i+1)*w*h : (i+1)*w*h]
	}
	var (
		mu   sync.Mutex
		done int
	)
	err = forEach(ctx, root, len(files), workers, func(i int) error {
		err := readInto(images[i], files[i], w, h, opt.Width != 0, lim)
		if opt.Progress != nil {
			mu.Lock()
			done++
			opt.Progress(done, len(files))
			mu.Unlock()
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	k := 0
	for si := range t.Sets {
		s := &t.Sets[si]
		s.Images = images[k : k+len(s.Files) : k+len(s.Files)]
		k += len(s.Files)
	}
	return t, nil
}

// forEach calls do(i) for i in [0, n) on up to workers goroutines and
// returns the error of the lowest i that failed, whatever the scheduling,
// or the context's error (wrapped, naming root) once ctx is done.
func forEach(ctx context.Context, root string, n, workers int, do func(i int) error) error {
	var (
		next     atomic.Int64 // next index to hand out
		firstBad atomic.Int64 // lowest index that failed so far
		errs     = make([]error, n)
		wg       sync.WaitGroup
	)
	firstBad.Store(int64(n))
	for range min(workers, n) {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := next.Add(1) - 1
				// Indices are handed out in increasing order, so every
				// index below the first failure is still done: the
				// error returned is the first in file order, whatever
				// the scheduling.
				if i >= int64(n) || i > firstBad.Load() {
					return
				}
				if err := do(int(i)); err != nil {
					errs[i] = err
					for {
						b := firstBad.Load()
						if i >= b || firstBad.CompareAndSwap(b, i) {
							break
						}
					}
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("imageset: %s: %w", root, err)
	}
	if b := firstBad.Load(); b < int64(n) {
		return errs[b]
	}
	return nil
}

// walk lists the tree without decoding anything.
func walk(ctx context.Context, root string, layout Layout, lim Limits) (*Tree, error) {
	top, err := readDir(root, -1)
	if err != nil {
		return nil, err
	}
	var dirs []string // ROOT's folders, sorted
	for _, e := range top {
		dir, err := isFolder(root, e)
		if err != nil {
			return nil, err
		}
		if dir {
			dirs = append(dirs, e.Name())
		}
	}
	if layout == LayoutAuto {
		if layout, err = detect(root, dirs, lim); err != nil {
			return nil, err
		}
	}
	t := &Tree{Root: root}
	nfiles := int64(0)
	// set reads the set folder sdir, of class ci (-1: none), into t.
	set := func(sdir, name string, ci int) error {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("imageset: %s: %w", root, err)
		}
		ents, err := readDir(sdir, lim.ImagesPerSet)
		if err != nil {
			return err
		}
		set := Set{Class: ci, Name: name}
		for _, e := range ents {
			if e.IsDir() || !IsImageName(e.Name()) {
				continue
			}
			p := filepath.Join(sdir, e.Name())
			// Symbolic links are followed (and checked) when opened.
			if m := e.Type(); m&fs.ModeSymlink == 0 {
				if err := safefile.CheckRegular(p, m); err != nil {
					return fmt.Errorf("imageset: %w", err)
				}
			}
			set.Files = append(set.Files, p)
		}
		if len(set.Files) == 0 {
			return fmt.Errorf("%w: %s: set folder without PNG or JPEG images", ErrLayout, sdir)
		}
		// Every image has at least one pixel.
		nfiles += int64(len(set.Files))
		if err := overLimit(root, fmt.Sprintf("%d images or more", nfiles), LimitValues, CountValues(nfiles, 1), lim.TotalValues); err != nil {
			return fmt.Errorf("imageset: %w", err)
		}
		t.Sets = append(t.Sets, set)
		return nil
	}
	if layout == LayoutSets {
		for _, name := range dirs {
			if err := set(filepath.Join(root, name), name, -1); err != nil {
				return nil, err
			}
		}
		if len(t.Sets) == 0 {
			return nil, fmt.Errorf("%w: %s: no set folders; want ROOT/<set>/<images>", ErrLayout, root)
		}
		return t, nil
	}
	for _, name := range dirs {
		cdir := filepath.Join(root, name)
		sets, err := readDir(cdir, -1)
		if err != nil {
			return nil, err
		}
		ci := len(t.Classes)
		nsets := 0
		for _, s := range sets {
			dir, err := isFolder(cdir, s)
			if err != nil {
				return nil, err
			}
			if !dir {
				if IsImageName(s.Name()) {
					return nil, fmt.Errorf("%w: %s: image directly in a class folder; want ROOT/<class>/<set>/<images>", ErrLayout, filepath.Join(cdir, s.Name()))
				}
				continue
			}
			if err := set(filepath.Join(cdir, s.Name()), s.Name(), ci); err != nil {
				return nil, err
			}
			nsets++
		}
		if nsets == 0 {
			return nil, fmt.Errorf("%w: %s: class folder without set folders; want ROOT/<class>/<set>/<images>", ErrLayout, cdir)
		}
		t.Classes = append(t.Classes, name)
	}
	if len(t.Classes) == 0 {
		return nil, fmt.Errorf("%w: %s: no class folders; want ROOT/<class>/<set>/<images>", ErrLayout, root)
	}
	return t, nil
}

// detect tells the layout of root from its folders dirs: every one holding
// image files (and no folders) is a tree of sets, every one holding
// folders (and no image files) a tree of classes; anything else is an
// error naming the first folder that differs. Symbolic links to folders
// count as folders. A link that leads nowhere useful (missing target, a
// special file) counts as neither, as walk ignores it in a set folder
// unless it has an image name; it is named only when the folder holds
// nothing else, since in a class folder walk refuses it anyway. A
// folder's listing stops at the images-per-set limit.
func detect(root string, dirs []string, lim Limits) (Layout, error) {
	layout := LayoutAuto
	for _, name := range dirs {
		dir := filepath.Join(root, name)
		ents, err := readDir(dir, lim.ImagesPerSet)
		if err != nil {
			return 0, err
		}
		images, folders := false, false
		var badLink error // the first link isFolder refused
		for _, e := range ents {
			isDir, err := isFolder(dir, e)
			switch {
			case err != nil:
				if badLink == nil {
					badLink = err
				}
				if IsImageName(e.Name()) {
					images = true
				}
			case isDir:
				folders = true
			case IsImageName(e.Name()):
				images = true
			}
		}
		if !images && !folders && badLink != nil {
			return 0, badLink
		}
		var this Layout
		switch {
		case images && !folders:
			this = LayoutSets
		case folders && !images:
			this = LayoutClasses
		case images && folders:
			return 0, fmt.Errorf("%w: %s holds both images and folders: want ROOT/<class>/<set>/<images> (labelled) or ROOT/<set>/<images> (no labels)", ErrLayout, dir)
		default:
			return 0, fmt.Errorf("%w: %s: a class folder without set folders, or a set folder without images; want ROOT/<class>/<set>/<images> (labelled) or ROOT/<set>/<images> (no labels)", ErrLayout, dir)
		}
		if layout != LayoutAuto && this != layout {
			return 0, fmt.Errorf("%w: %s mixes class folders (of set folders) and set folders (of images): want ROOT/<class>/<set>/<images> (labelled) or ROOT/<set>/<images> (no labels)", ErrLayout, root)
		}
		layout = this
	}
	if layout == LayoutAuto {
		return 0, fmt.Errorf("%w: %s: no class folders (nor set folders); want ROOT/<class>/<set>/<images> (labelled) or ROOT/<set>/<images> (no labels)", ErrLayout, root)
	}
	return layout, nil
}

// readDir lists dir sorted by name, without hidden entries. With maxImages
// >= 0, listing stops with a *LimitError as soon as more than maxImages
// image names are seen, so a folder of millions of files costs no more
// than the limit.
func readDir(dir string, maxImages int64) ([]fs.DirEntry, error) {
	f, err := safefile.OpenNonblock(dir) // a FIFO named as a folder must not block
	if err != nil {
		return nil, fmt.Errorf("imageset: %w", err)
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil {
		return nil, fmt.Errorf("imageset: %w", err)
	} else if st.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s: a file, want a folder", ErrLayout, dir)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("imageset: %w", &notFolderError{dir: dir, mode: st.Mode()})
	}
	var out []fs.DirEntry
	images := int64(0)
	for {
		ents, err := f.ReadDir(1024)
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			out = append(out, e)
			if maxImages >= 0 && !e.IsDir() && IsImageName(e.Name()) {
				images++
				if images > maxImages {
					return nil, fmt.Errorf("imageset: %w", &LimitError{File: dir, What: "set folder", Limit: LimitSetImages, Max: maxImages, Kind: ErrSize})
				}
			}
		}
		if err == io.EOF || (err == nil && len(ents) == 0) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("imageset: %w", err)
		}
	}
	slices.SortFunc(out, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return out, nil
}

// isFolder reports whether the entry e of the folder dir is a folder,
// following a symbolic link: a link to a folder is one, a link to a
// regular file is not, and any other link (its target missing, links
// that lead to each other, a FIFO, a device) is an error naming it.
// Following links to folders cannot cycle: the tree has a fixed depth
// (ROOT, class, set, images) and folders inside a set folder are never
// read, so a link back up (to ROOT, to a class) is read once, as a class
// or set folder, and refused for what it holds.
func isFolder(dir string, e fs.DirEntry) (bool, error) {
	if e.Type()&fs.ModeSymlink == 0 {
		return e.IsDir(), nil
	}
	p := filepath.Join(dir, e.Name())
	st, err := os.Stat(p)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // the path is named once, below
		}
		to, _ := os.Readlink(p)
		return false, fmt.Errorf("imageset: %s: a symbolic link to %s: %w", p, to, err)
	}
	switch m := st.Mode(); {
	case m.IsDir():
		return true, nil
	case m.IsRegular():
		return false, nil
	default:
		to, _ := os.Readlink(p)
		return false, fmt.Errorf("imageset: %w", &notFolderError{dir: p, mode: m, link: to})
	}
}

// notFolderError is a path that should name a folder but names a special
// file: "DIR: a FIFO (named pipe), not a folder", or behind a symbolic
// link "DIR: a symbolic link to TARGET, a FIFO (named pipe), not a
// folder", matching ErrNotRegular.
type notFolderError struct {
	dir  string
	mode fs.FileMode
	link string // the link's target, when dir is a symbolic link
}

func (e *notFolderError) Error() string {
	if e.link != "" {
		return e.dir + ": a symbolic link to " + e.link + ", " + safefile.Kind(e.mode) + ", not a folder"
	}
	return e.dir + ": " + safefile.Kind(e.mode) + ", not a folder"
}

func (e *notFolderError) Unwrap() error { return ErrNotRegular }

// openImage opens a regular file and reads its header: the size is checked
// against the per-image limit before anything is decoded. The file is left
// at its start.
func openImage(path string, lim Limits) (*os.File, image.Config, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, image.Config{}, fmt.Errorf("imageset: %w", err)
	}
	cfg, _, err := image.DecodeConfig(f)
	if err != nil {
		f.Close()
		return nil, cfg, fmt.Errorf("%w: %s: %v", ErrDecode, path, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 {
		f.Close()
		return nil, cfg, fmt.Errorf("%w: %s: image of %s pixels", ErrSize, path, FormatSize(cfg.Width, cfg.Height))
	}
	what := "image of " + FormatSize(cfg.Width, cfg.Height)
	if err := overLimit(path, what, LimitPixels, mulSat(int64(cfg.Width), int64(cfg.Height)), lim.PixelsPerImage); err != nil {
		f.Close()
		return nil, cfg, fmt.Errorf("imageset: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, cfg, fmt.Errorf("imageset: %w", err)
	}
	return f, cfg, nil
}

func decodeConfig(path string, lim Limits) (image.Config, error) {
	f, cfg, err := openImage(path, lim)
	if err != nil {
		return cfg, err
	}
	f.Close()
	return cfg, nil
}

// ReadConfig returns the size of a PNG or JPEG file from its header,
// which it checks against lim.PixelsPerImage (zero fields: the defaults);
// like ReadImage it opens only regular files, without blocking. It is for
// a caller that bounds a set of images before decoding any (see
// cmd/grlgq-edge).
func ReadConfig(path string, lim Limits) (width, height int, err error) {
	cfg, err := decodeConfig(path, lim.WithDefaults())
	return cfg.Width, cfg.Height, err
}

// ReadImage decodes a PNG or JPEG file to gray pixels (see pixels.GrayTo), resized
// to opt.Width x opt.Height, or at its native size when both are 0; it
// returns the size. The file must be a regular file; its header and the
// target size are checked against opt.Limits.PixelsPerImage before
// anything is decoded. opt.Workers is not used.
func ReadImage(path string, opt Options) (pix []float64, width, height int, err error) {
	w, h, lim := opt.Width, opt.Height, opt.Limits.WithDefaults()
	if w < 0 || h < 0 || (w == 0) != (h == 0) {
		return nil, 0, 0, badTarget(w, h)
	}
	if err := overLimit(path, "target size "+FormatSize(w, h), LimitPixels, mulSat(int64(w), int64(h)), lim.PixelsPerImage); err != nil {
		return nil, 0, 0, fmt.Errorf("imageset: %w", err)
	}
	img, err := decode(path, lim)
	if err != nil {
		return nil, 0, 0, err
	}
	if w == 0 {
		w, h = img.Bounds().Dx(), img.Bounds().Dy()
	}
	pix = make([]float64, w*h)
	pixels.GrayTo(pix, img, w, h)
	return pix, w, h, nil
}

// Decode decodes a PNG or JPEG file, a regular file (see OpenRegular),
// after checking its header against lim.PixelsPerImage (zero fields:
// DefaultLimits): a file claiming a larger image is refused before it is
// decoded.
func Decode(path string, lim Limits) (image.Image, error) {
	return decode(path, lim.WithDefaults())
}

// decode opens path, refuses an image over the per-image limit from its
// header, and decodes it.
func decode(path string, lim Limits) (image.Image, error) {
	f, _, err := openImage(path, lim)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrDecode, path, err)
	}
	return img, nil
}

func sizeErr(path string, iw, ih, w, h int) error {
	return fmt.Errorf("%w: %s: %s pixels, the first image has %s (give a target size to resize)", ErrSize, path, FormatSize(iw, ih), FormatSize(w, h))
}

// readInto decodes path into dst (w*h pixels). Without a target size
// (resize false) the image must already be w x h.
func readInto(dst []float64, path string, w, h int, resize bool, lim Limits) error {
	img, err := decode(path, lim)
	if err != nil {
		return err
	}
	if b := img.Bounds(); !resize && (b.Dx() != w || b.Dy() != h) {
		return sizeErr(path, b.Dx(), b.Dy(), w, h)
	}
	pixels.GrayTo(dst, img, w, h)
	return nil
}
