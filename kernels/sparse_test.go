package kernels

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// Zero patterns of the row a tried by the SparseAB tests.
const (
	patAllZero     = iota // every entry ±0
	patOne                // one nonzero (position from the rng)
	patFirstLast          // nonzeros at 0 and k-1 only
	patAlternating        // every other entry nonzero
	patRuns               // runs of nonzeros and zeros (strokes of a digit)
	patNegZeros           // like patRuns, the zeros -0
	patSubnormal          // like patRuns, the nonzeros subnormal or tiny
	patRandom             // about 20% nonzero, anywhere
	patDense              // no zero at all
	numPatterns
)

// sparseRow fills a[:k] with the pattern: nonzeros N(0,1) scaled by 2^±mag
// (mag <= 60), zeros +0 (or -0 where the pattern says).
func sparseRow(rng *rand.Rand, a []float64, pat int, mag uint8) {
	k := len(a)
	e := int(mag % 61)
	val := func() float64 {
		v := math.Ldexp(rng.NormFloat64(), rng.IntN(2*e+1)-e)
		if v == 0 {
			v = 1
		}
		return v
	}
	clear(a)
	switch pat {
	case patOne:
		if k > 0 {
			a[rng.IntN(k)] = val()
		}
	case patFirstLast:
		if k > 0 {
			a[0], a[k-1] = val(), val()
		}
	case patAlternating:
		for i := 1; i < k; i += 2 {
			a[i] = val()
		}
	case patRuns, patNegZeros, patSubnormal:
		for i := 0; i < k; {
			on := rng.IntN(4) == 0
			n := 1 + rng.IntN(9)
			for ; n > 0 && i < k; n, i = n-1, i+1 {
				switch {
				case on && pat == patSubnormal && rng.IntN(2) == 0:
					a[i] = math.Ldexp(rng.NormFloat64(), -1060) // subnormal
				case on && pat == patSubnormal:
					a[i] = math.Ldexp(rng.NormFloat64(), -1000)
				case on:
					a[i] = val()
				case pat == patNegZeros:
					a[i] = math.Copysign(0, -1)
				}
			}
		}
	case patRandom:
		for i := range a {
			if rng.IntN(5) == 0 {
				a[i] = val()
			}
		}
	case patDense:
		for i := range a {
			a[i] = val()
		}
	case patAllZero:
		for i := range a {
			if rng.IntN(2) == 0 {
				a[i] = math.Copysign(0, -1)
			}
		}
	}
}

// listNonzeros lists the nonzero entries of a: ascending indices and values.
func listNonzeros(a []float64) ([]int32, []float64) {
	var idx []int32
	var val []float64
	for i, v := range a {
		if v != 0 {
			idx = append(idx, int32(i))
			val = append(val, v)
		}
	}
	return idx, val
}

// sameUpToZeroSign reports whether x and y have the same bits, or are both
// zero.
func sameUpToZeroSign(x, y float64) bool {
	return math.Float64bits(x) == math.Float64bits(y) || (x == 0 && y == 0)
}

