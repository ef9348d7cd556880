//go:build amd64 && !purego

package svd

import (
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
