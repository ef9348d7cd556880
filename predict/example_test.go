package predict_test

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
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

// Apply a model trained on 8x8 images to a folder of 16x16 images without
// labels: dataset.LoadAt decodes them at the size the model was trained
// on (model.Model.ImageSize), as `grlgq predict` does when -resize is left
// out. A plain Folder load would keep their 256 pixels, which a model of
// D = 64 refuses.
func Example_folder() {
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
	o.Model.ImageWidth, o.Model.ImageHeight = ds.Width, ds.Height // recorded in the model
	o.Train.Epochs = 5
	m, _, err := model.Train(ctx, o, model.Sets(train.Subs), train.Labels)
	if err != nil {
		panic(err)
	}
	// New data: ROOT/<set>/<images>, sets of ten images of one digit
	// drawn at twice the size.
	root, err := os.MkdirTemp("", "predict-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(root)
	for _, c := range []int{3, 5, 7} {
		writeSet(filepath.Join(root, fmt.Sprintf("set%d", c)), ds, c, 10)
	}

	w, h := m.ImageSize() // 8, 8
	unl, err := dataset.LoadAt(ctx, dataset.Folder{Root: root}, w, h)
	if err != nil {
		panic(err)
	}
	s, err := predict.Prepare(m, unl, dataset.EvalOptions{}) // D 0: the model's d
	if err != nil {
		panic(err)
	}
	tab, err := predict.Run(ctx, m, s)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: %d pixels per image (%dx%d)\n", tab.Samples, unl.Dim, unl.Height, unl.Width)
	for _, r := range tab.Rows {
		fmt.Printf("%s: %s\n", r.Name, r.Predicted)
	}
	// Output:
	// sets: 64 pixels per image (8x8)
	// set3: 3
	// set5: 5
	// set7: 7
}

// writeSet writes the first n images of class c of ds as PNG files in
// dir, each pixel drawn as 2x2.
func writeSet(dir string, ds *dataset.Dataset, c, n int) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		panic(err)
	}
	for i, k := 0, 0; k < n; i++ {
		if ds.Labels[i] != c {
			continue
		}
		img := image.NewGray(image.Rect(0, 0, 2*ds.Width, 2*ds.Height))
		for y := range 2 * ds.Height {
			for x := range 2 * ds.Width {
				v := ds.Images[i][(y/2)*ds.Width+x/2]
				img.SetGray(x, y, color.Gray{Y: uint8(math.Round(255 * v))})
			}
		}
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("%02d.png", k)))
		if err != nil {
			panic(err)
		}
		if err := png.Encode(f, img); err != nil {
			panic(err)
		}
		if err := f.Close(); err != nil {
			panic(err)
		}
		k++
	}
}
