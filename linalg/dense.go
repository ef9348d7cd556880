package linalg

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/grlgq/grlgq/internal/numerr"
	"github.com/grlgq/grlgq/kernels"
)

const (
	errShape    = "linalg: dimension mismatch"
	errNegative = "linalg: negative dimension"
	errShort    = "linalg: data too short for shape"
	errIndex    = "linalg: index out of range"
)

// ErrNotFinite is returned (wrapped) when a matrix holds NaN or ±Inf. It is
// the module's one "not finite" sentinel: the same value as
// svd.ErrNotFinite, engine.ErrNotFinite, subspace.ErrNotFinite and
// model.ErrNotFinite.
var ErrNotFinite = numerr.ErrNotFinite

// Alignment is the byte alignment of the first element of slices returned by
// NewDense and AlignedSlice (one cache line, one 512-bit vector).
const Alignment = 64

// Dense is a row-major matrix with an explicit row stride: element (r, c) is
// Data[r*Stride+c], for r < Rows, c < Cols <= Stride. Columns Cols..Stride-1
// of each row are padding and are kept zero.
type Dense struct {
	Rows, Cols, Stride int
	Data               []float64
}

// AlignedSlice returns a zeroed slice of n float64 whose first element is
// 64-byte aligned (Go's garbage collector never moves heap objects).
func AlignedSlice(n int) []float64 {
	if n < 0 {
		panic(errNegative)
	}
	const extra = Alignment / 8
	buf := make([]float64, n+extra)
	off := 0
	if rem := uintptr(unsafe.Pointer(unsafe.SliceData(buf))) % Alignment; rem != 0 {
		off = int((Alignment - rem) / 8)
	}
	return buf[off : off+n : off+n]
}

// NewDense returns a zeroed rows x cols matrix with Stride =
// kernels.Stride(cols) and 64-byte aligned Data.
func NewDense(rows, cols int) *Dense {
	if rows < 0 || cols < 0 {
		panic(errNegative)
	}
	ld := kernels.Stride(cols)
	return &Dense{Rows: rows, Cols: cols, Stride: ld, Data: AlignedSlice(rows * ld)}
}

// NewDenseOn returns a rows x cols view with the given stride on data (no
// copy). It panics if stride < cols or data is too short. The caller keeps
// the padding zero.
func NewDenseOn(rows, cols, stride int, data []float64) *Dense {
	if rows < 0 || cols < 0 {
		panic(errNegative)
	}
	if stride < cols {
		panic(errShape)
	}
	if rows > 0 && len(data) < (rows-1)*stride+cols {
		panic(errShort)
	}
	return &Dense{Rows: rows, Cols: cols, Stride: stride, Data: data}
}

// Dims returns the number of rows and columns (gonum's mat.Matrix
// convention), so that code that only reads a matrix need not name this
// type.
func (m *Dense) Dims() (rows, cols int) { return m.Rows, m.Cols }

// At returns element (r, c).
func (m *Dense) At(r, c int) float64 {
	if uint(r) >= uint(m.Rows) || uint(c) >= uint(m.Cols) {
		panic(errIndex)
	}
	return m.Data[r*m.Stride+c]
}

// Set sets element (r, c) to v.
func (m *Dense) Set(r, c int, v float64) {
	if uint(r) >= uint(m.Rows) || uint(c) >= uint(m.Cols) {
		panic(errIndex)
	}
	m.Data[r*m.Stride+c] = v
}

// Row returns the logical columns of row r (length Cols), sharing Data.
func (m *Dense) Row(r int) []float64 {
	if uint(r) >= uint(m.Rows) {
		panic(errIndex)
	}
	o := r * m.Stride
	return m.Data[o : o+m.Cols : o+m.Cols]
}

// SameShape reports whether m and a have the same number of rows and columns.
func (m *Dense) SameShape(a *Dense) bool { return m.Rows == a.Rows && m.Cols == a.Cols }

