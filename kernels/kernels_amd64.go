//go:build amd64 && !purego

package kernels

import (
	"math"

	"github.com/grlgq/grlgq/internal/cpu"
)

// The path in use, decided once by package internal/cpu (CPU features
// capped by GRLGQ_KERNELS) and read by a plain if in each kernel; tests
// flip them to run every path on one machine (cpu.HasAVX512, cpu.HasAVX2
// say which this CPU can run).
var (
	useAVX512 = cpu.AVX512 // AVX512F/DQ/VL: ZMM kernels, K-register tails
	useAVX2   = cpu.AVX2   // AVX2 + FMA3: YMM kernels, VMASKMOVPD or scalar tails
	// bcast512: the AVX-512 block kernels' B variants (each element of A
	// broadcast into a register once for its FMAs: faster where loads
	// bound them, as on Zen 5), except on CPUs that split 512-bit FMAs
	// in two (Zen 4), where the embedded broadcast ran at the FMA peak.
	// The bits are the same.
	bcast512 = !cpu.HalfWidth512
)

// Implementation names the path in use: "avx512", "avx2" or "generic".
func Implementation() string {
	switch {
	case useAVX512:
		return "avx512"
	case useAVX2:
		return "avx2"
	}
	return "generic"
}

// Widest column block, in float64 columns, of the block kernels (lanes times
// maxNB in asm/kernels/main.go). The asm picks the row blocking itself.
const (
	blockColsAVX512 = 32
	blockColsAVX2   = 12
	// The AVX-512 AtB kernel's widest block (five vectors), for outputs
	// of up to five rows (asm/kernels/gemm.go).
	atbWideColsAVX512 = 40
	atbWideRowsAVX512 = 5
)

func dot(x, y []float64) float64 {
	if useAVX512 {
		return dotAVX512(x, y[:len(x)])
	}
	if useAVX2 {
		return dotAVX2(x, y[:len(x)])
	}
	return dotGeneric(x, y)
}

func axpy(alpha float64, x, y []float64) {
	if useAVX512 {
		axpyAVX512(alpha, x, y[:len(x)])
		return
	}
	if useAVX2 {
		axpyAVX2(alpha, x, y[:len(x)])
		return
	}
	axpyGeneric(alpha, x, y)
}

func scale(alpha float64, x []float64) {
	if useAVX512 {
		scaleAVX512(alpha, x)
		return
	}
	if useAVX2 {
		scaleAVX2(alpha, x)
		return
	}
	scaleGeneric(alpha, x)
}

// zeroRows sets the first cols entries of rows rows of m (stride ld) to zero.
func zeroRows(m []float64, ld, rows, cols int) {
	for i := 0; i < rows; i++ {
		clear(m[i*ld : i*ld+cols])
	}
}

