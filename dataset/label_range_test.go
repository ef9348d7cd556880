package dataset

import (
	"context"
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"testing"
)

// Integer-typed labels (NPY int/uint dtypes, MAT integer storage types) are
// range-checked as integers: a conversion to float64 first would round
// 2^53+1 to 2^53 and accept it (merging the labels 2^53 and 2^53+1 into one
// class), and would print MaxInt64 as 9223372036854775808.

const (
	two53      = int64(1) << 53
	rangeMsg   = ", out of range: want an integer from -9007199254740992 to 9007199254740992"
	minInt64   = math.MinInt64
	maxInt64   = math.MaxInt64
	maxUint64  = uint64(math.MaxUint64)
	twoTo63    = uint64(1) << 63
	two53Plus1 = uint64(1)<<53 + 1
)

// intBytes encodes each value in size bytes in order o (the low bytes of
// its 64-bit pattern: a negative value is sign-extended, so they are its
// two's complement at that size).
func intBytes(o binary.AppendByteOrder, size int, vals []uint64) []byte {
	var b []byte
	for _, v := range vals {
		switch size {
		case 1:
			b = append(b, byte(v))
		case 2:
			b = o.AppendUint16(b, uint16(v))
		case 4:
			b = o.AppendUint32(b, uint32(v))
		default:
			b = o.AppendUint64(b, v)
		}
	}
	return b
}

// s64 is the 64-bit pattern of a signed value.
func s64(v ...int64) []uint64 {
	u := make([]uint64, len(v))
	for i, x := range v {
		u[i] = uint64(x)
	}
	return u
}

// wantLabelRange fails unless err is the one-line ErrValue refusal of the
// label written as digits (its exact value, not a float rounding of it).
func wantLabelRange(t *testing.T, err error, file, label, digits string) {
	t.Helper()
	wantErr(t, err, ErrValue, "dataset: "+file+": "+label+digits+rangeMsg)
	if strings.Contains(err.Error(), "\n") {
		t.Fatalf("error %q is not one line", err)
	}
}

// wantClasses fails unless the load succeeded with these classes and labels.
func wantClasses(t *testing.T, ds *Dataset, err error, classes []string, labels []int) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ds.Classes, classes) || !slices.Equal(ds.Labels, labels) {
		t.Fatalf("classes %q labels %v, want %q %v", ds.Classes, ds.Labels, classes, labels)
	}
}

