package baseline

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestCholeskyEigen: the Cholesky solve and the Jacobi eigensolver against
// gonum on random symmetric (positive definite) matrices.
func TestCholeskyEigen(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for _, n := range []int{1, 2, 3, 7, 20, 45} {
		g := make([]float64, n*n)
		for i := range g {
			g[i] = rng.NormFloat64()
		}
		// a = g gᵀ + I: symmetric positive definite.
		a := make([]float64, n*n)
		for i := range n {
			for j := range n {
				var s float64
				for k := range n {
					s += g[i*n+k] * g[j*n+k]
				}
				if i == j {
					s++
				}
				a[i*n+j] = s
			}
		}
		am := mat.NewSymDense(n, slices.Clone(a))
		// Cholesky solve of 3 right-hand sides.
		b := make([]float64, n*3)
		for i := range b {
			b[i] = rng.NormFloat64()
		}
		l := slices.Clone(a)
		if err := cholesky(l, n); err != nil {
			t.Fatal(err)
		}
		x := slices.Clone(b)
		cholSolve(l, n, x, 3)
		var ch mat.Cholesky
		if !ch.Factorize(am) {
			t.Fatal("gonum Cholesky")
		}
		var xr mat.Dense
		if err := ch.SolveTo(&xr, mat.NewDense(n, 3, slices.Clone(b))); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			for c := range 3 {
				if d := math.Abs(x[i*3+c] - xr.At(i, c)); d > 1e-10*(1+math.Abs(xr.At(i, c))) {
					t.Errorf("n=%d: solve (%d,%d) %g, gonum %g", n, i, c, x[i*3+c], xr.At(i, c))
				}
			}
		}
		// Eigenvalues and the eigen-equation.
		lam, vec := make([]float64, n), make([]float64, n*n)
		w := slices.Clone(a)
		if err := symEigen(w, n, lam, vec); err != nil {
			t.Fatal(err)
		}
		var es mat.EigenSym
		if !es.Factorize(am, false) {
			t.Fatal("gonum EigenSym")
		}
		ref := es.Values(nil)
		sort.Sort(sort.Reverse(sort.Float64Slice(ref)))
		for i := range n {
			if math.Abs(lam[i]-ref[i]) > 1e-12*ref[0] {
				t.Errorf("n=%d: λ_%d = %.15g, gonum %.15g", n, i, lam[i], ref[i])
			}
			if i > 0 && lam[i] > lam[i-1] {
				t.Errorf("n=%d: eigenvalues not descending", n)
			}
			for r := range n {
				var av float64
				for k := range n {
					av += a[r*n+k] * vec[k*n+i]
				}
				if math.Abs(av-lam[i]*vec[r*n+i]) > 1e-11*ref[0] {
					t.Errorf("n=%d: A v_%d != λ v_%d at row %d", n, i, i, r)
				}
			}
		}
	}
	// Not positive definite: an error, not NaN.
	if err := cholesky([]float64{1, 2, 2, 1}, 2); err == nil {
		t.Error("cholesky of an indefinite matrix: no error")
	}
}

// gonumGDA is GDA straight from its definition with gonum: the
// generalised eigenproblem A α = λ B α (A = K (V − 11ᵀ/N) K, B = K (I −
// V) K + σ² I) through B's Cholesky factor and a symmetric eigensolver,
// the top C − 1 directions with αᵀ B α = 1, the training and test
// projections.
func gonumGDA(t *testing.T, k, kt *mat.Dense, cls []int, reg float64) (ztr, zte *mat.Dense) {
	n, _ := k.Dims()
	count := map[int]int{}
	for _, c := range cls {
		count[c]++
	}
	v := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			if cls[i] == cls[j] {
				v.Set(i, j, 1/float64(count[cls[i]]))
			}
		}
	}
	var between, within mat.Dense
	mb := mat.NewDense(n, n, nil)
	mb.Apply(func(i, j int, x float64) float64 { return x - 1/float64(n) }, v)
	between.Product(k, mb, k)
	iv := mat.NewDense(n, n, nil)
	iv.Apply(func(i, j int, x float64) float64 {
		if i == j {
			return 1 - x
		}
		return -x
	}, v)
	within.Product(k, iv, k)
	tr := mat.Trace(&within)
	b := mat.NewSymDense(n, nil)
	a := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			bv := (within.At(i, j) + within.At(j, i)) / 2
			if i == j {
				bv += reg * tr / float64(n)
			}
			b.SetSym(i, j, bv)
			a.SetSym(i, j, (between.At(i, j)+between.At(j, i))/2)
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(b) {
		t.Fatal("gonum Cholesky of B")
	}
	var l mat.TriDense
	ch.LTo(&l)
	// C = L⁻¹ A L⁻ᵀ.
	var li mat.TriDense
	if err := li.InverseTri(&l); err != nil {
		t.Fatal(err)
	}
	var c mat.Dense
	c.Product(&li, a, li.T())
	cs := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			cs.SetSym(i, j, (c.At(i, j)+c.At(j, i))/2)
		}
	}
	var es mat.EigenSym
	if !es.Factorize(cs, true) {
		t.Fatal("gonum EigenSym")
	}
	vals := es.Values(nil)
	var vecs mat.Dense
	es.VectorsTo(&vecs)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(x, y int) bool { return vals[order[x]] > vals[order[y]] })
	r := len(count) - 1
	u := mat.NewDense(n, r, nil)
	for j := range r {
		for i := range n {
			u.Set(i, j, vecs.At(i, order[j]))
		}
	}
	var alpha mat.Dense
	alpha.Product(li.T(), u) // α = L⁻ᵀ u: αᵀ B α = uᵀ u = I
	ztr, zte = new(mat.Dense), new(mat.Dense)
	ztr.Product(k, &alpha)
	zte.Product(kt.T(), &alpha)
	return ztr, zte
}

