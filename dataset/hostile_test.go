package dataset

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/grlgq/grlgq/dataset/imageset"
)

// within runs f and fails the test if it has not returned after d: a loader
// that blocks (on a FIFO) must not hang the test binary.
func within(t *testing.T, d time.Duration, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		t.Fatalf("still running after %v", d)
		return nil
	}
}

// allocDuring returns the bytes allocated (runtime.MemStats.TotalAlloc)
// while f runs; the tests of the package do not run in parallel.
func allocDuring(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// deflated returns head followed by n zero bytes, gzipped (or, with zl,
// zlib-compressed), written in chunks so the test never holds them.
func deflated(t testing.TB, head []byte, n int64, zl bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	var w interface {
		Write([]byte) (int, error)
		Close() error
	}
	if zl {
		w = zlib.NewWriter(&buf)
	} else {
		w = gzip.NewWriter(&buf)
	}
	w.Write(head)
	zero := make([]byte, 1<<20)
	for n > 0 {
		k := min(n, int64(len(zero)))
		w.Write(zero[:k])
		n -= k
	}
	w.Close()
	return buf.Bytes()
}

func wantLimit(t *testing.T, err error, limit string, frags ...string) {
	t.Helper()
	var le *LimitError
	if !errors.As(err, &le) || !errors.Is(err, ErrLimit) || !errors.Is(err, ErrSize) || le.Limit != limit {
		t.Fatalf("error %v, want a *LimitError of %s", err, limit)
	}
	wantErr(t, err, ErrLimit, append(frags, "raise "+limit)...)
	if strings.Contains(err.Error(), "\n") {
		t.Fatalf("error of several lines: %q", err)
	}
}

const maxAlloc = 16 << 20 // what refusing a bomb may allocate

// TestIDXBomb: gzipped IDX files whose honest headers claim more than the
// limits are refused from the header; a stream longer than its header says
// is read no further than the byte limit.
func TestIDXBomb(t *testing.T) {
	dir := t.TempDir()
	// 100000 images of 28x28: 78.4 MB of zeros in 76 KB.
	head := idxBytes(idxImagesMagic, []uint32{100000, 28, 28}, nil)
	p := writeFile(t, dir, "bomb.gz", deflated(t, head, 100000*28*28, false))
	lab := writeFile(t, dir, "labels", idxBytes(idxLabelsMagic, []uint32{1}, []byte{0}))
	var err error
	alloc := allocDuring(func() { _, err = (IDX{Images: p, Labels: lab}).Load(context.Background()) })
	wantLimit(t, err, imageset.LimitFileBytes, p, "100000x28x28", "78400000 bytes per file")
	if alloc > maxAlloc {
		t.Fatalf("allocated %d MB to refuse it", alloc>>20)
	}
	// Within the bytes, over the values and the pixels per image.
	_, err = (IDX{Images: p, Labels: lab, Limits: Limits{FileBytes: 1 << 30, TotalValues: 1 << 20}}).Load(context.Background())
	wantLimit(t, err, imageset.LimitValues, "100000x28x28")
	_, err = (IDX{Images: p, Labels: lab, Limits: Limits{FileBytes: 1 << 30, PixelsPerImage: 783}}).Load(context.Background())
	wantLimit(t, err, imageset.LimitPixels, "784 pixels per image")
	// Eight million images of one pixel: few bytes, but a row and a label
	// each (ItemCost).
	tiny := writeFile(t, dir, "tiny.gz", deflated(t, idxBytes(idxImagesMagic, []uint32{8e6, 1, 1}, nil), 8e6, false))
	alloc = allocDuring(func() { _, err = (IDX{Images: tiny, Labels: lab}).Load(context.Background()) })
	wantLimit(t, err, imageset.LimitValues, "8000000x1x1", "72000000 values")
	if alloc > maxAlloc {
		t.Fatalf("allocated %d MB to refuse it", alloc>>20)
	}
	// One image, then 4 MB of zeros: the trailing bytes are counted only
	// up to the limit.
	one := writeFile(t, dir, "one.gz", deflated(t, idxBytes(idxImagesMagic, []uint32{1, 1, 1}, []byte{7}), 4<<20, false))
	alloc = allocDuring(func() {
		_, err = (IDX{Images: one, Labels: lab, Limits: Limits{FileBytes: 1 << 20}}).Load(context.Background())
	})
	wantLimit(t, err, imageset.LimitFileBytes, one, "more than 1048576 bytes per file")
	if alloc > maxAlloc {
		t.Fatalf("allocated %d MB to refuse it", alloc>>20)
	}
	// Limits of math.MaxInt64 mean none.
	huge := Limits{PixelsPerImage: math.MaxInt64, ImagesPerSet: math.MaxInt64, TotalValues: math.MaxInt64, FileBytes: math.MaxInt64}
	small := writeFile(t, dir, "small.gz", gz(idxBytes(idxImagesMagic, []uint32{1, 2, 2}, []byte{1, 2, 3, 4})))
	if ds, err := (IDX{Images: small, Labels: lab, Limits: huge}).Load(context.Background()); err != nil || ds.Len() != 1 {
		t.Fatalf("no limits: %v", err)
	}
	// A raw file over the byte limit is refused from its size.
	raw := writeFile(t, dir, "raw", idxBytes(idxImagesMagic, []uint32{4, 4, 4}, make([]byte, 64)))
	_, err = (IDX{Images: raw, Labels: lab, Limits: Limits{FileBytes: 75}}).Load(context.Background())
	wantLimit(t, err, imageset.LimitFileBytes, "file size", "80 bytes")
}

// TestMATBomb: a zlib-compressed miMATRIX element whose honest tag claims
// 80 MB (from 80 KB).
func TestMATBomb(t *testing.T) {
	w := newMAT(binary.LittleEndian, false)
	var flags [8]byte
	binary.LittleEndian.PutUint32(flags[:], mxDOUBLE)
	const n, d = 80000, 1000
	body := w.elem(nil, miUINT32, flags[:])
	body = w.elem(body, miINT32, binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(nil, n), d))
	body = w.elem(body, miINT8, []byte("fea"))
	body = binary.LittleEndian.AppendUint32(body, miUINT8)
	body = binary.LittleEndian.AppendUint32(body, n*d)
	head := binary.LittleEndian.AppendUint32(nil, miMATRIX)
	head = binary.LittleEndian.AppendUint32(head, uint32(len(body)+n*d))
	z := deflated(t, append(head, body...), n*d, true)
	file := append([]byte{}, w.bytes()...)
	file = binary.LittleEndian.AppendUint32(file, miCOMPRESSED)
	file = binary.LittleEndian.AppendUint32(file, uint32(len(z)))
	file = append(file, z...)
	p := writeFile(t, t.TempDir(), "bomb.mat", file)
	var err error
	alloc := allocDuring(func() { _, err = (MAT{File: p}).Load(context.Background()) })
	wantLimit(t, err, imageset.LimitFileBytes, p, "compressed element")
	if alloc > maxAlloc {
		t.Fatalf("allocated %d MB to refuse it", alloc>>20)
	}
	_, err = ReadMAT(context.Background(), p, Limits{FileBytes: 1 << 30, TotalValues: n*d - 1})
	wantLimit(t, err, imageset.LimitValues, `variable "fea" [80000 1000]`, "80000000 values")
	// A small file over the values and the pixels.
	w = newMAT(binary.LittleEndian, true)
	yaleLike(w, miUINT8, miUINT8)
	p = writeFile(t, t.TempDir(), "y.mat", w.bytes())
	_, err = (MAT{File: p, Limits: Limits{TotalValues: 13}}).Load(context.Background())
	wantLimit(t, err, imageset.LimitValues, "14 values")
	_, err = (MAT{File: p, Limits: Limits{PixelsPerImage: 5}}).Load(context.Background())
	wantLimit(t, err, imageset.LimitPixels, "6 pixels per image")
	// The stored arrays hold 14 values; the 2 images cost 2*(6+8).
	_, err = (MAT{File: p, Limits: Limits{TotalValues: 27}}).Load(context.Background())
	wantLimit(t, err, imageset.LimitValues, "28 values")
	if _, err := (MAT{File: p, Limits: Limits{TotalValues: 28, PixelsPerImage: 6}}).Load(context.Background()); err != nil {
		t.Fatalf("at the limits: %v", err)
	}
}

