//go:build amd64 && !purego

package svd

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/grlgq/grlgq/internal/cpu"
)

// TestSplitAVX512Bits: Batch.Values on groups of one to four matrices runs
// the split kernel (jacobi8sAVX512, two lanes a matrix) or, up to 32 x 32,
// the lane kernel (jacobi1b: a matrix's column pairs in lanes); each must
// give the bits of the 8-lane kernel (jacobi8AVX512) on the same group,
// errors included, for n from 2 to 64 (in -short, 2 to 16, 18, 25, 31,
// 32, 33, 64), on the pair tests' matrices (hard, rank-deficient, scaled
// to 1e±300, -0 and subnormal entries, the trainer's angles), strided,
// with guards around each output.
func TestSplitAVX512Bits(t *testing.T) {
	if !cpu.AVX512 {
		t.Skip("no AVX-512 on this CPU: the split kernel does not run here")
	}
	saved, saved2, saved3 := useAVX512, useSplit, useLanesB
	defer func() { useAVX512, useSplit, useLanesB, lanesBAll = saved, saved2, saved3, false }()
	useAVX512 = true
	rng := rand.New(rand.NewPCG(31, 1))
	const guard = -7.25
	groups := 0
	for n := 2; n <= MaxSmall; n++ {
		// Beyond 16 in -short: the lane kernel's two-vector form at odd and
		// even n (18, 25, 31, 32: a zero column or none; 32 fills the
		// lanes) and the split kernel beyond it (33, 64).
		if n > 16 && n != 18 && n != 25 && n != 31 && n != 32 && n != 33 && n != 64 && (testing.Short() || n%4 != 1) {
			continue
		}
		w := NewBatch(n)
		ms := pairMatrices(rng, n)
		lda, lds := n+3, n+2
		step := n*lda + 5
		for cnt := 1; cnt <= 4; cnt++ {
			for i0 := 0; i0+cnt <= len(ms); i0 += cnt {
				a := make([]float64, cnt*step)
				for m := 0; m < cnt; m++ {
					for r := 0; r < n; r++ {
						copy(a[m*step+r*lda:m*step+r*lda+n], ms[i0+m].a[r*n:r*n+n])
					}
				}
				run := func(split, lanesB bool) ([]float64, error) {
					useSplit, useLanesB, lanesBAll = split, lanesB, lanesB
					s := make([]float64, cnt*lds)
					for i := range s {
						s[i] = guard
					}
					err := w.Values(s, lds, a, lda, step, cnt)
					return s, err
				}
				want, werr := run(false, false)
				for _, kernel := range []string{"split", "lane"} {
					got, gerr := run(true, kernel == "lane")
					name := fmt.Sprintf("n=%d/%d from %s/%s kernel", n, cnt, ms[i0].name, kernel)
					var gb, wb *BatchError
					if errors.As(gerr, &gb) != errors.As(werr, &wb) || gb != nil && (gb.Index != wb.Index || !errors.Is(gb.Err, wb.Err)) {
						t.Errorf("%s: error %v, 8-lane error %v", name, gerr, werr)
						continue
					}
					if gerr != nil {
						continue
					}
					groups++
					for m := 0; m < cnt; m++ {
						for j := 0; j < lds; j++ {
							g, v := got[m*lds+j], want[m*lds+j]
							if j >= n && g != guard {
								t.Fatalf("%s: matrix %d: guard %d overwritten: %v", name, m, j, g)
							}
							if math.Float64bits(g) != math.Float64bits(v) {
								t.Errorf("%s: matrix %d (%s): value %d is %v, the 8-lane kernel's %v", name, m, ms[i0+m].name, j, g, v)
								break
							}
						}
					}
				}
			}
		}
	}
	t.Logf("%d groups compared", groups)
}
