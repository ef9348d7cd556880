package kernels

import "github.com/grlgq/grlgq/internal/cpu"

// Dot returns the dot product of x and y; len(y) >= len(x).
//
//	for i, v := range x { sum += v * y[i] }
func Dot(x, y []float64) float64 { return dot(x, y) }

// DotGeneric is Dot computed by the pure-Go twin on every CPU: the same
// bits on every architecture and with or without assembly, for callers whose
// own pure-Go paths must not depend on the CPU (package svd's Jacobi).
func DotGeneric(x, y []float64) float64 { return dotGeneric(x, y) }

// Axpy adds alpha*x to y; len(y) >= len(x).
//
//	for i, v := range x { y[i] += alpha * v }
func Axpy(alpha float64, x, y []float64) { axpy(alpha, x, y) }

// Scale multiplies x by alpha in place.
//
//	for i := range x { x[i] *= alpha }
func Scale(alpha float64, x []float64) { scale(alpha, x) }

// AtB computes the da x db product M = Aᵀ B of an n x da matrix A and an
// n x db matrix B (the projection Pᵀ W of two D x d bases), overwriting M.
//
//	for i < da, j < db: m[i*ldm+j] = Σ_{r<n} a[r*lda+i] * b[r*ldb+j]
func AtB(m []float64, ldm int, a []float64, lda int, b []float64, ldb int, n, da, db int) {
	atb(m, ldm, a, lda, b, ldb, n, da, db)
}

// AtX computes y = Aᵀ x for an n x d matrix A (a prototype against one
// image), overwriting y[:d].
//
//	for j < d: y[j] = Σ_{r<n} a[r*lda+j] * x[r]
func AtX(y []float64, a []float64, lda int, x []float64, n, d int) {
	atx(y, a, lda, x, n, d)
}

// AB computes C = A B for an n x k matrix A and a k x d matrix B (a basis
// times a small rotation, U = P Q_P), overwriting C. C must not alias A or B.
//
//	for r < n, j < d: c[r*ldc+j] = Σ_{l<k} a[r*lda+l] * b[l*ldb+j]
func AB(c []float64, ldc int, a []float64, lda int, b []float64, ldb int, n, k, d int) {
	ab(c, ldc, a, lda, b, ldb, n, k, d)
}

// AB2 computes C = A1 B1 + A2 B2 for n x k matrices A1, A2 and k x d
// matrices B1, B2 (a basis and a sample each times a small matrix, the
// exact update W ← W C1 + P C2), overwriting C:
//
//	for r < n, j < d: c[r*ldc+j] = Σ_{l<k} a1[r*lda1+l] * b1[l*ldb1+j] + Σ_{l<k} a2[r*lda2+l] * b2[l*ldb2+j]
//
// It is AB on the n x 2k matrix [A1 A2] and the 2k x d matrix [B1; B2],
// with AB's bits on every implementation (each output is one chain over
// the 2k terms, those of A1 first), without building either. C may be A1
// itself, to update A1 in place (c and a1 start at the same element and
// ldc == lda1; then k must be at most MaxAB2InPlaceK); otherwise C must
// not overlap any input. In place, each row of C depends only on the same
// row of A1 and A2: a block of rows is read whole before it is written,
// in registers when d fits one column block of the assembly (AVX2 12
// columns, AVX-512 32), else through a copy of the block's rows of A1 on
// the stack (the pure-Go twin always).
func AB2(c []float64, ldc int, a1 []float64, lda1 int, b1 []float64, ldb1 int, a2 []float64, lda2 int, b2 []float64, ldb2 int, n, k, d int) {
	if n <= 0 || d <= 0 {
		return
	}
	if k > 0 && &c[0] == &a1[0] {
		if ldc != lda1 {
			panic("kernels: AB2: in place with ldc != lda1")
		}
		if d > ab2InPlaceCols() {
			ab2InPlace(c, ldc, a1, b1, ldb1, a2, lda2, b2, ldb2, n, k, d)
			return
		}
	}
	ab2(c, ldc, a1, lda1, b1, ldb1, a2, lda2, b2, ldb2, n, k, d)
}

// MaxAB2InPlaceK is the largest k of an AB2 in place (c = a1): the most
// elements of a row of A1 its stack copy holds.
const MaxAB2InPlaceK = ab2Scratch

