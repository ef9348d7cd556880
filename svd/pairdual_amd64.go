//go:build amd64 && !purego

package svd

// dualAsm is the AVX-512 workspace of a Pair of n x n matrices, 3 <= n <= 16:
// both factorisations in one run of jacobi1DualAVX512 (see
// ../asm/jacobi/single.go), matrix i's column pairs in the lanes of vector
// i (row r of buf: L_0 L_1 R_0 R_1, rows 0..n-1 of A, n..2n-1 of V), each
// with the bits jacobi1W1AVX512 gives it alone. The two factorisations are
// each one long chain of dependent rounds; interleaved in one run, a
// Pair's pays for one chain instead of two.
type dualAsm struct {
	m      int // n rounded up to even
	buf    []float64
	pos    [2][]int // lane of column c of matrix i in a row
	params [72]float64
}

// dualRow is the float64 of a row of dualAsm.buf.
const dualRow = 32

// maxDual is the largest n of the dual kernel: eight pairs, one vector
// a matrix.
const maxDual = 16

func newDualAsm(n int) *dualAsm {
	if n < 3 || n > maxDual {
		return nil
	}
	m := n + n&1
	h := m / 2
	x := &dualAsm{m: m, pos: [2][]int{make([]int, n), make([]int, n)}}
	x.buf = aligned64(make([]float64, 2*n*dualRow+8), 2*n*dualRow)
	// As smallAsm's (one vector a half row): pair i of matrix k is
	// (position i, position m-1-i), in vector k of the left and right
	// halves.
	for k := range x.pos {
		circlePos(x.pos[k], 8*k, 16)
	}
	kernelParams(&x.params, n, h, 1) // each vector moves as one matrix's
	return x
}

// sNeg2 is the second matrix's negligible threshold in dualAsm.params.
const sNeg2 = 5

// factorizeDual is Factorize of both matrices by jacobi1DualAVX512, with
// the bits of factorizeAsm on each. It reports false, having written
// nothing, where a matrix has a NaN or Inf or the run did not converge
// (or useDual is off): the caller then factorises them one by one (their
// errors, their indices).
func (p *Pair) factorizeDual(u [2][]float64, ldu int, s, v [2][]float64, ldv int, a [2][]float64, lda int) bool {
	if !useDual || !useAVX512 {
		return false
	}
	x, n := p.dual, p.n
	buf := x.buf
	clear(buf)
	var e [2]int
	var negl [2]float64
	for i := range a {
		var ok bool
		if e[i], negl[i], ok = loadLanes(buf, dualRow, x.pos[i], a[i], lda, n); !ok {
			return false
		}
		for c, q := range x.pos[i] {
			buf[(n+c)*dualRow+q] = 1 // V = I
		}
	}
	x.params[sNegl], x.params[sNeg2] = negl[0], negl[1]
	if jacobi1DualAVX512(&buf[0], n, n, x.m-1, &x.params, MaxSweeps) != 0 {
		return false
	}
	for i, w := range p.w {
		for c, q := range x.pos[i] {
			gc, vc := w.g[c*n:c*n+n], w.v[c*n:c*n+n]
			for r := range gc {
				gc[r] = buf[r*dualRow+q]
				vc[r] = buf[(n+r)*dualRow+q]
			}
		}
		w.finish(u[i], ldu, s[i], v[i], ldv, e[i], finishNegl(negl[i]))
	}
	return true
}

// useDual selects the dual kernel (tests flip it).
var useDual = true