// checkSparseAB runs SparseAB on the nonzeros of row a (k entries) against
// the k x nc matrix b (stride ldb), with guards around val, b and c, and
// checks: the bits of AB on the dense row (up to the sign of zeros), the
// plain loop within tol, guards, read-only inputs. align shifts val, b
// and c.
func checkSparseAB(t *testing.T, name string, rng *rand.Rand, a []float64, b *matrix, nc, align int) {
	t.Helper()
	k, ldb := len(a), b.ld
	idxs, vals := listNonzeros(a)
	val := newMatrix(rng, 1, len(vals), len(vals), align%4, false)
	copy(val.buf[val.off:], vals)
	// idx gets guard rows before and after that are out of range.
	idxBuf := make([]int32, len(idxs)+2*guardLen)
	for i := range idxBuf {
		idxBuf[i] = -1
	}
	copy(idxBuf[guardLen:], idxs)
	idx := idxBuf[guardLen : guardLen+len(idxs) : guardLen+len(idxs)]
	arow := newMatrix(rng, 1, k, k, 0, false)
	copy(arow.buf[arow.off:], a)
	c := newMatrix(rng, 1, nc, nc, (align/4)%4, true)
	cd := newMatrix(rng, 1, nc, nc, 0, true)
	vb, bb := val.bits(), b.bits()
	idxBefore := append([]int32(nil), idxBuf...)

	SparseAB(c.data(), val.data(), idx, b.data(), ldb, nc)
	AB(cd.data(), nc, arow.data(), k, b.data(), ldb, 1, k, nc)

	val.checkUnchanged(t, name+": val", vb)
	b.checkUnchanged(t, name+": B", bb)
	for i := range idxBuf {
		if idxBuf[i] != idxBefore[i] {
			t.Fatalf("%s: idx changed at %d", name, i)
		}
	}
	c.checkGuards(t, name+": C")
	for j := 0; j < nc; j++ {
		got, dense := c.at(0, j), cd.at(0, j)
		if !sameUpToZeroSign(got, dense) {
			t.Fatalf("%s: C[%d] = %v (%#x), AB on the dense row %v (%#x)", name, j, got, math.Float64bits(got), dense, math.Float64bits(dense))
		}
		var want, scale float64
		for l := 0; l < k; l++ {
			p := a[l] * b.at(l, j)
			want += p
			scale += math.Abs(p)
		}
		if !near(got, want, scale) {
			t.Fatalf("%s: C[%d] = %v, plain loop %v", name, j, got, want)
		}
	}
	// The twins: the generic SparseAB has the bits of the generic AB.
	cg := make([]float64, nc)
	cgd := make([]float64, nc)
	sparseABGeneric(cg, vals, idxs, b.data(), ldb, nc)
	abGeneric(cgd, nc, a, k, b.data(), ldb, 1, k, nc)
	for j := range cg {
		if !sameUpToZeroSign(cg[j], cgd[j]) {
			t.Fatalf("%s: generic C[%d] = %v, generic AB %v", name, j, cg[j], cgd[j])
		}
	}
}

func TestSparseAB(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 20))
		ncs := []int{1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 24, 25, 31, 32, 33, 36, 40, 47, 48, 49, 56, 60, 63, 64, 65, 96, 100, 129}
		if testing.Short() {
			ncs = []int{1, 4, 5, 12, 33, 48, 60, 64, 65, 96}
		}
		ci := 0
		for _, k := range nList {
			for _, nc := range ncs {
				for pat := 0; pat < numPatterns; pat++ {
					ci++
					ldb := ldFor(nc, ci)
					b := newMatrix(rng, k, nc, ldb, (ci/3)%4, false)
					a := make([]float64, k)
					sparseRow(rng, a, pat, uint8(ci%40))
					name := fmt.Sprintf("k=%d nc=%d ldb=%d pattern=%d", k, nc, ldb, pat)
					checkSparseAB(t, name, rng, a, b, nc, ci)
				}
			}
		}
	})
}

// TestSparseABEngineShape is the engine's shape: a chunk of prototypes side
// by side (stride a multiple of 8, wider than the columns) and MNIST-like
// rows.
func TestSparseABEngineShape(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 21))
		for _, s := range []struct{ nc, ldb int }{{60, 64}, {96, 120}, {24, 32}, {12, 24}, {120, 120}} {
			b := newMatrix(rng, 784, s.nc, s.ldb, 0, false)
			for pat := 0; pat < numPatterns; pat++ {
				a := make([]float64, 784)
				sparseRow(rng, a, pat, 0)
				checkSparseAB(t, fmt.Sprintf("nc=%d ldb=%d pattern=%d", s.nc, s.ldb, pat), rng, a, b, s.nc, pat)
			}
		}
	})
}

// TestSparseABOrder: the listed rows are summed in list order, whatever it
// is (repeats and descending too), like the generic twin.
func TestSparseABOrder(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 22))
		const k, nc = 50, 37
		b := newMatrix(rng, k, nc, nc, 1, false)
		idx := []int32{49, 3, 3, 17, 0, 49, 22}
		val := make([]float64, len(idx))
		for i := range val {
			val[i] = rng.NormFloat64()
		}
		c := make([]float64, nc)
		SparseAB(c, val, idx, b.data(), nc, nc)
		for j := 0; j < nc; j++ {
			var want, scale float64
			for i, r := range idx {
				p := val[i] * b.at(int(r), j)
				want += p
				scale += math.Abs(p)
			}
			if !near(c[j], want, scale) {
				t.Fatalf("C[%d] = %v, plain loop %v", j, c[j], want)
			}
		}
	})
}

