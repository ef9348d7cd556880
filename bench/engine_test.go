package bench

import (
	"fmt"
	"math"
	"testing"

	"github.com/grlgq/grlgq/engine"
	"github.com/grlgq/grlgq/linalg"
	"gonum.org/v1/gonum/mat"
)

// BenchmarkDistances: one random orthonormal subspace P against all p
// prototypes, weighted geodesic distances with λ = 1/d. gonum computes per
// prototype mat.Dense.Mul(Pᵀ, W), the singular values (mat.SVD, SVDNone),
// arccos and the weighted sum. "ours" uses runtime.GOMAXPROCS(0) workers.
func BenchmarkDistances(b *testing.B) {
	const dim, d = 784, 12
	for _, p := range []int{10, 40} {
		name := fmt.Sprintf("D=%d,d=%d,p=%d", dim, d, p)
		b.Run(name, func(b *testing.B) {
			ld := (d + 7) &^ 7
			P := linalg.NewDenseOn(dim, d, ld, randomOrthonormal(1000, dim, d, ld))
			protos := make([]*linalg.Dense, p)
			for k := range protos {
				protos[k] = linalg.NewDenseOn(dim, d, ld, randomOrthonormal(uint64(2000+k), dim, d, ld))
			}
			lambda := make([]float64, d)
			for i := range lambda {
				lambda[i] = 1 / float64(d)
			}
			ours := func(workers int) func(b *testing.B) {
				return func(b *testing.B) {
					e, err := engine.New(dim, d, p, workers)
					if err != nil {
						b.Fatal(err)
					}
					defer e.Close()
					for k, w := range protos {
						if err := e.SetPrototype(k, w); err != nil {
							b.Fatal(err)
						}
					}
					dist := make([]float64, p)
					b.ReportAllocs()
					for b.Loop() {
						if err := e.Distances(dist, nil, P, lambda); err != nil {
							b.Fatal(err)
						}
					}
				}
			}
			b.Run("ours", ours(0))
			if p == 40 {
				b.Run("ours-1worker", ours(1))
			}
			b.Run("gonum", func(b *testing.B) {
				gp := mat.NewDense(dim, d, nil)
				gw := make([]*mat.Dense, p)
				for r := 0; r < dim; r++ {
					gp.SetRow(r, P.Row(r))
				}
				for k, w := range protos {
					gw[k] = mat.NewDense(dim, d, nil)
					for r := 0; r < dim; r++ {
						gw[k].SetRow(r, w.Row(r))
					}
				}
				m := mat.NewDense(d, d, nil)
				var svd mat.SVD
				sv := make([]float64, d)
				dist := make([]float64, p)
				b.ReportAllocs()
				for b.Loop() {
					for k, w := range gw {
						m.Mul(gp.T(), w)
						if !svd.Factorize(m, mat.SVDNone) {
							b.Fatal("gonum SVD failed")
						}
						svd.Values(sv)
						var s float64
						for i, v := range sv {
							t := math.Acos(math.Min(math.Max(v, 0), 1))
							s += lambda[i] * t * t
						}
						dist[k] = s
					}
				}
			})
		})
	}
}

// BenchmarkImageDistances: one image against all p prototypes, θ =
// arccos(‖W_kᵀx‖/‖x‖) (the engine part of predicting an image). The prototypes
// stream from L2 (D·p·d·8 bytes, 752 KB at p=10), the bound of this call.
func BenchmarkImageDistances(b *testing.B) {
	const dim, d = 784, 12
	for _, p := range []int{10, 40} {
		b.Run(fmt.Sprintf("D=%d,d=%d,p=%d", dim, d, p), func(b *testing.B) {
			ld := (d + 7) &^ 7
			x := randomGaussian(7300, 1, dim, dim)
			for _, workers := range []int{0, 1} {
				name := "ours"
				if workers == 1 {
					name = "ours-1worker"
				}
				b.Run(name, func(b *testing.B) {
					e, err := engine.New(dim, d, p, workers)
					if err != nil {
						b.Fatal(err)
					}
					defer e.Close()
					for k := 0; k < p; k++ {
						if err := e.SetPrototype(k, linalg.NewDenseOn(dim, d, ld, randomOrthonormal(uint64(2000+k), dim, d, ld))); err != nil {
							b.Fatal(err)
						}
					}
					dist := make([]float64, p)
					b.SetBytes(int64(dim * p * d * 8))
					b.ReportAllocs()
					for b.Loop() {
						if err := e.ImageDistances(dist, nil, x); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
