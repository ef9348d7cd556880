package kernels

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// benchEachImpl runs f as a sub-benchmark per available implementation.
func benchEachImpl(b *testing.B, f func(b *testing.B)) {
	defer restoreImpl()
	for _, im := range impls() {
		if !im.ok {
			continue
		}
		im.set()
		b.Run(im.name, f)
	}
}

func randSlice(rng *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = rng.NormFloat64()
	}
	return s
}

func reportGFLOPs(b *testing.B, flopsPerOp int) {
	b.ReportMetric(float64(flopsPerOp)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// Shapes of the engine: a D x d basis, stride Stride(d).
var benchShapes = []struct{ n, d int }{{784, 12}, {400, 25}, {4096, 25}}

func BenchmarkAtB(b *testing.B) {
	for _, s := range benchShapes {
		rng := rand.New(rand.NewPCG(3, 1))
		ld := Stride(s.d)
		p, w, m := randSlice(rng, s.n*ld), randSlice(rng, s.n*ld), make([]float64, s.d*ld)
		b.Run(fmt.Sprintf("n=%d,d=%d", s.n, s.d), func(b *testing.B) {
			benchEachImpl(b, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					AtB(m, ld, p, ld, w, ld, s.n, s.d, s.d)
				}
				reportGFLOPs(b, 2*s.n*s.d*s.d)
			})
		})
	}
}

func BenchmarkAB(b *testing.B) {
	for _, s := range benchShapes {
		rng := rand.New(rand.NewPCG(3, 2))
		ld := Stride(s.d)
		p, q, c := randSlice(rng, s.n*ld), randSlice(rng, s.d*ld), make([]float64, s.n*ld)
		b.Run(fmt.Sprintf("n=%d,k=%d,d=%d", s.n, s.d, s.d), func(b *testing.B) {
			benchEachImpl(b, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					AB(c, ld, p, ld, q, ld, s.n, s.d, s.d)
				}
				reportGFLOPs(b, 2*s.n*s.d*s.d)
			})
		})
	}
}

func BenchmarkAtX(b *testing.B) {
	for _, s := range benchShapes {
		rng := rand.New(rand.NewPCG(3, 3))
		ld := Stride(s.d)
		p, x, y := randSlice(rng, s.n*ld), randSlice(rng, s.n), make([]float64, s.d)
		b.Run(fmt.Sprintf("n=%d,d=%d", s.n, s.d), func(b *testing.B) {
			benchEachImpl(b, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					AtX(y, p, ld, x, s.n, s.d)
				}
				reportGFLOPs(b, 2*s.n*s.d)
			})
		})
	}
}

func BenchmarkDot(b *testing.B) {
	for _, n := range []int{12, 784, 4096} {
		rng := rand.New(rand.NewPCG(3, 4))
		x, y := randSlice(rng, n), randSlice(rng, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			benchEachImpl(b, func(b *testing.B) {
				b.SetBytes(int64(16 * n))
				for b.Loop() {
					Dot(x, y)
				}
			})
		})
	}
}

func BenchmarkAxpy(b *testing.B) {
	for _, n := range []int{12, 784, 4096} {
		rng := rand.New(rand.NewPCG(3, 5))
		x, y := randSlice(rng, n), randSlice(rng, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			benchEachImpl(b, func(b *testing.B) {
				b.SetBytes(int64(24 * n))
				for b.Loop() {
					Axpy(1e-9, x, y)
				}
			})
		})
	}
}

// BenchmarkProjDots: the passes of linalg's block CGS2 at D = 784 (column
// stride 784): a panel of b columns projected on nq columns, then nr dots.
func BenchmarkProjDots(b *testing.B) {
	const n = 784
	rng := rand.New(rand.NewPCG(3, 4))
	t := randSlice(rng, 16*n)
	s, g := randSlice(rng, 16*4), make([]float64, 16*4)
	for _, c := range []struct{ b, nq, nr int }{{4, 8, 1}, {4, 0, 8}, {4, 0, 4}, {1, 3, 3}, {1, 1, 1}} {
		b.Run(fmt.Sprintf("b=%d,nq=%d,nr=%d", c.b, c.nq, c.nr), func(b *testing.B) {
			benchEachImpl(b, func(b *testing.B) {
				p := t[12*n:]
				for b.Loop() {
					ProjDots(p, n, c.b, t, n, c.nq, s, 4, t, n, c.nr, g, 4, n)
				}
				reportGFLOPs(b, 2*n*c.b*(c.nq+c.nr))
			})
		})
	}
}