func TestNPYIntLabelRange(t *testing.T) {
	dir := t.TempDir()
	data := writeFile(t, dir, "b.npy", npyBytes("<f8", false, []int{2, 3, 2}, f64le(twoBases())))
	load := func(t *testing.T, descr string, vals []uint64) (*Dataset, string, error) {
		t.Helper()
		o := binary.AppendByteOrder(binary.LittleEndian)
		if descr[0] == '>' {
			o = binary.BigEndian
		}
		lp := writeFile(t, t.TempDir(), "l.npy", npyBytes(descr, false, []int{len(vals)}, intBytes(o, int(descr[2]-'0'), vals)))
		ds, err := (NPY{Data: data, Labels: lp}).Load(context.Background())
		return ds, lp, err
	}
	bad := []struct {
		name   string
		descr  string
		vals   []uint64
		label  string
		digits string
	}{
		{"int64 2^53+1", "<i8", s64(1, two53+1), "label 1 is ", "9007199254740993"},
		{"int64 2^53+1 big-endian", ">i8", s64(two53+1, 1), "label 0 is ", "9007199254740993"},
		{"int64 2^53 and 2^53+1", "<i8", s64(two53, two53+1), "label 1 is ", "9007199254740993"},
		{"int64 -2^53-1", "<i8", s64(-two53-1, 1), "label 0 is ", "-9007199254740993"},
		{"int64 MaxInt64", "<i8", s64(0, maxInt64), "label 1 is ", "9223372036854775807"},
		{"int64 MinInt64", "<i8", s64(minInt64, 0), "label 0 is ", "-9223372036854775808"},
		{"uint64 2^53+1", "<u8", []uint64{0, two53Plus1}, "label 1 is ", "9007199254740993"},
		{"uint64 2^63", "<u8", []uint64{twoTo63, 0}, "label 0 is ", "9223372036854775808"},
		{"uint64 MaxUint64", ">u8", []uint64{1, maxUint64}, "label 1 is ", "18446744073709551615"},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			_, lp, err := load(t, c.descr, c.vals)
			wantLabelRange(t, err, lp, c.label, c.digits)
		})
	}
	good := []struct {
		name    string
		descr   string
		vals    []uint64
		classes []string
		labels  []int
	}{
		{"int64 ±2^53", "<i8", s64(two53, -two53), []string{"-9007199254740992", "9007199254740992"}, []int{1, 0}},
		{"int64 ±2^53 big-endian", ">i8", s64(-two53, two53), []string{"-9007199254740992", "9007199254740992"}, []int{0, 1}},
		{"uint64 2^53", "<u8", []uint64{1 << 53, 0}, []string{"0", "9007199254740992"}, []int{1, 0}},
		{"int8 extremes", "|i1", s64(math.MaxInt8, math.MinInt8), []string{"-128", "127"}, []int{1, 0}},
		{"int16 extremes", ">i2", s64(math.MinInt16, math.MaxInt16), []string{"-32768", "32767"}, []int{0, 1}},
		{"int32 extremes", "<i4", s64(math.MaxInt32, math.MinInt32), []string{"-2147483648", "2147483647"}, []int{1, 0}},
		{"uint8 max", "|u1", []uint64{math.MaxUint8, 0}, []string{"0", "255"}, []int{1, 0}},
		{"uint16 max", "<u2", []uint64{math.MaxUint16, 0}, []string{"0", "65535"}, []int{1, 0}},
		{"uint32 max", ">u4", []uint64{0, math.MaxUint32}, []string{"0", "4294967295"}, []int{0, 1}},
	}
	for _, c := range good {
		t.Run(c.name, func(t *testing.T) {
			ds, _, err := load(t, c.descr, c.vals)
			wantClasses(t, ds, err, c.classes, c.labels)
		})
	}
}

// matIntVar is a real n x 1 MATLAB variable of class cls whose data is
// stored as integer type typ (of size bytes), written in w's byte order.
func matIntVar(w *matWriter, name string, cls, typ uint32, size int, vals []uint64) matVar {
	var body []byte
	var flags [8]byte
	w.order.(binary.ByteOrder).PutUint32(flags[:], cls)
	body = w.elem(body, miUINT32, flags[:])
	body = w.elem(body, miINT32, w.order.AppendUint32(w.order.AppendUint32(nil, uint32(len(vals))), 1))
	body = w.elem(body, miINT8, []byte(name))
	body = w.elem(body, typ, intBytes(w.order, size, vals))
	return matVar{rawBody: body}
}

