package selection

import (
	"math/rand/v2"
	"testing"

	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

// synth returns n sets per class of `classes` classes, each class a mixture
// of `modes` random centre subspaces: set i of class c is the span of
// C_{c,i mod modes} + sigma·G (D x d, G Gaussian). With several modes a
// class is not one cluster, the case where nearest neighbours do well.
func synth(t testing.TB, seed uint64, dim, d, classes, modes, n int, sigma float64) ([]*subspace.Subspace, []int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	orth := linalg.NewOrthonormalizer(dim, d)
	centres := make([][]*linalg.Dense, classes)
	for c := range centres {
		for range modes {
			w := linalg.NewDense(dim, d)
			if err := orth.Random(w, rng); err != nil {
				t.Fatal(err)
			}
			centres[c] = append(centres[c], w)
		}
	}
	var xs []*subspace.Subspace
	var ys []int
	for i := 0; i < n; i++ {
		for c := 0; c < classes; c++ {
			ctr := centres[c][i%modes]
			b := linalg.NewDense(dim, d)
			for r := 0; r < dim; r++ {
				row, src := b.Row(r), ctr.Row(r)
				for j := range row {
					row[j] = src[j] + sigma*rng.NormFloat64()
				}
			}
			if err := orth.Orthonormalize(b); err != nil {
				t.Fatal(err)
			}
			xs = append(xs, &subspace.Subspace{Basis: b})
			ys = append(ys, c)
		}
	}
	return xs, ys
}

// legacy turns the configuration literals of these tests, written in the
// convention the model package had before model.DefaultOptions (a zero
// field takes its default; a negative InitNoise means none), into
// model.Options.
func legacy(c model.Config, t model.TrainConfig) model.Options {
	o := model.DefaultOptions()
	if c.PrototypesPerClass == 0 {
		c.PrototypesPerClass = o.Model.PrototypesPerClass
	}
	d := o.Train
	switch {
	case t.InitNoise == 0:
		t.InitNoise = d.InitNoise
	case t.InitNoise < 0:
		t.InitNoise = 0
	}
	if t.Eta == 0 {
		t.Eta = d.Eta
	}
	if t.Epochs == 0 {
		t.Epochs = d.Epochs
	}
	t.Gamma, t.StepEvery, t.Tau, t.Beta, t.RelevanceFloor = d.Gamma, d.StepEvery, d.Tau, d.Beta, d.RelevanceFloor
	o.Model, o.Train = c, t
	return o
}
