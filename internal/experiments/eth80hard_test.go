package experiments

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

// Hard view subsets on ETH-80 (GRLGQ_TUNE=1; validation data only), the
// set-level analogue of hardSpec: every training object also has a pool of
// X_POOL random view subsets (X_PSIZE views each, drawn once per inner
// fold; X_PSEED varies the draws); before every epoch the current model
// classifies the pool, and the subsets it misclassifies or separates with
// a relative margin μ = (δ⁻ − δ⁺)/(δ⁻ + δ⁺) below X_HMARGIN (distances of
// the training cost, Σ λ_k sin² θ_k) enter that epoch X_HCOPIES times,
// besides the adopted training sets (the full sets and X_NSUB random
// 20-view subsets per object, β = X_SIGMOID; X_ASEED varies their draws).
// Inner leave-one-object-per-category-out over the 10 splits, as
// TestStudyETH80 with X_INNER=1; X_CPS lists the checkpoints (epochs).
//
//	GRLGQ_TUNE=1 X_SIGMOID=5 X_POOL=16 X_HMARGIN=0.3 X_HCOPIES=2 go test -run TestStudyHardETH80 -v ./internal/experiments

// viewSubsets draws k random size-view subsets of every object of idx.
func viewSubsets(data *eth80Data, idx []int, k, size int, rng *rand.Rand) ([]*subspace.Subspace, []int, error) {
	var xs []*subspace.Subspace
	var ys []int
	sub := make([][]float64, size)
	for _, i := range idx {
		for range k {
			for j, v := range rng.Perm(len(data.imgs[i]))[:size] {
				sub[j] = data.imgs[i][v]
			}
			s, err := setSubspace(sub, 5)
			if err != nil {
				return nil, nil, err
			}
			xs, ys = append(xs, s), append(ys, data.y[i])
		}
	}
	return xs, ys, nil
}

// hardCurve trains on the objects tr (plus augSubsets and the hard pool
// subsets) and returns the accuracy on the whole sets te at each
// checkpoint, and the mean number of hard subsets per epoch.
func hardCurve(ctx context.Context, cfg model.Config, data *eth80Data, tr, te []int, cps []int, h setHard, rng *rand.Rand) ([]float64, float64, error) {
	xtr, ytr := pickSets(data.x, data.y, tr)
	if augSubsets != nil {
		for _, i := range tr {
			for _, s := range augSubsets[i] {
				xtr, ytr = append(xtr, s), append(ytr, data.y[i])
			}
		}
	}
	xte, yte := pickSets(data.x, data.y, te)
	px, py, err := viewSubsets(data, tr, h.Pool, h.Size, rng)
	if err != nil {
		return nil, 0, err
	}
	out := make([]float64, len(cps))
	g, nh := 0, 0
	c := cfg
	c.Epochs = cps[len(cps)-1]
	copies := h.Copies
	if h.Pool == 0 {
		copies = 0
	}
	m, err := trainHardSets(ctx, c, xtr, ytr, px, py, h.Margin, copies, func(e int, m *model.Model, n int) error {
		nh += n
		if e == cps[g] {
			var err error
			if out[g], err = setAccuracy(m, xte, yte, 1); err != nil {
				return err
			}
			g++
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	m.Close()
	return out, float64(nh) / float64(cps[len(cps)-1]), nil
}

func TestStudyHardETH80(t *testing.T) {
	tuning(t)
	dir := dataDir(t, "eth80")
	data, err := loadETH80(dir, 5, 2)
	if err != nil {
		t.Fatal(err)
	}
	augSubsets = subsetSets(t, data, envI("X_NSUB", 4), envI("X_SUBSIZE", 20))
	defer func() { augSubsets = nil }()
	h := setHard{Pool: envI("X_POOL", 16), Size: envI("X_PSIZE", 20), Copies: envI("X_HCOPIES", 1), Margin: envF("X_HMARGIN", 0.1)}
	var cps []int
	for _, s := range strings.Split(envS("X_CPS", "10,20,40,80,160,300"), ",") {
		var v int
		fmt.Sscan(s, &v)
		cps = append(cps, v)
	}
	cfg := model.Config{SubspaceDim: 5, Eta: envF("X_ETA", 0.05), Gamma: envF("X_GAMMA", 1e-4), Workers: 1, ClassNames: data.classes,
		Activation: model.Sigmoid, Beta: envF("X_SIGMOID", 5)}
	// X_SCHED=step (η and γ halved every X_STEPEVERY epochs) or anneal
	// (η/(1 + t/X_TAU)); default constant, as the protocol.
	switch envS("X_SCHED", "constant") {
	case "step":
		cfg.Schedule, cfg.StepEvery = model.ScheduleStep, envI("X_STEPEVERY", 40)
	case "anneal":
		cfg.Schedule, cfg.Tau = model.ScheduleAnneal, envF("X_TAU", 40)
	case "constant":
	default:
		t.Fatalf("X_SCHED %q", envS("X_SCHED", ""))
	}
	splits := envI("X_SPLITS", 10)
	acc := make([][]float64, splits)
	nhard := make([]float64, splits)
	var mu sync.Mutex
	err = forEach(context.Background(), splits, 2, func(s int) error {
		tr, _ := splitSets(data.y, len(data.classes), 5, runRNG(1, streamSplit, s))
		c := cfg
		c.Seed = modelSeed(1+uint64(envI("X_MSEED", 0)), s) // X_MSEED varies the prototype draws and permutations
		pos := map[int]int{}
		rank := make([]int, len(tr))
		for k, i := range tr {
			rank[k] = pos[data.y[i]]
			pos[data.y[i]]++
		}
		sum := make([]float64, len(cps))
		for f := range 5 {
			var a, b []int
			for k, i := range tr {
				if rank[k] == f {
					b = append(b, i)
				} else {
					a = append(a, i)
				}
			}
			rng := rand.New(rand.NewPCG(uint64(s)+uint64(envI("X_PSEED", 0))<<32, uint64(f)+77))
			v, n, err := hardCurve(context.Background(), c, data, a, b, cps, h, rng)
			if err != nil {
				return err
			}
			for g := range cps {
				sum[g] += v[g] / 5
			}
			nhard[s] += n / 5
		}
		acc[s] = sum
		mu.Lock()
		t.Logf("split %d inner %v (hard subsets per epoch %.1f)", s, fmtv(sum), nhard[s])
		mu.Unlock()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("hard=%+v β=%g η=%g nsub=%d subsize=%d sched=%s step=%d τ=%g aseed=%d pseed=%d mseed=%d", h, cfg.Beta, cfg.Eta, envI("X_NSUB", 4), envI("X_SUBSIZE", 20),
		envS("X_SCHED", "constant"), cfg.StepEvery, cfg.Tau, envI("X_ASEED", 0), envI("X_PSEED", 0), envI("X_MSEED", 0))
	for g, e := range cps {
		col := make([]float64, splits)
		for s := range col {
			col[s] = acc[s][g]
		}
		m, sd := meanStd(col)
		t.Logf("epochs %4d: inner %.2f ± %.2f", e, 100*m, 100*sd)
	}
}

func envS(k, def string) string {
	if s := os.Getenv(k); s != "" {
		return s
	}
	return def
}
