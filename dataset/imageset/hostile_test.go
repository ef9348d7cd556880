package imageset

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/png"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// within runs f and fails the test if it has not returned after d: a loader
// that blocks (on a FIFO) must not hang the test binary.
func within[T any](t *testing.T, d time.Duration, f func() T) T {
	t.Helper()
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v
	case <-time.After(d):
		t.Fatalf("still running after %v", d)
		panic("unreachable")
	}
}

// allocDuring returns the bytes allocated (runtime.MemStats.TotalAlloc)
// while f runs; other tests of the package do not run in parallel.
func allocDuring(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// pngChunk appends a PNG chunk with its CRC.
func pngChunk(b []byte, typ string, data []byte) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(data)))
	start := len(b)
	b = append(b, typ...)
	b = append(b, data...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b[start:]))
}

// zeroPNG returns a valid all-black 8-bit gray PNG of w x h, without holding
// its pixels: the zlib stream of its rows is written row by row, so an
// 8000x8000 image costs 62 KB on disk and little memory here. With
// headerOnly, the file stops after IHDR (a header that promises an image).
func zeroPNG(t testing.TB, w, h int, headerOnly bool) []byte {
	t.Helper()
	b := []byte("\x89PNG\r\n\x1a\n")
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 8, 0 // 8-bit gray
	b = pngChunk(b, "IHDR", ihdr[:])
	if headerOnly {
		return b
	}
	var z bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&z, zlib.DefaultCompression)
	row := make([]byte, 1+w) // filter byte 0, then zeros
	bw := bufio.NewWriterSize(zw, 1<<16)
	for range h {
		bw.Write(row)
	}
	bw.Flush()
	zw.Close()
	b = pngChunk(b, "IDAT", z.Bytes())
	return pngChunk(b, "IEND", nil)
}

func mustWrite(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// link makes dst a hard link to src, or a copy where links are not
// supported.
func link(t testing.TB, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if os.Link(src, dst) == nil {
		return
	}
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	mustWrite(t, dst, b)
}

func wantLimit(t *testing.T, err error, limit string, frags ...string) {
	t.Helper()
	var le *LimitError
	if !errors.As(err, &le) || !errors.Is(err, ErrLimit) || le.Limit != limit {
		t.Fatalf("error %v, want a *LimitError of %s", err, limit)
	}
	msg := err.Error()
	for _, f := range append(frags, "raise "+limit) {
		if !bytes.Contains([]byte(msg), []byte(f)) {
			t.Fatalf("error %q does not mention %q", msg, f)
		}
	}
}

// TestHeaderBomb: a first PNG header of 8000x8000 followed by 999 empty
// .png files (41 KB in all) used to size 1000*8000*8000 float64s before
// decoding anything.
func TestHeaderBomb(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "a", "s")
	first := filepath.Join(dir, "000.png")
	mustWrite(t, first, zeroPNG(t, 8000, 8000, true))
	for i := 1; i < 1000; i++ {
		mustWrite(t, filepath.Join(dir, "f"+string(rune('0'+i/100))+string(rune('0'+i/10%10))+string(rune('0'+i%10))+".png"), nil)
	}
	var err error
	alloc := allocDuring(func() {
		err = within(t, 10*time.Second, func() error { _, err := Load(context.Background(), root, Options{}); return err })
	})
	wantLimit(t, err, LimitPixels, first, "8000x8000", "64000000")
	if !errors.Is(err, ErrSize) {
		t.Fatalf("%v does not match ErrSize", err)
	}
	if alloc > 16<<20 {
		t.Fatalf("allocated %d MB to refuse it", alloc>>20)
	}
	// The same header within the per-image limit: 2048x2048 and 999 empty
	// files would be 4 G values; refused from the file count, before a
	// single empty file is opened.
	mustWrite(t, first, zeroPNG(t, 2048, 2048, true))
	alloc = allocDuring(func() { _, err = Load(context.Background(), root, Options{}) })
	wantLimit(t, err, LimitValues, root, "1000 images of 2048x2048")
	if alloc > 16<<20 {
		t.Fatalf("allocated %d MB to refuse it", alloc>>20)
	}
	// Within every limit, the empty files are decode errors, found before
	// the pixels are allocated.
	alloc = allocDuring(func() { _, err = Load(context.Background(), root, Options{Limits: Limits{TotalValues: 1 << 33}}) })
	if !errors.Is(err, ErrDecode) || !bytes.Contains([]byte(err.Error()), []byte("f001.png")) {
		t.Fatalf("error %v, want ErrDecode naming f001.png", err)
	}
	if alloc > 16<<20 {
		t.Fatalf("allocated %d MB to refuse it", alloc>>20)
	}
}

