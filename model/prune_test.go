package model

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/grlgq/grlgq/dataset"
	"github.com/grlgq/grlgq/internal/realdata"
	"github.com/grlgq/grlgq/kernels"
	"github.com/grlgq/grlgq/subspace"
)

// trainBytes trains with o on (x, y) and returns the saved model and the
// trainers' search counts, with the winners' search pruned or exhaustive.
func trainBytes(t *testing.T, o Options, x []*subspace.Subspace, y []int, exhaustive bool) []byte {
	t.Helper()
	saved := exhaustiveSearch
	exhaustiveSearch = exhaustive
	defer func() { exhaustiveSearch = saved }()
	m, h, err := Train(context.Background(), o, Sets(x), y)
	if err != nil {
		t.Fatal(err)
	}
	if !exhaustive && o.Train.Workers == 1 && o.Train.Seed == 1 {
		var s SearchStats
		for _, e := range h.Epochs {
			s.Prototypes += e.Search.Prototypes
			s.Enclosed += e.Search.Enclosed
			s.Valued += e.Search.Valued
		}
		t.Logf("%d prototypes searched: %.1f%% enclosed, %.2f%% valued (the winners' values come from their factorisation)",
			s.Prototypes, 100*float64(s.Enclosed)/float64(s.Prototypes), 100*float64(s.Valued)/float64(s.Prototypes))
	}
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// checkPrunedTraining trains with the pruned and the exhaustive winners'
// search, for each seed and worker count, and compares the model files
// byte for byte.
func checkPrunedTraining(t *testing.T, name string, o Options, x []*subspace.Subspace, y []int, seeds []uint64) {
	t.Helper()
	saved := soloSetWork
	soloSetWork = 0 // two shards even for small shapes
	defer func() { soloSetWork = saved }()
	for _, seed := range seeds {
		for _, workers := range []int{1, 2} {
			c := o
			c.Train.Seed, c.Train.Workers = seed, workers
			pruned := trainBytes(t, c, x, y, false)
			exhaustive := trainBytes(t, c, x, y, true)
			if !bytes.Equal(pruned, exhaustive) {
				t.Errorf("%s, seed %d, %d workers: the pruned search trained another model", name, seed, workers)
			}
		}
	}
}

// TestPrunedTrainingSameModel trains on synthetic sets (classes around
// random centres, close and far apart), with one and several prototypes
// per class, every relevance kind, both activations, with the pruned and
// the exhaustive winners' search: the model files are the same, for every
// seed and worker count.
func TestPrunedTrainingSameModel(t *testing.T) {
	type shape struct {
		dim, d, classes, n int
		sigma              float64
	}
	shapes := []shape{{60, 3, 4, 6, 0.05}, {200, 5, 8, 5, 0.02}, {300, 12, 5, 4, 0.1}, {400, 25, 4, 3, 0.01}}
	if testing.Short() || raceEnabled {
		shapes = shapes[:2]
	}
	for _, s := range shapes {
		x, y := synth(t, 31, s.dim, s.d, s.classes, s.n, s.sigma)
		for _, rel := range []RelevanceKind{RelevanceGlobal, RelevanceLocal, RelevanceNone} {
			for _, per := range []int{1, 2} {
				o := DefaultOptions()
				o.Model.PrototypesPerClass, o.Model.Relevance = per, rel
				o.Train.Epochs, o.Train.Eta, o.Train.Gamma = 3, 0.05, 1e-3
				if per == 2 {
					o.Train.Activation = Sigmoid
				}
				name := fmt.Sprintf("D=%d,d=%d,classes=%d/relevance %d/%d per class", s.dim, s.d, s.classes, rel, per)
				checkPrunedTraining(t, name, o, x, y, []uint64{1, 2})
				if rel == RelevanceLocal {
					// Float32: the winners' distances from their
					// factorisation in either search.
					o.Model.Precision = Float32
					checkPrunedTraining(t, name+"/float32", o, x, y, []uint64{1, 2})
				}
			}
		}
	}
}

// TestPrunedTrainingRealData is TestPrunedTrainingSameModel on real sets:
// ETH-80 objects (d = 5, 8 classes), MNIST training sets of 48 images
// (d = 12, 10 classes) and Yale B faces (20x20) under 32 lightings (d =
// 25, 38 classes), from GRLGQ_DATA (the last two on the assembly paths
// only: pure Go they take minutes).
func TestPrunedTrainingRealData(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("-short or -race: skipping the real-data training runs")
	}
	dir := realdata.Dir(t, "eth80", "mnist/train-images-idx3-ubyte.gz", "yaleb32/YaleB_32x32.mat")
	t.Run("eth80", func(t *testing.T) {
		x, y := eth80Sets(t, filepath.Join(dir, "eth80"), 5)
		checkPrunedTraining(t, "eth80", realOptions(5, 0.05, 1e-4, InitSample), x, y, []uint64{1, 2, 3})
		o := realOptions(5, 0.05, 1e-4, InitSample)
		o.Model.Distance = Chordal
		checkPrunedTraining(t, "eth80 chordal", o, x, y, []uint64{1, 2})
		o = realOptions(5, 0.05, 1e-4, InitSample)
		o.Model.Precision = Float32
		checkPrunedTraining(t, "eth80 float32", o, x, y, []uint64{1, 2})
	})
	if kernels.Implementation() == "generic" {
		// The pure-Go SVDs make the two larger shapes minutes long; the
		// synthetic test covers this path.
		return
	}
	t.Run("mnist", func(t *testing.T) {
		ds, err := (dataset.IDX{Images: filepath.Join(dir, "mnist/train-images-idx3-ubyte.gz"), Labels: filepath.Join(dir, "mnist/train-labels-idx1-ubyte.gz"), Limits: dataset.DefaultLimits()}).Load(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		x, y := imageGroups(t, ds.Images[:4800], ds.Labels[:4800], 48, 12)
		checkPrunedTraining(t, "mnist", realOptions(2, 5e-3, 1e-6, InitPCA), x, y, []uint64{1})
		o := realOptions(2, 5e-3, 1e-6, InitPCA)
		o.Model.Precision = Float32
		checkPrunedTraining(t, "mnist float32", o, x, y, []uint64{1})
	})
	t.Run("yaleb", func(t *testing.T) {
		ds, err := (dataset.MAT{File: filepath.Join(dir, "yaleb32/YaleB_32x32.mat"), X: "fea", Y: "gnd", Width: 32, Height: 32, Transpose: true, PixelMax: 255, Limits: dataset.DefaultLimits()}).Load(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if ds, err = ds.Resized(context.Background(), 20, 20, dataset.DefaultLimits()); err != nil {
			t.Fatal(err)
		}
		x, y := imageGroups(t, ds.Images, ds.Labels, 32, 25)
		checkPrunedTraining(t, "yaleb", realOptions(2, 0.05, 1e-4, InitSample), x, y, []uint64{1})
		o := realOptions(2, 0.05, 1e-4, InitSample)
		o.Model.Precision = Float32
		checkPrunedTraining(t, "yaleb float32", o, x, y, []uint64{1})
	})
}

// eth80Sets returns the ETH-80 objects under root as d-dimensional
// subspaces of their 20x20 gray views, labelled by category.
func eth80Sets(t *testing.T, root string, d int) ([]*subspace.Subspace, []int) {
	t.Helper()
	cats, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var xs []*subspace.Subspace
	var ys []int
	c := 0
	for _, cat := range cats {
		if !cat.IsDir() {
			continue
		}
		objs, err := os.ReadDir(filepath.Join(root, cat.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range objs {
			if !o.IsDir() {
				continue
			}
			x := eth80Set(t, filepath.Join(root, cat.Name(), o.Name()))
			conv, err := subspace.NewConverter(x.Rows, x.Cols, d)
			if err != nil {
				t.Fatal(err)
			}
			s, err := conv.FromSet(x)
			if err != nil {
				t.Fatal(err)
			}
			xs, ys = append(xs, s), append(ys, c)
		}
		c++
	}
	return xs, ys
}

// imageGroups groups the images of each class, in order, m at a time, into
// d-dimensional subspaces (the remainder of a class is left out), labels
// from 0 in order of first appearance.
func imageGroups(t *testing.T, imgs [][]float64, labels []int, m, d int) ([]*subspace.Subspace, []int) {
	t.Helper()
	byClass := map[int][]int{}
	var order []int
	for i, l := range labels {
		if _, ok := byClass[l]; !ok {
			order = append(order, l)
		}
		byClass[l] = append(byClass[l], i)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	var xs []*subspace.Subspace
	var ys []int
	group := make([][]float64, m)
	for c, l := range order {
		idx := byClass[l]
		rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
		for g := 0; g+m <= len(idx); g += m {
			for j, i := range idx[g : g+m] {
				group[j] = imgs[i]
			}
			s, err := subspace.FromImages(group, d)
			if err != nil {
				t.Fatal(err)
			}
			xs, ys = append(xs, s), append(ys, c)
		}
	}
	return xs, ys
}

// realOptions: the defaults with epochs, η, γ and the initialisation set.
func realOptions(epochs int, eta, gamma float64, init InitKind) Options {
	o := DefaultOptions()
	o.Train.Epochs, o.Train.Eta, o.Train.Gamma, o.Train.Init = epochs, eta, gamma, init
	return o
}
