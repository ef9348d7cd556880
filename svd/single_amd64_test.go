//go:build amd64 && !purego

package svd

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/grlgq/grlgq/internal/cpu"
)

// TestPermIndices simulates the lane permutation of the single-matrix
// kernel on column labels: every round must pair the columns as one round
// of roundRobin does (as unordered pairs, in any lane order; the kernel
// goes round the circle the other way), each round once per sweep, and a
// sweep must bring every column back to its lane.
func TestPermIndices(t *testing.T) {
	for n := 3; n <= maxSmallAsm; n++ {
		w := NewSmall(n)
		x := w.asm
		m := n + n&1
		h := m / 2
		wv := x.wv
		idxL, idxR := permIndices(h, wv)
		// Lane contents: column label, or -1 for zero lanes (the dummy
		// column of odd n is label n).
		lanes := make([]int, 16*wv)
		for i := range lanes {
			lanes[i] = -1
		}
		for c := 0; c < m; c++ {
			p := 8*wv + (m - 1 - c)
			if c < h {
				p = c
			}
			lanes[p] = c
		}
		start := append([]int(nil), lanes...)
		// The rounds of roundRobin as sets of pairs.
		var rounds []map[[2]int]bool
		for r := 0; r < m-1; r++ {
			set := map[[2]int]bool{}
			for i := 0; i < h; i++ {
				p, q := player(i, r, m), player(m-1-i, r, m)
				if p < n && q < n {
					set[[2]int{min(p, q), max(p, q)}] = true
				}
			}
			rounds = append(rounds, set)
		}
		seen := map[int]bool{}
		for r := 0; r < m-1; r++ {
			got := map[[2]int]bool{}
			for i := 0; i < h; i++ {
				p, q := lanes[i], lanes[8*wv+i]
				if p < 0 || q < 0 {
					t.Fatalf("n=%d round %d: zero lane in pair %d", n, r, i)
				}
				if p >= n || q >= n {
					continue
				}
				got[[2]int{min(p, q), max(p, q)}] = true
			}
			found := -1
			for k, set := range rounds {
				if fmt.Sprint(set) == fmt.Sprint(got) && !seen[k] {
					found = k
				}
			}
			if found < 0 {
				t.Fatalf("n=%d round %d: pairs %v are no unseen round of roundRobin", n, r, got)
			}
			seen[found] = true
			// VPERMT2PD on the tables of the generator.
			next := make([]int, len(lanes))
			vec := func(v int) []int { return lanes[8*v : 8*v+8] }
			L := func(v int) []int { return vec(v) }
			R := func(v int) []int { return vec(wv + v) }
			perm := func(out []int, idx []int64, t1, t2 []int) {
				for j := range out {
					if idx[j] < 8 {
						out[j] = t1[idx[j]]
					} else {
						out[j] = t2[idx[j]-8]
					}
				}
			}
			for v := 0; v < wv; v++ {
				if v == 0 {
					perm(next[0:8], idxL[0:8], L(0), R(0))
				} else {
					perm(next[8*v:8*v+8], idxL[8*v:8*v+8], L(v-1), L(v))
				}
				o := next[8*(wv+v) : 8*(wv+v)+8]
				if v < wv-1 {
					perm(o, idxR[8*v:8*v+8], R(v), R(v+1))
				} else {
					perm(o, idxR[8*v:8*v+8], R(v), L(v))
				}
			}
			lanes = next
		}
		if fmt.Sprint(lanes) != fmt.Sprint(start) {
			t.Errorf("n=%d: after a sweep lanes %v, want %v", n, lanes, start)
		}
	}
}

