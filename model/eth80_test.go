package model

import (
	"context"
	"image"
	"image/draw"
	"image/png"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"testing"

	xdraw "golang.org/x/image/draw"

	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/subspace"
)

// dataDir returns the shared real-data folder: $GRLGQ_DATA, else
// ../../shared/data relative to this package; "" if neither exists.
func dataDir() string {
	for _, d := range []string{os.Getenv("GRLGQ_DATA"), filepath.Join("..", "..", "shared", "data")} {
		if d == "" {
			continue
		}
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
	}
	return ""
}

// eth80Set loads one object folder as a D x m set: every view converted to
// gray, resized to 20x20 with Catmull-Rom, one image per column (D = 400).
func eth80Set(t *testing.T, dir string) *linalg.Dense {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.png"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no images in %s", dir)
	}
	sort.Strings(files)
	const side = 20
	x := linalg.NewDense(side*side, len(files))
	for j, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(fh)
		fh.Close()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		gray := image.NewGray(img.Bounds())
		draw.Draw(gray, gray.Bounds(), img, img.Bounds().Min, draw.Src)
		small := image.NewGray(image.Rect(0, 0, side, side))
		xdraw.CatmullRom.Scale(small, small.Bounds(), gray, gray.Bounds(), xdraw.Src, nil)
		for r := 0; r < side; r++ {
			for c := 0; c < side; c++ {
				x.Set(r*side+c, j, float64(small.GrayAt(c, r).Y)/255)
			}
		}
	}
	return x
}

// TestETH80 follows the paper's ETH-80 protocol: one object (41 views) =
// one set, d = 5, one prototype per category (initialised from a random
// training set), η = 0.05, γ = 1e-4; for each of 10 seeded splits, 5
// objects per category train and 5 test. It asserts a floor on the mean
// test accuracy (measured: 94.3% with 300 epochs; the paper: 94.5 ± 1.87).
func TestETH80(t *testing.T) {
	root := dataDir()
	if root == "" {
		t.Skip("real data absent: set GRLGQ_DATA to the shared data folder (with eth80/) to run this test")
	}
	root = filepath.Join(root, "eth80")
	cats, err := os.ReadDir(root)
	if err != nil {
		t.Skipf("no ETH-80 at %s: %v", root, err)
	}
	if testing.Short() {
		t.Skip("-short: skipping the ETH-80 run")
	}
	const d = 5
	var all [][]*subspace.Subspace // per category, objects in name order
	var names []string
	for _, c := range cats {
		if !c.IsDir() {
			continue
		}
		objs, err := os.ReadDir(filepath.Join(root, c.Name()))
		if err != nil {
			t.Fatal(err)
		}
		var sets []*subspace.Subspace
		for _, o := range objs { // ReadDir sorts by name
			if !o.IsDir() {
				continue
			}
			x := eth80Set(t, filepath.Join(root, c.Name(), o.Name()))
			conv, err := subspace.NewConverter(x.Rows, x.Cols, d)
			if err != nil {
				t.Fatal(err)
			}
			s, err := conv.FromSet(x)
			if err != nil {
				t.Fatalf("%s/%s: %v", c.Name(), o.Name(), err)
			}
			sets = append(sets, s)
		}
		all = append(all, sets)
		names = append(names, c.Name())
	}
	if len(all) != 8 {
		t.Fatalf("%d categories, want 8", len(all))
	}
	const splits = 10
	var sum float64
	for split := uint64(0); split < splits; split++ {
		rng := rand.New(rand.NewPCG(split, 1))
		var train, test []*subspace.Subspace
		var trainY, testY []int
		for c, sets := range all {
			if len(sets) != 10 {
				t.Fatalf("%s has %d objects, want 10", names[c], len(sets))
			}
			for i, j := range rng.Perm(len(sets)) {
				if i < 5 {
					train, trainY = append(train, sets[j]), append(trainY, c)
				} else {
					test, testY = append(test, sets[j]), append(testY, c)
				}
			}
		}
		cfg := opts{Config: Config{SubspaceDim: d, ClassNames: names}, TrainConfig: TrainConfig{Epochs: 300, Eta: 0.05, Gamma: 1e-4, Seed: split}}
		m, h, err := Train(context.Background(), legacyOptions(cfg.Config, cfg.TrainConfig), Sets(train), trainY)
		if err != nil {
			t.Fatal(err)
		}
		acc := accuracyOf(t, m, test, testY)
		sum += acc
		t.Logf("split %d: test accuracy %.1f%% (final cost %.4f, relevances %.3f)", split, 100*acc, h.Epochs[len(h.Epochs)-1].Cost, m.Relevances())
	}
	mean := sum / splits
	t.Logf("ETH-80: mean test accuracy over %d splits %.1f%% (paper: 94.5%%)", splits, 100*mean)
	const floor = 0.91
	if mean < floor {
		t.Errorf("ETH-80 mean test accuracy %.3f below the floor %.2f", mean, floor)
	}
}
