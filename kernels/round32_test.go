package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
)

// round32Specials are float64 values at the edges of the conversion: signed
// zeros, infinities, NaNs (quiet and signalling, with payloads and sign),
// the float32 overflow boundary, float32 denormals and the ties around
// them, float64 denormals, ties to even in the normal range.
func round32Specials() []float64 {
	const tiny = 0x1p-149 // smallest float32 denormal
	m32 := float64(math.MaxFloat32)
	halfUlp := 0x1p103 // half an ulp of MaxFloat32 (ulp 2^104)
	return []float64{
		0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(),
		math.Float64frombits(0x7ff0_0000_0000_0001), // signalling NaN
		math.Float64frombits(0xfff8_0000_2000_0001), // negative quiet NaN, payload
		math.Float64frombits(0x7ff4_0000_0000_0000), // signalling NaN, high payload
		m32, -m32, m32 + halfUlp, -(m32 + halfUlp), math.Nextafter(m32+halfUlp, 0),
		math.MaxFloat64, -math.MaxFloat64, math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64,
		tiny, -tiny, tiny / 2, -tiny / 2, math.Nextafter(tiny/2, 1), 1.5 * tiny, 2.5 * tiny,
		0x1p-126, 0x1p-126 - tiny/2, math.Nextafter(0x1p-126, 0), 1e-40, -1e-45,
		1 + 0x1p-24, 1 + 3*0x1p-24, 1 + 0x1p-24 + 0x1p-52, -(1 + 0x1p-24), math.Pi, 3e38, -4e38,
	}
}

