package baseline

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/subspace"
)

// gonumAngles returns the principal angles between the spans of a and b
// (ascending) from gonum's SVD of aᵀb.
func gonumAngles(t testing.TB, a, b *linalg.Dense) []float64 {
	t.Helper()
	am := mat.NewDense(a.Rows, a.Cols, nil)
	bm := mat.NewDense(b.Rows, b.Cols, nil)
	for r := range a.Rows {
		for c := range a.Cols {
			am.Set(r, c, a.At(r, c))
		}
		for c := range b.Cols {
			bm.Set(r, c, b.At(r, c))
		}
	}
	var m mat.Dense
	m.Mul(am.T(), bm)
	var s mat.SVD
	if !s.Factorize(&m, mat.SVDNone) {
		t.Fatal("gonum SVD failed")
	}
	v := s.Values(nil)
	th := make([]float64, len(v))
	for k, c := range v {
		th[k] = math.Acos(min(max(c, 0), 1))
	}
	return th
}

// withAngles returns a D x d basis Y whose principal angles to the D x 2d
// basis's first d columns X are theta: Y = X cos Θ + X⊥ sin Θ, with X⊥ the
// next d columns, then rotated by a random orthogonal d x d matrix (the
// span, hence the angles, is unchanged).
func withAngles(t testing.TB, q *linalg.Dense, theta []float64, rng *rand.Rand) (x, y *linalg.Dense) {
	t.Helper()
	dim, d := q.Rows, len(theta)
	x, y0 := linalg.NewDense(dim, d), linalg.NewDense(dim, d)
	for r := range dim {
		for k := range d {
			x.Set(r, k, q.At(r, k))
			y0.Set(r, k, q.At(r, k)*math.Cos(theta[k])+q.At(r, d+k)*math.Sin(theta[k]))
		}
	}
	rot := linalg.NewDense(d, d)
	if err := linalg.RandomOrthonormal(rot, rng); err != nil {
		t.Fatal(err)
	}
	y = linalg.NewDense(dim, d)
	for r := range dim {
		for j := range d {
			var s float64
			for k := range d {
				s += y0.At(r, k) * rot.At(k, j)
			}
			y.Set(r, j, s)
		}
	}
	return x, y
}

func sub(b *linalg.Dense) *subspace.Subspace { return &subspace.Subspace{Basis: b} }

// checkMeasures compares the table's values for (i, j) with those computed
// from the angles th (ascending).
func checkMeasures(t *testing.T, p *Pairs, i, j int, th []float64, tolAngle, tolCos float64) {
	t.Helper()
	var geo, chord, kern float64
	for _, v := range th {
		geo += v * v
		chord += math.Sin(v) * math.Sin(v)
		kern += math.Cos(v) * math.Cos(v)
	}
	// Squared angles: an error e in θ moves θ² by 2θe.
	if got := p.Distance(Geodesic, i, j); math.Abs(got-geo) > 2*tolAngle*math.Sqrt(geo*float64(len(th)))+tolAngle*tolAngle*float64(len(th)) {
		t.Errorf("(%d,%d) geodesic %.17g, want %.17g", i, j, got, geo)
	}
	if got := p.Distance(Chordal, i, j); math.Abs(got-chord) > tolCos {
		t.Errorf("(%d,%d) chordal %.17g, want %.17g", i, j, got, chord)
	}
	if got := p.Distance(FirstAngle, i, j); math.Abs(got-th[0]) > tolAngle {
		t.Errorf("(%d,%d) first angle %.17g, want %.17g", i, j, got, th[0])
	}
	if got := p.Kernel(i, j); math.Abs(got-kern) > tolCos {
		t.Errorf("(%d,%d) kernel %.17g, want %.17g", i, j, got, kern)
	}
	if p.Distance(Geodesic, i, j) != p.Distance(Geodesic, j, i) || p.Kernel(i, j) != p.Kernel(j, i) {
		t.Errorf("(%d,%d) not symmetric", i, j)
	}
}

