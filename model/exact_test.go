package model

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/subspace"
)

// TestStepExactOneStep: from the same state, one step of the exact update
// spans what the plain gonum reference (polar factor by SVD) spans, and
// what the general route (W + P B, then CGS2) spans, to 1e-12 rad, for
// small and large steps, global and local relevances.
func TestStepExactOneStep(t *testing.T) {
	for _, tc := range []struct {
		dim, d int
		eta    float64
		rel    RelevanceKind
		dist   Distance
	}{
		{20, 3, 0.05, RelevanceGlobal, Geodesic},
		{20, 3, 1, RelevanceGlobal, Geodesic},
		{60, 8, 0.05, RelevanceLocal, Geodesic},
		{60, 8, 0.5, RelevanceGlobal, Geodesic},
		{100, 25, 0.05, RelevanceGlobal, Geodesic},
		{20, 3, 1, RelevanceGlobal, Chordal},
		{60, 8, 0.05, RelevanceLocal, Chordal},
		{100, 25, 0.5, RelevanceGlobal, Chordal},
	} {
		t.Run(fmt.Sprintf("D=%d,d=%d,eta=%g,rel=%d,%v", tc.dim, tc.d, tc.eta, tc.rel, tc.dist), func(t *testing.T) {
			xs, ys := synth(t, 31, tc.dim, tc.d, 3, 6, 0.3)
			cfg := opts{Config: Config{Relevance: tc.rel, PrototypesPerClass: 2, Distance: tc.dist}, TrainConfig: TrainConfig{Init: InitRandom, Seed: 3, Workers: 1}}
			m, err := Init(legacyOptions(cfg.Config, cfg.TrainConfig), Sets(xs), ys)
			if err != nil {
				t.Fatal(err)
			}
			full := cfg
			full.TrainConfig = cfg.TrainConfig.legacy()
			var worstRef, worstGen float64
			for i := range xs {
				exact, err := newTrainer(m, legacyTrain(cfg.TrainConfig))
				if err != nil {
					t.Fatal(err)
				}
				general, err := newTrainer(m, legacyTrain(cfg.TrainConfig))
				if err != nil {
					t.Fatal(err)
				}
				ref := toReference(m, full)
				r, err := exact.stepSample(Set(xs[i]), ys[i], tc.eta, 1e-3)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := general.step(xs[i].Basis, ys[i], tc.eta, 1e-3, false); err != nil {
					t.Fatal(err)
				}
				if _, err := ref.Step(toMat(xs[i].Basis), ys[i], tc.eta, 1e-3, 1); err != nil {
					t.Fatal(err)
				}
				for _, k := range []int{r.Plus, r.Minus} {
					worstRef = math.Max(worstRef, maxAngle(toMat(exact.protos[k]), ref.Prototypes[k]))
					worstGen = math.Max(worstGen, sameSpan(exact.protos[k], general.protos[k]))
					if e := linalg.OrthonormalityError(exact.protos[k]); e > 1e-14 {
						t.Errorf("set %d: prototype %d orthonormality error %.3g after one step", i, k, e)
					}
				}
				exact.Close()
				general.Close()
			}
			t.Logf("largest angle after one step: to the reference %.3g, to the general route %.3g", worstRef, worstGen)
			if !(worstRef < 1e-12) || !(worstGen < 1e-12) {
				t.Errorf("spans after one step differ: %.3g rad from the reference, %.3g from the general route", worstRef, worstGen)
			}
		})
	}
}

// driftSteps runs n steps of Step (cycling over the sets at rate eta) and
// returns the largest orthonormality error of the prototypes at the end,
// with the drift check and (logged) without.
func driftSteps(t *testing.T, dim, d, classes, n int, eta float64) float64 {
	t.Helper()
	defer func(v int) { driftEvery = v }(driftEvery)
	driftEvery = math.MaxInt
	raw, _ := driftRun(t, dim, d, classes, n, eta)
	driftEvery = 32
	e, tr := driftRun(t, dim, d, classes, n, eta)
	t.Logf("D=%d d=%d: %d steps at η=%g (%d by the general route): orthonormality error %.3g without the drift check, %.3g with it (%d re-orthonormalisations)",
		dim, d, n, eta, tr.general, raw, e, tr.reorths)
	return e
}

type driftStats struct{ general, reorths int }

