package model

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/grlgq/grlgq/internal/safefile"
)

// TestLoadConfigLimits: a config field outside the range Train accepts is
// refused at load even under a valid checksum, naming the field.
func TestLoadConfigLimits(t *testing.T) {
	good := modelBytes(t, trainedModel(t, RelevanceGlobal))
	cfg := headerSize // the config starts the payload
	f64 := func(off int, v float64) []byte {
		b := append([]byte(nil), good...)
		binary.LittleEndian.PutUint64(b[cfg+off:], math.Float64bits(v))
		return reseal(b)
	}
	u32 := func(off int, v uint32) []byte {
		b := append([]byte(nil), good...)
		binary.LittleEndian.PutUint32(b[cfg+off:], v)
		return reseal(b)
	}
	cases := []struct {
		field string
		data  []byte
	}{
		{"StepEvery", u32(8, 1<<30)},
		{"StepEvery", u32(8, 0)},
		{"Epochs", u32(12, 1<<30)},
		{"Patience", u32(16, 1<<30)},
		{"InitNoise", f64(24, 1e308)},
		{"Eta", f64(32, 1e308)},
		{"Eta", f64(32, 0)},
		{"Gamma", f64(40, 1e308)},
		{"Tau", f64(48, 1e308)},
		{"Beta", f64(56, 1e308)},
		{"RelevanceFloor", f64(64, math.Inf(-1))},
		{"ValidationFraction", f64(72, 1e308)},
		{"Temperature", f64(80, 1e308)},
		{"Temperature", f64(80, math.NaN())},
		{"RejectMargin", f64(88, 1e308)},
	}
	for _, c := range cases {
		m, err := Load(bytes.NewReader(c.data))
		if m != nil || !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s out of range: model %v, error %v; want ErrCorrupt naming the field", c.field, m != nil, err)
		}
	}
	if _, err := Load(bytes.NewReader(good)); err != nil {
		t.Fatalf("the unmodified model: %v", err)
	}
}

// TestLoadTrailingBytes: LoadFile and UnmarshalBinary, whose input is one
// model, refuse bytes after the checksum; Load leaves them (TestLoadStream).
func TestLoadTrailingBytes(t *testing.T) {
	good := modelBytes(t, trainedModel(t, RelevanceGlobal))
	for _, extra := range [][]byte{{0}, []byte("trailing garbage\n"), good, make([]byte, 1<<20+1)} {
		b := append(append([]byte(nil), good...), extra...)
		if err := new(Model).UnmarshalBinary(b); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), fmt.Sprintf(": %d bytes after the checksum", len(extra))) {
			t.Errorf("UnmarshalBinary with %d trailing bytes: %v", len(extra), err)
		}
		p := filepath.Join(t.TempDir(), "m.grlgq")
		os.WriteFile(p, b, 0o644)
		want := fmt.Sprintf(": %d bytes after the checksum", len(extra))
		if len(extra) > 1<<20 {
			want = fmt.Sprintf(": %d or more bytes after the checksum", 1<<20)
		}
		if _, err := LoadFile(p); !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), want) {
			t.Errorf("LoadFile with %d trailing bytes: %v", len(extra), err)
		}
	}
}

// TestLoadStream: Load reads one model and leaves the rest of the reader
// unread, byte for byte, for models of every file version saved one
// after the other (read in one piece or a byte at a time); at the end of
// the stream it reports io.EOF (with ErrTruncated), and a stream cut
// inside a model is ErrTruncated, not io.EOF.
func TestLoadStream(t *testing.T) {
	g := trainedModel(t, RelevanceGlobal)
	l := trainedModel(t, RelevanceLocal)
	f32, err := g.WithPrecision(Float32) // version 3
	if err != nil {
		t.Fatal(err)
	}
	v1, err := os.ReadFile(filepath.Join("testdata", "v1-global.grlgq"))
	if err != nil {
		t.Fatal(err)
	}
	files := [][]byte{modelBytes(t, g), modelBytes(t, l), modelBytes(t, f32), v1, modelBytes(t, g)}
	var stream []byte
	for _, b := range files {
		stream = append(stream, b...)
	}
	tail := []byte("not a model")
	stream = append(stream, tail...)
	for _, oneByte := range []bool{false, true} {
		br := bytes.NewReader(stream)
		var r io.Reader = br
		if oneByte {
			r = iotest.OneByteReader(br)
		}
		left := len(stream)
		for i, want := range files {
			m, err := Load(r)
			if err != nil {
				t.Fatalf("one byte %v: model %d: %v", oneByte, i, err)
			}
			if left -= len(want); br.Len() != left {
				t.Fatalf("one byte %v: model %d: %d bytes left, want %d", oneByte, i, br.Len(), left)
			}
			if i != 3 && !bytes.Equal(modelBytes(t, m), want) {
				t.Fatalf("one byte %v: model %d differs", oneByte, i)
			}
		}
		if rest, _ := io.ReadAll(r); !bytes.Equal(rest, tail) {
			t.Fatalf("one byte %v: rest %q, want %q", oneByte, rest, tail)
		}
		if _, err := Load(r); !errors.Is(err, ErrTruncated) || !errors.Is(err, io.EOF) {
			t.Errorf("one byte %v: Load at the end: %v, want ErrTruncated and io.EOF", oneByte, err)
		}
	}
	for _, cut := range []int{1, headerSize, headerSize + 1, len(files[0]) - 1} {
		r := bytes.NewReader(stream[:len(files[0])+cut])
		if _, err := Load(r); err != nil {
			t.Fatal(err)
		}
		if _, err := Load(r); !errors.Is(err, ErrTruncated) || errors.Is(err, io.EOF) {
			t.Errorf("cut %d bytes into the second model: %v, want ErrTruncated without io.EOF", cut, err)
		}
	}
}

