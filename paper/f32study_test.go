//go:build f32study

package paper

import (
	"context"
	"sync"
	"testing"

	"github.com/grlgq/grlgq/hard"
	"github.com/grlgq/grlgq/internal/realdata"
	"github.com/grlgq/grlgq/model"
)

// TestMNISTFloat32Labels (go test -tags f32study -run MNISTFloat32Labels
// -timeout 0 ./paper, GRLGQ_DATA set) trains run 0 of the MNIST protocol
// (seed 1) with Precision Float64 and Float32 and compares their labels
// on the 10,000 test images: how many differ, and how many of those have
// a float64 margin below 1e-4. Not part of CI (build tag): it takes
// minutes.
func TestMNISTFloat32Labels(t *testing.T) {
	dir := realdata.Dir(t, "mnist/t10k-images-idx3-ubyte.gz")
	data, err := loadMNISTContext(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	spec := mnistDefault()
	const seed, r = 1, 0
	trainIdx, testIdx := allIndices(data.train.Len()), allIndices(data.test.Len())
	x, y, err := groupSubspaces(data.train.Images, data.train.Labels, trainIdx, len(data.train.Classes), spec.M, spec.Setup.Model.SubspaceDim, runRNG(seed, streamGroups, r))
	if err != nil {
		t.Fatal(err)
	}
	var preds [2][]model.Prediction
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, prec := range []model.Precision{model.Float64, model.Float32} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cfg := spec.Setup
			cfg.Model.Precision = prec
			cfg.Train.Seed = modelSeed(seed, r)
			cfg.Train.Workers = 1
			if cfg.Train.Augment, errs[i] = hard.Images(pick(data.train.Images, trainIdx), pick(data.train.Labels, trainIdx), spec.Hard); errs[i] != nil {
				return
			}
			m, _, err := model.Train(context.Background(), cfg, model.Sets(x), y)
			if err != nil {
				errs[i] = err
				return
			}
			preds[i], errs[i] = m.PredictBatch(model.Images(pick(data.test.Images, testIdx)))
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	var right [2]int
	differ, small := 0, 0
	for i := range preds[0] {
		for k := range 2 {
			if preds[k][i].Class == data.test.Labels[testIdx[i]] {
				right[k]++
			}
		}
		if preds[0][i].Class != preds[1][i].Class {
			differ++
			if preds[0][i].Margin < 1e-4 {
				small++
			}
			t.Logf("image %d: float64 class %d (margin %.3g), float32 class %d (margin %.3g)", i, preds[0][i].Class, preds[0][i].Margin, preds[1][i].Class, preds[1][i].Margin)
		}
	}
	n := len(preds[0])
	t.Logf("MNIST run 0, seed 1: float64 %d/%d right (%.2f%%), float32 %d/%d (%.2f%%); %d test labels differ, %d of them with float64 margin < 1e-4",
		right[0], n, 100*float64(right[0])/float64(n), right[1], n, 100*float64(right[1])/float64(n), differ, small)
}

// TestMNISTFloat32Predict (go test -tags f32study -run MNISTFloat32Predict
// -timeout 0 ./paper) separates prediction from training: it trains run
// 0 (seed 1) in float64 and predicts the 10,000 test images with that
// model and with its float32 conversion (Model.WithPrecision), counting
// the labels that differ and how many of them have a float64 margin
// below 1e-4.
func TestMNISTFloat32Predict(t *testing.T) {
	dir := realdata.Dir(t, "mnist/t10k-images-idx3-ubyte.gz")
	data, err := loadMNISTContext(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	spec := mnistDefault()
	const seed, r = 1, 0
	trainIdx, testIdx := allIndices(data.train.Len()), allIndices(data.test.Len())
	x, y, err := groupSubspaces(data.train.Images, data.train.Labels, trainIdx, len(data.train.Classes), spec.M, spec.Setup.Model.SubspaceDim, runRNG(seed, streamGroups, r))
	if err != nil {
		t.Fatal(err)
	}
	cfg := spec.Setup
	cfg.Train.Seed = modelSeed(seed, r)
	cfg.Train.Workers = 2
	if cfg.Train.Augment, err = hard.Images(pick(data.train.Images, trainIdx), pick(data.train.Labels, trainIdx), spec.Hard); err != nil {
		t.Fatal(err)
	}
	m64, _, err := model.Train(context.Background(), cfg, model.Sets(x), y)
	if err != nil {
		t.Fatal(err)
	}
	m32, err := m64.WithPrecision(model.Float32)
	if err != nil {
		t.Fatal(err)
	}
	imgs := model.Images(pick(data.test.Images, testIdx))
	p64, err := m64.PredictBatch(imgs)
	if err != nil {
		t.Fatal(err)
	}
	p32, err := m32.PredictBatch(imgs)
	if err != nil {
		t.Fatal(err)
	}
	differ, small := 0, 0
	for i := range p64 {
		if p64[i].Class != p32[i].Class {
			differ++
			if p64[i].Margin < 1e-4 {
				small++
			}
			t.Logf("image %d: float64 class %d (margin %.3g), float32 class %d (margin %.3g)", i, p64[i].Class, p64[i].Margin, p32[i].Class, p32[i].Margin)
		}
	}
	t.Logf("MNIST run 0, seed 1, one float64 model predicting in float64 and in float32: %d of %d test labels differ, %d of them with float64 margin < 1e-4", differ, len(p64), small)
}
