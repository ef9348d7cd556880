package dataset

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// The fuzz targets check that no input makes a parser panic, allocate
// without bound, or return an invalid data set; seeds are in
// testdata/fuzz/<Target> (regenerate with GRLGQ_WRITE_CORPUS=1 go test
// -run TestWriteFuzzCorpus) plus the f.Add calls.

func FuzzIDX(f *testing.F) {
	for _, s := range idxSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, magic := range []uint32{idxImagesMagic, idxLabelsMagic} {
			s, err := memSource("fuzz.idx", b)
			if err != nil {
				continue
			}
			dims, data, err := readIDX(s, magic)
			if err != nil {
				checkFileErr(t, err)
				continue
			}
			n := 1
			for _, d := range dims {
				n *= d
			}
			if n != len(data) {
				t.Fatalf("dims %v but %d bytes", dims, len(data))
			}
			if magic == idxImagesMagic {
				ds := idxDataset("fuzz", dims, data, make([]byte, dims[0]))
				if err := ds.Validate(); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}

func FuzzCSV(f *testing.F) {
	for _, s := range csvSeeds() {
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, b []byte, header bool) {
		s, err := memSource("fuzz.csv", b)
		if err != nil {
			return
		}
		ds, err := readCSV(s, CSV{Header: header})
		if err != nil {
			checkFileErr(t, err)
			return
		}
		if err := ds.Validate(); err != nil {
			t.Fatal(err)
		}
	})
}

func FuzzMAT(f *testing.F) {
	for _, s := range matSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if _, err := parseMAT(context.Background(), "fuzz.mat", b, nil, Limits{}); err != nil {
			checkFileErr(t, err)
		}
		for _, tr := range []bool{false, true} {
			ds, err := parseMATDataset(context.Background(), "fuzz.mat", b, MAT{Width: 2, Height: 3, Transpose: tr})
			if err != nil {
				checkFileErr(t, err)
				continue
			}
			if err := ds.Validate(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func FuzzNPY(f *testing.F) {
	for _, s := range npySeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := memSource("fuzz.npy", b)
		if err != nil {
			return
		}
		a, err := readNPY(s)
		if err != nil {
			checkFileErr(t, err)
			return
		}
		n, ok := shapeBytes(a.shape, int64(a.size))
		if !ok || n != int64(len(a.data)) {
			t.Fatalf("shape %v size %d, %d bytes", a.shape, a.size, len(a.data))
		}
		if len(a.shape) == 3 {
			labels := &npyArray{shape: a.shape[:1], kind: 'u', size: 1, order: binary.LittleEndian, data: make([]byte, a.shape[0])}
			ds, err := npyDataset(context.Background(), "d", "l", a, labels, NPY{Reorthonormalize: true})
			if err != nil {
				checkFileErr(t, err)
				return
			}
			if err := ds.Validate(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

func FuzzNPYHeader(f *testing.F) {
	f.Add("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3, 4), }")
	f.Add(`{"descr":"|u1","fortran_order":True,"shape":(5,)}`)
	f.Add("{'descr': '<f8', 'fortran_order': False, 'shape': (), }")
	f.Fuzz(func(t *testing.T, h string) {
		a, err := parseNPYHeader(h)
		if err != nil {
			return
		}
		for _, d := range a.shape {
			if d < 0 {
				t.Fatalf("negative dimension in %v", a.shape)
			}
		}
		if a.size != 1 && a.size != 2 && a.size != 4 && a.size != 8 {
			t.Fatalf("element size %d", a.size)
		}
	})
}

// checkFileErr fails unless err is a *FileError of a known kind, or a
// *LimitError.
func checkFileErr(t *testing.T, err error) {
	t.Helper()
	var le *LimitError
	if errors.As(err, &le) && errors.Is(err, ErrLimit) && errors.Is(err, ErrSize) {
		return
	}
	var fe *FileError
	if !errors.As(err, &fe) {
		t.Fatalf("error %q (%T) is not a *FileError", err, err)
	}
	if !errors.Is(err, ErrFormat) && !errors.Is(err, ErrSize) && !errors.Is(err, ErrValue) && !errors.Is(err, ErrUnsupported) {
		t.Fatalf("error %q has no known kind", err)
	}
}

func idxSeeds() [][]byte {
	img := idxBytes(idxImagesMagic, []uint32{2, 2, 3}, []byte{0, 1, 2, 3, 4, 5, 250, 251, 252, 253, 254, 255})
	lab := idxBytes(idxLabelsMagic, []uint32{3}, []byte{1, 0, 9})
	return [][]byte{img, lab, gz(img), gz(lab), img[:9], idxBytes(idxImagesMagic, []uint32{0xffffffff, 1, 1}, nil)}
}

func csvSeeds() [][]byte {
	c := []byte("0,1,2,3,9\n4,5,6,7,a\n\"8\", 9 ,10,11,9\n")
	return [][]byte{c, gz(c), []byte("1,2\n1,2,3\n"), []byte("NaN,1\n"), []byte("x,y\n1,2\n")}
}

func matSeeds() [][]byte {
	var out [][]byte
	for _, order := range []binary.AppendByteOrder{binary.LittleEndian, binary.BigEndian} {
		for _, comp := range []bool{false, true} {
			w := newMAT(order, comp)
			w.add(matVar{name: "fea", class: mxDOUBLE, dims: []int32{2, 6}, miType: miUINT8, data: []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}})
			w.add(matVar{name: "gnd", class: mxDOUBLE, dims: []int32{2, 1}, miType: miDOUBLE, data: []float64{1, 2}})
			out = append(out, w.bytes())
		}
	}
	w := newMAT(binary.LittleEndian, false)
	w.add(matVar{name: "fea", class: 7, dims: []int32{3, 2, 2}, miType: miSINGLE, data: []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}})
	w.add(matVar{name: "gnd", class: 9, dims: []int32{1, 2}, miType: miUINT8, data: []float64{0, 1}})
	w.add(matVar{name: "c", class: mxDOUBLE, flags: mxComplexFlag, dims: []int32{1, 1}, miType: miDOUBLE, data: []float64{1}, imag: true})
	return append(out, w.bytes())
}

func npySeeds() [][]byte {
	b := npyBytes("<f8", false, []int{2, 3, 2}, f64le(twoBases()))
	return [][]byte{
		b, gz(b),
		npyBytes("<i8", false, []int{2}, i64le([]int64{1, 2})),
		npyBytes(">f4", true, []int{1, 2, 1}, []byte{0x3f, 0x80, 0, 0, 0, 0, 0, 0}),
		b[:40],
	}
}

// TestWriteFuzzCorpus writes the seeds above as committed corpus files
// under testdata/fuzz, when GRLGQ_WRITE_CORPUS=1.
func TestWriteFuzzCorpus(t *testing.T) {
	if os.Getenv("GRLGQ_WRITE_CORPUS") != "1" {
		t.Skip("set GRLGQ_WRITE_CORPUS=1 to rewrite testdata/fuzz")
	}
	write := func(target string, i int, body string) {
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "seed-"+strconv.Itoa(i)), []byte("go test fuzz v1\n"+body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	lit := func(b []byte) string { return "[]byte(" + strconv.Quote(string(b)) + ")\n" }
	for i, s := range idxSeeds() {
		write("FuzzIDX", i, lit(s))
	}
	for i, s := range csvSeeds() {
		write("FuzzCSV", i, lit(s)+"bool(false)\n")
	}
	for i, s := range matSeeds() {
		write("FuzzMAT", i, lit(s))
	}
	for i, s := range npySeeds() {
		write("FuzzNPY", i, lit(s))
	}
	write("FuzzNPYHeader", 0, "string("+strconv.Quote("{'descr': '>i2', 'fortran_order': True, 'shape': (3L, 4), }")+")\n")
}