// TestPairsKnownAngles builds pairs with prescribed principal angles
// (random, tiny, near a right angle, repeated, zero) and checks every
// measure against them.
func TestPairsKnownAngles(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, tc := range []struct {
		dim   int
		theta []float64
	}{
		{50, []float64{0.1, 0.4, 0.9, 1.2, 1.5}},
		{50, []float64{1e-4, 2e-4, 3e-3, 0.5, 1.5707}},
		{37, []float64{0, 0, 0.3}},
		{9, []float64{0.7, 0.7, 0.7, 0.7}},
		{13, []float64{math.Pi / 2, math.Pi / 2}},
		{3, []float64{0.25}},
		{64, []float64{0.01, 0.02, 0.03, 0.05, 0.08, 0.13, 0.21, 0.34, 0.55, 0.89, 1.0, 1.1, 1.2, 1.3, 1.4, 1.45, 1.5, 1.52, 1.54, 1.56, 1.565, 1.566, 1.567, 1.568, 1.569, 1.57, 1.5705, 1.5706, 1.5707, 1.57075}},
	} {
		d := len(tc.theta)
		q := linalg.NewDense(tc.dim, 2*d)
		if err := linalg.RandomOrthonormal(q, rng); err != nil {
			t.Fatal(err)
		}
		x, y := withAngles(t, q, tc.theta, rng)
		p, err := NewPairs(context.Background(), []*subspace.Subspace{sub(x), sub(y)}, 1)
		if err != nil {
			t.Fatal(err)
		}
		th := slices.Clone(tc.theta)
		slices.Sort(th)
		// σ is within 4 d u of exact (svd's contract) plus the rounding
		// of the bases; θ = arccos σ amplifies an error e in σ to e/sin θ,
		// and sqrt(2e) at θ = 0.
		checkMeasures(t, p, 0, 1, th, 2e-7, 1e-13)
		checkMeasures(t, p, 0, 0, make([]float64, d), 2e-7, 1e-13)
		if th[0] >= 1e-4 && math.Abs(p.Distance(FirstAngle, 0, 1)-th[0]) > 1e-10 {
			t.Errorf("θ=%v: first angle %.17g", th, p.Distance(FirstAngle, 0, 1))
		}
	}
}

