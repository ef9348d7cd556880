package baseline

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/grlgq/grlgq/folds"
	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/subspace"
)

// synth returns per sets of each of classes classes: class c has a random
// D x d0 basis U_c; a set is the d-dimensional subspace of m = 2d+2 images
// U_c a + noise·g (a, g standard normal).
func synth(t testing.TB, classes, per, dim, d, d0 int, noise float64, seed uint64) ([]*subspace.Subspace, []int) {
	return synthShared(t, classes, per, dim, d, d0, 0, noise, seed)
}

// synthShared is synth with class bases close to one another: U_c is the
// orthonormalised U_0 + spread·R_c (U_0, R_c random D x d0; spread 0:
// independent random bases).
func synthShared(t testing.TB, classes, per, dim, d, d0 int, spread, noise float64, seed uint64) ([]*subspace.Subspace, []int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 1))
	var x []*subspace.Subspace
	var y []int
	m := 2*d + 2
	u0 := linalg.NewDense(dim, d0)
	if err := linalg.RandomOrthonormal(u0, rng); err != nil {
		t.Fatal(err)
	}
	for c := range classes {
		u := linalg.NewDense(dim, d0)
		if err := linalg.RandomOrthonormal(u, rng); err != nil {
			t.Fatal(err)
		}
		if spread > 0 {
			for r := range dim {
				for k := range d0 {
					u.Set(r, k, u0.At(r, k)+spread*u.At(r, k))
				}
			}
			if err := linalg.NewOrthonormalizer(dim, d0).Orthonormalize(u); err != nil {
				t.Fatal(err)
			}
		}
		for range per {
			imgs := make([][]float64, m)
			for k := range imgs {
				a := make([]float64, d0)
				for i := range a {
					a[i] = rng.NormFloat64()
				}
				img := make([]float64, dim)
				for r := range dim {
					var s float64
					for i := range d0 {
						s += u.At(r, i) * a[i]
					}
					img[r] = s + noise*rng.NormFloat64()
				}
				imgs[k] = img
			}
			s, err := subspace.FromImages(imgs, d)
			if err != nil {
				t.Fatal(err)
			}
			x = append(x, s)
			y = append(y, c)
		}
	}
	return x, y
}

// kfold deals stratified folds by folds.Deal, the rule of
// folds.StratifiedKFold, on a PCG stream of its own, for tests.
func kfold(y []int, k int, seed uint64) []Split {
	fold := folds.Deal(len(y), folds.ByClass(y), k, rand.New(rand.NewPCG(seed, 7)))
	val, train := folds.Parts(fold, k)
	out := make([]Split, k)
	for j := range out {
		out[j] = Split{Train: train[j], Val: val[j]}
	}
	return out
}

var _ = math.Pi
