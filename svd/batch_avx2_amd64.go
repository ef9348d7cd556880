//go:build amd64 && !purego

package svd

import (
	"math"
	"unsafe"

	"github.com/grlgq/grlgq/internal/cpu"
)

// useAVX2 selects the AVX2 batch kernel where the AVX-512 one is not used:
// the decision of package internal/cpu. Tests flip it.
var useAVX2 = cpu.AVX2

// lanes4 is the number of float64 in a YMM register: matrices per group of
// the AVX2 kernel.
const lanes4 = 4

// batchAVX2 is the workspace of the AVX2 batch kernel. For Batch, a group
// of 4 matrices, column c row r of matrix l at g[(c*n+r)*4+l]
// (jacobi4AVX2). For Small and Pair, the split layout of jacobi4sAVX2: a
// matrix in lanes 2l and 2l+1, rows 2k and 2k+1 of column c at
// g[(c*vecs+k)*4+2l] and g[(c*vecs+k)*4+2l+1], the column of V after those
// of the matrix (splitAt).
type batchAVX2 struct {
	g       []float64 // 32-byte aligned, n*n vectors of 4
	norms   []float64 // 32-byte aligned, n vectors of 4: squared column norms
	nv      int       // rows of V after each column (Small), 0 for Batch
	poff    []int64   // per pair of a sweep: byte offsets of the columns in g and in norms
	poffV   []int64   // the same with the V rows (Small)
	ppr     int
	rounds  int
	exp     [lanes4]int // scaling exponent of each lane
	sv      []float64   // n values of one lane
	scratch []float64   // 16 per pair of a round: γ, c, s, lanes that rotate
	params  [8]float64
	tail    [lanes4]uint64 // the loader's mask of the first n mod 4 lanes
}

// tailMask returns the mask of the first n mod 4 lanes (absMax4AVX2 and
// gramLoad4AVX2 read a row's last n mod 4 columns through it).
func tailMask(n int) [lanes4]uint64 {
	var m [lanes4]uint64
	for l := 0; l < n%lanes4; l++ {
		m[l] = 1<<64 - 1
	}
	return m
}

// aligned32 returns buf[i:i+n] with &buf[i] 32-byte aligned.
func aligned32(buf []float64, n int) []float64 {
	off := int((32-uintptr(unsafe.Pointer(&buf[0]))%32)%32) / 8
	return buf[off : off+n : off+n]
}

func newBatchAVX2(n int, pairs []int32) *batchAVX2 {
	x := newAVX2(n, 0, pairs)
	x.scratch = make([]float64, 32*max(n/2, 1)) // jacobi4x2AVX2's: both groups' slots
	return x
}

// newAVX2 returns the workspace of the AVX2 kernel for n x n matrices whose
// columns carry nv more rows (V) rotated with them.
func newAVX2(n, nv int, pairs []int32) *batchAVX2 {
	x := &batchAVX2{
		nv:      nv,
		g:       aligned32(make([]float64, n*(n+nv)*lanes4+4), n*(n+nv)*lanes4),
		norms:   aligned32(make([]float64, n*lanes4+4), n*lanes4),
		sv:      make([]float64, n),
		scratch: make([]float64, 16*max(n/2, 1)),
		ppr:     n / 2,
		tail:    tailMask(n),
	}
	x.poff = pairOffsets(pairs, n)
	if nv > 0 {
		x.poffV = pairOffsets(pairs, n+nv)
	}
	if x.ppr > 0 {
		x.rounds = len(x.poff) / 4 / x.ppr
	}
	tol := tolerance(n)
	x.params[4] = tol * tol
	x.params[5] = 1
	x.params[6] = math.Float64frombits(1<<63 - 1)
	return x
}

// pairOffsets returns the kernel's pair list: for each pair (p, q), the
// byte offsets of columns p and q (stride rows vectors of 32 bytes) and of
// their squared norms.
func pairOffsets(pairs []int32, rows int) []int64 {
	var poff []int64
	for k := 0; k+1 < len(pairs); k += 2 {
		p, q := int64(pairs[k]), int64(pairs[k+1])
		poff = append(poff, p*int64(rows)*32, q*int64(rows)*32, p*32, q*32)
	}
	return poff
}

