package paper

import (
	"context"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/grlgq/grlgq/baseline"
	"github.com/grlgq/grlgq/internal/realdata"
)

// TestETH80Real runs the full ETH-80 protocol (10 random splits, seed 1)
// on the real data (about 8 s on 2 cores, normal build). Measured: GRLGQ
// 93.25% ± 2.06, untrained class-PCA baseline 83.25% ± 4.42 (on a 2-core
// AVX2 machine without AVX-512: 93.50% ± 2.93, the same baseline). It requires
// GRLGQ to beat the baseline by 5 points and to stay above the regression
// floor of 92% (the protocol gives 93.25% on these 10 splits and 92.50%
// ± 0.40 over 100). The paper's 94.5% is NOT reached by the honest protocol
// (every choice made on validation folds of training objects; the paper's
// figure needs the authors' per-split best test epoch, which gives 95.85%
// over the same 100 splits: see docs/notebook.md), so the test does not
// compare with it (the log line shows it). It skips when the data are
// absent (set GRLGQ_DATA).
func TestETH80Real(t *testing.T) {
	dir := realdata.Dir(t, "eth80")
	if testing.Short() {
		t.Skip("real-data protocol; skipped with -short")
	}
	if purego {
		t.Skip("real-data protocol; the normal build runs it (skipped with -tags purego: see purego_on_test.go)")
	}
	t0 := time.Now()
	r, err := Run(context.Background(), "eth80", Options{Dir: dir, Seed: 1, Progress: func(m string) { t.Log(m) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("ETH-80: GRLGQ %.2f%% ± %.2f, baseline %.2f%% ± %.2f, paper %.2f%% ± %.2f; wall %v (baseline %v), test %v",
		100*r.Mean, 100*r.Std, 100*r.BaselineMean, 100*r.BaselineStd, 100*r.Paper, 100*r.PaperStd, r.Wall, r.BaselineWall, time.Since(t0))
	if r.Mean < r.BaselineMean+0.05 {
		t.Errorf("ETH-80: GRLGQ %.2f%% does not beat the untrained baseline %.2f%% by 5 points", 100*r.Mean, 100*r.BaselineMean)
	}
	if r.Mean < 0.92 {
		t.Errorf("ETH-80 mean accuracy %.2f%% below the regression floor 92%%", 100*r.Mean)
	}
}

// TestRealProtocol runs the protocols named in GRLGQ_REAL (comma-separated,
// e.g. "mnist,yale,eth80") on the real data and logs the results.
func TestRealProtocol(t *testing.T) {
	names := os.Getenv("GRLGQ_REAL")
	if names == "" {
		t.Skip("set GRLGQ_REAL=mnist,yale,eth80 to run the full protocols")
	}
	dir := realdata.Dir(t)
	for _, name := range strings.Split(names, ",") {
		r, err := Run(context.Background(), name, Options{Dir: dir, Seed: 1, Progress: func(m string) { t.Log(m) }})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %s", name, r.Protocol)
		t.Logf("%s: GRLGQ %.2f%% ± %.2f, baseline %.2f%% ± %.2f, paper %.2f%% ± %.2f; wall %v, baseline wall %v",
			name, 100*r.Mean, 100*r.Std, 100*r.BaselineMean, 100*r.BaselineStd, 100*r.Paper, 100*r.PaperStd, r.Wall.Round(time.Millisecond), r.BaselineWall.Round(time.Millisecond))
	}
}

// TestYaleRealOneRepetition runs one repetition (4 folds, seed 1) of the
// Yale B protocol on the real data. Measured (the first repetition of
// `grlgq repro yale`, on a 2-core AVX2 machine, training groups made by
// dataset.Groups): GRLGQ 97.19, 96.36, 96.03, 95.83 (mean 96.35%),
// baseline 93.72, 92.56, 90.56, 91.83 (mean 92.17%). It requires GRLGQ to
// beat the baseline by 2 points and to stay above a regression floor of
// 95.5%. It skips when the data are absent (set GRLGQ_DATA).
func TestYaleRealOneRepetition(t *testing.T) {
	dir := realdata.Dir(t, "yaleb32")
	if testing.Short() {
		t.Skip("real-data protocol; skipped with -short")
	}
	if purego {
		t.Skip("real-data protocol; the normal build runs it (skipped with -tags purego: see purego_on_test.go)")
	}
	t0 := time.Now()
	r, err := Run(context.Background(), "yale", Options{Dir: dir, Seed: 1, Runs: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("Yale B, 1 repetition: GRLGQ %.2f%% (%.4v), baseline %.2f%% (%.4v); test %v", 100*r.Mean, r.Accuracies, 100*r.BaselineMean, r.BaselineAccuracies, time.Since(t0))
	if r.Mean < r.BaselineMean+0.02 {
		t.Errorf("Yale B: GRLGQ %.2f%% does not beat the untrained baseline %.2f%% by 2 points", 100*r.Mean, 100*r.BaselineMean)
	}
	if r.Mean < 0.955 {
		t.Errorf("Yale B mean accuracy %.2f%% below the regression floor 95.5%%", 100*r.Mean)
	}
}

// TestMNISTBaselinesReal runs the MNIST protocol's baselines on part of
// the real data: the training sets (m = 48, d = 12) of the first 12,000
// training images (250 sets) against the first 2,000 test images, every
// default method, with 1 and 2 workers (the same result). Measured on the
// full protocol (README): 1-NN 96.75%, 5-NN 96.83%, the SVM 91.08%; here
// it requires 1-NN above 93% and the SVM above 80% (chance: 10%).
func TestMNISTBaselinesReal(t *testing.T) {
	dir := realdata.Dir(t, "mnist")
	if testing.Short() {
		t.Skip("real data; skipped with -short")
	}
	ctx := context.Background()
	data, err := loadMNISTContext(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	x, y, err := groupSubspaces(data.train.Images, data.train.Labels, allIndices(12000), len(data.train.Classes), mnistM, 12, runRNG(1, streamGroups, 0))
	if err != nil {
		t.Fatal(err)
	}
	test, err := imageSubspaces(data.test.Images[:2000])
	if err != nil {
		t.Fatal(err)
	}
	h := []baseline.Holdout{{Train: x, TrainLabels: y, Test: test, TestLabels: data.test.Labels[:2000]}}
	var res [2]*baseline.Result
	for k, w := range []int{1, 2} {
		t0 := time.Now()
		if res[k], err = baseline.EvaluateHoldouts(ctx, h, baseline.Options{Workers: w, Seed: 1}); err != nil {
			t.Fatal(err)
		}
		t.Logf("%d workers: %v (pairs %v)", w, time.Since(t0), res[k].PairsTime)
	}
	for m, a := range res[0].Methods {
		b := res[1].Methods[m]
		if !slices.Equal(a.Correct, b.Correct) || !reflect.DeepEqual(a.Tuned, b.Tuned) {
			t.Errorf("%s: %v %+v with 1 worker, %v %+v with 2", a.Name, a.Correct, a.Tuned, b.Correct, b.Tuned)
		}
		t.Logf("%s: %.2f%%", a.Name, 100*a.Mean)
	}
	if nn, svm := res[0].Methods[0].Mean, res[0].Method(baseline.Method{Kind: baseline.SVM}).Mean; nn < 0.93 || svm < 0.8 {
		t.Errorf("1-NN %.2f%%, SVM %.2f%%: want above 93%% and 80%%", 100*nn, 100*svm)
	}
}
