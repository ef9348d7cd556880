//go:build linux && amd64 && !purego

package svd

import (
	"math"
	"math/rand/v2"
	"syscall"
	"testing"
	"unsafe"

	"github.com/grlgq/grlgq/internal/cpu"
)

// fenced32 returns floats float32 of memory between two PROT_NONE pages,
// the first at the fence before it (start) or the last at the fence after
// it (!start): a kernel that reads or writes one float32 outside them
// faults.
func fenced32(t *testing.T, floats int, start bool) []float32 {
	t.Helper()
	page := syscall.Getpagesize()
	body := (4*floats + page - 1) / page * page
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
	b := mem[page : page+body]
	if !start {
		b = b[body-4*floats:]
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), floats)
}

// TestPageFenceJacobi32 runs the float32 Jacobi kernels (jacobi1S32,
// jacobi1Dual32 for 3 <= n <= 32, jacobi1Pack32 up to 16) with their
// buffer of exactly 2n rows and their params each ending at (then
// starting at) an unmapped page: an access beyond the rows or the params
// crashes the test binary. Each run must give the bits of the run on the
// workspace's own buffer.
func TestPageFenceJacobi32(t *testing.T) {
	if !cpu.AVX512 {
		t.Skip("no AVX-512")
	}
	rng := rand.New(rand.NewPCG(32, 32))
	type kernel struct {
		name  string
		maxN  int
		row   int
		setup func(n int) (buf []float32, params *[s32Len]float32, rounds int)
		run   func(buf *float32, n, rounds int, params *[s32Len]float32) uint64
	}
	load := func(buf []float32, row int, pos []int, n int) float64 {
		a := gaussian(rng, n, n, n)
		_, negl, ok := loadLanes32(buf, row, pos, a, n, n)
		if !ok {
			t.Fatal("loadLanes32 refused a finite matrix")
		}
		return negl
	}
	kernels := []kernel{
		{"jacobi1S32AVX512", maxSmall32, row32, func(n int) ([]float32, *[s32Len]float32, int) {
			x := newSmall32Asm(n)
			clear(x.buf)
			x.params[sNegl] = float32(load(x.buf, row32, x.pos, n))
			return x.buf, &x.params, x.m - 1
		}, func(buf *float32, n, rounds int, params *[s32Len]float32) uint64 {
			return jacobi1S32AVX512(buf, n, n, rounds, params, MaxSweeps)
		}},
		{"jacobi1Dual32AVX512", maxSmall32, dualRow32, func(n int) ([]float32, *[s32Len]float32, int) {
			x := newDual32Asm(n)
			clear(x.buf)
			x.params[sNegl] = float32(load(x.buf, dualRow32, x.pos[0], n))
			x.params[sNeg2] = float32(load(x.buf, dualRow32, x.pos[1], n))
			return x.buf, &x.params, x.m - 1
		}, func(buf *float32, n, rounds int, params *[s32Len]float32) uint64 {
			return jacobi1Dual32AVX512(buf, n, n, rounds, params, MaxSweeps)
		}},
		{"jacobi1Pack32AVX512", maxPack32, row32, func(n int) ([]float32, *[s32Len]float32, int) {
			x := newPack32Asm(n)
			clear(x.buf)
			for i := range x.pos {
				negl := float32(load(x.buf, row32, x.pos[i], n))
				for j := 0; j < 8; j++ {
					x.params[s32Negl+8*i+j] = negl
				}
			}
			return x.buf, &x.params, x.m - 1
		}, func(buf *float32, n, rounds int, params *[s32Len]float32) uint64 {
			return jacobi1Pack32AVX512(buf, n, n, rounds, params, MaxSweeps)
		}},
	}
	for _, k := range kernels {
		for n := 3; n <= k.maxN; n++ {
			buf, params, rounds := k.setup(n)
			if len(buf) != 2*n*k.row {
				t.Fatalf("%s n=%d: buffer of %d float32, want %d", k.name, n, len(buf), 2*n*k.row)
			}
			in, inParams := append([]float32(nil), buf...), *params
			if k.run(&buf[0], n, rounds, params) != 0 {
				t.Fatalf("%s n=%d: no convergence", k.name, n)
			}
			for _, start := range []bool{false, true} {
				fb := fenced32(t, len(in), start)
				copy(fb, in)
				fp := (*[s32Len]float32)(fenced32(t, s32Len, start))
				*fp = inParams
				if k.run(&fb[0], n, rounds, fp) != 0 {
					t.Fatalf("%s n=%d: no convergence at the fence", k.name, n)
				}
				for i := range fb {
					if math.Float32bits(fb[i]) != math.Float32bits(buf[i]) {
						t.Fatalf("%s n=%d (fence at start %v): buf[%d] = %g, the workspace's run %g", k.name, n, start, i, fb[i], buf[i])
					}
				}
				for i := range fp {
					if math.Float32bits(fp[i]) != math.Float32bits(params[i]) {
						t.Fatalf("%s n=%d (fence at start %v): params[%d] = %g, the workspace's run %g", k.name, n, start, i, fp[i], params[i])
					}
				}
			}
		}
	}
}

