//go:build amd64 && !purego

package svd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/grlgq/grlgq/internal/cpu"
)

// TestBatchAVX2NoConvergence checks the kernel's report of the lanes still
// rotating when it runs out of sweeps.
func TestBatchAVX2NoConvergence(t *testing.T) {
	if !cpu.AVX2 {
		t.Skip("no AVX2 (or capped by GRLGQ_KERNELS)")
	}
	rng := rand.New(rand.NewPCG(13, 1))
	for _, d := range []int{2, 3, 12, 25} {
		w := NewBatch(d)
		x := w.avx2
		a := gaussian(rng, 3*d, d, d)
		if bad := x.load(d, a, d, d*d, 3); bad >= 0 {
			t.Fatalf("d=%d: lane %d not finite", d, bad)
		}
		if mask := jacobi4AVX2(&x.g[0], d, 0, &x.poff[0], x.ppr, x.rounds, &x.params, &x.norms[0], &x.scratch[0], 1); mask != 0b111 {
			t.Errorf("d=%d: after one sweep mask = %b, want 111 (lane 3 is empty)", d, mask)
		}
		if mask := jacobi4AVX2(&x.g[0], d, 0, &x.poff[0], x.ppr, x.rounds, &x.params, &x.norms[0], &x.scratch[0], MaxSweeps); mask != 0 {
			t.Errorf("d=%d: not converged, mask = %b", d, mask)
		}
		for j := 3; j < len(x.g); j += lanes4 {
			if x.g[j] != 0 {
				t.Fatalf("d=%d: empty lane changed", d)
			}
		}
	}
}

// TestSplitAVX2Bits checks the split kernel against the one it stands in
// for: a matrix in lanes 0 and 1 of jacobi4sAVX2 (as Small and Pair run
// it) gives the bits jacobi4AVX2 gives it in lane 0, signs of zeros
// included: the columns, V, the squared norms and the convergence mask,
// after every number of sweeps, with V and without.
func TestSplitAVX2Bits(t *testing.T) {
	if !cpu.AVX2 {
		t.Skip("no AVX2 (or capped by GRLGQ_KERNELS)")
	}
	rng := rand.New(rand.NewPCG(29, 3))
	for _, n := range []int{2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 24, 25, 26, 27, 33, 64} {
		w := NewSmall(n)
		old := newAVX2(n, n, w.pairs)
		split := w.avx2
		for _, m := range pairMatrices(rng, n) {
			if _, ok := loadTransposed(w.g, n, m.a, n, n, n); !ok {
				continue
			}
			negl := negligible(w.g, n, n, n)
			for _, withV := range []bool{true, false} {
				nv, poff := 0, old.poff
				if withV {
					nv, poff = n, old.poffV
				}
				rows := n + nv
				for _, sweeps := range []int{1, 2, 3, MaxSweeps} {
					// jacobi4AVX2, lane 0.
					g := old.g[:n*rows*lanes4]
					clear(g)
					for c := 0; c < n; c++ {
						for r, e := range w.g[c*n : c*n+n] {
							g[(c*rows+r)*lanes4] = e
						}
						if withV {
							g[(c*rows+n+c)*lanes4] = 1
						}
					}
					old.params[0], old.params[1], old.params[2], old.params[3] = negl, 0, 0, 0
					old.params[7] = 0
					maskOld := jacobi4AVX2(&g[0], n, nv, &poff[0], old.ppr, old.rounds, &old.params, &old.norms[0], &old.scratch[0], sweeps) & 1

					split.splitLoad(n, 0, w.g, nil, withV, true)
					split.params[0], split.params[1], split.params[2], split.params[3] = negl, negl, 0, 0
					split.params[7] = 0
					h, hv, spoff := half(n), 0, split.poff
					if withV {
						hv, spoff = h, split.poffV
					}
					maskSplit := jacobi4sAVX2(&split.g[0], h, hv, &spoff[0], split.ppr, split.rounds, &split.params, &split.norms[0], &split.scratch[0], sweeps, n)
					if maskSplit&3 != 0 && maskSplit&3 != 3 || maskSplit&12 != 0 {
						t.Fatalf("n=%d %s: split mask %04b: lanes of one matrix disagree, or the empty pair rotated", n, m.name, maskSplit)
					}
					what := fmt.Sprintf("n=%d %s withV=%v sweeps=%d", n, m.name, withV, sweeps)
					if maskSplit&1 != maskOld {
						t.Fatalf("%s: mask %d, jacobi4AVX2 %d", what, maskSplit&1, maskOld)
					}
					gs, vs := make([]float64, n*n), make([]float64, n*n)
					split.splitStore(n, 0, gs, vs, withV)
					for c := 0; c < n; c++ {
						for r := 0; r < rows; r++ {
							want := g[(c*rows+r)*lanes4]
							got := 0.0
							if r < n {
								got = gs[c*n+r]
							} else {
								got = vs[c*n+r-n]
							}
							if math.Float64bits(got) != math.Float64bits(want) {
								t.Fatalf("%s: column %d row %d is %v, jacobi4AVX2 %v", what, c, r, got, want)
							}
						}
						for _, l := range []int{0, 1} {
							if got, want := split.norms[c*lanes4+l], old.norms[c*lanes4]; math.Float64bits(got) != math.Float64bits(want) {
								t.Fatalf("%s: norm %d lane %d is %v, jacobi4AVX2 %v", what, c, l, got, want)
							}
						}
					}
					for j := 0; j < n*(half(n)+hv)*lanes4; j++ {
						if j%4 >= 2 && split.g[j] != 0 {
							t.Fatalf("%s: the empty lane pair changed", what)
						}
					}
				}
			}
		}
	}
}
