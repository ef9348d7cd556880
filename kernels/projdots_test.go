package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// projDotsWant is ProjDots as a plain loop on copies of p: the updated
// panel, its element scales Σ|terms|, and G with its scales.
func projDotsWant(p *matrix, b int, q *matrix, nq int, s *matrix, r func(k, i int) float64, rScale func(k, i int) float64, nr, n int) (pNew, pScale, g, gScale [][]float64) {
	pNew, pScale = make([][]float64, b), make([][]float64, b)
	for c := 0; c < b; c++ {
		pNew[c], pScale[c] = make([]float64, n), make([]float64, n)
		for i := 0; i < n; i++ {
			v, sc := p.at(c, i), math.Abs(p.at(c, i))
			for l := 0; l < nq; l++ {
				t := s.at(l, c) * q.at(l, i)
				v -= t
				sc += math.Abs(t)
			}
			pNew[c][i], pScale[c][i] = v, sc
		}
	}
	g, gScale = make([][]float64, nr), make([][]float64, nr)
	for k := 0; k < nr; k++ {
		g[k], gScale[k] = make([]float64, b), make([]float64, b)
		for c := 0; c < b; c++ {
			for i := 0; i < n; i++ {
				g[k][c] += r(k, i) * pNew[c][i]
				gScale[k][c] += rScale(k, i) * pScale[c][i]
			}
		}
	}
	return
}

// TestProjDots covers panel widths 1..4, every row tail, projections onto
// 0..13 columns and 0..30 dot products per column (several calls into the
// assembly), with R a separate matrix, R = Q and R = P, strides with and
// without padding and every alignment, guards around everything.
func TestProjDots(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 9))
		ns := []int{0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 65, 784}
		nqs := []int{0, 1, 2, 3, 5, 8, 13}
		nrs := []int{0, 1, 2, 3, 5, 6, 7, 9, 13, 15, 24, 25, 30}
		if testing.Short() {
			ns, nrs = []int{0, 9, 33, 784}, []int{0, 2, 7, 25}
		}
		ci := 0
		for _, n := range ns {
			for b := 1; b <= 4; b++ {
				for _, nq := range nqs {
					for _, nr := range nrs {
						for mode := 0; mode < 3; mode++ { // R separate, R = Q, R = P
							if mode == 1 && nr > nq || mode == 2 && nr > b {
								continue
							}
							ci++
							ldp, ldq, ldr := ldFor(n, ci), ldFor(n, ci/3+1), ldFor(n, ci/7+2)
							lds, ldg := ldFor(b, ci/5), ldFor(b, ci/11+3)
							p := newMatrix(rng, b, n, ldp, ci%4, false)
							q := newMatrix(rng, nq, n, ldq, (ci/4+1)%4, false)
							s := newMatrix(rng, nq, b, lds, (ci/8+2)%4, false)
							rm := newMatrix(rng, nr, n, ldr, (ci/16+3)%4, false)
							g := newMatrix(rng, nr, b, ldg, ci/2%4, true)
							var rd []float64
							var rld int
							var rAt func(k, i int) float64
							switch mode {
							case 0:
								rd, rld, rAt = rm.data(), ldr, rm.at
							case 1:
								rd, rld, rAt = q.data(), ldq, q.at
							}
							name := fmt.Sprintf("n=%d b=%d nq=%d nr=%d mode=%d ldp=%d ldq=%d ldr=%d lds=%d ldg=%d", n, b, nq, nr, mode, ldp, ldq, ldr, lds, ldg)
							var pNew, pScale, want, wScale [][]float64
							if mode == 2 {
								// R is P: dots of the updated panel with itself.
								pNew, pScale, _, _ = projDotsWant(p, b, q, nq, s, nil, nil, 0, n)
								rAt = func(k, i int) float64 { return pNew[k][i] }
								rs := func(k, i int) float64 { return pScale[k][i] }
								_, _, want, wScale = projDotsWant(p, b, q, nq, s, rAt, rs, nr, n)
								rd, rld = p.data(), ldp
							} else {
								rs := func(k, i int) float64 { return math.Abs(rAt(k, i)) }
								pNew, pScale, want, wScale = projDotsWant(p, b, q, nq, s, rAt, rs, nr, n)
							}
							qb, sb, rb := q.bits(), s.bits(), rm.bits()

							ProjDots(p.data(), ldp, b, q.data(), ldq, nq, s.data(), lds, rd, rld, nr, g.data(), ldg, n)

							q.checkUnchanged(t, name+": Q", qb)
							s.checkUnchanged(t, name+": S", sb)
							rm.checkUnchanged(t, name+": R", rb)
							p.checkGuards(t, name+": P")
							g.checkGuards(t, name+": G")
							for c := 0; c < b; c++ {
								for i := 0; i < n; i++ {
									if got := p.at(c, i); !near(got, pNew[c][i], 4*pScale[c][i]) {
										t.Fatalf("%s: P[%d,%d] = %v, plain loop %v", name, c, i, got, pNew[c][i])
									}
								}
							}
							for k := 0; k < nr; k++ {
								for c := 0; c < b; c++ {
									if got := g.at(k, c); !near(got, want[k][c], 4*wScale[k][c]) {
										t.Fatalf("%s: G[%d,%d] = %v, plain loop %v", name, k, c, got, want[k][c])
									}
								}
							}
						}
					}
				}
			}
		}
	})
}

func TestProjDotsAllocs(t *testing.T) {
	const n = 784
	p, q, s, g := make([]float64, 4*n), make([]float64, 8*n), make([]float64, 32), make([]float64, 40)
	forEachImpl(t, func(t *testing.T) {
		if a := testing.AllocsPerRun(10, func() { ProjDots(p, n, 4, q, n, 8, s, 4, q, n, 8, g, 4, n) }); a != 0 {
			t.Fatalf("%v allocations", a)
		}
	})
}