// ab2Scratch is the number of float64s of AB2's stack copy of rows of A1
// (8 KiB: with the rows of A2 and C of a block it stays in L1).
const ab2Scratch = 1024

// ab2InPlace is AB2 with c = a1 and ldc = lda1 when no implementation
// keeps a row block's outputs in registers: it runs ab2 on blocks of rows
// of A1 copied to the stack (a whole number of the AVX2 row blocks, 12,
// when that many rows fit).
func ab2InPlace(c []float64, ldc int, a1 []float64, b1 []float64, ldb1 int, a2 []float64, lda2 int, b2 []float64, ldb2 int, n, k, d int) {
	if k > ab2Scratch {
		panic("kernels: AB2: in place with k > MaxAB2InPlaceK")
	}
	_ = a1[(n-1)*ldc+k-1]
	var buf [ab2Scratch]float64
	h := ab2Scratch / k
	if h >= 12 {
		h -= h % 12
	}
	for r := 0; r < n; r += h {
		m := min(h, n-r)
		for i := 0; i < m; i++ {
			o := (r + i) * ldc
			copy(buf[i*k:(i+1)*k], a1[o:o+k])
		}
		ab2(c[r*ldc:], ldc, buf[:m*k], k, b1, ldb1, a2[r*lda2:], lda2, b2, ldb2, m, k, d)
	}
}

// SparseABBlocks is SparseAB on nblk matrices at once, B_t = b[t*bs:] (row
// stride ldb, the same rows listed for each), overwriting c[:nblk*nc]:
//
//	for t < nblk, j < nc: c[t*nc+j] = Σ_{i<len(idx)} val[i] * b[t*bs+idx[i]*ldb+j]   (i in order)
//
// Each output has the bits of SparseAB(c[t*nc:], val, idx, b[t*bs:], ldb,
// nc) on the same implementation: a few columns (a prototype's own block
// of d) are a few FMA chains as long as the list, which alone leave the
// FMA units waiting; the AVX2 assembly (on AVX-512 CPUs too: an output is
// one chain whatever the vector width) interleaves the chains of up to
// six blocks. Every idx[i] must be a row of every B_t (a row outside b
// panics), bs >= 0, ldb >= nc; c must not overlap the inputs.
func SparseABBlocks(c []float64, val []float64, idx []int32, b []float64, ldb, bs, nblk, nc int) {
	_ = val[:len(idx)]
	if nblk <= 0 || nc <= 0 {
		return
	}
	if bs < 0 || ldb < nc {
		panic("kernels: SparseABBlocks: bs < 0 or ldb < nc")
	}
	_ = c[nblk*nc-1]
	sparseABBlocks(c, val, idx, b, ldb, bs, nblk, nc)
}

// sparseABBlocksEach is SparseABBlocks one block at a time (SparseAB's
// bits by definition).
func sparseABBlocksEach(c []float64, val []float64, idx []int32, b []float64, ldb, bs, nblk, nc int) {
	for t := 0; t < nblk; t++ {
		sparseAB(c[t*nc:], val, idx, b[t*bs:], ldb, nc)
	}
}

// SparseAB computes the one-row product c = a B of a row a that is zero
// except for a[idx[i]] = val[i] and a matrix B (stride ldb), reading only
// the listed rows of B, overwriting c[:nc]:
//
//	for j < nc: c[j] = Σ_{i<len(idx)} val[i] * b[idx[i]*ldb+j]   (i in order)
//
// len(val) >= len(idx); every idx[i] must be a row of B (a row of B
// outside b panics, even in the assembly). Each output is computed like an
// output of AB: one chain over the listed rows in order, starting from
// zero, fused into FMAs by the assembly. So when idx is ascending, val
// holds the nonzero entries of a row a (every entry not listed is +0 or
// -0) and B is finite, c has the bits of AB(c, ldc, a, lda, b, ldb, 1, k,
// nc) on the same implementation, except that an output that is zero may
// have the other sign (x·w with x = ±0 and a finite w adds exactly nothing
// to a nonzero sum; only a zero sum's sign can tell). A NaN or ±Inf in a
// skipped row of B, which AB would turn into NaN, is not seen. c must not
// overlap the inputs.
func SparseAB(c []float64, val []float64, idx []int32, b []float64, ldb, nc int) {
	_ = val[:len(idx)]
	sparseAB(c, val, idx, b, ldb, nc)
}

