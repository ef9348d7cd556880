package model

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// TestAugmentIsContinuePerEpoch: an Augment hook gives, bit for bit, the
// model of the loop it replaced (package hard's, before the hook): one
// Continue of one epoch per epoch on the training sets followed by the
// added ones, the hook called with the model of that moment. Class
// weights count the added samples; the history has every epoch.
func TestAugmentIsContinuePerEpoch(t *testing.T) {
	xs, ys := synth(t, 71, 16, 3, 3, 6, 0.4)
	extra, ey := synth(t, 72, 16, 3, 3, 4, 0.6)
	// The hook: the added sets depend on the model (the sets of extra the
	// model gets wrong or nearly, every other one, twice), as hard
	// examples do.
	pick := func(m *Model, epoch int) ([]Sample, []int) {
		var ax []Sample
		var ay []int
		for i, s := range extra {
			p, err := m.Predict(Set(s))
			if err != nil {
				t.Fatal(err)
			}
			if p.Class != ey[i] || p.Margin < 0.5 || (i+epoch)%2 == 0 {
				ax, ay = append(ax, Set(s), Set(s)), append(ay, ey[i], ey[i])
			}
		}
		return ax, ay
	}
	for _, cw := range []bool{false, true} {
		opt := legacyOptions(Config{PrototypesPerClass: 2}, TrainConfig{Epochs: 4, Seed: 5, ClassWeights: cw, Eta: 0.2})
		calls := 0
		hooked := opt
		hooked.Train.Augment = func(ctx context.Context, m *Model, epoch int) ([]Sample, []int, error) {
			calls++
			if epoch != m.Epochs()+1 {
				t.Errorf("hook: epoch %d for a model of %d epochs", epoch, m.Epochs())
			}
			ax, ay := pick(m, epoch)
			return ax, ay, nil
		}
		var added []int
		hooked.Train.OnEpoch = func(s EpochStats) error { added = append(added, s.Augmented); return nil }
		got, hist, err := Train(context.Background(), hooked, Sets(xs), ys)
		if err != nil {
			t.Fatal(err)
		}
		if calls != 4 || len(hist.Epochs) != 4 || len(hist.Train) != len(xs) {
			t.Fatalf("%d calls, %d epochs, %d training indices", calls, len(hist.Epochs), len(hist.Train))
		}
		// The old loop.
		m, err := Init(opt, Sets(xs), ys)
		if err != nil {
			t.Fatal(err)
		}
		one := opt.Train
		one.Epochs = 1
		for e := 0; e < 4; e++ {
			ax, ay := pick(m, m.Epochs()+1)
			if added[e] != len(ax) {
				t.Errorf("epoch %d: Augmented %d, want %d", e+1, added[e], len(ax))
			}
			if m, _, err = Continue(context.Background(), m, one, append(Sets(xs), ax...), append(slices.Clone(ys), ay...)); err != nil {
				t.Fatal(err)
			}
		}
		// The stored training options differ (Epochs 4 against 1): compare
		// what the models compute.
		if !slices.Equal(got.Relevances(), m.Relevances()) || got.Epochs() != 4 {
			t.Fatalf("class weights %v: relevances %v, want %v", cw, got.Relevances(), m.Relevances())
		}
		for k := 0; k < m.NumPrototypes(); k++ {
			if !slices.Equal(got.protos[k].Data, m.protos[k].Data) {
				t.Fatalf("class weights %v: prototype %d differs from the loop of Continues", cw, k)
			}
		}
	}
}

// TestAugmentImages: the hook on image training; added samples of the
// wrong kind, shape or class, and the hook's error, stop training with an
// error naming the epoch.
func TestAugmentImages(t *testing.T) {
	x, y := synthImages(73, 20, 3, 3, 8, 0.2)
	opt := legacyOptions(Config{SubspaceDim: 2}, TrainConfig{Epochs: 2, Seed: 1, Init: InitPCA})
	opt.Train.Augment = func(ctx context.Context, m *Model, epoch int) ([]Sample, []int, error) {
		return Images(x[:3]), y[:3], nil
	}
	if _, h, err := Train(context.Background(), opt, Images(x), y); err != nil || h.Epochs[0].Augmented != 3 {
		t.Fatalf("images: %v", err)
	}
	xs, ys := synth(t, 74, 20, 2, 3, 2, 0.3)
	boom := errors.New("boom")
	for name, hook := range map[string]AugmentFunc{
		"kind":  func(context.Context, *Model, int) ([]Sample, []int, error) { return Sets(xs[:1]), ys[:1], nil },
		"class": func(context.Context, *Model, int) ([]Sample, []int, error) { return Images(x[:1]), []int{7}, nil },
		"shape": func(context.Context, *Model, int) ([]Sample, []int, error) {
			return Images([][]float64{x[0][:5]}), y[:1], nil
		},
		"labels": func(context.Context, *Model, int) ([]Sample, []int, error) { return Images(x[:2]), y[:1], nil },
		"error":  func(context.Context, *Model, int) ([]Sample, []int, error) { return nil, nil, boom },
	} {
		o := opt
		o.Train.Augment = hook
		_, _, err := Train(context.Background(), o, Images(x), y)
		if err == nil || (name != "error" && !errors.Is(err, ErrData)) || (name == "error" && !errors.Is(err, boom)) {
			t.Errorf("%s: %v", name, err)
		}
	}
}