// BenchmarkTranspose: a 784 x 12 basis to column-major and back.
func BenchmarkTranspose(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 5))
	a, t := randSlice(rng, 784*16), make([]float64, 12*784)
	b.Run("in", func(b *testing.B) {
		benchEachImpl(b, func(b *testing.B) {
			b.SetBytes(784 * 12 * 8)
			for b.Loop() {
				Transpose(t, 784, a, 16, 784, 12)
			}
		})
	})
	b.Run("out", func(b *testing.B) {
		benchEachImpl(b, func(b *testing.B) {
			b.SetBytes(784 * 12 * 8)
			for b.Loop() {
				Transpose(a, 16, t, 784, 12, 784)
			}
		})
	})
}

// BenchmarkPanelPass: the passes inside a panel of 4 columns at D = 784.
func BenchmarkPanelPass(b *testing.B) {
	const n = 784
	rng := rand.New(rand.NewPCG(3, 6))
	p, s, g := randSlice(rng, 4*n), randSlice(rng, 4), make([]float64, 4)
	for c := 1; c <= 3; c++ {
		for _, before := range []bool{true, false} {
			b.Run(fmt.Sprintf("c=%d,before=%v", c, before), func(b *testing.B) {
				benchEachImpl(b, func(b *testing.B) {
					for b.Loop() {
						PanelPass(p, n, 4, c, s, 1, before, g, n)
					}
					nd := 4 - c
					if before {
						nd = c
					}
					reportGFLOPs(b, 2*n*(c+nd))
				})
			})
		}
	}
}

// BenchmarkTransposeFused: a 784 x 12 basis in with the dots of its first
// column (TransposeDots), and out with the last panel's projection
// (ProjTransposeScaled).
func BenchmarkTransposeFused(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 7))
	a, t := randSlice(rng, 784*16), randSlice(rng, 12*784)
	// Zero coefficients: the same instructions, and t (projected in place)
	// stays the same from one iteration to the next.
	g, s, sc := make([]float64, 12), make([]float64, 32), randSlice(rng, 12)
	b.Run("in", func(b *testing.B) {
		benchEachImpl(b, func(b *testing.B) {
			b.SetBytes(784 * 12 * 8)
			for b.Loop() {
				TransposeDots(t, 784, a, 16, 784, 12, g)
			}
		})
	})
	b.Run("out", func(b *testing.B) {
		benchEachImpl(b, func(b *testing.B) {
			b.SetBytes(784 * 12 * 8)
			for b.Loop() {
				ProjTransposeScaled(a, 16, t, 784, 12, 784, sc, 8, s)
			}
		})
	})
}