// newSmallAVX2 returns the AVX2 workspace of a Small (2 <= n <= MaxSmall,
// else nil): one matrix in lanes 0 and 1 of the split kernel (a Pair: two
// matrices, the second in lanes 2 and 3), its columns followed by those of
// V.
func newSmallAVX2(n int, pairs []int32) *batchAVX2 {
	if n < 2 || n > MaxSmall {
		return nil
	}
	x := newAVX2(n, n, pairs)
	h := half(n)
	x.poff = pairOffsets(pairs, h)
	x.poffV = pairOffsets(pairs, 2*h)
	return x
}

// half is the number of vectors of a column of n rows in the split layout.
func half(n int) int { return (n + 1) / 2 }

// splitAt is the index in g of row r of column c of the matrix in lane
// pair l (0 or 1) in the split layout with vecs vectors per column.
func splitAt(c, r, l, vecs int) int { return (c*vecs+r/2)*lanes4 + 2*l + r&1 }

// jacobiSplit runs jacobi4sAVX2 on x.g, n x n matrices (with V if withV),
// and returns the kernel's mask of lanes that had not converged.
func (x *batchAVX2) jacobiSplit(n int, withV bool) uint64 {
	h, nv, poff := half(n), 0, x.poff
	if withV {
		nv, poff = h, x.poffV
	}
	return jacobi4sAVX2(&x.g[0], h, nv, &poff[0], x.ppr, x.rounds, &x.params, &x.norms[0], &x.scratch[0], MaxSweeps, n)
}

// jacobiAVX2 runs the Jacobi iteration of w.g (row i = column i, scaled)
// and, if withV, of V = I, on the split AVX2 kernel (lanes 0 and 1; the
// other lanes are zero and never rotate); on return w.g and w.v hold the
// converged columns. It returns false if the iteration did not converge.
func (w *Small) jacobiAVX2(withV bool, negl float64) bool {
	x := w.avx2
	n := w.n
	x.splitLoad(n, 0, w.g, w.v, withV, true)
	x.params[0], x.params[1], x.params[2], x.params[3] = negl, negl, 0, 0
	x.params[7] = 0 // lanes 0 and 1 always rotate together; 2 and 3 never
	if x.jacobiSplit(n, withV)&1 != 0 {
		return false
	}
	x.splitStore(n, 0, w.g, w.v, withV)
	return true
}

// splitLoad writes the columns of g (row i = column i, n x n) and, if
// withV, of V = I into lane pair l of x.g in the split layout, after
// clearing x.g if clear0.
func (x *batchAVX2) splitLoad(n, l int, g, v []float64, withV, clear0 bool) {
	h, vecs := half(n), half(n)
	if withV {
		vecs = 2 * h
	}
	if clear0 {
		clear(x.g[:n*vecs*lanes4])
	}
	for c := 0; c < n; c++ {
		for r, e := range g[c*n : c*n+n] {
			x.g[splitAt(c, r, l, vecs)] = e
		}
		if withV {
			x.g[splitAt(c, 2*h+c, l, vecs)] = 1
		}
	}
}

// splitStore reads lane pair l of x.g back into g and, if withV, v.
func (x *batchAVX2) splitStore(n, l int, g, v []float64, withV bool) {
	h, vecs := half(n), half(n)
	if withV {
		vecs = 2 * h
	}
	for c := 0; c < n; c++ {
		gc := g[c*n : c*n+n]
		for r := range gc {
			gc[r] = x.g[splitAt(c, r, l, vecs)]
		}
		if withV {
			vc := v[c*n : c*n+n]
			for r := range vc {
				vc[r] = x.g[splitAt(c, 2*h+r, l, vecs)]
			}
		}
	}
}

