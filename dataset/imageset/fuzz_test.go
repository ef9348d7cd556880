package imageset

import (
	"bytes"
	"context"
	"errors"
	"image/jpeg"
	"image/png"
	"os"
	"path/filepath"
	"testing"
)

// FuzzFolder writes the fuzzed bytes as one image of a small folder tree
// (beside a valid 4x3 PNG, in the same set and in a set of its own) and
// loads it at its native size and resized: no input may panic, take more
// than the limits allow, or load as something inconsistent. The limits are
// lowered so that each input stays fast.
func FuzzFolder(f *testing.F) {
	var p, j bytes.Buffer
	png.Encode(&p, grayImage(4, 3, 7))
	jpeg.Encode(&j, grayImage(4, 3, 9), nil)
	f.Add(p.Bytes())
	f.Add(j.Bytes())
	f.Add(p.Bytes()[:40])
	f.Add(zeroPNG(f, 8000, 8000, true))
	f.Add(zeroPNG(f, 300, 300, false))
	f.Add([]byte{})
	lim := Limits{PixelsPerImage: 1 << 12, ImagesPerSet: 8, TotalValues: 1 << 16}
	// One tree for all inputs of this process (inputs run one at a time
	// in a process): only the fuzzed files are rewritten.
	root, err := os.MkdirTemp("", "fuzzfolder")
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { os.RemoveAll(root) })
	mustWrite(f, filepath.Join(root, "a", "s", "0.png"), p.Bytes())
	f.Fuzz(func(t *testing.T, b []byte) {
		mustWrite(t, filepath.Join(root, "a", "s", "1.png"), b)
		mustWrite(t, filepath.Join(root, "b", "t", "x.jpg"), b)
		for _, opt := range []Options{{Limits: lim, Workers: 2}, {Width: 5, Height: 2, Limits: lim}} {
			tr, err := Load(context.Background(), root, opt)
			if err != nil {
				if !errors.Is(err, ErrDecode) && !errors.Is(err, ErrSize) && !errors.Is(err, ErrLimit) {
					t.Fatalf("error %v of no known kind", err)
				}
				continue
			}
			w, h := tr.Width, tr.Height
			if opt.Width != 0 && (w != opt.Width || h != opt.Height) || opt.Width == 0 && (w != 4 || h != 3) {
				t.Fatalf("size %dx%d with options %+v", w, h, opt)
			}
			if len(tr.Sets) != 2 || len(tr.Sets[0].Images) != 2 || len(tr.Sets[1].Images) != 1 {
				t.Fatalf("sets %+v", tr.Sets)
			}
			for _, s := range tr.Sets {
				for _, img := range s.Images {
					if len(img) != w*h || cap(img) != w*h {
						t.Fatalf("image of %d pixels (cap %d), want %d", len(img), cap(img), w*h)
					}
					for _, v := range img {
						if !(v >= 0 && v <= 1) {
							t.Fatalf("pixel %v outside [0, 1]", v)
						}
					}
				}
			}
		}
	})
}
