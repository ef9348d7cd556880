//go:build amd64 && !purego

package svd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/grlgq/grlgq/internal/cpu"
)

// TestFactorize32Kernels checks that the float32 kernels themselves
// succeed on every finite input of the Factorize32 tests: where one did
// not converge, Factorize32 would fall back to Factorize (Small) or to
// the single kernel (Pair) and the bit and accuracy tests would still
// pass, so a kernel that never converges in some branch (a wrong mask of
// the packed kernel's rotate-or-permute loops, say) would go unnoticed
// but for the time. The single kernel on each matrix, and the pair's
// kernel (packed up to 16, dual above) on each pair of them.
func TestFactorize32Kernels(t *testing.T) {
	if !cpu.AVX512 {
		t.Skip("no AVX-512")
	}
	saved := useAVX512
	defer func() { useAVX512 = saved }()
	useAVX512 = true
	rng := rand.New(rand.NewPCG(35, 1))
	finite := func(a []float64) bool {
		for _, v := range a {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return false
			}
		}
		return true
	}
	for n := 3; n <= maxSmall32; n++ {
		p, w := NewPair(n), NewSmall(n)
		if (p.pack32 != nil) != (n <= maxPack32) || (p.dual32 != nil) != (n > maxPack32) || w.f32 == nil {
			t.Fatalf("n=%d: workspaces pack32 %v, dual32 %v, f32 %v", n, p.pack32 != nil, p.dual32 != nil, w.f32 != nil)
		}
		var ms []testMatrix
		for _, m := range pairMatrices(rng, n) {
			if finite(m.a) {
				ms = append(ms, m)
			}
		}
		u := [2][]float64{make([]float64, n*n), make([]float64, n*n)}
		v := [2][]float64{make([]float64, n*n), make([]float64, n*n)}
		s := [2][]float64{make([]float64, n), make([]float64, n)}
		for k, m := range ms {
			name := fmt.Sprintf("n=%d/%s", n, m.name)
			if !w.factorize32Asm(u[0], n, s[0], v[0], n, m.a, n) {
				t.Errorf("%s: jacobi1S32AVX512 did not converge", name)
			}
			for _, o := range []testMatrix{ms[(k+1)%len(ms)], m} {
				a := [2][]float64{m.a, o.a}
				var ok bool
				if p.pack32 != nil {
					ok = p.factorize32Pack(u, n, s, v, n, a, n)
				} else {
					ok = p.factorize32Dual(u, n, s, v, n, a, n)
				}
				if !ok {
					t.Errorf("%s+%s: the pair's float32 kernel did not converge", name, o.name)
				}
			}
		}
	}
}
