package paper

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/grlgq/grlgq/baseline"
)

func checkResult(t *testing.T, r *Result, n int, minAcc float64) {
	t.Helper()
	if len(r.Accuracies) != n || len(r.BaselineAccuracies) != n {
		t.Fatalf("%s: %d accuracies and %d baseline accuracies, want %d", r.Name, len(r.Accuracies), len(r.BaselineAccuracies), n)
	}
	for i := range n {
		a, b := r.Accuracies[i], r.BaselineAccuracies[i]
		if !(a >= 0 && a <= 1 && b >= 0 && b <= 1) {
			t.Fatalf("%s: run %d accuracy %g baseline %g outside [0, 1]", r.Name, i, a, b)
		}
	}
	if r.Mean < minAcc || r.BaselineMean < minAcc {
		t.Errorf("%s: mean accuracy %.3f (baseline %.3f), want >= %.2f on separable synthetic data", r.Name, r.Mean, r.BaselineMean, minAcc)
	}
	if !(r.Std >= 0) || !(r.Paper > 0.9) || r.Wall <= 0 || r.BaselineWall <= 0 || r.Protocol == "" {
		t.Errorf("%s: bad summary: std %g paper %g wall %v baseline wall %v protocol %q", r.Name, r.Std, r.Paper, r.Wall, r.BaselineWall, r.Protocol)
	}
	t.Logf("%s: GRLGQ %.3f ± %.3f, baseline %.3f ± %.3f, %v", r.Name, r.Mean, r.Std, r.BaselineMean, r.BaselineStd, r.Wall)
}

// TestProtocolsSynthetic runs every protocol end to end on the tiny
// synthetic tree (loading, grouping, splitting, training, testing) with
// shortened training, twice with different numbers of workers: the
// results must be identical.
func TestProtocolsSynthetic(t *testing.T) {
	dir := t.TempDir()
	writeSynthTree(t, dir)
	ctx := context.Background()
	var msgs []string
	var steps [][2]int
	run := func(name string, workers int) *Result {
		opt := Options{Dir: dir, Runs: 2, Seed: 7, Workers: workers, Progress: func(m string) { msgs = append(msgs, m) }, Step: func(done, total int) { steps = append(steps, [2]int{done, total}) }}
		var r *Result
		var err error
		switch name {
		case "mnist":
			s := mnistDefault()
			s.Setup.Train.Epochs = 5
			r, err = runMNISTWith(ctx, opt, s)
		case "yale":
			s := yaleDefault()
			s.Setup.Train.Epochs = 10
			r, err = runYaleWith(ctx, opt, s)
		case "eth80":
			s := eth80Default()
			s.Train = 2
			s.Setup.Train.Epochs = 10
			s.SubsetSize = 6 // the synthetic sets have 8 views
			s.Hard.Size = 6
			r, err = runETH80With(ctx, opt, s)
		}
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return r
	}
	for _, c := range []struct {
		name string
		n    int
	}{{"mnist", 2}, {"yale", 8}, {"eth80", 2}} {
		t.Run(c.name, func(t *testing.T) {
			msgs, steps = nil, nil
			r1 := run(c.name, 1)
			checkResult(t, r1, c.n, 0.9)
			if len(msgs) == 0 || !strings.HasPrefix(msgs[0], c.name) {
				t.Errorf("progress messages %q", msgs)
			}
			// Steps: one per epoch and per evaluation, never backwards,
			// ending at the total.
			if len(steps) < c.n+1 || steps[len(steps)-1][0] != steps[len(steps)-1][1] {
				t.Fatalf("steps %v", steps)
			}
			for i := 1; i < len(steps); i++ {
				if steps[i][0] < steps[i-1][0] || steps[i][1] != steps[0][1] {
					t.Fatalf("steps %v", steps)
				}
			}
			r2 := run(c.name, 3)
			if !slices.Equal(r1.Accuracies, r2.Accuracies) || !slices.Equal(r1.BaselineAccuracies, r2.BaselineAccuracies) {
				t.Errorf("results depend on the number of workers: %v %v vs %v %v", r1.Accuracies, r1.BaselineAccuracies, r2.Accuracies, r2.BaselineAccuracies)
			}
		})
	}
}

