package bench

import (
	"fmt"
	"testing"

	"github.com/grlgq/grlgq/kernels"
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