func atb(m []float64, ldm int, a []float64, lda int, b []float64, ldb int, n, da, db int) {
	if !useAVX512 && !useAVX2 {
		atbGeneric(m, ldm, a, lda, b, ldb, n, da, db)
		return
	}
	if da <= 0 || db <= 0 {
		return
	}
	if n <= 0 {
		zeroRows(m, ldm, da, db)
		return
	}
	_ = m[(da-1)*ldm+db-1]
	_ = a[(n-1)*lda+da-1]
	_ = b[(n-1)*ldb+db-1]
	if useAVX512 {
		// Blocks of 40 columns for outputs of up to 5 rows (one row
		// block of 5 x 5 vectors): eight prototypes of d = 5 in one pass
		// instead of 32 columns and a latency-bound 8 (BenchmarkProject's
		// D=400,d=5,p=8 case); 32 otherwise, whose row blocks are taller.
		cols := blockColsAVX512
		if da <= atbWideRowsAVX512 {
			cols = atbWideColsAVX512
		}
		for j := 0; j < db; j += cols {
			if bcast512 {
				atbKernelAVX512B(&m[j], ldm, &a[0], lda, &b[j], ldb, n, da, min(db-j, cols))
			} else {
				atbKernelAVX512(&m[j], ldm, &a[0], lda, &b[j], ldb, n, da, min(db-j, cols))
			}
		}
		return
	}
	// Chunks of the reduction whose rows of A and B stay in L1 while every
	// row and column block runs over them, when there is more than one
	// block; the kernel continues each chain from m after the first chunk.
	kc := n
	if _, edge := atbEdge(da, db); db > blockColsAVX2 || (da > mrAVX2[(db+3)/4] && !edge) {
		kc = max(atbChunkBytes/(8*(da+db)+128), 16)
	}
	// Column blocks of 12, or of 8 where that takes all da rows in one
	// row block (5 or 6 rows: mrAVX2 is 4 at three vectors, 6 at two),
	// so that each chunk of B is read once, not by two row blocks:
	// eth80's 5 x 40 projection, one-worker epoch 2.52 -> 2.41 floors on
	// the AVX2 path, real ETH-80 2.35 -> 2.27 (Zen 5 with
	// GRLGQ_KERNELS=avx2, medians of three alternations; not measured on
	// an AVX2-only CPU). The chains, hence the bits, are the same either
	// way (the model hashes on the AVX2 path unchanged).
	cols := blockColsAVX2
	if da > mrAVX2[3] && da <= mrAVX2[2] {
		cols = 2 * 4
	}
	// The row blocking of a full column block and of the last one, once
	// (two integer divisions each, which showed in profiles when done per
	// chunk).
	full, last := atbBlocking(da, min(db, cols)), atbBlocking(da, (db-1)%cols+1)
	for t := 0; t < n; t += kc {
		k := min(kc, n-t)
		for j := 0; j < db; j += cols {
			nc, bl := cols, full
			if db-j < cols {
				nc, bl = db-j, last
			}
			if bl.edge {
				atbEdgeAVX2(&m[j], ldm, &a[t*lda], lda, &b[t*ldb+j], ldb, k, da, bl.nb, t > 0)
				continue
			}
			atbKernelAVX2(&m[j], ldm, &a[t*lda], lda, &b[t*ldb+j], ldb, k, da, nc, bl.h, bl.nbig, t > 0)
		}
	}
}

// atbBlock is how atb runs a block of nc columns over da rows: by the edge
// kernel (edge, its nb) or by the block kernel in row blocks (h, nbig as
// from rowBlocks).
type atbBlock struct {
	edge        bool
	nb, h, nbig int
}

func atbBlocking(da, nc int) atbBlock {
	if nb, edge := atbEdge(da, nc); edge {
		return atbBlock{edge: true, nb: nb}
	}
	h, nbig := rowBlocks(da, mrAVX2[(nc+3)/4])
	return atbBlock{h: h, nbig: nbig}
}

// atbEdge reports whether atbEdgeAVX2 computes a block of rows x nc, and
// its nb: nc = 4*nb+1 columns, nb 0 or 1, and at most
// atbEdgeMaxRows[nb] rows (as in asm/kernels/atbavx2.go).
func atbEdge(rows, nc int) (nb int, ok bool) {
	nb = nc / 4
	return nb, nc%4 == 1 && nb <= 1 && rows <= [2]int{28, 8}[nb]
}

// mrAVX2[nb] is the tallest row block of the AVX2 block kernels for nb
// column vectors (mr in asm/kernels/main.go).
var mrAVX2 = [4]int{0, 12, 6, 4}

// atbChunkBytes bounds the bytes of the rows of A and B in one chunk of
// the AVX2 AtB reduction (8 per element and a cache line of slack per row
// of each): three quarters of a 32 KiB L1d. On the Zen 3 it was tuned on,
// 16 KiB was slower and 32 KiB no faster.
const atbChunkBytes = 24 << 10

// rowBlocks splits rows into the fewest blocks of at most mr rows, of
// sizes differing by at most one: nbig blocks of h rows, then blocks of
// h-1 rows.
func rowBlocks(rows, mr int) (h, nbig int) {
	nblk := (rows + mr - 1) / mr
	h = (rows + nblk - 1) / nblk
	return h, rows - nblk*(h-1)
}

func atx(y []float64, a []float64, lda int, x []float64, n, d int) {
	if !useAVX512 && !useAVX2 {
		atxGeneric(y, a, lda, x, n, d)
		return
	}
	if d <= 0 {
		return
	}
	if n <= 0 {
		clear(y[:d])
		return
	}
	_ = y[d-1]
	_ = a[(n-1)*lda+d-1]
	_ = x[n-1]
	if useAVX512 {
		for j := 0; j < d; j += blockColsAVX512 {
			atxKernelAVX512(&y[j], &a[j], lda, &x[0], n, min(d-j, blockColsAVX512))
		}
		return
	}
	for j := 0; j < d; j += blockColsAVX2 {
		atxKernelAVX2(&y[j], &a[j], lda, &x[0], n, min(d-j, blockColsAVX2))
	}
}

