package kernels

import (
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestFMA32 checks fma32 (AB2S32's float32 FMA in Go) against the exact
// a*b + c rounded to float32 by math/big, over values of every kind:
// normal at many scales, subnormal, zero of either sign, near overflow,
// sums that cancel or sit halfway between two float32 values, and 2,000
// sums built so that rounding to float64 first and then to float32 gives
// the wrong float32 (what the rounding to odd is for), those also through
// AB2S32 on every implementation; and the signs of zero sums.
func TestFMA32(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 32))
	pick := func() float32 {
		switch rng.IntN(8) {
		case 0:
			return math.Float32frombits(rng.Uint32() & 0x807fffff) // subnormal or zero
		case 1:
			return float32(rng.NormFloat64()) * float32(math.Ldexp(1, rng.IntN(60)-30))
		case 2:
			return []float32{0, float32(math.Copysign(0, -1)), 1, -1, 0.5, math.MaxFloat32, -math.SmallestNonzeroFloat32}[rng.IntN(7)]
		default:
			// Random bits but Inf and NaN.
			for {
				v := math.Float32frombits(rng.Uint32())
				if !math.IsInf(float64(v), 0) && !math.IsNaN(float64(v)) {
					return v
				}
			}
		}
	}
	check := func(a, b, c float32) {
		t.Helper()
		x := new(big.Float).SetPrec(400).SetFloat64(float64(a))
		x.Mul(x, new(big.Float).SetFloat64(float64(b)))
		x.Add(x, new(big.Float).SetFloat64(float64(c)))
		want, _ := x.Float32()
		got := fma32(a, b, c)
		if got == 0 && want == 0 {
			return // big.Float's sign of an exact zero sum is not IEEE's
		}
		if math.Float32bits(got) != math.Float32bits(want) {
			t.Fatalf("fma32(%g, %g, %g) = %g (%#x), want %g (%#x)", a, b, c, got, math.Float32bits(got), want, math.Float32bits(want))
		}
	}
	for i := 0; i < 200000; i++ {
		a, b := pick(), pick()
		c := pick()
		if i%3 == 0 {
			// c near -a*b: cancellation.
			c = -float32(float64(a)*float64(b)) * (1 + float32(rng.IntN(5)-2)*0x1p-23)
		}
		if i%5 == 0 {
			// a*b + c halfway between two float32 values: c a float32,
			// a*b half its ulp times an odd small integer.
			c = float32(1 + rng.IntN(1<<23))
			a, b = 0.5, float32(2*rng.IntN(3)+1)
		}
		if math.IsInf(float64(a)*float64(b)+float64(c), 0) || math.Abs(float64(a)*float64(b)+float64(c)) > math.MaxFloat32 {
			continue
		}
		check(a, b, c)
	}
	// Sums where rounding twice, to float64 and then to float32, goes
	// wrong: c in [1, 2) plus a·b = 2^-24 (half of c's float32 ulp) +
	// r·2^-71 with m1·m2 = 2^47 + r, r small: the float64 sum lands on the
	// float32 midpoint and loses r's side. Each checked against math/big
	// in fma32 and, as one chain of AB2S32 (c·1 then a·b), on every
	// implementation (the asm paths' hardware FMAs).
	var directed [][3]float32
	for len(directed) < 2000 {
		m1 := uint64(1<<23 + rng.IntN(1<<23))
		m2 := (uint64(1)<<47 + m1/2) / m1
		if m2 < 1<<23 || m2 >= 1<<24 || m1*m2 == 1<<47 {
			continue
		}
		a := float32(math.Ldexp(float64(m1), -47))
		b := float32(math.Ldexp(float64(m2), -24))
		c := float32(1 + math.Ldexp(float64(rng.IntN(1<<23)), -23))
		if rng.IntN(2) == 0 {
			a, c = -a, -c
		}
		// The case must be one where double rounding fails.
		naive := float32(float64(a)*float64(b) + float64(c))
		x := new(big.Float).SetPrec(400).SetFloat64(float64(a))
		x.Mul(x, new(big.Float).SetFloat64(float64(b)))
		x.Add(x, new(big.Float).SetFloat64(float64(c)))
		if exact, _ := x.Float32(); exact == naive {
			continue
		}
		directed = append(directed, [3]float32{a, b, c})
		check(a, b, c)
	}
	forEachImpl(t, func(t *testing.T) {
		for _, v := range directed {
			got := []float32{0}
			AB2S32(got, 1, []float32{v[2]}, 1, []float32{1}, 1, []float32{v[0]}, 1, []float32{v[1]}, 1, 1, 1, 1)
			if want := fma32(v[0], v[1], v[2]); math.Float32bits(got[0]) != math.Float32bits(want) {
				t.Fatalf("AB2S32 chain c·1 + a·b for a=%#x b=%#x c=%#x: %#x, want %#x", math.Float32bits(v[0]), math.Float32bits(v[1]), math.Float32bits(v[2]), math.Float32bits(got[0]), math.Float32bits(want))
			}
		}
	})
	// Signed zeros as IEEE addition gives them: x + (−x) is +0, −0 + −0
	// is −0.
	negZero := float32(math.Copysign(0, -1))
	for _, z := range []struct {
		a, b, c float32
		neg     bool
	}{{1, 1, -1, false}, {-1, 1, 1, false}, {0, 1, negZero, false}, {negZero, 1, negZero, true}, {negZero, -1, 0, false}, {0, -1, negZero, true}} {
		v := fma32(z.a, z.b, z.c)
		if v != 0 || math.Signbit(float64(v)) != z.neg {
			t.Errorf("fma32(%g, %g, %g) = %g (sign bit %v), want a zero with sign bit %v", z.a, z.b, z.c, v, math.Signbit(float64(v)), z.neg)
		}
	}
	// Overflow and NaN as the hardware gives them.
	if v := fma32(math.MaxFloat32, 2, 0); !math.IsInf(float64(v), 1) {
		t.Errorf("fma32(MaxFloat32, 2, 0) = %g, want +Inf", v)
	}
	if v := fma32(float32(math.Inf(1)), 0, 1); !math.IsNaN(float64(v)) {
		t.Errorf("fma32(Inf, 0, 1) = %g, want NaN", v)
	}
}