// Nonzeros lists the entries of x that are not zero (v != 0: +0 and -0
// are left out, NaN is listed), in order: idx[:n] gets their indices and
// val[:n] their values, the inputs of SparseAB. len(idx), len(val) >=
// len(x) <= math.MaxInt32; the entries from n to len(x) of idx and val are
// scratch (the assembly stores whole vectors).
//
//	for i, v := range x { if v != 0 { idx[n], val[n] = int32(i), v; n++ } }
func Nonzeros(idx []int32, val []float64, x []float64) (n int) {
	return nonzeros(idx[:len(x)], val[:len(x)], x)
}

// ProjDots is one column-major Gram–Schmidt sweep over a panel P of b
// columns (1 <= b <= 4; column c at p[c*ldp:], n rows): it projects P with
// the nq columns of Q (column l at q[l*ldq:]) and the nq x b coefficients S
// (row-major, stride lds), P -= Q S, then writes the nr x b dot products G
// = Rᵀ P (row-major, stride ldg) of the updated P with the nr columns of R
// (column k at r[k*ldr:]), overwriting G.
//
//	for c < b, i < n: p[c*ldp+i] -= Σ_{l<nq} s[l*lds+c] * q[l*ldq+i]
//	for k < nr, c < b: g[k*ldg+c] = Σ_{i<n} r[k*ldr+i] * p[c*ldp+i]
//
// R may be Q, P itself (the Gram matrix of the updated panel, its norms) or
// any other columns; P must not overlap Q or S, and G must not overlap any
// input. Each row of P is read and written once whatever nr is (on AVX-512
// up to 24/b dot products per column ride along one pass; more take further
// passes over P and R only).
func ProjDots(p []float64, ldp, b int, q []float64, ldq, nq int, s []float64, lds int, r []float64, ldr, nr int, g []float64, ldg int, n int) {
	if b < 1 || b > 4 {
		panic("kernels: ProjDots: panel width must be 1..4")
	}
	projDots(p, ldp, b, q, ldq, nq, s, lds, r, ldr, nr, g, ldg, n)
}

// PanelPass is one Gram–Schmidt pass inside a column-major panel of b
// columns (1 <= c < b <= 4; column k at p[k*ldp:], n rows): it updates
// column c with the columns before it and the coefficients s[l*lds], then
// writes the dot products of the updated column with the columns before it
// (before) or with columns c..b-1 (itself first) to g.
//
//	for i < n: p[c*ldp+i] -= Σ_{l<c} s[l*lds] * p[l*ldp+i]   (l in order)
//	before:    for k < c:      g[k]   = Σ_{i<n} p[k*ldp+i] * p[c*ldp+i]
//	otherwise: for c <= k < b: g[k-c] = Σ_{i<n} p[k*ldp+i] * p[c*ldp+i]
//
// It is the ProjDots call with Q = columns 0..c-1 of the panel and R =
// columns 0..c-1 or c..b-1, computed in the same order (the same bits as
// ProjDots on the generic and AVX2 paths); on AVX-512 every panel column is
// loaded once per chunk of rows for both the update and the dots. g must
// not overlap p or s.
func PanelPass(p []float64, ldp, b, c int, s []float64, lds int, before bool, g []float64, n int) {
	if c < 1 || c >= b || b > 4 {
		panic("kernels: PanelPass: need 1 <= c < b <= 4")
	}
	panelPass(p, ldp, b, c, s, lds, before, g, n)
}

// panelPassGeneric is PanelPass through projDotsGeneric.
func panelPassGeneric(p []float64, ldp, b, c int, s []float64, lds int, before bool, g []float64, n int) {
	k0, nr := c, b-c
	if before {
		k0, nr = 0, c
	}
	projDotsGeneric(p[c*ldp:], ldp, 1, p, ldp, c, s, lds, p[k0*ldp:], ldp, nr, g, 1, n)
}

