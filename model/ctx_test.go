package model

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
)

// doneAfter is a context whose Err is nil for its first n calls and
// context.Canceled from then on: a cancellation at each place training
// checks its context, in turn, without timing.
type doneAfter struct {
	context.Context
	n     int64
	calls atomic.Int64
}

func newDoneAfter(n int64) *doneAfter { return &doneAfter{Context: context.Background(), n: n} }

func (c *doneAfter) Err() error {
	if c.calls.Add(1) > c.n {
		return context.Canceled
	}
	return nil
}

// TestCancelledBeforeTraining: Train and Continue with a context that is
// already done return at once, without initialising, with an error that
// names no epoch; a context done during the initialisation (sets and
// images, InitPCA's iteration included) stops it, and one done after it
// returns the initial model with an error that says training had not
// started. The first step of epoch 1 is the first to say "epoch 1".
func TestCancelledBeforeTraining(t *testing.T) {
	// More than svd.MaxSmall columns a class in D > svd.MaxSmall: InitPCA
	// iterates (80 stacked columns of sets, 80 images).
	sets, ys := synth(t, 75, 80, 2, 2, 40, 0.3)
	var imgs [][]float64
	var yi []int
	for i, s := range sets {
		for j := range 2 {
			x := make([]float64, 80)
			for r := range x {
				x[r] = s.Basis.At(r, j) + 0.5*s.Basis.At(r, 1-j)
			}
			imgs, yi = append(imgs, x), append(yi, ys[i])
		}
	}
	for _, c := range []struct {
		name string
		x    []Sample
		y    []int
		d    int
	}{{"sets", Sets(sets), ys, 0}, {"images", Images(imgs), yi, 2}} {
		ys := c.y
		o := legacyOptions(Config{SubspaceDim: c.d, PrototypesPerClass: 2}, TrainConfig{Epochs: 2, Init: InitPCA})
		ctx := newDoneAfter(0)
		m, h, err := Train(ctx, o, c.x, ys)
		if !errors.Is(err, context.Canceled) || m != nil || h != nil || strings.Contains(err.Error(), "epoch") || ctx.calls.Load() != 1 {
			t.Errorf("%s: Train with a done context: %v, %v, %v after %d checks; want context.Canceled, nil, nil, no epoch named, 1 check", c.name, m, h, err, ctx.calls.Load())
		}
		m0, err := Init(o, c.x, ys)
		if err != nil {
			t.Fatal(err)
		}
		ctx = newDoneAfter(0)
		m, h, err = Continue(ctx, m0, o.Train, c.x, ys)
		if !errors.Is(err, context.Canceled) || m != nil || h != nil || strings.Contains(err.Error(), "epoch") {
			t.Errorf("%s: Continue with a done context: %v, %v, %v", c.name, m, h, err)
		}

		// Done at each check in turn, until the first step.
		var initStops int
		for n := int64(1); ; n++ {
			ctx := newDoneAfter(n)
			m, h, err := Train(ctx, o, c.x, ys)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("%s: done after %d checks: %v, want context.Canceled", c.name, n, err)
			}
			msg := err.Error()
			switch {
			case m == nil:
				if h != nil || !strings.Contains(msg, "initialising prototype") || strings.Contains(msg, "epoch") {
					t.Errorf("%s: done after %d checks: %v, %v", c.name, n, h, err)
				}
				initStops++
				if !strings.Contains(msg, "of class 0: context") && !strings.Contains(msg, "of class 1: context") {
					t.Errorf("%s: %v", c.name, err)
				}
				continue
			case len(h.Epochs) == 0 && !strings.Contains(msg, "epoch"):
				if !strings.Contains(msg, "training not started") || m.Epochs() != 0 || !equalFloats(m.protos[0].Data, m0.protos[0].Data) {
					t.Errorf("%s: done before the first epoch: %v (model at epoch %d)", c.name, err, m.Epochs())
				}
				continue
			}
			if !strings.Contains(msg, "epoch 1") || len(h.Epochs) != 0 {
				t.Errorf("%s: done at the first step: %v", c.name, err)
			}
			break
		}
		// One check a prototype (4), and more in InitPCA's iterations.
		if initStops <= 4 {
			t.Errorf("%s: %d stops in the initialisation, want more than one a prototype (4)", c.name, initStops)
		}
	}
}
