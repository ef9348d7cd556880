package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// panelPassWant is PanelPass as a plain loop on a copy of the panel: the
// updated column c, its element scales Σ|terms|, and the dots with their
// scales.
func panelPassWant(p *matrix, b, c int, s *matrix, before bool, n int) (x, xs, g, gs []float64) {
	x, xs = make([]float64, n), make([]float64, n)
	for i := 0; i < n; i++ {
		v, sc := p.at(c, i), math.Abs(p.at(c, i))
		for l := 0; l < c; l++ {
			t := s.at(l, 0) * p.at(l, i)
			v -= t
			sc += math.Abs(t)
		}
		x[i], xs[i] = v, sc
	}
	k0, k1 := c, b
	if before {
		k0, k1 = 0, c
	}
	for k := k0; k < k1; k++ {
		var d, ds float64
		for i := 0; i < n; i++ {
			v, sc := p.at(k, i), math.Abs(p.at(k, i))
			if k == c {
				v, sc = x[i], xs[i]
			}
			d += v * x[i]
			ds += sc * xs[i]
		}
		g, gs = append(g, d), append(gs, ds)
	}
	return
}

// checkPanelPass runs PanelPass on p (b x n, stride ldp) and compares it
// with the plain loop; p and g are guarded, s must stay unchanged.
func checkPanelPass(t *testing.T, name string, p *matrix, b, c int, s *matrix, before bool, g *matrix, n int) {
	t.Helper()
	x, xs, want, ws := panelPassWant(p, b, c, s, before, n)
	pb, sb := p.bits(), s.bits()
	PanelPass(p.data(), p.ld, b, c, s.data(), s.ld, before, g.data(), n)
	s.checkUnchanged(t, name+": S", sb)
	p.checkGuards(t, name+": P")
	g.checkGuards(t, name+": G")
	for k := 0; k < b; k++ {
		for i := 0; i < n; i++ {
			j := p.off + k*p.ld + i
			switch {
			case k != c && math.Float64bits(p.buf[j]) != pb[j]:
				t.Fatalf("%s: P[%d,%d] (not column c) changed", name, k, i)
			case k == c && !near(p.buf[j], x[i], 4*xs[i]):
				t.Fatalf("%s: P[%d,%d] = %v, plain loop %v", name, k, i, p.buf[j], x[i])
			}
		}
	}
	for j := range want {
		if got := g.at(0, j); !near(got, want[j], 4*ws[j]) {
			t.Fatalf("%s: g[%d] = %v, plain loop %v", name, j, got, want[j])
		}
	}
}

// TestPanelPass covers every (b, c, before), every row tail around the
// 8-row vectors and the 32-row chunks, strides with and without padding,
// every alignment, guards around the panel, S and G.
func TestPanelPass(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 13))
		ci := 0
		for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 39, 40, 41, 63, 64, 65, 100, 784} {
			for b := 2; b <= 4; b++ {
				for c := 1; c < b; c++ {
					for _, before := range []bool{true, false} {
						ci++
						ldp, lds := ldFor(n, ci), 1+ci%5
						p := newMatrix(rng, b, n, ldp, ci%4, false)
						s := newMatrix(rng, c, 1, lds, (ci/4)%4, false)
						g := newMatrix(rng, 1, b, b, (ci/3)%4, true)
						name := fmt.Sprintf("n=%d b=%d c=%d before=%v ldp=%d lds=%d", n, b, c, before, ldp, lds)
						checkPanelPass(t, name, p, b, c, s, before, g, n)
					}
				}
			}
		}
	})
}

// TestPanelPassMatchesProjDots: on every path PanelPass gives the bits of
// ProjDots on the generic and AVX2 paths, and agrees with it to rounding on
// AVX-512.
func TestPanelPassMatchesProjDots(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(2, 13))
		const n, ld = 784, 790
		for b := 2; b <= 4; b++ {
			for c := 1; c < b; c++ {
				for _, before := range []bool{true, false} {
					p0 := randSlice(rng, b*ld)
					s := randSlice(rng, 3*4)
					p1, p2 := append([]float64(nil), p0...), append([]float64(nil), p0...)
					g1, g2 := make([]float64, 4), make([]float64, 4)
					PanelPass(p1, ld, b, c, s, 4, before, g1, n)
					k0, nr := c, b-c
					if before {
						k0, nr = 0, c
					}
					ProjDots(p2[c*ld:], ld, 1, p2, ld, c, s, 4, p2[k0*ld:], ld, nr, g2, 1, n)
					exact := Implementation() != "avx512"
					for i := range p1 {
						if exact && math.Float64bits(p1[i]) != math.Float64bits(p2[i]) || !near(p1[i], p2[i], 1e2) {
							t.Fatalf("b=%d c=%d before=%v: p[%d] = %v, ProjDots %v", b, c, before, i, p1[i], p2[i])
						}
					}
					for j := range g1 {
						if exact && math.Float64bits(g1[j]) != math.Float64bits(g2[j]) || !near(g1[j], g2[j], 1e4) {
							t.Fatalf("b=%d c=%d before=%v: g[%d] = %v, ProjDots %v", b, c, before, j, g1[j], g2[j])
						}
					}
				}
			}
		}
	})
}

func TestPanelPassAllocs(t *testing.T) {
	const n = 784
	p, s, g := make([]float64, 4*n), make([]float64, 12), make([]float64, 4)
	forEachImpl(t, func(t *testing.T) {
		if a := testing.AllocsPerRun(10, func() { PanelPass(p, n, 4, 2, s, 4, false, g, n) }); a != 0 {
			t.Fatalf("%v allocations", a)
		}
	})
	mustPanicK(t, func() { PanelPass(p, n, 4, 0, s, 4, false, g, n) })
	mustPanicK(t, func() { PanelPass(p, n, 5, 2, s, 4, false, g, n) })
}

func mustPanicK(t *testing.T, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	f()
}
