package model

import (
	"math"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
	"time"
)

// mnistShapedModel returns a model of D=784, d=12, p=10 (one prototype per
// class, started at one synthetic set each), the shape of an MNIST model.
func mnistShapedModel(t testing.TB) *Model {
	t.Helper()
	xs, ys := synth(t, 60, 784, 12, 10, 1, 0.3)
	m, err := Init(legacyOptions(Config{}, TrainConfig{InitNoise: -1}), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// testImages returns n images of dim pixels: dense N(0,1), and every
// third one with about 80% of its pixels exactly zero (the sparse path).
func testImages(seed uint64, n, dim int) [][]float64 {
	r := rand.New(rand.NewPCG(seed, 3))
	out := make([][]float64, n)
	for i := range out {
		x := make([]float64, dim)
		for j := range x {
			if i%3 != 2 || r.IntN(5) == 0 {
				x[j] = r.NormFloat64()
			}
		}
		x[i%dim] = 1 // never all zero
		out[i] = x
	}
	return out
}

func samePrediction(t *testing.T, what string, got, want *Prediction) {
	t.Helper()
	if got.Label != want.Label || got.Class != want.Class || got.Nearest != want.Nearest || got.Rejected != want.Rejected ||
		math.Float64bits(got.Margin) != math.Float64bits(want.Margin) {
		t.Fatalf("%s: %+v, want %+v", what, got, want)
	}
	for _, s := range [][2][]float64{{got.Distances, want.Distances}, {got.Angles, want.Angles}, {got.Probabilities, want.Probabilities}} {
		if len(s[0]) != len(s[1]) {
			t.Fatalf("%s: lengths differ", what)
		}
		for i := range s[0] {
			if math.Float64bits(s[0][i]) != math.Float64bits(s[1][i]) {
				t.Fatalf("%s: element %d: %v, want %v", what, i, s[0][i], s[1][i])
			}
		}
	}
}

// TestSharedMatchesEngine: the Model's shared path, called from 8
// goroutines at once, gives the bits of a one-worker engine.Engine (the
// path of the Model's methods before they shared their state), for sets
// and images (dense and sparse), single and batch calls, global and local
// relevances.
func TestSharedMatchesEngine(t *testing.T) {
	for _, rel := range []RelevanceKind{RelevanceGlobal, RelevanceLocal} {
		m := trainedModel(t, rel)
		xs, _ := synth(t, 61, 16, 3, 3, 40, 0.5)
		imgs := testImages(62, 120, m.dim)
		flat := make([]float64, 0, len(imgs)*m.dim)
		for _, x := range imgs {
			flat = append(flat, x...)
		}
		want := enginePredictions(t, m, Sets(xs))
		wantI := enginePredictions(t, m, Images(imgs))
		np := len(m.protos)
		var wg sync.WaitGroup
		for g := 0; g < 8; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var out Prediction
				for i := g; i < len(xs); i += 3 {
					if err := m.PredictTo(&out, Set(xs[i])); err != nil {
						t.Error(err)
						return
					}
					samePrediction(t, "set", &out, &want[i])
				}
				for i := g; i < len(imgs); i += 3 {
					if err := m.PredictTo(&out, Image(imgs[i])); err != nil {
						t.Error(err)
						return
					}
					samePrediction(t, "image", &out, &wantI[i])
				}
				labels, err := m.PredictBatch(Sets(xs))
				if err != nil {
					t.Error(err)
					return
				}
				dm, err := m.Distances(Sets(xs))
				if err != nil {
					t.Error(err)
					return
				}
				for i := range xs {
					if labels[i].Label != want[i].Label {
						t.Errorf("PredictBatch %d: %d, want %d", i, labels[i].Label, want[i].Label)
					}
					for k := 0; k < np; k++ {
						if math.Float64bits(dm[i*np+k]) != math.Float64bits(want[i].Distances[k]) {
							t.Errorf("Distances (%d, %d) differs", i, k)
						}
					}
				}
				ilabels, err := m.PredictBatch(rowSamples(flat, m.dim))
				if err != nil {
					t.Error(err)
					return
				}
				idm, err := m.Distances(rowSamples(flat, m.dim))
				if err != nil {
					t.Error(err)
					return
				}
				for i := range imgs {
					if ilabels[i].Label != wantI[i].Label {
						t.Errorf("PredictBatch of images %d: %d, want %d", i, ilabels[i].Label, wantI[i].Label)
					}
					for k := 0; k < np; k++ {
						if math.Float64bits(idm[i*np+k]) != math.Float64bits(wantI[i].Distances[k]) {
							t.Errorf("Distances of images (%d, %d) differs", i, k)
						}
					}
				}
			}()
		}
		wg.Wait()
	}
}

