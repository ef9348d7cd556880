package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The AVX2 (+FMA) kernels of svd.Gram's enclosures: a group of 4 n x n
// matrices, one per 64-bit lane of a YMM register, each 32-byte vector
// holding one element of the 4 matrices. Every lane goes through the same
// instructions; where the lanes' data ask for different control flow (the
// QL iteration's splits, deflations and the end of its chases) the lanes
// that must not change are masked by blends, so each lane computes what it
// computes alone. The Gram matrix, reduction, Sturm counts and loader are
// written once for both widths (gramWidth): 4 lanes in YMM registers and
// their AVX-512 forms on 8 lanes in ZMM registers, the same operations
// lane by lane (ql512.go has the QL iteration's AVX-512 form).

// Layout of the params array of the Gram kernels (float64 index).
const (
	gTol     = 0 // (unused)
	gOne     = 1 // 1
	gHalf    = 2 // 0.5
	gAbs     = 3 // all bits but the sign
	gSign    = 4 // the sign bit
	gPivmin  = 5 // Sturm counts: least pivot magnitude
	gMaxIter = 6 // QL: iterations per eigenvalue (an integer, not a float64)
)

// gramWidth is the vector width of the Gram kernels: 4 lanes in YMM
// registers (the AVX2 kernels) or 8 in ZMM registers (their AVX-512 forms:
// the same operations lane by lane, the vectors' bytes doubled, K
// registers where the 4-lane kernels blend).
type gramWidth struct {
	L    int    // lanes
	name string // the kernels' suffix
	vb   int    // bytes per vector
	sh   uint64 // log2(vb)
}

var (
	gram4w = gramWidth{L: 4, name: "4AVX2", vb: 32, sh: 5}
	gram8w = gramWidth{L: 8, name: "8AVX512", vb: 64, sh: 6}
)

// v returns vector register i of the width.
func (w gramWidth) v(i int) VecPhysical {
	if w.L == 8 {
		return []VecPhysical{Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, Z10, Z11, Z12, Z13, Z14, Z15,
			Z16, Z17, Z18, Z19, Z20, Z21, Z22, Z23, Z24, Z25, Z26, Z27, Z28, Z29, Z30, Z31}[i]
	}
	return []VecPhysical{Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, Y10, Y11, Y12, Y13, Y14, Y15}[i]
}

// doc writes the kernel's documentation: l8 for 8 lanes, l4 for 4.
func (w gramWidth) doc(l8, l4 []string) {
	if w.L == 8 {
		Doc(l8...)
		return
	}
	Doc(l4...)
}

// cmp sets the mask of the lanes where a pred b holds (a VCMPPD
// predicate): the vector m on 4 lanes, K1 on 8.
func (w gramWidth) cmp(pred uint64, b, a, m VecPhysical) {
	if w.L == 8 {
		VCMPPD(Imm(pred), b, a, K1)
		return
	}
	VCMPPD(Imm(pred), b, a, m)
}

// blend sets dst to src in the lanes of the mask of the last cmp (m).
func (w gramWidth) blend(m, src, dst VecPhysical) {
	if w.L == 8 {
		VBLENDMPD(src, dst, K1, dst)
		return
	}
	VBLENDVPD(m, src, dst, dst)
}

// movdqu stores the integer vector src.
func (w gramWidth) movdqu(src VecPhysical, m Mem) {
	if w.L == 8 {
		VMOVDQU64(src, m)
		return
	}
	VMOVDQU(src, m)
}