// TestCSVBomb: a gzipped CSV stream is parsed no further than the byte
// limit, and its values and pixels per line are bounded too.
func TestCSVBomb(t *testing.T) {
	dir := t.TempDir()
	line := "0,0,0,0,0,0,0,1\n"
	text := []byte(strings.Repeat(line, (4<<20)/len(line)))
	p := writeFile(t, dir, "bomb.csv.gz", gz(text))
	var err error
	alloc := allocDuring(func() { _, err = (CSV{File: p, Limits: Limits{FileBytes: 1 << 20}}).Load(context.Background()) })
	wantLimit(t, err, imageset.LimitFileBytes, p, "data after decompression")
	if alloc > 4*maxAlloc {
		t.Fatalf("allocated %d MB to refuse it", alloc>>20)
	}
	// Lines of 7 pixels cost 7+8 values: line 47 is one too many.
	_, err = (CSV{File: p, Limits: Limits{TotalValues: 700}}).Load(context.Background())
	wantLimit(t, err, imageset.LimitValues, "line 47", "705 values")
	_, err = (CSV{File: p, Limits: Limits{PixelsPerImage: 6}}).Load(context.Background())
	wantLimit(t, err, imageset.LimitPixels, "line 1", "7 pixels per image")
}

func TestNPYBomb(t *testing.T) {
	dir := t.TempDir()
	shape := []int{1, 1024, 256} // 2 MiB of float64
	p := writeFile(t, dir, "d.npy.gz", deflated(t, npyBytes("<f8", false, shape, nil), 1024*256*8, false))
	l := writeFile(t, dir, "l.npy", npyBytes("<i8", false, []int{1}, i64le([]int64{1})))
	var err error
	alloc := allocDuring(func() {
		_, err = (NPY{Data: p, Labels: l, Limits: Limits{FileBytes: 1 << 20}}).Load(context.Background())
	})
	wantLimit(t, err, imageset.LimitFileBytes, "npy shape [1 1024 256]", "2097152 bytes")
	if alloc > maxAlloc {
		t.Fatalf("allocated %d MB to refuse it", alloc>>20)
	}
	_, err = (NPY{Data: p, Labels: l, Limits: Limits{TotalValues: 1 << 10}}).Load(context.Background())
	wantLimit(t, err, imageset.LimitValues, "262144 values")
}