func ab(c []float64, ldc int, a []float64, lda int, b []float64, ldb int, n, k, d int) {
	if !useAVX512 && !useAVX2 {
		abGeneric(c, ldc, a, lda, b, ldb, n, k, d)
		return
	}
	if n <= 0 || d <= 0 {
		return
	}
	if k <= 0 {
		zeroRows(c, ldc, n, d)
		return
	}
	_ = c[(n-1)*ldc+d-1]
	_ = a[(n-1)*lda+k-1]
	_ = b[(k-1)*ldb+d-1]
	if useAVX512 {
		for j := 0; j < d; j += blockColsAVX512 {
			if bcast512 {
				abKernelAVX512B(&c[j], ldc, &a[0], lda, &b[j], ldb, k, n, min(d-j, blockColsAVX512))
			} else {
				abKernelAVX512(&c[j], ldc, &a[0], lda, &b[j], ldb, k, n, min(d-j, blockColsAVX512))
			}
		}
		return
	}
	for j := 0; j < d; j += blockColsAVX2 {
		abKernelAVX2(&c[j], ldc, &a[0], lda, &b[j], ldb, k, n, min(d-j, blockColsAVX2))
	}
}

func ab2(c []float64, ldc int, a1 []float64, lda1 int, b1 []float64, ldb1 int, a2 []float64, lda2 int, b2 []float64, ldb2 int, n, k, d int) {
	if !useAVX512 && !useAVX2 {
		ab2Generic(c, ldc, a1, lda1, b1, ldb1, a2, lda2, b2, ldb2, n, k, d)
		return
	}
	if n <= 0 || d <= 0 {
		return
	}
	if k <= 0 {
		zeroRows(c, ldc, n, d)
		return
	}
	ab2Extent(c, ldc, a1, lda1, b1, ldb1, a2, lda2, b2, ldb2, n, k, d)
	if useAVX512 {
		for j := 0; j < d; j += blockColsAVX512 {
			if bcast512 {
				ab2KernelAVX512B(&c[j], ldc, &a1[0], lda1, &b1[j], ldb1, &a2[0], lda2, &b2[j], ldb2, k, n, min(d-j, blockColsAVX512))
			} else {
				ab2KernelAVX512(&c[j], ldc, &a1[0], lda1, &b1[j], ldb1, &a2[0], lda2, &b2[j], ldb2, k, n, min(d-j, blockColsAVX512))
			}
		}
		return
	}
	for j := 0; j < d; j += blockColsAVX2 {
		ab2KernelAVX2(&c[j], ldc, &a1[0], lda1, &b1[j], ldb1, &a2[0], lda2, &b2[j], ldb2, k, n, min(d-j, blockColsAVX2))
	}
}

// ab2InPlaceCols is the widest d that ab2 computes in place (c = a1): one
// column block of the assembly, whose row blocks are read whole before
// they are stored.
func ab2InPlaceCols() int {
	switch {
	case useAVX512:
		return blockColsAVX512
	case useAVX2:
		return blockColsAVX2
	}
	return 0
}

// Widest column block of SparseAB (sparseMaxNB in asm/kernels/sparse.go).
const (
	sparseColsAVX512 = 64
	sparseColsAVX2   = 48
)

func sparseAB(c []float64, val []float64, idx []int32, b []float64, ldb, nc int) {
	if !useAVX512 && !useAVX2 {
		sparseABGeneric(c, val, idx, b, ldb, nc)
		return
	}
	if nc <= 0 {
		return
	}
	nnz := len(idx)
	if nnz == 0 {
		clear(c[:nc])
		return
	}
	_ = c[nc-1]
	_ = val[nnz-1]
	if ldb < nc {
		panic("kernels: SparseAB: ldb < nc")
	}
	vp, ip := &val[0], &idx[0]
	width := sparseColsAVX2
	if useAVX512 {
		width = sparseColsAVX512
	}
	for j := 0; j < nc; j += width {
		w := min(nc-j, width)
		// rows: the rows r of B with r*ldb+j+w <= len(b), the ones the
		// assembly may read (it checks every index against it).
		if len(b) < j+w {
			panic("kernels: SparseAB: b too short")
		}
		rows := (len(b)-j-w)/ldb + 1
		var bad int
		if useAVX512 {
			bad = sparseABKernelAVX512(&c[j], vp, ip, nnz, &b[j], ldb, rows, w)
		} else {
			bad = sparseABKernelAVX2(&c[j], vp, ip, nnz, &b[j], ldb, rows, w)
		}
		if bad != 0 {
			panic("kernels: SparseAB: row index out of range")
		}
	}
}