// load writes the cnt <= 4 matrices at a[l*step:] (n x n, row stride lda)
// into the lanes of the group, transposed and each scaled by its power of
// two 2^-e_l (see loadTransposed), sets each lane's negligible threshold,
// and zeroes the lanes l >= cnt (they never rotate). It returns the index
// of the first matrix with a NaN or Inf entry, or -1.
func (x *batchAVX2) load(n int, a []float64, lda, step, cnt int) int {
	var scale [lanes4]float64
	src, _, bits := groupMax(a, n, lda, step, cnt, &x.tail)
	for l := 0; l < lanes4; l++ {
		if l >= cnt {
			scale[l], x.exp[l] = 0, 0
			continue
		}
		if bits[l] >= 0x7ff<<52 {
			return l
		}
		amax := math.Float64frombits(bits[l])
		e := 0
		if amax > 0 {
			_, e = math.Frexp(amax)
		}
		x.exp[l] = e
		if e > -1000 && e < 1000 {
			scale[l] = math.Ldexp(1, -e)
		} // else 2^-e is not representable: loadLane below

	}
	fro := interleave4(x.g[:n*n*lanes4], n, src, lda, scale)
	for l := 0; l < lanes4; l++ {
		if l < cnt && (x.exp[l] <= -1000 || x.exp[l] >= 1000) {
			fro[l] = x.loadLane(l, n, src[l], lda, x.exp[l])
		}
		x.params[l] = float64(fro[l] * 0x1p-120)
	}
	return -1
}

// groupMax returns the 4 lanes' matrices of a group of cnt (1..4) n x n
// matrices at a[l*step:] (row stride lda; lanes beyond cnt get the last
// one, for their loaders to multiply by 0), as slices and as pointers,
// and the bits of each one's largest magnitude (absMax4AVX2 or
// absMax4AVX512: NaN and Inf above every finite value). Batch's and
// Gram's loaders start with it.
func groupMax(a []float64, n, lda, step, cnt int, tail *[lanes4]uint64) (src [lanes4][]float64, ptr [lanes4]*float64, bits [lanes4]uint64) {
	return groupMaxAt(matrices{a: a, step: step}, 0, n, lda, cnt, tail)
}

// groupMaxAt is groupMax on the matrices i0 .. i0+cnt-1 of m.
func groupMaxAt(m matrices, i0, n, lda, cnt int, tail *[lanes4]uint64) (src [lanes4][]float64, ptr [lanes4]*float64, bits [lanes4]uint64) {
	for l := 0; l < lanes4; l++ {
		src[l] = m.at(i0 + min(l, cnt-1))[:(n-1)*lda+n]
		ptr[l] = &src[l][0]
	}
	if useAbsMax512 {
		absMax4AVX512(&ptr, n, lda, &bits)
	} else {
		absMax4AVX2(&ptr, n, lda, tail, &bits)
	}
	return src, ptr, bits
}

// useAbsMax512 selects absMax4AVX512 (ZMM loads, the tail by a K mask) for
// the loaders' largest magnitudes on CPUs that run the AVX-512 kernels:
// the same bits as absMax4AVX2 (a maximum is exact), about a third of its
// time at n = 25 (BenchmarkAbsMax4).
var useAbsMax512 = cpu.AVX512

// interleave4 writes the 4 n x n matrices src[l] (row stride lda),
// transposed and each scaled by scale[l], into the lanes of dst: element
// (r, c) of matrix l to dst[(c*n+r)*4+l]. It returns each lane's sum of
// squares of the scaled entries, one chain per lane in that order (the
// bits batchNegligible reproduces for Batch's threshold; for Gram's
// slack any order would do). Batch and Gram load through it.
func interleave4(dst []float64, n int, src [lanes4][]float64, lda int, scale [lanes4]float64) [lanes4]float64 {
	var fro [lanes4]float64
	s0, s1, s2, s3 := scale[0], scale[1], scale[2], scale[3]
	last := (n-1)*lda + n
	a0, a1, a2, a3 := src[0][:last], src[1][:last], src[2][:last], src[3][:last]
	dst = dst[:n*n*lanes4]
	j := 0
	for c := 0; c < n; c++ {
		for k := c; k < last; k += lda {
			v0, v1, v2, v3 := a0[k]*s0, a1[k]*s1, a2[k]*s2, a3[k]*s3
			dj := dst[j : j+4 : j+4]
			dj[0], dj[1], dj[2], dj[3] = v0, v1, v2, v3
			fro[0] += float64(v0 * v0)
			fro[1] += float64(v1 * v1)
			fro[2] += float64(v2 * v2)
			fro[3] += float64(v3 * v3)
			j += 4
		}
	}
	return fro
}