// TestSingleKernelNoConvergence checks that the single-matrix kernels stop
// after maxSweeps and report it.
func TestSingleKernelNoConvergence(t *testing.T) {
	if !cpu.AVX512 {
		t.Skip("no AVX-512 (or capped by GRLGQ_KERNELS)")
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for _, n := range []int{12, 25} {
		w := NewSmall(n)
		x := w.asm
		a := gaussian(rng, n, n, n)
		for _, sweeps := range []int{1, MaxSweeps} {
			_, negl, ok := x.load(a, n, n)
			if !ok {
				t.Fatal("not finite")
			}
			x.params[sNegl] = negl
			var bad uint64
			if x.wv == 1 {
				bad = jacobi1W1AVX512(&x.buf[0], n, 0, x.m-1, &x.params, sweeps)
			} else {
				bad = jacobi1W2AVX512(&x.buf[0], n, 0, x.m-1, &x.params, sweeps)
			}
			if want := sweeps == 1; (bad != 0) != want {
				t.Errorf("n=%d maxSweeps=%d: not converged = %v, want %v", n, sweeps, bad != 0, want)
			}
		}
	}
}

// TestSortingNetwork checks the batch sorting network by the 0-1 principle
// (all 0-1 inputs for n <= 16) and on random inputs for larger n, through
// the AVX-512 kernel (8 lanes at once).
func TestSortingNetwork(t *testing.T) {
	if !cpu.AVX512 {
		t.Skip("no AVX-512 (or capped by GRLGQ_KERNELS)")
	}
	rng := rand.New(rand.NewPCG(8, 8))
	for n := 1; n <= MaxSmall; n++ {
		net := sortingNetwork(n)
		var offs []int32
		for _, c := range net {
			if !(c[0] < c[1] && c[1] < n) {
				t.Fatalf("n=%d: bad comparator %v", n, c)
			}
			offs = append(offs, int32(c[0]*64), int32(c[1]*64))
		}
		sv := aligned64(make([]float64, n*8+8), n*8)
		check := func(what string) {
			if len(offs) > 0 {
				sort8AVX512(&sv[0], &offs[0], len(offs)/2)
			}
			for l := 0; l < 8; l++ {
				for j := 1; j < n; j++ {
					if sv[j*8+l] > sv[(j-1)*8+l] {
						t.Fatalf("n=%d %s lane %d: not descending at %d", n, what, l, j)
					}
				}
			}
		}
		if n <= 16 {
			for m0 := 0; m0 < 1<<n; m0 += 8 {
				for l := 0; l < 8; l++ {
					m := m0 + l
					for j := 0; j < n; j++ {
						sv[j*8+l] = float64(m >> j & 1)
					}
				}
				check("0-1")
			}
		}
		for trial := 0; trial < 20; trial++ {
			for i := range sv {
				sv[i] = float64(rng.IntN(5))
			}
			check("random")
		}
	}
}

// TestTransposeAVX512 checks the gather transposition on odd shapes, its
// maximum and its non-finite detection.
func TestTransposeAVX512(t *testing.T) {
	if !cpu.AVX512 {
		t.Skip("no AVX-512 (or capped by GRLGQ_KERNELS)")
	}
	rng := rand.New(rand.NewPCG(9, 9))
	for _, sh := range [][2]int{{1, 1}, {7, 3}, {8, 8}, {9, 20}, {17, 5}, {784, 20}, {20, 784}} {
		rows, cols := sh[0], sh[1]
		lds, ldd := cols+3, rows+5
		src := gaussian(rng, rows, cols, lds)
		buf := guarded(cols * ldd)
		dst := buf[3 : 3+cols*ldd]
		for i := range dst {
			dst[i] = guard
		}
		got := transposeAVX512(&dst[0], ldd, &src[0], lds, rows, cols)
		want := 0.0
		for r := 0; r < rows; r++ {
			for c := 0; c < cols; c++ {
				want = math.Max(want, math.Abs(src[r*lds+c]))
				if dst[c*ldd+r] != src[r*lds+c] {
					t.Fatalf("%dx%d: dst[%d][%d] = %g, want %g", rows, cols, c, r, dst[c*ldd+r], src[r*lds+c])
				}
			}
		}
		if got != want {
			t.Errorf("%dx%d: max %g, want %g", rows, cols, got, want)
		}
		checkGuards(t, fmt.Sprintf("%dx%d", rows, cols), buf, 3, cols, rows, ldd)
		for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
			r, c := rows-1, cols/2
			old := src[r*lds+c]
			src[r*lds+c] = bad
			if got := transposeAVX512(&dst[0], ldd, &src[0], lds, rows, cols); got != -1 {
				t.Errorf("%dx%d with %g: %g, want -1", rows, cols, bad, got)
			}
			src[r*lds+c] = old
		}
	}
}

// TestDotsAxpy4 compares the AVX-512 dots4/axpy4 with the pure-Go ones on
// all tail lengths.
func TestDotsAxpy4(t *testing.T) {
	if !cpu.AVX512 {
		t.Skip("no AVX-512 (or capped by GRLGQ_KERNELS)")
	}
	rng := rand.New(rand.NewPCG(10, 10))
	saved := useAVX512
	defer func() { useAVX512 = saved }()
	for n := 1; n <= 70; n++ {
		ldy := n + 3
		y := gaussian(rng, 4, n, ldy)
		x := gaussian(rng, 1, n+1, n+1)
		var d1, d2 [lqBlock]float64
		useAVX512 = false
		dots4(&d1, y, ldy, x[:n])
		useAVX512 = true
		dots4(&d2, y, ldy, x[:n])
		for q := range d1 {
			if math.Abs(d1[q]-d2[q]) > 1e-13*float64(n) {
				t.Errorf("n=%d: dots4[%d] = %g, Go %g", n, q, d2[q], d1[q])
			}
		}
		f := [lqBlock]float64{0.5, -1, 2, 0.25}
		x1 := append([]float64(nil), x...)
		x2 := append([]float64(nil), x...)
		useAVX512 = false
		axpy4(x1[:n], y, ldy, &f)
		useAVX512 = true
		axpy4(x2[:n], y, ldy, &f)
		for i := range x1 {
			if math.Abs(x1[i]-x2[i]) > 1e-14*8 {
				t.Errorf("n=%d: axpy4[%d] = %g, Go %g", n, i, x2[i], x1[i])
			}
		}
		if x2[n] != x[n] {
			t.Errorf("n=%d: axpy4 wrote past the end", n)
		}
	}
}
