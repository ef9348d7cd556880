package dataset

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grlgq/grlgq/internal/realdata"
)

// dataDir returns the path of sub in the real-data folder, or skips the
// test (internal/realdata).
func dataDir(t testing.TB, sub string) string {
	t.Helper()
	return filepath.Join(realdata.Dir(t, sub), sub)
}

func writeFile(t testing.TB, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func gz(b []byte) []byte {
	var buf bytes.Buffer
	w := gzip.NewWriter(&buf)
	w.Write(b)
	w.Close()
	return buf.Bytes()
}

// wantErr fails unless err is non-nil, matches kind (errors.Is) and its
// message contains every fragment.
func wantErr(t testing.TB, err, kind error, frags ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %v %q", kind, frags)
	}
	if kind != nil && !errors.Is(err, kind) {
		t.Fatalf("error %q is not %v", err, kind)
	}
	for _, f := range frags {
		if !strings.Contains(err.Error(), f) {
			t.Fatalf("error %q does not mention %q", err, f)
		}
	}
}

// idxBytes builds an IDX file: magic then dims (big-endian) then data.
func idxBytes(magic uint32, dims []uint32, data []byte) []byte {
	b := binary.BigEndian.AppendUint32(nil, magic)
	for _, d := range dims {
		b = binary.BigEndian.AppendUint32(b, d)
	}
	return append(b, data...)
}

// matVar is a variable for the test MAT writer.
type matVar struct {
	name    string
	class   uint32 // mxDOUBLE etc.
	flags   uint32 // extra flag bits (complex, logical)
	dims    []int32
	miType  uint32 // storage type of the data
	data    []float64
	imag    bool // write an imaginary part too
	rawBody []byte
}

type matWriter struct {
	order      binary.AppendByteOrder
	compressed bool
	buf        bytes.Buffer
}

func newMAT(order binary.AppendByteOrder, compressed bool) *matWriter {
	w := &matWriter{order: order, compressed: compressed}
	h := make([]byte, 128)
	copy(h, "MATLAB 5.0 MAT-file, written by the dataset tests")
	for i := len("MATLAB 5.0 MAT-file, written by the dataset tests"); i < 116; i++ {
		h[i] = ' '
	}
	order.(binary.ByteOrder).PutUint16(h[124:], 0x0100)
	if order == binary.AppendByteOrder(binary.LittleEndian) {
		copy(h[126:], "IM")
	} else {
		copy(h[126:], "MI")
	}
	w.buf.Write(h)
	return w
}

// elem appends a tagged element (small format when it fits in 4 bytes) to b.
func (w *matWriter) elem(b []byte, typ uint32, payload []byte) []byte {
	if len(payload) <= 4 && typ != miMATRIX {
		b = w.order.AppendUint32(b, uint32(len(payload))<<16|typ)
		var p [4]byte
		copy(p[:], payload)
		return append(b, p[:]...)
	}
	b = w.order.AppendUint32(b, typ)
	b = w.order.AppendUint32(b, uint32(len(payload)))
	b = append(b, payload...)
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	return b
}

func (w *matWriter) encode(typ uint32, vals []float64) []byte {
	var b []byte
	for _, v := range vals {
		switch typ {
		case miDOUBLE:
			b = w.order.AppendUint64(b, math.Float64bits(v))
		case miSINGLE:
			b = w.order.AppendUint32(b, math.Float32bits(float32(v)))
		case miUINT8:
			b = append(b, byte(v))
		case miINT8:
			b = append(b, byte(int8(v)))
		case miINT16, miUINT16:
			b = w.order.AppendUint16(b, uint16(int16(v)))
		case miINT32, miUINT32:
			b = w.order.AppendUint32(b, uint32(int32(v)))
		case miINT64, miUINT64:
			b = w.order.AppendUint64(b, uint64(int64(v)))
		default:
			panic(fmt.Sprint("test writer: type ", typ))
		}
	}
	return b
}

func (w *matWriter) add(v matVar) {
	var body []byte
	if v.rawBody != nil {
		body = v.rawBody
	} else {
		var flags [8]byte
		w.order.(binary.ByteOrder).PutUint32(flags[:], v.class|v.flags)
		body = w.elem(body, miUINT32, flags[:])
		var dims []byte
		for _, d := range v.dims {
			dims = w.order.AppendUint32(dims, uint32(d))
		}
		body = w.elem(body, miINT32, dims)
		body = w.elem(body, miINT8, []byte(v.name))
		body = w.elem(body, v.miType, w.encode(v.miType, v.data))
		if v.imag {
			body = w.elem(body, v.miType, w.encode(v.miType, v.data))
		}
	}
	m := w.elem(nil, miMATRIX, body)
	if !w.compressed {
		w.buf.Write(m)
		return
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(m)
	zw.Close()
	tag := w.order.AppendUint32(nil, miCOMPRESSED)
	tag = w.order.AppendUint32(tag, uint32(z.Len()))
	w.buf.Write(tag)
	w.buf.Write(z.Bytes()) // no padding after compressed elements, as MATLAB writes
}

func (w *matWriter) bytes() []byte { return w.buf.Bytes() }

// npyBytes builds a version-1 .npy file.
func npyBytes(descr string, fortran bool, shape []int, data []byte) []byte {
	var sh []string
	for _, d := range shape {
		sh = append(sh, fmt.Sprint(d))
	}
	st := "(" + strings.Join(sh, ", ")
	if len(shape) == 1 {
		st += ","
	}
	st += ")"
	fo := "False"
	if fortran {
		fo = "True"
	}
	h := fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr, fo, st)
	for (10+len(h)+1)%64 != 0 {
		h += " "
	}
	h += "\n"
	b := []byte("\x93NUMPY\x01\x00")
	b = binary.LittleEndian.AppendUint16(b, uint16(len(h)))
	b = append(b, h...)
	return append(b, data...)
}

func f64le(v []float64) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(x))
	}
	return b
}

func i64le(v []int64) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint64(b, uint64(x))
	}
	return b
}

func nan() float64 { return math.NaN() }

// writeSetTree writes, under root, each folder of sets (a relative path)
// with its PNG files, w x h gray images of distinct pixels.
func writeSetTree(t *testing.T, root string, sets map[string][]string, w, h int) {
	t.Helper()
	k := 0
	for dir, files := range sets {
		for _, f := range files {
			g := image.NewGray(image.Rect(0, 0, w, h))
			for i := range g.Pix {
				g.Pix[i] = uint8(37*k + 11*i)
			}
			k++
			var b bytes.Buffer
			if err := png.Encode(&b, g); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(root, dir, f)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