// TestRound32Values checks hand-derived float32 bits (not Go's own
// conversion) on every path, and that every path gives Go's float32(x)
// for every special value (NaNs included) in every lane position.
func TestRound32Values(t *testing.T) {
	const tiny = 0x1p-149
	m32 := float64(math.MaxFloat32)
	known := []struct {
		in   float64
		want uint32
	}{
		{0, 0}, {math.Copysign(0, -1), 0x8000_0000},
		{math.Inf(1), 0x7f80_0000}, {math.Inf(-1), 0xff80_0000},
		{m32, 0x7f7f_ffff}, {m32 + 0x1p103, 0x7f80_0000}, {-(m32 + 0x1p103), 0xff80_0000},
		{math.Nextafter(m32+0x1p103, 0), 0x7f7f_ffff}, {math.MaxFloat64, 0x7f80_0000},
		{math.SmallestNonzeroFloat64, 0}, {-math.SmallestNonzeroFloat64, 0x8000_0000},
		{tiny, 1}, {tiny / 2, 0}, {-tiny / 2, 0x8000_0000}, {math.Nextafter(tiny/2, 1), 1},
		{1.5 * tiny, 2}, {2.5 * tiny, 2}, {0x1p-126 - tiny/2, 0x0080_0000},
		{1 + 0x1p-24, 0x3f80_0000}, {1 + 3*0x1p-24, 0x3f80_0002}, {1 + 0x1p-24 + 0x1p-52, 0x3f80_0001},
	}
	if runtime.GOARCH == "amd64" {
		// x86 conversions quiet a NaN and keep its sign and the high
		// bits of its payload.
		known = append(known, []struct {
			in   float64
			want uint32
		}{
			{math.Float64frombits(0x7ff0_0000_0000_0001), 0x7fc0_0000},
			{math.Float64frombits(0xfff8_0000_2000_0001), 0xffc0_0001},
			{math.Float64frombits(0x7ff4_0000_0000_0000), 0x7fe0_0000},
		}...)
	}
	sp := round32Specials()
	forEachImpl(t, func(t *testing.T) {
		for _, c := range known {
			for n := 1; n <= 20; n++ {
				src := make([]float64, n)
				for i := range src {
					src[i] = float64(i) // exactly representable
				}
				src[n-1] = c.in
				dst := make([]float32, n)
				Round32(dst, src)
				if got := math.Float32bits(dst[n-1]); got != c.want {
					t.Fatalf("Round32(%x) n=%d: %#08x, want %#08x", math.Float64bits(c.in), n, got, c.want)
				}
				back := append([]float64(nil), src...)
				Round32Back(dst, back)
				if got := math.Float32bits(dst[n-1]); got != c.want ||
					math.Float64bits(back[n-1]) != math.Float64bits(float64(dst[n-1])) {
					t.Fatalf("Round32Back(%x) n=%d: %#08x back %x, want %#08x", math.Float64bits(c.in), n, got, math.Float64bits(back[n-1]), c.want)
				}
			}
		}
		// Every special at every position of runs of every length up to
		// 3 vectors and a tail, against Go's conversion.
		for n := 1; n <= 35; n++ {
			for shift := 0; shift < len(sp); shift++ {
				src := make([]float64, n)
				for i := range src {
					src[i] = sp[(i+shift)%len(sp)]
				}
				dst := make([]float32, n)
				back := append([]float64(nil), src...)
				sc := make([]float32, n)
				Round32(dst, src)
				for i, v := range src {
					if math.Float32bits(dst[i]) != math.Float32bits(float32(v)) {
						t.Fatalf("Round32 n=%d i=%d of %x: %#08x, want %#08x", n, i, math.Float64bits(v), math.Float32bits(dst[i]), math.Float32bits(float32(v)))
					}
				}
				Round32Back(dst, back)
				for i, v := range src {
					f := float32(v)
					if math.Float32bits(dst[i]) != math.Float32bits(f) || math.Float64bits(back[i]) != math.Float64bits(float64(f)) {
						t.Fatalf("Round32Back n=%d i=%d of %x", n, i, math.Float64bits(v))
					}
				}
				for _, alpha := range []float64{1.0 / 3, 0x1p-100, 0x1p100, -7, math.Inf(1), 0} {
					ScaleRound32(sc, src, alpha)
					for i, v := range src {
						if math.Float32bits(sc[i]) != math.Float32bits(float32(v*alpha)) {
							t.Fatalf("ScaleRound32 n=%d i=%d of %x times %g: %#08x, want %#08x", n, i, math.Float64bits(v), alpha, math.Float32bits(sc[i]), math.Float32bits(float32(v*alpha)))
						}
					}
				}
			}
		}
	})
}

// round32Source fills the logical elements of a float64 matrix with values
// of every magnitude (float32 normals, denormals, overflow) and some
// specials.
func round32Source(rng *rand.Rand, m *matrix, sp []float64) {
	for r := 0; r < m.rows; r++ {
		for c := 0; c < m.cols; c++ {
			v := rng.NormFloat64() * math.Ldexp(1, rng.IntN(340)-170)
			if rng.IntN(8) == 0 {
				v = sp[rng.IntN(len(sp))]
			}
			m.buf[m.off+r*m.ld+c] = v
		}
	}
}

// TestRound32Rows checks the strided forms against the pure-Go twins bit
// for bit over sizes, tails, alignments and strides: the whole of both
// buffers, so nothing outside the block is written and a read-only source
// is unchanged.
// conversionCols are the row lengths the conversion tests try: every
// count up to 40 (the short rows' bodies, every tail), then around the
// vector blocks' edges and a long row.
func conversionCols() []int {
	var cols []int
	for c := 1; c <= 40; c++ {
		cols = append(cols, c)
	}
	return append(cols, 47, 48, 49, 63, 64, 65, 100, 784)
}

