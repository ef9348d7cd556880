//go:build linux

package kernels

import (
	"math/rand/v2"
	"syscall"
	"testing"
	"unsafe"
)

// pageFenced is memory whose last usable byte is followed by a PROT_NONE
// page and whose first usable byte follows one: reading or writing even one
// float64 outside the slices it hands out faults. The NaN guards of the other
// tests only catch reads that reach a result; these catch the ones a lane
// mask would have hidden (an unmasked vector load that reads past the end).
type pageFenced struct {
	mem  []byte
	page int
}

func newPageFenced(t *testing.T, maxFloats int) *pageFenced {
	t.Helper()
	page := syscall.Getpagesize()
	body := (maxFloats*8 + page - 1) / page * page
	mem, err := syscall.Mmap(-1, 0, body+2*page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Fatalf("mmap: %v", err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	if err := syscall.Mprotect(mem[:page], syscall.PROT_NONE); err != nil {
		t.Fatalf("mprotect: %v", err)
	}
	if err := syscall.Mprotect(mem[page+body:], syscall.PROT_NONE); err != nil {
		t.Fatalf("mprotect: %v", err)
	}
	return &pageFenced{mem: mem[page : page+body], page: page}
}

// atEnd returns n float64s ending exactly at the fence after the body.
func (p *pageFenced) atEnd(n int) []float64 {
	if n == 0 {
		return nil
	}
	b := p.mem[len(p.mem)-8*n:]
	return unsafe.Slice((*float64)(unsafe.Pointer(&b[0])), n)
}

// atStart returns n float64s starting exactly at the fence before the body.
func (p *pageFenced) atStart(n int) []float64 {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*float64)(unsafe.Pointer(&p.mem[0])), n)
}

func fill(rng *rand.Rand, s []float64) {
	for i := range s {
		s[i] = rng.NormFloat64()
	}
}

// TestPageFence runs every kernel on operands that end (then start) at an
// unmapped page, with the tightest stride (ld = cols) and ld = cols+1: an
// access one element outside any operand crashes the test binary.
func TestPageFence(t *testing.T) {
	const maxN, maxCols = 70, 41
	fences := make([]*pageFenced, 4)
	for i := range fences {
		fences[i] = newPageFenced(t, maxN*(maxCols+1))
	}
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(2, 1))
		for _, end := range []bool{true, false} {
			get := func(i, n int) []float64 {
				if end {
					return fences[i].atEnd(n)
				}
				return fences[i].atStart(n)
			}
			for n := 0; n <= 300; n++ {
				x, y := get(0, n), get(1, n)
				fill(rng, x)
				fill(rng, y)
				Dot(x, y)
				Axpy(0.5, x, y)
				Scale(0.5, x)
			}
			for _, n := range []int{1, 2, 3, 5, 8, 9, 17, 70} {
				for p := 1; p <= maxCols; p++ {
					for q := 1; q <= maxCols; q++ {
						for extra := 0; extra < 2; extra++ {
							lp, lq := p+extra, q+extra
							// AtB: A n x p, B n x q, M p x q.
							a, b, m := get(0, (n-1)*lp+p), get(1, (n-1)*lq+q), get(2, (p-1)*lq+q)
							fill(rng, a)
							fill(rng, b)
							AtB(m, lq, a, lp, b, lq, n, p, q)
							// AB: A n x p, B p x q, C n x q.
							b, c := get(1, (p-1)*lq+q), get(2, (n-1)*lq+q)
							fill(rng, b)
							AB(c, lq, a, lp, b, lq, n, p, q)
							// AB2: A2 n x p (B2 = B), then in place: W
							// n x max(p, q), C = W = A1.
							a2 := get(3, (n-1)*lp+p)
							fill(rng, a2)
							AB2(c, lq, a, lp, b, lq, a2, lp, b, lq, n, p, q)
							lw := max(p, q) + extra
							wv := get(3, (n-1)*lw+max(p, q))
							fill(rng, wv)
							AB2(wv, lw, wv, lw, b, lq, a, lp, b, lq, n, p, q)
							if q == 1 {
								// AtX: A n x p, x n, y p.
								xv, yv := get(1, n), get(2, p)
								fill(rng, xv)
								AtX(yv, a, lp, xv, n, p)
							}
						}
					}
				}
			}
		}
	})
}

