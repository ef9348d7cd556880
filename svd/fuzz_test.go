package svd

import (
	"errors"
	"math"
	"testing"
)

// fuzzMatrix decodes a rows x cols matrix from b: two bytes per entry, an
// int8 mantissa and an exponent in [-24, 24) (so zeros, repeated rows and
// wide dynamic range are all frequent), times the global power of two
// 2^scale. Byte 0xff as a mantissa gives a NaN, 0xfe an Inf. It also
// returns the matrix without the global scale, for gonum.
func fuzzMatrix(b []byte, rows, cols int, scale int) (a, unscaled []float64, finite bool) {
	a = make([]float64, rows*cols)
	unscaled = make([]float64, rows*cols)
	finite = true
	for i := range a {
		var m, e byte
		if 2*i+1 < len(b) {
			m, e = b[2*i], b[2*i+1]
		}
		x := math.Ldexp(float64(int8(m)), int(e%48)-24)
		switch m {
		case 0xff:
			x, finite = math.NaN(), false
		case 0xfe:
			x, finite = math.Inf(1), false
		}
		unscaled[i] = x
		a[i] = math.Ldexp(x, scale)
	}
	return a, unscaled, finite
}

var fuzzScales = []int{0, -480, 480, -960, 960} // never overflows nor goes subnormal

// checkScaledValues compares s (of the matrix scaled by 2^scale) with
// gonum's values of the unscaled matrix.
func checkScaledValues(t *testing.T, rows, cols int, unscaled, s []float64, scale int) {
	t.Helper()
	want := gonumValues(t, rows, cols, unscaled)
	smax := want[0]
	for i, w := range want {
		got := math.Ldexp(s[i], -scale)
		if !(math.Abs(got-w) <= testTol*smax) && !(smax == 0 && got == 0) {
			t.Fatalf("s[%d] = %g (unscaled), gonum %g, rel err %g", i, got, w, math.Abs(got-w)/smax)
		}
		if i > 0 && !(s[i] <= s[i-1]) {
			t.Fatalf("not descending at %d", i)
		}
	}
}

