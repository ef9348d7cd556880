//go:build amd64 && !purego

package svd

import (
	"math"
)

// maxSmallAsm is the largest n of the single-matrix AVX-512 kernel (two ZMM
// vectors of pairs); larger matrices use the pure-Go path.
const maxSmallAsm = 32

// smallAsm is the AVX-512 workspace of a Small: the n'/2 column pairs of a
// round-robin round live in the lanes of wv ZMM vectors (see
// ../asm/jacobi/single.go). Row r of buf is 2*wv vectors: entry r of the
// left columns of the pairs, then of the right columns; rows 0..n-1 hold A,
// rows n..2n-1 hold V.
type smallAsm struct {
	wv     int // vectors per half row: 1 (n <= 16) or 2
	m      int // n rounded up to even
	row    int // float64 per row: 16*wv
	buf    []float64
	pos    []int // lane of column c in a row
	params [72]float64
}

func (w *Small) initAsm() {
	n := w.n
	if n < 3 || n > maxSmallAsm {
		return
	}
	m := n + n&1
	h := m / 2
	wv := (h + 7) / 8
	x := &smallAsm{wv: wv, m: m, row: 16 * wv, pos: make([]int, n)}
	x.buf = aligned64(make([]float64, 2*n*x.row+8), 2*n*x.row)
	circlePos(x.pos, 0, 8*wv)
	kernelParams(&x.params, n, h, wv)
	w.asm = x
}

// circlePos writes into pos[c] the lane of column c of an n x n matrix
// (n = len(pos)) in a row of a lane kernel's buffer, in the initial
// arrangement of the circle method: position p holds column p, pair i is
// (position i, position n'-1-i), n' = n rounded up to even; the left
// positions from lane off, the right ones from lane right + off.
func circlePos(pos []int, off, right int) {
	n := len(pos)
	m := n + n&1
	for c := range pos {
		if c < m/2 {
			pos[c] = off + c
		} else {
			pos[c] = right + off + (m - 1 - c)
		}
	}
}

// kernelParams writes the constants of the single-matrix kernels' params
// for n x n matrices of h pairs in wv vectors a half row: the
// permutation indices, tol², 1 and the sign masks.
func kernelParams(params *[72]float64, n, h, wv int) {
	idxL, idxR := permIndices(h, wv)
	for i := range idxL {
		params[sIdxL+i] = math.Float64frombits(uint64(idxL[i]))
		params[sIdxR+i] = math.Float64frombits(uint64(idxR[i]))
	}
	tol := tolerance(n)
	params[sTol2] = tol * tol
	params[sOne] = 1
	params[sAbs] = math.Float64frombits(1<<63 - 1)
	params[sSign] = math.Float64frombits(1 << 63)
}

// Layout of smallAsm.params (see the generator).
const (
	sTol2 = 0
	sNegl = 1
	sOne  = 2
	sAbs  = 3
	sSign = 4
	sIdxL = 8
	sIdxR = 24
	sOutA = 40
	sOutB = 56
)

// permIndices returns the VPERMT2PD indices that take the pairing of one
// round to the next (circle method) for h pairs in wv vectors of 8 lanes.
// Positions: left lane i is position i, right lane i is position 2h-1-i;
// the next round has at position p the column of position p-1 (p >= 2),
// at position 1 the column of position 2h-1, at position 0 the same (the
// rounds of roundRobin in reverse order: the same pairs in a sweep).
// Tables (first, second) of the new vectors: L'_0 (L_0, R_0),
// L'_w (L_{w-1}, L_w), R'_w (R_w, R_{w+1}), R'_{wv-1} (R_{wv-1}, L_{wv-1}).
// Lanes at or beyond h keep their (zero) value.
func permIndices(h, wv int) (idxL, idxR [16]int64) {
	permTables(idxL[:8*wv], idxR[:8*wv], h, wv, 8)
	return idxL, idxR
}

// permTables writes into idxL and idxR (wv·lanes entries each) the
// tables of permIndices for vectors of lanes lanes: an index below lanes
// selects that lane of the first table, lanes + j lane j of the second
// (VPERMT2PD with 8 lanes, VPERMT2PS with 16).
func permTables(idxL, idxR []int64, h, wv, lanes int) {
	last := int64(lanes - 1)
	for w := 0; w < wv; w++ {
		for j := 0; j < lanes; j++ {
			i := lanes*w + j
			jj := int64(j)
			var l, r int64
			switch {
			case i >= h:
				if w == 0 {
					l = jj // L_0
				} else {
					l = int64(lanes) + jj // L_w
				}
			case w == 0 && j == 0:
				l = 0
			case w == 0 && j == 1:
				l = int64(lanes) // R_0[0]
			case w == 0:
				l = jj - 1
			case j == 0:
				l = last // L_{w-1}[last]
			default:
				l = int64(lanes) + jj - 1
			}
			switch {
			case i >= h:
				r = jj
			case i < h-1 && jj < last:
				r = jj + 1
			case i < h-1:
				r = int64(lanes) // R_{w+1}[0]
			default: // i == h-1: the last left column moves to the right
				r = int64(lanes) + jj
			}
			idxL[i], idxR[i] = l, r
		}
	}
}

