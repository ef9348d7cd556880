//go:build amd64 && !purego

package svd

import (
	"math"
	"unsafe"

	"github.com/klauspost/cpuid/v2"
)

// hasAVX512 reports whether the CPU (and OS) support the AVX-512 subset the
// kernels use (AVX512F only).
var hasAVX512 = cpuid.CPU.Supports(cpuid.AVX512F)

// useAVX512 selects the AVX-512 kernels. Tests flip it to run the pure-Go
// path too.
var useAVX512 = hasAVX512

// useAVX512Possible reports whether useAVX512 can ever be true (workspace
// for the asm path is allocated only then).
const useAVX512Possible = true

// lanes is the number of float64 in a ZMM register: matrices per group.
const lanes = 8

// batchAsm is the AVX-512 workspace of a Batch.
type batchAsm struct {
	g      []float64 // 64-byte aligned view of Batch.lanes: n*n vectors of 8
	sv     []float64 // 64-byte aligned view of Batch.sv: n vectors of 8
	poff   []int64   // byte offsets of the column pairs of one sweep
	params [16]float64
	exps   [lanes]int
	col    []float64 // one lane's singular values, for sorting
	perm   []int
}

// aligned64 returns buf[i:i+n] with &buf[i] 64-byte aligned.
func aligned64(buf []float64, n int) []float64 {
	off := int((64-uintptr(unsafe.Pointer(&buf[0]))%64)%64) / 8
	return buf[off : off+n : off+n]
}

func (w *Batch) initAsm() {
	n := w.n
	x := &batchAsm{
		g:    aligned64(w.lanes, n*n*lanes),
		sv:   aligned64(w.sv, n*lanes),
		col:  make([]float64, n),
		perm: make([]int, n),
	}
	for _, p := range w.small.pairs {
		x.poff = append(x.poff, int64(p)*int64(n)*64)
	}
	x.params[8] = tolerance(n)
	x.params[9] = 1
	x.params[10] = 0.5
	x.params[11] = 1.5
	x.params[12] = math.Float64frombits(1 << 63)
	x.params[13] = math.Float64frombits(1<<63 - 1)
	w.asm = x
}

func (w *Batch) valuesAVX512(s []float64, lds int, a []float64, lda, step, k int) error {
	n := w.n
	x := w.asm
	if len(x.poff) == 0 { // n == 1
		for i := 0; i < k; i++ {
			v := a[i*step]
			if !(math.Abs(v) <= math.MaxFloat64) {
				return &BatchError{Index: i, Err: ErrNotFinite}
			}
			s[i*lds] = math.Abs(v)
		}
		return nil
	}
	for i0 := 0; i0 < k; i0 += lanes {
		cnt := min(lanes, k-i0)
		for l := 0; l < lanes; l++ {
			if l >= cnt {
				clearLane(x.g, l, n)
				x.params[l] = 0
				continue
			}
			e, negl, ok := loadLane(x.g, l, a[(i0+l)*step:], lda, n)
			if !ok {
				return &BatchError{Index: i0 + l, Err: ErrNotFinite}
			}
			x.exps[l] = e
			x.params[l] = negl
		}
		if mask := jacobi8AVX512(&x.g[0], n, &x.poff[0], len(x.poff), &x.params, MaxSweeps); mask&(1<<cnt-1) != 0 {
			for l := 0; l < cnt; l++ {
				if mask&(1<<l) != 0 {
					return &BatchError{Index: i0 + l, Err: ErrNoConvergence}
				}
			}
		}
		norms8AVX512(&x.sv[0], &x.g[0], n)
		for l := 0; l < cnt; l++ {
			col := x.col
			for c := range col {
				col[c] = x.sv[c*lanes+l]
			}
			sortDescending(x.perm, col)
			out := s[(i0+l)*lds : (i0+l)*lds+n]
			e := x.exps[l]
			for j, p := range x.perm {
				out[j] = math.Ldexp(col[p], e)
			}
		}
	}
	return nil
}

// loadLane writes the scaled transpose of the n x n matrix a into lane l of
// g (element (r, c) to vector c*n+r) and returns the scaling exponent, the
// negligible threshold and whether a is finite (see loadTransposed).
func loadLane(g []float64, l int, a []float64, lda, n int) (int, float64, bool) {
	var amax float64
	for r := 0; r < n; r++ {
		for _, v := range a[r*lda : r*lda+n] {
			av := math.Abs(v)
			if !(av <= math.MaxFloat64) {
				return 0, 0, false
			}
			amax = max(amax, av)
		}
	}
	e := 0
	if amax > 0 {
		_, e = math.Frexp(amax)
	}
	var f float64
	if e > -1000 && e < 1000 {
		scale := math.Ldexp(1, -e)
		for r := 0; r < n; r++ {
			ar := a[r*lda : r*lda+n]
			for c, v := range ar {
				v *= scale
				g[(c*n+r)*lanes+l] = v
				f += float64(v * v)
			}
		}
	} else {
		for r := 0; r < n; r++ {
			ar := a[r*lda : r*lda+n]
			for c, v := range ar {
				v = math.Ldexp(v, -e)
				g[(c*n+r)*lanes+l] = v
				f += float64(v * v)
			}
		}
	}
	return e, float64(f * 0x1p-120), true
}

// clearLane zeroes lane l of g (a padding lane of a partial group).
func clearLane(g []float64, l, n int) {
	for i := l; i < n*n*lanes; i += lanes {
		g[i] = 0
	}
}