func TestMATIntLabelRange(t *testing.T) {
	const (
		mxINT8, mxUINT8, mxINT16, mxUINT16, mxINT32, mxUINT32, mxINT64 = 8, 9, 10, 11, 12, 13, 14
	)
	type gnd struct {
		cls, typ uint32
		size     int
		vals     []uint64
	}
	load := func(t *testing.T, order binary.AppendByteOrder, compressed bool, g gnd) (*Dataset, string, error) {
		t.Helper()
		w := newMAT(order, compressed)
		w.add(matVar{name: "fea", class: mxDOUBLE, dims: []int32{2, 2}, miType: miDOUBLE, data: []float64{1, 2, 3, 4}})
		w.add(matIntVar(w, "gnd", g.cls, g.typ, g.size, g.vals))
		p := writeFile(t, t.TempDir(), "l.mat", w.bytes())
		ds, err := (MAT{File: p}).Load(context.Background())
		return ds, p, err
	}
	bad := []struct {
		name   string
		g      gnd
		label  string
		digits string
	}{
		{"int64 2^53+1", gnd{mxINT64, miINT64, 8, s64(1, two53+1)}, "label gnd(2) = ", "9007199254740993"},
		{"int64 2^53 and 2^53+1", gnd{mxINT64, miINT64, 8, s64(two53, two53+1)}, "label gnd(2) = ", "9007199254740993"},
		{"int64 -2^53-1", gnd{mxINT64, miINT64, 8, s64(-two53-1, 1)}, "label gnd(1) = ", "-9007199254740993"},
		{"int64 MaxInt64", gnd{mxINT64, miINT64, 8, s64(0, maxInt64)}, "label gnd(2) = ", "9223372036854775807"},
		{"int64 MinInt64", gnd{mxINT64, miINT64, 8, s64(minInt64, 0)}, "label gnd(1) = ", "-9223372036854775808"},
		{"uint64 2^53+1", gnd{mxUINT64, miUINT64, 8, []uint64{0, two53Plus1}}, "label gnd(2) = ", "9007199254740993"},
		{"uint64 2^63", gnd{mxUINT64, miUINT64, 8, []uint64{twoTo63, 0}}, "label gnd(1) = ", "9223372036854775808"},
		{"uint64 MaxUint64", gnd{mxUINT64, miUINT64, 8, []uint64{1, maxUint64}}, "label gnd(2) = ", "18446744073709551615"},
		// A double variable whose data is stored as int64 is read as one.
		{"double stored as int64", gnd{mxDOUBLE, miINT64, 8, s64(two53+1, 0)}, "label gnd(1) = ", "9007199254740993"},
	}
	good := []struct {
		name    string
		g       gnd
		classes []string
		labels  []int
	}{
		{"int64 ±2^53", gnd{mxINT64, miINT64, 8, s64(two53, -two53)}, []string{"-9007199254740992", "9007199254740992"}, []int{1, 0}},
		{"uint64 2^53", gnd{mxUINT64, miUINT64, 8, []uint64{1 << 53, 0}}, []string{"0", "9007199254740992"}, []int{1, 0}},
		{"int8 extremes", gnd{mxINT8, miINT8, 1, s64(math.MaxInt8, math.MinInt8)}, []string{"-128", "127"}, []int{1, 0}},
		{"uint8 max", gnd{mxUINT8, miUINT8, 1, []uint64{math.MaxUint8, 0}}, []string{"0", "255"}, []int{1, 0}},
		{"int16 extremes", gnd{mxINT16, miINT16, 2, s64(math.MinInt16, math.MaxInt16)}, []string{"-32768", "32767"}, []int{0, 1}},
		{"uint16 max", gnd{mxUINT16, miUINT16, 2, []uint64{math.MaxUint16, 0}}, []string{"0", "65535"}, []int{1, 0}},
		{"int32 extremes", gnd{mxINT32, miINT32, 4, s64(math.MaxInt32, math.MinInt32)}, []string{"-2147483648", "2147483647"}, []int{1, 0}},
		{"uint32 max", gnd{mxUINT32, miUINT32, 4, []uint64{0, math.MaxUint32}}, []string{"0", "4294967295"}, []int{0, 1}},
	}
	for _, order := range []binary.AppendByteOrder{binary.LittleEndian, binary.BigEndian} {
		for _, compressed := range []bool{false, true} {
			name := order.String()
			if compressed {
				name += "/zlib"
			}
			for _, c := range bad {
				t.Run(name+"/"+c.name, func(t *testing.T) {
					_, p, err := load(t, order, compressed, c.g)
					wantLabelRange(t, err, p, c.label, c.digits)
				})
			}
			for _, c := range good {
				t.Run(name+"/"+c.name, func(t *testing.T) {
					ds, _, err := load(t, order, compressed, c.g)
					wantClasses(t, ds, err, c.classes, c.labels)
				})
			}
		}
	}
}
