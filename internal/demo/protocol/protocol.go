package protocol

import (
	"github.com/grlgq/grlgq/dataset"
	"github.com/grlgq/grlgq/folds"
	"github.com/grlgq/grlgq/internal/demo"
	"github.com/grlgq/grlgq/model"
)

// The demo's settings: sets of M digits, d = D, TestFraction of each class
// held out for the test; MaxM bounds m (a class has about 125 training
// digits).
const (
	M            = 10
	D            = 4
	TestFraction = 0.3
	MaxM         = 100
)

// Config returns the demo's model (d = D, 3 prototypes per class) and its
// training settings (30 epochs, η 0.05, γ 1e-4, prototypes from training
// sets).
func Config() (model.Config, model.TrainConfig) {
	return model.Config{SubspaceDim: D, PrototypesPerClass: 3},
		model.TrainConfig{Epochs: 30, Eta: 0.05, Gamma: 1e-4, Init: model.InitSample}
}

// Digits returns the embedded digits as a data set (pixels in [0, 1]).
func Digits() (*dataset.Dataset, error) {
	x, y, err := demo.Digits()
	if err != nil {
		return nil, err
	}
	ds := &dataset.Dataset{
		Source:  "embedded UCI digits",
		Classes: []string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"},
		Labels:  y,
		Dim:     demo.DigitWidth * demo.DigitHeight,
		Width:   demo.DigitWidth,
		Height:  demo.DigitHeight,
		Images:  x,
	}
	if err := ds.Validate(); err != nil {
		return nil, err
	}
	return ds, nil
}

// Data is what the demo trains and tests on.
type Data struct {
	Digits *dataset.Dataset
	// TrainIdx and TestIdx are the stratified holdout (ascending indices
	// into Digits.Images).
	TrainIdx, TestIdx []int
	// Train are the training sets (m training digits each, seeded by
	// seed), TestSets the test sets (m test digits each, seed+1).
	Train, TestSets *dataset.Subspaces
}

// Prepare loads the digits, holds out the test digits and groups both
// parts into sets of m digits turned into d-dimensional subspaces (with
// workers goroutines; 0: GOMAXPROCS).
func Prepare(m, d int, seed uint64, workers int) (*Data, error) {
	ds, err := Digits()
	if err != nil {
		return nil, err
	}
	all := make([]int, len(ds.Images))
	for i := range all {
		all[i] = i
	}
	trainIdx, testIdx, err := folds.Holdout(ds.Labels, all, TestFraction, seed)
	if err != nil {
		return nil, err
	}
	train, err := dataset.GroupSubspaces(ds, trainIdx, dataset.GroupOptions{M: m, D: d, Seed: seed, Workers: workers})
	if err != nil {
		return nil, err
	}
	testSets, err := dataset.GroupSubspaces(ds, testIdx, dataset.GroupOptions{M: m, D: d, Seed: seed + 1, Workers: workers})
	if err != nil {
		return nil, err
	}
	return &Data{Digits: ds, TrainIdx: trainIdx, TestIdx: testIdx, Train: train, TestSets: testSets}, nil
}

// Baseline returns the untrained baseline the demo compares with: one
// class-wise PCA prototype per class and uniform relevances λ = 1/d, with
// cfg's and tc's other settings, initialised on the training sets.
func (dt *Data) Baseline(cfg model.Config, tc model.TrainConfig) (*model.Model, error) {
	cfg.PrototypesPerClass, cfg.Relevance = 1, model.RelevanceNone
	tc.Init = model.InitPCA
	return model.Init(cfg, tc, model.Sets(dt.Train.Subs), dt.Train.Labels)
}
