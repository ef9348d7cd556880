package experiments

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

// Hard-example groups (GRLGQ_TUNE=1; validation data only): every Every
// epochs the current model classifies the training images one by one
// (θ_1 rule), and the images it misclassifies or classifies with a
// relative margin below Margin become extra training sets of M same-class
// images, added Copies times to the random groups of the epoch. The
// training samples stay d-dimensional subspaces of M >= d images of one
// class (the paper's set-based training).
//
//	GRLGQ_TUNE=1 X_HARD="m=12,margin=0.05,copies=1,every=1,mode=pair" X_RUNS="1e-3,1e-6,0,20" go test -run TestStudyHardMNIST -v -timeout 1h ./experiments
//	GRLGQ_TUNE=1 X_HARD="m=7,margin=0.05" X_ETA=1e-3 go test -run TestStudyHardYale -v ./experiments

func parseHard(s string) hardSpec {
	h := hardSpec{M: 12, Margin: 0.05, Copies: 1, Every: 1, Mode: "pair"}
	for _, kv := range strings.Split(s, ",") {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "m":
			h.M, _ = strconv.Atoi(v)
		case "margin":
			h.Margin, _ = strconv.ParseFloat(v, 64)
		case "copies":
			h.Copies, _ = strconv.Atoi(v)
		case "every":
			h.Every, _ = strconv.Atoi(v)
		case "mode":
			h.Mode = v
		case "min":
			h.Min, _ = strconv.Atoi(v)
		}
	}
	return h
}

func hardConfig(cfg *Setup) {
	if os.Getenv("X_SIGMOID") != "" {
		cfg.Activation = model.Sigmoid
		cfg.Beta = envF("X_SIGMOID", 1)
	}
	switch os.Getenv("X_SCHED") {
	case "step":
		cfg.Schedule = model.ScheduleStep
		cfg.StepEvery = envI("X_STEP", 10)
	case "anneal":
		cfg.Schedule = model.ScheduleAnneal
		cfg.Tau = envF("X_TAU", 10)
	}
	switch os.Getenv("X_REL") {
	case "none":
		cfg.Relevance = model.RelevanceNone
	case "local":
		cfg.Relevance = model.RelevanceLocal
	}
}

