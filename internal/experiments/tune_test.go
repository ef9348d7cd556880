package experiments

import (
	"context"
	"os"
	"strconv"
	"testing"

	"github.com/grlgq/grlgq/model"
)

// The hyper-parameter studies behind the protocols' fixed choices. They use
// validation splits carved from the TRAINING data only and never read the
// test data. They are slow and run only with GRLGQ_TUNE=1, e.g.
//
//	GRLGQ_TUNE=1 go test -run TestTuneMNIST -v -timeout 2h ./internal/experiments
func tuning(t *testing.T) {
	if os.Getenv("GRLGQ_TUNE") == "" {
		t.Skip("hyper-parameter study: set GRLGQ_TUNE=1 to run")
	}
}

// mnistValidation splits MNIST's 60,000 training images into 50,000 for
// training and 10,000 (1,000 per class, seeded) for validation.
func mnistValidation(t *testing.T) (*mnistData, []int, []int) {
	dir := dataDir(t, "mnist")
	data, err := loadMNIST(dir)
	if err != nil {
		t.Fatal(err)
	}
	rng := runRNG(1, streamVal, 0)
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
