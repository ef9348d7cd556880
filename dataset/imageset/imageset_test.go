package imageset

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/image/draw"
)

func writePNG(t *testing.T, path string, img image.Image) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// grayImage is w x h with pixel (x, y) = seed + 10y + x (8-bit gray).
func grayImage(w, h, seed int) *image.Gray {
	g := image.NewGray(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			g.SetGray(x, y, color.Gray{Y: uint8(seed + 10*y + x)})
		}
	}
	return g
}

// makeTree writes root/<class>/<set>/<k>.png for the given layout, each
// image 4x3 gray with a distinct seed, plus files that must be ignored.
func makeTree(t *testing.T) string {
	root := t.TempDir()
	seed := 0
	for _, c := range []string{"cup", "apple"} {
		for _, s := range []string{"s2", "s10"} {
			for _, f := range []string{"b.png", "a.png", "c.PNG"} {
				writePNG(t, filepath.Join(root, c, c+s, f), grayImage(4, 3, seed))
				seed += 50
			}
		}
	}
	// Ignored: hidden files and folders, non-images, files beside classes,
	// folders inside sets.
	os.WriteFile(filepath.Join(root, "README.txt"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(root, "apple", "apples2", ".DS_Store"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(root, "apple", "apples2", "notes.txt"), []byte("x"), 0o644)
	writePNG(t, filepath.Join(root, ".hidden", "x", "a.png"), grayImage(4, 3, 0))
	writePNG(t, filepath.Join(root, "cup", "cups2", "maps", "a.png"), grayImage(9, 9, 0))
	return root
}

// TestLoadSets: a tree of set folders without class folders is read as
// sets without labels, told apart by LayoutAuto or forced by LayoutSets;
// LayoutClasses refuses it.
func TestLoadSets(t *testing.T) {
	root := t.TempDir()
	for i, s := range []string{"mystery1", "mystery10", "mystery2"} {
		for j, f := range []string{"b.png", "a.png"} {
			writePNG(t, filepath.Join(root, s, f), grayImage(4, 3, 40*i+10*j))
		}
	}
	os.WriteFile(filepath.Join(root, "notes.txt"), []byte("x"), 0o644)
	for _, l := range []Layout{LayoutAuto, LayoutSets} {
		tr, err := Load(context.Background(), root, Options{Layout: l})
		if err != nil {
			t.Fatal(err)
		}
		if tr.Classes != nil || len(tr.Sets) != 3 || tr.Sets[1].Name != "mystery10" || tr.Sets[0].Class != -1 || len(tr.Sets[2].Images) != 2 {
			t.Fatalf("layout %v: classes %v, sets %+v", l, tr.Classes, tr.Sets)
		}
		if want := filepath.Join(root, "mystery1", "a.png"); tr.Sets[0].Files[0] != want || tr.Sets[0].Images[0][0] != 10.0/255 {
			t.Fatalf("first image %s = %v", tr.Sets[0].Files[0], tr.Sets[0].Images[0][0])
		}
	}
	if _, err := Load(context.Background(), root, Options{Layout: LayoutClasses}); !errors.Is(err, ErrLayout) {
		t.Fatalf("classes layout: %v", err)
	}
	// The labelled tree is still read as classes by LayoutAuto.
	tr, err := Load(context.Background(), makeTree(t), Options{})
	if err != nil || len(tr.Classes) != 2 {
		t.Fatalf("labelled tree: %v", err)
	}
	var l Layout
	if err := l.UnmarshalText([]byte("sets")); err != nil || l != LayoutSets || l.String() != "sets" {
		t.Fatalf("layout word: %v %v", l, err)
	}
}

func TestLoad(t *testing.T) {
	root := makeTree(t)
	var first *Tree
	for _, workers := range []int{1, 2, 5} {
		tr, err := Load(context.Background(), root, Options{Workers: workers})
		if err != nil {
			t.Fatal(err)
		}
		if tr.Width != 4 || tr.Height != 3 {
			t.Fatalf("size %dx%d", tr.Width, tr.Height)
		}
		if strings.Join(tr.Classes, " ") != "apple cup" || len(tr.Sets) != 4 {
			t.Fatalf("classes %v, %d sets", tr.Classes, len(tr.Sets))
		}
		// Byte order: "apples10" < "apples2"; "a.png" < "b.png" < "c.PNG".
		s := tr.Sets[0]
		if s.Name != "apples10" || s.Class != 0 || len(s.Files) != 3 || filepath.Base(s.Files[0]) != "a.png" || filepath.Base(s.Files[2]) != "c.PNG" {
			t.Fatalf("set 0 = %s %v", s.Name, s.Files)
		}
		if tr.Sets[3].Name != "cups2" || tr.Sets[3].Class != 1 {
			t.Fatalf("set 3 = %s class %d", tr.Sets[3].Name, tr.Sets[3].Class)
		}
		// apple was written second: seeds 300.. for s2, 450.. for s10;
		// a.png of apples10 is the second file written there (seed 500,
		// wrapped to uint8 244 at pixel 0).
		w8 := func(v int) float64 { return float64(uint8(v)) / 255 }
		if got, want := s.Images[0][0], w8(500); got != want {
			t.Fatalf("pixel = %v, want %v (exactly v/255)", got, want)
		}
		if got, want := s.Images[0][4*2+3], w8(500+23); got != want {
			t.Fatalf("pixel (3,2) = %v, want %v", got, want)
		}
		if first == nil {
			first = tr
			continue
		}
		for i := range tr.Sets {
			for k := range tr.Sets[i].Images {
				for p, v := range tr.Sets[i].Images[k] {
					if v != first.Sets[i].Images[k][p] {
						t.Fatalf("workers=%d: set %d image %d differs", workers, i, k)
					}
				}
			}
		}
	}
}

func TestLoadResize(t *testing.T) {
	root := makeTree(t)
	tr, err := Load(context.Background(), root, Options{Width: 2, Height: 2})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Width != 2 || len(tr.Sets[0].Images[0]) != 4 {
		t.Fatalf("size %dx%d", tr.Width, tr.Height)
	}
	// Same as x/image's Catmull-Rom on the gray image.
	src := grayImage(4, 3, 500)
	dst := image.NewGray16(image.Rect(0, 0, 2, 2))
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Src, nil)
	for p, v := range tr.Sets[0].Images[0] {
		if want := float64(dst.Gray16At(p%2, p/2).Y) / 65535; v != want {
			t.Fatalf("pixel %d = %v, want %v", p, v, want)
		}
	}
}

func TestReadFileJPEG(t *testing.T) {
	dir := t.TempDir()
	var b bytes.Buffer
	jpeg.Encode(&b, grayImage(8, 8, 100), &jpeg.Options{Quality: 100})
	p := filepath.Join(dir, "x.jpg")
	os.WriteFile(p, b.Bytes(), 0o644)
	pix, w, h, err := ReadImage(p, Options{Width: 0, Height: 0})
	if err != nil || w != 8 || h != 8 {
		t.Fatalf("ReadFile: %v %dx%d", err, w, h)
	}
	if d := pix[9] - 111.0/255; d > 3.0/255 || d < -3.0/255 {
		t.Fatalf("jpeg pixel %v, want about %v", pix[9], 111.0/255)
	}
}

func TestLoadErrors(t *testing.T) {
	check := func(t *testing.T, err, kind error, frags ...string) {
		t.Helper()
		if err == nil || !errors.Is(err, kind) {
			t.Fatalf("error %v, want %v", err, kind)
		}
		for _, f := range frags {
			if !strings.Contains(err.Error(), f) {
				t.Fatalf("error %q does not mention %q", err, f)
			}
		}
	}
	t.Run("missing root", func(t *testing.T) {
		_, err := Load(context.Background(), filepath.Join(t.TempDir(), "nope"), Options{})
		check(t, err, fs.ErrNotExist, "nope")
	})
	t.Run("no classes", func(t *testing.T) {
		_, err := Load(context.Background(), t.TempDir(), Options{})
		check(t, err, ErrLayout, "no class folders")
	})
	t.Run("image in class folder", func(t *testing.T) {
		root := t.TempDir()
		writePNG(t, filepath.Join(root, "a", "x.png"), grayImage(2, 2, 0))
		_, err := Load(context.Background(), root, Options{Layout: LayoutClasses})
		check(t, err, ErrLayout, filepath.Join(root, "a", "x.png"), "directly in a class folder")
	})
	t.Run("mixed layouts", func(t *testing.T) {
		root := t.TempDir()
		writePNG(t, filepath.Join(root, "a", "x.png"), grayImage(2, 2, 0))
		writePNG(t, filepath.Join(root, "b", "s", "x.png"), grayImage(2, 2, 0))
		_, err := Load(context.Background(), root, Options{})
		check(t, err, ErrLayout, "mixes class folders")
		writePNG(t, filepath.Join(root, "a", "s", "y.png"), grayImage(2, 2, 0))
		_, err = Load(context.Background(), root, Options{})
		check(t, err, ErrLayout, filepath.Join(root, "a"), "both images and folders")
	})
	t.Run("empty set", func(t *testing.T) {
		root := t.TempDir()
		os.MkdirAll(filepath.Join(root, "a", "s"), 0o755)
		os.WriteFile(filepath.Join(root, "a", "s", "x.txt"), nil, 0o644)
		_, err := Load(context.Background(), root, Options{})
		check(t, err, ErrLayout, filepath.Join(root, "a", "s"), "without PNG or JPEG")
	})
	t.Run("class without sets", func(t *testing.T) {
		root := makeTree(t)
		os.MkdirAll(filepath.Join(root, "zebra"), 0o755)
		_, err := Load(context.Background(), root, Options{})
		check(t, err, ErrLayout, "zebra", "without set folders")
	})
	t.Run("sizes differ", func(t *testing.T) {
		root := makeTree(t)
		p := filepath.Join(root, "cup", "cups2", "b.png")
		writePNG(t, p, grayImage(5, 3, 0))
		_, err := Load(context.Background(), root, Options{})
		// Sizes are written HxW, as -resize takes them (FormatSize).
		check(t, err, ErrSize, p, "3x5 pixels, the first image has 3x4")
		if _, err := Load(context.Background(), root, Options{Width: 4, Height: 3}); err != nil {
			t.Fatalf("with a target size: %v", err)
		}
	})
	t.Run("corrupt files: first in order", func(t *testing.T) {
		root := makeTree(t)
		p1 := filepath.Join(root, "apple", "apples2", "b.png")
		p2 := filepath.Join(root, "cup", "cups10", "a.png")
		os.WriteFile(p1, []byte("\x89PNG\r\n\x1a\nbroken"), 0o644)
		os.WriteFile(p2, []byte("not an image"), 0o644)
		for _, w := range []int{1, 2, 8} {
			_, err := Load(context.Background(), root, Options{Workers: w})
			check(t, err, ErrDecode, p1)
		}
	})
	t.Run("bad target", func(t *testing.T) {
		_, err := Load(context.Background(), makeTree(t), Options{Width: 3})
		check(t, err, ErrSize, "target size 0x3: want height and width both positive")
	})
	t.Run("huge header", func(t *testing.T) {
		root := t.TempDir()
		p := filepath.Join(root, "a", "s", "x.png")
		os.MkdirAll(filepath.Dir(p), 0o755)
		var b bytes.Buffer
		png.Encode(&b, grayImage(1, 1, 0))
		raw := b.Bytes()
		// IHDR width and height at offsets 16 and 20: claim 100000 x
		// 100000, with a valid chunk CRC, so only our size check stops it.
		copy(raw[16:], []byte{0, 1, 0x86, 0xa0, 0, 1, 0x86, 0xa0})
		binary.BigEndian.PutUint32(raw[29:], crc32.ChecksumIEEE(raw[12:29]))
		os.WriteFile(p, raw, 0o644)
		_, err := Load(context.Background(), root, Options{})
		check(t, err, ErrSize, p, "100000x100000")
		_, _, _, err = ReadImage(p, Options{Width: 0, Height: 0})
		check(t, err, ErrSize, p)
	})
}

// TestFormatSize: sizes are written height first, as the command line's
// -resize takes them.
func TestFormatSize(t *testing.T) {
	if got := FormatSize(38, 24); got != "24x38" {
		t.Errorf("FormatSize(width 38, height 24) = %q, want 24x38", got)
	}
}