func fuzzSeeds(f *testing.F) {
	f.Add([]byte{12, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
	f.Add([]byte{3, 1, 0xff, 0})
	f.Add([]byte{5, 2, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0})
	f.Add([]byte{25, 3, 7, 40, 200, 3, 9, 9, 0, 0, 100, 47})
}

func FuzzValues(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 2 {
			return
		}
		n := 1 + int(b[0])%32
		scale := fuzzScales[int(b[1])%len(fuzzScales)]
		a, un, finite := fuzzMatrix(b[2:], n, n, scale)
		s := make([]float64, n)
		forEachImpl(t, func(t *testing.T) {
			err := NewSmall(n).Values(s, a, n)
			if !finite {
				if !errors.Is(err, ErrNotFinite) {
					t.Fatalf("err = %v, want ErrNotFinite", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkScaledValues(t, n, n, un, s, scale)
		})
	})
}

func FuzzFactorize(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 2 {
			return
		}
		n := 1 + int(b[0])%32
		scale := fuzzScales[int(b[1])%len(fuzzScales)]
		a, un, finite := fuzzMatrix(b[2:], n, n, scale)
		s := make([]float64, n)
		u := make([]float64, n*n)
		v := make([]float64, n*n)
		forEachImpl(t, func(t *testing.T) {
			err := NewSmall(n).Factorize(u, n, s, v, n, a, n)
			if !finite {
				if !errors.Is(err, ErrNotFinite) {
					t.Fatalf("err = %v, want ErrNotFinite", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkScaledValues(t, n, n, un, s, scale)
			checkOrthonormal(t, "U", u, n, n, n)
			checkOrthonormal(t, "V", v, n, n, n)
			checkReconstruction(t, "A", a, n, u, n, s, v, n, n, n)
		})
	})
}

func FuzzBatch(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 3 {
			return
		}
		n := 1 + int(b[0])%16
		scale := fuzzScales[int(b[1])%len(fuzzScales)]
		k := 1 + int(b[2])%12
		// Matrix i uses the bytes from 2*i*n on (overlapping windows).
		a := make([]float64, k*n*n)
		un := make([]float64, k*n*n)
		firstBad := -1
		for i := 0; i < k; i++ {
			lo := min(3+2*i*n, len(b))
			ai, ui, fin := fuzzMatrix(b[lo:], n, n, scale)
			copy(a[i*n*n:], ai)
			copy(un[i*n*n:], ui)
			if !fin && firstBad < 0 {
				firstBad = i
			}
		}
		s := make([]float64, k*n)
		forEachImpl(t, func(t *testing.T) {
			err := NewBatch(n).Values(s, n, a, n, n*n, k)
			if firstBad >= 0 {
				var be *BatchError
				if !errors.Is(err, ErrNotFinite) || !errors.As(err, &be) || be.Index != firstBad {
					t.Fatalf("err = %v, want ErrNotFinite at %d", err, firstBad)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < k; i++ {
				checkScaledValues(t, n, n, un[i*n*n:(i+1)*n*n], s[i*n:(i+1)*n], scale)
			}
		})
	})
}

func FuzzTall(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 3 {
			return
		}
		cols := 1 + int(b[0])%12
		rows := cols + int(b[2])%40
		scale := fuzzScales[int(b[1])%len(fuzzScales)]
		a, un, finite := fuzzMatrix(b[3:], rows, cols, scale)
		s := make([]float64, cols)
		u := make([]float64, rows*cols)
		v := make([]float64, cols*cols)
		forEachImpl(t, func(t *testing.T) {
			err := NewTall(rows, cols).Factorize(u, cols, s, v, cols, a, cols)
			if !finite {
				if !errors.Is(err, ErrNotFinite) {
					t.Fatalf("err = %v, want ErrNotFinite", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkScaledValues(t, rows, cols, un, s, scale)
			checkOrthonormal(t, "U", u, cols, rows, cols)
			checkOrthonormal(t, "V", v, cols, cols, cols)
			checkReconstruction(t, "A", a, cols, u, cols, s, v, cols, rows, cols)
		})
	})
}

// FuzzFactorize32 checks Small.Factorize32 against Factorize on every
// implementation (the errors Factorize's; where Factorize32Native, within
// bound32, else Factorize's bits) and Pair.Factorize32 on the matrix and
// its transpose against two Small.Factorize32 calls, bit for bit.
func FuzzFactorize32(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 2 {
			return
		}
		n := 1 + int(b[0])%34
		scale := fuzzScales[int(b[1])%len(fuzzScales)]
		a, _, _ := fuzzMatrix(b[2:], n, n, scale)
		at := make([]float64, n*n)
		for r := 0; r < n; r++ {
			for c := 0; c < n; c++ {
				at[c*n+r] = a[r*n+c]
			}
		}
		forEachImpl(t, func(t *testing.T) {
			u, s, v := make([]float64, n*n), make([]float64, n), make([]float64, n*n)
			u64, s64, v64 := make([]float64, n*n), make([]float64, n), make([]float64, n*n)
			w := NewSmall(n)
			err := w.Factorize32(u, n, s, v, n, a, n)
			if err64 := NewSmall(n).Factorize(u64, n, s64, v64, n, a, n); err != err64 {
				t.Fatalf("error %v, Factorize's %v", err, err64)
			}
			if err == nil {
				if Factorize32Native(n) {
					check32(t, "fuzz", n, a, u, n, s, v, n, s64)
				} else if !sameBits(s, s64) || !sameBits(u, u64) || !sameBits(v, v64) {
					t.Fatal("not Factorize's bits where Factorize32Native is false")
				}
			}
			checkPairBy(t, "fuzz pair", n, NewPair(n).Factorize32, w.Factorize32, a, at)
		})
	})
}