// Transpose writes the transpose of the rows x cols matrix src (stride
// lds) into dst (cols x rows, stride ldd). dst must not overlap src.
//
//	for r < rows, c < cols: dst[c*ldd+r] = src[r*lds+c]
//
// On AVX-512 it moves 8 x 8 blocks through registers; the AVX2 path is the
// generic loop.
func Transpose(dst []float64, ldd int, src []float64, lds int, rows, cols int) {
	transpose(dst, ldd, src, lds, rows, cols)
}

// TransposeScaled is Transpose with each source row r multiplied by
// scale[r] (len(scale) >= rows).
//
//	for r < rows, c < cols: dst[c*ldd+r] = src[r*lds+c] * scale[r]
func TransposeScaled(dst []float64, ldd int, src []float64, lds int, rows, cols int, scale []float64) {
	_ = scale[:rows]
	transposeScaled(dst, ldd, src, lds, rows, cols, scale)
}

// TransposeDots is Transpose that also writes the dot products of source
// column 0 with every source column (row c of dst is column c of src):
//
//	for c < cols: g[c] = Σ_{r<rows} dst[r] * dst[c*ldd+r]
//
// On AVX-512, for cols = 4, 8, 12 or 16, the dots are accumulated while
// transposing, in the registers the transpose goes through; otherwise they
// are those of ProjDots on the transposed columns (R = row 0 of dst, P =
// the rows of dst in panels of 4). g must not overlap dst or src.
func TransposeDots(dst []float64, ldd int, src []float64, lds int, rows, cols int, g []float64) {
	_ = g[:cols]
	transposeDots(dst, ldd, src, lds, rows, cols, g)
}

// transposeDotsGeneric is TransposeDots as Transpose and ProjDots calls.
func transposeDotsGeneric(dst []float64, ldd int, src []float64, lds int, rows, cols int, g []float64) {
	transpose(dst, ldd, src, lds, rows, cols)
	for c := 0; c < cols; c += 4 {
		b := min(4, cols-c)
		projDots(dst[c*ldd:], ldd, b, nil, 0, 0, nil, 0, dst, ldd, 1, g[c:], b, rows)
	}
}

// ProjTransposeScaled projects the last b = rows-j0 rows of src (1 <= b
// <= 4) with the rows before them, in place, then writes the scaled
// transpose of src into dst: it is
//
//	ProjDots(src[j0*lds:], lds, b, src, lds, j0, s, b, nil, 0, 0, nil, 0, cols)
//	TransposeScaled(dst, ldd, src, lds, rows, cols, scale)
//
// (S is j0 x b with stride b) with the same results, in one pass over src
// on AVX-512 when rows <= 16 and j0 = 4*((rows-1)/4) (the last panel of
// linalg's block Gram–Schmidt).
func ProjTransposeScaled(dst []float64, ldd int, src []float64, lds int, rows, cols int, scale []float64, j0 int, s []float64) {
	if j0 < 0 || rows-j0 < 1 || rows-j0 > 4 {
		panic("kernels: ProjTransposeScaled: need 1 <= rows-j0 <= 4")
	}
	_ = scale[:rows]
	projTransposeScaled(dst, ldd, src, lds, rows, cols, scale, j0, s)
}

// projTransposeScaledGeneric is ProjTransposeScaled as its two calls.
func projTransposeScaledGeneric(dst []float64, ldd int, src []float64, lds int, rows, cols int, scale []float64, j0 int, s []float64) {
	b := rows - j0
	projDots(src[j0*lds:], lds, b, src, lds, j0, s, b, nil, 0, 0, nil, 0, cols)
	transposeScaled(dst, ldd, src, lds, rows, cols, scale)
}

// PeakFMA runs iters iterations of a loop of independent fused multiply-add
// chains on the widest vector registers the dispatch uses (16 chains of ZMM
// with AVX-512, 12 of YMM with AVX2, 12 scalar multiply-adds otherwise) and
// returns the number of floating-point operations done (2 per lane per FMA).
// Divided by the elapsed time it is the machine's FMA peak, the yardstick of
// the other kernels.
func PeakFMA(iters int) (flops int) { return peakFMA(iters) }

// EnvVar is the environment variable that caps the implementation chosen at
// start-up: "avx2" (no AVX-512), "generic" (the pure-Go twins); unset,
// empty or anything else means the fastest the CPU supports. It is read
// once, when the program starts, by package internal/cpu, whose decision
// both this package and package svd follow. Implementation reports it.
const EnvVar = cpu.EnvVar