// TestHardLinkBomb: hard links to one valid all-zero 8000x8000 PNG (62 KB)
// used to take 5 GB each; they are refused from the header.
func TestHardLinkBomb(t *testing.T) {
	root := t.TempDir()
	src := filepath.Join(root, "zero.png")
	mustWrite(t, src, zeroPNG(t, 8000, 8000, false))
	if st, _ := os.Stat(src); st.Size() > 100<<10 {
		t.Fatalf("test PNG of %d bytes", st.Size())
	}
	tree := filepath.Join(root, "tree")
	for i := range 4 {
		link(t, src, filepath.Join(tree, "a", "s", string(rune('a'+i))+".png"))
	}
	var err error
	start := time.Now()
	alloc := allocDuring(func() {
		err = within(t, 10*time.Second, func() error { _, err := Load(context.Background(), tree, Options{Width: 20, Height: 20}); return err })
	})
	wantLimit(t, err, LimitPixels, filepath.Join(tree, "a", "s", "a.png"), "8000x8000")
	if alloc > 16<<20 || time.Since(start) > 5*time.Second {
		t.Fatalf("allocated %d MB in %v to refuse it", alloc>>20, time.Since(start))
	}
	// The edge binary's reader too.
	alloc = allocDuring(func() { _, _, _, err = ReadImage(src, Options{Width: 20, Height: 20}) })
	wantLimit(t, err, LimitPixels, src)
	if alloc > 16<<20 {
		t.Fatalf("ReadFile allocated %d MB to refuse it", alloc>>20)
	}
	// Just over the default limit: refused, and decoded once the limit is
	// raised.
	big := filepath.Join(root, "big.png")
	mustWrite(t, big, zeroPNG(t, 2049, 2048, false))
	_, _, _, err = ReadImage(big, Options{Width: 2, Height: 2})
	wantLimit(t, err, LimitPixels, "image of 2048x2049", "4196352 pixels")
	pix, w, h, err := ReadImage(big, Options{Width: 2, Height: 2, Limits: Limits{PixelsPerImage: 2049 * 2048}})
	if err != nil || w != 2 || h != 2 || pix[0] != 0 {
		t.Fatalf("raised limit: %v %dx%d %v", err, w, h, pix)
	}
}

func TestLimits(t *testing.T) {
	root := makeTree(t) // 4 sets of 3 images of 3 rows of 4 pixels (3x4)
	_, err := Load(context.Background(), root, Options{Limits: Limits{ImagesPerSet: 2}})
	wantLimit(t, err, LimitSetImages, "more than 2 images per set")
	// 12 images of 12 pixels, each costing ItemCost more.
	_, err = Load(context.Background(), root, Options{Limits: Limits{TotalValues: 12*(12+ItemCost) - 1}})
	wantLimit(t, err, LimitValues, "12 images of 3x4", "240 values")
	_, err = Load(context.Background(), root, Options{Limits: Limits{PixelsPerImage: 11}})
	wantLimit(t, err, LimitPixels, "image of 3x4", "12 pixels")
	_, err = Load(context.Background(), root, Options{Width: 100, Height: 100, Limits: Limits{PixelsPerImage: 9999}})
	wantLimit(t, err, LimitPixels, "target size 100x100")
	_, _, _, err = ReadImage(filepath.Join(root, "cup", "cups2", "a.png"), Options{Width: 5000, Height: 5000})
	wantLimit(t, err, LimitPixels, "target size 5000x5000")
	// Exactly at every limit: loads.
	if _, err := Load(context.Background(), root, Options{Limits: Limits{ImagesPerSet: 3, TotalValues: 240, PixelsPerImage: 12}}); err != nil {
		t.Fatal(err)
	}
	if d := (Limits{}).WithDefaults(); d != DefaultLimits() || d.PixelsPerImage != 1<<22 {
		t.Fatalf("defaults %+v", d)
	}
}

