package bench

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/grlgq/grlgq/kernels"
	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

// epochShape is a training problem of BenchmarkEpoch: n random
// orthonormal D x d sets with labels i mod classes, one prototype per
// class.
type epochShape struct {
	name               string
	dim, d, classes, n int
}

var epochShapes = []epochShape{
	{"eth80", 400, 5, 8, 40},
	{"mnist", 784, 12, 10, 500},
	{"yaleb", 400, 25, 28, 84},
}

// epochData returns the n training sets of a shape (seeded).
func epochData(b *testing.B, s epochShape) ([]*subspace.Subspace, []int) {
	b.Helper()
	rng := rand.New(rand.NewPCG(seed, 8000))
	x := make([]*subspace.Subspace, s.n)
	y := make([]int, s.n)
	for i := range x {
		p := linalg.NewDense(s.dim, s.d)
		if err := linalg.RandomOrthonormal(p, rng); err != nil {
			b.Fatal(err)
		}
		x[i], y[i] = &subspace.Subspace{Basis: p}, i%s.classes
	}
	return x, y
}

// BenchmarkEpoch: one epoch of set training (Algorithm 2, N SGD steps of
// the model's training steps over the epoch's permutation) on synthetic data of the
// shapes of the paper's benchmarks, (D, d, classes, N) = eth80 (400, 5, 8,
// 40), mnist (784, 12, 10, 500), yaleb (400, 25, 28, 84): random
// orthonormal bases, one prototype per class, random initialisation
// (InitRandom), constant η and γ (the defaults), no validation.
//
//   - ours, ours-1worker: model.Continue with Epochs = b.N+1 on all cores
//     and on one worker, the clock reset by TrainConfig.OnEpoch after the first
//     epoch, so that one op is one epoch without Continue's per-call setup
//     (checking the data, starting the engine and its workers) or warm-up;
//     what remains is each epoch's history record (the relevances' copy:
//     the allocation per op) and the returned model's copy (p·D·d floats,
//     once).
//   - floor: the same epoch's N·p projections Pᵀ W_k through kernels.AtB
//     and nothing else (2·D·d²·N·p flops), the hardware floor of an epoch.
func BenchmarkEpoch(b *testing.B) {
	for _, s := range epochShapes {
		b.Run(s.name, func(b *testing.B) {
			x, y := epochData(b, s)
			o := model.DefaultOptions()
			o.Train.Init, o.Train.Schedule, o.Train.Seed = model.InitRandom, model.ScheduleConstant, 1
			cfg := o.Train
			m0, err := model.Init(o, model.Sets(x), y)
			if err != nil {
				b.Fatal(err)
			}
			ours := func(workers int) func(b *testing.B) {
				return func(b *testing.B) {
					c := cfg
					c.Workers, c.Epochs = workers, b.N+1
					// The first epoch is a warm-up, with Continue's setup:
					// the clock (and the allocation count) start after it.
					c.OnEpoch = func(st model.EpochStats) error {
						if st.Epoch == m0.Epochs()+1 {
							b.ResetTimer()
						}
						return nil
					}
					b.ReportAllocs()
					if _, _, err := model.Continue(context.Background(), m0, c, model.Sets(x), y); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.Run("ours", ours(0))
			b.Run("ours-1worker", ours(1))
			b.Run("floor", func(b *testing.B) {
				protos := make([]*linalg.Dense, s.classes)
				for k := range protos {
					protos[k] = m0.Prototype(k)
				}
				m := make([]float64, s.d*s.d)
				b.SetBytes(0)
				b.ReportAllocs()
				for b.Loop() {
					for _, xi := range x {
						p := xi.Basis
						for _, w := range protos {
							kernels.AtB(m, s.d, p.Data, p.Stride, w.Data, w.Stride, s.dim, s.d, s.d)
						}
					}
				}
			})
		})
	}
}
