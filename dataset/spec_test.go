package dataset

import (
	"encoding/binary"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseSpec(t *testing.T) {
	good := map[string]Spec{
		"idx:a.gz,b.gz":   {"idx", []string{"a.gz", "b.gz"}},
		"folder:/x/eth":   {"folder", []string{"/x/eth"}},
		"mat:C:/y.mat":    {"mat", []string{"C:/y.mat"}},
		"npy:d.npy,l.npy": {"npy", []string{"d.npy", "l.npy"}},
		"csv:d.csv.gz":    {"csv", []string{"d.csv.gz"}},
	}
	for s, want := range good {
		got, err := ParseSpec(s)
		if err != nil || got.Scheme != want.Scheme || strings.Join(got.Paths, "|") != strings.Join(want.Paths, "|") {
			t.Errorf("ParseSpec(%q) = %v, %v; want %v", s, got, err, want)
		}
		if got.String() != s {
			t.Errorf("String() = %q, want %q", got.String(), s)
		}
	}
	bad := map[string]string{
		"mnist":     "want SCHEME:PATH",
		"png:x":     `unknown scheme "png"`,
		"idx:a":     "idx needs 2 path(s) idx:IMAGES,LABELS, got 1",
		"idx:a,":    "empty LABELS",
		"csv:a,b":   "csv needs 1 path(s)",
		"folder:":   "empty DIR",
		"npy:a,b,c": "got 3",
		"":          "want SCHEME:PATH",
		"IDX:a,b":   "unknown scheme",
	}
	for s, frag := range bad {
		_, err := ParseSpec(s)
		if !errors.Is(err, ErrSpec) || !strings.Contains(err.Error(), frag) {
			t.Errorf("ParseSpec(%q) error %v, want ErrSpec mentioning %q", s, err, frag)
		}
	}
	if _, err := Load("csv:"+filepath.Join(t.TempDir(), "none.csv"), Options{}); err == nil {
		t.Error("Load of a missing file: no error")
	}
}

func TestSizeSet(t *testing.T) {
	var s Size
	if err := s.Set("20X24"); err != nil || s != (Size{Height: 20, Width: 24}) || s.String() != "20x24" {
		t.Fatalf("Set(20X24): %v, %+v", err, s)
	}
	for _, v := range []string{"32", "0x4", "ax3", "3x", "-1x2", "32768x32769"} {
		if err := s.Set(v); err == nil {
			t.Errorf("Set(%q): no error", v)
		}
	}
	if (&Size{}).String() != "" {
		t.Error("zero Size: not \"\"")
	}
}

func TestLoadSpec(t *testing.T) {
	dir := t.TempDir()
	// MAT via spec with flags: transpose, pixel max, resize 2x3 -> 1x1.
	w := newMAT(binary.LittleEndian, true)
	yaleLike(w, miDOUBLE, miDOUBLE)
	p := writeFile(t, dir, "y.mat", w.bytes())
	ds, err := Load("mat:"+p, Options{Shape: Size{2, 3}, MATTranspose: true, PixelMax: 255})
	if err != nil {
		t.Fatal(err)
	}
	if ds.Images[1][4] != 111.0/255 {
		t.Fatalf("image 1 = %v", ds.Images[1])
	}
	r, err := Load("mat:"+p, Options{Shape: Size{2, 3}, MATTranspose: true, PixelMax: 255, Resize: Size{1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Dim != 1 || r.Width != 1 || len(r.Images[0]) != 1 || r.Labels[0] != ds.Labels[0] {
		t.Fatalf("resized: %+v", r)
	}
	// Resizing needs [0, 1] pixels and a known shape.
	_, err = Load("mat:"+p, Options{Shape: Size{2, 3}, MATTranspose: true, Resize: Size{1, 1}})
	if err == nil || !strings.Contains(err.Error(), "pixel max") {
		t.Fatalf("resize of 0..255 data: %v", err)
	}
	_, err = Load("mat:"+p, Options{Resize: Size{1, 1}})
	if err == nil || !strings.Contains(err.Error(), "shape unknown") {
		t.Fatalf("resize without shape: %v", err)
	}
	// CSV and npy through the spec.
	cp := writeFile(t, dir, "d.csv", []byte("1,2,3,4,0\n5,6,7,8,1\n"))
	ds, err = Load("csv:"+cp, Options{Shape: Size{2, 2}, PixelMax: 8})
	if err != nil || ds.Images[1][3] != 1 || ds.Height != 2 {
		t.Fatalf("csv: %v %v", err, ds)
	}
	dp := writeFile(t, dir, "b.npy", npyBytes("<f8", false, []int{2, 3, 2}, f64le(twoBases())))
	lp := writeFile(t, dir, "l.npy", npyBytes("<i8", false, []int{2}, i64le([]int64{0, 1})))
	if ds, err = Load("npy:"+dp+","+lp, Options{}); err != nil || ds.SubDim != 2 {
		t.Fatalf("npy: %v", err)
	}
	if _, err = Load("npy:"+dp+","+lp, Options{Resize: Size{2, 2}}); err == nil {
		t.Fatal("resizing bases: no error")
	}
}