func driftRun(t *testing.T, dim, d, classes, n int, eta float64) (float64, driftStats) {
	t.Helper()
	xs, ys := synth(t, 41, dim, d, classes, 5, 0.5)
	m, err := Init(legacyOptions(Config{}, TrainConfig{Init: InitRandom, Seed: 9}), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := newTrainer(m, legacyTrain(TrainConfig{Workers: 1}))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	general := 0
	for s := 0; s < n; s++ {
		i := (s * 7) % len(xs)
		r, err := tr.stepSample(Set(xs[i]), ys[i], eta, 1e-4)
		if err != nil {
			t.Fatal(err)
		}
		if ok, _ := tr.exactCoefficients(r, eta); !ok {
			general++
		}
	}
	var worst float64
	for _, w := range tr.protos {
		worst = math.Max(worst, linalg.OrthonormalityError(w))
	}
	return worst, driftStats{general, tr.reorths}
}

// TestStepExactDrift: the exact update does not re-orthonormalise, so its
// rounding must not accumulate beyond what the drift check repairs: after
// 100,000 steps (every prototype a winner in about two thirds of them)
// the prototypes are orthonormal within 1e-14.
func TestStepExactDrift(t *testing.T) {
	if e := driftSteps(t, 12, 3, 3, 100000, 0.1); !(e <= 1e-14) {
		t.Errorf("orthonormality error %.3g after 100,000 steps", e)
	}
}

// TestStepExactDriftLong is TestStepExactDrift at a larger shape and rate.
func TestStepExactDriftLong(t *testing.T) {
	if testing.Short() {
		t.Skip("long: 100,000 steps at D=100, d=10")
	}
	if e := driftSteps(t, 100, 10, 4, 100000, 0.3); !(e <= 1e-14) {
		t.Errorf("orthonormality error %.3g after 100,000 steps", e)
	}
}

// TestStepDriftCheck: a prototype pushed off orthonormality (1e-10) is
// brought back by the drift check within driftEvery of its updates, and
// a Train whose sets are far from orthonormal (1e-9, accepted up to 1e-6)
// steps them by the general route and returns orthonormal prototypes.
func TestStepDriftCheck(t *testing.T) {
	xs, ys := synth(t, 51, 30, 4, 2, 6, 0.4)
	m, err := Init(legacyOptions(Config{}, TrainConfig{Init: InitRandom, Seed: 2}), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := newTrainer(m, legacyTrain(TrainConfig{Workers: 1}))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	for k, w := range tr.protos {
		for r := 0; r < w.Rows; r++ {
			w.Set(r, 0, w.At(r, 0)*(1+1e-10)+1e-10*float64(r%3)*w.At(r, 1))
		}
		if e := linalg.OrthonormalityError(w); e < 1e-11 {
			t.Fatalf("prototype %d: perturbation too small (%.3g)", k, e)
		}
	}
	// Two prototypes: both win every step.
	for s := 0; s < driftEvery; s++ {
		i := s % len(xs)
		if _, err := tr.stepSample(Set(xs[i]), ys[i], 0.05, 1e-4); err != nil {
			t.Fatal(err)
		}
	}
	for k, w := range tr.protos {
		if e := linalg.OrthonormalityError(w); !(e <= maxDrift) {
			t.Errorf("prototype %d: orthonormality error %.3g after %d updates", k, e, driftEvery)
		}
	}

	rng := rand.New(rand.NewPCG(3, 3))
	sloppy := make([]*subspace.Subspace, len(xs))
	for i, x := range xs {
		b := linalg.NewDense(x.Basis.Rows, x.Basis.Cols)
		b.CopyFrom(x.Basis)
		for j := range b.Data {
			if j%b.Stride < b.Cols {
				b.Data[j] += 1e-9 * rng.NormFloat64()
			}
		}
		sloppy[i] = &subspace.Subspace{Basis: b}
	}
	cfg := opts{TrainConfig: TrainConfig{Epochs: 1, Eta: 0.3, Seed: 2, Workers: 1}}
	mt, _, err := Train(context.Background(), legacyOptions(cfg.Config, cfg.TrainConfig), Sets(sloppy), ys)
	if err != nil {
		t.Fatal(err)
	}
	// The same epoch by hand, by either route.
	m0, err := Init(legacyOptions(cfg.Config, cfg.TrainConfig), Sets(sloppy), ys)
	if err != nil {
		t.Fatal(err)
	}
	byRoute := func(exact bool) *Model {
		tr, err := newTrainer(m0, legacyTrain(cfg.TrainConfig))
		if err != nil {
			t.Fatal(err)
		}
		defer tr.Close()
		full := cfg
		full.TrainConfig = cfg.TrainConfig.legacy()
		eta, gamma := full.rates(0)
		for _, i := range permutation(cfg.Seed, 0, len(sloppy)) {
			if _, err := tr.step(sloppy[i].Basis, ys[i], eta, gamma, exact); err != nil {
				t.Fatal(err)
			}
		}
		if err := tr.checkAll(); err != nil {
			t.Fatal(err)
		}
		return tr.Model()
	}
	general, exact := byRoute(false), byRoute(true)
	for k := 0; k < mt.NumPrototypes(); k++ {
		if !sameBits(mt.protos[k], general.protos[k]) {
			t.Errorf("sloppy sets: prototype %d is not the general route's", k)
		}
		if sameBits(mt.protos[k], exact.protos[k]) {
			t.Errorf("sloppy sets: prototype %d is the exact route's too: the test is vacuous", k)
		}
		if e := linalg.OrthonormalityError(mt.protos[k]); !(e <= maxDrift) {
			t.Errorf("sloppy sets: prototype %d orthonormality error %.3g", k, e)
		}
	}
}

// TestStepExactZeroAlloc: the exact update, its drift check (every
// driftEvery-th update of a prototype) and the after-epoch check
// allocate nothing.
func TestStepExactZeroAlloc(t *testing.T) {
	xs, ys := synth(t, 81, 40, 5, 2, 4, 0.4)
	m, err := Init(legacyOptions(Config{}, TrainConfig{Init: InitRandom, Seed: 5}), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := newTrainer(m, legacyTrain(TrainConfig{Workers: 2}))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	i := 0
	// Two prototypes: both win every step, so 3·driftEvery steps run
	// three drift checks of each.
	if a := testing.AllocsPerRun(3, func() {
		for s := 0; s < driftEvery; s++ {
			if _, err := tr.stepSample(Set(xs[i%len(xs)]), ys[i%len(xs)], 0.05, 1e-3); err != nil {
				t.Fatal(err)
			}
			i++
		}
		if err := tr.checkAll(); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("%d steps and the epoch's check allocate %v times", driftEvery, a)
	}
}
