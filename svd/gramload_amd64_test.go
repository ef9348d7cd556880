//go:build amd64 && !purego

package svd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/grlgq/grlgq/internal/cpu"
)

// TestGramLoad4 checks the Gram loader's kernels against the plain Go
// scans they replaced: absMax4AVX2 against scanMax (the same bits, NaN and
// Inf above every finite magnitude; absMax4AVX512 the same bits where the
// CPU runs it), gramLoad4AVX2 against interleave4 (the
// same transposed, scaled values bit for bit, the sums of squares within
// their rounding, since the order differs), for n = 1..33 (every n mod 4),
// row strides beyond n, matrices at any offset, lanes sharing a matrix,
// special values, NaN and ±Inf, and guards around at: nothing past its n² vectors is
// written.
func TestGramLoad4(t *testing.T) {
	if !cpu.AVX2 {
		t.Skip("no AVX2 (or capped by GRLGQ_KERNELS)")
	}
	rng := rand.New(rand.NewPCG(31, 4))
	specials := []float64{0, math.Copysign(0, -1), 0x1p-1074, -0x1p-1030, math.MaxFloat64, -1, 0.75}
	bad := []float64{math.NaN(), math.Inf(1), math.Inf(-1)}
	for n := 1; n <= 33; n++ {
		for trial := 0; trial < 6; trial++ {
			lda := n + trial%3*3
			var mats [lanes4][]float64
			var src [lanes4]*float64
			for l := range mats {
				off := rng.IntN(4)
				buf := make([]float64, off+(n-1)*lda+n+5)
				for i := range buf {
					buf[i] = math.NaN() // guards: outside the matrix
				}
				m := buf[off : off+(n-1)*lda+n]
				scale := math.Ldexp(1, rng.IntN(40)-20)
				for r := 0; r < n; r++ {
					for c := 0; c < n; c++ {
						v := rng.NormFloat64() * scale
						if rng.IntN(10) == 0 {
							v = specials[rng.IntN(len(specials))]
						}
						m[r*lda+c] = v
					}
					if r < n-1 {
						for c := n; c < lda; c++ {
							m[r*lda+c] = math.Inf(1) // between rows: never read
						}
					}
				}
				if trial == 4 && l == n%4 {
					// One NaN or ±Inf in one lane's matrix, anywhere.
					m[rng.IntN(n)*lda+rng.IntN(n)] = bad[n%3]
				}
				mats[l] = m
				if trial == 5 && l > 0 {
					mats[l] = mats[0] // lanes sharing a matrix, as the loader's padding lanes do
				}
				src[l] = &mats[l][0]
			}
			var tail [lanes4]uint64
			for l := 0; l < n%4; l++ {
				tail[l] = 1<<64 - 1
			}
			var bits, bits512 [lanes4]uint64
			absMax4AVX2(&src, n, lda, &tail, &bits)
			if cpu.AVX512 {
				absMax4AVX512(&src, n, lda, &bits512)
				if bits512 != bits {
					t.Fatalf("n=%d trial %d: absMax4AVX512 %x, absMax4AVX2 %x", n, trial, bits512, bits)
				}
			}
			var scale [lanes4]float64
			for l := range mats {
				amax, bad := scanMax(mats[l], n, n, lda)
				if want := math.Float64bits(amax); bits[l] != want || (bits[l] >= 0x7ff<<52) != bad {
					t.Fatalf("n=%d trial %d lane %d: absMax4 %x, scanMax %x (bad %v)", n, trial, l, bits[l], want, bad)
				}
				_, e := math.Frexp(amax)
				scale[l] = math.Ldexp(1, -e)
			}
			at := make([]float64, n*n*lanes4+16)
			for i := range at {
				at[i] = -7
			}
			var fro [lanes4]float64
			gramLoad4AVX2(&at[8], n, &src, lda, &scale, &tail, &fro)
			want := make([]float64, n*n*lanes4)
			var srcs [lanes4][]float64
			for l := range srcs {
				srcs[l] = mats[l]
			}
			wfro := interleave4(want, n, srcs, lda, scale)
			for i, v := range want {
				if math.Float64bits(at[8+i]) != math.Float64bits(v) {
					t.Fatalf("n=%d trial %d: at[%d] = %v, want %v", n, trial, i, at[8+i], v)
				}
			}
			for i := range 8 {
				if at[i] != -7 || at[8+n*n*lanes4+i] != -7 {
					t.Fatalf("n=%d trial %d: a guard of at was written", n, trial)
				}
			}
			for l := range fro {
				if math.IsNaN(wfro[l]) != math.IsNaN(fro[l]) || math.Abs(fro[l]-wfro[l]) > 2*float64(n*n)*ur*wfro[l] {
					t.Fatalf("n=%d trial %d lane %d: sum of squares %v, want %v", n, trial, l, fro[l], wfro[l])
				}
			}
		}
	}
}

