//go:build amd64 && !purego

package svd

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestFactorize32Converges checks that the float32 kernels themselves
// converge on the test matrices (finite ones: random and hard) for every
// order 3..32, Small's and Pair's runs alike: Factorize32 falls back to
// Factorize where a run does not converge, which TestFactorize32's
// accuracy checks cannot tell from a converged run (a kernel whose masks
// let a lane past the pairs rotate for ever would pass them).
func TestFactorize32Converges(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		if !useAVX512 && !useAVX2 {
			t.Skip("no float32 kernel")
		}
		rng := rand.New(rand.NewPCG(35, 1))
		for n := 3; n <= maxSmall32; n++ {
			w, p := NewSmall(n), NewPair(n)
			ms := pairMatrices(rng, n)
			u := [2][]float64{make([]float64, n*n), make([]float64, n*n)}
			v := [2][]float64{make([]float64, n*n), make([]float64, n*n)}
			s := [2][]float64{make([]float64, n), make([]float64, n)}
			for k, m := range ms {
				next := ms[(k+1)%len(ms)].a
				name := fmt.Sprintf("n=%d/%s", n, m.name)
				a := [2][]float64{m.a, next}
				var ok, okPair bool
				if useAVX512 {
					ok = w.factorize32Asm(u[0], n, s[0], v[0], n, m.a, n)
					if p.pack32 != nil {
						okPair = p.factorize32Pack(u, n, s, v, n, a, n)
					} else {
						okPair = p.factorize32Dual(u, n, s, v, n, a, n)
					}
				} else {
					ok = w.factorize32AVX2(u[0], n, s[0], v[0], n, m.a, n)
					okPair = p.factorize32AVX2(u, n, s, v, n, a, n)
				}
				if !ok || !okPair {
					t.Errorf("%s: the float32 kernel did not converge (Small %v, Pair %v)", name, ok, okPair)
				}
			}
		}
	})
}