// TestResizeLimit: a resize target is checked before anything is read, and
// the resized values before they are allocated (-resize 2048x2048 on 4x4
// CSV images used to take 5.8 GB).
func TestResizeLimit(t *testing.T) {
	_, err := CSV{File: filepath.Join(t.TempDir(), "missing.csv"), Resize: Size{Height: 2048, Width: 2049}}.Load(context.Background())
	wantLimit(t, err, imageset.LimitPixels, "resize to 2048x2049")
	var b strings.Builder
	for i := range 40 {
		b.WriteString(strings.Repeat("1,", 16))
		b.WriteString(string(rune('0' + i%2)))
		b.WriteString("\n")
	}
	p := writeFile(t, t.TempDir(), "d.csv", []byte(b.String()))
	alloc := allocDuring(func() {
		_, err = CSV{File: p, Width: 4, Height: 4, PixelMax: 1, Resize: Size{Height: 2048, Width: 2048}}.Load(context.Background())
	})
	wantLimit(t, err, imageset.LimitValues, "resize to 2048x2048 of 40 images")
	if alloc > maxAlloc {
		t.Fatalf("allocated %d MB to refuse it", alloc>>20)
	}
	ds, err := CSV{File: p, Width: 4, Height: 4, PixelMax: 1, Resize: Size{Height: 2, Width: 2}}.Load(context.Background())
	if err != nil || ds.Dim != 4 {
		t.Fatalf("small resize: %v", err)
	}
}