// TestGDAReference: gdaPredict's discriminant space matches gonum's
// solution of the generalised eigenproblem (distances between test and
// training projections, which do not depend on the eigenvectors' signs),
// and so do its predictions.
func TestGDAReference(t *testing.T) {
	x, y := synth(t, 4, 7, 30, 3, 4, 0.8, 17)
	p, err := NewPairs(context.Background(), x, 1)
	if err != nil {
		t.Fatal(err)
	}
	sp := kfold(y, 4, 2)[1]
	train, test := sp.Train, sp.Val
	cls := pick(y, train)
	n, nt := len(train), len(test)
	k, kt := mat.NewDense(n, n, nil), mat.NewDense(n, nt, nil)
	for a, i := range train {
		for b, j := range train {
			k.Set(a, b, p.Kernel(i, j)/3)
		}
		for b, j := range test {
			kt.Set(a, b, p.Kernel(i, j)/3)
		}
	}
	grid := []float64{1e-4, 1e-2, 1}
	pred := make([]int, len(grid)*nt)
	var w gdaWork
	if err := gdaPredict(p, train, cls, 4, grid, test, pred, &w); err != nil {
		t.Fatal(err)
	}
	for g, reg := range grid {
		// Rerun the single value to read the projections it leaves in w.
		one := make([]int, nt)
		if err := gdaPredict(p, train, cls, 4, []float64{reg}, test, one, &w); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(one, pred[g*nt:(g+1)*nt]) {
			t.Errorf("reg %g: predictions differ between the grid and a single value", reg)
		}
		ztr, zte := gonumGDA(t, k, kt, cls, reg)
		_, r := ztr.Dims()
		var maxDist float64
		for q := range nt {
			for a := range n {
				var dg, do float64
				for j := range r {
					e := zte.At(q, j) - ztr.At(a, j)
					dg += e * e
					o := w.zte[q*r+j] - w.ztr[a*r+j]
					do += o * o
				}
				maxDist = max(maxDist, dg)
				if math.Abs(dg-do) > 1e-7*(1+dg) {
					t.Errorf("reg %g: |z(test %d) − z(train %d)|² = %.12g, gonum %.12g", reg, q, a, do, dg)
				}
			}
			// The nearest training projection in gonum's space.
			best, bd := 0, math.Inf(1)
			for a := range n {
				var dg float64
				for j := range r {
					e := zte.At(q, j) - ztr.At(a, j)
					dg += e * e
				}
				if dg < bd {
					best, bd = a, dg
				}
			}
			if pred[g*nt+q] != cls[best] {
				t.Errorf("reg %g: test %d predicted %d, gonum's GDA %d", reg, q, pred[g*nt+q], cls[best])
			}
		}
		t.Logf("reg %g: %d directions, largest squared distance %.3g", reg, r, maxDist)
	}
}

// TestGDATooLarge: a training part above MaxGDATrain is refused before
// anything is allocated for it.
func TestGDATooLarge(t *testing.T) {
	p := tablePairs(2, func(i, j int) float64 { return 1 })
	big := make([]int, MaxGDATrain+1)
	var w gdaWork
	err := gdaPredict(p, big, big, 1, []float64{1}, []int{0}, make([]int, 1), &w)
	if !errors.Is(err, ErrData) || w.k != nil {
		t.Errorf("%d training samples: %v", len(big), err)
	}
}