// sparseABBlocks runs sparseABBlocksKernelAVX2 (on AVX-512 CPUs too) on
// groups of up to sparseBlocksFor(ceil(nc/4), nc%4 != 0) blocks (in
// asm/kernels/sparse.go), the groups as even as they can be (10 blocks of
// 12 columns: 5 and 5), and SparseAB where nc is above 24 or one block is
// left.
func sparseABBlocks(c []float64, val []float64, idx []int32, b []float64, ldb, bs, nblk, nc int) {
	nb := (nc + 3) / 4
	if (!useAVX512 && !useAVX2) || nb > 6 || nblk == 1 || len(idx) == 0 {
		sparseABBlocksEach(c, val, idx, b, ldb, bs, nblk, nc)
		return
	}
	gmax := min(6, 15/nb) // sparseBlocksFor in asm/kernels/sparse.go
	if nc%4 != 0 {
		gmax = min(6, 12/nb)
	}
	groups := (nblk + gmax - 1) / gmax
	for q, t := 0, 0; q < groups; q++ {
		g := (nblk - t) / (groups - q) // the rest spread evenly
		if g == 1 {
			sparseAB(c[t*nc:], val, idx, b[t*bs:], ldb, nc)
			t++
			continue
		}
		// rows: the rows r with r*ldb+nc <= len(b) - (t+g-1)*bs, the ones
		// the assembly may read in the group's last block and so in each.
		last := (t + g - 1) * bs
		if len(b) < last+nc {
			panic("kernels: SparseABBlocks: b too short")
		}
		rows := (len(b)-last-nc)/ldb + 1
		if sparseABBlocksKernelAVX2(&c[t*nc], &val[0], &idx[0], len(idx), &b[t*bs], ldb, bs, rows, nc, g) != 0 {
			panic("kernels: SparseABBlocks: row index out of range")
		}
		t += g
	}
}

// nonzeros lists whole vectors of 8 (AVX-512) or 4 (AVX2) with the
// assembly, the rest with a Go loop. idx and val have len(x) entries.
func nonzeros(idx []int32, val []float64, x []float64) int {
	var nv, n int
	switch {
	case useAVX512:
		nv = len(x) &^ 7
		if nv > 0 {
			n = nonzerosAVX512(&idx[0], &val[0], &x[0], nv)
		}
	case useAVX2:
		nv = len(x) &^ 3
		if nv > 0 {
			n = nonzerosAVX2(&idx[0], &val[0], &x[0], nv)
		}
	default:
		return nonzerosGeneric(idx, val, x)
	}
	for i := nv; i < len(x); i++ {
		if v := x[i]; v != 0 {
			idx[n], val[n] = int32(i), v
			n++
		}
	}
	return n
}

// projDotsMaxNR is the most dot products per panel column of one call into
// the assembly, by panel width (asm/kernels/gs.go).
var (
	projDotsMaxNRAVX512 = [5]int{0, 24, 13, 9, 4}
	projDotsMaxNRAVX2   = [5]int{0, 11, 5, 3, 2}
)

// projDotsSink stands in for the slices a call does not use (nq == 0 or
// nr == 0), so the assembly always gets a valid pointer it never reads.
var projDotsSink [1]float64

