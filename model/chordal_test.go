package model

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// chordalGonum returns Σ λ_k (1 − σ_k²) for the singular values σ of
// Pᵀ W (gonum), clamped into [0, 1].
func chordalGonum(p, w *mat.Dense, lam []float64) float64 {
	var m mat.Dense
	m.Mul(p.T(), w)
	var s mat.SVD
	if !s.Factorize(&m, mat.SVDNone) {
		panic("svd")
	}
	var d float64
	for k, v := range s.Values(nil) {
		v = math.Min(math.Max(v, 0), 1)
		d += lam[k] * (1 - v*v)
	}
	return d
}

// chordalOptions returns options of a small chordal model.
func chordalOptions(rel RelevanceKind, per, workers int, seed uint64) Options {
	o := DefaultOptions()
	o.Model.Distance, o.Model.Relevance, o.Model.PrototypesPerClass = Chordal, rel, per
	o.Train.Epochs, o.Train.Eta, o.Train.Gamma, o.Train.Workers, o.Train.Seed = 4, 0.05, 2e-3, workers, seed
	return o
}

// TestChordalDeterministicAndPruned trains chordal models with 1 and 2
// workers and with the pruned and the exhaustive winners' search: the
// same model files, byte for byte; another seed gives another model, and
// the chordal model is not the geodesic one.
func TestChordalDeterministicAndPruned(t *testing.T) {
	x, y := synth(t, 41, 60, 3, 4, 6, 0.05)
	for _, rel := range []RelevanceKind{RelevanceGlobal, RelevanceLocal, RelevanceNone} {
		for _, per := range []int{1, 2} {
			o := chordalOptions(rel, per, 1, 1)
			if per == 2 {
				o.Train.Activation = Sigmoid
			}
			checkPrunedTraining(t, fmt.Sprintf("chordal/relevance %d/%d per class", rel, per), o, x, y, []uint64{1, 2})
		}
	}
	o := chordalOptions(RelevanceGlobal, 2, 1, 7)
	ch := trainBytes(t, o, x, y, false)
	o.Model.Distance = Geodesic
	geo := trainBytes(t, o, x, y, false)
	if bytes.Equal(ch, geo) {
		t.Error("the chordal and the geodesic models are the same")
	}
}

// TestChordalPredictions checks a chordal model's predictions: the
// distances are Σ λ_k (1 − σ_k²) (gonum), the single, batch and engine
// forms give the same bits, the pruned labels (many prototypes) are the
// labels of the distances, and images are at sin²θ_1.
func TestChordalPredictions(t *testing.T) {
	const dim, d = 40, 3
	x, y := synth(t, 42, dim, d, 8, 10, 0.1)
	for _, per := range []int{1, 9} { // 9 per class: 72 prototypes, the pivot search
		o := chordalOptions(RelevanceLocal, per, 2, 3)
		o.Train.Epochs = 2
		m, _, err := Train(context.Background(), o, Sets(x), y)
		if err != nil {
			t.Fatal(err)
		}
		if m.Config().Distance != Chordal {
			t.Fatalf("distance %v", m.Config().Distance)
		}
		samples := Sets(x)
		preds, err := m.PredictBatch(samples)
		if err != nil {
			t.Fatal(err)
		}
		ref := enginePredictions(t, m, samples)
		labels, err := m.PredictLabels(samples)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range preds {
			var single Prediction
			if err := m.PredictTo(&single, samples[i]); err != nil {
				t.Fatal(err)
			}
			for k, dk := range p.Distances {
				want := chordalGonum(toMat(x[i].Basis), toMat(m.protos[k]), m.relevanceOf(k))
				if math.Abs(dk-want) > 1e-13 {
					t.Fatalf("per %d, set %d, prototype %d: %v, gonum %v", per, i, k, dk, want)
				}
				if math.Float64bits(dk) != math.Float64bits(single.Distances[k]) || math.Float64bits(dk) != math.Float64bits(ref[i].Distances[k]) {
					t.Fatalf("set %d prototype %d: batch %v, single %v, engine %v", i, k, dk, single.Distances[k], ref[i].Distances[k])
				}
			}
			if labels[i] != p.Label {
				t.Errorf("per %d, set %d: PredictLabels %d, Predict %d", per, i, labels[i], p.Label)
			}
		}
		if per == 9 {
			if st := m.SearchStats(); st.Prototypes == 0 {
				t.Error("PredictLabels did not search")
			} else {
				t.Logf("72 prototypes: %d searched, %d skipped by the pivots", st.Prototypes, st.Skipped)
			}
		}
	}
	// Images: sin²θ_1.
	o := chordalOptions(RelevanceGlobal, 1, 1, 5)
	m, _, err := Train(context.Background(), o, Sets(x), y)
	if err != nil {
		t.Fatal(err)
	}
	img := make([]float64, dim)
	for i := range img {
		img[i] = float64(i%7) - 2.5
	}
	p, err := m.Predict(Image(img))
	if err != nil {
		t.Fatal(err)
	}
	xv := mat.NewVecDense(dim, append([]float64(nil), img...))
	for k, dk := range p.Distances {
		var yv mat.VecDense
		yv.MulVec(toMat(m.protos[k]).T(), xv)
		c := math.Min(mat.Norm(&yv, 2)/mat.Norm(xv, 2), 1)
		if want := 1 - c*c; math.Abs(dk-want) > 1e-14 {
			t.Errorf("image, prototype %d: %v, want %v", k, dk, want)
		}
	}
}

