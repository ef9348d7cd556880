package baseline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/subspace"
)

// images returns n single images of D = dim pixels as 1-D subspaces,
// labels k % classes, each near a random direction of its class (the
// first classes·2 columns of a random basis), with about a third of the
// pixels zero (the sparse path of the pair table).
func images(t testing.TB, n, classes, dim int, seed uint64) ([]*subspace.Subspace, []int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 3))
	u := linalg.NewDense(dim, 2*classes)
	if err := linalg.RandomOrthonormal(u, rng); err != nil {
		t.Fatal(err)
	}
	var x []*subspace.Subspace
	var y []int
	for k := range n {
		c := k % classes
		v := make([]float64, dim)
		a, b := rng.NormFloat64(), rng.NormFloat64()
		for r := range v {
			if rng.IntN(3) > 0 {
				v[r] = a*u.At(r, 2*c) + b*u.At(r, 2*c+1) + 0.3*rng.NormFloat64()/math.Sqrt(float64(dim))
			}
		}
		v[k%dim] += 0.5
		s, err := subspace.FromImage(v)
		if err != nil {
			t.Fatal(err)
		}
		x = append(x, s)
		y = append(y, c)
	}
	return x, y
}

// holdoutMethods are every kind of baseline.
func holdoutMethods() []Method {
	return append(DefaultMethods(), Method{Kind: GDA}, Method{NN, 3, Chordal}, Method{NN, 4, FirstAngle})
}

// holdoutProblem is a small problem of sets of d = 3 and 5 and single
// images (D = 30, 3 classes), a test part of images and sets that no
// split trains on, and three splits training on random halves of the
// others (ascending).
func holdoutProblem(t *testing.T) (x []*subspace.Subspace, y []int, test []int, splits []Split) {
	x3, y3 := synth(t, 3, 8, 30, 3, 4, 0.6, 51)
	x5, y5 := synth(t, 3, 5, 30, 5, 6, 0.6, 52)
	xi, yi := images(t, 30, 3, 30, 53)
	x = slices.Concat(x3, x5, xi)
	y = slices.Concat(y3, y5, yi)
	rng := rand.New(rand.NewPCG(54, 54))
	var rest []int
	for i := range x {
		if i%4 == 1 || i >= len(x)-12 {
			test = append(test, i)
		} else {
			rest = append(rest, i)
		}
	}
	for range 3 {
		var tr []int
		for _, i := range rest {
			if rng.IntN(3) > 0 {
				tr = append(tr, i)
			}
		}
		splits = append(splits, Split{Train: tr, Val: test})
	}
	return x, y, test, splits
}

// holdoutsOf returns the holdouts of the splits of (x, y).
func holdoutsOf(x []*subspace.Subspace, y []int, splits []Split) []Holdout {
	pickS := func(idx []int) []*subspace.Subspace {
		out := make([]*subspace.Subspace, len(idx))
		for k, i := range idx {
			out[k] = x[i]
		}
		return out
	}
	hs := make([]Holdout, len(splits))
	for f, s := range splits {
		hs[f] = Holdout{Train: pickS(s.Train), TrainLabels: pick(y, s.Train), Test: pickS(s.Val), TestLabels: pick(y, s.Val)}
	}
	return hs
}

// TestHoldoutsMatchEvaluate: on splits whose validation samples train in
// no split, EvaluateHoldouts gives Evaluate's result bit for bit (the same
// pairs from the same side, the same inner folds, the same models), every
// method, with blocks of 1, 7 and the default size, 1, 2 and 7 workers.
func TestHoldoutsMatchEvaluate(t *testing.T) {
	x, y, _, splits := holdoutProblem(t)
	ctx := context.Background()
	opt := Options{Methods: holdoutMethods(), Seed: 5, Workers: 2}
	ref, err := Evaluate(ctx, x, y, splits, opt)
	if err != nil {
		t.Fatal(err)
	}
	zeroTimes(ref)
	hs := holdoutsOf(x, y, splits)
	defer func(b int) { holdoutBlockPairs = b }(holdoutBlockPairs)
	for _, block := range []int{1, 7, 1 << 20} {
		for _, w := range []int{1, 2, 7} {
			holdoutBlockPairs = block * 60 // about 60 training samples per split
			opt.Workers = w
			res, err := EvaluateHoldouts(ctx, hs, opt)
			if err != nil {
				t.Fatal(err)
			}
			zeroTimes(res)
			if !reflect.DeepEqual(res.Methods, ref.Methods) {
				for m := range res.Methods {
					a, b := res.Methods[m], ref.Methods[m]
					t.Errorf("block %d, workers %d: %s: correct %v tuned %+v, Evaluate %v %+v", block, w, a.Name, a.Correct, a.Tuned, b.Correct, b.Tuned)
				}
			}
			if res.Splits != 3 || res.ValTrainRatio != ref.ValTrainRatio || res.Dim != 30 || !slices.Equal(res.SubspaceDims, []int{1, 3, 5}) {
				t.Errorf("summary: %d splits, ratio %v (Evaluate %v), D %d, dims %v", res.Splits, res.ValTrainRatio, ref.ValTrainRatio, res.Dim, res.SubspaceDims)
			}
		}
	}
	// Chance is 1/3; the distances of the NN rows mix scales (one angle
	// against an image, 3 or 5 between sets), the kernel methods do not.
	for _, m := range ref.Methods {
		if !(m.Mean > 0.34) || m.Method.Kind != NN && !(m.Mean > 0.6) {
			t.Errorf("%s: %.3f: the comparison tests too little", m.Name, m.Mean)
		}
		t.Logf("%s: %v", m.Name, m.Accuracy)
	}
}