// TestRunErrors checks Run's errors: unknown protocol, missing data,
// cancelled context.
func TestRunErrors(t *testing.T) {
	if _, err := Run(context.Background(), "nope", Options{}); !errors.Is(err, ErrUnknown) {
		t.Errorf("unknown protocol: %v", err)
	}
	if _, err := Run(context.Background(), "eth80", Options{Dir: t.TempDir()}); err == nil {
		t.Error("missing data: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	writeSynthTree(t, dir)
	if _, err := Run(ctx, "mnist", Options{Dir: dir, Runs: 1}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: %v", err)
	}
}

// TestProtocolBaselines: the baselines run on the protocols' own splits,
// one accuracy per GRLGQ accuracy (MNIST: per run, the run's training
// sets against the test images), compared with them; with one MNIST run,
// one split without standard errors, the same for 1 and 2 workers.
func TestProtocolBaselines(t *testing.T) {
	dir := t.TempDir()
	writeSynthTree(t, dir)
	ctx := context.Background()
	methods := []baseline.Method{{Kind: baseline.NN, K: 1, Distance: baseline.Geodesic}, {Kind: baseline.SVM}}
	opt := Options{Dir: dir, Runs: 2, Seed: 7, Workers: 2, Baselines: methods}
	ys := yaleDefault()
	ys.Setup.Train.Epochs = 2
	es := eth80Default()
	es.Train, es.Setup.Train.Epochs, es.SubsetSize, es.Hard.Size = 2, 2, 6, 6
	ry, err := runYaleWith(ctx, opt, ys)
	if err != nil {
		t.Fatal(err)
	}
	re, err := runETH80With(ctx, opt, es)
	if err != nil {
		t.Fatal(err)
	}
	ms := mnistDefault()
	ms.Setup.Train.Epochs = 2
	rm, err := runMNISTWith(ctx, opt, ms)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range []*Result{ry, re, rm} {
		b := r.Baselines
		if b == nil || b.Splits != len(r.Accuracies) || len(b.Methods) != 2 || !slices.Equal(b.Reference.Accuracy, r.Accuracies) {
			t.Fatalf("%s: baselines %+v for %d GRLGQ accuracies", r.Name, b, len(r.Accuracies))
		}
		for _, m := range b.Methods {
			for f, a := range m.Accuracy {
				if m.Versus.Diff[f] != a-r.Accuracies[f] {
					t.Errorf("%s %s split %d: diff %v, want %v − %v", r.Name, m.Name, f, m.Versus.Diff[f], a, r.Accuracies[f])
				}
			}
		}
		if m := b.Methods[0]; !(m.Mean > 0.5) {
			t.Errorf("%s: 1-NN %.3f on separable synthetic data", r.Name, m.Mean)
		}
	}
	if b := rm.Baselines; b.Samples != 3+48 || !slices.Equal(b.SubspaceDims, []int{1, 12}) || b.Methods[0].N[0] != 48 {
		t.Errorf("mnist baselines: %d samples, dims %v, %v test images: want 3 training sets of d = 12 against 48 single images", b.Samples, b.SubspaceDims, b.Methods[0].N)
	}
	var one [2]*Result
	for k, w := range []int{1, 2} {
		o := opt
		o.Runs, o.Workers = 1, w
		if one[k], err = runMNISTWith(ctx, o, ms); err != nil {
			t.Fatal(err)
		}
		b := one[k].Baselines
		if b == nil || b.Splits != 1 || b.Methods[0].Versus.SE != 0 {
			t.Fatalf("mnist, one run: baselines %+v", b)
		}
		js, err := json.Marshal(b)
		if err != nil || !bytes.Contains(js, []byte(`"se":null`)) {
			t.Errorf("mnist, one run: JSON %s, %v", js, err)
		}
	}
	for m := range one[0].Baselines.Methods {
		if a, b := one[0].Baselines.Methods[m], one[1].Baselines.Methods[m]; !slices.Equal(a.Correct, b.Correct) || !reflect.DeepEqual(a.Tuned, b.Tuned) {
			t.Errorf("mnist %s: %v with 1 worker, %v with 2", a.Name, a.Correct, b.Correct)
		}
	}
}
