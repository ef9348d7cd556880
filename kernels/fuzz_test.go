package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// Fuzz targets: the fuzzer picks shapes, strides, alignments and a seed for
// the values (with magnitudes spread over 2^±mag); every available
// implementation is compared with the plain loop and guards are checked.
// Seeds beyond the f.Add ones live in testdata/fuzz/<FuzzName>/.

// forEachImplNoSubtest runs f once per available implementation without
// subtests (each fuzz input is one test case).
func forEachImplNoSubtest(f func(name string)) {
	defer restoreImpl()
	for _, im := range impls() {
		if im.ok {
			im.set()
			f(im.name)
		}
	}
}

// fuzzMatrix is newMatrix with each value scaled by 2^e, e uniform in
// [-mag, mag] (mag <= 60, so no product over- or underflows).
func fuzzMatrix(rng *rand.Rand, rows, cols, ld, align int, mag uint8) *matrix {
	m := newMatrix(rng, rows, cols, ld, align, false)
	e := int(mag % 61)
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			m.buf[m.off+r*ld+c] = math.Ldexp(m.at(r, c), rng.IntN(2*e+1)-e)
		}
	}
	return m
}

// fuzzLD is the stride of a matrix with cols columns: cols + sel%4, or
// Stride(cols) when sel%5 == 4.
func fuzzLD(cols int, sel uint8) int {
	if sel%5 == 4 {
		return Stride(cols)
	}
	return cols + int(sel%4)
}

func FuzzDot(f *testing.F) {
	f.Add(uint16(0), uint8(0), uint8(0), uint64(1))
	f.Add(uint16(13), uint8(1), uint8(20), uint64(2))
	f.Add(uint16(784), uint8(2), uint8(0), uint64(3))
	f.Fuzz(func(t *testing.T, n16 uint16, off, mag uint8, seed uint64) {
		n := int(n16 % 4100)
		rng := rand.New(rand.NewPCG(seed, 1))
		x := fuzzMatrix(rng, 1, n, n, int(off%4), mag)
		y := fuzzMatrix(rng, 1, n, n, int(off/4%4), mag)
		var want, scale float64
		for i := 0; i < n; i++ {
			want += x.at(0, i) * y.at(0, i)
			scale += math.Abs(x.at(0, i) * y.at(0, i))
		}
		forEachImplNoSubtest(func(name string) {
			if got := Dot(x.data(), y.data()); !near(got, want, scale) {
				t.Fatalf("%s: n=%d: Dot = %v, plain loop %v", name, n, got, want)
			}
		})
	})
}

func FuzzAxpy(f *testing.F) {
	f.Add(uint16(0), uint8(0), uint8(0), uint64(1), 0.5)
	f.Add(uint16(37), uint8(5), uint8(10), uint64(2), -3.0)
	f.Fuzz(func(t *testing.T, n16 uint16, off, mag uint8, seed uint64, alpha float64) {
		if math.IsNaN(alpha) || math.IsInf(alpha, 0) || math.Abs(alpha) > 1e100 {
			t.Skip("alpha must be finite and moderate")
		}
		n := int(n16 % 4100)
		rng := rand.New(rand.NewPCG(seed, 2))
		x := fuzzMatrix(rng, 1, n, n, int(off%4), mag)
		y0 := fuzzMatrix(rng, 1, n, n, int(off/4%4), mag)
		forEachImplNoSubtest(func(name string) {
			y := &matrix{buf: append([]float64(nil), y0.buf...), off: y0.off, rows: 1, cols: n, ld: n}
			Axpy(alpha, x.data(), y.data())
			y.checkGuards(t, name+": y")
			for i := 0; i < n; i++ {
				p := alpha * x.at(0, i)
				want := y0.at(0, i) + p
				if got := y.at(0, i); !near(got, want, math.Abs(y0.at(0, i))+math.Abs(p)) {
					t.Fatalf("%s: n=%d: y[%d] = %v, plain loop %v", name, n, i, got, want)
				}
			}
		})
	})
}

