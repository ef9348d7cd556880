//go:build amd64 && !purego

package svd

import (
	"math"
	"math/rand/v2"
	"testing"
)

// loadLanesRef is loadLanes as it was written first (math.Abs, Frexp and
// Ldexp): the reference for its bit-based scale.
func loadLanesRef(buf []float64, row int, pos []int, a []float64, lda, n int) (int, float64, bool) {
	var amax float64
	for r := 0; r < n; r++ {
		for _, v := range a[r*lda : r*lda+n] {
			av := math.Abs(v)
			if !(av <= math.MaxFloat64) {
				return 0, 0, false
			}
			amax = max(amax, av)
		}
	}
	e := 0
	if amax > 0 {
		_, e = math.Frexp(amax)
	}
	var f float64
	for r := 0; r < n; r++ {
		br := buf[r*row : r*row+row]
		for c, v := range a[r*lda : r*lda+n] {
			y := math.Ldexp(v, -e)
			br[pos[c]] = y
			f += float64(y * y)
		}
	}
	return e, float64(f * 0x1p-120), true
}

// TestLoadLanes: loadLanes' exponent, scaled entries (bits), negligible
// threshold and finiteness are the reference's, on matrices whose largest
// entry is normal, subnormal, zero, huge, tiny, Inf or NaN, at every
// order up to 9 (odd and even rows for its two chains) and a row stride
// wider than the order.
func TestLoadLanes(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	scales := []float64{1, 0.5, 0x1p-1, 3, 0x1p-1060, 0x1p-1030, 0x1p-990, 0x1p+990, 0x1p+1020, 0, math.SmallestNonzeroFloat64}
	for n := 1; n <= 9; n++ {
		lda := n + 2
		row := 16
		pos := make([]int, n)
		for c := range pos {
			pos[c] = (3*c + 1) % row
		}
		for _, sc := range scales {
			for _, special := range []float64{0, math.Inf(1), math.Inf(-1), math.NaN(), -0.0} {
				a := make([]float64, n*lda)
				for i := range a {
					a[i] = sc * (2*rng.Float64() - 1)
				}
				if special != 0 || math.Signbit(special) {
					a[rng.IntN(n)*lda+rng.IntN(n)] = special
				}
				got, want := make([]float64, n*row), make([]float64, n*row)
				e1, f1, ok1 := loadLanes(got, row, pos, a, lda, n)
				e2, f2, ok2 := loadLanesRef(want, row, pos, a, lda, n)
				if ok1 != ok2 || e1 != e2 || math.Float64bits(f1) != math.Float64bits(f2) {
					t.Fatalf("n %d scale %g special %g: (%d, %g, %v), want (%d, %g, %v)", n, sc, special, e1, f1, ok1, e2, f2, ok2)
				}
				if !ok1 {
					continue
				}
				for i := range got {
					if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
						t.Fatalf("n %d scale %g special %g: entry %d %g, want %g", n, sc, special, i, got[i], want[i])
					}
				}
			}
		}
	}
}
