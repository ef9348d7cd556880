package dataset

import (
	"context"
	"encoding/binary"
	"testing"
)

// Two 2x3 images (H=2, W=3) as rows of fea, pixels in MATLAB column-major
// order: image k's pixel (r, c) is 100k + 10r + c, stored at c*2+r.
func yaleLike(w *matWriter, feaType uint32, gndType uint32) {
	const n, h, wd = 2, 2, 3
	fea := make([]float64, n*h*wd) // column-major n x 6 matrix
	for k := 0; k < n; k++ {
		for r := 0; r < h; r++ {
			for c := 0; c < wd; c++ {
				p := c*h + r // pixel index within the flattened image
				fea[k+p*n] = float64(100*k + 10*r + c)
			}
		}
	}
	w.add(matVar{name: "fea", class: mxDOUBLE, dims: []int32{n, h * wd}, miType: feaType, data: fea})
	w.add(matVar{name: "gnd", class: mxDOUBLE, dims: []int32{n, 1}, miType: gndType, data: []float64{5, 2}})
}

func TestLoadMAT(t *testing.T) {
	dir := t.TempDir()
	for _, order := range []binary.AppendByteOrder{binary.LittleEndian, binary.BigEndian} {
		for _, compressed := range []bool{false, true} {
			for _, ft := range []uint32{miDOUBLE, miUINT8, miINT16, miSINGLE} {
				w := newMAT(order, compressed)
				// Variables to skip: a char array, a complex one, before
				// and after the wanted ones.
				w.add(matVar{name: "note", class: 4, dims: []int32{1, 2}, miType: miUINT16, data: []float64{72, 105}})
				yaleLike(w, ft, miUINT8)
				w.add(matVar{name: "z", class: mxDOUBLE, flags: mxComplexFlag, dims: []int32{1, 1}, miType: miDOUBLE, data: []float64{1}, imag: true})
				p := writeFile(t, dir, "y.mat", w.bytes())
				ds, err := (MAT{File: p, Width: 3, Height: 2, Transpose: true, PixelMax: 2}).Load(context.Background())
				if err != nil {
					t.Fatalf("%v compressed=%v type %d: %v", order, compressed, ft, err)
				}
				if ds.Len() != 2 || ds.Dim != 6 || ds.Width != 3 || ds.Height != 2 {
					t.Fatalf("%d images of %d (%dx%d)", ds.Len(), ds.Dim, ds.Height, ds.Width)
				}
				for k := 0; k < 2; k++ {
					for r := 0; r < 2; r++ {
						for c := 0; c < 3; c++ {
							if got, want := ds.Images[k][r*3+c], float64(100*k+10*r+c)/2; got != want {
								t.Fatalf("type %d: image %d pixel (%d,%d) = %g, want %g", ft, k, r, c, got, want)
							}
						}
					}
				}
				if ds.Classes[0] != "2" || ds.Classes[1] != "5" || ds.Labels[0] != 1 {
					t.Fatalf("classes %v labels %v", ds.Classes, ds.Labels)
				}
				vars, err := ReadMAT(context.Background(), p, Limits{})
				if err != nil {
					t.Fatal(err)
				}
				if len(vars) != 2 || vars["fea"].Class != "double" || vars["gnd"].Dims[0] != 2 {
					t.Fatalf("ReadMAT() = %v", vars)
				}
			}
		}
	}
}

