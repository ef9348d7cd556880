package model

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/grlgq/grlgq/folds"
	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/subspace"
)

func TestDefaults(t *testing.T) {
	xs, ys := synth(t, 61, 12, 2, 2, 5, 0.3)
	// The documented defaults, spelled out.
	c := opts{
		Config: Config{PrototypesPerClass: DefaultPrototypesPerClass, Relevance: RelevanceGlobal},
		TrainConfig: TrainConfig{Init: InitPCA, InitNoise: DefaultInitNoise, Eta: DefaultEta, Gamma: DefaultGamma, Schedule: ScheduleConstant, StepEvery: DefaultStepEvery,
			Tau: DefaultTau, Activation: Identity, Beta: DefaultBeta, RelevanceFloor: DefaultRelevanceFloor, Epochs: DefaultEpochs},
		PredictConfig: PredictConfig{Temperature: DefaultTemperature},
	}
	d := DefaultOptions()
	if !reflect.DeepEqual(d, Options{Model: c.Config, Train: c.TrainConfig, Predict: c.PredictConfig}) {
		t.Errorf("DefaultOptions %+v, documented %+v", d, c)
	}
	if !reflect.DeepEqual(d.Model, DefaultConfig()) || d.Predict != DefaultPredictConfig() || !reflect.DeepEqual(d.Train, DefaultTrainConfig()) {
		t.Errorf("DefaultOptions is not the three constructors")
	}
	d.Train.Epochs = 2
	m1, _, err := Train(context.Background(), d, Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	// The test literals' convention (zero: default) gives the same model.
	m2, _, err := Train(context.Background(), legacyOptions(Config{}, TrainConfig{Epochs: 2, Init: InitPCA}), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(modelBytes(t, m1), modelBytes(t, m2)) {
		t.Error("the legacy literals and the defaults train differently")
	}
	if got := m1.TrainConfig(); got.Workers != runtime.GOMAXPROCS(0) || got.Epochs != 2 || got.Eta != DefaultEta {
		t.Errorf("the model's training options %+v", got)
	}
	for _, bad := range []opts{{TrainConfig: TrainConfig{Eta: -1}}, {TrainConfig: TrainConfig{Gamma: math.NaN()}}, {TrainConfig: TrainConfig{ValidationFraction: 1}}, {TrainConfig: TrainConfig{Patience: -1}}, {TrainConfig: TrainConfig{Init: 7}}, {Config: Config{Relevance: 3}}, {Config: Config{SubspaceDim: MaxSubDim + 1}}, {TrainConfig: TrainConfig{RelevanceFloor: 1}}, {TrainConfig: TrainConfig{Workers: -3}}, {Config: Config{PrototypesOfClass: []int{1, 0}}}} {
		if _, _, err := Train(context.Background(), legacyOptions(bad.Config, bad.TrainConfig), Sets(xs), ys); !errors.Is(err, ErrConfig) {
			t.Errorf("config %+v: %v, want ErrConfig", bad, err)
		}
	}
	m, err := Init(DefaultOptions(), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []PredictConfig{{}, {Temperature: 0.1, RejectMargin: 2}, {Temperature: 0.1, RejectMargin: -0.5}, {Temperature: -1}, {Temperature: math.Inf(1)}, {Temperature: math.NaN()}} {
		if _, err := m.WithPredictConfig(bad); !errors.Is(err, ErrConfig) {
			t.Errorf("prediction config %+v: %v, want ErrConfig", bad, err)
		}
	}
}

// TestZeroIsZero: a zero field means zero (no noise, no floor, no
// training, never reject), never a default in disguise, and a field whose
// zero means nothing is an error that points at the constructors.
func TestZeroIsZero(t *testing.T) {
	xs, ys := synth(t, 61, 12, 2, 2, 5, 0.3)
	for _, f := range []struct {
		name string
		set  func(o *Options)
	}{
		{"Eta", func(o *Options) { o.Train.Eta = 0 }},
		{"Gamma", func(o *Options) { o.Train.Gamma = 0 }},
		{"StepEvery", func(o *Options) { o.Train.StepEvery = 0 }},
		{"Tau", func(o *Options) { o.Train.Tau = 0 }},
		{"Beta", func(o *Options) { o.Train.Beta = 0 }},
		{"PrototypesPerClass", func(o *Options) { o.Model.PrototypesPerClass = 0 }},
		{"Temperature", func(o *Options) { o.Predict.Temperature = 0 }},
	} {
		o := DefaultOptions()
		f.set(&o)
		_, _, err := Train(context.Background(), o, Sets(xs), ys)
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), f.name) || !strings.Contains(err.Error(), "Default") {
			t.Errorf("%s = 0: %v, want ErrConfig naming it and the constructors", f.name, err)
		}
	}
	if _, _, err := Train(context.Background(), Options{}, Sets(xs), ys); !errors.Is(err, ErrConfig) {
		t.Errorf("zero Options: %v, want ErrConfig", err)
	}
	// Epochs 0: the initial model, an empty history.
	o := DefaultOptions()
	o.Train.Epochs, o.Train.Seed, o.Train.Init = 0, 3, InitSample
	m, h, err := Train(context.Background(), o, Sets(xs), ys)
	if err != nil || m.Epochs() != 0 || len(h.Epochs) != 0 {
		t.Fatalf("Epochs 0: %v epochs, history %+v, %v", m.Epochs(), h, err)
	}
	m0, err := Init(o, Sets(xs), ys)
	if err != nil || !bytes.Equal(modelBytes(t, m), modelBytes(t, m0)) {
		t.Errorf("Epochs 0 is not Init: %v", err)
	}
	// InitNoise 0: the prototypes start exactly at (orthonormalised)
	// training sets; the default noise moves them.
	o.Train.InitNoise = 0
	quiet, err := Init(o, Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	if quiet.TrainConfig().InitNoise != 0 || m0.TrainConfig().InitNoise != DefaultInitNoise {
		t.Errorf("InitNoise kept as %g and %g", quiet.TrainConfig().InitNoise, m0.TrainConfig().InitNoise)
	}
	near := func(m *Model) bool {
		for k := 0; k < m.NumPrototypes(); k++ {
			found := false
			for _, x := range xs {
				if g := anglesGonum(toMat(x.Basis), toMat(m.Prototype(k))); g[len(g)-1] < 1e-7 {
					found = true
				}
			}
			if !found {
				return false
			}
		}
		return true
	}
	if !near(quiet) || near(m0) {
		t.Errorf("InitNoise 0: prototypes at training sets %v; default noise: %v", near(quiet), near(m0))
	}
	// RelevanceFloor 0: no floor (a relevance may reach 0 only by the
	// update, never be lifted); the file stores it as the version-2 "none".
	o.Train.RelevanceFloor, o.Train.Epochs = 0, 1
	nf, _, err := Train(context.Background(), o, Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	back, err := Load(bytes.NewReader(modelBytes(t, nf)))
	if err != nil || back.TrainConfig().RelevanceFloor != 0 || back.TrainConfig().InitNoise != 0 {
		t.Fatalf("no floor, no noise after a round trip: %+v, %v", back.TrainConfig(), err)
	}
}

func TestDataErrors(t *testing.T) {
	xs, ys := synth(t, 62, 12, 2, 2, 3, 0.3)
	cases := map[string]func() ([]*subspace.Subspace, []int){
		"one class":       func() ([]*subspace.Subspace, []int) { return xs, make([]int, len(xs)) },
		"length mismatch": func() ([]*subspace.Subspace, []int) { return xs, ys[1:] },
		"negative label": func() ([]*subspace.Subspace, []int) {
			y := append([]int(nil), ys...)
			y[2] = -1
			return xs, y
		},
		"mixed shapes": func() ([]*subspace.Subspace, []int) {
			x := append([]*subspace.Subspace(nil), xs...)
			x[1] = &subspace.Subspace{Basis: linalg.NewDense(12, 3)}
			return x, ys
		},
		"not orthonormal": func() ([]*subspace.Subspace, []int) {
			x := append([]*subspace.Subspace(nil), xs...)
			b := linalg.NewDense(12, 2)
			b.CopyFrom(xs[1].Basis)
			b.Set(0, 0, b.At(0, 0)+0.1)
			x[1] = &subspace.Subspace{Basis: b}
			return x, ys
		},
		"empty class": func() ([]*subspace.Subspace, []int) {
			y := append([]int(nil), ys...)
			y[0] = 3 // classes 0..3, class 2 has no set
			return xs, y
		},
	}
	for name, f := range cases {
		x, y := f()
		if _, _, err := Train(context.Background(), legacyOptions(Config{}, TrainConfig{Epochs: 1}), Sets(x), y); !errors.Is(err, ErrData) {
			t.Errorf("%s: %v, want ErrData", name, err)
		}
	}
	nan := linalg.NewDense(12, 2)
	nan.Set(3, 1, math.NaN())
	x := append([]*subspace.Subspace(nil), xs...)
	x[0] = &subspace.Subspace{Basis: nan}
	if _, _, err := Train(context.Background(), legacyOptions(Config{}, TrainConfig{Epochs: 1}), Sets(x), ys); !errors.Is(err, ErrNotFinite) {
		t.Errorf("NaN set: %v", err)
	}
	if _, _, err := Train(context.Background(), legacyOptions(Config{SubspaceDim: 3}, TrainConfig{Epochs: 1}), Sets(xs), ys); !errors.Is(err, ErrData) {
		t.Errorf("SubspaceDim 3 for 2-column sets: %v", err)
	}
}

func TestPrototypeCounts(t *testing.T) {
	xs, ys := synth(t, 63, 12, 2, 3, 4, 0.3)
	m, err := Init(legacyOptions(Config{PrototypesPerClass: 3}, TrainConfig{}), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 0, 0, 1, 1, 1, 2, 2, 2}; !equalInts(m.Labels(), want) {
		t.Errorf("labels %v", m.Labels())
	}
	m, err = Init(legacyOptions(Config{PrototypesOfClass: []int{1, 3, 2}}, TrainConfig{}), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 1, 1, 1, 2, 2}; !equalInts(m.Labels(), want) {
		t.Errorf("labels %v", m.Labels())
	}
	// InitSample draws distinct sets while the class has enough.
	m, err = Init(legacyOptions(Config{PrototypesPerClass: 4}, TrainConfig{InitNoise: -1}), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < 4; k++ {
		for j := 0; j < k; j++ {
			if sameSpan(m.protos[k], m.protos[j]) < 1e-6 {
				t.Errorf("prototypes %d and %d start at the same set", j, k)
			}
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestInitKinds(t *testing.T) {
	xs, ys := synth(t, 64, 20, 3, 2, 5, 0.3)
	nearestSet := func(w *linalg.Dense, class int) float64 {
		best := math.Inf(1)
		for i, x := range xs {
			if ys[i] == class {
				best = math.Min(best, sameSpan(w, x.Basis))
			}
		}
		return best
	}
	exact, _ := Init(legacyOptions(Config{}, TrainConfig{InitNoise: -1, Seed: 3}), Sets(xs), ys)
	noisy, _ := Init(legacyOptions(Config{}, TrainConfig{Seed: 3}), Sets(xs), ys)
	random, _ := Init(legacyOptions(Config{}, TrainConfig{Init: InitRandom, Seed: 3}), Sets(xs), ys)
	for k := 0; k < 2; k++ {
		if a := nearestSet(exact.protos[k], k); a > 1e-12 {
			t.Errorf("InitSample without noise: %g from the nearest set", a)
		}
		if a := nearestSet(noisy.protos[k], k); a < 1e-6 || a > 1e-2 {
			t.Errorf("InitSample with 1e-4 noise: %g from the nearest set", a)
		}
		if a := nearestSet(random.protos[k], k); a < 0.3 {
			t.Errorf("InitRandom: %g from the nearest set", a)
		}
		if e := linalg.OrthonormalityError(noisy.protos[k]); e > 1e-14 {
			t.Errorf("orthonormality %g", e)
		}
	}
	// InitPCA: the top d left singular vectors of the stacked class bases,
	// through the thin-SVD path (5 sets · 3 = 15 columns) and the
	// subspace-iteration path (D = 100 > 64, 30 sets · 3 = 90 > 64 columns).
	for _, c := range []struct{ dim, n int }{{20, 5}, {100, 30}} {
		xs, ys := synth(t, 65, c.dim, 3, 2, c.n, 0.5)
		m, err := Init(legacyOptions(Config{}, TrainConfig{Init: InitPCA, Seed: 1}), Sets(xs), ys)
		if err != nil {
			t.Fatal(err)
		}
		for class := 0; class < 2; class++ {
			var blocks []*linalg.Dense
			for i, x := range xs {
				if ys[i] == class {
					blocks = append(blocks, x.Basis)
				}
			}
			stack := mat.NewDense(c.dim, 3*len(blocks), nil)
			for i, b := range blocks {
				for r := 0; r < c.dim; r++ {
					for j := 0; j < 3; j++ {
						stack.Set(r, 3*i+j, b.At(r, j))
					}
				}
			}
			var s mat.SVD
			s.Factorize(stack, mat.SVDThinU)
			var u mat.Dense
			s.UTo(&u)
			top := mat.DenseCopyOf(u.Slice(0, c.dim, 0, 3))
			if a := maxAngle(top, toMat(m.protos[class])); a > 1e-6 {
				t.Errorf("D=%d n=%d class %d: PCA prototype %g from gonum's top subspace", c.dim, c.n, class, a)
			}
		}
	}
}

func TestRelevanceKinds(t *testing.T) {
	xs, ys := synth(t, 66, 20, 4, 3, 6, 0.4)
	for _, rel := range []RelevanceKind{RelevanceNone, RelevanceGlobal, RelevanceLocal} {
		m, _, err := Train(context.Background(), legacyOptions(Config{Relevance: rel, PrototypesPerClass: 2}, TrainConfig{Epochs: 3, Gamma: 0.05}), Sets(xs), ys)
		if err != nil {
			t.Fatal(err)
		}
		l := m.Relevances()
		want := 4
		if rel == RelevanceLocal {
			want = 6 * 4
		}
		if len(l) != want {
			t.Fatalf("relevance kind %d: %d relevances", rel, len(l))
		}
		uniform := true
		for off := 0; off < len(l); off += 4 {
			var s float64
			for _, v := range l[off : off+4] {
				s += v
				if v != 0.25 {
					uniform = false
				}
			}
			if math.Abs(s-1) > 1e-12 {
				t.Errorf("relevances sum to %v", s)
			}
		}
		if uniform != (rel == RelevanceNone) {
			t.Errorf("relevance kind %d: uniform = %v", rel, uniform)
		}
		if rel == RelevanceLocal && equalFloats(l[:4], l[4:8]) {
			t.Error("local relevances identical for two prototypes")
		}
	}
}

func equalFloats(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestRelevanceFloor(t *testing.T) {
	for _, floor := range []float64{1e-4, 0.05, -1} {
		tr, p, y := gradCase(t, opts{TrainConfig: TrainConfig{RelevanceFloor: floor}}, 8)
		if _, err := tr.gradient(p, y); err != nil {
			t.Fatal(err)
		}
		const gamma = 30 // large enough to push some λ_k below the floor
		want := make([]float64, len(tr.lambda))
		var sum float64
		clamped := false
		for k, l := range tr.lambda {
			want[k] = l - gamma*tr.gl[k]
			if f := math.Max(floor, 0); want[k] < f {
				want[k], clamped = f, true
			}
			sum += want[k]
		}
		if !clamped {
			t.Fatalf("floor %g: no relevance reached the floor", floor)
		}
		if _, err := tr.stepSample(Set(&subspace.Subspace{Basis: p}), y, 1e-3, gamma); err != nil {
			t.Fatal(err)
		}
		for k := range want {
			if w := want[k] / sum; math.Abs(tr.lambda[k]-w) > 1e-15 {
				t.Errorf("floor %g: λ_%d = %v, want max(λ − γg, floor)/Σ = %v", floor, k, tr.lambda[k], w)
			}
		}
	}
}

func TestSchedules(t *testing.T) {
	xs, ys := synth(t, 68, 12, 2, 2, 4, 0.3)
	for _, c := range []struct {
		cfg  opts
		want func(e int) float64
	}{
		{opts{TrainConfig: TrainConfig{Schedule: ScheduleConstant}}, func(int) float64 { return 1 }},
		{opts{TrainConfig: TrainConfig{Schedule: ScheduleStep, StepEvery: 3}}, func(e int) float64 { return math.Pow(0.5, float64(e/3)) }},
		{opts{TrainConfig: TrainConfig{Schedule: ScheduleAnneal, Tau: 2}}, func(e int) float64 { return 1 / (1 + float64(e)/2) }},
	} {
		cfg := c.cfg
		cfg.Epochs, cfg.Eta, cfg.Gamma = 7, 0.02, 0.004
		_, h, err := Train(context.Background(), legacyOptions(cfg.Config, cfg.TrainConfig), Sets(xs), ys)
		if err != nil {
			t.Fatal(err)
		}
		for e, st := range h.Epochs {
			f := c.want(e)
			if math.Abs(st.Eta-0.02*f) > 1e-17 || math.Abs(st.Gamma-0.004*f) > 1e-18 {
				t.Errorf("schedule %d epoch %d: η %v γ %v, want factor %v", cfg.Schedule, e, st.Eta, st.Gamma, f)
			}
		}
	}
}

// TestCostDefinition checks the history's cost (and with it the activation
// and the class weights) against a from-scratch computation on the initial
// model: with a tiny η nothing moves during the epoch.
func TestCostDefinition(t *testing.T) {
	xs, ys := synth(t, 69, 12, 2, 2, 6, 0.5)
	xs, ys = xs[:9], ys[:9] // classes 0,1 with 5 and 4 sets
	for _, c := range []opts{{}, {TrainConfig: TrainConfig{Activation: Sigmoid, Beta: 4}}, {TrainConfig: TrainConfig{ClassWeights: true}}, {TrainConfig: TrainConfig{ClassWeights: true, Activation: Sigmoid, Beta: 0.5}}} {
		c.Epochs, c.Eta, c.Gamma, c.Seed = 1, 1e-300, 1e-300, 2
		m0, err := Init(legacyOptions(c.Config, c.TrainConfig), Sets(xs), ys)
		if err != nil {
			t.Fatal(err)
		}
		counts := map[int]int{}
		for _, y := range ys {
			counts[y]++
		}
		full := c.TrainConfig.legacy()
		var want float64
		for i, x := range xs {
			var dp, dm = math.Inf(1), math.Inf(1)
			for k, w := range m0.protos {
				th := anglesGonum(toMat(x.Basis), toMat(w))
				var d float64
				for _, v := range th {
					d += v * v / 2
				}
				if m0.labels[k] == ys[i] {
					dp = math.Min(dp, d)
				} else {
					dm = math.Min(dm, d)
				}
			}
			phi, _ := full.activation((dp - dm) / (dp + dm))
			w := 1.0
			if c.ClassWeights {
				w = float64(len(ys)) / float64(2*counts[ys[i]])
			}
			want += w * phi
		}
		want /= float64(len(xs))
		_, h, err := Train(context.Background(), legacyOptions(c.Config, c.TrainConfig), Sets(xs), ys)
		if err != nil {
			t.Fatal(err)
		}
		if got := h.Epochs[0].Cost; math.Abs(got-want) > 1e-12 {
			t.Errorf("config %+v: cost %v, want %v", c, got, want)
		}
	}
}

func TestValidationAndEarlyStopping(t *testing.T) {
	xs, ys := synth(t, 70, 20, 3, 3, 10, 0.2)
	tr, va := folds.ValidationSplit(ys, 0.3, 9)
	if len(tr)+len(va) != len(ys) || len(va) != 9 {
		t.Fatalf("split %d + %d", len(tr), len(va))
	}
	per := map[int]int{}
	seen := map[int]bool{}
	for _, i := range va {
		per[ys[i]]++
		seen[i] = true
	}
	for _, i := range tr {
		if seen[i] {
			t.Fatal("index in both parts")
		}
	}
	if per[0] != 3 || per[1] != 3 || per[2] != 3 {
		t.Errorf("validation not stratified: %v", per)
	}
	cfg := opts{TrainConfig: TrainConfig{Epochs: 40, ValidationFraction: 0.3, Patience: 2, MinDelta: 1e-9, Seed: 9, Init: InitRandom, Eta: 0.02}}
	m, h, err := Train(context.Background(), legacyOptions(cfg.Config, cfg.TrainConfig), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	if !h.EarlyStopped || len(h.Epochs) >= 40 {
		t.Fatalf("no early stop: %d epochs", len(h.Epochs))
	}
	best := h.Epochs[h.Best]
	for i, st := range h.Epochs {
		if math.IsNaN(st.ValAccuracy) {
			t.Fatal("no validation accuracy")
		}
		if st.ValAccuracy > best.ValAccuracy || (i < h.Best && st.ValAccuracy == best.ValAccuracy) { // MinDelta > 0: ties do not improve
			t.Errorf("epoch %d has validation accuracy %v, best (%d) %v", i, st.ValAccuracy, h.Best, best.ValAccuracy)
		}
	}
	if len(h.Epochs)-1-h.Best != cfg.Patience || m.Epochs() != best.Epoch {
		t.Errorf("stopped after %d epochs, best %d, model at epoch %d", len(h.Epochs), h.Best, m.Epochs())
	}
	// The returned model is the best epoch's: retraining for that many
	// epochs without early stopping gives the same parameters.
	cfg.Patience = 0
	cfg.Epochs = best.Epoch
	m2, _, err := Train(context.Background(), legacyOptions(cfg.Config, cfg.TrainConfig), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	for k := range m.protos {
		if !equalFloats(m.protos[k].Data, m2.protos[k].Data) {
			t.Fatal("restored model differs from the best epoch's")
		}
	}
}

// TestOptionsJSON: Options encode with encoding/json (the enums as their
// words, the hooks left out) and decode to the same values.
func TestOptionsJSON(t *testing.T) {
	o := DefaultOptions()
	o.Model = Config{SubspaceDim: 4, PrototypesPerClass: 2, PrototypesOfClass: []int{1, 3}, Relevance: RelevanceLocal,
		ClassNames: []string{"a", "b"}, Distance: Chordal, Precision: Float32, ImageWidth: 8, ImageHeight: 2}
	o.Train.Init, o.Train.Schedule, o.Train.Activation = InitSample, ScheduleAnneal, Sigmoid
	o.Train.Eta, o.Train.Tau, o.Train.ValidationFraction, o.Train.Patience, o.Train.MinDelta = 0.125, 3.5, 0.25, 4, 0.01
	o.Train.ClassWeights, o.Train.Workers, o.Train.Seed = true, 3, 1<<60+7
	o.Predict.RejectMargin = 0.2
	hooked := o
	hooked.Train.OnEpoch = func(EpochStats) error { return nil }
	hooked.Train.Augment = func(context.Context, *Model, int) ([]Sample, []int, error) { return nil, nil, nil }
	for _, c := range []struct {
		name  string
		in    Options
		words []string
	}{
		{"defaults", DefaultOptions(), []string{`"pca"`, `"global"`, `"geodesic"`, `"float64"`, `"constant"`, `"identity"`}},
		{"set", o, []string{`"sample"`, `"local"`, `"chordal"`, `"float32"`, `"anneal"`, `"sigmoid"`}},
		{"hooks", hooked, nil},
	} {
		name, in := c.name, c.in
		b, err := json.Marshal(in)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, w := range c.words {
			if !strings.Contains(string(b), w) {
				t.Errorf("%s: %s has no %s", name, b, w)
			}
		}
		var out Options
		if err := json.Unmarshal(b, &out); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := in
		want.Train.OnEpoch, want.Train.Augment = nil, nil
		if !reflect.DeepEqual(out, want) {
			t.Errorf("%s: round trip\n got %+v\nwant %+v", name, out, want)
		}
	}
}

// TestRefusedCombinations: Patience without a validation part (which
// early stopping would ignore) and a class name given twice are refused;
// a file that stores such options, written before the check, still
// loads.
func TestRefusedCombinations(t *testing.T) {
	xs, ys := synth(t, 71, 12, 2, 3, 4, 0.3)
	ctx := context.Background()
	o := legacyOptions(Config{}, TrainConfig{Epochs: 2, Patience: 2})
	if _, _, err := Train(ctx, o, Sets(xs), ys); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "Patience") {
		t.Errorf("Train, Patience without ValidationFraction: %v, want ErrConfig", err)
	}
	m, err := Init(o, Sets(xs), ys) // Init does not train: nothing to ignore
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Continue(ctx, m, o.Train, Sets(xs), ys); !errors.Is(err, ErrConfig) {
		t.Errorf("Continue, Patience without ValidationFraction: %v, want ErrConfig", err)
	}
	if back, err := Load(bytes.NewReader(modelBytes(t, m))); err != nil || back.TrainConfig().Patience != 2 {
		t.Errorf("a file with Patience and no validation part: %v", err)
	}
	ok := o
	ok.Train.ValidationFraction = 0.25
	if _, _, err := Train(ctx, ok, Sets(xs), ys); err != nil {
		t.Errorf("Patience with ValidationFraction: %v", err)
	}

	o.Train.Patience = 0
	for _, names := range [][]string{{"a", "b", "a"}, {"", "x", "x"}} {
		o.Model.ClassNames = names
		if _, _, err := Train(ctx, o, Sets(xs), ys); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "ClassNames") {
			t.Errorf("Train, ClassNames %q: %v, want ErrConfig", names, err)
		}
		if _, err := Init(o, Sets(xs), ys); !errors.Is(err, ErrConfig) {
			t.Errorf("Init, ClassNames %q: %v, want ErrConfig", names, err)
		}
	}
	o.Model.ClassNames = []string{"", "x", ""} // unnamed classes may share ""
	if _, _, err := Train(ctx, o, Sets(xs), ys); err != nil {
		t.Errorf("ClassNames with two empty names: %v", err)
	}
	// A model with a repeated name, as older versions trained and saved
	// it, still loads.
	o.Model.ClassNames = []string{"a", "b", "c"}
	m, err = Init(o, Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	m.cfg.ClassNames[2] = "a"
	if back, err := Load(bytes.NewReader(modelBytes(t, m))); err != nil || back.ClassName(2) != "a" {
		t.Errorf("a file with a repeated class name: %v", err)
	}
}