func projDots(p []float64, ldp, b int, q []float64, ldq, nq int, s []float64, lds int, r []float64, ldr, nr int, g []float64, ldg int, n int) {
	if !useAVX512 && !useAVX2 {
		projDotsGeneric(p, ldp, b, q, ldq, nq, s, lds, r, ldr, nr, g, ldg, n)
		return
	}
	if n <= 0 {
		for k := 0; k < nr; k++ {
			clear(g[k*ldg : k*ldg+b])
		}
		return
	}
	nq, nr = max(nq, 0), max(nr, 0)
	_ = p[(b-1)*ldp+n-1]
	qp, sp, rp, gp := &projDotsSink[0], &projDotsSink[0], &projDotsSink[0], &projDotsSink[0]
	if nq > 0 {
		_ = q[(nq-1)*ldq+n-1]
		_ = s[(nq-1)*lds+b-1]
		qp, sp = &q[0], &s[0]
	}
	if nr > 0 {
		_ = r[(nr-1)*ldr+n-1]
		_ = g[(nr-1)*ldg+b-1]
		rp, gp = &r[0], &g[0]
	}
	// The assembly takes whole vectors of rows; the last n%lanes rows are
	// done here.
	lanes, maxNR := 8, projDotsMaxNRAVX512[b]
	if !useAVX512 {
		lanes, maxNR = 4, projDotsMaxNRAVX2[b]
	}
	nv := n &^ (lanes - 1)
	k0 := 0
	for first := true; first || k0 < nr; first = false {
		kk := min(maxNR, nr-k0)
		l := nq
		if !first {
			l = 0
		}
		r0, g0 := rp, gp
		if kk > 0 {
			r0, g0 = &r[k0*ldr], &g[k0*ldg]
		}
		projDotsAsm(b, &p[0], ldp, qp, ldq, sp, lds, l, r0, ldr, g0, ldg, kk, nv)
		k0 += kk
	}
	if nv < n {
		projRows(p, ldp, b, q, ldq, nq, s, lds, nv, n)
		for k := 0; k < nr; k++ {
			rk := r[k*ldr+nv : k*ldr+n]
			for c := 0; c < b; c++ {
				g[k*ldg+c] += dotGeneric(rk, p[c*ldp+nv:c*ldp+n])
			}
		}
	}
}

func projDotsAsm(b int, p *float64, ldp int, q *float64, ldq int, s *float64, lds int, nq int, r *float64, ldr int, g *float64, ldg int, nr int, n int) {
	if useAVX512 {
		switch b {
		case 1:
			projDotsB1AVX512(p, ldp, q, ldq, s, lds, nq, r, ldr, g, ldg, nr, n)
		case 2:
			projDotsB2AVX512(p, ldp, q, ldq, s, lds, nq, r, ldr, g, ldg, nr, n)
		case 3:
			projDotsB3AVX512(p, ldp, q, ldq, s, lds, nq, r, ldr, g, ldg, nr, n)
		default:
			projDotsB4AVX512(p, ldp, q, ldq, s, lds, nq, r, ldr, g, ldg, nr, n)
		}
		return
	}
	switch b {
	case 1:
		projDotsB1AVX2(p, ldp, q, ldq, s, lds, nq, r, ldr, g, ldg, nr, n)
	case 2:
		projDotsB2AVX2(p, ldp, q, ldq, s, lds, nq, r, ldr, g, ldg, nr, n)
	case 3:
		projDotsB3AVX2(p, ldp, q, ldq, s, lds, nq, r, ldr, g, ldg, nr, n)
	default:
		projDotsB4AVX2(p, ldp, q, ldq, s, lds, nq, r, ldr, g, ldg, nr, n)
	}
}

// panelPassVariant is the variant argument of panelPassAVX512 for (b, c,
// before), in the order of panelPassVariants in asm/kernels/panel.go.
func panelPassVariant(b, c int, before bool) int {
	if before {
		return c - 1 // b is irrelevant: columns c+1.. are not touched
	}
	// (1,2) (1,3) (1,4) (2,3) (2,4) (3,4)
	return 3 + [4]int{0, 0, 3, 5}[c] + b - c - 1
}

