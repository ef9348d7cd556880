package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestTranspose covers every row and column remainder around the 8 x 8
// blocks, strides with and without padding, every alignment, guards
// around and between the logical elements.
func TestTranspose(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 10))
		sizes := []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 23, 24, 25, 33}
		var shapes [][2]int
		for _, r := range sizes {
			for _, c := range sizes {
				shapes = append(shapes, [2]int{r, c})
			}
		}
		shapes = append(shapes, [2]int{784, 12}, [2]int{12, 784}, [2]int{400, 25}, [2]int{25, 400})
		for ci, s := range shapes {
			rows, cols := s[0], s[1]
			lds, ldd := ldFor(cols, ci), ldFor(rows, ci/5+1)
			src := newMatrix(rng, rows, cols, lds, ci%4, false)
			dst := newMatrix(rng, cols, rows, ldd, (ci/4+1)%4, true)
			sb := src.bits()
			name := fmt.Sprintf("rows=%d cols=%d lds=%d ldd=%d", rows, cols, lds, ldd)
			Transpose(dst.data(), ldd, src.data(), lds, rows, cols)
			src.checkUnchanged(t, name+": src", sb)
			dst.checkGuards(t, name+": dst")
			for r := 0; r < rows; r++ {
				for c := 0; c < cols; c++ {
					if got, want := dst.at(c, r), src.at(r, c); math.Float64bits(got) != math.Float64bits(want) {
						t.Fatalf("%s: dst[%d,%d] = %v, want %v", name, c, r, got, want)
					}
				}
			}
			// Scaled: the scale slice is exactly rows long, guarded.
			sc := newMatrix(rng, 1, rows, rows, ci%3, false)
			scb := sc.bits()
			dst = newMatrix(rng, cols, rows, ldd, (ci/4+1)%4, true)
			TransposeScaled(dst.data(), ldd, src.data(), lds, rows, cols, sc.data())
			src.checkUnchanged(t, name+": src", sb)
			sc.checkUnchanged(t, name+": scale", scb)
			dst.checkGuards(t, name+": scaled dst")
			for r := 0; r < rows; r++ {
				for c := 0; c < cols; c++ {
					if got, want := dst.at(c, r), src.at(r, c)*sc.at(0, r); math.Float64bits(got) != math.Float64bits(want) {
						t.Fatalf("%s: scaled dst[%d,%d] = %v, want %v", name, c, r, got, want)
					}
				}
			}
		}
	})
}

func TestTransposeAllocs(t *testing.T) {
	src, dst := make([]float64, 784*16), make([]float64, 12*784)
	forEachImpl(t, func(t *testing.T) {
		if a := testing.AllocsPerRun(10, func() { Transpose(dst, 784, src, 16, 784, 12) }); a != 0 {
			t.Fatalf("%v allocations", a)
		}
	})
}
