package experiments

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// A tiny synthetic data tree in the layout of the real one (mnist/ IDX,
// yaleb32/ MAT, eth80/ PNG folders). Every class has its own few "pattern"
// images and an image is a random non-negative mix of its class's patterns
// plus noise, so each class lies near its own low-dimensional cone and the
// protocols must classify almost everything right.

// synthClass returns k random smooth non-negative patterns of w x h pixels
// in [0, 1].
func synthPatterns(rng *rand.Rand, k, w, h int) [][]float64 {
	pats := make([][]float64, k)
	for j := range pats {
		p := make([]float64, w*h)
		for range 3 { // three Gaussian blobs
			cx, cy := rng.Float64()*float64(w), rng.Float64()*float64(h)
			s := (0.1 + 0.15*rng.Float64()) * float64(w)
			for y := range h {
				for x := range w {
					dx, dy := float64(x)-cx, float64(y)-cy
					p[y*w+x] += math.Exp(-(dx*dx + dy*dy) / (2 * s * s))
				}
			}
		}
		pats[j] = p
	}
	return pats
}

// synthImage mixes the patterns with random weights, adds noise and scales
// into [0, 255].
func synthImage(rng *rand.Rand, pats [][]float64) []uint8 {
	out := make([]uint8, len(pats[0]))
	for i := range out {
		var v float64
		for j, p := range pats {
			v += (0.3 + rng.Float64()) * p[i] / float64(len(pats)) * (1 + 0.2*float64(j%2))
		}
		v = 200*v + 10*rng.Float64()
		out[i] = uint8(math.Min(255, math.Max(0, v)))
	}
	return out
}

func writeGz(t *testing.T, path string, b []byte) {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeIDX writes the image and label IDX files (gzipped) of n 28x28 images.
func writeIDX(t *testing.T, dir, prefix string, imgs [][]uint8, labels []uint8) {
	t.Helper()
	var im, lb bytes.Buffer
	binary.Write(&im, binary.BigEndian, []uint32{0x803, uint32(len(imgs)), 28, 28})
	for _, x := range imgs {
		im.Write(x)
	}
	binary.Write(&lb, binary.BigEndian, []uint32{0x801, uint32(len(labels))})
	lb.Write(labels)
	writeGz(t, filepath.Join(dir, prefix+"-images-idx3-ubyte.gz"), im.Bytes())
	writeGz(t, filepath.Join(dir, prefix+"-labels-idx1-ubyte.gz"), lb.Bytes())
}

// matElement appends a level-5 data element (tag + data padded to 8).
func matElement(b *bytes.Buffer, typ uint32, data []byte) {
	binary.Write(b, binary.LittleEndian, []uint32{typ, uint32(len(data))})
	b.Write(data)
	for b.Len()%8 != 0 {
		b.WriteByte(0)
	}
}

// matDouble returns an uncompressed miMATRIX of class double.
func matDouble(name string, rows, cols int, colMajor []float64) []byte {
	var body bytes.Buffer
	var tmp bytes.Buffer
	binary.Write(&tmp, binary.LittleEndian, []uint32{6, 0}) // mxDOUBLE_CLASS
	matElement(&body, 6, tmp.Bytes())                       // miUINT32 flags
	tmp.Reset()
	binary.Write(&tmp, binary.LittleEndian, []int32{int32(rows), int32(cols)})
	matElement(&body, 5, tmp.Bytes()) // miINT32 dims
	matElement(&body, 1, []byte(name))
	tmp.Reset()
	binary.Write(&tmp, binary.LittleEndian, colMajor)
	matElement(&body, 9, tmp.Bytes()) // miDOUBLE
	var out bytes.Buffer
	matElement(&out, 14, body.Bytes())
	return out.Bytes()
}

// writeSynthTree writes the synthetic data tree under dir.
func writeSynthTree(t *testing.T, dir string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(42, 1))

	// MNIST: 3 digits, 48 training and 16 test images each.
	os.MkdirAll(filepath.Join(dir, "mnist"), 0o755)
	var trI, teI [][]uint8
	var trL, teL []uint8
	for c := range 3 {
		pats := synthPatterns(rng, 4, 28, 28)
		for i := range 64 {
			x := synthImage(rng, pats)
			if i < 48 {
				trI, trL = append(trI, x), append(trL, uint8(c))
			} else {
				teI, teL = append(teI, x), append(teL, uint8(c))
			}
		}
	}
	writeIDX(t, filepath.Join(dir, "mnist"), "train", trI, trL)
	writeIDX(t, filepath.Join(dir, "mnist"), "t10k", teI, teL)

	// Yale B: 3 people x 32 images of 32x32, stored as MATLAB does (one
	// image per row of fea, pixels column-major), labels 1..3.
	const nY = 3 * 32
	fea := make([]float64, nY*1024) // column-major nY x 1024
	gnd := make([]float64, nY)
	for c := range 3 {
		pats := synthPatterns(rng, 3, 32, 32)
		for i := range 32 {
			n := c*32 + i
			x := synthImage(rng, pats)
			for p, v := range x { // row-major pixel (r, col) -> MATLAB index col*32+r
				r, col := p/32, p%32
				fea[n+(col*32+r)*nY] = float64(v)
			}
			gnd[n] = float64(c + 1)
		}
	}
	var mat bytes.Buffer
	hdr := make([]byte, 128)
	copy(hdr, "MATLAB 5.0 MAT-file, synthetic test data")
	for i := 40; i < 116; i++ {
		hdr[i] = ' '
	}
	binary.LittleEndian.PutUint16(hdr[124:], 0x0100)
	copy(hdr[126:], "IM")
	mat.Write(hdr)
	mat.Write(matDouble("fea", nY, 1024, fea))
	mat.Write(matDouble("gnd", nY, 1, gnd))
	os.MkdirAll(filepath.Join(dir, "yaleb32"), 0o755)
	if err := os.WriteFile(filepath.Join(dir, "yaleb32", "YaleB_32x32.mat"), mat.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}

	// ETH-80: 3 categories x 4 objects x 8 views, RGB PNG 32x32.
	for _, cat := range []string{"apple", "car", "cow"} {
		pats := synthPatterns(rng, 4, 32, 32)
		for o := range 4 {
			obj := cat + string(rune('1'+o))
			od := filepath.Join(dir, "eth80", cat, obj)
			os.MkdirAll(od, 0o755)
			for v := range 8 {
				x := synthImage(rng, pats)
				img := image.NewRGBA(image.Rect(0, 0, 32, 32))
				for p, g := range x {
					img.Set(p%32, p/32, color.RGBA{g, g, uint8(int(g) * 3 / 4), 255})
				}
				f, err := os.Create(filepath.Join(od, obj+"-"+string(rune('a'+v))+".png"))
				if err != nil {
					t.Fatal(err)
				}
				png.Encode(f, img)
				f.Close()
			}
		}
	}
}
