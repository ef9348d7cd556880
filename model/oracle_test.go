package model

import (
	"context"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/grlgq/grlgq/internal/reference"
)

// toReference builds the reference model with m's prototypes, labels and
// relevances and cfg's options.
func toReference(m *Model, cfg opts) *reference.Model {
	r := &reference.Model{
		Labels:    m.Labels(),
		Floor:     cfg.RelevanceFloor,
		Relevance: cfg.Relevance != RelevanceNone,
		Chordal:   m.cfg.Distance == Chordal,
	}
	if r.Floor == 0 {
		r.Floor = DefaultRelevanceFloor
	}
	if cfg.Activation == Sigmoid {
		r.Beta = cfg.Beta
	}
	for k := 0; k < m.NumPrototypes(); k++ {
		r.Prototypes = append(r.Prototypes, toMat(m.protos[k]))
	}
	if cfg.Relevance == RelevanceLocal {
		for k := 0; k < m.NumPrototypes(); k++ {
			r.LocalLambda = append(r.LocalLambda, append([]float64(nil), m.relevanceOf(k)...))
		}
	} else {
		r.Lambda = m.Relevances()
	}
	return r
}

// TestOracle trains the fast model and the plain gonum reference from the
// same initial prototypes over the same permutations, and checks that they
// pick the same winners at every step and end with the same prototype spans
// and relevances, for 1, 2 and 8 workers.
func TestOracle(t *testing.T) {
	variants := []opts{{Config: Config{Relevance: RelevanceGlobal}, TrainConfig: TrainConfig{Gamma: 2e-3}}, {Config: Config{Relevance: RelevanceLocal}, TrainConfig: TrainConfig{Gamma: 2e-3, Activation: Sigmoid, Beta: 2, ClassWeights: true, Schedule: ScheduleStep, StepEvery: 2}}, {Config: Config{Relevance: RelevanceNone}, TrainConfig: TrainConfig{Init: InitPCA, Schedule: ScheduleAnneal, Tau: 3}}, {Config: Config{Relevance: RelevanceGlobal, PrototypesPerClass: 1}, TrainConfig: TrainConfig{Init: InitRandom, Gamma: 5e-3, RelevanceFloor: 1e-3}},
		// The chordal distance: the same checks against the reference's
		// chordal steps.
		{Config: Config{Relevance: RelevanceGlobal, Distance: Chordal}, TrainConfig: TrainConfig{Gamma: 2e-3}},
		{Config: Config{Relevance: RelevanceLocal, Distance: Chordal}, TrainConfig: TrainConfig{Gamma: 2e-3, Activation: Sigmoid, Beta: 2, ClassWeights: true, Schedule: ScheduleStep, StepEvery: 2}},
		{Config: Config{Relevance: RelevanceGlobal, Distance: Chordal, PrototypesPerClass: 1}, TrainConfig: TrainConfig{Init: InitRandom, Gamma: 5e-3, RelevanceFloor: 1e-3}}}
	const epochs = 6
	xs, ys := synth(t, 21, 20, 3, 3, 8, 0.25)
	for vi, v := range variants {
		for _, workers := range []int{1, 2, 8} {
			t.Run(fmt.Sprintf("variant=%d/workers=%d", vi, workers), func(t *testing.T) {
				cfg := v
				cfg.Workers = workers
				cfg.Seed = 77
				cfg.Epochs = epochs
				if cfg.PrototypesPerClass == 0 {
					cfg.PrototypesPerClass = 2
				}
				m0, err := Init(legacyOptions(cfg.Config, cfg.TrainConfig), Sets(xs), ys)
				if err != nil {
					t.Fatal(err)
				}
				full := cfg
				full.TrainConfig = cfg.TrainConfig.legacy()
				ref := toReference(m0, full)
				samples := make([]*mat.Dense, len(xs))
				for i, x := range xs {
					samples[i] = toMat(x.Basis)
				}
				weights := make([]float64, len(xs))
				counts := make([]int, m0.NumClasses())
				for _, y := range ys {
					counts[y]++
				}
				for i, y := range ys {
					weights[i] = 1
					if full.ClassWeights {
						weights[i] = float64(len(ys)) / float64(len(counts)*counts[y])
					}
				}

				// Step by step: the same winners and distances.
				tr, err := newTrainer(m0, legacyTrain(cfg.TrainConfig))
				if err != nil {
					t.Fatal(err)
				}
				defer tr.Close()
				copy(tr.weights, []float64{weights[0], weights[1], weights[2]}) // ys = 0,1,2,0,1,2,...
				steps := 0
				for e := 0; e < epochs; e++ {
					eta, gamma := full.rates(e)
					for _, i := range permutation(cfg.Seed, e, len(xs)) {
						got, err := tr.stepSample(Set(xs[i]), ys[i], eta, gamma)
						if err != nil {
							t.Fatal(err)
						}
						want, err := ref.Step(samples[i], ys[i], eta, gamma, weights[i])
						if err != nil {
							t.Fatal(err)
						}
						steps++
						if got.Plus != want.Plus || got.Minus != want.Minus {
							t.Fatalf("epoch %d sample %d: winners (%d, %d), reference (%d, %d)", e, i, got.Plus, got.Minus, want.Plus, want.Minus)
						}
						if math.Abs(got.DPlus-want.DPlus) > 1e-10 || math.Abs(got.DMinus-want.DMinus) > 1e-10 || math.Abs(got.Cost-weights[i]*want.Cost) > 1e-10 {
							t.Fatalf("epoch %d sample %d: distances (%v, %v) cost %v, reference (%v, %v) cost %v", e, i, got.DPlus, got.DMinus, got.Cost, want.DPlus, want.DMinus, want.Cost)
						}
					}
				}
				compareWithReference(t, tr.Model(), ref, full)

				// Train (the public path) gives the same model as the steps.
				m, h, err := Train(context.Background(), legacyOptions(cfg.Config, cfg.TrainConfig), Sets(xs), ys)
				if err != nil {
					t.Fatal(err)
				}
				if len(h.Epochs) != epochs {
					t.Fatalf("%d epochs", len(h.Epochs))
				}
				for e, st := range h.Epochs {
					if eta, gamma := full.rates(e); st.Eta != eta || st.Gamma != gamma {
						t.Errorf("epoch %d rates (%v, %v), want (%v, %v)", e, st.Eta, st.Gamma, eta, gamma)
					}
				}
				compareWithReference(t, m, ref, full)
				t.Logf("%d steps; the relevances moved to %.4f", steps, m.Relevances()[:3])
			})
		}
	}
}