// fuzzShape decodes a fuzz input into an AtB/AB shape: n < 1000, p, q <= 40.
func fuzzShape(n16 uint16, p8, q8 uint8) (n, p, q int) {
	return int(n16 % 1000), int(p8 % 41), int(q8 % 41)
}

func FuzzAtB(f *testing.F) {
	f.Add(uint16(784), uint8(12), uint8(12), uint8(4), uint8(4), uint8(4), uint8(0), uint64(1))
	f.Add(uint16(400), uint8(25), uint8(25), uint8(1), uint8(2), uint8(3), uint8(30), uint64(2))
	f.Add(uint16(3), uint8(33), uint8(17), uint8(0), uint8(0), uint8(0), uint8(0), uint64(3))
	f.Fuzz(func(t *testing.T, n16 uint16, da8, db8, sa, sb, sm, mag uint8, seed uint64) {
		n, da, db := fuzzShape(n16, da8, db8)
		lda, ldb, ldm := fuzzLD(da, sa), fuzzLD(db, sb), fuzzLD(db, sm)
		rng := rand.New(rand.NewPCG(seed, 3))
		a := fuzzMatrix(rng, n, da, lda, int(sa/5%4), mag)
		b := fuzzMatrix(rng, n, db, ldb, int(sb/5%4), mag)
		forEachImplNoSubtest(func(name string) {
			m := newMatrix(rng, da, db, ldm, int(sm/5%4), true)
			AtB(m.data(), ldm, a.data(), lda, b.data(), ldb, n, da, db)
			m.checkGuards(t, name+": M")
			for i := 0; i < da; i++ {
				for j := 0; j < db; j++ {
					var want, scale float64
					for r := 0; r < n; r++ {
						p := a.at(r, i) * b.at(r, j)
						want += p
						scale += math.Abs(p)
					}
					if got := m.at(i, j); !near(got, want, scale) {
						t.Fatalf("%s: n=%d da=%d db=%d lda=%d ldb=%d ldm=%d: M[%d,%d] = %v, plain loop %v",
							name, n, da, db, lda, ldb, ldm, i, j, got, want)
					}
				}
			}
		})
	})
}

func FuzzAB(f *testing.F) {
	f.Add(uint16(784), uint8(12), uint8(12), uint8(4), uint8(4), uint8(4), uint8(0), uint64(1))
	f.Add(uint16(29), uint8(25), uint8(33), uint8(1), uint8(2), uint8(3), uint8(30), uint64(2))
	f.Fuzz(func(t *testing.T, n16 uint16, k8, d8, sa, sb, sc, mag uint8, seed uint64) {
		n, k, d := fuzzShape(n16, k8, d8)
		lda, ldb, ldc := fuzzLD(k, sa), fuzzLD(d, sb), fuzzLD(d, sc)
		rng := rand.New(rand.NewPCG(seed, 4))
		a := fuzzMatrix(rng, n, k, lda, int(sa/5%4), mag)
		b := fuzzMatrix(rng, k, d, ldb, int(sb/5%4), mag)
		forEachImplNoSubtest(func(name string) {
			c := newMatrix(rng, n, d, ldc, int(sc/5%4), true)
			AB(c.data(), ldc, a.data(), lda, b.data(), ldb, n, k, d)
			c.checkGuards(t, name+": C")
			for r := 0; r < n; r++ {
				for j := 0; j < d; j++ {
					var want, scale float64
					for l := 0; l < k; l++ {
						p := a.at(r, l) * b.at(l, j)
						want += p
						scale += math.Abs(p)
					}
					if got := c.at(r, j); !near(got, want, scale) {
						t.Fatalf("%s: n=%d k=%d d=%d lda=%d ldb=%d ldc=%d: C[%d,%d] = %v, plain loop %v",
							name, n, k, d, lda, ldb, ldc, r, j, got, want)
					}
				}
			}
		})
	})
}