// TestGzipMessage: a broken gzip checksum is reported once as such, not as
// "gzip: gzip: invalid checksum".
func TestGzipMessage(t *testing.T) {
	b := gz(idxBytes(idxImagesMagic, []uint32{1, 2, 2}, []byte{1, 2, 3, 4}))
	b[len(b)-8] ^= 0xff // CRC-32
	p := writeFile(t, t.TempDir(), "x.gz", b)
	_, err := (IDX{Images: p, Labels: p}).Load(context.Background())
	wantErr(t, err, ErrFormat, "gzip: invalid checksum")
	if strings.Contains(err.Error(), "gzip: gzip") {
		t.Fatalf("doubled prefix: %v", err)
	}
}

// TestSpecialFiles: a FIFO, a device or a folder given as a data file is
// refused at once, without blocking.
func TestSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	good := writeFile(t, dir, "good.csv", []byte("1,2,0\n"))
	for _, spec := range []string{
		"csv:" + fifo, "idx:" + fifo + "," + good, "mat:" + fifo, "npy:" + fifo + "," + good,
		"folder:" + fifo, "csv:/dev/null", "csv:" + dir, "mat:" + dir,
	} {
		if strings.Contains(spec, "/dev/null") {
			if _, err := os.Stat("/dev/null"); err != nil {
				continue
			}
		}
		err := within(t, 5*time.Second, func() error {
			src, err := ParseSource(spec)
			if err != nil {
				t.Fatal(err)
			}
			_, err = src.Load(context.Background())
			return err
		})
		if !errors.Is(err, ErrNotRegular) {
			t.Fatalf("%s: error %v, want ErrNotRegular", spec, err)
		}
		if strings.Contains(err.Error(), "\n") {
			t.Fatalf("%s: error of several lines: %q", spec, err)
		}
	}
	_, err := ReadMAT(context.Background(), fifo, Limits{})
	if !errors.Is(err, ErrNotRegular) {
		t.Fatalf("ReadMAT: %v", err)
	}
}

// TestCancel: every loader stops with the context's error; a long CSV load
// stops within a second of the cancellation.
func TestCancel(t *testing.T) {
	dir := t.TempDir()
	csvText := []byte(strings.Repeat("0.5,0.25,1,2,3,4,5,6,7,8,9,1\n", 1<<19)) // 15 MB
	csvPath := writeFile(t, dir, "big.csv", csvText)
	idxPath := writeFile(t, dir, "i", idxBytes(idxImagesMagic, []uint32{1, 1, 1}, []byte{1}))
	labPath := writeFile(t, dir, "l", idxBytes(idxLabelsMagic, []uint32{1}, []byte{1}))
	w := newMAT(binary.LittleEndian, true)
	yaleLike(w, miDOUBLE, miUINT8)
	matPath := writeFile(t, dir, "y.mat", w.bytes())
	npyD := writeFile(t, dir, "d.npy", npyBytes("<f8", false, []int{2, 3, 2}, f64le(twoBases())))
	npyL := writeFile(t, dir, "l.npy", npyBytes("<i8", false, []int{2}, i64le([]int64{1, 2})))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, spec := range []string{"csv:" + csvPath, "idx:" + idxPath + "," + labPath, "mat:" + matPath, "npy:" + npyD + "," + npyL} {
		src, err := ParseSource(spec)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := src.Load(ctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("%s: error %v, want context.Canceled", spec, err)
		}
		if _, err := src.Load(context.Background()); err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
	}
	ctx, cancel = context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := (CSV{File: csvPath}).Load(ctx)
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
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
}

// endless returns gzip(head + n bytes of unit repeated), written in
// chunks so the test never holds the decompressed text.
func endless(t testing.TB, head string, unit string, n int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write([]byte(head))
	chunk := []byte(strings.Repeat(unit, (1<<20)/len(unit)))
	for n > 0 {
		k := min(n, int64(len(chunk)))
		w.Write(chunk[:k])
		n -= k
	}
	w.Close()
	return buf.Bytes()
}