func panelPass(p []float64, ldp, b, c int, s []float64, lds int, before bool, g []float64, n int) {
	nv := n &^ 7
	if !useAVX512 || nv == 0 {
		k0, nr := c, b-c
		if before {
			k0, nr = 0, c
		}
		projDots(p[c*ldp:], ldp, 1, p, ldp, c, s, lds, p[k0*ldp:], ldp, nr, g, 1, n)
		return
	}
	k0, k1 := c, b
	if before {
		k0, k1 = 0, c
	}
	_ = p[(max(c+1, k1)-1)*ldp+n-1]
	_ = s[(c-1)*lds]
	_ = g[k1-k0-1]
	panelPassAVX512(&p[0], ldp, &s[0], lds, &g[0], nv, panelPassVariant(b, c, before))
	if nv < n {
		pc := p[c*ldp+nv : c*ldp+n]
		for l := 0; l < c; l++ {
			slc := s[l*lds]
			for i, v := range p[l*ldp+nv : l*ldp+n] {
				pc[i] -= float64(slc * v)
			}
		}
		for k := k0; k < k1; k++ {
			g[k-k0] += dotGeneric(p[k*ldp+nv:k*ldp+n], pc)
		}
	}
}

func transpose(dst []float64, ldd int, src []float64, lds int, rows, cols int) {
	transposeAsm(dst, ldd, src, lds, rows, cols, nil)
}

func transposeScaled(dst []float64, ldd int, src []float64, lds int, rows, cols int, scale []float64) {
	transposeAsm(dst, ldd, src, lds, rows, cols, scale)
}

// transposeAsm is Transpose (scale == nil) or TransposeScaled: the whole
// 4 x 4 blocks by transpose4AVX on both paths, the row and column
// remainders (fewer than 4) by the masked 8 x 8 blocks of transposeAVX512
// or the generic loops.
func transposeAsm(dst []float64, ldd int, src []float64, lds int, rows, cols int, scale []float64) {
	if !useAVX512 && !useAVX2 || rows <= 0 || cols <= 0 {
		if scale == nil {
			transposeGeneric(dst, ldd, src, lds, rows, cols)
		} else {
			transposeScaledGeneric(dst, ldd, src, lds, rows, cols, scale)
		}
		return
	}
	_ = dst[(cols-1)*ldd+rows-1]
	_ = src[(rows-1)*lds+cols-1]
	if scale != nil {
		_ = scale[rows-1]
	}
	r4, c4 := rows&^3, cols&^3
	if r4 > 0 && c4 > 0 {
		var sp *float64
		if scale != nil {
			sp = &scale[0]
		}
		transpose4AVX(&dst[0], ldd, &src[0], lds, r4, c4, sp)
	}
	if c4 < cols { // the last columns of every row
		transposeEdge(dst[c4*ldd:], ldd, src[c4:], lds, rows, cols-c4, scale)
	}
	if r4 < rows && c4 > 0 { // the last rows of the other columns
		var sr []float64
		if scale != nil {
			sr = scale[r4:]
		}
		transposeEdge(dst[r4:], ldd, src[r4*lds:], lds, rows-r4, c4, sr)
	}
}

// transposeEdge is transposeAsm on a remainder strip.
func transposeEdge(dst []float64, ldd int, src []float64, lds int, rows, cols int, scale []float64) {
	switch {
	case useAVX512:
		var sp *float64
		if scale != nil {
			sp = &scale[0]
		}
		transposeAVX512(&dst[0], ldd, &src[0], lds, rows, cols, sp)
	case scale == nil:
		transposeGeneric(dst, ldd, src, lds, rows, cols)
	default:
		transposeScaledGeneric(dst, ldd, src, lds, rows, cols, scale)
	}
}

func transposeDots(dst []float64, ldd int, src []float64, lds int, rows, cols int, g []float64) {
	r4 := rows &^ 3
	if !useAVX512 || r4 == 0 || cols%4 != 0 || cols > 16 {
		transposeDotsGeneric(dst, ldd, src, lds, rows, cols, g)
		return
	}
	_ = dst[(cols-1)*ldd+rows-1]
	_ = src[(rows-1)*lds+cols-1]
	transposeDotsAVX512(&dst[0], ldd, &src[0], lds, r4, cols, &g[0])
	if r4 < rows {
		transposeEdge(dst[r4:], ldd, src[r4*lds:], lds, rows-r4, cols, nil)
		d0 := dst[r4:rows]
		for c := 0; c < cols; c++ {
			g[c] += dotGeneric(d0, dst[c*ldd+r4:c*ldd+rows])
		}
	}
}