func FuzzAtX(f *testing.F) {
	f.Add(uint16(784), uint8(12), uint8(4), uint8(0), uint64(1))
	f.Add(uint16(401), uint8(25), uint8(1), uint8(30), uint64(2))
	f.Fuzz(func(t *testing.T, n16 uint16, d8, sa, mag uint8, seed uint64) {
		n, d := int(n16%5000), int(d8%80)
		lda := fuzzLD(d, sa)
		rng := rand.New(rand.NewPCG(seed, 5))
		a := fuzzMatrix(rng, n, d, lda, int(sa/5%4), mag)
		x := fuzzMatrix(rng, 1, n, n, int(sa/20%4), mag)
		forEachImplNoSubtest(func(name string) {
			y := newMatrix(rng, 1, d, d, int(seed%4), true)
			AtX(y.data(), a.data(), lda, x.data(), n, d)
			y.checkGuards(t, name+": y")
			for j := 0; j < d; j++ {
				var want, scale float64
				for r := 0; r < n; r++ {
					p := a.at(r, j) * x.at(0, r)
					want += p
					scale += math.Abs(p)
				}
				if got := y.at(0, j); !near(got, want, scale) {
					t.Fatalf("%s: n=%d d=%d lda=%d: y[%d] = %v, plain loop %v", name, n, d, lda, j, got, want)
				}
			}
		})
	})
}

func FuzzAB2(f *testing.F) {
	f.Add(uint16(784), uint8(12), uint8(12), uint8(4), uint8(4), uint8(4), uint8(0), true, uint64(1))
	f.Add(uint16(29), uint8(25), uint8(33), uint8(1), uint8(2), uint8(3), uint8(30), false, uint64(2))
	f.Add(uint16(400), uint8(25), uint8(25), uint8(4), uint8(4), uint8(4), uint8(10), true, uint64(3))
	f.Fuzz(func(t *testing.T, n16 uint16, k8, d8, sa, sb, sc, mag uint8, inPlace bool, seed uint64) {
		n, k, d := fuzzShape(n16, k8, d8)
		lda1, ldb, lda2 := fuzzLD(k, sa), fuzzLD(d, sb), fuzzLD(k, sc)
		rng := rand.New(rand.NewPCG(seed, 14))
		a1 := fuzzMatrix(rng, n, k, lda1, int(sa/5%4), mag)
		b1 := fuzzMatrix(rng, k, d, ldb, int(sb/5%4), mag)
		a2 := fuzzMatrix(rng, n, k, lda2, int(sc/5%4), mag)
		b2 := fuzzMatrix(rng, k, d, ldb, int(sb/20%4), mag)
		forEachImplNoSubtest(func(name string) {
			want := ab2Reference(a1, b1, a2, b2, n, k, d, int(sc%3))
			var c *matrix
			ldc := fuzzLD(d, sc/4)
			if inPlace && k > 0 {
				ldc = fuzzLD(max(k, d), sc/4)
				c = newMatrix(rng, n, max(k, d), ldc, int(sa/20%4), false)
				for r := 0; r < n; r++ {
					for l := 0; l < k; l++ {
						c.buf[c.off+r*ldc+l] = a1.at(r, l)
					}
				}
				AB2(c.data(), ldc, c.data(), ldc, b1.data(), ldb, a2.data(), lda2, b2.data(), ldb, n, k, d)
			} else {
				c = newMatrix(rng, n, d, ldc, int(sa/20%4), true)
				AB2(c.data(), ldc, a1.data(), lda1, b1.data(), ldb, a2.data(), lda2, b2.data(), ldb, n, k, d)
			}
			c.checkGuards(t, name+": C")
			checkAB2Bits(t, fmt.Sprintf("%s: n=%d k=%d d=%d in place %v", name, n, k, d, inPlace), c, want, n, d)
		})
	})
}
