package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// zeroPNG writes a w x h gray PNG of zeros (an 8000x8000 one is 62 KB).
func zeroPNG(t *testing.T, path string, w, h int) {
	t.Helper()
	var b bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestInputLimits: hostile inputs of a few KB are refused before they are
// allocated or decoded, with one line that names the -max-* flag raising
// the limit (exit 1), and the flags move the limits.
func TestInputLimits(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "m.grlgq")
	train := func(args ...string) []string {
		return append([]string{"train", "-d", "2", "-epochs", "1", "-o", out}, args...)
	}

	// A header bomb: the first PNG of a set says 8000x8000, then 99 empty
	// .png files (issue 10: a Go out-of-memory crash).
	hdr := filepath.Join(dir, "hdr")
	zeroPNG(t, filepath.Join(hdr, "a", "s", "000.png"), 8000, 8000)
	for i := 1; i < 100; i++ {
		if err := os.WriteFile(filepath.Join(hdr, "a", "s", fmt.Sprintf("%03d.png", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fails(t, 1, []string{"000.png", "image of 8000x8000", "over the limit of 4194304", "(raise it with -max-pixels)"}, train("-data", "folder:"+hdr)...)
	// Hard links to one small PNG: each within -max-pixels, resized, but
	// decoding them all is over -max-values.
	links := filepath.Join(dir, "links")
	first := filepath.Join(links, "a", "s", "00.png")
	zeroPNG(t, first, 256, 256)
	for i := 1; i < 20; i++ {
		if err := os.Link(first, filepath.Join(links, "a", "s", fmt.Sprintf("%02d.png", i))); err != nil {
			t.Skip(err)
		}
	}
	fails(t, 1, []string{"20 images to decode", "(raise it with -max-values)"}, train("-data", "folder:"+links, "-resize", "4x4", "-max-values", "1000000")...)
	fails(t, 1, []string{"more than 10 images per set", "(raise it with -max-set-images)"}, train("-data", "folder:"+links, "-max-set-images", "10")...)

	// An IDX header that claims 60000x28x28 images in a 16-byte file.
	labels := filepath.Join(dir, "labels")
	var lb bytes.Buffer
	binary.Write(&lb, binary.BigEndian, []uint32{0x801, 60000})
	lb.Write(make([]byte, 60000))
	if err := os.WriteFile(labels, lb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(dir, "hdr-images")
	var ib bytes.Buffer
	binary.Write(&ib, binary.BigEndian, []uint32{0x803, 60000, 28, 28})
	if err := os.WriteFile(idx, ib.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	fails(t, 1, []string{"hdr-images", "60000x28x28"}, train("-data", "idx:"+idx+","+labels)...)
	// The same header, honest, with gzipped zeros: 47 MB from 46 KB, over
	// a lowered -max-file-bytes (the default admits MNIST's 47 MB).
	bomb := filepath.Join(dir, "bomb.gz")
	var gb bytes.Buffer
	g, _ := gzip.NewWriterLevel(&gb, gzip.BestSpeed)
	g.Write(ib.Bytes())
	g.Write(make([]byte, 60000*28*28))
	g.Close()
	if err := os.WriteFile(bomb, gb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	fails(t, 1, []string{"bomb.gz", "over the limit of 1000000", "(raise it with -max-file-bytes)"}, train("-data", "idx:"+bomb+","+labels, "-max-file-bytes", "1000000")...)
	// A gzipped CSV whose lines never end within the limit: the stream is
	// read no further than -max-file-bytes.
	csvBomb := filepath.Join(dir, "bomb.csv.gz")
	gb.Reset()
	g, _ = gzip.NewWriterLevel(&gb, gzip.BestSpeed)
	g.Write(bytes.Repeat([]byte(strings.Repeat("0,", 64)+"1\n"), 1<<16)) // 8 MB
	g.Close()
	if err := os.WriteFile(csvBomb, gb.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	fails(t, 1, []string{"bomb.csv.gz", "(raise it with -max-file-bytes)"}, train("-data", "csv:"+csvBomb, "-image", "8x8", "-max-file-bytes", "100000")...)
	fails(t, 1, []string{"bomb.csv.gz", "(raise it with -max-values)"}, train("-data", "csv:"+csvBomb, "-image", "8x8", "-max-values", "100000")...)

	// Devices are not data.
	if fi, err := os.Stat(os.DevNull); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		fails(t, 1, []string{os.DevNull, "a character device, not a regular file"}, train("-data", "csv:"+os.DevNull)...)
		fails(t, 1, []string{os.DevNull, "a character device, not a regular file"}, "eval", "-model", os.DevNull, "-data", "csv:"+csvBomb)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused run wrote the model")
	}
	noTemps(t, dir)
}

// TestLimitFlags: the -max-* flags have ranges (usage errors, exit 2), and
// -resize is checked against the lower of -max-pixels and a model's D,
// naming the one it exceeds.
func TestLimitFlags(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	writeCSV(t, data, 2, 12, 4)
	base := []string{"train", "-data", "csv:" + data, "-o", filepath.Join(dir, "m")}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-max-pixels", "0"}, "1 to 1073741824"},
		{[]string{"-max-set-images", "-1"}, "1 to 16777216"},
		{[]string{"-max-values", "1e3"}, "1 to 68719476736"},
		{[]string{"-max-file-bytes", "99999999999999999999"}, "1 to 1099511627776"},
		{[]string{"-resize", "20x20", "-max-pixels", "100"}, "the limit is 100 (-max-pixels)"},
		{[]string{"-resize", "2048x2048", "-max-pixels", "100000000"}, "the limit is 1048576 (a model's D)"},
	} {
		fails(t, 2, []string{c.want}, append(base, c.args...)...)
	}
	// The defaults are dataset.DefaultLimits(), as the help says.
	h := helpFlags(t, "train")
	for name, def := range map[string]string{"max-pixels": "4194304", "max-set-images": "65536", "max-values": "67108864", "max-file-bytes": "67108864"} {
		if !strings.Contains(h[name][1], "default "+def) {
			t.Errorf("-%s: help %q, want default %s", name, h[name][1], def)
		}
	}
	// A raised limit admits what the default refuses.
	ok(t, append(base, "-image", "8x8", "-d", "2", "-m", "4", "-epochs", "1", "-quiet", "-max-file-bytes", "1099511627776", "-max-values", "68719476736")...)
}