// TestLoadHostileStream: a header declaring a payload of 1 GiB, followed
// by a few MiB, reads only what is there (ErrTruncated) and allocates in
// proportion to it, never the declared size.
func TestLoadHostileStream(t *testing.T) {
	good := modelBytes(t, trainedModel(t, RelevanceGlobal))
	h := append([]byte(nil), good[:headerSize]...)
	binary.LittleEndian.PutUint32(h[12:], 1<<20) // D
	binary.LittleEndian.PutUint32(h[16:], 32)    // d
	binary.LittleEndian.PutUint32(h[20:], 2)     // p
	binary.LittleEndian.PutUint32(h[24:], 2)     // C
	binary.LittleEndian.PutUint32(h[28:], 0)     // no names, no counts
	declared := configSize + 8 + 8*32 + 8*2*(1<<20)*32
	binary.LittleEndian.PutUint64(h[40:], uint64(declared))
	if declared <= 1<<29 {
		t.Fatalf("declared payload of %d bytes: not hostile", declared)
	}
	const have = 4 << 20
	r := io.MultiReader(bytes.NewReader(h), io.LimitReader(zeros{}, have))
	var before, after runtimeMem
	before.read()
	_, err := Load(r)
	after.read()
	if !errors.Is(err, ErrTruncated) || !strings.Contains(err.Error(), fmt.Sprintf("%d of %d bytes", have, declared+4)) {
		t.Fatalf("error %v, want ErrTruncated naming %d of %d bytes", err, have, declared+4)
	}
	// The bound holds without the race detector (the suite's own run);
	// under it the process's allocations while Load runs (its
	// instrumentation, the other tests' goroutines) are no measure of Load.
	if grew := after.total - before.total; grew > 4*have && !raceEnabled {
		t.Errorf("Load allocated %d bytes for a %d-byte stream", grew, headerSize+have)
	}
}

// zeros is an endless reader of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestSaveFileRefuses: SaveFile goes through safefile: it never replaces a
// device, a symbolic link or a read-only file, and LoadFile refuses a
// non-regular file.
func TestSaveFileRefuses(t *testing.T) {
	m := trainedModel(t, RelevanceGlobal)
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("keep"), 0o644)
	link := filepath.Join(dir, "link")
	os.Symlink(target, link)
	ro := filepath.Join(dir, "ro")
	os.WriteFile(ro, []byte("keep"), 0o444)
	for path, want := range map[string]error{link: safefile.ErrSymlink, ro: safefile.ErrReadOnly, dir: safefile.ErrNotRegular} {
		if err := m.SaveFile(path); !errors.Is(err, want) {
			t.Errorf("SaveFile(%s) = %v, want %v", path, err, want)
		}
	}
	if fi, err := os.Stat(os.DevNull); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		if err := m.SaveFile(os.DevNull); !errors.Is(err, safefile.ErrNotRegular) {
			t.Errorf("SaveFile(%s) = %v", os.DevNull, err)
		}
		if _, err := LoadFile(os.DevNull); !errors.Is(err, safefile.ErrNotRegular) {
			t.Errorf("LoadFile(%s) = %v", os.DevNull, err)
		}
	}
	for _, p := range []string{target, ro} {
		if b, _ := os.ReadFile(p); string(b) != "keep" {
			t.Errorf("%s changed: %q", p, b)
		}
	}
	if _, err := LoadFile(dir); !errors.Is(err, safefile.ErrNotRegular) {
		t.Errorf("LoadFile(folder) = %v", err)
	}
}
