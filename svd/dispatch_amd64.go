//go:build amd64 && !purego

package svd

import (
	"math"
	"math/bits"
	"slices"
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

// useSplit selects the split kernel (jacobi8sAVX512) or up to 32 x 32
// (useLanesB) the lane kernel (jacobi1b) for groups of one to four
// matrices, with the bits of jacobi8AVX512 (tests flip them to compare).
var useSplit, useLanesB = true, true

// lanesBAll sends every group of up to four matrices of up to 32 x 32 to
// the lane kernel (for the tests).
var lanesBAll = false

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

	// The split layout (jacobi8sAVX512: up to four matrices, two lanes
	// each) for groups of one to four matrices.
	sg      []float64 // 64-byte aligned: n*nv vectors of 8
	snorms  []float64 // 64-byte aligned: n vectors of 8
	spoff   []int64   // poff with the split layout's column stride
	sparams [32]float64
	lb      *lanesB // one matrix of up to 32 x 32 (nil beyond)
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
	if n >= 2 {
		nv := half(n)
		x.sg = aligned64(make([]float64, n*nv*lanes+8), n*nv*lanes)
		x.snorms = aligned64(make([]float64, n*lanes+8), n*lanes)
		for k := 0; k+1 < len(pr); k += 2 {
			p, q := int64(pr[k]), int64(pr[k+1])
			x.spoff = append(x.spoff, p*int64(nv)*64, q*int64(nv)*64, p*64, q*64)
		}
	}
	x.lb = newLanesB(n, tolerance(n))
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
		if cnt <= lanes/2 && useSplit {
			// One to four matrices: the split kernel, half the work a
			// matrix, the same bits.
			var ms [lanes / 2][]float64
			for m := range cnt {
				ms[m] = a[(i0+m)*step:]
			}
			if err := x.valuesSplit(s[i0*lds:], lds, &ms, n, lda, cnt, false); err != nil {
				err.Index += i0
				return err
			}
			continue
		}
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

// groupScale is load8AVX512's scaling of a group of up to four matrices
// (2^-exp applied where scaled: in every matrix of the group when one of
// them has its largest entry's exponent beyond ±100) and each matrix's
// ‖A‖_F² in load8AVX512's order (row by row in one chain, or when scaled
// over the scaled columns in two alternating chains), of which 2^-120 is
// the negligible threshold.
type groupScale struct {
	exp    [lanes / 2]int // 0 where not scaled
	scaled [lanes / 2]bool
	negl   [lanes / 2]float64
}

// scaleGroup returns the groupScale of the cnt matrices ms[m] (n x n, row
// stride lda), or with each that of each matrix in a group of its own,
// and the index of the first matrix with a NaN or Inf entry (or -1).
func scaleGroup(ms *[lanes / 2][]float64, n, lda, cnt int, each bool) (groupScale, int) {
	var g groupScale
	var e [lanes / 2]int
	wide := false
	for m := 0; m < cnt; m++ {
		am := ms[m]
		var amax, fro float64
		for r := 0; r < n; r++ {
			for _, v := range am[r*lda : r*lda+n] {
				av := math.Abs(v)
				if !(av <= math.MaxFloat64) {
					return g, m
				}
				amax = max(amax, av)
				fro = math.FMA(v, v, fro)
			}
		}
		if amax != 0 {
			_, e[m] = math.Frexp(amax) // VGETEXPPD + 1
			wide = wide || e[m] > 100 || e[m] < -100
		}
		g.negl[m] = fro
	}
	for m := 0; m < cnt; m++ {
		if !wide || each && e[m] <= 100 && e[m] >= -100 {
			continue
		}
		g.scaled[m], g.exp[m] = true, e[m]
		am := ms[m]
		var f0, f1 float64
		i := 0
		for c := 0; c < n; c++ {
			for r := 0; r < n; r++ {
				v := math.Ldexp(am[r*lda+c], -e[m]) // VSCALEFPD: exact, or rounded once
				if i&1 == 0 {
					f0 = math.FMA(v, v, f0)
				} else {
					f1 = math.FMA(v, v, f1)
				}
				i++
			}
		}
		g.negl[m] = f0 + f1
	}
	return g, -1
}

// valuesSplit is valuesAVX512 for cnt <= 4 matrices (n >= 2), matrix m at
// ms[m] (row stride lda), its values into s[m*lds:m*lds+n], each with the
// bits jacobi8AVX512 gives it in a group of these cnt matrices, or with
// each: in a group of its own. One or two matrices of up to 32 x 32 go
// through the lane kernel (jacobi1b; two of up to 16 x 16 at once,
// jacobi1bDual), where that is faster than one run of the split kernel
// (jacobi8sAVX512) for all. On a Zen 5 machine (random near-90° products):
// one matrix, the lane kernel 1.1-1.2, 2.4, 4.0-4.2, 7.0 and 20.5-21.5 µs
// at n = 5, 8, 12, 16 and 25, the split kernel 1.0, 2.7, 7.2-7.6, 16-17
// and 59-74 µs; two, the dual lane kernel 1.5, 3.3, 5.8 and 10.5-11.1 µs
// at n = 5, 8, 12 and 16, two lane runs 40.5 µs at 25, the split kernel
// 1.1, 2.9-3.3, 7.6-8.0, 17.3 and 63-88 µs; four, the split kernel 1.4,
// 9.3-9.8 and 72-92 µs (n = 5, 12, 25), the lane kernel four times that
// of one.
func (x *batchAsm) valuesSplit(s []float64, lds int, ms *[lanes / 2][]float64, n, lda, cnt int, each bool) *BatchError {
	g, bad := scaleGroup(ms, n, lda, cnt, each)
	if bad >= 0 {
		return &BatchError{Index: bad, Err: errNotFinite}
	}
	if x.lb != nil && x.lb.dbuf != nil && useLanesB && cnt == 2 && (n >= 10 || lanesBAll) {
		if bad := x.lb.values2(s, s[lds:], ms[0], ms[1], lda, g, 0, 1); bad >= 0 {
			return &BatchError{Index: bad, Err: ErrNoConvergence}
		}
		return nil
	}
	if x.lb != nil && useLanesB && (cnt == 1 && n >= 8 || cnt == 2 && n >= 16 || lanesBAll) {
		for m := 0; m < cnt; m++ {
			if !x.lb.values(s[m*lds:], ms[m], lda, g, m) {
				return &BatchError{Index: m, Err: ErrNoConvergence}
			}
		}
		return nil
	}
	nv := half(n)
	clear(x.sg)
	for m := 0; m < cnt; m++ {
		am := ms[m]
		for c := 0; c < n; c++ {
			col := x.sg[c*nv*lanes+2*m:]
			for r := 0; r < n; r++ {
				v := am[r*lda+c]
				if g.scaled[m] {
					v = math.Ldexp(v, -g.exp[m])
				}
				col[(r>>1)*lanes+r&1] = v
			}
		}
	}
	x.sparams = x.params
	for m := 0; m < lanes/2; m++ {
		t := 0.0
		if m < cnt {
			t = g.negl[m] * x.params[pNeglF]
		}
		x.sparams[2*m], x.sparams[2*m+1] = t, t
	}
	mask := jacobi8sAVX512(&x.sg[0], n, nv, &x.spoff[0], x.ppr, x.rounds, &x.sparams, &x.snorms[0], MaxSweeps)
	for m := 0; m < cnt; m++ {
		if mask&(3<<(2*m)) != 0 {
			return &BatchError{Index: m, Err: ErrNoConvergence}
		}
		out := s[m*lds : m*lds+n]
		for c := range out {
			out[c] = x.snorms[c*lanes+2*m]
		}
		valuesFromNorms(out, g.exp[m])
	}
	return nil
}

// valuesFromNorms turns the squared column norms in out into the singular
// values as norms8AVX512 and sort8AVX512 give them: the square roots
// scaled back by 2^exp, in descending order.
func valuesFromNorms(out []float64, exp int) {
	for j, v := range out {
		out[j] = math.Ldexp(math.Sqrt(v), exp)
	}
	slices.Sort(out)
	slices.Reverse(out)
}

// factorizeValuesAVX512 is Pair.FactorizeValues on AVX-512 (n >= 2), where
// the values with Batch.Values' bits need a run of the batch kernel beside
// the single-matrix factorisations: both matrices in one run of the split
// kernel, each valued as in a group of its own (Small.FactorizeValues'
// bits).
func (p *Pair) factorizeValuesAVX512(u [2][]float64, ldu int, s, v, bv [2][]float64, ldv int, a [2][]float64, lda int) error {
	n := p.n
	var ms [lanes / 2][]float64
	if err := p.factorizeEach(u, ldu, s, v, ldv, a, lda); err != nil {
		return err
	}
	ms[0], ms[1] = a[0], a[1]
	x := p.w[0].batch.asm
	var sv [2 * MaxSmall]float64
	if err := x.valuesSplit(sv[:], n, &ms, n, lda, 2, true); err != nil {
		return err
	}
	copy(bv[0][:n], sv[:n])
	copy(bv[1][:n], sv[n:2*n])
	return nil
}