// TestGramLanes checks that the AVX-512 Gram kernels (groups of 8 lanes,
// ql16AVX512 and ql32AVX512) give the bounds of the AVX2 kernels (groups
// of 4, ql8AVX2 and ql4AVX2) bit for bit: the same operations lane by
// lane, whatever the group a matrix falls in, on batches of 1 to 40
// matrices (one to five groups of 8, runs of two and four) of random,
// scaled, zero and rank-deficient matrices.
func TestGramLanes(t *testing.T) {
	if !cpu.AVX512 || !cpu.AVX2 {
		t.Skip("needs the AVX-512 and AVX2 kernels")
	}
	saved := useQL16
	defer func() { useQL16 = saved }()
	rng := rand.New(rand.NewPCG(31, 1))
	for _, n := range []int{1, 3, 5, 8, 12, 13, 25, 33} {
		for _, k := range []int{1, 4, 5, 8, 9, 16, 17, 24, 32, 33, 40} {
			a := make([]float64, k*n*n)
			for i := 0; i < k; i++ {
				g := gaussian(rng, n, n, n)
				scale := []float64{1, 1e-200, 1e200, 0, 1}[i%5]
				for j := range g {
					a[i*n*n+j] = g[j] * scale
				}
				if i%7 == 3 && n > 1 { // rank-deficient: two equal rows
					copy(a[i*n*n+n:i*n*n+2*n], a[i*n*n:i*n*n+n])
				}
			}
			var lo, hi [2][]float64
			for p, on := range []bool{false, true} {
				useQL16 = on
				w := NewGram(n)
				lo[p], hi[p] = make([]float64, k*n), make([]float64, k*n)
				if err := w.Enclose(lo[p], hi[p], n, a, n, n*n, k); err != nil {
					t.Fatal(err)
				}
			}
			for j := range lo[0] {
				if math.Float64bits(lo[0][j]) != math.Float64bits(lo[1][j]) || math.Float64bits(hi[0][j]) != math.Float64bits(hi[1][j]) {
					t.Fatalf("n=%d k=%d: matrix %d value %d: AVX2 [%v, %v], AVX-512 [%v, %v]", n, k, j/n, j%n, lo[0][j], hi[0][j], lo[1][j], hi[1][j])
				}
			}
		}
	}
}

// BenchmarkAbsMax4: the loaders' largest magnitudes of 4 matrices of n x n
// at the row stride of an engine's chunk of projections (8n), by
// absMax4AVX2 and absMax4AVX512.
func BenchmarkAbsMax4(b *testing.B) {
	for _, n := range []int{5, 12, 25} {
		lda := 8 * n
		rng := rand.New(rand.NewPCG(1, uint64(n)))
		var mats [lanes4][]float64
		var src [lanes4]*float64
		for l := range mats {
			mats[l] = make([]float64, (n-1)*lda+n)
			for i := range mats[l] {
				mats[l][i] = rng.NormFloat64()
			}
			src[l] = &mats[l][0]
		}
		tail := tailMask(n)
		var bits [lanes4]uint64
		b.Run(fmt.Sprintf("n=%d/avx2", n), func(b *testing.B) {
			if !cpu.AVX2 {
				b.Skip("no AVX2")
			}
			for b.Loop() {
				absMax4AVX2(&src, n, lda, &tail, &bits)
			}
		})
		b.Run(fmt.Sprintf("n=%d/avx512", n), func(b *testing.B) {
			if !cpu.AVX512 {
				b.Skip("no AVX-512")
			}
			for b.Loop() {
				absMax4AVX512(&src, n, lda, &bits)
			}
		})
	}
}
