package baseline_test

import (
	"context"
	"fmt"
	"log"
	"math/rand/v2"
	"os"

	"github.com/grlgq/grlgq/baseline"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/selection"
	"github.com/grlgq/grlgq/subspace"
)

// The baselines on the folds of GRLGQ's cross-validation
// (selection.CrossValidate), compared with GRLGQ's per-fold accuracies,
// printed as a table.
func Example() {
	// Three classes of 8 image sets: 12 images of 50 pixels, noisy around a
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
					imgs[k][i] = center[i] + 4*rng.NormFloat64()
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
	// GRLGQ cross-validated on 4 stratified folds; the baselines run on
	// the same folds (CVResult.Splits) and are compared with its per-fold
	// accuracies.
	opt := model.DefaultOptions()
	opt.Model.SubspaceDim = 3
	opt.Train.Epochs = 10
	cv, err := selection.CrossValidate(context.Background(), opt, model.Sets(x), y, selection.Options{Folds: 4, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	res, err := baseline.Evaluate(context.Background(), x, y, baseline.SplitsOf(cv.Splits), baseline.Options{})
	if err != nil {
		log.Fatal(err)
	}
	grlgq := make([]float64, len(cv.Folds))
	for i, f := range cv.Folds {
		grlgq[i] = f.Accuracy
	}
	if err := res.CompareTo("GRLGQ", grlgq); err != nil {
		log.Fatal(err)
	}
	res.Summary().WriteText(os.Stdout)
	res.PerSplit().WriteCSV(os.Stdout)
	for f := range res.Splits {
		fmt.Println(res.Method(baseline.Method{Kind: baseline.SVM}).Note(f))
	}

	// Output:
	// method                  mean %     sd    diff     se  se corr  w/t/l
	// GRLGQ                    83.33  23.57
	// 1-NN geodesic            58.33  21.52  -25.00   8.33    12.73  0/0/4
	// 1-NN chordal             87.50   8.33   +4.17  10.49    16.02  1/2/1
	// 1-NN MSM (first angle)   83.33   0.00   +0.00  11.79    18.00  1/1/2
	// 5-NN geodesic            79.17  25.00   -4.17   4.17     6.36  0/3/1
	// SVM, projection kernel   95.83   8.33  +12.50   7.98    12.19  2/2/0
	// split,GRLGQ,1-NN geodesic,1-NN chordal,1-NN MSM (first angle),5-NN geodesic,"SVM, projection kernel",SVM C
	// 1,100.00,50.00,83.33,83.33,100.00,100.00,4
	// 2,83.33,66.67,83.33,83.33,66.67,100.00,4
	// 3,50.00,33.33,83.33,83.33,50.00,83.33,1
	// 4,100.00,83.33,100.00,83.33,100.00,100.00,4
	// C=4 by inner 5-fold CV
	// C=4 by inner 5-fold CV
	// C=1 by inner 5-fold CV
	// C=4 by inner 5-fold CV
}
