package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// The AVX-512 forms of svd.Gram's 256-bit kernels (gram4.go): 8 matrices,
// one per 64-bit lane of a ZMM register, each 64-byte vector one element
// of the 8; the same operations as the 4-lane kernels lane by lane, so the
// same bits per matrix, the lanes' selections by K registers. Generated
// from gram4.go's code with the vectors' bytes doubled.

func gram8() {
	TEXT("gram8AVX512", NOSPLIT, "func(at *float64, gm *float64, n, n4 int)")
	Pragma("noescape")
	Doc(
		"gram8AVX512 is gram4AVX2 on 8 lane-interleaved n x n matrices: column c of A",
		"is the n vectors of 8 at at[c*n*8:], and G[i][j] the vector at g[(i*n4+j)*8:];",
		"each entry the same chain as gram4AVX2's (two halves, even and odd rows).",
	)
	at := Load(Param("at"), GP64())
	g := Load(Param("gm"), GP64())
	n := Load(Param("n"), GP64())
	n4 := Load(Param("n4"), GP64())
	colB := GP64() // bytes per column: n*32
	MOVQ(n, colB)
	SHLQ(Imm(6), colB)
	rowG := GP64() // bytes per row of G: n4*32
	MOVQ(n4, rowG)
	SHLQ(Imm(6), rowG)

	i, j0 := GP64(), GP64()
	ai, aj := GP64(), GP64()
	c1, c2, c3 := GP64(), GP64(), GP64()
	r := GP64()
	acc := []VecPhysical{Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7}
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
	SUBQ(Imm(64), end) // the last pair of rows starts below end
	Label("gr2")
	CMPQ(r, end)
	JGE(LabelRef("gr1"))
	VMOVUPD(Mem{Base: ai, Index: r, Scale: 1}, Z8)
	VMOVUPD(Mem{Base: ai, Index: r, Scale: 1, Disp: 64}, Z9)
	for u, c := range cols {
		VFMADD231PD(Mem{Base: c, Index: r, Scale: 1}, Z8, acc[u])
		VFMADD231PD(Mem{Base: c, Index: r, Scale: 1, Disp: 64}, Z9, acc[4+u])
	}
	ADDQ(Imm(128), r)
	JMP(LabelRef("gr2"))
	Label("gr1")
	CMPQ(r, colB)
	JGE(LabelRef("grdone"))
	VMOVUPD(Mem{Base: ai, Index: r, Scale: 1}, Z8)
	for u, c := range cols {
		VFMADD231PD(Mem{Base: c, Index: r, Scale: 1}, Z8, acc[u])
	}
	Label("grdone")
	Comment("G[i][j0+u] and G[j0+u][i]")
	dst, dst2 := GP64(), GP64()
	MOVQ(i, dst)
	IMULQ(rowG, dst)
	MOVQ(j0, r)
	SHLQ(Imm(6), r)
	ADDQ(r, dst)
	ADDQ(g, dst)
	MOVQ(j0, dst2)
	IMULQ(rowG, dst2)
	MOVQ(i, r)
	SHLQ(Imm(6), r)
	ADDQ(r, dst2)
	ADDQ(g, dst2)
	for u := 0; u < 4; u++ {
		VADDPD(acc[4+u], acc[u], acc[u])
		VMOVUPD(acc[u], Mem{Base: dst, Disp: 64 * u})
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

func tridiag8() {
	TEXT("tridiag8AVX512", NOSPLIT, "func(gm *float64, n, n4 int, d, e, y *float64, params *[8]float64)")
	Pragma("noescape")
	Doc(
		"tridiag8AVX512 is tridiag4AVX2 on 8 lane-interleaved matrices (G[i][j] the",
		"vector at gm[(i*n4+j)*8:], d and e at [i*8:]): the same operations lane by",
		"lane, the lanes with τ = 0 selected by a K register instead of a blend.",
	)
	g := Load(Param("gm"), GP64())
	n := Load(Param("n"), GP64())
	n4 := Load(Param("n4"), GP64())
	params := Load(Param("params"), GP64())
	rowG := GP64()
	MOVQ(n4, rowG)
	SHLQ(Imm(6), rowG)
	ones, signM, half := Z15, Z14, Z13
	VBROADCASTSD(Mem{Base: params, Disp: 8 * gOne}, ones)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * gSign}, signM)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * gHalf}, half)

	k := GP64()
	rowK := GP64() // &G[k][0]
	nB := GP64()   // n*32
	MOVQ(n, nB)
	SHLQ(Imm(6), nB)
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
	SHLQ(Imm(6), kB)

	Comment("α = G[k][k+1], xs = Σ_{r>=k+2} G[k][r]²")
	alpha, xs, t := Z0, Z1, Z2
	VMOVUPD(Mem{Base: rowK, Index: kB, Scale: 1}, alpha)
	VXORPD(xs, xs, xs)
	VXORPD(t, t, t)
	r := GP64()
	MOVQ(kB, r)
	ADDQ(Imm(64), r)
	Label("txs")
	CMPQ(r, nB)
	JGE(LabelRef("txsdone"))
	VMOVUPD(Mem{Base: rowK, Index: r, Scale: 1}, Z3)
	VFMADD231PD(Z3, Z3, xs)
	ADDQ(Imm(64), r)
	JMP(LabelRef("txs"))
	Label("txsdone")

	Comment("β = -sign(α) sqrt(α² + xs); τ = (β - α)/β; 1/(α - β); lanes with xs = 0: τ = 0")
	beta, tau, inv := Z3, Z4, Z5
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
	VCMPPD(Imm(0x00), t, xs, K1) // EQ_OQ: xs == 0
	VBLENDMPD(t, tau, K1, tau)
	VBLENDMPD(t, inv, K1, inv)
	VBLENDMPD(alpha, beta, K1, beta)
	eK := GP64()
	Load(Param("e"), eK)
	MOVQ(k, r)
	SHLQ(Imm(6), r)
	VMOVUPD(beta, Mem{Base: eK, Index: r, Scale: 1})

	Comment("v over row k: v[k+1] = 1, v[r] = G[k][r]/(α - β)")
	VMOVUPD(ones, Mem{Base: rowK, Index: kB, Scale: 1})
	MOVQ(kB, r)
	ADDQ(Imm(64), r)
	Label("tv")
	CMPQ(r, nB)
	JGE(LabelRef("tvdone"))
	VMULPD(Mem{Base: rowK, Index: r, Scale: 1}, inv, Z7)
	VMOVUPD(Z7, Mem{Base: rowK, Index: r, Scale: 1})
	ADDQ(Imm(64), r)
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
	yv := Z12
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
		ADDQ(Imm(64), r2)
		CMPQ(r2, nB)
		JGE(LabelRef(tag))
		MOVQ(rowI, rowI1)
		ADDQ(rowG, rowI1)
		body(2, tag+"2")
		LEAQ(Mem{Base: rowI1, Index: rowG, Scale: 1}, rowI)
		ADDQ(Imm(128), iB)
		JMP(LabelRef(tag + "2"))
		Label(tag)
		CMPQ(iB, nB)
		JGE(LabelRef(tag + "done"))
		body(1, tag+"1")
		Label(tag + "done")
	}
	// symv emits y[i] for rows (1 or 2) rows from rowI: each row's two
	// chains (even pairs of terms in Z7 or Z9, odd in Z8 or Z10) added,
	// times τ, stored, and the row's y[i] v[i] added into yv.
	symv := func(rows int, pfx string) {
		even, odd := []VecPhysical{Z7, Z9}, []VecPhysical{Z8, Z10}
		for u := 0; u < rows; u++ {
			VXORPD(even[u], even[u], even[u])
			VXORPD(odd[u], odd[u], odd[u])
		}
		MOVQ(kB, r)
		Label(pfx + "j2")
		MOVQ(r, r2)
		ADDQ(Imm(64), r2)
		CMPQ(r2, nB)
		JGE(LabelRef(pfx + "j1"))
		VMOVUPD(Mem{Base: rowK, Index: r, Scale: 1}, Z0)
		VMOVUPD(Mem{Base: rowK, Index: r, Scale: 1, Disp: 64}, Z1)
		for u := 0; u < rows; u++ {
			VFMADD231PD(Mem{Base: rowP[u], Index: r, Scale: 1}, Z0, even[u])
		}
		for u := 0; u < rows; u++ {
			VFMADD231PD(Mem{Base: rowP[u], Index: r, Scale: 1, Disp: 64}, Z1, odd[u])
		}
		ADDQ(Imm(128), r)
		JMP(LabelRef(pfx + "j2"))
		Label(pfx + "j1")
		CMPQ(r, nB)
		JGE(LabelRef(pfx + "jdone"))
		VMOVUPD(Mem{Base: rowK, Index: r, Scale: 1}, Z0)
		for u := 0; u < rows; u++ {
			VFMADD231PD(Mem{Base: rowP[u], Index: r, Scale: 1}, Z0, even[u])
		}
		Label(pfx + "jdone")
		for u := 0; u < rows; u++ {
			VADDPD(odd[u], even[u], even[u])
			VMULPD(tau, even[u], even[u])
			VMOVUPD(even[u], Mem{Base: yb, Index: iB, Scale: 1, Disp: 64 * u})
			VFMADD231PD(Mem{Base: rowK, Index: iB, Scale: 1, Disp: 64 * u}, even[u], yv)
		}
	}
	rowPairs("ty", symv)

	Comment("z = y + h v, h = -τ yv / 2 (into y)")
	h := Z11
	VMULPD(half, tau, h)
	VMULPD(yv, h, h)
	MOVQ(kB, iB)
	Label("tz")
	CMPQ(iB, nB)
	JGE(LabelRef("tzdone"))
	VMOVUPD(Mem{Base: yb, Index: iB, Scale: 1}, Z7)
	VFNMADD231PD(Mem{Base: rowK, Index: iB, Scale: 1}, h, Z7)
	VMOVUPD(Z7, Mem{Base: yb, Index: iB, Scale: 1})
	ADDQ(Imm(64), iB)
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
		vi, zi, acc := []VecPhysical{Z9, Z11}, []VecPhysical{Z10, Z12}, []VecPhysical{Z7, Z8}
		for u := 0; u < rows; u++ {
			VMOVUPD(Mem{Base: rowK, Index: iB, Scale: 1, Disp: 64 * u}, vi[u])
			VMOVUPD(Mem{Base: yb, Index: iB, Scale: 1, Disp: 64 * u}, zi[u])
		}
		MOVQ(kB, r)
		Label(pfx + "j")
		VMOVUPD(Mem{Base: yb, Index: r, Scale: 1}, Z0)
		VMOVUPD(Mem{Base: rowK, Index: r, Scale: 1}, Z1)
		for u := 0; u < rows; u++ {
			VMOVUPD(Mem{Base: rowP[u], Index: r, Scale: 1}, acc[u])
		}
		for u := 0; u < rows; u++ {
			VFNMADD231PD(Z0, vi[u], acc[u])
		}
		for u := 0; u < rows; u++ {
			VFNMADD231PD(Z1, zi[u], acc[u])
		}
		for u := 0; u < rows; u++ {
			VMOVUPD(acc[u], Mem{Base: rowP[u], Index: r, Scale: 1})
		}
		ADDQ(Imm(64), r)
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
	VMOVUPD(Mem{Base: rowK, Index: r, Scale: 1}, Z0)
	VMOVUPD(Z0, Mem{Base: dp, Index: r, Scale: 1})
	ADDQ(rowG, rowK)
	ADDQ(Imm(64), r)
	CMPQ(r, nB)
	JL(LabelRef("td"))
	Load(Param("e"), eK)
	VXORPD(Z0, Z0, Z0)
	VMOVUPD(Z0, Mem{Base: eK, Index: nB, Scale: 1, Disp: -64})
	CMPQ(n, Imm(2))
	JL(LabelRef("tret"))
	SUBQ(rowG, rowK) // &G[n-1][0]
	VMOVUPD(Mem{Base: rowK, Index: nB, Scale: 1, Disp: -128}, Z0)
	VMOVUPD(Z0, Mem{Base: eK, Index: nB, Scale: 1, Disp: -128})
	Label("tret")
	VZEROUPPER()
	RET()
}

