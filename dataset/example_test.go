package dataset_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/grlgq/grlgq/dataset"
	"github.com/grlgq/grlgq/dataset/digits"
	"github.com/grlgq/grlgq/folds"
	"github.com/grlgq/grlgq/model"
)

// Example goes from a data file to a scored model with the library's
// public API: a typed source (a CSV file of 8x8 digits with values 0-16,
// the label last), a stratified holdout, training sets of 10 same-class
// digits as 4-dimensional subspaces, GRLGQ trained on them, and the test
// digits scored one by one as single images.
func Example() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "digits.csv")
	os.WriteFile(file, digits.CSV(), 0o644) // any CSV file of pixels and a label

	ctx := context.Background()
	src := dataset.CSV{File: file, Width: 8, Height: 8, PixelMax: 16} // one typed value per format
	ds, err := src.Load(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: %d %s of %dx%d, labelled: %v\n", filepath.Base(src.File), ds.Len(), ds.Kind(), ds.Width, ds.Height, ds.Labelled())

	all := make([]int, ds.Len())
	for i := range all {
		all[i] = i
	}
	train, test, err := folds.Holdout(ds.Labels, all, 0.3, 1)
	if err != nil {
		panic(err)
	}
	sets, err := dataset.GroupSubspaces(ds, train, dataset.GroupOptions{M: 10, D: 4, Seed: 1})
	if err != nil {
		panic(err)
	}

	opt := model.DefaultOptions()
	opt.Model.ClassNames, opt.Model.ImageWidth, opt.Model.ImageHeight = ds.Classes, ds.Width, ds.Height
	opt.Model.PrototypesPerClass = 3
	opt.Train.Epochs, opt.Train.Seed = 30, 1
	mdl, _, err := model.Train(ctx, opt, model.Sets(sets.Subs), sets.Labels)
	if err != nil {
		panic(err)
	}

	var x [][]float64
	var y []int
	for _, i := range test {
		x, y = append(x, ds.Images[i]), append(y, ds.Labels[i])
	}
	sc, err := mdl.Score(model.Images(x), y)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d training sets, %d test digits, accuracy above 0.95: %v\n", sets.Len(), len(test), sc.Accuracy() > 0.95)
	// Output:
	// digits.csv: 1797 images of 8x8, labelled: true
	// 130 training sets, 539 test digits, accuracy above 0.95: true
}
