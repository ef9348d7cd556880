package bench

import (
	"testing"

	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

// BenchmarkPredictParallel: one Model shared by b.RunParallel's goroutines
// (GOMAXPROCS of them), each classifying into its own reused Prediction:
// the path of a server whose request handlers call one loaded model. Run
// with -cpu 1,2: ns/op is wall time per prediction of all goroutines
// together, so the 2-CPU figure over the 1-CPU one is the scaling.
//
//   - set: D=400, d=5, p=8, Model.PredictTo on 16 random subspaces.
//   - image: D=784, d=12, p=10, Model.PredictTo of model.Image on 16 dense N(0,1)
//     images (every pixel's row of the prototypes is read).
func BenchmarkPredictParallel(b *testing.B) {
	b.Run("set", func(b *testing.B) {
		const dim, d, p, n = 400, 5, 8, 16
		f := newModelFixture(b, dim, d, p, 0)
		xs := make([]*subspace.Subspace, n)
		for i := range xs {
			xs[i] = &subspace.Subspace{Basis: denseFrom(randomOrthonormal(uint64(7400+i), dim, d, d), dim, d, d)}
		}
		parallel(b, func(out *model.Prediction, i int) error { return f.ours.PredictTo(out, model.Set(xs[i%n])) })
	})
	b.Run("image", func(b *testing.B) {
		const dim, d, p, n = 784, 12, 10, 16
		f := newModelFixture(b, dim, d, p, 0)
		xs := make([][]float64, n)
		for i := range xs {
			xs[i] = randomGaussian(uint64(7500+i), 1, dim, dim)
		}
		parallel(b, func(out *model.Prediction, i int) error { return f.ours.PredictTo(out, model.Image(xs[i%n])) })
	})
}

// parallel runs predict from b.RunParallel's goroutines, each with its own
// Prediction sized by one call before the timed loop.
func parallel(b *testing.B, predict func(out *model.Prediction, i int) error) {
	var warm model.Prediction
	if err := predict(&warm, 0); err != nil { // builds the model's shared state
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		var out model.Prediction
		if err := predict(&out, 0); err != nil {
			b.Error(err)
			return
		}
		for i := 0; pb.Next(); i++ {
			if err := predict(&out, i); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
