package model

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/grlgq/grlgq/score"
	"github.com/grlgq/grlgq/subspace"
)

func TestPredictMatchesGonum(t *testing.T) {
	m := trainedModel(t, RelevanceLocal)
	xs, _ := synth(t, 51, 16, 3, 3, 4, 0.3)
	for _, x := range xs {
		p, err := m.Predict(Set(x))
		if err != nil {
			t.Fatal(err)
		}
		best, bestK := math.Inf(1), -1
		for k := range m.protos {
			th := anglesGonum(toMat(x.Basis), toMat(m.protos[k]))
			var dk float64
			for i, v := range th {
				dk += m.relevanceOf(k)[i] * v * v
				if math.Abs(p.Angles[k*m.d+i]-v) > 1e-7 { // arccos resolves small angles to ~1e-8
					t.Errorf("angle %d of prototype %d: %v, gonum %v", i, k, p.Angles[k*m.d+i], v)
				}
			}
			if math.Abs(dk-p.Distances[k]) > 1e-12 {
				t.Errorf("distance to %d: %v, gonum %v", k, p.Distances[k], dk)
			}
			if dk < best {
				best, bestK = dk, k
			}
		}
		if p.Nearest != bestK || p.Class != m.labels[bestK] {
			t.Errorf("nearest %d class %d, gonum %d class %d", p.Nearest, p.Class, bestK, m.labels[bestK])
		}
		var sum float64
		argmax := 0
		for c, v := range p.Probabilities {
			sum += v
			if v > p.Probabilities[argmax] {
				argmax = c
			}
		}
		if math.Abs(sum-1) > 1e-12 || argmax != p.Class {
			t.Errorf("probabilities %v (sum %v) for class %d", p.Probabilities, sum, p.Class)
		}
		if p.Margin < 0 || p.Margin > 1 || (p.Rejected != (p.Margin < 0.05)) || (p.Rejected && p.Label != -1) || (!p.Rejected && p.Label != p.Class) {
			t.Errorf("margin %v rejected %v label %d class %d", p.Margin, p.Rejected, p.Label, p.Class)
		}
	}
}

func TestPredictOnImage(t *testing.T) {
	m := trainedModel(t, RelevanceGlobal)
	rng := rand.New(rand.NewPCG(3, 3))
	x := make([]float64, m.dim)
	for i := range x {
		x[i] = rng.NormFloat64() * 7
	}
	p, err := m.Predict(Image(x))
	if err != nil {
		t.Fatal(err)
	}
	u, _ := subspace.FromImage(x)
	for k := range m.protos {
		th := anglesGonum(toMat(u.Basis), toMat(m.protos[k]))[0]
		if math.Abs(p.Angles[k]-th) > 1e-9 || math.Abs(p.Distances[k]-th*th) > 1e-9 {
			t.Errorf("prototype %d: θ %v d %v, gonum θ %v", k, p.Angles[k], p.Distances[k], th)
		}
	}
	if _, err := m.Predict(Image(make([]float64, m.dim))); !errors.Is(err, ErrData) {
		t.Errorf("zero image: %v", err)
	}
	x[3] = math.NaN()
	if _, err := m.Predict(Image(x)); !errors.Is(err, ErrNotFinite) {
		t.Errorf("NaN image: %v", err)
	}
	if _, err := m.Predict(Image(x[:5])); !errors.Is(err, ErrData) {
		t.Errorf("short image: %v", err)
	}
	xs, _ := synth(t, 52, 16, 2, 3, 1, 0.3)
	if _, err := m.Predict(Set(xs[0])); !errors.Is(err, ErrData) {
		t.Errorf("wrong d: %v", err)
	}
}

func TestPredictZeroAlloc(t *testing.T) {
	m := trainedModel(t, RelevanceGlobal)
	xs, _ := synth(t, 53, 16, 3, 3, 1, 0.3)
	var out Prediction
	img := make([]float64, m.dim)
	img[0], img[5] = 1, 2
	_ = m.PredictTo(&out, Set(xs[0]))
	for name, f := range map[string]func(){
		"PredictTo":       func() { _ = m.PredictTo(&out, Set(xs[0])) },
		"PredictTo/image": func() { _ = m.PredictTo(&out, Image(img)) },
	} {
		if raceEnabled {
			continue // sync.Pool drops items under the race detector
		}
		if a := testing.AllocsPerRun(20, f); a != 0 {
			t.Errorf("%s: %v allocations", name, a)
		}
	}
	if out.Label < -1 || out.Label >= 3 {
		t.Error("no prediction made")
	}
}

// TestBatchAllocs: the batch methods allocate their scratch once per call,
// not once per sample: as many allocations for 64 samples as for 8 (into
// predictions whose slices are large enough), images back to back or not.
func TestBatchAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items under the race detector")
	}
	m := withWorkers(trainedModel(t, RelevanceGlobal), 1)
	allocs := func(n int, scattered bool) float64 {
		batch := make([]float64, n*m.dim)
		for i := range batch {
			batch[i] = float64(i%13) + 1
		}
		rows := make([][]float64, n)
		for i := range rows {
			rows[i] = batch[i*m.dim : (i+1)*m.dim]
		}
		if scattered {
			rows = append(rows[n/2:], rows[:n/2]...)
		}
		x := Images(rows)
		dst := make([]Prediction, n)
		if err := m.PredictBatchTo(dst, x); err != nil {
			t.Fatal(err)
		}
		return testing.AllocsPerRun(10, func() { _ = m.PredictBatchTo(dst, x) })
	}
	for _, sc := range []bool{false, true} {
		if a, b := allocs(8, sc), allocs(64, sc); a != b || a > 6 {
			t.Errorf("scattered %v: %v allocations for 8 images, %v for 64", sc, a, b)
		}
	}
}

