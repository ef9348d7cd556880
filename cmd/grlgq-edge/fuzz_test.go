package main

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"runtime"
	"strings"
	"testing"
)

// FuzzReadStdin: no input on stdin makes the reader panic, hang or
// allocate from a declared count; what it accepts, set after set, is sets
// of images of the model's D values each, within maxValues, and a binary
// stream read to its end is exactly its sets (bytes after a binary set
// that do not start another are refused when the next set is read).
func FuzzReadStdin(f *testing.F) {
	const dim = 3
	bin := func(d, m uint32, vals ...float64) []byte {
		var b bytes.Buffer
		b.WriteString(rawMagic)
		binary.Write(&b, binary.LittleEndian, []uint32{d, m})
		binary.Write(&b, binary.LittleEndian, vals)
		return b.Bytes()
	}
	f.Add(bin(dim, 2, 1, 2, 3, 4, 5, 6))
	f.Add(bin(dim, 1<<25, 1, 2, 3))      // a count far beyond the data
	f.Add(bin(dim, 1, 1, 2, 3, 4))       // a trailing value
	f.Add(bin(7, 1, 1, 2, 3))            // another D
	f.Add(bin(dim, 0))                   // no image
	f.Add([]byte(rawMagic + "\x03\x00")) // short header
	f.Add([]byte("1 2 3\n4,5,6\n# comment\n\n7\t8\t9\n"))
	f.Add([]byte("1 2\n"))
	f.Add([]byte("1 2 3\n---\n4 5 6\n"))
	f.Add(append(bin(dim, 1, 1, 2, 3), bin(dim, 1, 4, 5, 6)...))
	f.Add(append(bin(dim, 1, 1, 2, 3), "4 5 6\n"...)) // text after a binary set
	f.Add([]byte("NaN Inf -Inf\n0x1p-3 1e308 -0\n"))
	f.Add([]byte("1 2 x\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) {
		sets := &stdinSets{r: bufio.NewReader(bytes.NewReader(in)), dim: dim}
		var enc bytes.Buffer // the binary sets accepted, encoded again
		for {
			imgs, err := sets.next()
			if err == io.EOF {
				break
			}
			if err != nil {
				if imgs != nil {
					t.Fatalf("error %v with %d images", err, len(imgs))
				}
				return
			}
			if len(imgs) == 0 || len(imgs)*dim > maxValues {
				t.Fatalf("%d images accepted", len(imgs))
			}
			for _, img := range imgs {
				if len(img) != dim {
					t.Fatalf("an image of %d values, want %d", len(img), dim)
				}
			}
			if sets.bin == 0 {
				continue
			}
			enc.WriteString(rawMagic)
			binary.Write(&enc, binary.LittleEndian, []uint32{dim, uint32(len(imgs))})
			for _, img := range imgs {
				for _, v := range img {
					binary.Write(&enc, binary.LittleEndian, math.Float64bits(v))
				}
			}
		}
		// The binary format is exact: only binary sets follow a binary
		// set, so a stream that starts with one and was accepted to its
		// end re-encodes to the input.
		if bytes.HasPrefix(in, []byte(rawMagic)) && !bytes.Equal(enc.Bytes(), in) {
			t.Fatalf("binary input accepted but not reproduced")
		}
	})
}

// TestReadStdinDeclaredCount: a 16-byte header declaring 2^24 images of
// D = 8 allocates by what arrives (one image), not by the count.
func TestReadStdinDeclaredCount(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(rawMagic)
	binary.Write(&b, binary.LittleEndian, []uint32{8, 1 << 24})
	binary.Write(&b, binary.LittleEndian, make([]float64, 8))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := readStdin(bufio.NewReader(bytes.NewReader(b.Bytes())), 8)
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("a set shorter than its header accepted")
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("%d bytes allocated for a %d-byte input", grew, b.Len())
	}
}

// endlessReader repeats unit after head forever, counting what was read.
type endlessReader struct {
	head, unit []byte
	at         int
	read       int64
}

func (e *endlessReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if len(e.head) > 0 {
			k := copy(p[n:], e.head)
			e.head = e.head[k:]
			n += k
			continue
		}
		k := copy(p[n:], e.unit[e.at:])
		e.at = (e.at + k) % len(e.unit)
		n += k
	}
	e.read += int64(n)
	return n, nil
}

// TestReadStdinEndless: the text format on an endless stdin (the
// siblings of the data files' endless-line tests) ends as soon as what it
// has read is wrong: a line with more than D values after its (D+1)-th
// value, an endless value after maxField bytes, each having read and
// allocated a few kilobytes.
func TestReadStdinEndless(t *testing.T) {
	const dim = 3
	cases := []struct {
		name, head, unit, want string
	}{
		{"values", "", "0.25 ", "more than 3 values"},
		{"values after a good line", "1 2 3\n", "7,", "line 2 has more than 3 values"},
		{"one value", "", "1234567", "a value longer than"},
		{"one value after a comment", "# a comment\n", "9", "line 2: a value longer than"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &endlessReader{head: []byte(c.head), unit: []byte(c.unit)}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			imgs, err := readStdin(bufio.NewReader(r), dim)
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v (%d images), want one saying %q", err, len(imgs), c.want)
			}
			grew := after.TotalAlloc - before.TotalAlloc
			t.Logf("%d bytes read, %d allocated: %v", r.read, grew, err)
			if r.read > 1<<20 || grew > 1<<20 {
				t.Errorf("%d bytes read and %d allocated before the error", r.read, grew)
			}
		})
	}
}