// TestSparseABBadIndex: an index outside B panics on every path, before
// anything is written.
func TestSparseABBadIndex(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		const k, nc = 10, 20
		b := make([]float64, (k-1)*24+nc)
		for _, bad := range []int32{-1, k, 1 << 30, math.MinInt32} {
			idx := []int32{0, 3, bad}
			val := []float64{1, 2, 3}
			c := make([]float64, nc)
			func() {
				defer func() {
					if recover() == nil {
						t.Errorf("index %d: no panic", bad)
					}
				}()
				SparseAB(c, val, idx, b, 24, nc)
			}()
		}
	})
}

func TestSparseABNoAllocs(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 23))
		b := newMatrix(rng, 784, 60, 64, 0, false).data()
		a := make([]float64, 784)
		sparseRow(rng, a, patRuns, 0)
		idx, val := listNonzeros(a)
		c := make([]float64, 60)
		if allocs := testing.AllocsPerRun(20, func() { SparseAB(c, val, idx, b, 64, 60) }); allocs != 0 {
			t.Errorf("%v allocations per call, want 0", allocs)
		}
	})
}

func FuzzSparseAB(f *testing.F) {
	f.Add(uint16(784), uint8(60), uint8(4), uint8(0), uint8(patRuns), uint8(0), uint64(1))
	f.Add(uint16(17), uint8(33), uint8(1), uint8(3), uint8(patAlternating), uint8(30), uint64(2))
	f.Fuzz(func(t *testing.T, k16 uint16, nc8, sb, off, pat, mag uint8, seed uint64) {
		k, nc := int(k16%2000), 1+int(nc8%140)
		ldb := fuzzLD(nc, sb)
		rng := rand.New(rand.NewPCG(seed, 20))
		b := fuzzMatrix(rng, k, nc, ldb, int(sb/5%4), mag)
		a := make([]float64, k)
		sparseRow(rng, a, int(pat%numPatterns), mag)
		forEachImplNoSubtest(func(name string) {
			checkSparseAB(t, fmt.Sprintf("%s: k=%d nc=%d ldb=%d pattern=%d", name, k, nc, ldb, pat%numPatterns), rng, a, b, nc, int(off))
		})
	})
}

func TestNonzeros(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 24))
		var ns []int
		for n := 0; n <= 41; n++ {
			ns = append(ns, n)
		}
		ns = append(ns, 63, 64, 65, 400, 784, 785, 4096)
		for ci, n := range ns {
			for pat := 0; pat < numPatterns; pat++ {
				x := newMatrix(rng, 1, n, n, (ci+pat)%4, false)
				a := make([]float64, n)
				sparseRow(rng, a, pat, uint8(pat*7))
				if pat == patRandom && n > 3 {
					a[n/2] = math.NaN() // listed: NaN != 0
				}
				copy(x.buf[x.off:], a)
				xb := x.bits()
				wantIdx, wantVal := listNonzeros(a)
				// Outputs with guards after len(x) entries: never written.
				idxBuf := make([]int32, n+guardLen)
				for i := range idxBuf {
					idxBuf[i] = -7
				}
				val := newMatrix(rng, 1, n, n, (ci+pat+1)%4, true)
				got := Nonzeros(idxBuf[:n], val.data(), x.data())
				name := fmt.Sprintf("n=%d pattern=%d", n, pat)
				x.checkUnchanged(t, name+": x", xb)
				val.checkGuards(t, name+": val")
				for i := n; i < len(idxBuf); i++ {
					if idxBuf[i] != -7 {
						t.Fatalf("%s: idx[%d] written", name, i)
					}
				}
				if got != len(wantIdx) {
					t.Fatalf("%s: %d nonzeros, want %d", name, got, len(wantIdx))
				}
				for i := 0; i < got; i++ {
					if idxBuf[i] != wantIdx[i] || math.Float64bits(val.at(0, i)) != math.Float64bits(wantVal[i]) {
						t.Fatalf("%s: entry %d = (%d, %v), want (%d, %v)", name, i, idxBuf[i], val.at(0, i), wantIdx[i], wantVal[i])
					}
				}
			}
		}
	})
}