func TestRound32Rows(t *testing.T) {
	sp := round32Specials()
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(7, 32))
		cols := conversionCols()
		ci := 0
		for _, nr := range []int{1, 2, 3, 7, 13} {
			for _, nc := range cols {
				for k := 0; k < 2; k++ {
					ci++
					ldd, lds := ldFor(nc, ci), ldFor(nc, ci/3+k)
					if nc == 784 && nr > 3 {
						continue
					}
					src := newMatrix(rng, nr, nc, lds, ci%4, false)
					round32Source(rng, src, sp)
					dst := newMatrix32(rng, nr, nc, ldd, (ci/4)%4)
					name := fmt.Sprintf("rows=%d cols=%d ldd=%d lds=%d", nr, nc, ldd, lds)
					for mode := 0; mode < 3; mode++ {
						s0 := append([]float64(nil), src.buf...)
						d0 := append([]float32(nil), dst.buf...)
						sg := append([]float64(nil), src.buf...)
						dg := append([]float32(nil), dst.buf...)
						n32, n64 := dst.off+len(dst.data()), src.off+src.size()
						alpha := 0.3 + rng.Float64()
						switch mode {
						case 0:
							Round32Rows(dst.buf[dst.off:n32:n32], ldd, src.buf[src.off:n64:n64], lds, nr, nc)
							round32Generic(dg[dst.off:n32], ldd, sg[src.off:n64], lds, nr, nc)
						case 1:
							Round32RowsBack(dst.buf[dst.off:n32:n32], ldd, src.buf[src.off:n64:n64], lds, nr, nc)
							round32BackGeneric(dg[dst.off:n32], ldd, sg[src.off:n64], lds, nr, nc)
						case 2:
							if nr == 1 {
								ScaleRound32(dst.buf[dst.off:n32:n32], src.buf[src.off:n64:n64], alpha)
							} else {
								scaleRound32(dst.buf[dst.off:n32:n32], ldd, src.buf[src.off:n64:n64], lds, nr, nc, alpha)
							}
							scaleRound32Generic(dg[dst.off:n32], ldd, sg[src.off:n64], lds, nr, nc, alpha)
						}
						for i := range dg {
							if math.Float32bits(dst.buf[i]) != math.Float32bits(dg[i]) {
								t.Fatalf("mode %d %s: dst buffer index %d (offset %d): %#08x, want %#08x (before %#08x)",
									mode, name, i, i-dst.off, math.Float32bits(dst.buf[i]), math.Float32bits(dg[i]), math.Float32bits(d0[i]))
							}
						}
						for i := range sg {
							if math.Float64bits(src.buf[i]) != math.Float64bits(sg[i]) {
								t.Fatalf("mode %d %s: src buffer index %d (offset %d): %x, want %x (before %x)",
									mode, name, i, i-src.off, math.Float64bits(src.buf[i]), math.Float64bits(sg[i]), math.Float64bits(s0[i]))
							}
						}
						src.checkGuards(t, name+": src")
						for i, v := range dst.buf {
							r, c := (i-dst.off)/ldd, (i-dst.off)%ldd
							in := i >= dst.off && i < n32 && c < nc && r < nr
							if !in && math.Float32bits(v) != math.Float32bits(guard32) {
								t.Fatalf("mode %d %s: dst guard at buffer index %d overwritten", mode, name, i)
							}
						}
						if mode == 1 {
							// Fresh values for the next mode (these are float32 values now).
							round32Source(rng, src, sp)
						}
					}
				}
			}
		}
	})
}

func TestRound32Allocs(t *testing.T) {
	src := make([]float64, 784*16)
	dst := make([]float32, 784*12)
	forEachImpl(t, func(t *testing.T) {
		if a := testing.AllocsPerRun(10, func() {
			Round32Rows(dst, 12, src, 16, 784, 12)
			Round32RowsBack(dst, 12, src, 16, 784, 12)
			Round32(dst, src[:784])
			Round32Back(dst, src[:784])
			ScaleRound32(dst, src[:784], 0.5)
			Widen32Rows(src, 16, dst, 12, 784, 12)
		}); a != 0 {
			t.Errorf("%v allocations per run, want 0", a)
		}
	})
}

