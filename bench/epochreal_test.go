package bench

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/grlgq/grlgq/dataset"
	"github.com/grlgq/grlgq/internal/realdata"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

// BenchmarkEpochReal: BenchmarkEpoch on real image sets of the three data
// sets (GRLGQ_DATA; skipped when absent), with their d and class counts,
// where the winners' search meets real angles (random high-dimensional
// subspaces are all near 90° from each other):
//
//   - eth80 (D=400, d=5, 8 classes, 80 sets): every ETH-80 object, its 41
//     views in gray, 20x20, one set; prototypes start at a training set
//     of their class (InitSample);
//   - mnist (D=784, d=12, 10 classes, 500 sets): sets of 48 MNIST
//     training images of one class (the protocol's m), 50 per class, from
//     the first 24,000 images; class-PCA start;
//   - yaleb (D=400, d=25, 38 classes, 76 sets): Yale B faces resized to
//     20x20, each person's images in two sets of 32 lighting conditions
//     (d = 25, BenchmarkEpoch's yaleb shape, needs sets of at least 25);
//     class-PCA start.
//
// One prototype per class, η and γ the defaults, constant schedule, seed
// 1; sub-benchmarks and metrics as BenchmarkEpoch's.
func BenchmarkEpochReal(b *testing.B) {
	b.Run("eth80", func(b *testing.B) {
		dir := realdata.Dir(b, "eth80")
		ds, err := (dataset.Folder{Root: filepath.Join(dir, "eth80"), Resize: dataset.Size{Width: 20, Height: 20}, Limits: dataset.DefaultLimits()}).Load(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		var x []*subspace.Subspace
		var y []int
		for _, s := range ds.Sets {
			x, y = append(x, realSubspace(b, ds.Images, s.Images, 5)), append(y, s.Label)
		}
		epochBench(b, epochOptions(model.InitSample), x, y)
	})
	b.Run("mnist", func(b *testing.B) {
		images, labels := "mnist/train-images-idx3-ubyte.gz", "mnist/train-labels-idx1-ubyte.gz"
		dir := realdata.Dir(b, images, labels)
		ds, err := (dataset.IDX{Images: filepath.Join(dir, images), Labels: filepath.Join(dir, labels), Limits: dataset.DefaultLimits()}).Load(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		x, y := realGroups(b, ds.Images[:24000], ds.Labels[:24000], 48, 12, 50)
		epochBench(b, epochOptions(model.InitPCA), x, y)
	})
	b.Run("yaleb", func(b *testing.B) {
		mat := "yaleb32/YaleB_32x32.mat"
		dir := realdata.Dir(b, mat)
		ds, err := (dataset.MAT{File: filepath.Join(dir, mat), X: "fea", Y: "gnd", Width: 32, Height: 32, Transpose: true, PixelMax: 255, Limits: dataset.DefaultLimits()}).Load(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if ds, err = ds.Resized(context.Background(), 20, 20, dataset.DefaultLimits()); err != nil {
			b.Fatal(err)
		}
		x, y := realGroups(b, ds.Images, ds.Labels, 32, 25, 2)
		epochBench(b, epochOptions(model.InitPCA), x, y)
	})
}

// realSubspace returns the d-dimensional subspace of the images idx.
func realSubspace(b *testing.B, imgs [][]float64, idx []int, d int) *subspace.Subspace {
	set := make([][]float64, len(idx))
	for j, i := range idx {
		set[j] = imgs[i]
	}
	s, err := subspace.FromImages(set, d)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// realGroups returns up to per sets of m images of each class (the class's
// images shuffled with a fixed seed, cut in groups of m), as
// d-dimensional subspaces, with their labels.
func realGroups(b *testing.B, imgs [][]float64, labels []int, m, d, per int) ([]*subspace.Subspace, []int) {
	byClass := map[int][]int{}
	classes := 0
	for i, l := range labels {
		byClass[l] = append(byClass[l], i)
		classes = max(classes, l+1)
	}
	rng := rand.New(rand.NewPCG(seed, 7700))
	var x []*subspace.Subspace
	var y []int
	for c := 0; c < classes; c++ {
		idx := byClass[c]
		rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		for g := 0; g < per && (g+1)*m <= len(idx); g++ {
			x, y = append(x, realSubspace(b, imgs, idx[g*m:(g+1)*m], d)), append(y, c)
		}
	}
	return x, y
}

// epochOptions: the defaults with initialisation init, a constant
// schedule and seed 1.
func epochOptions(init model.InitKind) model.Options {
	o := model.DefaultOptions()
	o.Train.Init, o.Train.Schedule, o.Train.Seed = init, model.ScheduleConstant, 1
	return o
}