// ab2s32Want is AB2S32's definition, output by output: one fma32 chain
// over A1's row times B1's column, then A2's times B2's, from zero, added
// to C's value (c0) in float32.
func ab2s32Want(c0, a1, b1, a2, b2 *matrix32, n, k, d int) []float32 {
	want := make([]float32, n*d)
	for r := 0; r < n; r++ {
		for j := 0; j < d; j++ {
			var s float32
			for l := 0; l < k; l++ {
				s = fma32(a1.buf[a1.off+r*a1.ld+l], b1.buf[b1.off+l*b1.ld+j], s)
			}
			for l := 0; l < k; l++ {
				s = fma32(a2.buf[a2.off+r*a2.ld+l], b2.buf[b2.off+l*b2.ld+j], s)
			}
			want[r*d+j] = c0.buf[c0.off+r*c0.ld+j] + s
		}
	}
	return want
}

// TestAB2S32 checks AB2S32 against its definition on every
// implementation, bit for bit, where the asm kernels run (every k and d
// up to 13, every d up to 33 at k of 1 to 32, row counts around the
// blocks) and where the reference in Go does (k or d of 33 and 64):
// strides, alignments,
// guards around the output (the masked stores touch no neighbour: the
// engine's prototypes lie side by side in one matrix), inputs left as
// they were, and the update in place.
func TestAB2S32(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 33))
		ns := []int{1, 7, 8, 9, 16, 23, 29}
		if testing.Short() {
			ns = []int{1, 9, 23}
		}
		var shapes []shape3
		for _, n := range ns {
			for k := 1; k <= 13; k++ {
				for d := 1; d <= 13; d++ {
					shapes = append(shapes, shape3{n, k, d})
				}
			}
		}
		// The kernels on packed B: k up to 32, every d up to 33 (every
		// count of vectors and of lanes in the last one).
		for _, n := range []int{1, 7, 9} {
			for _, k := range []int{1, 5, 13, 25, 32, 33} {
				for d := 1; d <= 33; d++ {
					shapes = append(shapes, shape3{n, k, d})
				}
			}
		}
		shapes = append(shapes, shape3{784, 12, 12}, shape3{400, 5, 5}, shape3{400, 25, 25}, shape3{17, 64, 64}, shape3{0, 5, 5}, shape3{5, 0, 5})
		for ci, s := range shapes {
			n, k, d := s.n, s.p, s.q
			lda1, ldb1, lda2, ldb2 := ldFor(k, ci), ldFor(d, ci/5+1), ldFor(k, ci/7+3), ldFor(d, ci/25+2)
			a1 := newMatrix32(rng, n, k, lda1, ci%4)
			b1 := newMatrix32(rng, k, d, ldb1, (ci/4+1)%4)
			a2 := newMatrix32(rng, n, k, lda2, (ci/3+2)%4)
			b2 := newMatrix32(rng, k, d, ldb2, (ci/16+3)%4)
			a1b, b1b := append([]float32(nil), a1.buf...), append([]float32(nil), b1.buf...)
			a2b, b2b := append([]float32(nil), a2.buf...), append([]float32(nil), b2.buf...)
			var want []float32
			check := func(name string, c *matrix32, before []float32) {
				t.Helper()
				b1.checkUnchanged(t, name+": B1", b1b)
				a2.checkUnchanged(t, name+": A2", a2b)
				b2.checkUnchanged(t, name+": B2", b2b)
				c.checkOutput(t, name, n, d, want, before)
			}
			ldc := ldFor(d, ci/9+1)
			c := newMatrix32(rng, n, d, ldc, (ci/2+1)%4)
			cb := append([]float32(nil), c.buf...)
			want = ab2s32Want(c, a1, b1, a2, b2, n, k, d)
			name := fmt.Sprintf("n=%d k=%d d=%d lda1=%d ldb1=%d lda2=%d ldb2=%d ldc=%d (native %v)", n, k, d, lda1, ldb1, lda2, ldb2, ldc, AB2S32Native(k, d))
			AB2S32(c.data(), ldc, a1.data(), lda1, b1.data(), ldb1, a2.data(), lda2, b2.data(), ldb2, n, k, d)
			a1.checkUnchanged(t, name+": A1", a1b)
			check(name, c, cb)

			// In place: W = [A1 | rest] with max(k, d) columns, C = its first d.
			if k == 0 || n == 0 {
				continue
			}
			wc := max(k, d)
			ldw := ldFor(wc, ci/11)
			w := newMatrix32(rng, n, wc, ldw, (ci/6)%4)
			for r := 0; r < n; r++ {
				copy(w.buf[w.off+r*ldw:w.off+r*ldw+k], a1.buf[a1.off+r*lda1:a1.off+r*lda1+k])
			}
			wb := append([]float32(nil), w.buf...)
			want = ab2s32Want(w, w, b1, a2, b2, n, k, d)
			AB2S32(w.data(), ldw, w.data(), ldw, b1.data(), ldb1, a2.data(), lda2, b2.data(), ldb2, n, k, d)
			check("in place: "+name, w, wb)
		}
	})
}