func projTransposeScaled(dst []float64, ldd int, src []float64, lds int, rows, cols int, scale []float64, j0 int, s []float64) {
	nv := cols &^ 7
	if !useAVX512 || rows > 16 || j0 != 4*((rows-1)/4) || nv == 0 {
		projTransposeScaledGeneric(dst, ldd, src, lds, rows, cols, scale, j0, s)
		return
	}
	b := rows - j0
	_ = dst[(cols-1)*ldd+rows-1]
	_ = src[(rows-1)*lds+cols-1]
	sp := &projDotsSink[0]
	if j0 > 0 {
		_ = s[(j0-1)*b+b-1]
		sp = &s[0]
	}
	projTransposeAVX512(&dst[0], ldd, &src[0], lds, nv, &scale[0], sp, rows)
	if nv < cols {
		projRows(src[j0*lds:], lds, b, src, lds, j0, s, b, nv, cols)
		transposeScaledGeneric(dst[nv*ldd:], ldd, src[nv:], lds, rows, cols-nv, scale)
	}
}

func peakFMA(iters int) (flops int) {
	if useAVX512 {
		peakFMAAVX512(iters) // 16 chains of 8 lanes
		return max(iters, 0) * 16 * 8 * 2
	}
	if useAVX2 {
		peakFMAAVX2(iters) // 12 chains of 4 lanes
		return max(iters, 0) * 12 * 4 * 2
	}
	return peakFMAGeneric(iters)
}

// acos is math.Acos with the assembly kernels, whose bits are fixed per
// implementation anyway; the purego build, the one promised the same bits
// on every architecture, uses acosGeneric.
func acos(x float64) float64 { return math.Acos(x) }

// acosN is AcosN (len(dst) == len(x)). The AVX2 kernel takes whole
// vectors: the last 1..3 go through a padded copy.
func acosN(dst, x []float64) {
	switch {
	case useAVX512:
		acosAVX512(dst, x)
	case useAVX2:
		n := len(x) &^ 3
		if n > 0 {
			acosAVX2(dst[:n], x[:n])
		}
		if n < len(x) {
			var b [4]float64
			copy(b[:], x[n:])
			acosAVX2(b[:], b[:])
			copy(dst[n:], b[:])
		}
	default:
		for i, v := range x {
			dst[i] = math.Acos(v)
		}
	}
}

// ab2Extent checks, before the assembly, that every slice of an AB2 or
// AB2F32 call (n, k, d >= 1) holds its last element: a short one panics
// here instead of the kernel reading or writing past it.
func ab2Extent[C, A, A2 float32 | float64](c []C, ldc int, a1 []A, lda1 int, b1 []float64, ldb1 int, a2 []A2, lda2 int, b2 []float64, ldb2 int, n, k, d int) {
	_ = c[(n-1)*ldc+d-1]
	_ = a1[(n-1)*lda1+k-1]
	_ = b1[(k-1)*ldb1+d-1]
	_ = a2[(n-1)*lda2+k-1]
	_ = b2[(k-1)*ldb2+d-1]
}

// ab2F32Fused reports whether the fused AB2F32 kernels (and AB2F32F32's)
// take k and d: one column block (AVX-512 32, AVX2 12 columns). Wider, a
// fused kernel would widen each element of A once per column block (at
// d = 25 on AVX2 it took 50 us against 39 us for the three passes):
// blocks of rows widened, multiplied and rounded through the stack
// instead. Fused, A is widened as its elements are broadcast and C
// rounded as it is stored (on AVX-512 at d = 5 the three passes cost a
// third more); its rows are read whole before they are stored, so in
// place is fine.
func ab2F32Fused(k, d int) bool {
	cols := blockColsAVX2
	if useAVX512 {
		cols = blockColsAVX512
	}
	return (useAVX512 || useAVX2) && k > 0 && d <= cols
}

func ab2F32(c []float32, ldc int, a1 []float32, lda1 int, b1 []float64, ldb1 int, a2 []float64, lda2 int, b2 []float64, ldb2 int, n, k, d int) {
	if !ab2F32Fused(k, d) {
		ab2F32Blocks(c, ldc, a1, lda1, b1, ldb1, a2, lda2, b2, ldb2, n, k, d)
		return
	}
	ab2Extent(c, ldc, a1, lda1, b1, ldb1, a2, lda2, b2, ldb2, n, k, d)
	if useAVX512 {
		ab2F32KernelAVX512(&c[0], ldc, &a1[0], lda1, &b1[0], ldb1, &a2[0], lda2, &b2[0], ldb2, k, n, d)
	} else {
		ab2F32KernelAVX2(&c[0], ldc, &a1[0], lda1, &b1[0], ldb1, &a2[0], lda2, &b2[0], ldb2, k, n, d)
	}
}

