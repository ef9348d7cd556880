package hard

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

// span returns the d-dimensional subspace of the images set.
func span(t *testing.T, set [][]float64, d int) *subspace.Subspace {
	t.Helper()
	conv, err := subspace.NewConverter(len(set[0]), len(set), d)
	if err != nil {
		t.Fatal(err)
	}
	x := linalg.NewDense(len(set[0]), len(set))
	for j, v := range set {
		for r, a := range v {
			x.Data[r*x.Stride+j] = a
		}
	}
	s, err := conv.FromSet(x)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func inSpan(s *subspace.Subspace, v []float64) bool {
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

// TestHardGroups checks the hard sets: which images (μ above −Margin),
// how they are grouped (by competitor, topped up with the next hardest),
// and that with m = d a set's subspace is the span of its images.
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
	mu := make([]float64, len(imgs))
	comp := make([]int, len(imgs))
	for i := range mu {
		mu[i] = -0.5 - 0.01*float64(i) // easy: correct by a wide margin
		comp[i] = (y[i] + 1) % classes
	}
	// Class 0: images 3, 7 (competitor 2) and 5 (competitor 1) are hard
	// (μ > −0.1); image 9 is the next hardest. Classes 1, 2: none.
	mu[3], mu[5], mu[7], mu[9] = 0.2, -0.05, 0.1, -0.2
	comp[3], comp[5], comp[7] = 2, 1, 2
	opt := Options{M: 4, Margin: 0.1, Copies: 1}
	x, gy, nhard, err := hardGroups(imgs, y, mu, comp, 4, opt)
	if err != nil {
		t.Fatal(err)
	}
	if nhard != 3 || len(x) != 1 || gy[0] != 0 {
		t.Fatalf("nhard %d, %d sets (labels %v), want 3 hard images in 1 set of class 0", nhard, len(x), gy)
	}
	for _, i := range []int{3, 5, 7, 9} {
		if !inSpan(x[0], imgs[i]) {
			t.Errorf("image %d is not in the span of the hard set", i)
		}
	}
	if inSpan(x[0], imgs[0]) {
		t.Errorf("image 0 (easy) is in the span of the hard set")
	}
	// Five hard images of class 0 (0 and 1 now tie at μ = 0) are topped up
	// to eight with 9, 2 and 4 (the next largest μ): hardest first they
	// are 3, 7, 0, 1, 5, 9, 2, 4; sorted stably by competitor, the sets
	// {0, 1, 5, 9} (competitor 1) and {2, 4, 3, 7}.
	mu[0], mu[1] = 0, 0
	x, gy, nhard, err = hardGroups(imgs, y, mu, comp, 4, opt)
	if err != nil {
		t.Fatal(err)
	}
	if nhard != 5 || len(x) != 2 || gy[0] != 0 || gy[1] != 0 {
		t.Fatalf("nhard %d, %d sets labelled %v, want 5 hard images in 2 sets of class 0", nhard, len(x), gy)
	}
	for s, set := range [][]int{{0, 1, 5, 9}, {2, 4, 3, 7}} {
		for _, i := range set {
			if !inSpan(x[s], imgs[i]) {
				t.Errorf("image %d not in set %d", i, s)
			}
		}
	}
}

// tinyImages: 3 classes of 12 random images of R^16 near a class pixel,
// their sets of 4 as 2-dimensional subspaces, and a class-PCA model.
func tinyImages(t *testing.T) (imgs [][]float64, y []int, xs []*subspace.Subspace, ys []int, m *model.Model) {
	rng := rand.New(rand.NewPCG(5, 6))
	const dim, per, classes, d = 16, 12, 3, 2
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
	for k := 0; k < len(imgs); k += 4 {
		xs, ys = append(xs, span(t, imgs[k:k+4], d)), append(ys, y[k])
	}
	m, err := model.Init(options(1), model.Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	return imgs, y, xs, ys, m
}

// TestImageMus checks μ against the model's own explanation of each image
// (Explanation.Mu, the same sign).
func TestImageMus(t *testing.T) {
	imgs, y, _, _, m := tinyImages(t)
	mu1, comp1, err := imageMus(context.Background(), m, imgs, y)
	if err != nil {
		t.Fatal(err)
	}
	for i := range imgs {
		p, err := m.Predict(model.Image(imgs[i]))
		if err != nil {
			t.Fatal(err)
		}
		cm, dm := -1, math.Inf(1)
		for j, v := range p.Distances {
			if m.Label(j) != y[i] && v < dm {
				dm, cm = v, m.Label(j)
			}
		}
		ex, err := m.Explain(model.Image(imgs[i]), y[i])
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(mu1[i]-ex.Mu) > 1e-12 || comp1[i] != cm {
			t.Fatalf("image %d: μ %g, competitor %d, want %g (Explanation.Mu), %d", i, mu1[i], comp1[i], ex.Mu, cm)
		}
		if (mu1[i] < 0) != (p.Class == y[i]) {
			t.Errorf("image %d: μ %g but predicted %d (label %d)", i, mu1[i], p.Class, y[i])
		}
	}
}

// TestSetMus checks the sets' μ against the model's explanations.
func TestSetMus(t *testing.T) {
	m, xs, ys := tinySetModel(t)
	mu, err := mus(m, model.Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range xs {
		ex, err := m.Explain(model.Set(x), ys[i])
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(mu[i]-ex.Mu) > 1e-12 {
			t.Fatalf("set %d: μ %g, want Explanation.Mu %g", i, mu[i], ex.Mu)
		}
		p, err := m.Predict(model.Set(x))
		if err != nil {
			t.Fatal(err)
		}
		if (mu[i] < 0) != (p.Class == ys[i]) {
			t.Errorf("set %d: μ %g but predicted %d (label %d)", i, mu[i], p.Class, ys[i])
		}
	}
}

// options is the test's model: d = 2, class PCA, 4 epochs, seed 7.
func options(workers int) model.Options {
	o := model.DefaultOptions()
	o.Model.SubspaceDim = 2
	o.Train.Init, o.Train.Workers, o.Train.Seed, o.Train.Epochs = model.InitPCA, workers, 7, 4
	return o
}

// TestImages: hard-example training does not depend on the workers,
// reports every epoch (the history counts the added sets), differs from
// plain training, and refuses sets that cannot span d.
func TestImages(t *testing.T) {
	imgs, y, xs, ys, _ := tinyImages(t)
	var models []*model.Model
	for _, w := range []int{1, 3} {
		epochs := 0
		hook, err := Images(imgs, y, Options{M: 2, Margin: 0.9, Copies: 2, OnSelect: func(e, n, sets int) {
			epochs++
			if e != epochs || n < sets {
				t.Errorf("epoch %d (call %d): %d hard images, %d sets", e, epochs, n, sets)
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		o := options(w)
		o.Train.Augment = hook
		m, hist, err := model.Train(context.Background(), o, model.Sets(xs), ys)
		if err != nil {
			t.Fatal(err)
		}
		if epochs != o.Train.Epochs || len(hist.Epochs) != o.Train.Epochs || hist.Epochs[0].Augmented == 0 || hist.Epochs[0].Augmented%2 != 0 {
			t.Errorf("%d epochs reported, history %d epochs, %d added to the first; want %d, an even number", epochs, len(hist.Epochs), hist.Epochs[0].Augmented, o.Train.Epochs)
		}
		models = append(models, m)
	}
	plain, _, err := model.Train(context.Background(), options(1), model.Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	same := func(a, b *model.Model) bool {
		for k := range a.NumPrototypes() {
			pa, pb := a.Prototype(k), b.Prototype(k)
			for i := range pa.Rows {
				for j := range pa.Cols {
					if pa.At(i, j) != pb.At(i, j) {
						return false
					}
				}
			}
		}
		return true
	}
	if !same(models[0], models[1]) {
		t.Error("Workers 1 and 3 gave different models")
	}
	if same(models[0], plain) {
		t.Error("hard-example training gave model.Train's model: no hard set trained")
	}
	hook, err := Images(imgs, y, Options{M: 1, Copies: 1})
	if err != nil {
		t.Fatal(err)
	}
	o := options(1)
	o.Train.Augment = hook
	if _, _, err := model.Train(context.Background(), o, model.Sets(xs), ys); err == nil || !strings.Contains(err.Error(), "m=1") {
		t.Errorf("sets of 1 image for d=2: %v", err)
	}
	for _, bad := range []Options{{M: 0, Copies: 1}, {M: 2, Copies: 0}} {
		if _, err := Images(imgs, y, bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	if _, err := Images(imgs, y[1:], Options{M: 2, Copies: 1}); err == nil {
		t.Error("labels of another length: no error")
	}
}

// TestPool: with no pool set under the margin it is model.Train bit for
// bit; with a margin every set passes, every pool set is counted in every
// epoch.
func TestPool(t *testing.T) {
	_, xs, ys := tinySetModel(t)
	o := options(1)
	o.Train.Init, o.Train.Activation, o.Train.Beta, o.Train.Epochs = model.InitSample, model.Sigmoid, 5, 5
	want, _, err := model.Train(context.Background(), o, model.Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	hook, err := Pool(model.Sets(xs), ys, Options{Margin: -2, Copies: 3, OnSelect: func(e, n, _ int) {
		if n != 0 {
			t.Errorf("epoch %d: %d hard subsets with μ above 2", e, n)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	oh := o
	oh.Train.Augment = hook
	got, _, err := model.Train(context.Background(), oh, model.Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
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
	if oh.Train.Augment, err = Pool(model.Sets(xs), ys, Options{Margin: 2, Copies: 1, OnSelect: func(e, n, _ int) {
		epochs++
		if n != len(xs) {
			t.Errorf("epoch %d: %d hard subsets with μ above −2, want all %d", e, n, len(xs))
		}
	}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := model.Train(context.Background(), oh, model.Sets(xs), ys); err != nil {
		t.Fatal(err)
	}
	if epochs != o.Train.Epochs {
		t.Errorf("%d epochs, want %d", epochs, o.Train.Epochs)
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
			xs, ys = append(xs, span(t, set, 2)), append(ys, c)
		}
	}
	o := options(1)
	m, err := model.Init(o, model.Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	return m, xs, ys
}