// BenchmarkSparseAB is the engine's single-image shape: one row of 784
// pixels against a shard of 5 prototypes of d = 12 side by side (60
// columns, stride 64, 401 KB: it lives in L2), with 20%, 50% and 100% of
// the pixels nonzero in runs; "dense" is AB on the full row (the path it
// replaces). GB/s counts the rows of B read.
func BenchmarkSparseAB(b *testing.B) {
	const k, nc, ldb = 784, 60, 64
	rng := rand.New(rand.NewPCG(3, 5))
	w := randSlice(rng, k*ldb)
	c := make([]float64, nc)
	for _, pct := range []int{20, 50, 100} {
		a := make([]float64, k)
		for i := 0; i < k; {
			n := 1 + rng.IntN(8)
			on := rng.IntN(100) < pct
			for ; n > 0 && i < k; n, i = n-1, i+1 {
				if on {
					a[i] = rng.NormFloat64()
				}
			}
		}
		idx, val := listNonzeros(a)
		b.Run(fmt.Sprintf("nonzero=%d%%/list", 100*len(idx)/k), func(b *testing.B) {
			ix, vx := make([]int32, k), make([]float64, k)
			benchEachImpl(b, func(b *testing.B) {
				for b.Loop() {
					Nonzeros(ix, vx, a)
				}
			})
		})
		b.Run(fmt.Sprintf("nonzero=%d%%", 100*len(idx)/k), func(b *testing.B) {
			benchEachImpl(b, func(b *testing.B) {
				for b.Loop() {
					SparseAB(c, val, idx, w, ldb, nc)
				}
				b.ReportMetric(float64(len(idx)*nc*8)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
			})
		})
	}
	b.Run("dense", func(b *testing.B) {
		a := randSlice(rng, k)
		benchEachImpl(b, func(b *testing.B) {
			for b.Loop() {
				AB(c, nc, a, k, w, ldb, 1, k, nc)
			}
			b.ReportMetric(float64(k*nc*8)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GB/s")
		})
	})
}

// BenchmarkSparseABBlocks is a sparse image (20% of 784 pixels nonzero,
// in strokes) against 10 prototypes of 12 columns: SparseABBlocks on their
// own blocks (784 x 12 each, one after another) beside SparseAB on each
// block alone and SparseAB on the same prototypes side by side (one 784 x
// 120 matrix), all three the same bits.
func BenchmarkSparseABBlocks(b *testing.B) {
	const k, d, p = 784, 12, 10
	rng := rand.New(rand.NewPCG(3, 8))
	own, wide := randSlice(rng, p*k*d), randSlice(rng, k*p*d)
	c := make([]float64, p*d)
	a := make([]float64, k)
	for i := 0; i < k; {
		n := 1 + rng.IntN(8)
		on := rng.IntN(100) < 20
		for ; n > 0 && i < k; n, i = n-1, i+1 {
			if on {
				a[i] = rng.NormFloat64()
			}
		}
	}
	idx, val := listNonzeros(a)
	b.Run(fmt.Sprintf("nonzero=%d%%/blocks", 100*len(idx)/k), func(b *testing.B) {
		benchEachImpl(b, func(b *testing.B) {
			for b.Loop() {
				SparseABBlocks(c, val, idx, own, d, k*d, p, d)
			}
		})
	})
	b.Run(fmt.Sprintf("nonzero=%d%%/each-block", 100*len(idx)/k), func(b *testing.B) {
		benchEachImpl(b, func(b *testing.B) {
			for b.Loop() {
				for t := 0; t < p; t++ {
					SparseAB(c[t*d:], val, idx, own[t*k*d:], d, d)
				}
			}
		})
	})
	b.Run(fmt.Sprintf("nonzero=%d%%/side-by-side", 100*len(idx)/k), func(b *testing.B) {
		benchEachImpl(b, func(b *testing.B) {
			for b.Loop() {
				SparseAB(c, val, idx, wide, p*d, p*d)
			}
		})
	})
}

// BenchmarkAB2 is the exact update W ← W C1 + P C2 in place (the engine's
// training step, one winner) on the shapes of BenchmarkEpoch: (D, d) of
// eth80, mnist and yaleb, rows of stride Stride(d).
func BenchmarkAB2(b *testing.B) {
	for _, s := range []struct{ n, d int }{{400, 5}, {784, 12}, {400, 25}} {
		rng := rand.New(rand.NewPCG(3, 5))
		ld := Stride(s.d)
		w, p := randSlice(rng, s.n*ld), randSlice(rng, s.n*ld)
		c1, c2 := randSlice(rng, s.d*ld), randSlice(rng, s.d*ld)
		for i := range c1 {
			c1[i] *= 1e-3
			c2[i] *= 1e-3
		}
		b.Run(fmt.Sprintf("n=%d,d=%d", s.n, s.d), func(b *testing.B) {
			benchEachImpl(b, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					AB2(w, ld, w, ld, c1, ld, p, ld, c2, ld, s.n, s.d, s.d)
				}
				reportGFLOPs(b, 4*s.n*s.d*s.d)
			})
		})
	}
}