// jacobiAsm runs the Jacobi iteration of w.g (row i = column i, scaled)
// and, if withV, of V = I, on the AVX-512 kernel; on return w.g and w.v
// hold the converged columns as the pure-Go jacobi leaves them. It returns
// false if the iteration did not converge.
func (w *Small) jacobiAsm(withV bool, negl float64) bool {
	x := w.asm
	n, row := w.n, x.row
	buf := x.buf
	clear(buf[:n*row])
	for c, p := range x.pos {
		gc := w.g[c*n : c*n+n]
		for r, v := range gc {
			buf[r*row+p] = v
		}
	}
	if withV {
		x.setIdentity(n)
	}
	if !x.run(n, withV, negl) {
		return false
	}
	x.unpack(w.g, w.v, n, withV)
	return true
}

// setIdentity sets the V rows of buf to I.
func (x *smallAsm) setIdentity(n int) {
	v := x.buf[n*x.row : 2*n*x.row]
	clear(v)
	for c, p := range x.pos {
		v[c*x.row+p] = 1
	}
}

// run runs the kernel on buf; false if it did not converge.
func (x *smallAsm) run(n int, withV bool, negl float64) bool {
	x.params[sNegl] = negl
	rowsV := 0
	if withV {
		rowsV = n
	}
	var bad uint64
	if x.wv == 1 {
		bad = jacobi1W1AVX512(&x.buf[0], n, rowsV, x.m-1, &x.params, MaxSweeps)
	} else {
		bad = jacobi1W2AVX512(&x.buf[0], n, rowsV, x.m-1, &x.params, MaxSweeps)
	}
	return bad == 0
}

// unpack copies the columns of A (and V) from buf to g (and v), row i =
// column i.
func (x *smallAsm) unpack(g, v []float64, n int, withV bool) {
	buf, row := x.buf, x.row
	for c, p := range x.pos {
		gc := g[c*n : c*n+n]
		for r := range gc {
			gc[r] = buf[r*row+p]
		}
		if withV {
			vc := v[c*n : c*n+n]
			for r := range vc {
				vc[r] = buf[(n+r)*row+p]
			}
		}
	}
}

// load writes the n x n matrix a, scaled by the power of two 2^-e that
// brings its largest entry into [0.5, 1), into the A rows of buf and returns
// e and the negligible threshold 2^-120 ‖A‖_F² (scaled); false if a has a
// NaN or Inf. It is loadTransposed and negligible for this layout.
func (x *smallAsm) load(a []float64, lda, n int) (int, float64, bool) {
	clear(x.buf[:n*x.row])
	return loadLanes(x.buf, x.row, x.pos, a, lda, n)
}

// loadLanes is smallAsm.load into the rows (row float64 each) of buf,
// column c of a at lane pos[c], the rest of buf as it is.
func loadLanes(buf []float64, row int, pos []int, a []float64, lda, n int) (int, float64, bool) {
	// The largest magnitude by its bits (for non-negative floats the
	// order of the bits is that of the values; Inf and NaN have the
	// largest): branch-free, two chains.
	const absMask, expMask = 1<<63 - 1, 0x7ff << 52
	var m0, m1 uint64
	for r := 0; r < n; r++ {
		row := a[r*lda : r*lda+n]
		c := 0
		for ; c+1 < len(row); c += 2 {
			m0 = max(m0, math.Float64bits(row[c])&absMask)
			m1 = max(m1, math.Float64bits(row[c+1])&absMask)
		}
		if c < len(row) {
			m0 = max(m0, math.Float64bits(row[c])&absMask)
		}
	}
	mb := max(m0, m1)
	if mb >= expMask {
		return 0, 0, false
	}
	e := 0
	if mb >= 1<<52 {
		e = int(mb>>52) - 1022 // Frexp's exponent of a normal number
	} else if mb > 0 {
		_, e = math.Frexp(math.Float64frombits(mb))
	}
	var f float64
	if e > -1000 && e < 1000 {
		sc := math.Float64frombits(uint64(1023-e) << 52) // 2^-e
		for r := 0; r < n; r++ {
			br := buf[r*row : r*row+row]
			for c, v := range a[r*lda : r*lda+n] {
				y := v * sc
				br[pos[c]] = y
				f += float64(y * y)
			}
		}
	} else {
		for r := 0; r < n; r++ {
			br := buf[r*row : r*row+row]
			for c, v := range a[r*lda : r*lda+n] {
				y := math.Ldexp(v, -e)
				br[pos[c]] = y
				f += float64(y * y)
			}
		}
	}
	return e, float64(f * 0x1p-120), true
}

// valuesAsm is Values on the AVX-512 kernel.
func (w *Small) valuesAsm(s []float64, a []float64, lda int) error {
	x := w.asm
	n := w.n
	e, negl, ok := x.load(a, lda, n)
	if !ok {
		return errNotFinite
	}
	if !x.run(n, false, negl) {
		return ErrNoConvergence
	}
	h := x.m / 2
	for c, p := range x.pos {
		if c < h {
			w.sv[c] = math.Sqrt(x.params[sOutA+p])
		} else {
			w.sv[c] = math.Sqrt(x.params[sOutB+p-8*x.wv])
		}
	}
	sortDescending(w.perm, w.sv)
	for j, p := range w.perm {
		s[j] = math.Ldexp(w.sv[p], e)
	}
	return nil
}

// factorizeAsm is Factorize on the AVX-512 kernel.
func (w *Small) factorizeAsm(u []float64, ldu int, s []float64, v []float64, ldv int, a []float64, lda int) error {
	x := w.asm
	n := w.n
	e, negl, ok := x.load(a, lda, n)
	if !ok {
		return errNotFinite
	}
	x.setIdentity(n)
	if !x.run(n, true, negl) {
		return ErrNoConvergence
	}
	x.unpack(w.g, w.v, n, true)
	w.finish(u, ldu, s, v, ldv, e, finishNegl(negl))
	return nil
}
