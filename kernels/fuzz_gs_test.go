package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// FuzzProjDots: panel width, rows, projection and dot counts, strides,
// alignments, value magnitudes and whether R is a separate matrix, Q or P.
func FuzzProjDots(f *testing.F) {
	f.Add(uint16(784), uint8(4), uint8(8), uint8(8), uint8(0), uint8(4), uint8(0), uint64(1))
	f.Add(uint16(33), uint8(1), uint8(3), uint8(25), uint8(1), uint8(1), uint8(20), uint64(2))
	f.Fuzz(func(t *testing.T, n16 uint16, b8, nq8, nr8, mode8, sel, mag uint8, seed uint64) {
		n, b, nq, nr := int(n16%1100), 1+int(b8%4), int(nq8%20), int(nr8%30)
		mode := int(mode8 % 3)
		if mode == 1 {
			nr = min(nr, nq)
		} else if mode == 2 {
			nr = min(nr, b)
		}
		ldp, ldq, ldr := fuzzLD(n, sel), fuzzLD(n, sel/5), fuzzLD(n, sel/25)
		lds, ldg := fuzzLD(b, sel/3), fuzzLD(b, sel/7)
		rng := rand.New(rand.NewPCG(seed, 11))
		p0 := fuzzMatrix(rng, b, n, ldp, int(sel%4), mag)
		q := fuzzMatrix(rng, nq, n, ldq, int(sel/4%4), mag)
		s := fuzzMatrix(rng, nq, b, lds, int(sel/16%4), mag)
		rm := fuzzMatrix(rng, nr, n, ldr, int(seed%4), mag)
		forEachImplNoSubtest(func(name string) {
			p := &matrix{buf: append([]float64(nil), p0.buf...), off: p0.off, rows: b, cols: n, ld: ldp}
			g := newMatrix(rng, nr, b, ldg, int(seed/4%4), true)
			var rAt func(k, i int) float64
			var pNew, pScale, want, wScale [][]float64
			rd, rld := rm.data(), ldr
			switch mode {
			case 0:
				rAt = rm.at
			case 1:
				rAt, rd, rld = q.at, q.data(), ldq
			}
			if mode == 2 {
				pNew, pScale, _, _ = projDotsWant(p0, b, q, nq, s, nil, nil, 0, n)
				rAt = func(k, i int) float64 { return pNew[k][i] }
				rs := func(k, i int) float64 { return pScale[k][i] }
				_, _, want, wScale = projDotsWant(p0, b, q, nq, s, rAt, rs, nr, n)
				rd, rld = p.data(), ldp
			} else {
				rs := func(k, i int) float64 { return math.Abs(rAt(k, i)) }
				pNew, pScale, want, wScale = projDotsWant(p0, b, q, nq, s, rAt, rs, nr, n)
			}
			ProjDots(p.data(), ldp, b, q.data(), ldq, nq, s.data(), lds, rd, rld, nr, g.data(), ldg, n)
			p.checkGuards(t, name+": P")
			g.checkGuards(t, name+": G")
			for c := 0; c < b; c++ {
				for i := 0; i < n; i++ {
					if got := p.at(c, i); !near(got, pNew[c][i], 4*pScale[c][i]) {
						t.Fatalf("%s: n=%d b=%d nq=%d nr=%d mode=%d: P[%d,%d] = %v, plain loop %v", name, n, b, nq, nr, mode, c, i, got, pNew[c][i])
					}
				}
			}
			for k := 0; k < nr; k++ {
				for c := 0; c < b; c++ {
					if got := g.at(k, c); !near(got, want[k][c], 4*wScale[k][c]) {
						t.Fatalf("%s: n=%d b=%d nq=%d nr=%d mode=%d: G[%d,%d] = %v, plain loop %v", name, n, b, nq, nr, mode, k, c, got, want[k][c])
					}
				}
			}
		})
	})
}

func FuzzTranspose(f *testing.F) {
	f.Add(uint16(784), uint16(12), uint8(4), uint64(1))
	f.Add(uint16(12), uint16(784), uint8(4), uint64(2))
	f.Fuzz(func(t *testing.T, r16, c16 uint16, sel uint8, seed uint64) {
		rows, cols := int(r16%300), int(c16%300)
		lds, ldd := fuzzLD(cols, sel), fuzzLD(rows, sel/5)
		rng := rand.New(rand.NewPCG(seed, 12))
		src := newMatrix(rng, rows, cols, lds, int(sel/25%4), false)
		forEachImplNoSubtest(func(name string) {
			dst := newMatrix(rng, cols, rows, ldd, int(seed%4), true)
			Transpose(dst.data(), ldd, src.data(), lds, rows, cols)
			dst.checkGuards(t, name+": dst")
			for r := 0; r < rows; r++ {
				for c := 0; c < cols; c++ {
					if math.Float64bits(dst.at(c, r)) != math.Float64bits(src.at(r, c)) {
						t.Fatalf("%s: rows=%d cols=%d: dst[%d,%d] = %v, want %v", name, rows, cols, c, r, dst.at(c, r), src.at(r, c))
					}
				}
			}
			sc := newMatrix(rng, 1, rows, rows, int(seed/4%4), false)
			dst = newMatrix(rng, cols, rows, ldd, int(seed%4), true)
			TransposeScaled(dst.data(), ldd, src.data(), lds, rows, cols, sc.data())
			dst.checkGuards(t, name+": scaled dst")
			for r := 0; r < rows; r++ {
				for c := 0; c < cols; c++ {
					if want := src.at(r, c) * sc.at(0, r); math.Float64bits(dst.at(c, r)) != math.Float64bits(want) {
						t.Fatalf("%s: rows=%d cols=%d: scaled dst[%d,%d] = %v, want %v", name, rows, cols, c, r, dst.at(c, r), want)
					}
				}
			}
		})
	})
}

