//go:build amd64 && !purego

package svd

import (
	"math"
	"math/bits"
	"unsafe"

	"github.com/grlgq/grlgq/internal/cpu"
)

// useAVX512 selects the AVX-512 kernels: the decision of package
// internal/cpu, which package kernels follows too. Tests flip it to run the
// pure-Go path too.
var useAVX512 = cpu.AVX512

// useAVX512Possible reports whether useAVX512 can ever be true (workspace
// for the asm path is allocated only then).
const useAVX512Possible = true

// lanes is the number of float64 in a ZMM register: matrices per group.
const lanes = 8

// Layout of the kernels' params array (see asm/jacobi).
const (
	pTol    = 8
	pOne    = 9
	pHalf   = 10
	pThreeH = 11
	pSign   = 12
	pAbs    = 13
	pMaxF   = 14
	pNeglF  = 15
	pExp    = 16
)

// batchAsm is the AVX-512 workspace of a Batch.
type batchAsm struct {
	g      []float64 // 64-byte aligned view of Batch.lanes: n*n vectors of 8
	sv     []float64 // 64-byte aligned: n vectors of 8 (singular values)
	norms  []float64 // 64-byte aligned: n vectors of 8 (squared column norms)
	poff   []int64   // per pair of one sweep: byte offsets of the columns in g and in norms
	ppr    int       // pairs per round
	rounds int
	params [32]float64
	offs   [lanes]int64
	net    []int32 // sorting network on the n value vectors: byte-offset pairs
}

// aligned64 returns buf[i:i+n] with &buf[i] 64-byte aligned.
func aligned64(buf []float64, n int) []float64 {
	off := int((64-uintptr(unsafe.Pointer(&buf[0]))%64)%64) / 8
	return buf[off : off+n : off+n]
}

func (w *Batch) initAsm() {
	n := w.n
	x := &batchAsm{
		g:     aligned64(w.lanes, n*n*lanes),
		sv:    aligned64(w.sv, n*lanes),
		norms: aligned64(make([]float64, n*lanes+8), n*lanes),
		ppr:   n / 2,
	}
	pr := w.small.pairs
	for k := 0; k+1 < len(pr); k += 2 {
		p, q := int64(pr[k]), int64(pr[k+1])
		x.poff = append(x.poff, p*int64(n)*64, q*int64(n)*64, p*64, q*64)
	}
	if x.ppr > 0 {
		x.rounds = len(x.poff) / 4 / x.ppr
	}
	for _, c := range sortingNetwork(n) {
		x.net = append(x.net, int32(c[0]*64), int32(c[1]*64))
	}
	x.params[pTol] = tolerance(n) * tolerance(n)
	x.params[pOne] = 1
	x.params[pHalf] = 0.5
	x.params[pThreeH] = 1.5
	x.params[pSign] = math.Float64frombits(1 << 63)
	x.params[pAbs] = math.Float64frombits(1<<63 - 1)
	x.params[pMaxF] = math.MaxFloat64
	x.params[pNeglF] = 0x1p-120
	w.asm = x
}

func (w *Batch) valuesAVX512(s []float64, lds int, a []float64, lda, step, k int) error {
	n := w.n
	x := w.asm
	if n == 1 {
		for i := 0; i < k; i++ {
			v := a[i*step]
			if !(math.Abs(v) <= math.MaxFloat64) {
				return &BatchError{Index: i, Err: errNotFinite}
			}
			s[i*lds] = math.Abs(v)
		}
		return nil
	}
	for l := range x.offs {
		x.offs[l] = int64(l) * int64(step) * 8
	}
	for i0 := 0; i0 < k; i0 += lanes {
		cnt := min(lanes, k-i0)
		if bad := load8AVX512(&x.g[0], &a[i0*step], &x.offs, n, lda, 1<<cnt-1, &x.params); bad != 0 {
			return &BatchError{Index: i0 + bits.TrailingZeros64(bad), Err: errNotFinite}
		}
		if mask := jacobi8AVX512(&x.g[0], n, &x.poff[0], x.ppr, x.rounds, &x.params, &x.norms[0], MaxSweeps); mask&(1<<cnt-1) != 0 {
			return &BatchError{Index: i0 + bits.TrailingZeros64(mask), Err: ErrNoConvergence}
		}
		norms8AVX512(&x.sv[0], &x.g[0], n, &x.params)
		if len(x.net) > 0 {
			sort8AVX512(&x.sv[0], &x.net[0], len(x.net)/2)
		}
		for l := 0; l < cnt; l++ {
			out := s[(i0+l)*lds : (i0+l)*lds+n]
			for j := range out {
				out[j] = x.sv[j*lanes+l]
			}
		}
	}
	return nil
}

// sortingNetwork returns the comparators (i, j), i < j, of Batcher's
// odd-even merge sort on n inputs (the network for the next power of two,
// without the comparators that touch the padding: padding with -Inf at the
// end, they would exchange nothing). Each comparator puts the larger value
// at i: the network sorts descending.
func sortingNetwork(n int) [][2]int {
	var net [][2]int
	size := 1
	for size < n {
		size *= 2
	}
	for p := 1; p < size; p *= 2 {
		for k := p; k >= 1; k /= 2 {
			for j := k % p; j+k < size; j += 2 * k {
				for i := 0; i < k && i+j+k < size; i++ {
					if (i+j)/(2*p) == (i+j+k)/(2*p) && i+j+k < n {
						net = append(net, [2]int{i + j, i + j + k})
					}
				}
			}
		}
	}
	return net
}
