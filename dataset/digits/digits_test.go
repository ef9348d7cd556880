package digits

import (
	"bytes"
	"compress/gzip"
	"io"
	"testing"
)

func TestLoad(t *testing.T) {
	ds, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Images) != 1797 || len(ds.Labels) != 1797 || ds.Dim != 64 || ds.Width != 8 || len(ds.Classes) != 10 {
		t.Fatalf("got %d images, %d labels, D=%d, %d classes", len(ds.Images), len(ds.Labels), ds.Dim, len(ds.Classes))
	}
	var counts [10]int
	for i, img := range ds.Images {
		for _, v := range img {
			if v < 0 || v > 1 {
				t.Fatalf("image %d: pixel %g outside [0, 1]", i, v)
			}
		}
		counts[ds.Labels[i]]++
	}
	for c, n := range counts {
		if n < 170 || ds.Classes[c] != string(rune('0'+c)) {
			t.Errorf("class %d (%q) has %d digits", c, ds.Classes[c], n)
		}
	}
	again, _ := Load()
	again.Images[0][0] = 7
	if ds.Images[0][0] == 7 {
		t.Error("two loads share their pixels")
	}
	zr, err := gzip.NewReader(bytes.NewReader(CSV()))
	if err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(zr); err != nil || bytes.Count(b, []byte("\n")) != 1797 {
		t.Fatalf("CSV: %d lines, %v", bytes.Count(b, []byte("\n")), err)
	}
}