// BenchmarkAtB32 runs AtB32 beside AtB on the engine's projections of one
// sample against a chunk of 8 prototypes side by side (D x 8d, the
// engine's unit of work), at the D and d of BenchmarkEpoch's shapes: what
// a float32 step saves on its projections.
func BenchmarkAtB32(b *testing.B) {
	for _, s := range []struct{ n, d, cols int }{{400, 25, 200}, {784, 12, 96}, {400, 5, 40}} {
		rng := rand.New(rand.NewPCG(3, 9))
		ldp, ldw := Stride(s.d), Stride(s.cols)
		p, w := randSlice(rng, s.n*ldp), randSlice(rng, s.n*ldw)
		p32, w32 := make([]float32, s.n*ldp), make([]float32, s.n*ldw)
		for i := range p {
			p32[i] = float32(p[i])
		}
		for i := range w {
			w32[i] = float32(w[i])
		}
		m := make([]float64, s.d*s.cols)
		b.Run(fmt.Sprintf("n=%d,d=%d,cols=%d/f64", s.n, s.d, s.cols), func(b *testing.B) {
			for b.Loop() {
				AtB(m, s.cols, p, ldp, w, ldw, s.n, s.d, s.cols)
			}
		})
		b.Run(fmt.Sprintf("n=%d,d=%d,cols=%d/f32", s.n, s.d, s.cols), func(b *testing.B) {
			for b.Loop() {
				AtB32(m, s.cols, p32, ldp, w32, ldw, s.n, s.d, s.cols)
			}
		})
	}
}

// BenchmarkAB2F32 is a float32 prototype's exact update in place (the
// engine's float32 mode) on BenchmarkAB2's shapes: AB2F32 (fused on AVX2)
// beside the three passes it replaces (Widen32Rows into a float64 copy,
// AB2 into another, Round32Rows back), the same bits; fused-sample32 is
// AB2F32F32, the update from the sample's float32 rounding (a float32
// model's since 28 November 2026: other bits, the same work); lanes32 is
// AB2S32, the same update in float32 lanes (where it runs in one kernel).
func BenchmarkAB2F32(b *testing.B) {
	for _, s := range []struct{ n, d int }{{400, 5}, {784, 12}, {400, 25}} {
		rng := rand.New(rand.NewPCG(3, 6))
		ld := Stride(s.d)
		p := randSlice(rng, s.n*ld)
		w32 := make([]float32, s.n*ld)
		for i, v := range randSlice(rng, s.n*ld) {
			w32[i] = float32(v)
		}
		p32 := make([]float32, len(p))
		for i, v := range p {
			p32[i] = float32(v)
		}
		c1, c2 := randSlice(rng, s.d*ld), randSlice(rng, s.d*ld)
		for i := range c1 {
			c1[i] *= 1e-3
			c2[i] *= 1e-3
		}
		for i := 0; i < s.d; i++ {
			c1[i*ld+i] = 1
		}
		c132, c232 := make([]float32, len(c1)), make([]float32, len(c2))
		for i := range c1 {
			c132[i], c232[i] = float32(c1[i]), float32(c2[i])
		}
		w, u := make([]float64, s.n*s.d), make([]float64, s.n*s.d)
		b.Run(fmt.Sprintf("n=%d,d=%d", s.n, s.d), func(b *testing.B) {
			benchEachImpl(b, func(b *testing.B) {
				b.Run("fused", func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						AB2F32(w32, ld, w32, ld, c1, ld, p, ld, c2, ld, s.n, s.d, s.d)
					}
				})
				b.Run("fused-sample32", func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						AB2F32F32(w32, ld, w32, ld, c1, ld, p32, ld, c2, ld, s.n, s.d, s.d)
					}
				})
				if AB2S32Native(s.d, s.d) {
					b.Run("lanes32", func(b *testing.B) {
						b.ReportAllocs()
						for b.Loop() {
							AB2S32(w32, ld, w32, ld, c132, ld, p32, ld, c232, ld, s.n, s.d, s.d)
						}
					})
				}
				b.Run("three-passes", func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						Widen32Rows(w, s.d, w32, ld, s.n, s.d)
						AB2(u, s.d, w, s.d, c1, ld, p, ld, c2, ld, s.n, s.d, s.d)
						Round32Rows(w32, ld, u, s.d, s.n, s.d)
					}
				})
			})
		})
	}
}
