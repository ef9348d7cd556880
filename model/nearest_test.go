package model

import (
	"fmt"
	"testing"

	"github.com/grlgq/grlgq/subspace"
)

// TestPredictBatchSearch checks the labels of the pruned nearest-prototype
// search (sets, at least engine.PivotMinP prototypes) against those of
// PredictTo, which computes every distance: a model of 12 classes with 8
// prototypes each, with and without a reject margin, through
// Model.PredictLabels and Model.Score with 1 and 2 workers.
func TestPredictBatchSearch(t *testing.T) {
	m, _, _ := searchModel(t, 61)
	test, _ := synth(t, 62, m.dim, m.d, m.classes, 3, 0.02)
	samples := make([]Sample, len(test))
	for i, s := range test {
		samples[i] = Set(s)
	}
	samples = append(samples, Set(&subspace.Subspace{Basis: m.Prototype(5)}))
	for _, reject := range []float64{0, 0.05, 0.3} {
		mr := m.clone()
		mr.pred.RejectMargin = reject
		want := make([]int, len(samples))
		for i, s := range samples {
			p, err := mr.Predict(s)
			if err != nil {
				t.Fatal(err)
			}
			want[i] = p.Label
		}
		check := func(name string, got []int) {
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("reject %g, %s: sample %d: label %d, PredictTo %d", reject, name, i, got[i], want[i])
				}
			}
		}
		for _, workers := range []int{1, 2} {
			mw := withWorkers(mr, workers)
			labels, err := mw.PredictLabels(samples)
			if err != nil {
				t.Fatal(err)
			}
			check(fmt.Sprintf("PredictLabels, %d workers", workers), labels)
			if st := mw.SearchStats(); st.Prototypes != int64(len(samples)*mw.NumPrototypes()) {
				t.Errorf("reject %g, %d workers: SearchStats counts %d prototypes, want %d", reject, workers, st.Prototypes, len(samples)*mw.NumPrototypes())
			}
			sc, err := mw.Score(samples, want)
			if err != nil {
				t.Fatal(err)
			}
			if n := countNonRejected(want); sc.Correct != n {
				t.Errorf("reject %g, %d workers: Score counts %d correct of PredictTo's own labels, want %d", reject, workers, sc.Correct, n)
			}
		}
	}
}

// searchModel returns a model that the pruned search serves (12 classes
// of 8 prototypes, D = 120, d = 4: at least engine.PivotMinP prototypes),
// initialised from its training sets x (labels y) drawn with seed.
func searchModel(t *testing.T, seed uint64) (*Model, []*subspace.Subspace, []int) {
	t.Helper()
	const dim, d, classes, per = 120, 4, 12, 8
	x, y := synth(t, seed, dim, d, classes, per, 0.01)
	o := DefaultOptions()
	o.Model.PrototypesPerClass, o.Train.Init, o.Train.InitNoise = per, InitSample, 0.005
	m, err := Init(o, Sets(x), y)
	if err != nil {
		t.Fatal(err)
	}
	return m, x, y
}

// countNonRejected counts the labels that are not -1.
func countNonRejected(labels []int) int {
	n := 0
	for _, l := range labels {
		if l >= 0 {
			n++
		}
	}
	return n
}

// TestPredictLabelsSearchAllocs: a served PredictLabelsTo of one set
// through the pruned search allocates nothing once warm (its scratch comes
// from the server's pool), with and without the crew.
func TestPredictLabelsSearchAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items under the race detector")
	}
	m, x, y := searchModel(t, 63)
	one := []Sample{Set(x[3])}
	got := make([]int, 1)
	for _, workers := range []int{1, 2} {
		mw := withWorkers(m, workers)
		if err := mw.PredictLabelsTo(got, one); err != nil {
			t.Fatal(err)
		}
		if st := mw.SearchStats(); st.Prototypes == 0 {
			t.Fatalf("%d workers: the pruned search did not run", workers)
		}
		if a := testing.AllocsPerRun(50, func() { _ = mw.PredictLabelsTo(got, one) }); a != 0 {
			t.Errorf("%d workers: PredictLabelsTo of one set: %v allocations", workers, a)
		}
		if got[0] != y[3] {
			t.Errorf("%d workers: label %d of a training set of class %d", workers, got[0], y[3])
		}
	}
}