func TestBatchEqualsSingle(t *testing.T) {
	m0 := trainedModel(t, RelevanceGlobal)
	xs, _ := synth(t, 54, 16, 3, 3, 5, 0.5)
	n := 13
	imgs := make([]float64, n*20)
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range imgs {
		imgs[i] = rng.NormFloat64()
	}
	for _, w := range []int{1, 2, 8} {
		m := withWorkers(m0, w)
		dist, err := m.Distances(Sets(xs))
		if err != nil {
			t.Fatal(err)
		}
		preds, err := m.PredictBatch(Sets(xs))
		if err != nil {
			t.Fatal(err)
		}
		for i, x := range xs {
			p, err := m.Predict(Set(x))
			if err != nil {
				t.Fatal(err)
			}
			for k, v := range p.Distances {
				if v != dist[i*len(m.protos)+k] || v != preds[i].Distances[k] {
					t.Fatalf("workers %d: batch distance differs from single", w)
				}
			}
			b := preds[i]
			if b.Label != p.Label || b.Class != p.Class || b.Nearest != p.Nearest || b.Margin != p.Margin || b.Rejected != p.Rejected ||
				!slices.Equal(b.Probabilities, p.Probabilities) || len(b.Angles) != 0 {
				t.Fatalf("workers %d: batch prediction %+v, single %+v", w, b, p)
			}
		}
		rows := make([][]float64, n) // stride 20: copied into one block
		for i := range rows {
			rows[i] = imgs[i*20 : i*20+16]
		}
		ipreds, err := m.PredictBatch(Images(rows))
		if err != nil {
			t.Fatal(err)
		}
		idist, err := m.Distances(Images(rows))
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			p, err := m.Predict(Image(rows[i]))
			if err != nil {
				t.Fatal(err)
			}
			if p.Label != ipreds[i].Label {
				t.Fatalf("workers %d: image batch label %d, single %d", w, ipreds[i].Label, p.Label)
			}
			for k, v := range p.Distances {
				if v != idist[i*len(m.protos)+k] {
					t.Fatalf("workers %d: image batch distance differs from single", w)
				}
			}
		}
		// Score counts the batch's labels.
		y := make([]int, len(xs))
		for i := range y {
			y[i] = i % 4 // class 3 is unknown to the model
		}
		sc, err := m.Score(Sets(xs), y)
		if err != nil {
			t.Fatal(err)
		}
		if want := score.Count(m.NumClasses(), y, labelsOf(preds)); !reflect.DeepEqual(sc, want) {
			t.Fatalf("workers %d: Score %+v, want %+v", w, sc, want)
		}
	}
}

func TestRejectAndTemperature(t *testing.T) {
	xs, ys := synth(t, 55, 16, 3, 3, 6, 0.3)
	probe, _ := synth(t, 56, 16, 3, 3, 3, 0.8)
	base := opts{TrainConfig: TrainConfig{Epochs: 2, Seed: 1}}
	predict := func(cfg opts) []*Prediction {
		m, _, err := Train(context.Background(), legacyOptions(cfg.Config, cfg.TrainConfig), Sets(xs), ys)
		if err != nil {
			t.Fatal(err)
		}
		if m, err = m.WithPredictConfig(legacyPredict(cfg.PredictConfig)); err != nil {
			t.Fatal(err)
		}
		var out []*Prediction
		for _, x := range probe {
			p, err := m.Predict(Set(x))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, p)
		}
		return out
	}
	plain := predict(base)
	// Threshold at the median margin: about half rejected, exactly those below.
	margins := make([]float64, len(plain))
	for i, p := range plain {
		margins[i] = p.Margin
		if p.Rejected || p.Label != p.Class {
			t.Fatal("rejection with RejectMargin 0")
		}
	}
	thr := median(margins)
	cfg := base
	cfg.RejectMargin = thr
	rejected := 0
	for i, p := range predict(cfg) {
		if p.Margin != plain[i].Margin {
			t.Fatal("RejectMargin changed the margins")
		}
		if (p.Margin < thr) != (p.Label == -1) || p.Class != plain[i].Class {
			t.Errorf("margin %v threshold %v label %d", p.Margin, thr, p.Label)
		}
		if p.Label == -1 {
			rejected++
		}
	}
	if rejected == 0 || rejected == len(plain) {
		t.Errorf("%d of %d rejected at the median margin", rejected, len(plain))
	}
	// A lower temperature sharpens the probabilities.
	cfg = base
	cfg.Temperature = 0.01
	for i, p := range predict(cfg) {
		hot, cold := plain[i].Probabilities[p.Class], p.Probabilities[p.Class]
		if !(cold >= hot) {
			t.Errorf("T=0.01 top probability %v < T=0.1 %v", cold, hot)
		}
	}
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return s[len(s)/2]
}

// TestConcurrentPredict runs the Model's shared path from several
// goroutines (meant for -race).
func TestConcurrentPredict(t *testing.T) {
	m := trainedModel(t, RelevanceGlobal)
	xs, _ := synth(t, 57, 16, 3, 3, 4, 0.3)
	want, err := m.PredictBatch(Sets(xs))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var p Prediction
			for i, x := range xs {
				if err := m.PredictTo(&p, Set(x)); err != nil {
					t.Error(err)
					return
				}
				if p.Label != want[i].Label {
					t.Errorf("concurrent prediction %d differs", i)
				}
			}
		}()
	}
	wg.Wait()
}
