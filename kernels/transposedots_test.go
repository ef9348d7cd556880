package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// checkTransposeDots runs TransposeDots and compares dst with the exact
// transpose and g with the plain dot products (within the tolerance of
// Σ|products|), guards untouched.
func checkTransposeDots(t *testing.T, name string, src *matrix, rows, cols, ldd, align int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(uint64(rows), uint64(cols)))
	dst := newMatrix(rng, cols, rows, ldd, align, true)
	g := newMatrix(rng, 1, cols, cols, align, true)
	sb := src.bits()
	TransposeDots(dst.data(), ldd, src.data(), src.ld, rows, cols, g.data())
	src.checkUnchanged(t, name+": src", sb)
	dst.checkGuards(t, name+": dst")
	g.checkGuards(t, name+": g")
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			if got, want := dst.at(c, r), src.at(r, c); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("%s: dst[%d,%d] = %v, want %v", name, c, r, got, want)
			}
		}
	}
	for c := 0; c < cols; c++ {
		var want, scale float64
		for r := 0; r < rows; r++ {
			want += src.at(r, 0) * src.at(r, c)
			scale += math.Abs(src.at(r, 0) * src.at(r, c))
		}
		if got := g.at(0, c); !near(got, want, 4*scale) {
			t.Fatalf("%s: g[%d] = %v, plain loop %v", name, c, got, want)
		}
	}
}

// TestTransposeDots: every column count up to 20 (the AVX-512 kernel
// takes 4, 8, 12, 16), row tails around the 4-row strips, strides with and
// without padding, every alignment, guards.
func TestTransposeDots(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 15))
		ci := 0
		for _, rows := range []int{1, 2, 3, 4, 5, 7, 8, 9, 16, 33, 100, 784} {
			for cols := 1; cols <= 20; cols++ {
				ci++
				lds, ldd := ldFor(cols, ci), ldFor(rows, ci/5+1)
				src := newMatrix(rng, rows, cols, lds, ci%4, false)
				name := fmt.Sprintf("rows=%d cols=%d lds=%d ldd=%d", rows, cols, lds, ldd)
				checkTransposeDots(t, name, src, rows, cols, ldd, (ci/4+1)%4)
			}
		}
	})
}

// TestTransposeDotsMatchesProjDots: on the AVX2 and generic paths the dots
// are those of ProjDots, bit for bit.
func TestTransposeDotsMatchesProjDots(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(2, 15))
		const rows, cols = 784, 12
		src := randSlice(rng, rows*16)
		dst, g := make([]float64, cols*rows), make([]float64, cols)
		TransposeDots(dst, rows, src, 16, rows, cols, g)
		want := make([]float64, cols)
		for c := 0; c < cols; c += 4 {
			ProjDots(dst[c*rows:], rows, 4, nil, 0, 0, nil, 0, dst, rows, 1, want[c:], 4, rows)
		}
		for c := range g {
			if !strings.HasPrefix(t.Name(), "TestTransposeDotsMatchesProjDots/avx512") && math.Float64bits(g[c]) != math.Float64bits(want[c]) || !near(g[c], want[c], 1e4) {
				t.Fatalf("g[%d] = %v, ProjDots %v", c, g[c], want[c])
			}
		}
	})
}

func TestTransposeDotsAllocs(t *testing.T) {
	src, dst, g := make([]float64, 784*16), make([]float64, 12*784), make([]float64, 12)
	forEachImpl(t, func(t *testing.T) {
		if a := testing.AllocsPerRun(10, func() { TransposeDots(dst, 784, src, 16, 784, 12, g) }); a != 0 {
			t.Fatalf("%v allocations", a)
		}
	})
}