func compareWithReference(t *testing.T, m *Model, ref *reference.Model, cfg opts) {
	t.Helper()
	var worst float64
	for k := 0; k < m.NumPrototypes(); k++ {
		worst = math.Max(worst, maxAngle(toMat(m.protos[k]), ref.Prototypes[k]))
	}
	t.Logf("largest principal angle to the reference: %.3g", worst)
	if !(worst < 1e-9) {
		t.Errorf("largest principal angle between our and the reference prototypes: %g", worst)
	}
	var want []float64
	if cfg.Relevance == RelevanceLocal {
		for _, l := range ref.LocalLambda {
			want = append(want, l...)
		}
	} else {
		want = ref.Lambda
	}
	got := m.Relevances()
	if len(got) != len(want) {
		t.Fatalf("%d relevances, reference %d", len(got), len(want))
	}
	moved := false
	for k := range got {
		if !(math.Abs(got[k]-want[k]) <= 1e-9) {
			t.Errorf("relevance %d: %v, reference %v", k, got[k], want[k])
		}
		if math.Abs(got[k]-1/float64(m.d)) > 1e-6 {
			moved = true
		}
	}
	if cfg.Relevance != RelevanceNone && !moved {
		t.Error("relevances never moved: the comparison is vacuous")
	}
}