// ab2F32F32 is ab2F32 with A2 float32 (AB2F32F32).
func ab2F32F32(c []float32, ldc int, a1 []float32, lda1 int, b1 []float64, ldb1 int, a2 []float32, lda2 int, b2 []float64, ldb2 int, n, k, d int) {
	if !ab2F32Fused(k, d) {
		ab2F32F32Blocks(c, ldc, a1, lda1, b1, ldb1, a2, lda2, b2, ldb2, n, k, d)
		return
	}
	ab2Extent(c, ldc, a1, lda1, b1, ldb1, a2, lda2, b2, ldb2, n, k, d)
	if useAVX512 {
		ab2F32F32KernelAVX512(&c[0], ldc, &a1[0], lda1, &b1[0], ldb1, &a2[0], lda2, &b2[0], ldb2, k, n, d)
	} else {
		ab2F32F32KernelAVX2(&c[0], ldc, &a1[0], lda1, &b1[0], ldb1, &a2[0], lda2, &b2[0], ldb2, k, n, d)
	}
}

// ab2s32Native: on AVX-512 for k, d <= 12 one kernel keeps both B
// matrices in registers (2k of them) beside eight accumulators, one
// vector a row; otherwise, for k, d <= 32, on AVX-512 and AVX2, a kernel
// reads them packed from a stack copy, one to two (AVX2: four) vectors a
// row.
func ab2s32Native(k, d int) bool {
	return (useAVX512 || useAVX2) && k >= 1 && k <= 32 && d >= 1 && d <= 32
}

func ab2s32Kernel(c []float32, ldc int, a1 []float32, lda1 int, b1 []float32, ldb1 int, a2 []float32, lda2 int, b2 []float32, ldb2 int, n, k, d int) {
	if useAVX512 && k <= 12 && d <= 12 {
		ab2s32KernelAVX512(&c[0], ldc, &a1[0], lda1, &b1[0], ldb1, &a2[0], lda2, &b2[0], ldb2, k, n, d)
		return
	}
	// B1's rows then B2's, each a whole number of vectors (16 float32 on
	// AVX-512, 8 on AVX2), on the stack: a small copy where it fits
	// (every AVX2 call at d <= 12), so that the stack arrays zeroed at
	// each call are no larger than they need to be.
	lanes := 8
	if useAVX512 {
		lanes = 16
	}
	step := (d + lanes - 1) / lanes * lanes
	if 2*k*step <= ab2s32SmallPack {
		var bp [ab2s32SmallPack]float32
		ab2s32Packed(c, ldc, a1, lda1, b1, ldb1, a2, lda2, b2, ldb2, n, k, d, bp[:], step)
		return
	}
	var bp [2 * 32 * 32]float32
	ab2s32Packed(c, ldc, a1, lda1, b1, ldb1, a2, lda2, b2, ldb2, n, k, d, bp[:], step)
}

// ab2s32SmallPack is the smaller stack copy of ab2s32Kernel's packed B
// (AVX2 at k, d <= 12).
const ab2s32SmallPack = 2 * 12 * 16

// ab2s32Packed packs B1 and B2 into bp at step float32 a row and runs the
// packed kernel of the path in use.
func ab2s32Packed(c []float32, ldc int, a1 []float32, lda1 int, b1 []float32, ldb1 int, a2 []float32, lda2 int, b2 []float32, ldb2 int, n, k, d int, bp []float32, step int) {
	for l := 0; l < k; l++ {
		copy(bp[l*step:l*step+d], b1[l*ldb1:l*ldb1+d])
		copy(bp[(k+l)*step:(k+l)*step+d], b2[l*ldb2:l*ldb2+d])
	}
	_ = bp[2*k*step-1]
	if useAVX512 {
		ab2s32PackedKernelAVX512(&c[0], ldc, &a1[0], lda1, &a2[0], lda2, &bp[0], 4*step, k, n, d)
		return
	}
	ab2s32KernelAVX2(&c[0], ldc, &a1[0], lda1, &a2[0], lda2, &bp[0], 4*step, k, n, d)
}
