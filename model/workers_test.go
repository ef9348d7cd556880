package model

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"testing"

	"github.com/grlgq/grlgq/linalg"
)

// atLeastTwoProcs runs the test with GOMAXPROCS >= 2, so that "all cores"
// and one core differ.
func atLeastTwoProcs(t *testing.T) int {
	if n := runtime.GOMAXPROCS(0); n < 2 {
		runtime.GOMAXPROCS(2)
		t.Cleanup(func() { runtime.GOMAXPROCS(n) })
	}
	return runtime.GOMAXPROCS(0)
}

// crewWorkers returns the workers of m's crew (1: none, every call on
// the caller's goroutine alone).
func crewWorkers(t *testing.T, m *Model) int {
	t.Helper()
	s, err := m.server()
	if err != nil {
		t.Fatal(err)
	}
	if s.crew == nil {
		return 1
	}
	return s.crew.Workers()
}

// TestServingWorkersNotFromTraining: a model trained with Workers 1
// predicts on all cores, as the same model does after Save and Load; the
// training's Workers is not the predictions'.
func TestServingWorkersNotFromTraining(t *testing.T) {
	procs := atLeastTwoProcs(t)
	xs, ys := synth(t, 31, 16, 3, 3, 6, 0.3)
	m, _, err := Train(context.Background(), legacyOptions(Config{PrototypesOfClass: []int{1, 2, 1}}, TrainConfig{Epochs: 2, Workers: 1}), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	want := min(procs, len(m.protos)) // a crew has at most one worker per prototype
	if got := crewWorkers(t, m); got != want {
		t.Errorf("trained with Workers 1: predicts on %d workers, want %d (all cores)", got, want)
	}
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatal(err)
	}
	l, err := Load(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got := crewWorkers(t, l); got != want {
		t.Errorf("loaded: predicts on %d workers, want %d", got, want)
	}
}

// TestWithWorkers: WithWorkers sets the cores of a copy's predictions (not
// m's, not stored in the file, kept by the other With methods), with the
// same predictions for any number, and refuses a number outside [0,
// MaxWorkers].
func TestWithWorkers(t *testing.T) {
	procs := atLeastTwoProcs(t)
	m := trainedModel(t, RelevanceGlobal)
	xs, _ := synth(t, 54, 16, 3, 3, 5, 0.5)
	want, err := m.PredictBatch(Sets(xs))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 1, 2, 3} {
		c, err := m.WithWorkers(n)
		if err != nil {
			t.Fatal(err)
		}
		wantW := n
		if n == 0 {
			wantW = procs
		}
		wantW = min(wantW, len(m.protos))
		if got := crewWorkers(t, c); got != wantW {
			t.Errorf("WithWorkers(%d): %d workers, want %d", n, got, wantW)
		}
		got, err := c.PredictBatch(Sets(xs))
		if err != nil {
			t.Fatal(err)
		}
		for i := range got {
			got[i].Angles = want[i].Angles
			samePrediction(t, "WithWorkers", &got[i], &want[i])
		}
		pc, err := c.WithPredictConfig(DefaultPredictConfig())
		if err != nil {
			t.Fatal(err)
		}
		if pc.workers != n {
			t.Errorf("WithWorkers(%d).WithPredictConfig: workers %d", n, pc.workers)
		}
	}
	if crewWorkers(t, m) != min(procs, len(m.protos)) {
		t.Error("WithWorkers changed m")
	}

	one, err := m.WithWorkers(1)
	if err != nil {
		t.Fatal(err)
	}
	a, err := m.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	b, err := one.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("WithWorkers changed the model file")
	}
	l, err := Load(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if l.workers != 0 {
		t.Errorf("loaded: workers %d, want 0 (all cores)", l.workers)
	}
	for _, n := range []int{-1, MaxWorkers + 1} {
		if _, err := m.WithWorkers(n); !errors.Is(err, ErrConfig) {
			t.Errorf("WithWorkers(%d): %v, want ErrConfig", n, err)
		}
	}
}

// TestHookModelsUseTrainingWorkers: the models a training hands its hooks
// (Augment, EpochStats.Model) predict with the training's Workers, the
// models it returns (the last, the best, the average) on all cores.
func TestHookModelsUseTrainingWorkers(t *testing.T) {
	xs, ys := synth(t, 31, 16, 3, 3, 6, 0.3)
	var seen []int
	tc := TrainConfig{Epochs: 3, Workers: 1,
		Augment: func(_ context.Context, m *Model, _ int) ([]Sample, []int, error) {
			seen = append(seen, m.workers)
			return nil, nil, nil
		},
		OnEpoch: func(st EpochStats) error {
			seen = append(seen, st.Model().workers)
			return nil
		},
	}
	for _, variant := range []string{"last", "average", "best"} {
		seen = seen[:0]
		c := tc
		switch variant {
		case "average":
			c.AverageLast = 2
		case "best":
			c.ValidationFraction, c.Patience = 0.3, 5
		}
		m, _, err := Train(context.Background(), legacyOptions(Config{}, c), Sets(xs), ys)
		if err != nil {
			t.Fatal(err)
		}
		if len(seen) != 6 {
			t.Fatalf("%s: %d hook calls, want 6", variant, len(seen))
		}
		for i, w := range seen {
			if w != 1 {
				t.Errorf("%s: hook model %d: workers %d, want the training's 1", variant, i, w)
			}
		}
		if m.workers != 0 {
			t.Errorf("%s: returned model: workers %d, want 0 (all cores)", variant, m.workers)
		}
	}
}

// TestWithCopiesNoPrototypes: the With methods share the model's
// prototypes (a Model never writes them), so ten WithWorkers and
// WithPredictConfig copies of a model of 96 prototypes allocate less than
// one copy of them; Average and WithPrecision, which write their copy's
// prototypes, leave the model's as they were.
func TestWithCopiesNoPrototypes(t *testing.T) {
	m, _, _ := searchModel(t, 91)
	protoBytes := uint64(m.NumPrototypes() * m.Dim() * m.SubspaceDim() * 8)
	before := make([]*linalg.Dense, m.NumPrototypes())
	for k := range before {
		before[k] = m.Prototype(k)
	}
	var a, b runtimeMem
	a.read()
	for i := 0; i < 10; i++ {
		if _, err := m.WithWorkers(1 + i%2); err != nil {
			t.Fatal(err)
		}
		if _, err := m.WithPredictConfig(m.PredictConfig()); err != nil {
			t.Fatal(err)
		}
	}
	b.read()
	if grew := b.total - a.total; grew >= protoBytes {
		t.Errorf("20 With copies allocated %d bytes, one copy of the prototypes is %d", grew, protoBytes)
	}
	m32, err := m.WithPrecision(Float32) // rounded: other values than m's
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Average([]*Model{m, m32}); err != nil {
		t.Fatal(err)
	}
	for k, w := range before {
		if !equalFloats(m.protos[k].Data, w.Data) {
			t.Fatalf("prototype %d changed by WithPrecision or Average", k)
		}
	}
}
