package model

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/grlgq/grlgq/folds"
	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/subspace"
)

func accuracyOf(t *testing.T, m *Model, xs []*subspace.Subspace, ys []int) float64 {
	t.Helper()
	sc, err := m.Score(Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	return sc.Accuracy()
}

func TestTrainLearnsSynthetic(t *testing.T) {
	xs, ys := synth(t, 1, 40, 3, 4, 30, 0.12)
	train, trainY := xs[:80], ys[:80]
	test, testY := xs[80:], ys[80:]
	cfg := opts{TrainConfig: TrainConfig{Epochs: 15, Init: InitRandom, Eta: 0.05, Seed: 3}}
	m0, err := Init(legacyOptions(cfg.Config, cfg.TrainConfig), Sets(train), trainY)
	if err != nil {
		t.Fatal(err)
	}
	before := accuracyOf(t, m0, test, testY)
	m, h, err := Train(context.Background(), legacyOptions(cfg.Config, cfg.TrainConfig), Sets(train), trainY)
	if err != nil {
		t.Fatal(err)
	}
	after := accuracyOf(t, m, test, testY)
	t.Logf("accuracy before %.3f after %.3f; cost %.4f -> %.4f", before, after, h.Epochs[0].Cost, h.Epochs[len(h.Epochs)-1].Cost)
	if after < 0.95 {
		t.Errorf("test accuracy %.3f after training, want >= 0.95", after)
	}
	if !(h.Epochs[len(h.Epochs)-1].Cost < h.Epochs[0].Cost) {
		t.Errorf("cost did not decrease: %v -> %v", h.Epochs[0].Cost, h.Epochs[len(h.Epochs)-1].Cost)
	}
	if len(h.Epochs) != 15 || m.Epochs() != 15 || h.Best != 14 {
		t.Errorf("history of %d epochs, model epochs %d, best %d", len(h.Epochs), m.Epochs(), h.Best)
	}
	for k := 0; k < m.NumPrototypes(); k++ {
		if e := linalg.OrthonormalityError(m.Prototype(k)); e > 1e-12 {
			t.Errorf("prototype %d orthonormality error %g", k, e)
		}
	}
	var sum float64
	for _, l := range m.Relevances() {
		sum += l
	}
	if math.Abs(sum-1) > 1e-12 {
		t.Errorf("relevances sum to %v", sum)
	}
}

// modelBytes returns m's binary encoding.
func modelBytes(t testing.TB, m *Model) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := m.Save(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestDeterministicAcrossWorkers(t *testing.T) {
	xs, ys := synth(t, 5, 30, 4, 5, 8, 0.4)
	var ref []byte
	for _, w := range []int{1, 2, 8} {
		for _, rel := range []RelevanceKind{RelevanceGlobal, RelevanceLocal} {
			cfg := opts{Config: Config{PrototypesPerClass: 2, Relevance: rel}, TrainConfig: TrainConfig{Epochs: 4, Workers: w, Seed: 11, ValidationFraction: 0.25}}
			m, _, err := Train(context.Background(), legacyOptions(cfg.Config, cfg.TrainConfig), Sets(xs), ys)
			if err != nil {
				t.Fatal(err)
			}
			b := modelBytes(t, m)
			if rel != RelevanceGlobal {
				continue
			}
			if ref == nil {
				ref = b
			} else if !bytes.Equal(ref, b) {
				t.Errorf("workers=%d: model bytes differ from workers=1", w)
			}
		}
	}
	// Same seed twice: same bytes; other seed: different.
	cfg := opts{Config: Config{PrototypesPerClass: 2}, TrainConfig: TrainConfig{Epochs: 4, Seed: 11, ValidationFraction: 0.25, Workers: 1}}
	m1, _, _ := Train(context.Background(), legacyOptions(cfg.Config, cfg.TrainConfig), Sets(xs), ys)
	cfg.Seed = 12
	m2, _, _ := Train(context.Background(), legacyOptions(cfg.Config, cfg.TrainConfig), Sets(xs), ys)
	if !bytes.Equal(modelBytes(t, m1), ref) {
		t.Error("same seed gave different bytes")
	}
	if bytes.Equal(modelBytes(t, m2), ref) {
		t.Error("different seed gave the same bytes")
	}
}

func TestTrainEqualsInitThenContinue(t *testing.T) {
	xs, ys := synth(t, 6, 20, 3, 3, 10, 0.3)
	cfg := opts{TrainConfig: TrainConfig{Epochs: 3, Seed: 4, ValidationFraction: 0.2}}
	m1, _, err := Train(context.Background(), legacyOptions(cfg.Config, cfg.TrainConfig), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := folds.ValidationSplit(ys, cfg.ValidationFraction, cfg.Seed)
	xt, yt := make([]*subspace.Subspace, len(tr)), make([]int, len(tr))
	for i, j := range tr {
		xt[i], yt[i] = xs[j], ys[j]
	}
	m0, err := Init(legacyOptions(cfg.Config, cfg.TrainConfig), Sets(xt), yt)
	if err != nil {
		t.Fatal(err)
	}
	m2, _, err := Continue(context.Background(), m0, legacyTrain(cfg.TrainConfig), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(modelBytes(t, m1), modelBytes(t, m2)) {
		t.Error("Train != Continue(Init)")
	}
	// 3 + 2 epochs in two runs equal 5 in one.
	cfg5 := cfg
	cfg5.Epochs = 5
	m5, _, _ := Train(context.Background(), legacyOptions(cfg5.Config, cfg5.TrainConfig), Sets(xs), ys)
	cfg2 := cfg
	cfg2.Epochs = 2
	m32, h, err := Continue(context.Background(), m1, legacyTrain(cfg2.TrainConfig), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	if m32.Epochs() != 5 || h.Epochs[0].Epoch != 4 {
		t.Errorf("continued model has %d epochs, first continued epoch numbered %d", m32.Epochs(), h.Epochs[0].Epoch)
	}
	// The stored config differs (Epochs 2 vs 5): compare the parameters.
	for k := 0; k < m5.NumPrototypes(); k++ {
		a, b := m5.Prototype(k), m32.Prototype(k)
		for i := range a.Data {
			if a.Data[i] != b.Data[i] {
				t.Fatalf("prototype %d differs after 3+2 vs 5 epochs", k)
			}
		}
	}
	if m1.Epochs() != 3 {
		t.Error("Continue changed its input model")
	}
}

func TestCancellation(t *testing.T) {
	xs, ys := synth(t, 7, 20, 3, 3, 10, 0.3)
	ctx, cancel := context.WithCancel(context.Background())
	n := 0
	cfg := opts{TrainConfig: TrainConfig{Epochs: 100, OnEpoch: func(EpochStats) error {
		n++
		if n == 2 {
			cancel()
		}
		return nil
	}}}
	m, h, err := Train(ctx, legacyOptions(cfg.Config, cfg.TrainConfig), Sets(xs), ys)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if m == nil || len(h.Epochs) != 2 || m.Epochs() != 2 {
		t.Fatalf("model %v, %d epochs in history", m != nil, len(h.Epochs))
	}
}

func TestCallbackStop(t *testing.T) {
	xs, ys := synth(t, 7, 20, 3, 3, 10, 0.3)
	var seen []int
	cfg := opts{TrainConfig: TrainConfig{Epochs: 10, OnEpoch: func(s EpochStats) error {
		seen = append(seen, s.Epoch)
		if s.Epoch == 3 {
			return ErrStop
		}
		return nil
	}}}
	m, h, err := Train(context.Background(), legacyOptions(cfg.Config, cfg.TrainConfig), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	if m.Epochs() != 3 || len(h.Epochs) != 3 || len(seen) != 3 || !h.Stopped || h.EarlyStopped {
		t.Errorf("stopped after %d epochs (callback saw %v), Stopped %v, EarlyStopped %v", m.Epochs(), seen, h.Stopped, h.EarlyStopped)
	}
	cfg.OnEpoch = func(EpochStats) error { return nil }
	if _, h, err := Train(context.Background(), legacyOptions(cfg.Config, cfg.TrainConfig), Sets(xs), ys); err != nil || h.Stopped {
		t.Errorf("no stop: Stopped %v (%v)", h.Stopped, err)
	}
	boom := errors.New("boom")
	cfg.OnEpoch = func(EpochStats) error { return boom }
	if _, _, err := Train(context.Background(), legacyOptions(cfg.Config, cfg.TrainConfig), Sets(xs), ys); !errors.Is(err, boom) {
		t.Errorf("callback error not returned: %v", err)
	}
}

func TestStepZeroAlloc(t *testing.T) {
	xs, ys := synth(t, 8, 30, 4, 3, 4, 0.3)
	for _, rel := range []RelevanceKind{RelevanceGlobal, RelevanceLocal} {
		m, err := Init(legacyOptions(Config{Relevance: rel, PrototypesPerClass: 2}, TrainConfig{}), Sets(xs), ys)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := newTrainer(m, legacyTrain(TrainConfig{Workers: 2}))
		if err != nil {
			t.Fatal(err)
		}
		i := 0
		if a := testing.AllocsPerRun(50, func() {
			if _, err := tr.stepSample(Set(xs[i%len(xs)]), ys[i%len(xs)], 0.01, 1e-3); err != nil {
				t.Fatal(err)
			}
			i++
		}); a != 0 {
			t.Errorf("relevance %d: Step allocates %v times", rel, a)
		}
		tr.Close()
		if _, err := tr.stepSample(Set(xs[0]), ys[0], 0.01, 0); !errors.Is(err, errClosed) {
			t.Errorf("closed trainer: %v", err)
		}
	}
}

// TestFailingStepStopsTraining: a NaN that appears in a training set
// during training (the callback corrupts one between epochs) stops
// training with an error naming the epoch and the set, and the model
// returned holds no NaN.
func TestFailingStepStopsTraining(t *testing.T) {
	xs, ys := synth(t, 9, 12, 2, 2, 4, 0.3)
	const bad = 5
	cfg := opts{TrainConfig: TrainConfig{Epochs: 3, Seed: 1, OnEpoch: func(s EpochStats) error {
		if s.Epoch == 1 {
			xs[bad].Basis.Set(3, 1, math.NaN())
		}
		return nil
	}}}
	m, h, err := Train(context.Background(), legacyOptions(cfg.Config, cfg.TrainConfig), Sets(xs), ys)
	if !errors.Is(err, ErrNotFinite) {
		t.Fatalf("err = %v, want ErrNotFinite", err)
	}
	if want := fmt.Sprintf("epoch 2, sample %d", bad); !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not name %q", err, want)
	}
	if m == nil || len(h.Epochs) != 1 {
		t.Fatal("no model returned with the error")
	}
	for k := range m.protos {
		if err := m.protos[k].Validate(); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range m.Relevances() {
		if !finite(l) {
			t.Fatal("non-finite relevance")
		}
	}
}

// TestNonFiniteStep: a non-finite update (here an infinite η) is refused
// before it reaches the model.
func TestNonFiniteStep(t *testing.T) {
	xs, ys := synth(t, 11, 12, 3, 2, 3, 0.3)
	m, err := Init(legacyOptions(Config{}, TrainConfig{Seed: 2}), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := newTrainer(m, legacyTrain(TrainConfig{}))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	before := modelBytes(t, tr.Model())
	for _, eta := range []float64{math.Inf(1), math.NaN()} {
		if _, err := tr.stepSample(Set(xs[1]), ys[1], eta, 0.01); !errors.Is(err, ErrNotFinite) {
			t.Fatalf("η = %v: err = %v, want ErrNotFinite", eta, err)
		}
	}
	if _, err := tr.stepSample(Set(xs[1]), ys[1], 0.01, math.Inf(1)); !errors.Is(err, ErrNotFinite) {
		t.Fatalf("γ = Inf: err = %v, want ErrNotFinite", err)
	}
	if !bytes.Equal(modelBytes(t, tr.Model()), before) {
		t.Error("a refused step changed the model")
	}
}

// TestStepRollback: when re-orthonormalisation fails (on the general
// route, forced here), the prototypes and relevances are restored exactly.
func TestStepRollback(t *testing.T) {
	xs, ys := synth(t, 10, 12, 3, 2, 3, 0.3)
	m, err := Init(legacyOptions(Config{}, TrainConfig{Seed: 2}), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := newTrainer(m, legacyTrain(TrainConfig{}))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	before := modelBytes(t, tr.Model())
	tr.orth.Tol = 2 // every basis is "rank deficient" now
	defer func(v float64) { minExactNorm = v }(minExactNorm)
	minExactNorm = math.Inf(1)
	if _, err := tr.stepSample(Set(xs[1]), ys[1], 0.1, 0.01); !errors.Is(err, ErrNumerical) {
		t.Fatalf("err = %v, want ErrNumerical", err)
	}
	if !bytes.Equal(modelBytes(t, tr.Model()), before) {
		t.Error("failed step changed the model")
	}

	// W⁻'s orthonormalisation fails after W⁺'s succeeded: neither changes.
	tr.orth.Tol = linalg.DefaultTol
	sides := 0
	beforeGeneralOrth = func(t *trainer, side int) {
		sides++
		if side == 1 {
			t.orth.Tol = 2
		}
	}
	defer func() { beforeGeneralOrth = nil }()
	if _, err := tr.stepSample(Set(xs[1]), ys[1], 0.1, 0.01); !errors.Is(err, ErrNumerical) {
		t.Fatalf("W⁻ failing: err = %v, want ErrNumerical", err)
	}
	if sides != 2 {
		t.Fatalf("the general route orthonormalised %d sides, want 2", sides)
	}
	if !bytes.Equal(modelBytes(t, tr.Model()), before) {
		t.Error("a step whose W⁻ failed changed the model")
	}
}
