package folds

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// oldValidationSplit is model.ValidationSplit before it called Take (the
// reference ValidationSplit must match bit for bit).
func oldValidationSplit(y []int, fraction float64, seed uint64) (train, val []int) {
	classes := 0
	for _, c := range y {
		classes = max(classes, c+1)
	}
	byClass := make([][]int, classes)
	for i, c := range y {
		byClass[c] = append(byClass[c], i)
	}
	src := rand.NewPCG(seed, 0x53504c54_00000000)
	isVal := make([]bool, len(y))
	for _, idx := range byClass {
		n := len(idx)
		if n < 2 {
			continue
		}
		nv := int(math.Round(fraction * float64(n)))
		nv = min(max(nv, 1), n-1)
		for i := n - 1; i > 0; i-- {
			k := uint64(i + 1)
			hi, lo := bits.Mul64(src.Uint64(), k)
			if lo < k {
				thresh := -k % k
				for lo < thresh {
					hi, lo = bits.Mul64(src.Uint64(), k)
				}
			}
			j := int(hi)
			idx[i], idx[j] = idx[j], idx[i]
		}
		for _, i := range idx[:nv] {
			isVal[i] = true
		}
	}
	for i, v := range isVal {
		if v {
			val = append(val, i)
		} else {
			train = append(train, i)
		}
	}
	return train, val
}

func randomLabels(rng *rand.Rand, n, classes int) []int {
	y := make([]int, n)
	for i := range y {
		y[i] = rng.IntN(classes)
	}
	return y
}

func TestTakeLemireMatchesValidationSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		y := randomLabels(rng, 1+rng.IntN(60), 1+rng.IntN(6))
		frac := []float64{0.01, 0.1, 0.2, 0.25, 0.5, 0.7, 0.99}[trial%7]
		seed := rng.Uint64()
		wantTr, wantVa := oldValidationSplit(y, frac, seed)
		va, tr := Take(ByClass(y), Fraction(frac), Lemire(rand.NewPCG(seed, 0x53504c54_00000000)))
		if !reflect.DeepEqual(tr, wantTr) || !reflect.DeepEqual(va, wantVa) {
			t.Fatalf("y=%v frac=%g: got %v|%v, want %v|%v", y, frac, tr, va, wantTr, wantVa)
		}
		tr, va = ValidationSplit(y, frac, seed)
		if !reflect.DeepEqual(tr, wantTr) || !reflect.DeepEqual(va, wantVa) {
			t.Fatalf("y=%v frac=%g: got %v|%v, want %v|%v", y, frac, tr, va, wantTr, wantVa)
		}
	}
}

func TestFractionEdges(t *testing.T) {
	for _, c := range []struct {
		frac    float64
		n, want int
	}{
		{0.25, 0, 0}, {0.25, 1, 0}, {0.01, 2, 1}, {0.99, 2, 1}, {0.25, 10, 3}, {0.25, 6, 2}, // 1.5 rounds up
		{0.5, 5, 3}, {0, 10, 0}, {-1, 10, 0}, {math.NaN(), 10, 0}, {1, 10, 9}, {0.3, 100, 30},
	} {
		if got := Fraction(c.frac)(c.n); got != c.want {
			t.Errorf("Fraction(%g)(%d) = %d, want %d", c.frac, c.n, got, c.want)
		}
	}
	for _, c := range []struct{ count, n, want int }{{5, 10, 5}, {5, 5, 5}, {5, 3, 3}, {0, 3, 0}, {-1, 3, 0}} {
		if got := PerClass(c.count)(c.n); got != c.want {
			t.Errorf("PerClass(%d)(%d) = %d, want %d", c.count, c.n, got, c.want)
		}
	}
}

func TestTakePartition(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	y := randomLabels(rng, 200, 5)
	by := ByClass(y)
	keep := slices.Clone(by[0])
	taken, rest := Take(by, PerClass(7), rand.New(rand.NewPCG(5, 6)))
	if !slices.Equal(by[0], keep) {
		t.Fatal("Take changed byClass")
	}
	if !slices.IsSorted(taken) || !slices.IsSorted(rest) {
		t.Fatal("parts not ascending")
	}
	all := append(slices.Clone(taken), rest...)
	slices.Sort(all)
	for i, v := range all {
		if v != i {
			t.Fatalf("taken+rest is not 0..n-1: %v", all)
		}
	}
	cnt := make([]int, 5)
	for _, i := range taken {
		cnt[y[i]]++
	}
	for c, n := range cnt {
		if n != min(7, len(by[c])) {
			t.Errorf("class %d: %d taken, want 7", c, n)
		}
	}
	// Same stream, same parts; another stream, other parts.
	t2, _ := Take(by, PerClass(7), rand.New(rand.NewPCG(5, 6)))
	t3, _ := Take(by, PerClass(7), rand.New(rand.NewPCG(5, 7)))
	if !slices.Equal(taken, t2) || slices.Equal(taken, t3) {
		t.Fatal("Take is not a function of its stream")
	}
}