// TestStudyHardMNIST: 50,000/10,000 split of the training file (test file
// never read). X_RUNS: ";"-separated "eta,gamma,beta,epochs"; X_HARD the
// hard spec ("" or m=0: random groups only); X_VAL=1 uses a second,
// independent validation split (stream VALI+1).
func TestStudyHardMNIST(t *testing.T) {
	tuning(t)
	data, tr, va := mnistValidationN(t, envI("X_VAL", 0))
	m := envI("X_M", 48)
	h := parseHard(os.Getenv("X_HARD"))
	every := envI("X_EVERY", 2)
	grng := runRNG(1, streamGroups, 0)
	x, y, err := groupSubspaces(data.train.Images, data.train.Labels, tr, 10, m, 12, grng)
	if err != nil {
		t.Fatal(err)
	}
	for _, run := range strings.Split(os.Getenv("X_RUNS"), ";") {
		f := strings.Split(run, ",")
		eta, _ := strconv.ParseFloat(f[0], 64)
		gamma, _ := strconv.ParseFloat(f[1], 64)
		beta, _ := strconv.ParseFloat(f[2], 64)
		epochs, _ := strconv.Atoi(f[3])
		cfg := Setup{Config: model.Config{SubspaceDim: 12}, TrainConfig: model.TrainConfig{Init: model.InitPCA, Eta: eta, Gamma: gamma, Workers: 2, Seed: 1, Epochs: epochs}}
		hardConfig(&cfg)
		if beta > 0 {
			cfg.Activation = model.Sigmoid
			cfg.Beta = beta
		}
		t.Logf("m=%d η=%g γ=%g β=%g epochs=%d sched=%q rel=%q hard=%+v", m, eta, gamma, beta, epochs, os.Getenv("X_SCHED"), os.Getenv("X_REL"), h)
		mod, err := trainHard(context.Background(), cfg, x, y, data.train.Images, data.train.Labels, tr, 10, h, 2, func(e int, mod *model.Model, nhard, nsets int) {
			if e%every == 0 || e == epochs {
				acc, _ := imageAccuracy(mod, data.train.Images, data.train.Labels, va, 2)
				t.Logf("epoch %d: val %.2f%% (hard images %d, hard sets %d, λ %.3f)", e, 100*acc, nhard, nsets, mod.Relevances())
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		mod.Close()
	}
}

// mnistValidationN is mnistValidation with validation split v (stream
// VALI+v; v = 0 is mnistValidation's).
func mnistValidationN(t *testing.T, v int) (*mnistData, []int, []int) {
	dir := dataDir(t, "mnist")
	data, err := loadMNIST(dir)
	if err != nil {
		t.Fatal(err)
	}
	rng := runRNG(1, streamVal, v)
	perm := rng.Perm(data.train.Len())
	var tr, va []int
	per := make([]int, len(data.train.Classes))
	for _, i := range perm {
		c := data.train.Labels[i]
		if per[c] < 1000 {
			per[c]++
			va = append(va, i)
		} else {
			tr = append(tr, i)
		}
	}
	return data, tr, va
}

// TestStudyHardYale: inner split (X_REP, X_FOLD) of the training part of an
// outer fold; X_FOLDS="0,1,2,3" runs several outer folds and sums.
func TestStudyHardYale(t *testing.T) {
	tuning(t)
	m := envI("X_M", 14)
	ngroup := envI("X_NGROUP", 5)
	epochs := envI("X_EPOCHS", 200)
	every := envI("X_EVERY", 50)
	h := parseHard(os.Getenv("X_HARD"))
	folds := []int{envI("X_FOLD", 0)}
	if s := os.Getenv("X_FOLDS"); s != "" {
		folds = nil
		for _, f := range strings.Split(s, ",") {
			v, _ := strconv.Atoi(f)
			folds = append(folds, v)
		}
	}
	ncp := epochs/every + 1
	corr := make([][]float64, len(folds)) // accuracy at each checkpoint
	base := make([]float64, len(folds))
	nva := 0
	err := forEach(context.Background(), len(folds), envI("X_PAR", 2), func(fi int) error {
		ds, tr, va := yaleInner(t, envI("X_REP", 0), folds[fi])
		if fi == 0 {
			nva = len(va)
		}
		grng := runRNG(1, streamGroups, 0)
		var x []*subspace.Subspace
		var y []int
		for range ngroup {
			xs, ys, err := groupSubspaces(ds.Images, ds.Labels, tr, len(ds.Classes), m, 7, grng)
			if err != nil {
				return err
			}
			x, y = append(x, xs...), append(y, ys...)
		}
		cfg := Setup{Config: model.Config{SubspaceDim: 7}, TrainConfig: model.TrainConfig{Init: model.InitPCA, Eta: envF("X_ETA", 1e-3), Gamma: envF("X_GAMMA", 1e-5), Workers: 1, Seed: 1, Epochs: epochs}}
		hardConfig(&cfg)
		corr[fi] = make([]float64, ncp)
		mod, err := trainHard(context.Background(), cfg, x, y, ds.Images, ds.Labels, tr, len(ds.Classes), h, 1, func(e int, mod *model.Model, nhard, nsets int) {
			if e%every == 0 {
				acc, _ := imageAccuracy(mod, ds.Images, ds.Labels, va, 1)
				if e == 0 {
					base[fi] = acc
				}
				corr[fi][e/every] = acc
				t.Logf("fold %d epoch %d: val %.2f%% (%d images; hard images %d, hard sets %d)", folds[fi], e, 100*acc, len(va), nhard, nsets)
			}
		})
		if err != nil {
			return err
		}
		mod.Close()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("η=%g γ=%g hard=%+v sched=%q β=%q", envF("X_ETA", 1e-3), envF("X_GAMMA", 1e-5), h, os.Getenv("X_SCHED"), os.Getenv("X_SIGMOID"))
	logFoldMeans(t, "", fmt.Sprintf("; ~%d images per fold", nva), every, corr)
}

// logFoldMeans logs, for every checkpoint cp (epoch cp*every), the mean of
// the folds' accuracies corr[fold][cp] and the accuracies themselves.
func logFoldMeans(t *testing.T, prefix, suffix string, every int, corr [][]float64) {
	t.Helper()
	for cp := range corr[0] {
		var s []string
		var mean float64
		for _, c := range corr {
			s = append(s, strconv.FormatFloat(100*c[cp], 'f', 2, 64))
			mean += c[cp] / float64(len(corr))
		}
		t.Logf("%sepoch %d: mean %.2f%% (%s%s)", prefix, cp*every, 100*mean, strings.Join(s, " "), suffix)
	}
}
