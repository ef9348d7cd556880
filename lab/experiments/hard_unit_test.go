package experiments

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

// TestHardGroups checks the hard sets: which images, how they are grouped
// (by competitor, topped up with the next hardest), and that with m = d a
// set's subspace is the span of its images.
func TestHardGroups(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const dim, per, classes = 20, 16, 3
	var imgs [][]float64
	var y []int
	for c := range classes {
		for range per {
			x := make([]float64, dim)
			for i := range x {
				x[i] = rng.NormFloat64()
			}
			imgs, y = append(imgs, x), append(y, c)
		}
	}
	idx := allIndices(len(imgs))
	mu := make([]float64, len(imgs))
	comp := make([]int, len(imgs))
	for i := range mu {
		mu[i] = 0.5 + 0.01*float64(i) // easy
		comp[i] = (y[i] + 1) % classes
	}
	// Class 0: images 3, 7 (competitor 2) and 5 (competitor 1) are hard;
	// image 9 is the next hardest. Class 1, 2: none.
	mu[3], mu[5], mu[7], mu[9] = -0.2, 0.05, -0.1, 0.2
	comp[3], comp[5], comp[7] = 2, 1, 2
	h := hardSpec{M: 4, Margin: 0.1, Copies: 1}
	x, gy, nhard, err := hardGroups(imgs, y, idx, mu, comp, classes, 4, h)
	if err != nil {
		t.Fatal(err)
	}
	if nhard != 3 || len(x) != 1 || gy[0] != 0 {
		t.Fatalf("nhard %d, %d sets (labels %v), want 3 hard images in 1 set of class 0", nhard, len(x), gy)
	}
	inSpan := func(s *subspace.Subspace, v []float64) bool {
		var nv, np float64
		for _, a := range v {
			nv += a * a
		}
		for j := 0; j < s.Basis.Cols; j++ {
			var p float64
			for r, a := range v {
				p += s.Basis.At(r, j) * a
			}
			np += p * p
		}
		return math.Abs(nv-np) < 1e-9*nv
	}
	for _, i := range []int{3, 5, 7, 9} {
		if !inSpan(x[0], imgs[i]) {
			t.Errorf("image %d is not in the span of the hard set", i)
		}
	}
	if inSpan(x[0], imgs[0]) {
		t.Errorf("image 0 (easy) is in the span of the hard set")
	}
	// Min: every class contributes its hardest; 8 hard images of class 0
	// make two sets.
	h.Min = 4
	mu[0], mu[1], mu[2], mu[4] = 0, 0, 0, 0
	x, gy, nhard, err = hardGroups(imgs, y, idx, mu, comp, classes, 4, h)
	if err != nil {
		t.Fatal(err)
	}
	if nhard != 7 || len(x) != 4 || gy[0] != 0 || gy[1] != 0 || gy[2] != 1 || gy[3] != 2 {
		t.Fatalf("nhard %d, %d sets labelled %v, want 7 hard images, sets of classes [0 0 1 2]", nhard, len(x), gy)
	}
	// Class 0's hard images are 3, 7 (competitor 2), 0, 1, 2, 4, 5
	// (competitor 1), topped up with 9 (competitor 1); sorted by competitor
	// (stably, hardest first) they make the sets {0, 1, 2, 4} and
	// {5, 9, 3, 7}.
	for s, set := range [][]int{{0, 1, 2, 4}, {5, 9, 3, 7}} {
		for _, i := range set {
			if !inSpan(x[s], imgs[i]) {
				t.Errorf("image %d not in set %d", i, s)
			}
		}
	}
}