// TestSpecialFiles: a FIFO among the images (or behind a symbolic link)
// is refused without blocking, and so is a device.
func TestSpecialFiles(t *testing.T) {
	root := makeTree(t)
	fifo := filepath.Join(root, "cup", "cups2", "z.png")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	err := within(t, 5*time.Second, func() error { _, err := Load(context.Background(), root, Options{}); return err })
	if !errors.Is(err, ErrNotRegular) || !bytes.Contains([]byte(err.Error()), []byte(fifo)) {
		t.Fatalf("FIFO in a set: %v", err)
	}
	os.Remove(fifo)
	hidden := filepath.Join(t.TempDir(), "pipe")
	if err := mkfifo(hidden); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(hidden, fifo); err != nil {
		t.Skipf("no symbolic links: %v", err)
	}
	err = within(t, 5*time.Second, func() error { _, err := Load(context.Background(), root, Options{}); return err })
	if !errors.Is(err, ErrNotRegular) {
		t.Fatalf("symbolic link to a FIFO: %v", err)
	}
	err = within(t, 5*time.Second, func() error { _, _, _, err := ReadImage(hidden, Options{Width: 0, Height: 0}); return err })
	if !errors.Is(err, ErrNotRegular) {
		t.Fatalf("ReadFile of a FIFO: %v", err)
	}
	for _, p := range []string{hidden, "/dev/null", root} {
		if _, err := os.Stat(p); err != nil {
			continue // no /dev/null here
		}
		err := within(t, 5*time.Second, func() error {
			f, err := OpenRegular(p)
			if err == nil {
				f.Close()
			}
			return err
		})
		if !errors.Is(err, ErrNotRegular) {
			t.Fatalf("OpenRegular(%s): %v", p, err)
		}
	}
	if _, err := OpenRegular(filepath.Join(root, "nope")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing file: %v", err)
	}
	f, err := OpenRegular(filepath.Join(root, "cup", "cups2", "a.png"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// TestCancel: cancelling the context ends a long load within a second,
// with an error wrapping context.Canceled.
func TestCancel(t *testing.T) {
	root := t.TempDir()
	// One 256x256 noise image (a few ms to decode) behind 1500 names: seconds
	// of work, cancelled after 100 ms.
	rng := rand.New(rand.NewPCG(1, 2))
	g := image.NewGray(image.Rect(0, 0, 256, 256))
	for i := range g.Pix {
		g.Pix[i] = uint8(rng.Uint32())
	}
	var b bytes.Buffer
	if err := png.Encode(&b, g); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(root, "noise.png")
	mustWrite(t, src, b.Bytes())
	tree := filepath.Join(root, "tree")
	for i := range 1500 {
		link(t, src, filepath.Join(tree, "c", "s", string(rune('a'+i/26/26))+string(rune('a'+i/26%26))+string(rune('a'+i%26))+".png"))
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		// 98 M pixels to decode: over the default budget, so raise it.
		_, err := Load(ctx, tree, Options{Width: 8, Height: 8, Limits: Limits{TotalValues: 1 << 28}})
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	cancel()
	start := time.Now()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("error %v, want context.Canceled", err)
		}
		if d := time.Since(start); d > time.Second {
			t.Fatalf("returned %v after the cancellation", d)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("still loading 5 s after the cancellation")
	}
	// Cancelled before it starts: no work at all.
	_, err := Load(ctx, tree, Options{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: %v", err)
	}
}

// TestDecodeBudget: resized images are bounded by the pixels they decode
// (their native size), not only by the values they keep: 40 links to one
// 256x256 PNG resized to 4x4 keep 640 values but decode 2.6 M pixels.
func TestDecodeBudget(t *testing.T) {
	root := t.TempDir()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 256, 256))); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(root, "zero.png")
	mustWrite(t, src, b.Bytes())
	tree := filepath.Join(root, "tree")
	for i := range 40 {
		link(t, src, filepath.Join(tree, "c", "s", string(rune('a'+i/26))+string(rune('a'+i%26))+".png"))
	}
	_, err := Load(context.Background(), tree, Options{Width: 4, Height: 4, Limits: Limits{TotalValues: 1 << 20}})
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != LimitValues || !strings.Contains(err.Error(), "40 images to decode") {
		t.Fatalf("error %v, want the values limit on the pixels to decode", err)
	}
	if _, err := Load(context.Background(), tree, Options{Width: 4, Height: 4, Limits: Limits{TotalValues: 1 << 22}}); err != nil {
		t.Fatalf("within the budget: %v", err)
	}
}