// TestHoldoutsKFold: on 5-fold cross-validation of 280 samples (sets of d
// = 3 and single images, D = 40, 6 classes) the holdouts make the same
// predictions as Evaluate, where a validation sample's pairs may come
// from the other side of the full table (the last bits of a kernel value
// or distance may differ, no prediction does): the same correct counts
// and chosen parameters.
func TestHoldoutsKFold(t *testing.T) {
	if testing.Short() {
		t.Skip("280 samples, every method; skipped with -short")
	}
	xs, ys := synthShared(t, 6, 30, 40, 3, 4, 0.5, 0.7, 61)
	xi, yi := images(t, 100, 6, 40, 62)
	x, y := slices.Concat(xs, xi), slices.Concat(ys, yi)
	splits := kfold(y, 5, 63)
	ctx := context.Background()
	opt := Options{Methods: holdoutMethods(), Seed: 9, Workers: 2}
	ref, err := Evaluate(ctx, x, y, splits, opt)
	if err != nil {
		t.Fatal(err)
	}
	res, err := EvaluateHoldouts(ctx, holdoutsOf(x, y, splits), opt)
	if err != nil {
		t.Fatal(err)
	}
	for m, a := range res.Methods {
		b := ref.Methods[m]
		if !slices.Equal(a.Correct, b.Correct) || !slices.Equal(a.N, b.N) {
			t.Errorf("%s: correct %v of %v, Evaluate %v of %v", a.Name, a.Correct, a.N, b.Correct, b.N)
		}
		for f := range a.Tuned {
			if a.Tuned[f].Param != b.Tuned[f].Param || a.Tuned[f].InnerAccuracy != b.Tuned[f].InnerAccuracy {
				t.Errorf("%s split %d: %+v, Evaluate %+v", a.Name, f, a.Tuned[f], b.Tuned[f])
			}
		}
		t.Logf("%s: %.3f ± %.3f", a.Name, a.Mean, a.SD)
	}
	if ref.Method(Method{Kind: SVM}).Mean < ref.Method(Method{NN, 1, Geodesic}).Mean+0.05 && ref.Method(Method{Kind: SVM}).Mean < 0.95 {
		t.Logf("SVM does not beat 1-NN here (%v)", ref.Method(Method{Kind: SVM}).Accuracy)
	}
}