// loadLane writes matrix m into lane l scaled entry by entry by 2^-e
// (math.Ldexp) and returns the squared Frobenius norm of the scaled matrix.
func (x *batchAVX2) loadLane(l, n int, m []float64, lda, e int) float64 {
	var fro float64
	for c := 0; c < n; c++ {
		for r := 0; r < n; r++ {
			v := math.Ldexp(m[r*lda+c], -e)
			x.g[(c*n+r)*lanes4+l] = v
			fro += float64(v * v)
		}
	}
	return fro
}

func (w *Batch) valuesAVX2(s []float64, lds int, a []float64, lda, step, k int) error {
	n := w.n
	x := w.avx2
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
	xb := w.avx2b
	for i0 := 0; i0 < k; {
		// Five to eight matrices left: both groups in one run of
		// jacobi4x2AVX2 (each lane's bits as in jacobi4AVX2 alone).
		cnt, cntB := min(lanes4, k-i0), min(lanes4, k-i0-lanes4)
		if bad := x.load(n, a[i0*step:], lda, step, cnt); bad >= 0 {
			return &BatchError{Index: i0 + bad, Err: errNotFinite}
		}
		var mask uint64
		if cntB > 0 {
			if bad := xb.load(n, a[(i0+lanes4)*step:], lda, step, cntB); bad >= 0 {
				return &BatchError{Index: i0 + lanes4 + bad, Err: errNotFinite}
			}
			mask = jacobi4x2AVX2(&x.g[0], n, 0, &x.poff[0], x.ppr, x.rounds, &x.params, &x.norms[0], &x.scratch[0], MaxSweeps, &xb.g[0], &xb.params, &xb.norms[0])
		} else {
			mask = jacobi4AVX2(&x.g[0], n, 0, &x.poff[0], x.ppr, x.rounds, &x.params, &x.norms[0], &x.scratch[0], MaxSweeps)
		}
		for h, g := range [2]*batchAVX2{x, xb} {
			c := [2]int{cnt, cntB}[h]
			if c <= 0 {
				break
			}
			if m := mask >> (lanes4 * h); m&(1<<c-1) != 0 {
				for l := 0; l < c; l++ {
					if m&(1<<l) != 0 {
						return &BatchError{Index: i0 + lanes4*h + l, Err: ErrNoConvergence}
					}
				}
			}
			g.values(s[(i0+lanes4*h)*lds:], lds, n, c)
		}
		i0 += cnt + max(cntB, 0)
	}
	return nil
}

// values writes the values of the group's first cnt lanes into
// s[l*lds : l*lds+n] from the kernel's final squared norms:
// at convergence they are the exact sums of squares of the last sweep,
// which rotated nothing.
func (x *batchAVX2) values(s []float64, lds, n, cnt int) {
	for l := 0; l < cnt; l++ {
		x.laneOut(s[l*lds:l*lds+n], n, l, x.exp[l])
	}
}

// laneOut writes lane l's values into out[:n]: the square roots of its
// squared norms, sorted (sortValues), scaled back by 2^e.
func (x *batchAVX2) laneOut(out []float64, n, l, e int) {
	sv := x.sv[:n]
	for c := range sv {
		sv[c] = math.Sqrt(x.norms[c*lanes4+l])
	}
	sortValues(sv)
	if e != 0 {
		for j, v := range sv {
			out[j] = ldexp(v, e)
		}
	} else {
		copy(out[:n], sv)
	}
}

// laneValues writes into bv the values Batch.Values takes from the
// kernel's final squared norms of lane l (its sqrt, sortValues and scaling
// by 2^e) and reports true, if a run with the batch threshold neglB
// instead of negl is certified to be the same run (sameIteration); else
// it reports false and writes nothing.
func (x *batchAVX2) laneValues(bv []float64, n, l, e int, negl, neglB float64) bool {
	if !sameIteration(x.norms[l:], lanes4, n, negl, neglB) {
		return false
	}
	x.laneOut(bv, n, l, e)
	return true
}