// BenchmarkRound32 converts a D x d prototype block (stride 16 in the
// float64 matrix, 12·10 in the float32 copy, as engine.Sync) and a
// contiguous D x d sample on each path; generic is the scalar loop the
// engine had (the same code as its former Sync and sampleF32 loops).
func BenchmarkRound32(b *testing.B) {
	const dim, d, lds, ldd = 784, 12, 16, 12 * 10
	rng := rand.New(rand.NewPCG(1, 9))
	src := randSlice(rng, dim*lds)
	dst := make([]float32, dim*ldd)
	values := func(b *testing.B, n int) {
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gvalues/s")
	}
	b.Run("rows", func(b *testing.B) {
		benchEachImpl(b, func(b *testing.B) {
			for b.Loop() {
				Round32Rows(dst, ldd, src, lds, dim, d)
			}
			values(b, dim*d)
		})
	})
	b.Run("rowsBack", func(b *testing.B) {
		benchEachImpl(b, func(b *testing.B) {
			for b.Loop() {
				Round32RowsBack(dst, ldd, src, lds, dim, d)
			}
			values(b, dim*d)
		})
	})
	b.Run("contiguous", func(b *testing.B) {
		benchEachImpl(b, func(b *testing.B) {
			for b.Loop() {
				Round32(dst, src[:dim*d])
			}
			values(b, dim*d)
		})
	})
}

// TestWiden32Rows checks Widen32Rows against float64(x) in Go, bit for
// bit (NaN payloads, signalling NaNs, denormals, ±0, ±Inf), over shapes,
// strides, tails and offsets, with every element of dst outside the
// block left as it was.
func TestWiden32Rows(t *testing.T) {
	specials := []float32{0, float32(math.Copysign(0, -1)), float32(math.Inf(1)), float32(math.Inf(-1)),
		math.Float32frombits(0x7fc0_0001), math.Float32frombits(0x7f80_0001), math.Float32frombits(0xff80_1234),
		0x1p-149, -0x1p-149, 0x1p-126, math.MaxFloat32, -math.MaxFloat32}
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(7, 64))
		cols := conversionCols()
		ci := 0
		for _, nr := range []int{1, 2, 3, 7, 13} {
			for _, nc := range cols {
				if nc == 784 && nr > 3 {
					continue
				}
				ci++
				ldd, lds := ldFor(nc, ci), ldFor(nc, ci/3+1)
				src := newMatrix32(rng, nr, nc, lds, ci%4)
				for i := range src.buf[src.off : src.off+len(src.data())] {
					if rng.IntN(6) == 0 {
						src.buf[src.off+i] = specials[rng.IntN(len(specials))]
					}
				}
				dst := newMatrix(rng, nr, nc, ldd, (ci/4)%4, true)
				n64 := dst.off + dst.size()
				Widen32Rows(dst.buf[dst.off:n64:n64], ldd, src.data(), lds, nr, nc)
				name := fmt.Sprintf("rows=%d cols=%d ldd=%d lds=%d", nr, nc, ldd, lds)
				for r := 0; r < nr; r++ {
					for c := 0; c < nc; c++ {
						got, want := dst.buf[dst.off+r*ldd+c], float64(src.buf[src.off+r*lds+c])
						if math.Float64bits(got) != math.Float64bits(want) {
							t.Fatalf("%s: (%d, %d) = %x, want %x", name, r, c, math.Float64bits(got), math.Float64bits(want))
						}
					}
				}
				dst.checkGuards(t, name+": dst")
				for r := 0; r+1 < nr; r++ {
					for c := nc; c < ldd; c++ {
						if v := dst.buf[dst.off+r*ldd+c]; math.Float64bits(v) != math.Float64bits(guard) && math.Float64bits(v) != math.Float64bits(poison) {
							t.Fatalf("%s: (%d, %d) past the block written", name, r, c)
						}
					}
				}
			}
		}
	})
}