// TestHoldoutsErrors: bad holdouts are errors wrapping ErrData (or
// ErrNotFinite, or ctx's error), never panics.
func TestHoldoutsErrors(t *testing.T) {
	x, y, _, splits := holdoutProblem(t)
	ctx := context.Background()
	good := holdoutsOf(x, y, splits[:1])[0]
	with := func(f func(h *Holdout)) []Holdout {
		h := good
		h.Train, h.TrainLabels = slices.Clone(h.Train), slices.Clone(h.TrainLabels)
		h.Test, h.TestLabels = slices.Clone(h.Test), slices.Clone(h.TestLabels)
		f(&h)
		return []Holdout{good, h}
	}
	nan := linalg.NewDense(30, 1)
	nan.Set(3, 0, math.NaN())
	one := linalg.NewDense(1, 1)
	one.Set(0, 0, 1)
	many := make([]*subspace.Subspace, 8192)
	for i := range many {
		many[i] = sub(one)
	}
	for _, tc := range []struct {
		name string
		hs   []Holdout
		want error
	}{
		{"none", nil, ErrData},
		{"no test", with(func(h *Holdout) { h.Test, h.TestLabels = nil, nil }), ErrData},
		{"no training", with(func(h *Holdout) { h.Train, h.TrainLabels = nil, nil }), ErrData},
		{"labels", with(func(h *Holdout) { h.TestLabels = h.TestLabels[1:] }), ErrData},
		{"negative label", with(func(h *Holdout) { h.TrainLabels[2] = -1 }), ErrData},
		{"NaN test", with(func(h *Holdout) { h.Test[4] = sub(nan) }), ErrNotFinite},
		{"nil test", with(func(h *Holdout) { h.Test[0] = nil }), ErrData},
		{"other D", with(func(h *Holdout) {
			h.Test = []*subspace.Subspace{sub(one)}
			h.TestLabels = []int{0}
		}), ErrData},
		{"too many pairs", []Holdout{{Train: many, TrainLabels: make([]int, len(many)), Test: many[:1], TestLabels: []int{0}}}, ErrData},
	} {
		_, err := EvaluateHoldouts(ctx, tc.hs, Options{Methods: holdoutMethods()})
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		} else {
			t.Logf("%s: %v", tc.name, err)
		}
	}
	if _, err := EvaluateHoldouts(ctx, []Holdout{good}, Options{Methods: []Method{{Kind: NN}}}); !errors.Is(err, ErrData) {
		t.Errorf("0-NN: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := EvaluateHoldouts(cctx, []Holdout{good}, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}

// TestPairsImageRow: the rows of single images (kernels.SparseAB over the
// nonzero pixels) have the bits of the general path (single: AtB into a
// padded square), against sets of every d from 1 to 6 and images with
// many zeros; and such a row allocates nothing.
func TestPairsImageRow(t *testing.T) {
	xi, _ := images(t, 12, 2, 50, 71)
	x := xi
	for d := 2; d <= 6; d++ {
		xs, _ := synth(t, 1, 2, 50, d, d+1, 0.5, uint64(70+d))
		x = append(x, xs...)
	}
	p, err := NewPairs(context.Background(), x, 2)
	if err != nil {
		t.Fatal(err)
	}
	q, err := NewPairs(context.Background(), x, 1)
	if err != nil {
		t.Fatal(err)
	}
	w := newPairWork()
	for i := range xi {
		for j := i; j < len(x); j++ {
			if err := w.single(q, x[i].Basis, x[j].Basis, i, j); err != nil {
				t.Fatal(err)
			}
		}
	}
	for k := range p.dist {
		if !slices.Equal(bits(p.dist[k]), bits(q.dist[k])) {
			t.Errorf("%v: the image rows differ from the general path", Distance(k))
		}
	}
	if !slices.Equal(bits(p.proj), bits(q.proj)) {
		t.Error("kernel: the image rows differ from the general path")
	}
	c := cols(len(x))
	if a := testing.AllocsPerRun(20, func() {
		if err := w.row(p, x, 2, c[2:]); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("image row: %v allocations", a)
	}
}

// TestOneSplitForms: with one split the standard deviations and errors
// are undefined: null in JSON (which round-trips to the struct), "n/a" in
// the text, never NaN or 0 presented as a value.
func TestOneSplitForms(t *testing.T) {
	x, y, _, splits := holdoutProblem(t)
	res, err := EvaluateHoldouts(context.Background(), holdoutsOf(x, y, splits[:1]), Options{Methods: []Method{{NN, 1, Geodesic}, {Kind: SVM}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.CompareTo("GRLGQ", []float64{0.75}); err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"sd":null`, `"se":null`, `"se_corrected":null`, `"splits":1`} {
		if !bytes.Contains(js, []byte(want)) {
			t.Errorf("JSON lacks %s: %s", want, js)
		}
	}
	if bytes.Contains(js, []byte("NaN")) || bytes.Count(js, []byte(`"sd":`)) != 3 {
		t.Errorf("JSON: %s", js)
	}
	var back Result
	if err := json.Unmarshal(js, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(&back, res) {
		t.Errorf("JSON round trip differs:\n%s", js)
	}
	var text bytes.Buffer
	if err := res.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	if s := text.String(); !strings.Contains(s, "one split: no sd or standard error") || strings.Count(s, "n/a") != 3+2*2 || strings.Contains(s, "NaN") {
		t.Errorf("text:\n%s", s)
	}
	t.Logf("\n%s%s", text.String(), js)
	// Two splits: numbers again.
	res2, err := EvaluateHoldouts(context.Background(), holdoutsOf(x, y, splits[:2]), Options{Methods: []Method{{NN, 1, Geodesic}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := res2.CompareTo("GRLGQ", []float64{0.75, 0.5}); err != nil {
		t.Fatal(err)
	}
	js, _ = json.Marshal(res2)
	text.Reset()
	res2.WriteText(&text)
	if bytes.Contains(js, []byte("null")) || strings.Contains(text.String(), "n/a") {
		t.Errorf("two splits:\n%s\n%s", text.String(), js)
	}
}

// TestHoldoutKernelOnly: the training triangle of a holdout holds the
// kernel of the full table, bit for bit (mixed dimensions: the batched
// and the padded products), without the angles.
func TestHoldoutKernelOnly(t *testing.T) {
	x, _, _, splits := holdoutProblem(t)
	train := holdoutsOf(x, make([]int, len(x)), splits[:1])[0].Train
	full, err := NewPairs(context.Background(), train, 2)
	if err != nil {
		t.Fatal(err)
	}
	e := &holdoutEval{res: &Result{Dim: full.dim}, workers: 2, pw: make([]*pairWork, 2)}
	p, err := e.trainPairs(context.Background(), train, full.d, 5, true)
	if err != nil {
		t.Fatal(err)
	}
	tri := len(train) * (len(train) + 1) / 2
	if !slices.Equal(bits(p.proj[:tri]), bits(full.proj)) {
		t.Error("the kernel differs from the full table's")
	}
	// A set's row skips the angles (an image's row, as cheap, has them).
	for i := range train {
		for j := i; j < len(train) && full.d[i] > 1; j++ {
			if p.Distance(Geodesic, i, j) != 0 {
				t.Fatalf("pair (%d, %d): angles computed for the kernel only", i, j)
			}
		}
	}
}
