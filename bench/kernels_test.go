package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/grlgq/grlgq/engine"
	"github.com/grlgq/grlgq/kernels"
	"github.com/grlgq/grlgq/linalg"
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// BenchmarkPeakFMA measures the FMA peak of one core on the widest vectors
// the kernels use: the yardstick for the GFLOP/s of the other benchmarks.
func BenchmarkPeakFMA(b *testing.B) {
	b.ReportAllocs()
	const iters = 1 << 16
	flops := 0
	for b.Loop() {
		flops += kernels.PeakFMA(iters)
	}
	b.ReportMetric(float64(flops)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// BenchmarkProject is the projection M = Pᵀ W of two random D x d
// orthonormal bases (2·D·d² flops). Both sides read the same row-major data
// with the padded stride ld = kernels.Stride(d) (zero padding columns);
// gonum gets it as blas64.General{Stride: ld} and computes
// blas64.Gemm(blas.Trans, blas.NoTrans, 1, P, W, 0, M).
func BenchmarkProject(b *testing.B) {
	for _, s := range []struct{ D, d int }{{784, 12}, {400, 25}} {
		D, d := s.D, s.d
		ld := kernels.Stride(d)
		p := randomOrthonormal(1, D, d, ld)
		w := randomOrthonormal(2, D, d, ld)
		flops := float64(2 * D * d * d)
		b.Run(fmt.Sprintf("D=%d,d=%d", D, d), func(b *testing.B) {
			b.Run("ours", func(b *testing.B) {
				b.ReportAllocs()
				m := make([]float64, d*ld)
				for b.Loop() {
					kernels.AtB(m, ld, p, ld, w, ld, D, d, d)
				}
				b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
			b.Run("gonum", func(b *testing.B) {
				b.ReportAllocs()
				P := blas64.General{Rows: D, Cols: d, Stride: ld, Data: p}
				W := blas64.General{Rows: D, Cols: d, Stride: ld, Data: w}
				M := blas64.General{Rows: d, Cols: d, Stride: d, Data: make([]float64, d*d)}
				for b.Loop() {
					blas64.Gemm(blas.Trans, blas.NoTrans, 1, P, W, 0, M)
				}
				b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		})
	}
}

// BenchmarkUpdate is the exact update of one winner in a training step,
// W ← W C1 + P C2 for a prototype W (a view of the engine's storage, as
// a model's training step updates it) and a D x d sample P, with d x d coefficients
// C1 = I/2 + small and C2 small (so that W stays bounded over the
// iterations).
//
//   - ours: kernels.AB2 in place (the training step's update).
//   - reference: the update before AB2, with the same bits: W and P copied
//     side by side into a D x 2d scratch [W P] (linalg CopyFrom), then
//     kernels.AB of [W P] and [C1; C2] into W.
func BenchmarkUpdate(b *testing.B) {
	for _, s := range []struct{ D, d, p int }{{784, 12, 10}, {400, 25, 28}, {400, 5, 8}} {
		D, d := s.D, s.d
		ld := kernels.Stride(d)
		eng, err := engine.New(D, d, s.p, 1)
		if err != nil {
			b.Fatal(err)
		}
		w := eng.Prototype(s.p / 2)
		w.CopyFrom(linalg.NewDenseOn(D, d, ld, randomOrthonormal(1, D, d, ld)))
		p := linalg.NewDenseOn(D, d, ld, randomOrthonormal(2, D, d, ld))
		rng := rand.New(rand.NewPCG(seed, 9000))
		coef := make([]float64, 2*d*d) // [C1; C2], stride d
		for i := range coef {
			coef[i] = 0.1 * rng.NormFloat64() / float64(d)
		}
		for j := 0; j < d; j++ {
			coef[j*d+j] += 0.5
		}
		b.Run(fmt.Sprintf("D=%d,d=%d", D, d), func(b *testing.B) {
			b.Run("ours", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					kernels.AB2(w.Data, w.Stride, w.Data, w.Stride, coef[:d*d], d, p.Data, p.Stride, coef[d*d:], d, D, d, d)
				}
			})
			b.Run("reference", func(b *testing.B) {
				b.ReportAllocs()
				wps := kernels.Stride(2 * d)
				if wps == ld {
					wps += 8
				}
				wp := linalg.AlignedSlice(D * wps)
				wpW := linalg.NewDenseOn(D, d, wps, wp)
				wpP := linalg.NewDenseOn(D, d, wps, wp[d:])
				for b.Loop() {
					wpP.CopyFrom(p)
					wpW.CopyFrom(w)
					kernels.AB(w.Data, w.Stride, wp, wps, coef, d, D, 2*d, d)
				}
			})
		})
		eng.Close()
	}
}

// BenchmarkAcos is the arccos of n cosines in [0, 1] (the principal angles
// of a distance: d of them per prototype, 8·d per chunk of 8): ours is
// kernels.AcosN (eight or four at once, math.Acos's bits), reference a
// loop of math.Acos.
func BenchmarkAcos(b *testing.B) {
	rng := rand.New(rand.NewPCG(seed, 9100))
	for _, n := range []int{5, 12, 40} {
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.Float64()
		}
		y := make([]float64, n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.Run("ours", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					kernels.AcosN(y, x)
				}
			})
			b.Run("reference", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					for i, v := range x {
						y[i] = math.Acos(v)
					}
				}
			})
		})
	}
}