func FuzzNonzeros(f *testing.F) {
	f.Add(uint16(784), uint8(patRuns), uint8(0), uint64(1))
	f.Add(uint16(13), uint8(patNegZeros), uint8(3), uint64(2))
	f.Fuzz(func(t *testing.T, n16 uint16, pat, off uint8, seed uint64) {
		n := int(n16 % 5000)
		rng := rand.New(rand.NewPCG(seed, 25))
		a := make([]float64, n)
		sparseRow(rng, a, int(pat%numPatterns), 20)
		x := newMatrix(rng, 1, n, n, int(off%4), false)
		copy(x.buf[x.off:], a)
		wantIdx, wantVal := listNonzeros(a)
		forEachImplNoSubtest(func(name string) {
			idx := make([]int32, n)
			val := newMatrix(rng, 1, n, n, int(off/4%4), true)
			got := Nonzeros(idx, val.data(), x.data())
			val.checkGuards(t, name+": val")
			if got != len(wantIdx) {
				t.Fatalf("%s: n=%d: %d nonzeros, want %d", name, n, got, len(wantIdx))
			}
			for i := 0; i < got; i++ {
				if idx[i] != wantIdx[i] || math.Float64bits(val.at(0, i)) != math.Float64bits(wantVal[i]) {
					t.Fatalf("%s: n=%d: entry %d = (%d, %v), want (%d, %v)", name, n, i, idx[i], val.at(0, i), wantIdx[i], wantVal[i])
				}
			}
		})
	})
}

// TestSparseABBlocks checks SparseABBlocks against SparseAB on each block
// alone (the same bits, zeros' signs included) on every implementation,
// over the column counts of one to six vectors and beyond (one block at a
// time there), 1 to 11 blocks (groups of 2 to 4 and the splits between
// them), the zero patterns, blocks one after another (a prototype's own
// block, padded or not) and side by side (a wide matrix, bs = nc), with
// guards around B and C, and that an index outside the rows panics.
func TestSparseABBlocks(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		rng := rand.New(rand.NewPCG(1, 22))
		ncs := []int{1, 2, 3, 4, 5, 7, 8, 9, 12, 13, 16, 20, 23, 24, 25, 30}
		ks := []int{1, 7, 50}
		if testing.Short() {
			ncs, ks = []int{1, 5, 8, 12, 24, 25}, []int{7, 50}
		}
		ci := 0
		for _, k := range ks {
			for _, nc := range ncs {
				for nblk := 1; nblk <= 11; nblk++ {
					for _, wide := range []bool{false, true} {
						ci++
						pat := ci % numPatterns
						a := make([]float64, k)
						sparseRow(rng, a, pat, uint8(ci%40))
						idx, val := listNonzeros(a)
						var b *matrix
						var ldb, bs int
						if wide {
							ldb, bs = nblk*nc+ci%3, nc
							b = newMatrix(rng, k, nblk*nc, ldb, ci%4, false)
						} else {
							pad := ci % 2
							ldb = nc + (ci/2)%3
							bs = (k + pad) * ldb
							b = newMatrix(rng, (nblk-1)*(k+pad)+k, nc, ldb, ci%4, false)
						}
						c := newMatrix(rng, 1, nblk*nc, nblk*nc, (ci/4)%4, true)
						bb := b.bits()
						name := fmt.Sprintf("k=%d nc=%d nblk=%d wide=%v pattern=%d", k, nc, nblk, wide, pat)
						SparseABBlocks(c.data(), val, idx, b.data(), ldb, bs, nblk, nc)
						b.checkUnchanged(t, name+": B", bb)
						c.checkGuards(t, name+": C")
						one := make([]float64, nc)
						for blk := 0; blk < nblk; blk++ {
							SparseAB(one, val, idx, b.data()[blk*bs:], ldb, nc)
							for j, want := range one {
								if got := c.at(0, blk*nc+j); math.Float64bits(got) != math.Float64bits(want) {
									t.Fatalf("%s: block %d C[%d] = %v, SparseAB alone %v", name, blk, j, got, want)
								}
							}
						}
					}
				}
			}
		}
		// An index past the last block's rows panics (before any block is
		// written on AVX2, after the first two in the generic loop).
		b := newMatrix(rng, 3*10, 8, 8, 0, false)
		c := newMatrix(rng, 1, 3*8, 3*8, 0, true)
		func() {
			defer func() {
				if recover() == nil {
					t.Error("SparseABBlocks: row 10 of blocks of 10 rows did not panic")
				}
			}()
			SparseABBlocks(c.data(), []float64{1, 2}, []int32{3, 10}, b.data(), 8, 80, 3, 8)
		}()
		c.checkGuards(t, "out of range: C")
	})
}
