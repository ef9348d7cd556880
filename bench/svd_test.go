package bench

import (
	"fmt"
	"testing"

	"github.com/grlgq/grlgq/kernels"
	"github.com/grlgq/grlgq/svd"
	"gonum.org/v1/gonum/mat"
)

const benchD = 784

// projections returns k d x d matrices M_i = P_iᵀ W_i of random orthonormal
// 784 x d bases, stored one after the other (stride d, step d*d).
func projections(d, k int) []float64 {
	ld := kernels.Stride(d)
	out := make([]float64, k*d*d)
	for i := 0; i < k; i++ {
		p := randomOrthonormal(uint64(100+2*i), benchD, d, ld)
		w := randomOrthonormal(uint64(101+2*i), benchD, d, ld)
		kernels.AtB(out[i*d*d:], d, p, ld, w, ld, benchD, d, d)
	}
	return out
}

// BenchmarkSVDValues: singular values of d x d projections.
//
//   - ours: Batch.Values on a batch of 8 matrices (the engine's form: one
//     sample against many prototypes). Each iteration of b.N processes the
//     whole batch, and the reported ns/op is divided by 8 (via
//     b.ReportMetric): ns/op and allocs are PER MATRIX.
//   - ours-single: Small.Values, one matrix per op, over the 8 round-robin.
//   - gonum: mat.SVD.Factorize(..., mat.SVDNone), one matrix per op, over the
//     same 8 round-robin.
func BenchmarkSVDValues(b *testing.B) {
	const k = 8
	for _, d := range []int{12, 25} {
		ms := projections(d, k)
		b.Run(fmt.Sprintf("d=%d/ours", d), func(b *testing.B) {
			w := svd.NewBatch(d)
			s := make([]float64, k*d)
			b.ReportAllocs()
			b.ResetTimer()
			// b.N counts matrices: run ceil(b.N/8) batches of 8.
			for i := 0; i < b.N; i += k {
				if err := w.Values(s, d, ms, d, d*d, k); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("d=%d/ours-single", d), func(b *testing.B) {
			w := svd.NewSmall(d)
			s := make([]float64, d)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				j := i % k
				if err := w.Values(s, ms[j*d*d:], d); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("d=%d/gonum", d), func(b *testing.B) {
			dense := make([]*mat.Dense, k)
			for j := range dense {
				dense[j] = mat.NewDense(d, d, ms[j*d*d:(j+1)*d*d])
			}
			var s mat.SVD
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if !s.Factorize(dense[i%k], mat.SVDNone) {
					b.Fatal("gonum SVD failed")
				}
			}
		})
	}
}

// BenchmarkSVD: full d x d SVD with U and V (the two winners of a training
// step). ours: Small.Factorize; ours-pair, ours-pair32: svd.Pair's
// Factorize and Factorize32 (float32 lanes); gonum: mat.SVD SVDThin + UTo
// + VTo.
func BenchmarkSVD(b *testing.B) {
	const k = 8
	for _, d := range []int{5, 12, 25} {
		ms := projections(d, k)
		b.Run(fmt.Sprintf("d=%d/ours", d), func(b *testing.B) {
			w := svd.NewSmall(d)
			s := make([]float64, d)
			u := make([]float64, d*d)
			v := make([]float64, d*d)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				j := i % k
				if err := w.Factorize(u, d, s, v, d, ms[j*d*d:], d); err != nil {
					b.Fatal(err)
				}
			}
		})
		for _, f32 := range []bool{false, true} {
			name := "ours-pair"
			if f32 {
				name = "ours-pair32"
			}
			b.Run(fmt.Sprintf("d=%d/%s", d, name), func(b *testing.B) {
				// One op factorises two matrices (svd.Pair: a training
				// step's two winners; ours-pair32 by Pair.Factorize32, a
				// float32 model's); ns/matrix compares with ours.
				p := svd.NewPair(d)
				factor := p.Factorize
				if f32 {
					factor = p.Factorize32
				}
				var u, s, v [2][]float64
				for i := range u {
					u[i], s[i], v[i] = make([]float64, d*d), make([]float64, d), make([]float64, d*d)
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					j := (2 * i) % k
					a := [2][]float64{ms[j*d*d:], ms[(j+1)*d*d:]}
					if err := factor(u, d, s, v, d, a, d); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/matrix")
			})
		}
		b.Run(fmt.Sprintf("d=%d/gonum", d), func(b *testing.B) {
			dense := make([]*mat.Dense, k)
			for j := range dense {
				dense[j] = mat.NewDense(d, d, ms[j*d*d:(j+1)*d*d])
			}
			var s mat.SVD
			var u, v mat.Dense
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if !s.Factorize(dense[i%k], mat.SVDThin) {
					b.Fatal("gonum SVD failed")
				}
				s.UTo(&u)
				s.VTo(&v)
			}
		})
	}
}

// BenchmarkSVDTall: thin SVD with U and V of a random Gaussian 784 x 20 image
// set. ours: Tall.Factorize; gonum: mat.SVD SVDThin + UTo + VTo.
func BenchmarkSVDTall(b *testing.B) {
	const rows, cols = benchD, 20
	x := randomGaussian(7, rows, cols, cols)
	b.Run(fmt.Sprintf("D=%d,m=%d/ours", rows, cols), func(b *testing.B) {
		w := svd.NewTall(rows, cols)
		s := make([]float64, cols)
		u := make([]float64, rows*cols)
		v := make([]float64, cols*cols)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := w.Factorize(u, cols, s, v, cols, x, cols); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run(fmt.Sprintf("D=%d,m=%d/gonum", rows, cols), func(b *testing.B) {
		a := mat.NewDense(rows, cols, x)
		var s mat.SVD
		var u, v mat.Dense
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if !s.Factorize(a, mat.SVDThin) {
				b.Fatal("gonum SVD failed")
			}
			s.UTo(&u)
			s.VTo(&v)
		}
	})
}