// TestImageMargins checks the margins against the model's own image
// distances, for any number of goroutines.
func TestImageMargins(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const dim, per, classes, d = 16, 12, 3, 2
	var imgs [][]float64
	var y []int
	for c := range classes {
		for range per {
			x := make([]float64, dim)
			for i := range x {
				x[i] = rng.NormFloat64()
			}
			x[c] += 3
			imgs, y = append(imgs, x), append(y, c)
		}
	}
	idx := allIndices(len(imgs))
	xs, ys, err := groupSubspaces(imgs, y, idx, classes, 4, d, rng)
	if err != nil {
		t.Fatal(err)
	}
	m, err := model.Init(model.Config{SubspaceDim: d}, model.TrainConfig{Init: model.InitPCA, Workers: 1}, model.Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	mu1, comp1, err := imageMargins(m, imgs, y, idx, 1)
	if err != nil {
		t.Fatal(err)
	}
	mu3, comp3, err := imageMargins(m, imgs, y, idx, 3)
	if err != nil {
		t.Fatal(err)
	}
	for k, i := range idx {
		p, err := m.Predict(model.Image(imgs[i]))
		if err != nil {
			t.Fatal(err)
		}
		dp, dm, cm := math.Inf(1), math.Inf(1), -1
		for j, v := range p.Distances {
			if m.Label(j) == y[i] {
				dp = min(dp, v)
			} else if v < dm {
				dm, cm = v, m.Label(j)
			}
		}
		want := (dm - dp) / (dm + dp)
		if math.Abs(mu1[k]-want) > 1e-12 || comp1[k] != cm || mu3[k] != mu1[k] || comp3[k] != comp1[k] {
			t.Fatalf("image %d: margin %g (%g with 3 goroutines), competitor %d (%d), want %g, %d", i, mu1[k], mu3[k], comp1[k], comp3[k], want, cm)
		}
		if (want > 0) != (p.Class == y[i]) {
			t.Errorf("image %d: margin %g but predicted %d (label %d)", i, want, p.Class, y[i])
		}
	}
}

// TestSetMargins checks the set margins against the model's own set
// distances, and TestTrainHardSets that the per-epoch loop with no hard
// subset gives model.Train's prototypes bit for bit and that every pool
// subset under the margin is counted each epoch.
func TestSetMargins(t *testing.T) {
	m, xs, ys := tinySetModel(t)
	defer m.Close()
	mu, err := setMargins(m, xs, ys)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range xs {
		p, err := m.Predict(model.Set(x))
		if err != nil {
			t.Fatal(err)
		}
		dp, dm := math.Inf(1), math.Inf(1)
		for j, v := range p.Distances {
			if m.Label(j) == ys[i] {
				dp = min(dp, v)
			} else {
				dm = min(dm, v)
			}
		}
		if want := (dm - dp) / (dm + dp); math.Abs(mu[i]-want) > 1e-12 {
			t.Fatalf("set %d: margin %g, want %g", i, mu[i], want)
		}
		if (mu[i] > 0) != (p.Class == ys[i]) {
			t.Errorf("set %d: margin %g but predicted %d (label %d)", i, mu[i], p.Class, ys[i])
		}
	}
}

func TestTrainHardSets(t *testing.T) {
	m0, xs, ys := tinySetModel(t)
	m0.Close()
	cfg := Setup{Config: model.Config{SubspaceDim: 2}, TrainConfig: model.TrainConfig{Init: model.InitSample, Eta: 0.05, Gamma: 1e-4, Activation: model.Sigmoid, Beta: 5, Workers: 1, Seed: 7, Epochs: 5}}
	want, _, err := model.Train(context.Background(), cfg.Config, cfg.TrainConfig, model.Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	defer want.Close()
	got, err := trainHardSets(context.Background(), cfg, xs, ys, xs, ys, -2, 3, func(e int, m *model.Model, n int) error {
		if n != 0 {
			t.Errorf("epoch %d: %d hard subsets under margin -2", e, n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer got.Close()
	for k := range want.NumPrototypes() {
		a, b := want.Prototype(k), got.Prototype(k)
		for i := range a.Rows {
			for j := range a.Cols {
				if a.At(i, j) != b.At(i, j) {
					t.Fatalf("prototype %d (%d, %d): %v, model.Train %v", k, i, j, b.At(i, j), a.At(i, j))
				}
			}
		}
	}
	epochs := 0
	all, err := trainHardSets(context.Background(), cfg, xs, ys, xs, ys, 2, 1, func(e int, m *model.Model, n int) error {
		epochs++
		if n != len(xs) {
			t.Errorf("epoch %d: %d hard subsets under margin 2, want all %d", e, n, len(xs))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	all.Close()
	if epochs != cfg.Epochs {
		t.Errorf("%d epochs, want %d", epochs, cfg.Epochs)
	}
}

// tinySetModel: 3 classes of 6 random 2-dimensional subspaces of R^12
// near a class direction, and a class-PCA model of them.
func tinySetModel(t *testing.T) (*model.Model, []*subspace.Subspace, []int) {
	rng := rand.New(rand.NewPCG(8, 9))
	var xs []*subspace.Subspace
	var ys []int
	for c := range 3 {
		for range 6 {
			set := make([][]float64, 4)
			for v := range set {
				set[v] = make([]float64, 12)
				for i := range set[v] {
					set[v][i] = rng.NormFloat64()
				}
				set[v][c] += 2
			}
			s, err := setSubspace(set, 2)
			if err != nil {
				t.Fatal(err)
			}
			xs, ys = append(xs, s), append(ys, c)
		}
	}
	m, err := model.Init(model.Config{SubspaceDim: 2}, model.TrainConfig{Init: model.InitPCA, Workers: 1}, model.Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	return m, xs, ys
}
