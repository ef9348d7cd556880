//go:build amd64 && !purego

package svd

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestFactorize32Converges checks that the float32 kernels themselves
// converge on the test matrices (random and hard ones) for every order
// 3..32, Small's run on each and the Pair's on each beside the next and
// beside itself, and that each order has its workspaces (on AVX-512 the
// packed pair kernel up to 16, the dual one above): Factorize32 falls
// back to Factorize (Small) or to the single kernel (Pair) where a run
// does not converge, which the bit and accuracy tests cannot tell from a
// converged run (a kernel whose masks let a lane past the pairs rotate
// for ever, or a packed kernel with its keep masks swapped, passes them).
func TestFactorize32Converges(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		if !useAVX512 && !useAVX2 {
			t.Skip("no float32 kernel")
		}
		rng := rand.New(rand.NewPCG(35, 1))
		for n := 3; n <= maxSmall32; n++ {
			w, p := NewSmall(n), NewPair(n)
			if useAVX512 && ((p.pack32 != nil) != (n <= maxPack32) || (p.dual32 != nil) != (n > maxPack32) || w.f32 == nil) {
				t.Fatalf("n=%d: workspaces pack32 %v, dual32 %v, f32 %v", n, p.pack32 != nil, p.dual32 != nil, w.f32 != nil)
			}
			if !useAVX512 && (p.f32x2 == nil || w.f32x2 == nil) {
				t.Fatalf("n=%d: no AVX2 float32 workspace", n)
			}
			ms := pairMatrices(rng, n)
			u := [2][]float64{make([]float64, n*n), make([]float64, n*n)}
			v := [2][]float64{make([]float64, n*n), make([]float64, n*n)}
			s := [2][]float64{make([]float64, n), make([]float64, n)}
			for k, m := range ms {
				name := fmt.Sprintf("n=%d/%s", n, m.name)
				var ok bool
				if useAVX512 {
					ok = w.factorize32Asm(u[0], n, s[0], v[0], n, m.a, n)
				} else {
					ok = w.factorize32AVX2(u[0], n, s[0], v[0], n, m.a, n)
				}
				if !ok {
					t.Errorf("%s: Small's float32 kernel did not converge", name)
				}
				for _, o := range []testMatrix{ms[(k+1)%len(ms)], m} {
					a := [2][]float64{m.a, o.a}
					switch {
					case !useAVX512:
						ok = p.factorize32AVX2(u, n, s, v, n, a, n)
					case p.pack32 != nil:
						ok = p.factorize32Pack(u, n, s, v, n, a, n)
					default:
						ok = p.factorize32Dual(u, n, s, v, n, a, n)
					}
					if !ok {
						t.Errorf("%s+%s: the Pair's float32 kernel did not converge", name, o.name)
					}
				}
			}
		}
	})
}
