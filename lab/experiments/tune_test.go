package experiments

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/grlgq/grlgq/dataset"
	"github.com/grlgq/grlgq/model"
)

// The hyper-parameter studies behind the protocols' fixed choices. They use
// validation splits carved from the TRAINING data only and never read the
// test data. They are slow and run only with GRLGQ_TUNE=1, e.g.
//
//	GRLGQ_TUNE=1 go test -run TestTuneMNIST -v -timeout 2h ./experiments
func tuning(t *testing.T) {
	if os.Getenv("GRLGQ_TUNE") == "" {
		t.Skip("hyper-parameter study: set GRLGQ_TUNE=1 to run")
	}
}

// mnistValidation splits MNIST's 60,000 training images into 50,000 for
// training and 10,000 (1,000 per class, seeded) for validation.
func mnistValidation(t *testing.T) (*mnistData, []int, []int) {
	return mnistValidationN(t, 0)
}

func TestTuneMNIST(t *testing.T) {
	tuning(t)
	data, tr, va := mnistValidation(t)
	ms := []int{12, 20, 30}
	if s := os.Getenv("GRLGQ_TUNE_M"); s != "" {
		m, _ := strconv.Atoi(s)
		ms = []int{m}
	}
	for _, m := range ms {
		spec := mnistDefault()
		spec.M = m
		if s := os.Getenv("GRLGQ_TUNE_EPOCHS"); s != "" {
			spec.Config.Epochs, _ = strconv.Atoi(s)
		}
		if s := os.Getenv("GRLGQ_TUNE_ETA"); s != "" {
			spec.Config.Eta, _ = strconv.ParseFloat(s, 64)
		}
		if s := os.Getenv("GRLGQ_TUNE_GAMMA"); s != "" {
			spec.Config.Gamma, _ = strconv.ParseFloat(s, 64)
		}
		switch os.Getenv("GRLGQ_TUNE_REL") {
		case "none":
			spec.Config.Relevance = model.RelevanceNone
		case "local":
			spec.Config.Relevance = model.RelevanceLocal
		}
		if s := os.Getenv("GRLGQ_TUNE_SIGMOID"); s != "" {
			spec.Config.Activation = model.Sigmoid
			spec.Config.Beta, _ = strconv.ParseFloat(s, 64)
		}
		if os.Getenv("GRLGQ_TUNE_STEP") != "" {
			spec.Config.Schedule = model.ScheduleStep
		}
		spec.Config.OnEpoch = func(s model.EpochStats) error {
			t.Logf("  m=%d epoch %d cost %.4f train acc %.4f λ %.3f (%v)", m, s.Epoch, s.Cost, s.TrainAccuracy, s.Relevances, s.Duration)
			return nil
		}
		acc, base, td, _, err := mnistOnce(context.Background(), spec, data.train, tr, data.train, va, 1, 0, 2)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("m=%d η=%g γ=%g epochs=%d: validation GRLGQ %.2f%%, baseline %.2f%% (%v)", m, spec.Config.Eta, spec.Config.Gamma, spec.Config.Epochs, 100*acc, 100*base, td)
	}
}

// yaleInner returns, for repetition rep and outer fold f of the protocol's
// seed-1 folds, an inner split of the outer TRAINING part (3 folds): inner
// training = 2 folds, inner validation = 1 fold. The outer test fold is
// never used.
func yaleInner(t *testing.T, rep, f int) (ds *dataset.Dataset, tr, va []int) {
	dir := dataDir(t, "yaleb32")
	var err error
	ds, err = loadYale(dir)
	if err != nil {
		t.Fatal(err)
	}
	folds := stratifiedFolds(ds.Labels, allIndices(ds.Len()), len(ds.Classes), 4, runRNG(1, streamSplit, rep))
	var outer [][]int
	for g := range 4 {
		if g != f {
			outer = append(outer, folds[g])
		}
	}
	tr = append(append([]int(nil), outer[0]...), outer[1]...)
	return ds, tr, outer[2]
}

func TestTuneYale(t *testing.T) {
	tuning(t)
	ds, tr, va := yaleInner(t, 0, 0)
	spec := yaleDefault()
	if s := os.Getenv("GRLGQ_TUNE_M"); s != "" {
		spec.M, _ = strconv.Atoi(s)
	}
	if s := os.Getenv("GRLGQ_TUNE_REGROUP"); s != "" {
		spec.Regroup, _ = strconv.Atoi(s)
	}
	if s := os.Getenv("GRLGQ_TUNE_EPOCHS"); s != "" {
		spec.Config.Epochs, _ = strconv.Atoi(s)
	}
	if s := os.Getenv("GRLGQ_TUNE_ETA"); s != "" {
		spec.Config.Eta, _ = strconv.ParseFloat(s, 64)
	}
	acc, base, td, _, err := yaleOnce(context.Background(), spec, ds, tr, va, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("m=%d regroup=%d η=%g epochs=%d: inner validation GRLGQ %.2f%%, baseline %.2f%% (%v)", spec.M, spec.Regroup, spec.Config.Eta, spec.Config.Epochs, 100*acc, 100*base, td)
}
