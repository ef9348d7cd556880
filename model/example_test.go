package model_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

// Example trains GRLGQ on tiny synthetic image sets: two classes whose sets
// of 6 images lie near two different 2-dimensional subspaces of R^10, then
// classifies a new set and explains the decision.
func Example() {
	rng := rand.New(rand.NewPCG(1, 2))
	const dim, d, m = 10, 2, 6
	centre := func() *linalg.Dense {
		c := linalg.NewDense(dim, d)
		if err := linalg.RandomOrthonormal(c, rng); err != nil {
			panic(err)
		}
		return c
	}
	centres := []*linalg.Dense{centre(), centre()}
	conv, err := subspace.NewConverter(dim, m, d)
	if err != nil {
		panic(err)
	}
	// An image set of class c: m images in span(centre_c), plus noise.
	set := func(c int) *subspace.Subspace {
		x := linalg.NewDense(dim, m)
		for j := 0; j < m; j++ {
			a, b := rng.NormFloat64(), rng.NormFloat64()
			for r := 0; r < dim; r++ {
				x.Set(r, j, a*centres[c].At(r, 0)+b*centres[c].At(r, 1)+0.05*rng.NormFloat64())
			}
		}
		s, err := conv.FromSet(x)
		if err != nil {
			panic(err)
		}
		return s
	}
	var xs []*subspace.Subspace
	var ys []int
	for i := 0; i < 10; i++ {
		for c := 0; c < 2; c++ {
			xs, ys = append(xs, set(c)), append(ys, c)
		}
	}

	opt := model.DefaultOptions()                    // every default, visible
	opt.Model.ClassNames = []string{"left", "right"} // what the model is (d from the data)
	opt.Train.Epochs, opt.Train.Seed = 20, 7         // how it is trained
	mdl, hist, err := model.Train(context.Background(), opt, model.Sets(xs), ys)
	if err != nil {
		panic(err)
	}
	fmt.Printf("trained %d epochs, training accuracy %.2f\n", len(hist.Epochs), hist.Epochs[len(hist.Epochs)-1].TrainAccuracy)

	p, err := mdl.Predict(model.Set(set(1)))
	if err != nil {
		panic(err)
	}
	fmt.Printf("predicted %q (margin > 0.5: %v)\n", mdl.ClassName(p.Label), p.Margin > 0.5)

	ex, err := mdl.Explain(model.Set(set(0)), -1)
	if err != nil {
		panic(err)
	}
	fmt.Printf("explained %q: W⁺ nearer than W⁻: %v\n", mdl.ClassName(ex.Label), ex.Plus.Distance < ex.Minus.Distance)
	// Output:
	// trained 20 epochs, training accuracy 1.00
	// predicted "right" (margin > 0.5: true)
	// explained "left": W⁺ nearer than W⁻: true
}