func gram(w gramWidth) {
	TEXT("gram"+w.name, NOSPLIT, "func(at *float64, gm *float64, n, n4 int)")
	Pragma("noescape")
	w.doc([]string{
		"gram8AVX512 is gram4AVX2 on 8 lane-interleaved n x n matrices: column c of A",
		"is the n vectors of 8 at at[c*n*8:], and G[i][j] the vector at g[(i*n4+j)*8:];",
		"each entry the same chain as gram4AVX2's (two halves, even and odd rows).",
	}, []string{
		"gram4AVX2 writes G = AᵀA of 4 lane-interleaved n x n matrices: column c of A",
		"is the n vectors at at[c*n*4:], for c < n4 (columns n..n4-1 zero, n4 = n",
		"rounded up to a multiple of 4), and G[i][j] is the vector at g[(i*n4+j)*4:]",
		"for i, j < n4 (g = gm). Each entry is one chain of FMAs over r, in two halves (even",
		"and odd rows) added at the end. (gm: g is the goroutine register's name",
		"in Go assembly.)",
	})
	at := Load(Param("at"), GP64())
	g := Load(Param("gm"), GP64())
	n := Load(Param("n"), GP64())
	n4 := Load(Param("n4"), GP64())
	colB := GP64() // bytes per column: n*32
	MOVQ(n, colB)
	SHLQ(Imm(w.sh), colB)
	rowG := GP64() // bytes per row of G: n4*32
	MOVQ(n4, rowG)
	SHLQ(Imm(w.sh), rowG)

	i, j0 := GP64(), GP64()
	ai, aj := GP64(), GP64()
	c1, c2, c3 := GP64(), GP64(), GP64()
	r := GP64()
	acc := []VecPhysical{w.v(0), w.v(1), w.v(2), w.v(3), w.v(4), w.v(5), w.v(6), w.v(7)}
	XORQ(i, i)
	MOVQ(at, ai)
	Label("gi")
	XORQ(j0, j0)
	MOVQ(at, aj)
	Label("gj")
	for _, a := range acc {
		VXORPD(a, a, a)
	}
	MOVQ(aj, c1)
	ADDQ(colB, c1)
	MOVQ(c1, c2)
	ADDQ(colB, c2)
	MOVQ(c2, c3)
	ADDQ(colB, c3)
	cols := []Register{aj, c1, c2, c3}
	XORQ(r, r)
	end := GP64()
	MOVQ(colB, end)
	SUBQ(Imm(uint64(w.vb)), end) // the last pair of rows starts below end
	Label("gr2")
	CMPQ(r, end)
	JGE(LabelRef("gr1"))
	VMOVUPD(Mem{Base: ai, Index: r, Scale: 1}, w.v(8))
	VMOVUPD(Mem{Base: ai, Index: r, Scale: 1, Disp: w.vb}, w.v(9))
	for u, c := range cols {
		VFMADD231PD(Mem{Base: c, Index: r, Scale: 1}, w.v(8), acc[u])
		VFMADD231PD(Mem{Base: c, Index: r, Scale: 1, Disp: w.vb}, w.v(9), acc[4+u])
	}
	ADDQ(Imm(uint64(2*w.vb)), r)
	JMP(LabelRef("gr2"))
	Label("gr1")
	CMPQ(r, colB)
	JGE(LabelRef("grdone"))
	VMOVUPD(Mem{Base: ai, Index: r, Scale: 1}, w.v(8))
	for u, c := range cols {
		VFMADD231PD(Mem{Base: c, Index: r, Scale: 1}, w.v(8), acc[u])
	}
	Label("grdone")
	Comment("G[i][j0+u] and G[j0+u][i]")
	dst, dst2 := GP64(), GP64()
	MOVQ(i, dst)
	IMULQ(rowG, dst)
	MOVQ(j0, r)
	SHLQ(Imm(w.sh), r)
	ADDQ(r, dst)
	ADDQ(g, dst)
	MOVQ(j0, dst2)
	IMULQ(rowG, dst2)
	MOVQ(i, r)
	SHLQ(Imm(w.sh), r)
	ADDQ(r, dst2)
	ADDQ(g, dst2)
	for u := 0; u < 4; u++ {
		VADDPD(acc[4+u], acc[u], acc[u])
		VMOVUPD(acc[u], Mem{Base: dst, Disp: w.vb * u})
		VMOVUPD(acc[u], Mem{Base: dst2})
		ADDQ(rowG, dst2)
	}
	ADDQ(Imm(4), j0)
	MOVQ(c3, aj)
	ADDQ(colB, aj)
	CMPQ(j0, i)
	JLE(LabelRef("gj"))
	ADDQ(colB, ai)
	INCQ(i)
	CMPQ(i, n)
	JL(LabelRef("gi"))
	VZEROUPPER()
	RET()
}

