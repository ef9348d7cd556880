package baseline

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/grlgq/grlgq/dataset/imageset"
	"github.com/grlgq/grlgq/folds"
	"github.com/grlgq/grlgq/internal/realdata"
	"github.com/grlgq/grlgq/subspace"
)

// eth80 loads ETH-80 as the paper protocol does: gray 20x20 views, one
// object (41 views) = one set, its d-dimensional subspace.
func eth80(t *testing.T, d int) ([]*subspace.Subspace, []int) {
	dir := realdata.Dir(t, "eth80")
	tree, err := imageset.Load(context.Background(), filepath.Join(dir, "eth80"), imageset.Options{Width: 20, Height: 20})
	if err != nil {
		t.Fatal(err)
	}
	var x []*subspace.Subspace
	var y []int
	for _, s := range tree.Sets {
		sub, err := subspace.FromImages(s.Images, d)
		if err != nil {
			t.Fatal(err)
		}
		x = append(x, sub)
		y = append(y, s.Class)
	}
	return x, y
}

// TestETH80 runs the baselines on ETH-80 (80 objects of 8 categories, d =
// 5) under stratified 10-fold cross-validation (one object of every
// category validates), leave-one-object-out and the paper's protocol (5
// objects of every category train, 5 test, 10 random splits), and checks
// that they are sane: 1-NN and the SVM far above chance (12.5%).
func TestETH80(t *testing.T) {
	x, y := eth80(t, 5)
	loo := make([]Split, len(x))
	for i := range x {
		for j := range x {
			if j != i {
				loo[i].Train = append(loo[i].Train, j)
			}
		}
		loo[i].Val = []int{i}
	}
	p, err := NewPairs(context.Background(), x, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("pair table of %d sets: %s", len(x), p.Duration())
	for _, tc := range []struct {
		name   string
		splits []Split
	}{{"10-fold", kfold(y, 10, 1)}, {"leave-one-object-out", loo}, {"5+5 per category x 10", halves(y, 10)}} {
		t0 := time.Now()
		res, err := p.Evaluate(context.Background(), y, tc.splits, Options{Methods: append(DefaultMethods(), Method{Kind: GDA})})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		res.Summary().WriteText(&b)
		cs, rs := map[float64]int{}, map[float64]int{}
		for _, f := range res.Method(Method{Kind: SVM}).Tuned {
			cs[f.Param]++
		}
		for _, f := range res.Method(Method{Kind: GDA}).Tuned {
			rs[f.Param]++
		}
		t.Logf("%s (%s; SVM C chosen: %v; GDA reg: %v):\n%s", tc.name, time.Since(t0), cs, rs, b.String())
		if nn := res.Methods[0]; nn.Mean < 0.8 {
			t.Errorf("%s: 1-NN geodesic %.3f", tc.name, nn.Mean)
		}
		if svm := res.Method(Method{Kind: SVM}); svm.Mean < 0.9 {
			t.Errorf("%s: SVM %.3f", tc.name, svm.Mean)
		}
	}
}

// halves returns runs random splits with half of every class training
// (folds.Take, PerClass).
func halves(y []int, runs int) []Split {
	var out []Split
	for r := range runs {
		rng := rand.New(rand.NewPCG(80, uint64(r)))
		tr, te := folds.Take(folds.ByClass(y), folds.PerClass(5), rng)
		out = append(out, Split{Train: tr, Val: te})
	}
	return out
}
