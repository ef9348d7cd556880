package dataset

import (
	"context"
	"runtime"
	"testing"
)

func TestLoadIDX(t *testing.T) {
	dir := t.TempDir()
	// 3 images of 2x2: pixel values chosen so /255 is recognisable.
	pix := []byte{0, 255, 51, 102, 1, 2, 3, 4, 255, 255, 0, 0}
	lab := []byte{7, 3, 7}
	for _, zip := range []bool{false, true} {
		wrap := func(b []byte) []byte {
			if zip {
				return gz(b)
			}
			return b
		}
		ip := writeFile(t, dir, "img", wrap(idxBytes(idxImagesMagic, []uint32{3, 2, 2}, pix)))
		lp := writeFile(t, dir, "lab", wrap(idxBytes(idxLabelsMagic, []uint32{3}, lab)))
		ds, err := (IDX{Images: ip, Labels: lp}).Load(context.Background())
		if err != nil {
			t.Fatalf("gzip=%v: %v", zip, err)
		}
		if ds.Len() != 3 || ds.Dim != 4 || ds.Width != 2 || ds.Height != 2 {
			t.Fatalf("gzip=%v: got %d images of %d (%dx%d)", zip, ds.Len(), ds.Dim, ds.Height, ds.Width)
		}
		if got := ds.Images[0]; got[0] != 0 || got[1] != 1 || got[2] != 51.0/255 || got[3] != 102.0/255 {
			t.Fatalf("image 0 = %v", got)
		}
		if ds.Images[1][3] != 4.0/255 {
			t.Fatalf("image 1 = %v", ds.Images[1])
		}
		// Raw labels 3 and 7 become classes 0 and 1, named "3" and "7".
		if len(ds.Classes) != 2 || ds.Classes[0] != "3" || ds.Classes[1] != "7" || ds.Labels[0] != 1 || ds.Labels[1] != 0 {
			t.Fatalf("classes %v labels %v", ds.Classes, ds.Labels)
		}
		if err := ds.Validate(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoadIDXErrors(t *testing.T) {
	dir := t.TempDir()
	pix := make([]byte, 3*4)
	good := idxBytes(idxImagesMagic, []uint32{3, 2, 2}, pix)
	labels := writeFile(t, dir, "labels", idxBytes(idxLabelsMagic, []uint32{3}, []byte{1, 2, 3}))
	images := writeFile(t, dir, "images", good)
	cases := []struct {
		name   string
		images []byte
		labels []byte
		kind   error
		frags  []string
	}{
		{"labels as images", idxBytes(idxLabelsMagic, []uint32{3}, []byte{1, 2, 3}), nil, ErrFormat, []string{"IDX magic 0x00000801, want 0x00000803"}},
		{"empty", []byte{}, nil, ErrSize, []string{"file too short"}},
		{"short header", good[:10], nil, ErrSize, []string{"IDX dimensions", "too short"}},
		{"truncated data", good[:len(good)-1], nil, ErrSize, []string{"3x2x2 bytes of data, file has 11"}},
		{"trailing data", append(append([]byte{}, good...), 9), nil, ErrSize, []string{"3x2x2 = 12 bytes of data, file has 13"}},
		{"truncated gzip", gz(good)[:30], nil, nil, []string{"images"}},
		{"trailing data gzip", gz(append(append([]byte{}, good...), 9, 9)), nil, ErrSize, []string{"2 extra bytes"}},
		{"hostile header", idxBytes(idxImagesMagic, []uint32{0x7fffffff, 28, 28}, pix), nil, ErrSize, []string{"2147483647x28x28 bytes of data, file has 12"}},
		{"hostile header gzip", gz(idxBytes(idxImagesMagic, []uint32{0x7fffffff, 0x7fffffff, 28}, pix)), nil, ErrSize, []string{"more than the", "compressed bytes can hold"}},
		{"dimension over int32", idxBytes(idxImagesMagic, []uint32{0x80000000, 1, 1}, pix), nil, ErrFormat, []string{"2^31-1"}},
		{"zero-size images", idxBytes(idxImagesMagic, []uint32{3, 0, 2}, nil), nil, ErrFormat, []string{"images of size 0x2"}},
		{"label count", nil, idxBytes(idxLabelsMagic, []uint32{2}, []byte{1, 2}), ErrSize, []string{"2 labels", "has 3 images"}},
		{"labels wrong magic", nil, idxBytes(idxImagesMagic, []uint32{3, 1, 1}, []byte{1, 2, 3}), ErrFormat, []string{"want 0x00000801"}},
		{"labels truncated", nil, idxBytes(idxLabelsMagic, []uint32{3}, []byte{1, 2}), ErrSize, []string{"IDX header says 3 bytes of data, file has 2"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ip, lp := images, labels
			if c.images != nil {
				ip = writeFile(t, dir, "bad-images", c.images)
			}
			if c.labels != nil {
				lp = writeFile(t, dir, "bad-labels", c.labels)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := (IDX{Images: ip, Labels: lp}).Load(context.Background())
			runtime.ReadMemStats(&after)
			file := ip
			if c.labels != nil {
				file = lp
			}
			wantErr(t, err, c.kind, append(c.frags, "dataset: "+file+": ")...)
			// A hostile header must be refused before allocating.
			if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
				t.Fatalf("allocated %d bytes before failing", got)
			}
		})
	}
	if _, err := (IDX{Images: dir + "/missing", Labels: labels}).Load(context.Background()); err == nil {
		t.Fatal("missing file: no error")
	}
}
