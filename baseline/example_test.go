package baseline_test

import (
	"context"
	"fmt"
	"log"
	"math/rand/v2"
	"os"

	"github.com/grlgq/grlgq/baseline"
	"github.com/grlgq/grlgq/folds"
	"github.com/grlgq/grlgq/subspace"
)

// The baselines on the folds of GRLGQ's cross-validation
// (folds.StratifiedKFold with the same seed), compared with GRLGQ's
// per-fold accuracies, printed as a table.
func Example() {
	// Three classes of 8 image sets: 12 images of 50 pixels around a
	// class direction each, as 3-dimensional subspaces.
	rng := rand.New(rand.NewPCG(1, 1))
	var x []*subspace.Subspace
	var y []int
	for c := range 3 {
		center := make([]float64, 50)
		for i := range center {
			center[i] = rng.NormFloat64()
		}
		for range 8 {
			imgs := make([][]float64, 12)
			for k := range imgs {
				imgs[k] = make([]float64, 50)
				for i := range imgs[k] {
					imgs[k][i] = center[i] + rng.NormFloat64()
				}
			}
			s, err := subspace.FromImages(imgs, 3)
			if err != nil {
				log.Fatal(err)
			}
			x = append(x, s)
			y = append(y, c)
		}
	}
	kf, err := folds.StratifiedKFold(y, 4, 1)
	if err != nil {
		log.Fatal(err)
	}
	splits := make([]baseline.Split, len(kf))
	for i, f := range kf {
		splits[i] = baseline.Split(f)
	}
	res, err := baseline.Evaluate(context.Background(), x, y, splits, baseline.Options{})
	if err != nil {
		log.Fatal(err)
	}
	// GRLGQ's accuracies on the same folds (selection.CrossValidate's
	// CVResult.Folds[i].Accuracy).
	grlgq := []float64{1, 1, 0.8333333333333334, 1}
	if err := res.CompareTo("GRLGQ", grlgq); err != nil {
		log.Fatal(err)
	}
	res.Summary().WriteText(os.Stdout)
	res.PerSplit().WriteCSV(os.Stdout)
	for f := range res.Splits {
		fmt.Println(res.Method(baseline.Method{Kind: baseline.SVM}).Note(f))
	}
}