func TestLoadMATLayouts(t *testing.T) {
	dir := t.TempDir()
	// X as columns: 4 pixels x 2 images, no transposing.
	w := newMAT(binary.LittleEndian, true)
	w.add(matVar{name: "X", class: 7, dims: []int32{4, 2}, miType: miSINGLE, data: []float64{1, 2, 3, 4, 5, 6, 7, 8}})
	w.add(matVar{name: "y", class: 9, dims: []int32{1, 2}, miType: miUINT8, data: []float64{1, 1}})
	p := writeFile(t, dir, "cols.mat", w.bytes())
	ds, err := (MAT{File: p, X: "X", Y: "y", Columns: true}).Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if ds.Images[1][0] != 5 || ds.Images[0][3] != 4 || len(ds.Classes) != 1 || ds.Width != 0 {
		t.Fatalf("images %v classes %v", ds.Images, ds.Classes)
	}
	// X as H x W x N (2 x 2 x 2), column-major images.
	w = newMAT(binary.LittleEndian, false)
	w.add(matVar{name: "ims", class: 9, dims: []int32{2, 2, 2}, miType: miUINT8, data: []float64{1, 2, 3, 4, 5, 6, 7, 8}})
	w.add(matVar{name: "lab", class: 6, dims: []int32{2, 1}, miType: miDOUBLE, data: []float64{0, 1}})
	p = writeFile(t, dir, "cube.mat", w.bytes())
	ds, err = (MAT{File: p, X: "ims", Y: "lab"}).Load(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// Image 0 is [[1 3] [2 4]] in MATLAB, row-major 1 3 2 4.
	if want := []float64{1, 3, 2, 4}; ds.Width != 2 || ds.Height != 2 || ds.Images[0][1] != want[1] || ds.Images[0][2] != want[2] || ds.Images[1][0] != 5 {
		t.Fatalf("images %v (%dx%d)", ds.Images, ds.Height, ds.Width)
	}
}

func TestLoadMATErrors(t *testing.T) {
	dir := t.TempDir()
	good := func() *matWriter {
		w := newMAT(binary.LittleEndian, true)
		yaleLike(w, miDOUBLE, miDOUBLE)
		return w
	}
	gb := good().bytes()
	v73 := append([]byte("MATLAB 7.3 MAT-file, Platform: GLNXA64"), make([]byte, 600)...)
	badEndian := append([]byte{}, gb...)
	copy(badEndian[126:], "XX")
	badVersion := append([]byte{}, gb...)
	badVersion[124] = 2
	cases := []struct {
		name  string
		file  []byte
		opt   MAT
		kind  error
		frags []string
	}{
		{"short", gb[:100], MAT{}, ErrFormat, []string{"too short for a MAT-file header"}},
		{"v7.3", v73, MAT{}, ErrUnsupported, []string{"v7.3", "-v7"}},
		{"endian", badEndian, MAT{}, ErrFormat, []string{"endian"}},
		{"version", badVersion, MAT{}, ErrFormat, []string{"version 0x0102"}},
		{"truncated", gb[:len(gb)-10], MAT{}, ErrSize, []string{"bytes, only", "left in the file"}},
		{"missing X", gb, MAT{X: "images"}, ErrFormat, []string{`no numeric variable "images"`}},
		{"same var", gb, MAT{X: "gnd"}, ErrFormat, []string{"both from variable"}},
		{"shape", gb, MAT{Width: 4, Height: 2}, ErrSize, []string{"6 pixels per image, shape 2x4 needs 8"}},
		{"transpose without shape", gb, MAT{Transpose: true}, ErrSize, []string{"needs their shape"}},
		{"columns: label count", gb, MAT{Columns: true}, ErrSize, []string{"hold 2 values", "hold 6 images"}},
	}
	{
		w := newMAT(binary.LittleEndian, false)
		w.add(matVar{name: "fea", class: mxDOUBLE, dims: []int32{2, 2}, miType: miDOUBLE, data: []float64{1, 2, 3, 4}})
		w.add(matVar{name: "gnd", class: mxDOUBLE, dims: []int32{2, 1}, miType: miDOUBLE, data: []float64{1, 1.5}})
		cases = append(cases, struct {
			name  string
			file  []byte
			opt   MAT
			kind  error
			frags []string
		}{"fractional label", w.bytes(), MAT{}, ErrValue, []string{"gnd(2) = 1.5 is not an integer"}})
	}
	{
		w := newMAT(binary.LittleEndian, false)
		w.add(matVar{name: "fea", class: mxDOUBLE, dims: []int32{2, 2}, miType: miDOUBLE, data: []float64{1, 2, 3, 4}})
		w.add(matVar{name: "gnd", class: mxDOUBLE, dims: []int32{2, 1}, miType: miDOUBLE, data: []float64{1, 1 << 62}})
		cases = append(cases, struct {
			name  string
			file  []byte
			opt   MAT
			kind  error
			frags []string
		}{"huge label", w.bytes(), MAT{}, ErrValue, []string{"gnd(2) = 4611686018427387904, out of range: want an integer from -9007199254740992 to 9007199254740992"}})
	}
	add := func(name string, vars []matVar, kind error, frags ...string) {
		w := newMAT(binary.LittleEndian, true)
		for _, v := range vars {
			w.add(v)
		}
		cases = append(cases, struct {
			name  string
			file  []byte
			opt   MAT
			kind  error
			frags []string
		}{name, w.bytes(), MAT{}, kind, frags})
	}
	gnd := matVar{name: "gnd", class: mxDOUBLE, dims: []int32{2, 1}, miType: miDOUBLE, data: []float64{1, 2}}
	add("NaN pixel", []matVar{{name: "fea", class: mxDOUBLE, dims: []int32{2, 1}, miType: miDOUBLE, data: []float64{1, nan()}}, gnd}, ErrValue, "image 2", "NaN")
	add("complex", []matVar{{name: "fea", class: mxDOUBLE, flags: mxComplexFlag, dims: []int32{2, 1}, miType: miDOUBLE, data: []float64{1, 2}, imag: true}, gnd}, ErrUnsupported, `"fea" is complex double`)
	add("cell", []matVar{{name: "fea", class: 1, dims: []int32{1, 1}, miType: miDOUBLE, data: []float64{0}}, gnd}, ErrUnsupported, `"fea" is cell [1 1]`)
	add("dims vs data", []matVar{{name: "fea", class: mxDOUBLE, dims: []int32{2, 2}, miType: miDOUBLE, data: []float64{1, 2, 3}}, gnd}, ErrSize, "need 4 elements", "24 bytes")
	add("hostile dims", []matVar{{name: "fea", class: mxDOUBLE, dims: []int32{0x7fffffff, 0x7fffffff}, miType: miDOUBLE, data: []float64{1}}, gnd}, ErrSize, "need more bytes than the element holds")
	add("negative dim", []matVar{{name: "fea", class: mxDOUBLE, dims: []int32{-1, 2}, miType: miDOUBLE, data: []float64{1}}, gnd}, ErrFormat, "negative")
	add("4-D", []matVar{{name: "fea", class: mxDOUBLE, dims: []int32{1, 1, 1, 2}, miType: miDOUBLE, data: []float64{1, 2}}, gnd}, ErrUnsupported, "4 dimensions")
	add("no images", []matVar{{name: "fea", class: mxDOUBLE, dims: []int32{0, 4}, miType: miDOUBLE, data: nil}, gnd}, ErrSize, "no images")
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeFile(t, dir, "bad.mat", c.file)
			_, err := (func() MAT {
				o := c.opt
				o.File = p
				return o
			}()).Load(context.Background())
			wantErr(t, err, c.kind, append(c.frags, "dataset: "+p+": ")...)
		})
	}
}