// TestPrototypesOnce: 64 goroutines predicting at once on one model share
// its one packed copy of the prototypes (752 KB at this MNIST shape); what
// they allocate is their pooled workspaces, one per call running at the
// same moment (about 56 KB each when it serves sets and images), and the
// goroutines themselves, where a Predictor per goroutine would copy the
// prototypes 64 times (48 MB). Six bursts, the GC off so that every byte
// allocated is counted; the least of them (a warm pool: the steady state of
// a server) must stay below a quarter of one copy. The first burst's
// figure depends on the OS: on a quiet machine about 2 workspaces (13% of
// a copy), but on a loaded one a thread descheduled in mid-call is
// preempted by the Go scheduler and the next goroutine on its P takes
// another workspace (up to 2.5 copies seen with a load average of 10 on 2
// cores, and a burst in three still taking one workspace more at a load
// of 18, hence six bursts); a copy per caller would cost 64 copies in
// every burst.
func TestPrototypesOnce(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items under the race detector")
	}
	m := mnistShapedModel(t)
	xs, _ := synth(t, 63, m.dim, m.d, 2, 2, 0.5)
	imgs := testImages(64, 8, m.dim)
	var warm Prediction
	if err := m.PredictTo(&warm, Image(imgs[0])); err != nil {
		t.Fatal(err)
	}
	srv := m.srv.Load()
	protoBytes := uint64(srv.eng.Bytes())
	const G = 64
	outs := make([]Prediction, G)
	for g := range outs { // the callers' own results, sized beforehand
		if err := m.PredictTo(&outs[g], Set(xs[0])); err != nil {
			t.Fatal(err)
		}
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	burst := func() uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for g := 0; g < G; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				for i := 0; i < 10; i++ {
					if err := m.PredictTo(&outs[g], Set(xs[(g+i)%len(xs)])); err != nil {
						t.Error(err)
						return
					}
					if err := m.PredictTo(&outs[g], Image(imgs[(g+i)%len(imgs)])); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
		close(start)
		wg.Wait()
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	least := protoBytes
	for b := 0; b < 6; b++ {
		n := burst()
		t.Logf("burst %d: %d concurrent callers allocated %d bytes, %.1f%% of the prototypes' %d", b, G, n, 100*float64(n)/float64(protoBytes), protoBytes)
		least = min(least, n)
	}
	if least > protoBytes/4 {
		t.Errorf("%d concurrent callers allocated at least %d bytes per burst; the prototypes are %d", G, least, protoBytes)
	}
	if m.srv.Load() != srv {
		t.Error("the shared state was rebuilt")
	}
}

// TestConcurrentCollect (meant for -race): predictions from many
// goroutines, single and batch, keep their bits; and a model nobody
// references any more is collected and leaves no goroutine behind (a
// Model has no Close: nothing to release).
func TestConcurrentCollect(t *testing.T) {
	before := runtime.NumGoroutine()
	xs, _ := synth(t, 65, 16, 3, 3, 30, 0.5)
	collected := make(chan struct{})
	func() {
		m := trainedModel(t, RelevanceGlobal)
		runtime.AddCleanup(m, func(ch chan struct{}) { close(ch) }, collected)
		preds, err := m.PredictBatch(Sets(xs))
		if err != nil {
			t.Fatal(err)
		}
		want := labelsOf(preds)
		var callers sync.WaitGroup
		for g := 0; g < 8; g++ {
			callers.Add(1)
			go func() {
				defer callers.Done()
				var out Prediction
				for rep := 0; rep < 20; rep++ {
					for i := g % 3; i < len(xs); i += 5 {
						if err := m.PredictTo(&out, Set(xs[i])); err != nil {
							t.Error(err)
							return
						}
						if out.Label != want[i] {
							t.Errorf("set %d: label %d, want %d", i, out.Label, want[i])
						}
					}
					if g%4 == 0 {
						preds, err := m.PredictBatch(Sets(xs))
						if err != nil {
							t.Error(err)
							return
						}
						labels := labelsOf(preds)
						for i := range labels {
							if labels[i] != want[i] {
								t.Errorf("batch %d: label %d, want %d", i, labels[i], want[i])
							}
						}
					}
				}
			}()
		}
		callers.Wait()
	}()
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		select {
		case <-collected:
		default:
			if time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
				continue
			}
			t.Fatal("an unreferenced Model was not collected")
		}
		break
	}
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines before, %d after", before, n)
	}
}

func predictBurst(t *testing.T, m *Model, d time.Duration) {
	t.Helper()
	xs, _ := synth(t, 66, m.dim, m.d, 2, 2, 0.5)
	imgs := testImages(67, 64, m.dim)
	flat := make([]float64, 0, len(imgs)*m.dim)
	for _, x := range imgs {
		flat = append(flat, x...)
	}
	end := time.Now().Add(d)
	var wg sync.WaitGroup
	for g := 0; g < 2*runtime.GOMAXPROCS(0); g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var out Prediction
			for i := 0; time.Now().Before(end); i++ {
				if err := m.PredictTo(&out, Image(imgs[i%len(imgs)])); err != nil {
					t.Error(err)
					return
				}
				if err := m.PredictTo(&out, Set(xs[i%len(xs)])); err != nil {
					t.Error(err)
					return
				}
				if i%16 == 0 {
					if _, err := m.PredictBatch(rowSamples(flat, m.dim)); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}