func sturm8() {
	TEXT("sturm8AVX512", NOSPLIT, "func(d, e2 *float64, n int, x *float64, k int, cnt *int64, params *[8]float64)")
	Pragma("noescape")
	Doc(
		"sturm8AVX512 is sturm4AVX2 on 8 lane-interleaved tridiagonal matrices (d, e2",
		"at [i*8:], the shifts at x[j*8:], the counts into cnt[j*8:]): the same",
		"operations lane by lane, the guard's selection by a K register.",
	)
	d := Load(Param("d"), GP64())
	e2 := Load(Param("e2"), GP64())
	n := Load(Param("n"), GP64())
	x := Load(Param("x"), GP64())
	k := Load(Param("k"), GP64())
	cnt := Load(Param("cnt"), GP64())
	params := Load(Param("params"), GP64())
	absM, pivmin, negPiv := Z8, Z9, Z15
	VBROADCASTSD(Mem{Base: params, Disp: 8 * gAbs}, absM)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * gPivmin}, pivmin)
	VBROADCASTSD(Mem{Base: params, Disp: 8 * gSign}, negPiv)
	VORPD(pivmin, negPiv, negPiv)
	q := []VecPhysical{Z0, Z1, Z2, Z3}
	cn := []VecPhysical{Z4, Z5, Z6, Z7}
	nB := GP64()
	MOVQ(n, nB)
	SHLQ(Imm(6), nB)
	j := GP64()
	XORQ(j, j)
	Label("sj")
	CMPQ(j, k)
	JGE(LabelRef("sdone"))
	xo := GP64()
	MOVQ(j, xo)
	SHLQ(Imm(6), xo)
	ADDQ(x, xo)
	guard := func(u int) {
		VANDPD(q[u], absM, Z12)
		VCMPPD(Imm(0x11), pivmin, Z12, K1) // LT_OQ
		VBLENDMPD(negPiv, q[u], K1, q[u])
		VPSRLQ(Imm(63), q[u], Z13)
		VPADDQ(Z13, cn[u], cn[u])
	}
	VMOVUPD(Mem{Base: d}, Z10)
	for u := 0; u < 4; u++ {
		VXORPD(cn[u], cn[u], cn[u])
		VSUBPD(Mem{Base: xo, Disp: 64 * u}, Z10, q[u])
		guard(u)
	}
	i := GP64()
	MOVQ(U32(64), i)
	Label("si")
	CMPQ(i, nB)
	JGE(LabelRef("sidone"))
	VMOVUPD(Mem{Base: d, Index: i, Scale: 1}, Z10)
	VMOVUPD(Mem{Base: e2, Index: i, Scale: 1, Disp: -64}, Z11)
	for u := 0; u < 4; u++ {
		VDIVPD(q[u], Z11, Z13)
		VSUBPD(Mem{Base: xo, Disp: 64 * u}, Z10, Z12)
		VSUBPD(Z13, Z12, q[u])
		guard(u)
	}
	ADDQ(Imm(64), i)
	JMP(LabelRef("si"))
	Label("sidone")
	MOVQ(j, i)
	SHLQ(Imm(6), i)
	for u := 0; u < 4; u++ {
		VMOVDQU64(cn[u], Mem{Base: cnt, Index: i, Scale: 1, Disp: 64 * u})
	}
	ADDQ(Imm(4), j)
	JMP(LabelRef("sj"))
	Label("sdone")
	VZEROUPPER()
	RET()
}