// TestChordalExplain checks the explanation of a chordal model: its
// distances are Predict's, its contributions λ_k sin²θ_k sum to them, and
// the image support sums to Σ_i g_i cos θ_i with g_i = 2 λ_i cos θ_i.
func TestChordalExplain(t *testing.T) {
	xs, ys, _ := synthSets(t, 43, 30, 3, 8, 3, 4, 0.2)
	o := chordalOptions(RelevanceGlobal, 1, 1, 9)
	m, _, err := Train(context.Background(), o, Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	lam := m.Relevances()
	for i, s := range xs {
		ex, err := m.Explain(Set(s), ys[i])
		if err != nil {
			t.Fatal(err)
		}
		pred, err := m.Predict(Set(s))
		if err != nil {
			t.Fatal(err)
		}
		for _, sd := range []*Side{&ex.Plus, &ex.Minus} {
			if math.Float64bits(sd.Distance) != math.Float64bits(pred.Distances[sd.Prototype]) {
				t.Errorf("set %d: distance %v, Predict %v", i, sd.Distance, pred.Distances[sd.Prototype])
			}
			var sum, pull float64
			for k, c := range sd.Contributions {
				sn := math.Sin(sd.Angles[k])
				if want := lam[k] * sn * sn; math.Abs(c-want) > 1e-16 {
					t.Errorf("set %d: contribution %d %v, λ sin²θ %v", i, k, c, want)
				}
				sum += c
				cs := math.Cos(sd.Angles[k])
				pull += 2 * lam[k] * cs * cs
			}
			if math.Abs(sum-sd.Distance) > 1e-15 {
				t.Errorf("set %d: contributions sum to %v, distance %v", i, sum, sd.Distance)
			}
			var support float64
			for _, v := range sd.ImageSupport {
				support += v
			}
			if sd.ImageSupport == nil || math.Abs(support-pull) > 1e-10 {
				t.Errorf("set %d: image support sums to %v, want Σ 2λ cos²θ = %v", i, support, pull)
			}
		}
	}
}

// TestChordalFile: a chordal model is written as format version 3 with
// distance 1, loads (binary and JSON) with the same bits and the same
// predictions; a version 2 file (any model the package wrote before)
// loads as geodesic; a chordal model's geodesic twin is still version 2.
func TestChordalFile(t *testing.T) {
	x, y := synth(t, 44, 30, 3, 3, 5, 0.1)
	m, _, err := Train(context.Background(), chordalOptions(RelevanceLocal, 2, 1, 4), Sets(x), y)
	if err != nil {
		t.Fatal(err)
	}
	b := modelBytes(t, m)
	if v := binary.LittleEndian.Uint32(b[8:]); v != 3 {
		t.Fatalf("chordal model saved as version %d", v)
	}
	if off := headerSize + configSize; b[off] != byte(Chordal) || b[off+1] != byte(Float64) {
		t.Fatalf("stored distance, precision bytes % x", b[off:off+8])
	}
	back, err := Load(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if back.Config().Distance != Chordal || !bytes.Equal(modelBytes(t, back), b) {
		t.Fatalf("binary round trip: distance %v, same bytes %v", back.Config().Distance, bytes.Equal(modelBytes(t, back), b))
	}
	jb, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(jb, []byte(`"distance":"chordal"`)) {
		t.Errorf("JSON lacks the distance: %.300s", jb)
	}
	var jm Model
	if err := json.Unmarshal(jb, &jm); err != nil {
		t.Fatal(err)
	}
	if jm.Config().Distance != Chordal || !bytes.Equal(modelBytes(t, &jm), b) {
		t.Errorf("JSON round trip: distance %v", jm.Config().Distance)
	}
	for i, s := range Sets(x) {
		p1, err1 := m.Predict(s)
		p2, err2 := back.Predict(s)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		for k := range p1.Distances {
			if math.Float64bits(p1.Distances[k]) != math.Float64bits(p2.Distances[k]) {
				t.Fatalf("set %d: loaded model predicts another distance", i)
			}
		}
	}
	// The same model as geodesic: version 2, and it loads as geodesic.
	g := m.clone()
	g.cfg.Distance = Geodesic
	gb := modelBytes(t, g)
	if v := binary.LittleEndian.Uint32(gb[8:]); v != 2 {
		t.Errorf("geodesic model saved as version %d", v)
	}
	gl, err := Load(bytes.NewReader(gb))
	if err != nil || gl.Config().Distance != Geodesic {
		t.Fatalf("version 2 load: %v, %v", err, gl.Config().Distance)
	}
	// A JSON export without the field (before version 3) is geodesic.
	gj, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(gj, []byte(`"distance"`)) {
		t.Errorf("a geodesic model's JSON names its distance: %.200s", gj)
	}
	// Models of two distances do not average.
	if _, err := Average([]*Model{m, g}); err == nil || !strings.Contains(err.Error(), "distance") {
		t.Errorf("Average of a chordal and a geodesic model: %v", err)
	}
	if a, err := Average([]*Model{m, back}); err != nil || a.Config().Distance != Chordal {
		t.Errorf("Average of chordal models: %v", err)
	}
	// An unknown distance byte is a corrupt file.
	bad := append([]byte(nil), b...)
	bad[headerSize+configSize] = 2
	binary.LittleEndian.PutUint32(bad[len(bad)-4:], crc32.Checksum(bad[:len(bad)-4], castagnoli))
	if _, err := Load(bytes.NewReader(bad)); err == nil {
		t.Error("distance 2 loaded")
	}
}