func TestDealAndParts(t *testing.T) {
	y := []int{0, 0, 0, 1, 1, 2} // class 2 smaller than k
	fold := Deal(len(y), ByClass(y), 3, rand.New(rand.NewPCG(1, 1)))
	held, rest := Parts(fold, 3)
	for f := range 3 {
		if len(held[f]) != 2 || len(rest[f]) != 4 {
			t.Fatalf("fold %d: held %v rest %v", f, held[f], rest[f])
		}
	}
	// k > n: empty folds are nil held parts.
	held, _ = Parts(Deal(2, [][]int{{0, 1}}, 4, rand.New(rand.NewPCG(1, 1))), 4)
	if held[2] != nil || held[3] != nil {
		t.Fatalf("empty folds: %v", held)
	}
}

func TestByClass(t *testing.T) {
	if got := ByClass([]int{2, 0, 2}); !reflect.DeepEqual(got, [][]int{{1}, nil, {0, 2}}) {
		t.Fatalf("ByClass = %v", got)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("negative label: no panic")
		}
	}()
	ByClass([]int{0, -1})
}

func TestTooSmall(t *testing.T) {
	by := [][]int{{0, 1, 2}, {3, 4}, nil, {5}}
	for _, c := range []struct{ k, class, size int }{{1, 2, 0}, {2, 2, 0}, {3, 1, 2}} {
		if cl, n := TooSmall(by, c.k); cl != c.class || n != c.size {
			t.Errorf("TooSmall(k=%d) = %d, %d, want %d, %d", c.k, cl, n, c.class, c.size)
		}
	}
	if cl, _ := TooSmall(by[:2], 2); cl != -1 {
		t.Errorf("TooSmall = %d, want -1", cl)
	}
}

// TestShuffledRules: RoundRobin partitions every class's items over the
// folds from fold 0, in shuffled order; Split keeps the shuffled order and
// Take is Split sorted, from the same draws.
func TestShuffledRules(t *testing.T) {
	labels := []int{0, 1, 2, 0, 1, 0, 0, 2, 1, 0, 2, 2, 0}
	by := ByClass(labels)
	sh := Shuffled(by, rand.New(rand.NewPCG(3, 4)))
	for c := range by {
		if !slices.Equal(slices.Sorted(slices.Values(sh[c])), by[c]) {
			t.Fatalf("class %d: shuffled %v is not a permutation of %v", c, sh[c], by[c])
		}
	}
	const k = 3
	rr := RoundRobin(sh, k)
	seen := make([]int, len(labels))
	for j, f := range rr {
		for _, i := range f {
			seen[i]++
		}
		// fold j holds items j, j+k, ... of every class's shuffle, class by class.
		var want []int
		for _, p := range sh {
			for n := j; n < len(p); n += k {
				want = append(want, p[n])
			}
		}
		if !slices.Equal(f, want) {
			t.Errorf("fold %d = %v, want %v", j, f, want)
		}
	}
	for i, n := range seen {
		if n != 1 {
			t.Errorf("item %d in %d folds", i, n)
		}
	}
	taken, rest := Split(sh, PerClass(2))
	if len(taken) != 2*len(by) || len(taken)+len(rest) != len(labels) {
		t.Fatalf("Split: %d taken, %d rest", len(taken), len(rest))
	}
	if !slices.Equal(taken[:2], sh[0][:2]) || !slices.Equal(rest[:len(sh[0])-2], sh[0][2:]) {
		t.Errorf("Split does not keep the shuffled order: %v %v from %v", taken, rest, sh)
	}
	tt, tr := Take(by, PerClass(2), rand.New(rand.NewPCG(3, 4)))
	if !slices.Equal(tt, slices.Sorted(slices.Values(taken))) || !slices.Equal(tr, slices.Sorted(slices.Values(rest))) {
		t.Errorf("Take %v %v is not Split sorted (%v %v)", tt, tr, taken, rest)
	}
}