func tridiag(w gramWidth) {
	TEXT("tridiag"+w.name, NOSPLIT, "func(gm *float64, n, n4 int, d, e, y *float64, params *[8]float64)")
	Pragma("noescape")
	w.doc([]string{
		"tridiag8AVX512 is tridiag4AVX2 on 8 lane-interleaved matrices (G[i][j] the",
		"vector at gm[(i*n4+j)*8:], d and e at [i*8:]): the same operations lane by",
		"lane, the lanes with τ = 0 selected by a K register instead of a blend.",
	}, []string{
		"tridiag4AVX2 reduces the 4 lane-interleaved symmetric n x n matrices G",
		"(G[i][j] the vector at gm[(i*n4+j)*4:], both triangles) to tridiagonal form",
		"by Householder reflections H = I - τ v vᵀ (LAPACK's dsytd2): for column",
		"k, v zeroes G[k+2:n][k]; the trailing block becomes G - v zᵀ - z vᵀ with",
		"y = τ G v, z = y - (τ/2)(yᵀv) v (both triangles). A lane whose column is",
		"zero below the subdiagonal gets τ = 0 (H = I). It writes the diagonal to",
		"d[i*4:] and the subdiagonal to e[i*4:] (e[n-1] = 0); G is overwritten",
		"(row k holds v); y is scratch of n vectors.",
	})
	g := Load(Param("gm"), GP64())
	n := Load(Param("n"), GP64())
	n4 := Load(Param("n4"), GP64())
	params := Load(Param("params"), GP64())
	rowG := GP64()
	MOVQ(n4, rowG)
	SHLQ(Imm(w.sh), rowG)
	ones, signM, half := w.v(15), w.v(14), w.v(13)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * gOne}, ones)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * gSign}, signM)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * gHalf}, half)

	k := GP64()
	rowK := GP64() // &G[k][0]
	nB := GP64()   // n*32
	MOVQ(n, nB)
	SHLQ(Imm(w.sh), nB)
	XORQ(k, k)
	MOVQ(g, rowK)
	lim := GP64()
	MOVQ(n, lim)
	SUBQ(Imm(2), lim)
	Label("tk")
	CMPQ(k, lim)
	JGE(LabelRef("tdone"))
	kB := GP64() // (k+1)*32: the first column of the trailing block
	MOVQ(k, kB)
	INCQ(kB)
	SHLQ(Imm(w.sh), kB)

	Comment("α = G[k][k+1], xs = Σ_{r>=k+2} G[k][r]²")
	alpha, xs, t := w.v(0), w.v(1), w.v(2)
	VMOVUPD(Mem{Base: rowK, Index: kB, Scale: 1}, alpha)
	VXORPD(xs, xs, xs)
	VXORPD(t, t, t)
	r := GP64()
	MOVQ(kB, r)
	ADDQ(Imm(uint64(w.vb)), r)
	Label("txs")
	CMPQ(r, nB)
	JGE(LabelRef("txsdone"))
	VMOVUPD(Mem{Base: rowK, Index: r, Scale: 1}, w.v(3))
	VFMADD231PD(w.v(3), w.v(3), xs)
	ADDQ(Imm(uint64(w.vb)), r)
	JMP(LabelRef("txs"))
	Label("txsdone")

	Comment("β = -sign(α) sqrt(α² + xs); τ = (β - α)/β; 1/(α - β); lanes with xs = 0: τ = 0")
	beta, tau, inv, zero := w.v(3), w.v(4), w.v(5), w.v(6)
	VMOVAPD(xs, beta)
	VFMADD231PD(alpha, alpha, beta)
	VSQRTPD(beta, beta)
	VANDPD(signM, alpha, t)
	VXORPD(signM, t, t)
	VORPD(t, beta, beta) // |β| with the sign opposite to α's
	VSUBPD(alpha, beta, tau)
	VDIVPD(beta, tau, tau)
	VSUBPD(beta, alpha, inv)
	VDIVPD(inv, ones, inv)
	VXORPD(t, t, t)
	w.cmp(0x00, t, xs, zero) // EQ_OQ: xs == 0
	w.blend(zero, t, tau)    // tau = t where zero
	w.blend(zero, t, inv)
	w.blend(zero, alpha, beta)
	eK := GP64()
	Load(Param("e"), eK)
	MOVQ(k, r)
	SHLQ(Imm(w.sh), r)
	VMOVUPD(beta, Mem{Base: eK, Index: r, Scale: 1})

	Comment("v over row k: v[k+1] = 1, v[r] = G[k][r]/(α - β)")
	VMOVUPD(ones, Mem{Base: rowK, Index: kB, Scale: 1})
	MOVQ(kB, r)
	ADDQ(Imm(uint64(w.vb)), r)
	Label("tv")
	CMPQ(r, nB)
	JGE(LabelRef("tvdone"))
	VMULPD(Mem{Base: rowK, Index: r, Scale: 1}, inv, w.v(7))
	VMOVUPD(w.v(7), Mem{Base: rowK, Index: r, Scale: 1})
	ADDQ(Imm(uint64(w.vb)), r)
	JMP(LabelRef("tv"))
	Label("tvdone")

	Comment("y[i] = τ Σ_j G[i][j] v[j], i, j >= k+1; yv = Σ_i y[i] v[i] (two rows at a time, v[j] loaded once for both)")
	yb := GP64()
	Load(Param("y"), yb)
	rowI := GP64()
	MOVQ(k, rowI)
	INCQ(rowI)
	IMULQ(rowG, rowI)
	ADDQ(g, rowI)
	iB := GP64()
	MOVQ(kB, iB)
	yv := w.v(12)
	VXORPD(yv, yv, yv)
	r2 := GP64()
	rowI1 := GP64()
	rowP := []Register{rowI, rowI1}
	// rowPairs walks body over the rows from iB (byte offset; rowI its
	// row of G) to n: two rows at a time (body(2, tag+"2"), rowI1 the
	// second) while two are left, then the last one (body(1, tag+"1"));
	// it ends at label tag+"done". symv and update run so.
	rowPairs := func(tag string, body func(rows int, pfx string)) {
		Label(tag + "2")
		MOVQ(iB, r2)
		ADDQ(Imm(uint64(w.vb)), r2)
		CMPQ(r2, nB)
		JGE(LabelRef(tag))
		MOVQ(rowI, rowI1)
		ADDQ(rowG, rowI1)
		body(2, tag+"2")
		LEAQ(Mem{Base: rowI1, Index: rowG, Scale: 1}, rowI)
		ADDQ(Imm(uint64(2*w.vb)), iB)
		JMP(LabelRef(tag + "2"))
		Label(tag)
		CMPQ(iB, nB)
		JGE(LabelRef(tag + "done"))
		body(1, tag+"1")
		Label(tag + "done")
	}
	// symv emits y[i] for rows (1 or 2) rows from rowI: each row's two
	// chains (even pairs of terms in w.v(7) or w.v(9), odd in w.v(8) or w.v(10)) added,
	// times τ, stored, and the row's y[i] v[i] added into yv.
	symv := func(rows int, pfx string) {
		even, odd := []VecPhysical{w.v(7), w.v(9)}, []VecPhysical{w.v(8), w.v(10)}
		for u := 0; u < rows; u++ {
			VXORPD(even[u], even[u], even[u])
			VXORPD(odd[u], odd[u], odd[u])
		}
		MOVQ(kB, r)
		Label(pfx + "j2")
		MOVQ(r, r2)
		ADDQ(Imm(uint64(w.vb)), r2)
		CMPQ(r2, nB)
		JGE(LabelRef(pfx + "j1"))
		VMOVUPD(Mem{Base: rowK, Index: r, Scale: 1}, w.v(0))
		VMOVUPD(Mem{Base: rowK, Index: r, Scale: 1, Disp: w.vb}, w.v(1))
		for u := 0; u < rows; u++ {
			VFMADD231PD(Mem{Base: rowP[u], Index: r, Scale: 1}, w.v(0), even[u])
		}
		for u := 0; u < rows; u++ {
			VFMADD231PD(Mem{Base: rowP[u], Index: r, Scale: 1, Disp: w.vb}, w.v(1), odd[u])
		}
		ADDQ(Imm(uint64(2*w.vb)), r)
		JMP(LabelRef(pfx + "j2"))
		Label(pfx + "j1")
		CMPQ(r, nB)
		JGE(LabelRef(pfx + "jdone"))
		VMOVUPD(Mem{Base: rowK, Index: r, Scale: 1}, w.v(0))
		for u := 0; u < rows; u++ {
			VFMADD231PD(Mem{Base: rowP[u], Index: r, Scale: 1}, w.v(0), even[u])
		}
		Label(pfx + "jdone")
		for u := 0; u < rows; u++ {
			VADDPD(odd[u], even[u], even[u])
			VMULPD(tau, even[u], even[u])
			VMOVUPD(even[u], Mem{Base: yb, Index: iB, Scale: 1, Disp: w.vb * u})
			VFMADD231PD(Mem{Base: rowK, Index: iB, Scale: 1, Disp: w.vb * u}, even[u], yv)
		}
	}
	rowPairs("ty", symv)

	Comment("z = y + h v, h = -τ yv / 2 (into y)")
	h := w.v(11)
	VMULPD(half, tau, h)
	VMULPD(yv, h, h)
	MOVQ(kB, iB)
	Label("tz")
	CMPQ(iB, nB)
	JGE(LabelRef("tzdone"))
	VMOVUPD(Mem{Base: yb, Index: iB, Scale: 1}, w.v(7))
	VFNMADD231PD(Mem{Base: rowK, Index: iB, Scale: 1}, h, w.v(7))
	VMOVUPD(w.v(7), Mem{Base: yb, Index: iB, Scale: 1})
	ADDQ(Imm(uint64(w.vb)), iB)
	JMP(LabelRef("tz"))
	Label("tzdone")

	Comment("G[i][j] -= v[i] z[j] + z[i] v[j], i, j >= k+1 (two rows at a time, z[j] and v[j] loaded once for both)")
	MOVQ(k, rowI)
	INCQ(rowI)
	IMULQ(rowG, rowI)
	ADDQ(g, rowI)
	MOVQ(kB, iB)
	// update emits the rank-2 update of rows (1 or 2) rows from rowI,
	// each element's two terms in the same order (v[i] z[j] first).
	update := func(rows int, pfx string) {
		vi, zi, acc := []VecPhysical{w.v(9), w.v(11)}, []VecPhysical{w.v(10), w.v(12)}, []VecPhysical{w.v(7), w.v(8)}
		for u := 0; u < rows; u++ {
			VMOVUPD(Mem{Base: rowK, Index: iB, Scale: 1, Disp: w.vb * u}, vi[u])
			VMOVUPD(Mem{Base: yb, Index: iB, Scale: 1, Disp: w.vb * u}, zi[u])
		}
		MOVQ(kB, r)
		Label(pfx + "j")
		VMOVUPD(Mem{Base: yb, Index: r, Scale: 1}, w.v(0))
		VMOVUPD(Mem{Base: rowK, Index: r, Scale: 1}, w.v(1))
		for u := 0; u < rows; u++ {
			VMOVUPD(Mem{Base: rowP[u], Index: r, Scale: 1}, acc[u])
		}
		for u := 0; u < rows; u++ {
			VFNMADD231PD(w.v(0), vi[u], acc[u])
		}
		for u := 0; u < rows; u++ {
			VFNMADD231PD(w.v(1), zi[u], acc[u])
		}
		for u := 0; u < rows; u++ {
			VMOVUPD(acc[u], Mem{Base: rowP[u], Index: r, Scale: 1})
		}
		ADDQ(Imm(uint64(w.vb)), r)
		CMPQ(r, nB)
		JL(LabelRef(pfx + "j"))
	}
	rowPairs("tu", update)

	ADDQ(rowG, rowK)
	INCQ(k)
	JMP(LabelRef("tk"))

	Label("tdone")
	Comment("d[i] = G[i][i]; e[n-2] = G[n-1][n-2]; e[n-1] = 0")
	dp := GP64()
	Load(Param("d"), dp)
	MOVQ(g, rowK)
	XORQ(r, r)
	Label("td")
	VMOVUPD(Mem{Base: rowK, Index: r, Scale: 1}, w.v(0))
	VMOVUPD(w.v(0), Mem{Base: dp, Index: r, Scale: 1})
	ADDQ(rowG, rowK)
	ADDQ(Imm(uint64(w.vb)), r)
	CMPQ(r, nB)
	JL(LabelRef("td"))
	Load(Param("e"), eK)
	VXORPD(w.v(0), w.v(0), w.v(0))
	VMOVUPD(w.v(0), Mem{Base: eK, Index: nB, Scale: 1, Disp: -w.vb})
	CMPQ(n, Imm(2))
	JL(LabelRef("tret"))
	SUBQ(rowG, rowK) // &G[n-1][0]
	VMOVUPD(Mem{Base: rowK, Index: nB, Scale: 1, Disp: -2 * w.vb}, w.v(0))
	VMOVUPD(w.v(0), Mem{Base: eK, Index: nB, Scale: 1, Disp: -2 * w.vb})
	Label("tret")
	VZEROUPPER()
	RET()
}