// laneValues is batchAVX2.laneValues for the lane of a Small run.
func (w *Small) laneValues(bv []float64, l, e int, negl, neglB float64) bool {
	return w.avx2.laneValues(bv, w.n, l, e, negl, neglB)
}

// factorizeAVX2 is Pair.Factorize on the split AVX2 kernel: the two
// matrices, loaded and scaled as Small.Factorize loads them, in lanes
// (0, 1) and (2, 3) of the first workspace's group, each column followed
// by its column of V. All four lanes are the kernel's exact lanes: a pair
// of columns that rotates in one matrix only is left bit for bit as it is
// in the other, so each matrix gets what it gets alone; a matrix that has
// converged rotates nothing while the other goes on.
//
// With bv[0] and bv[1] not nil it is Pair.FactorizeValues: each lane's
// batch values come from the kernel's norms where the run is certified to
// be Batch.Values' (see Small.FactorizeValues), else from Batch.Values.
func (p *Pair) factorizeAVX2(u [2][]float64, ldu int, s, v, bv [2][]float64, ldv int, a [2][]float64, lda int) error {
	n := p.n
	w0, w1 := p.w[0], p.w[1]
	e0, ok := loadTransposed(w0.g, n, a[0], lda, n, n)
	if !ok {
		return &BatchError{Index: 0, Err: errNotFinite}
	}
	e1, ok := loadTransposed(w1.g, n, a[1], lda, n, n)
	if !ok {
		// Matrix 0 alone, then the error of matrix 1, as two calls give.
		var err error
		if bv[0] != nil {
			err = w0.FactorizeValues(u[0], ldu, s[0], v[0], ldv, bv[0], a[0], lda)
		} else {
			err = w0.Factorize(u[0], ldu, s[0], v[0], ldv, a[0], lda)
		}
		if err != nil {
			return &BatchError{Index: 0, Err: err}
		}
		return &BatchError{Index: 1, Err: errNotFinite}
	}
	negl0, negl1 := negligible(w0.g, n, n, n), negligible(w1.g, n, n, n)
	var neglB [2]float64
	if bv[0] != nil {
		neglB = [2]float64{batchNegligible(w0.g, n), batchNegligible(w1.g, n)}
	}
	x := w0.avx2
	x.splitLoad(n, 0, w0.g, nil, true, true)
	x.splitLoad(n, 1, w1.g, nil, true, false)
	x.params[0], x.params[1], x.params[2], x.params[3] = negl0, negl0, negl1, negl1
	x.params[7] = math.Float64frombits(0b1111) // both matrices exact
	mask := x.jacobiSplit(n, true)
	x.params[7] = 0
	if mask&1 != 0 {
		return &BatchError{Index: 0, Err: ErrNoConvergence}
	}
	for l, w := range p.w {
		x.splitStore(n, l, w.g, w.v, true)
	}
	var same [2]bool
	if bv[0] != nil {
		same[0] = x.laneValues(bv[0], n, 0, e0, negl0, neglB[0])
		same[1] = mask&4 == 0 && x.laneValues(bv[1], n, 2, e1, negl1, neglB[1])
	}
	w0.finish(u[0], ldu, s[0], v[0], ldv, e0, finishNegl(negl0))
	if bv[0] != nil && !same[0] {
		if err := w0.batchValues(bv[0], a[0], lda); err != nil {
			return &BatchError{Index: 0, Err: err}
		}
	}
	if mask&4 != 0 {
		return &BatchError{Index: 1, Err: ErrNoConvergence}
	}
	w1.finish(u[1], ldu, s[1], v[1], ldv, e1, finishNegl(negl1))
	if bv[1] != nil && !same[1] {
		if err := w1.batchValues(bv[1], a[1], lda); err != nil {
			return &BatchError{Index: 1, Err: err}
		}
	}
	return nil
}
