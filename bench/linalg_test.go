package bench

import (
	"testing"

	"github.com/grlgq/grlgq/linalg"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// BenchmarkOrthonormalize compares linalg's CGS2 with gonum's Householder QR
// (Geqrf then a thin Orgqr, workspace preallocated), both from the same
// Gaussian matrix every iteration. Ours calls OrthonormalizeTo(q, src),
// which leaves src unchanged and so needs no copy; gonum's Geqrf works in
// place, so it restarts from a copy of src (the copy is part of using it).
func BenchmarkOrthonormalize(b *testing.B) {
	const rows, cols = 784, 12
	b.Run("D=784,d=12", func(b *testing.B) {
		b.Run("ours", func(b *testing.B) {
			src := linalg.NewDense(rows, cols)
			copy(src.Data, randomGaussian(1, rows, cols, src.Stride))
			q := linalg.NewDense(rows, cols)
			o := linalg.NewOrthonormalizer(rows, cols)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if err := o.OrthonormalizeTo(q, src); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("gonum", func(b *testing.B) {
			src := randomGaussian(1, rows, cols, cols)
			a := blas64.General{Rows: rows, Cols: cols, Stride: cols, Data: make([]float64, len(src))}
			tau := make([]float64, cols)
			work := make([]float64, 1)
			lapack64.Geqrf(a, tau, work, -1)
			n := int(work[0])
			lapack64.Orgqr(a, tau, work, -1)
			n = max(n, int(work[0]))
			work = make([]float64, n)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				copy(a.Data, src)
				lapack64.Geqrf(a, tau, work, len(work))
				lapack64.Orgqr(a, tau, work, len(work))
			}
		})
	})
}