func sturm(w gramWidth) {
	TEXT("sturm"+w.name, NOSPLIT, "func(d, e2 *float64, n int, x *float64, k int, cnt *int64, params *[8]float64)")
	Pragma("noescape")
	w.doc([]string{
		"sturm8AVX512 is sturm4AVX2 on 8 lane-interleaved tridiagonal matrices (d, e2",
		"at [i*8:], the shifts at x[j*8:], the counts into cnt[j*8:]): the same",
		"operations lane by lane, the guard's selection by a K register, and eight",
		"shifts at a time (eight division chains) while eight are left.",
	}, []string{
		"sturm4AVX2 writes into cnt[j*4:] the Sturm counts of 4 lane-interleaved",
		"symmetric tridiagonal matrices (diagonal d[i*4:], squared subdiagonal",
		"e2[i*4:]) at the shifts x[j*4:], j < k (k a multiple of 4): in each lane",
		"the number of q_i < 0 in q_0 = d_0 - x, q_i = (d_i - x) - e2_{i-1}/q_{i-1}",
		"(no FMA), a q of magnitude below params[5] replaced by -params[5].",
	})
	d := Load(Param("d"), GP64())
	e2 := Load(Param("e2"), GP64())
	n := Load(Param("n"), GP64())
	x := Load(Param("x"), GP64())
	k := Load(Param("k"), GP64())
	cnt := Load(Param("cnt"), GP64())
	params := Load(Param("params"), GP64())
	absM, pivmin, negPiv := w.v(8), w.v(9), w.v(15)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * gAbs}, absM)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * gPivmin}, pivmin)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * gSign}, negPiv)
	VORPD(pivmin, negPiv, negPiv)
	q := []VecPhysical{w.v(0), w.v(1), w.v(2), w.v(3)}
	cn := []VecPhysical{w.v(4), w.v(5), w.v(6), w.v(7)}
	widths := []int{4}
	if w.L == 8 {
		// Eight shifts at a time where eight are left: twice the
		// independent division chains (each count the same operations).
		q = append(q, w.v(16), w.v(17), w.v(18), w.v(19))
		cn = append(cn, w.v(20), w.v(21), w.v(22), w.v(23))
		widths = []int{8, 4}
	}
	nB := GP64()
	MOVQ(n, nB)
	SHLQ(Imm(w.sh), nB)
	j := GP64()
	XORQ(j, j)
	xo, i := GP64(), GP64()
	guard := func(u int) {
		VANDPD(q[u], absM, w.v(12))
		w.cmp(0x11, pivmin, w.v(12), w.v(12)) // LT_OQ
		w.blend(w.v(12), negPiv, q[u])
		VPSRLQ(Imm(63), q[u], w.v(13))
		VPADDQ(w.v(13), cn[u], cn[u])
	}
	for _, m := range widths {
		pfx := fmt.Sprintf("s%d", m)
		Label(pfx + "j")
		// m more shifts from j: j + m <= k.
		LEAQ(Mem{Base: j, Disp: m}, i)
		CMPQ(i, k)
		JG(LabelRef(pfx + "end"))
		MOVQ(j, xo)
		SHLQ(Imm(w.sh), xo)
		ADDQ(x, xo)
		VMOVUPD(Mem{Base: d}, w.v(10))
		for u := 0; u < m; u++ {
			VXORPD(cn[u], cn[u], cn[u])
			VSUBPD(Mem{Base: xo, Disp: w.vb * u}, w.v(10), q[u])
			guard(u)
		}
		MOVQ(U32(uint32(w.vb)), i)
		Label(pfx + "i")
		CMPQ(i, nB)
		JGE(LabelRef(pfx + "idone"))
		VMOVUPD(Mem{Base: d, Index: i, Scale: 1}, w.v(10))
		VMOVUPD(Mem{Base: e2, Index: i, Scale: 1, Disp: -w.vb}, w.v(11))
		for u := 0; u < m; u++ {
			VDIVPD(q[u], w.v(11), w.v(13))
			VSUBPD(Mem{Base: xo, Disp: w.vb * u}, w.v(10), w.v(12))
			VSUBPD(w.v(13), w.v(12), q[u])
			guard(u)
		}
		ADDQ(Imm(uint64(w.vb)), i)
		JMP(LabelRef(pfx + "i"))
		Label(pfx + "idone")
		MOVQ(j, i)
		SHLQ(Imm(w.sh), i)
		for u := 0; u < m; u++ {
			w.movdqu(cn[u], Mem{Base: cnt, Index: i, Scale: 1, Disp: w.vb * u})
		}
		ADDQ(U32(uint32(m)), j)
		JMP(LabelRef(pfx + "j"))
		Label(pfx + "end")
	}
	Label("sdone")
	VZEROUPPER()
	RET()
}

// ql8 is ql4 for two groups of 4 lanes at once (8 matrices: group A in dA,
// eA, group B in dB, eB, each laid out as ql4's), sharing the control flow
// (the split point and the chase are the longest over the 8 lanes, the
// others masked): the two groups' dependency chains are independent, so
// the core overlaps them. Per group h the scratch holds, 32 bytes each,
// at h*256: m - 1, m (int64), the deflation threshold, the active, done,
// ok and z masks, dm.