// FuzzPanelPass: panel width, column, which dots, rows, strides,
// alignments and value magnitudes.
func FuzzPanelPass(f *testing.F) {
	f.Add(uint16(784), uint8(4), uint8(2), false, uint8(4), uint8(0), uint64(1))
	f.Add(uint16(41), uint8(3), uint8(2), true, uint8(2), uint8(30), uint64(2))
	f.Fuzz(func(t *testing.T, n16 uint16, b8, c8 uint8, before bool, sel, mag uint8, seed uint64) {
		n, b := int(n16%1100), 2+int(b8%3)
		c := 1 + int(c8)%(b-1)
		ldp, lds := fuzzLD(n, sel), 1+int(sel/5%4)
		rng := rand.New(rand.NewPCG(seed, 13))
		p0 := fuzzMatrix(rng, b, n, ldp, int(sel%4), mag)
		s := fuzzMatrix(rng, c, 1, lds, int(sel/16%4), mag)
		forEachImplNoSubtest(func(name string) {
			p := &matrix{buf: append([]float64(nil), p0.buf...), off: p0.off, rows: b, cols: n, ld: ldp}
			g := newMatrix(rng, 1, b, b, int(seed%4), true)
			checkPanelPass(t, fmt.Sprintf("%s: n=%d b=%d c=%d before=%v", name, n, b, c, before), p, b, c, s, before, g, n)
		})
	})
}

// FuzzProjTransposeScaled: rows, columns, where the projected rows start,
// strides, alignments and value magnitudes; the bits of the separate calls.
func FuzzProjTransposeScaled(f *testing.F) {
	f.Add(uint16(12), uint16(784), uint8(0), uint8(4), uint8(0), uint64(1))
	f.Add(uint16(5), uint16(41), uint8(1), uint8(2), uint8(40), uint64(2))
	f.Fuzz(func(t *testing.T, r16, c16 uint16, j8, sel, mag uint8, seed uint64) {
		rows, cols := 1+int(r16%24), int(c16%1100)
		j0 := 4 * ((rows - 1) / 4)
		if j8%2 == 1 {
			j0 = max(rows-1-int(j8/2%4), 0)
		}
		b := rows - j0
		lds, ldd := fuzzLD(cols, sel), fuzzLD(rows, sel/5)
		rng := rand.New(rand.NewPCG(seed, 14))
		src0 := fuzzMatrix(rng, rows, cols, lds, int(sel%4), mag)
		s := fuzzMatrix(rng, max(j0*b, 1), 1, 1, int(sel/16%4), mag)
		sc := fuzzMatrix(rng, 1, rows, rows, int(seed%4), mag)
		forEachImplNoSubtest(func(name string) {
			src := &matrix{buf: append([]float64(nil), src0.buf...), off: src0.off, rows: rows, cols: cols, ld: lds}
			checkProjTranspose(t, fmt.Sprintf("%s: rows=%d cols=%d j0=%d", name, rows, cols, j0), src, rows, cols, j0, s, sc, ldd, int(seed/4%4))
		})
	})
}

// FuzzTransposeDots: rows, columns, strides, alignments, magnitudes.
func FuzzTransposeDots(f *testing.F) {
	f.Add(uint16(784), uint16(12), uint8(4), uint8(0), uint64(1))
	f.Add(uint16(35), uint16(7), uint8(2), uint8(30), uint64(2))
	f.Fuzz(func(t *testing.T, r16, c16 uint16, sel, mag uint8, seed uint64) {
		rows, cols := int(r16%1100), 1+int(c16%24)
		lds, ldd := fuzzLD(cols, sel), fuzzLD(rows, sel/5)
		rng := rand.New(rand.NewPCG(seed, 15))
		src := fuzzMatrix(rng, rows, cols, lds, int(sel%4), mag)
		forEachImplNoSubtest(func(name string) {
			checkTransposeDots(t, fmt.Sprintf("%s: rows=%d cols=%d", name, rows, cols), src, rows, cols, ldd, int(seed%4))
		})
	})
}
