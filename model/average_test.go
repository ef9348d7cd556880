package model

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/grlgq/grlgq/linalg"

	"gonum.org/v1/gonum/mat"
)

// TestAverage checks Average against gonum: prototype k of the mean must
// span the d leading eigenvectors of the mean projection (1/n) Σ W Wᵀ, and
// the relevances must be the renormalised mean; for global and local
// relevances, for n·d below and above D (the wide stack).
func TestAverage(t *testing.T) {
	for _, tc := range []struct {
		dim, d, n int
		rel       RelevanceKind
	}{{30, 3, 4, RelevanceGlobal}, {12, 4, 5, RelevanceLocal}, {10, 3, 6, RelevanceGlobal}} {
		x, y := synth(t, 7, tc.dim, tc.d, 3, 30, 0.3)
		cfg := defaultOpts()
		cfg.Epochs = 1
		cfg.Eta, cfg.Gamma = 0.05, 0.01
		cfg.PrototypesPerClass = 2
		cfg.Relevance = tc.rel
		cfg.Seed = 3
		m, _, err := Train(context.Background(), legacyOptions(cfg.Config, cfg.TrainConfig), Sets(x), y)
		if err != nil {
			t.Fatal(err)
		}
		ms := []*Model{m}
		for len(ms) < tc.n {
			next, _, err := Continue(context.Background(), ms[len(ms)-1], legacyTrain(cfg.TrainConfig), Sets(x), y)
			if err != nil {
				t.Fatal(err)
			}
			ms = append(ms, next)
		}
		avg, err := Average(ms)
		if err != nil {
			t.Fatal(err)
		}
		if avg.Epochs() != ms[len(ms)-1].Epochs() {
			t.Errorf("epochs %d, want %d", avg.Epochs(), ms[len(ms)-1].Epochs())
		}
		for k := 0; k < m.NumPrototypes(); k++ {
			proj := mat.NewSymDense(tc.dim, nil)
			for _, mi := range ms {
				w := toMat(mi.Prototype(k))
				proj.SymRankK(proj, 1/float64(tc.n), w)
			}
			var eig mat.EigenSym
			if !eig.Factorize(proj, true) {
				t.Fatal("gonum EigenSym failed")
			}
			var vec mat.Dense
			eig.VectorsTo(&vec)
			// Ascending eigenvalues: the last d columns.
			want := mat.DenseCopyOf(vec.Slice(0, tc.dim, tc.dim-tc.d, tc.dim))
			got := avg.Prototype(k)
			if a := maxAngle(toMat(got), want); a > 1e-10 {
				t.Errorf("D=%d d=%d n=%d prototype %d: largest angle to gonum's mean subspace %.3g", tc.dim, tc.d, tc.n, k, a)
			}
			if e := linalg.OrthonormalityError(got); e > 1e-13 {
				t.Errorf("prototype %d not orthonormal: %.3g", k, e)
			}
			if avg.Label(k) != m.Label(k) {
				t.Errorf("label %d, want %d", avg.Label(k), m.Label(k))
			}
		}
		lam := avg.lambda
		for lo := 0; lo < len(lam); lo += tc.d {
			sum := 0.0
			for j := lo; j < lo+tc.d; j++ {
				mean := 0.0
				for _, mi := range ms {
					mean += mi.lambda[j] / float64(tc.n)
				}
				sum += lam[j]
				if math.Abs(lam[j]-mean) > 1e-12 {
					t.Errorf("λ[%d] = %g, want the mean %g", j, lam[j], mean)
				}
			}
			if math.Abs(sum-1) > 1e-14 {
				t.Errorf("λ sums to %g", sum)
			}
		}
		// The mean of copies of one model is that model's spans.
		same, err := Average([]*Model{ms[1], ms[1], ms[1]})
		if err != nil {
			t.Fatal(err)
		}
		for k := 0; k < m.NumPrototypes(); k++ {
			if a := sameSpan(same.Prototype(k), ms[1].Prototype(k)); a > 1e-7 {
				t.Errorf("mean of copies: prototype %d moved by %.3g", k, a)
			}
		}
		// The inputs are untouched and the result predicts.
		if _, err := avg.Predict(Set(x[0])); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAverageRoutes: far-apart prototypes (independent random bases, so
// the mean projection's eigenvalues are close and the iteration slow or
// not converging) and the exact route forced (meanMaxIter = 0) agree with
// gonum's eigenvectors of the mean projection.
func TestAverageRoutes(t *testing.T) {
	const dim, d, n = 24, 3, 5
	rng := rand.New(rand.NewPCG(5, 6))
	ms := make([]*Model, n)
	for i := range ms {
		m := &Model{dim: dim, d: d, classes: 2, labels: []int{0, 1}, lambda: []float64{0.2, 0.3, 0.5}}
		for range 2 {
			w := linalg.NewDense(dim, d)
			if err := linalg.RandomOrthonormal(w, rng); err != nil {
				t.Fatal(err)
			}
			m.protos = append(m.protos, w)
		}
		ms[i] = m
	}
	check := func(name string) {
		avg, err := Average(ms)
		if err != nil {
			t.Fatal(err)
		}
		for k := range 2 {
			proj := mat.NewSymDense(dim, nil)
			for _, mi := range ms {
				proj.SymRankK(proj, 1/float64(n), toMat(mi.protos[k]))
			}
			var eig mat.EigenSym
			if !eig.Factorize(proj, true) {
				t.Fatal("gonum EigenSym failed")
			}
			vals := eig.Values(nil)
			var vec mat.Dense
			eig.VectorsTo(&vec)
			want := mat.DenseCopyOf(vec.Slice(0, dim, dim-d, dim))
			gap := vals[dim-d] - vals[dim-d-1]
			if a := maxAngle(toMat(avg.protos[k]), want); a > 1e-12/gap {
				t.Errorf("%s: prototype %d: angle %.3g to gonum's (eigengap %.3g)", name, k, a, gap)
			}
		}
	}
	check("iteration")
	defer func(v int) { meanMaxIter = v }(meanMaxIter)
	meanMaxIter = 0
	check("exact")
}

func TestAverageErrors(t *testing.T) {
	x, y := synth(t, 1, 20, 3, 3, 12, 0.3)
	cfg := defaultOpts()
	cfg.Epochs = 1
	a, err := Init(legacyOptions(cfg.Config, cfg.TrainConfig), Sets(x), y)
	if err != nil {
		t.Fatal(err)
	}
	cfg2 := cfg
	cfg2.PrototypesPerClass = 2
	b, err := Init(legacyOptions(cfg2.Config, cfg2.TrainConfig), Sets(x), y)
	if err != nil {
		t.Fatal(err)
	}
	x4, y4 := synth(t, 1, 20, 4, 3, 12, 0.3)
	c, err := Init(legacyOptions(cfg.Config, cfg.TrainConfig), Sets(x4), y4)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ms   []*Model
		want string
	}{
		{nil, "no models"},
		{[]*Model{a, nil}, "model 1 is nil"},
		{[]*Model{a, b}, "differs in shape"},
		{[]*Model{a, c}, "differs in shape"},
	} {
		_, err := Average(tc.ms)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("got %v, want an error containing %q", err, tc.want)
		}
	}
	one, err := Average([]*Model{a})
	if err != nil || one == a {
		t.Fatalf("Average of one model: %v (must be a copy)", err)
	}
}

// TestAverageLast: Config.AverageLast returns, bit for bit, the Average of
// the models an epoch-by-epoch Continue passes through (sets and images),
// for any number of workers; more than Epochs averages every epoch; the
// averaged model's validation accuracy is its own; Patience is refused.
func TestAverageLast(t *testing.T) {
	ctx := context.Background()
	xs, ys := synth(t, 3, 20, 3, 3, 24, 0.4)
	xi, yi := synthImages(4, 20, 3, 3, 16, 0.4)
	type trainFn func(cfg opts) (*Model, *History, error)
	type contFn func(m *Model, cfg opts) (*Model, error)
	kinds := []struct {
		name  string
		train trainFn
		cont  contFn
		init  func(cfg opts) (*Model, error)
	}{
		{"sets",
			func(cfg opts) (*Model, *History, error) {
				return Train(ctx, legacyOptions(cfg.Config, cfg.TrainConfig), Sets(xs), ys)
			},
			func(m *Model, cfg opts) (*Model, error) {
				r, _, err := Continue(ctx, m, legacyTrain(cfg.TrainConfig), Sets(xs), ys)
				return r, err
			},
			func(cfg opts) (*Model, error) { return Init(legacyOptions(cfg.Config, cfg.TrainConfig), Sets(xs), ys) }},
		{"images",
			func(cfg opts) (*Model, *History, error) {
				return Train(ctx, legacyOptions(cfg.Config, cfg.TrainConfig), Images(xi), yi)
			},
			func(m *Model, cfg opts) (*Model, error) {
				r, _, err := Continue(ctx, m, legacyTrain(cfg.TrainConfig), Images(xi), yi)
				return r, err
			},
			func(cfg opts) (*Model, error) {
				return Init(legacyOptions(cfg.Config, cfg.TrainConfig), Images(xi), yi)
			}},
	}
	for _, k := range kinds {
		for _, last := range []int{3, 9} {
			var ref []byte
			var refModel *Model
			for _, workers := range []int{1, 2} {
				cfg := opts{Config: Config{SubspaceDim: 3}, TrainConfig: TrainConfig{Epochs: 6, Eta: 0.05, Seed: 5, Workers: workers, AverageLast: last}}
				m, h, err := k.train(cfg)
				if err != nil {
					t.Fatal(err)
				}
				if want := min(last, 6); h.Averaged != want || m.Epochs() != 6 {
					t.Errorf("%s last=%d: averaged %d (want %d), epochs %d", k.name, last, h.Averaged, want, m.Epochs())
				}
				b := modelBytes(t, m)
				if ref == nil {
					ref, refModel = b, m
				} else if !bytes.Equal(ref, b) {
					t.Errorf("%s last=%d: 2 workers give other bytes than 1", k.name, last)
				}
			}
			// By hand: one epoch at a time, the last ones averaged.
			cfg := opts{Config: Config{SubspaceDim: 3}, TrainConfig: TrainConfig{Epochs: 1, Eta: 0.05, Seed: 5, Workers: 1}}
			cur, err := k.init(cfg)
			if err != nil {
				t.Fatal(err)
			}
			var tail []*Model
			for e := 1; e <= 6; e++ {
				if cur, err = k.cont(cur, cfg); err != nil {
					t.Fatal(err)
				}
				if e > 6-last {
					tail = append(tail, cur)
				}
			}
			avg, err := Average(tail)
			if err != nil {
				t.Fatal(err)
			}
			// (The stored configurations differ in Epochs: compare the
			// prototypes and relevances.)
			for j := range avg.protos {
				if !sameBits(avg.protos[j], refModel.protos[j]) {
					t.Errorf("%s last=%d: prototype %d differs from Average of the epoch-by-epoch models", k.name, last, j)
				}
			}
			for j, v := range avg.lambda {
				if math.Float64bits(v) != math.Float64bits(refModel.lambda[j]) {
					t.Errorf("%s last=%d: λ differs from Average of the epoch-by-epoch models", k.name, last)
				}
			}
		}
	}

	// Validation: the averaged model's own accuracy.
	cfg := opts{Config: Config{SubspaceDim: 3}, TrainConfig: TrainConfig{Epochs: 5, Eta: 0.05, Seed: 2, AverageLast: 3, ValidationFraction: 0.3}}
	m, h, err := Train(ctx, legacyOptions(cfg.Config, cfg.TrainConfig), Images(xi), yi)
	if err != nil {
		t.Fatal(err)
	}
	ok := 0
	for _, i := range h.Val {
		p, err := m.Predict(Image(xi[i]))
		if err != nil {
			t.Fatal(err)
		}
		if p.Class == yi[i] {
			ok++
		}
	}
	if want := float64(ok) / float64(len(h.Val)); h.AveragedValAccuracy != want {
		t.Errorf("averaged validation accuracy %v, the averaged model scores %v", h.AveragedValAccuracy, want)
	}

	for _, bad := range []opts{{Config: Config{SubspaceDim: 3}, TrainConfig: TrainConfig{AverageLast: -1}}, {Config: Config{SubspaceDim: 3}, TrainConfig: TrainConfig{AverageLast: 2, Patience: 3, ValidationFraction: 0.3}}} {
		if _, _, err := Train(ctx, legacyOptions(bad.Config, bad.TrainConfig), Sets(xs), ys); err == nil || !strings.Contains(err.Error(), "AverageLast") {
			t.Errorf("AverageLast %d, Patience %d: %v", bad.AverageLast, bad.Patience, err)
		}
	}
}