// atEnd32 and atStart32 are atEnd and atStart for float32s.
func (p *pageFenced) atEnd32(n int) []float32 {
	if n == 0 {
		return nil
	}
	b := p.mem[len(p.mem)-4*n:]
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), n)
}

func (p *pageFenced) atStart32(n int) []float32 {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&p.mem[0])), n)
}

// TestPageFence32 is TestPageFence for AtB32 and AtX32 (float32 tails of
// up to 15 lanes are masked loads).
func TestPageFence32(t *testing.T) {
	const maxN, maxCols = 70, 70
	fences := make([]*pageFenced, 3)
	for i := range fences {
		fences[i] = newPageFenced(t, maxN*(maxCols+1))
	}
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(2, 3))
		fill32 := func(s []float32) {
			for i := range s {
				s[i] = float32(rng.NormFloat64())
			}
		}
		for _, end := range []bool{true, false} {
			get32 := func(i, n int) []float32 {
				if end {
					return fences[i].atEnd32(n)
				}
				return fences[i].atStart32(n)
			}
			get := func(i, n int) []float64 {
				if end {
					return fences[i].atEnd(n)
				}
				return fences[i].atStart(n)
			}
			for _, n := range []int{1, 3, 5, 64, 65, 70} {
				for p := 1; p <= 13; p++ {
					for q := 1; q <= maxCols; q++ {
						for extra := 0; extra < 2; extra++ {
							lp, lq := p+extra, q+extra
							a, b, m := get32(0, (n-1)*lp+p), get32(1, (n-1)*lq+q), get(2, (p-1)*lq+q)
							fill32(a)
							fill32(b)
							AtB32(m, lq, a, lp, b, lq, n, p, q)
							x, y := get32(0, n), get(2, q)
							fill32(x)
							AtX32(y, b, lq, x, n, q)
						}
					}
				}
			}
		}
	})
}

// TestPageFenceAB2S32 is TestPageFence for AB2S32: C, A1 and A2 end at
// (or start at) a fence for every k and d of its kernels, in place and
// not (the last vector of C is a masked load, the packed B a stack copy).
func TestPageFenceAB2S32(t *testing.T) {
	const maxN, maxD = 19, 33
	fences := make([]*pageFenced, 3)
	for i := range fences {
		fences[i] = newPageFenced(t, maxN*(maxD+1))
	}
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(4, 5))
		fill32 := func(s []float32) {
			for i := range s {
				s[i] = float32(rng.NormFloat64())
			}
		}
		b1, b2 := make([]float32, maxD*maxD), make([]float32, maxD*maxD)
		fill32(b1)
		fill32(b2)
		for _, end := range []bool{true, false} {
			get32 := func(i, n int) []float32 {
				if end {
					return fences[i].atEnd32(n)
				}
				return fences[i].atStart32(n)
			}
			for _, n := range []int{1, 7, 8, 9, 19} {
				for k := 1; k <= maxD; k++ {
					for d := 1; d <= maxD; d++ {
						c, a1, a2 := get32(0, (n-1)*d+d), get32(1, (n-1)*k+k), get32(2, (n-1)*k+k)
						fill32(c)
						fill32(a1)
						fill32(a2)
						AB2S32(c, d, a1, k, b1, d, a2, k, b2, d, n, k, d)
						// In place: C is A1 (d columns of k = d).
						if k == d {
							AB2S32(a1, k, a1, k, b1, d, a2, k, b2, d, n, k, d)
						}
					}
				}
			}
		}
	})
}