// TestPageFenceJacobi32AVX2 is TestPageFenceJacobi32 for the AVX2 float32
// kernels (jacobi1S32AVX2 up to n = 16, jacobi1S32W2AVX2 beyond, one
// matrix and a Pair's two; jacobi1Pack32AVX2 for a Pair up to 8): the
// buffer of the workspace's exact size, the params and the state each
// against an unmapped page, the bits of the workspace's own run.
func TestPageFenceJacobi32AVX2(t *testing.T) {
	if !cpu.AVX2 {
		t.Skip("no AVX2")
	}
	rng := rand.New(rand.NewPCG(33, 33))
	for n := 3; n <= maxSmall32; n++ {
		for mats := 1; mats <= 2; mats++ {
			x := newSmall32AVX2(n, mats)
			clear(x.buf)
			var negl [2]float64
			for i := 0; i < mats; i++ {
				a := gaussian(rng, n, n, n)
				var ok bool
				if _, negl[i], ok = loadLanes32(x.buf[i*x.off:], x.row, x.pos[i], a, n, n); !ok {
					t.Fatal("loadLanes32 refused a finite matrix")
				}
			}
			in := append([]float32(nil), x.buf...)
			if x.run(n, mats, negl) != 0 { // sets params' thresholds
				t.Fatalf("n=%d mats=%d: no convergence", n, mats)
			}
			kernel := jacobi1S32AVX2
			switch {
			case x.packed:
				kernel = jacobi1Pack32AVX2
			case x.wv == 2:
				kernel = jacobi1S32W2AVX2
			}
			runMats := mats
			if x.packed {
				runMats = 1
			}
			for _, start := range []bool{false, true} {
				fb := fenced32(t, len(in), start)
				copy(fb, in)
				fp := (*[a32Len]float32)(fenced32(t, a32Len, start))
				*fp = x.params
				fs := (*[256]float32)(fenced32(t, 256, start))
				if kernel(&fb[0], n, n, x.m-1, fp, fs, runMats, MaxSweeps) != 0 {
					t.Fatalf("n=%d mats=%d: no convergence at the fence", n, mats)
				}
				for i := range fb {
					if math.Float32bits(fb[i]) != math.Float32bits(x.buf[i]) {
						t.Fatalf("n=%d mats=%d (fence at start %v): buf[%d] = %g, the workspace's run %g", n, mats, start, i, fb[i], x.buf[i])
					}
				}
			}
		}
	}
}

// TestPageFenceAbsMax runs absMax4AVX512 and absMax4AVX2 on matrices that
// end at (then start at) an unmapped page, for n = 1..33 and row strides
// beyond n: a load past the last row's n-th column (or before the first)
// crashes the test binary. Both must find the magnitude planted as the
// largest.
func TestPageFenceAbsMax(t *testing.T) {
	if !cpu.AVX2 {
		t.Skip("no AVX2 (or capped by GRLGQ_KERNELS)")
	}
	rng := rand.New(rand.NewPCG(33, 33))
	for n := 1; n <= 33; n++ {
		for _, lda := range []int{n, n + 3} {
			size := (n-1)*lda + n
			for _, start := range []bool{false, true} {
				raw := fenced32(t, 2*size, start)
				m := unsafe.Slice((*float64)(unsafe.Pointer(&raw[0])), size)
				for i := range m {
					m[i] = rng.NormFloat64()
				}
				m[rng.IntN(n)*lda+rng.IntN(n)] = -9 // the largest magnitude
				src := [lanes4]*float64{&m[0], &m[0], &m[0], &m[0]}
				want := math.Float64bits(9)
				var tail [lanes4]uint64
				for l := 0; l < n%4; l++ {
					tail[l] = 1<<64 - 1
				}
				var bits [lanes4]uint64
				absMax4AVX2(&src, n, lda, &tail, &bits)
				if bits != [lanes4]uint64{want, want, want, want} {
					t.Fatalf("n=%d lda=%d: absMax4AVX2 %x, want %x", n, lda, bits, want)
				}
				if cpu.AVX512 {
					absMax4AVX512(&src, n, lda, &bits)
					if bits != [lanes4]uint64{want, want, want, want} {
						t.Fatalf("n=%d lda=%d: absMax4AVX512 %x, want %x", n, lda, bits, want)
					}
				}
			}
		}
	}
}