// TestAB2S32Native: the one-kernel form is the asm paths' for k and d up
// to 32 (what the engine's choice of update relies on).
func TestAB2S32Native(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		impl := Implementation()
		for _, s := range []struct {
			k, d int
			asm  bool
		}{{1, 1, true}, {5, 5, true}, {12, 12, true}, {13, 12, true}, {12, 13, true}, {25, 25, true}, {32, 32, true}, {33, 32, false}, {32, 33, false}, {0, 5, false}, {5, 0, false}} {
			want := impl != "generic" && s.asm
			if got := AB2S32Native(s.k, s.d); got != want {
				t.Errorf("AB2S32Native(%d, %d) = %v on %s", s.k, s.d, got, impl)
			}
		}
	})
}

// TestAB2S32Allocs: AB2S32 allocates nothing, in place or not.
func TestAB2S32Allocs(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		for _, s := range []struct{ n, d int }{{400, 5}, {784, 12}, {40, 25}} {
			rng := rand.New(rand.NewPCG(2, 33))
			ld := Stride(s.d)
			w := newMatrix32(rng, s.n, s.d, ld, 0)
			p := newMatrix32(rng, s.n, s.d, ld, 0)
			c1 := newMatrix32(rng, s.d, s.d, ld, 0)
			c2 := newMatrix32(rng, s.d, s.d, ld, 0)
			out := make([]float32, s.n*s.d)
			for _, inPlace := range []bool{false, true} {
				c, ldc := out, s.d
				if inPlace {
					c, ldc = w.data(), ld
				}
				if n := testing.AllocsPerRun(5, func() {
					AB2S32(c, ldc, w.data(), ld, c1.data(), ld, p.data(), ld, c2.data(), ld, s.n, s.d, s.d)
				}); n != 0 {
					t.Errorf("n=%d d=%d in place %v: %v allocations", s.n, s.d, inPlace, n)
				}
			}
		}
	})
}
