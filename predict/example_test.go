package predict_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/grlgq/grlgq/dataset"
	"github.com/grlgq/grlgq/dataset/digits"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/predict"
)

// Train on the embedded digits, then predict images without their labels
// and write the table as CSV: what `grlgq predict -o new.csv` does.
func Example() {
	ctx := context.Background()
	ds, err := digits.Load()
	if err != nil {
		panic(err)
	}
	train, err := dataset.TrainingSubspaces(ds, dataset.TrainingOptions{D: 4, M: 10, Seed: 1})
	if err != nil {
		panic(err)
	}
	o := model.DefaultOptions()
	o.Model.SubspaceDim, o.Model.ClassNames = 4, ds.Classes
	o.Train.Epochs = 5
	m, _, err := model.Train(ctx, o, model.Sets(train.Subs), train.Labels)
	if err != nil {
		panic(err)
	}
	// New data: the first three images, their labels left out.
	unl := &dataset.Dataset{Source: "new", Dim: ds.Dim, Width: ds.Width, Height: ds.Height, Images: ds.Images[:3]}
	s, err := predict.Prepare(m, unl, dataset.EvalOptions{})
	if err != nil {
		panic(err)
	}
	tab, err := predict.Run(ctx, m, s)
	if err != nil {
		panic(err)
	}
	for _, r := range tab.Rows {
		fmt.Printf("%d %s: %s (true %s)\n", r.Index, r.Name, r.Predicted, ds.Classes[ds.Labels[r.Index]])
	}
	var b strings.Builder
	if err := tab.WriteCSV(&b); err != nil { // or to a file
		panic(err)
	}
	head, _, _ := strings.Cut(b.String(), "\n")
	fmt.Println(head)
	// Single images against a model of sets trained for 5 epochs: the
	// third is taken for an 8.

	// Output:
	// 0 row 0: 0 (true 0)
	// 1 row 1: 1 (true 1)
	// 2 row 2: 8 (true 2)
	// index,name,predicted,rejected,margin,p_0,p_1,p_2,p_3,p_4,p_5,p_6,p_7,p_8,p_9
}