// TestCSVEndlessLine: a small gzip CSV that inflates to one line of 64 MB
// (just under the byte limit: 19 million numeric fields) is refused in
// well under 2 s with well under 200 MB allocated (it used to take 2.6-2.9
// GB and 30-40 s), by the pixel limit, naming the line; and
// its siblings, an endless field, an endless quoted field, an endless
// header and a file of empty lines, end as quickly and as cheaply, each
// with its one-line error.
func TestCSVEndlessLine(t *testing.T) {
	dir := t.TempDir()
	const n = 64<<20 - 64 // under the default 64 MiB of decompressed bytes
	cases := []struct {
		name, head, unit string
		opt              CSV
		check            func(t *testing.T, err error)
	}{
		{"fields", "", "0.25,1,", CSV{}, func(t *testing.T, err error) {
			wantLimit(t, err, imageset.LimitPixels, "line 1", "pixels per image")
		}},
		{"fields of a later line", "1,2,3,0\n", "7,", CSV{}, func(t *testing.T, err error) {
			wantErr(t, err, ErrSize, "line 2", "fields, want 4")
		}},
		{"one field", "", "1234567", CSV{}, func(t *testing.T, err error) {
			wantErr(t, err, ErrFormat, "line 1", "longer than 65536 bytes")
		}},
		{"quoted field", "1,\"", "ab,\n\"\"", CSV{}, func(t *testing.T, err error) {
			wantErr(t, err, ErrFormat, "longer than 65536 bytes")
		}},
		{"header", "", "name,", CSV{Header: true}, func(t *testing.T, err error) {
			wantLimit(t, err, imageset.LimitPixels, "line 1")
		}},
		{"empty lines", "", "\n\r\n", CSV{}, func(t *testing.T, err error) {
			wantErr(t, err, ErrSize, "no data")
		}},
		{"no labels", "", "3,", CSV{Label: LabelNone}, func(t *testing.T, err error) {
			wantLimit(t, err, imageset.LimitPixels, "line 1")
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			gzb := endless(t, c.head, c.unit, n)
			p := writeFile(t, dir, "endless.csv.gz", gzb)
			opt := c.opt
			opt.File = p
			var err error
			c0, _ := cpuTime()
			t0 := time.Now()
			alloc := allocDuring(func() { _, err = opt.Load(context.Background()) })
			took := time.Since(t0)
			// The bound is on the CPU time the load took (the wall clock
			// where it is not known), which other work on the machine does
			// not stretch; the wall clock only catches a hang.
			cpu, ok := cpuTime()
			cpu -= c0
			if !ok {
				cpu = took
			}
			t.Logf("%d KB of gzip, 64 MB inflated: %v (CPU %v), %d MB allocated: %v", len(gzb)>>10, took.Round(time.Millisecond), cpu.Round(time.Millisecond), alloc>>20, err)
			c.check(t, err)
			if cpu > 2*time.Second || took > 30*time.Second || alloc > 200<<20 {
				t.Errorf("took %v (CPU %v) and %d MB, want under 2 s of CPU and 200 MB", took, cpu, alloc>>20)
			}
		})
	}
	// A line of 7 fields over a pixel limit of 5 is refused with its count.
	p := writeFile(t, dir, "seven.csv", []byte("1,2,3,4,5,6,0\n"))
	_, err := CSV{File: p, Limits: Limits{PixelsPerImage: 5}}.Load(context.Background())
	wantLimit(t, err, imageset.LimitPixels, "line 1", "6 pixels per image")
}

// TestNPYHeaderBounded: a header length field alone allocates nothing:
// a file that claims a 64 KB header and ends is refused as short, having
// allocated in proportion to what it holds.
func TestNPYHeaderBounded(t *testing.T) {
	b := append([]byte(npyMagic), 2, 0, 0xff, 0xff, 0, 0)
	b = append(b, "{'descr'"...)
	p := writeFile(t, t.TempDir(), "h.npy", b)
	var err error
	alloc := allocDuring(func() { _, err = NPY{Data: p}.Load(context.Background()) })
	if err == nil || alloc > maxAlloc {
		t.Fatalf("error %v, %d bytes allocated", err, alloc)
	}
	wantErr(t, err, ErrSize, "npy header")
}