// CopyFrom copies the logical entries of src into m; shapes must match
// (strides may differ). When both are Flat with one stride it is one
// block copy, padding included (zero on both sides); otherwise columns
// Cols..Stride-1 of m are left untouched, so m
// may be a view into a wider matrix (the engine's prototypes are columns of
// one wide matrix, with a stride other than kernels.Stride(Cols)).
func (m *Dense) CopyFrom(src *Dense) {
	if !m.SameShape(src) {
		panic(errShape)
	}
	if m == src {
		return
	}
	if f := m.Flat(); f != nil && m.Stride == src.Stride {
		copy(f, src.Data[:len(f)])
		return
	}
	if m.Cols <= 16 {
		// Narrow rows (a D x d basis): an inline loop beats a memmove call
		// per row.
		for r := 0; r < m.Rows; r++ {
			d := m.Data[r*m.Stride : r*m.Stride+m.Cols]
			copy16(d, src.Data[r*src.Stride:r*src.Stride+len(d)])
		}
		return
	}
	for r := 0; r < m.Rows; r++ {
		copy(m.Data[r*m.Stride:r*m.Stride+m.Cols], src.Data[r*src.Stride:r*src.Stride+src.Cols])
	}
}

// Flat returns m's rows as one slice, Data[:(Rows-1)·Stride+Cols], when a
// sweep over it touches only m's own memory: its stride is Cols (no
// padding) or kernels.Stride(Cols) (a standard matrix's padding, which is
// its own); otherwise, and for an empty m, nil. A view into a wider
// matrix must therefore not have either stride (an engine's side-by-side
// prototypes never do): the columns between its rows belong to others.
// Two flat matrices of one shape and stride can be combined element by
// element in one sweep.
func (m *Dense) Flat() []float64 {
	if m.Rows == 0 || m.Stride != m.Cols && m.Stride != kernels.Stride(m.Cols) {
		return nil
	}
	return m.Data[:(m.Rows-1)*m.Stride+m.Cols]
}

// copy16 copies len(dst) <= 16 values without calling memmove.
func copy16(dst, src []float64) {
	src = src[:len(dst)]
	for i := range dst {
		dst[i] = src[i]
	}
}

// Zero sets every logical entry of m to zero (padding is zero already).
func (m *Dense) Zero() {
	for r := 0; r < m.Rows; r++ {
		row := m.Data[r*m.Stride : r*m.Stride+m.Cols]
		for i := range row {
			row[i] = 0
		}
	}
}

// Validate returns an error wrapping ErrNotFinite, naming the first entry,
// if m holds NaN or ±Inf.
func (m *Dense) Validate() error {
	for r := 0; r < m.Rows; r++ {
		row := m.Data[r*m.Stride : r*m.Stride+m.Cols]
		if !finite(row) {
			for c, v := range row {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("linalg: %w: entry (%d, %d) is %v", ErrNotFinite, r, c, v)
				}
			}
		}
	}
	return nil
}

// finite reports whether every element of x is finite. v-v is 0 for finite v
// and NaN for NaN and ±Inf; the sum keeps any NaN.
func finite(x []float64) bool {
	var s0, s1 float64
	i := 0
	for ; i+2 <= len(x); i += 2 {
		s0 += x[i] - x[i]
		s1 += x[i+1] - x[i+1]
	}
	for ; i < len(x); i++ {
		s0 += x[i] - x[i]
	}
	return s0+s1 == 0
}

// Finite reports whether every element of x is finite (no NaN, no ±Inf).
func Finite(x []float64) bool { return finite(x) }

// Norm returns the Euclidean norm ‖x‖ of a vector (a single image: the
// engine, the model and package subspace all take an image's norm from
// here). The sum of squares is one kernels.Dot when it lies in
// [2^-900, 2^900], so the bits are the Dot's of the implementation in use;
// otherwise (a tiny, huge or non-finite x) a second pass scaled by
// max|x_i| computes it without overflow or underflow. An all-zero x gives
// 0; a NaN or ±Inf entry gives an error wrapping ErrNotFinite that names it.
func Norm(x []float64) (float64, error) {
	if n2 := kernels.Dot(x, x); n2 >= 0x1p-900 && n2 <= 0x1p900 {
		return math.Sqrt(n2), nil
	}
	var mx float64
	for i, v := range x {
		if v-v != 0 {
			return 0, fmt.Errorf("linalg: %w: entry %d is %v", ErrNotFinite, i, v)
		}
		if a := math.Abs(v); a > mx {
			mx = a
		}
	}
	if mx == 0 {
		return 0, nil
	}
	var ss float64
	for _, v := range x {
		t := v / mx
		ss += float64(t * t)
	}
	return mx * math.Sqrt(ss), nil
}