// TestPairsGonum compares every pair of random and related subspaces, and
// of single images, with angles from gonum's SVD.
func TestPairsGonum(t *testing.T) {
	for _, tc := range []struct{ dim, d, n int }{{40, 5, 9}, {17, 1, 12}, {30, 8, 7}, {70, 25, 5}, {70, 64, 3}} {
		x, _ := synth(t, 3, (tc.n+2)/3, tc.dim, tc.d, min(tc.d+1, tc.dim), 0.3, uint64(tc.dim))
		p, err := NewPairs(context.Background(), x, 2)
		if err != nil {
			t.Fatal(err)
		}
		for i := range x {
			for j := i; j < len(x); j++ {
				th := gonumAngles(t, x[i].Basis, x[j].Basis)
				checkMeasures(t, p, i, j, th, 1e-7, 1e-13*float64(tc.d))
			}
		}
	}
	// Single images: the 1-D subspaces x/‖x‖.
	rng := rand.New(rand.NewPCG(5, 5))
	var imgs []*subspace.Subspace
	for range 10 {
		v := make([]float64, 31)
		for i := range v {
			v[i] = rng.Float64()
		}
		s, err := subspace.FromImage(v)
		if err != nil {
			t.Fatal(err)
		}
		imgs = append(imgs, s)
	}
	p, err := NewPairs(context.Background(), imgs, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i := range imgs {
		for j := range imgs {
			a, b := imgs[i].Basis, imgs[j].Basis
			var dot float64
			for r := range a.Rows {
				dot += a.At(r, 0) * b.At(r, 0)
			}
			th := math.Acos(min(math.Abs(dot), 1))
			checkMeasures(t, p, i, j, []float64{th}, 1e-7, 1e-13)
		}
	}
}

// TestPairsDeterministic: the table is bit-identical for 1, 2 and 5
// workers.
func TestPairsDeterministic(t *testing.T) {
	x, _ := synth(t, 5, 9, 60, 6, 7, 0.5, 11)
	ref, err := NewPairs(context.Background(), x, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []int{2, 5, 0} {
		p, err := NewPairs(context.Background(), x, w)
		if err != nil {
			t.Fatal(err)
		}
		for k := range ref.dist {
			if !slices.Equal(bits(ref.dist[k]), bits(p.dist[k])) {
				t.Errorf("workers %d: %v differs from 1 worker", w, Distance(k))
			}
		}
		if !slices.Equal(bits(ref.proj), bits(p.proj)) {
			t.Errorf("workers %d: kernel differs from 1 worker", w)
		}
	}
}

func bits(x []float64) []uint64 {
	b := make([]uint64, len(x))
	for i, v := range x {
		b[i] = math.Float64bits(v)
	}
	return b
}

// TestPairsRowAllocs: a row of the table allocates nothing.
func TestPairsRowAllocs(t *testing.T) {
	x, _ := synth(t, 2, 20, 50, 4, 5, 0.5, 2)
	p, err := NewPairs(context.Background(), x, 1)
	if err != nil {
		t.Fatal(err)
	}
	w := newPairWork()
	c := cols(len(x))[3:]
	if a := testing.AllocsPerRun(20, func() {
		if err := w.row(p, x, 3, c); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("row: %v allocations", a)
	}
}

// TestPairsHostile: malformed samples are errors naming the sample, never
// panics.
func TestPairsHostile(t *testing.T) {
	x, _ := synth(t, 2, 3, 20, 3, 4, 0.5, 4)
	ctx := context.Background()
	mod := func(f func(x []*subspace.Subspace)) []*subspace.Subspace {
		c := make([]*subspace.Subspace, len(x))
		for i, s := range x {
			b := linalg.NewDense(s.Basis.Rows, s.Basis.Cols)
			b.CopyFrom(s.Basis)
			c[i] = sub(b)
		}
		f(c)
		return c
	}
	nan := mod(func(c []*subspace.Subspace) { c[4].Basis.Set(7, 1, math.NaN()) })
	inf := mod(func(c []*subspace.Subspace) { c[2].Basis.Set(0, 0, math.Inf(-1)) })
	huge := mod(func(c []*subspace.Subspace) { c[2].Basis.Set(0, 0, 1e308) })
	skew := mod(func(c []*subspace.Subspace) { c[1].Basis.Set(3, 2, c[1].Basis.At(3, 2)+1e-3) })
	otherD := mod(func(c []*subspace.Subspace) { c[3] = sub(linalg.NewDense(21, 3)) })
	short := mod(func(c []*subspace.Subspace) { c[5].Basis.Data = c[5].Basis.Data[:10] })
	stride := mod(func(c []*subspace.Subspace) { c[5].Basis.Stride = 2 })
	nilSub := mod(func(c []*subspace.Subspace) { c[1] = nil })
	nilBasis := mod(func(c []*subspace.Subspace) { c[1] = &subspace.Subspace{} })
	wide := []*subspace.Subspace{sub(linalg.NewDense(3, 4))}
	tooBig := []*subspace.Subspace{sub(linalg.NewDense(100, 65))}
	many := make([]*subspace.Subspace, MaxSamples+1)
	for i := range many {
		many[i] = x[0]
	}
	// 8192 samples that all train: 8192·8193/2 pairs > MaxPairs, refused
	// before the table is allocated.
	one := linalg.NewDense(1, 1)
	one.Set(0, 0, 1)
	pairs := make([]*subspace.Subspace, 8192)
	for i := range pairs {
		pairs[i] = sub(one)
	}
	for _, tc := range []struct {
		name string
		x    []*subspace.Subspace
		want error
	}{
		{"none", nil, ErrData},
		{"NaN", nan, ErrNotFinite},
		{"Inf", inf, ErrNotFinite},
		{"huge", huge, ErrData},
		{"not orthonormal", skew, ErrData},
		{"other D", otherD, ErrData},
		{"short data", short, ErrData},
		{"small stride", stride, ErrData},
		{"nil sample", nilSub, ErrData},
		{"nil basis", nilBasis, ErrData},
		{"d > D", wide, ErrData},
		{"d > 64", tooBig, ErrData},
		{"too many", many, ErrData},
		{"too many pairs", pairs, ErrData},
	} {
		_, err := NewPairs(ctx, tc.x, 2)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		} else {
			t.Logf("%s: %v", tc.name, err)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := NewPairs(cctx, x, 2); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	for _, bad := range [][]int{{0, 6}, {-1}} {
		if _, err := NewPairsFor(ctx, x, bad, 1); !errors.Is(err, ErrData) {
			t.Errorf("trainers %v: %v", bad, err)
		}
	}
}

// mixed returns sets of dimensions 3 and 5 and single images, all of D =
// 24 pixels.
func mixed(t *testing.T) ([]*subspace.Subspace, []int) {
	x3, y3 := synth(t, 2, 4, 24, 3, 5, 0.5, 12)
	x5, y5 := synth(t, 2, 3, 24, 5, 6, 0.5, 13)
	rng := rand.New(rand.NewPCG(14, 14))
	x := append(x3, x5...)
	y := append(y3, y5...)
	for k := range 6 {
		v := make([]float64, 24)
		for i := range v {
			v[i] = rng.NormFloat64()
		}
		s, err := subspace.FromImage(v)
		if err != nil {
			t.Fatal(err)
		}
		x = append(x, s)
		y = append(y, k%2)
	}
	return x, y
}

// TestPairsMixedDims: sets of unequal d and single images; every pair's
// min(d_i, d_j) angles against gonum, determinism for 1 and 3 workers.
func TestPairsMixedDims(t *testing.T) {
	x, _ := mixed(t)
	p, err := NewPairs(context.Background(), x, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i := range x {
		for j := range x {
			th := gonumAngles(t, x[i].Basis, x[j].Basis)
			checkMeasures(t, p, i, j, th[:min(x[i].D(), x[j].D())], 1e-7, 1e-13)
		}
	}
	q, err := NewPairs(context.Background(), x, 3)
	if err != nil {
		t.Fatal(err)
	}
	for k := range p.dist {
		if !slices.Equal(bits(p.dist[k]), bits(q.dist[k])) {
			t.Errorf("%v differs between 1 and 3 workers", Distance(k))
		}
	}
	if !slices.Equal(bits(p.proj), bits(q.proj)) {
		t.Error("kernel differs between 1 and 3 workers")
	}
}

// TestPairsFor: a table for some trainers holds exactly the pairs that
// involve one, with the full table's bits.
func TestPairsFor(t *testing.T) {
	x, _ := mixed(t)
	full, err := NewPairs(context.Background(), x, 2)
	if err != nil {
		t.Fatal(err)
	}
	train := []int{1, 2, 5, 8, 9, 13}
	p, err := NewPairsFor(context.Background(), x, train, 2)
	if err != nil {
		t.Fatal(err)
	}
	isTrain := map[int]bool{}
	for _, i := range train {
		isTrain[i] = true
	}
	nt := len(train)
	if want := nt*(nt+1)/2 + (len(x)-nt)*nt; len(p.proj) != want {
		t.Errorf("%d pairs stored, want %d", len(p.proj), want)
	}
	for i := range x {
		for j := range x {
			has := isTrain[i] || isTrain[j]
			if p.Has(i, j) != has {
				t.Fatalf("Has(%d, %d) = %v", i, j, !has)
			}
			if !has {
				if !math.IsNaN(p.Kernel(i, j)) || !math.IsNaN(p.Distance(Chordal, i, j)) {
					t.Errorf("(%d, %d) not in the table but not NaN", i, j)
				}
				continue
			}
			// A trainer against a non-trainer may be computed from the
			// other side than in the full table (Mᵀ instead of M: the same
			// entries, summed and rotated in another order), so the last
			// bits may differ.
			for k := range numDistances {
				a, b := p.Distance(k, i, j), full.Distance(k, i, j)
				if math.Abs(a-b) > 1e-14 {
					t.Errorf("(%d, %d) %v: %.17g, full table %.17g", i, j, k, a, b)
				}
			}
			if math.Abs(p.Kernel(i, j)-full.Kernel(i, j)) > 1e-14 {
				t.Errorf("(%d, %d) kernel: %.17g, full table %.17g", i, j, p.Kernel(i, j), full.Kernel(i, j))
			}
		}
	}
}

// cols is 0..n-1.
func cols(n int) []int {
	c := make([]int, n)
	for i := range c {
		c[i] = i
	}
	return c
}
