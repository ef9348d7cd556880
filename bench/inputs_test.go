package bench

import (
	"math/rand/v2"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
)

// seed is the fixed seed of every benchmark input.
const seed = 20261121

// randomOrthonormal returns a rows x cols matrix with orthonormal columns,
// row-major with stride ld (ld >= cols; padding zero), drawn from a Gaussian
// matrix by Householder QR. The same stream always gives the same matrix, so
// ours and gonum see identical inputs.
func randomOrthonormal(stream uint64, rows, cols, ld int) []float64 {
	rng := rand.New(rand.NewPCG(seed, stream))
	a := blas64.General{Rows: rows, Cols: cols, Stride: cols, Data: make([]float64, rows*cols)}
	for i := range a.Data {
		a.Data[i] = rng.NormFloat64()
	}
	tau := make([]float64, cols)
	work := make([]float64, 1)
	lapack64.Geqrf(a, tau, work, -1)
	work = make([]float64, int(work[0]))
	lapack64.Geqrf(a, tau, work, len(work))
	lapack64.Orgqr(a, tau, work, -1)
	if int(work[0]) > len(work) {
		work = make([]float64, int(work[0]))
	}
	lapack64.Orgqr(a, tau, work, len(work))
	out := make([]float64, rows*ld)
	for r := 0; r < rows; r++ {
		copy(out[r*ld:r*ld+cols], a.Data[r*cols:(r+1)*cols])
	}
	return out
}

// randomGaussian returns a rows x cols row-major matrix (stride ld) of
// standard normal entries from the given stream.
func randomGaussian(stream uint64, rows, cols, ld int) []float64 {
	rng := rand.New(rand.NewPCG(seed, stream))
	out := make([]float64, rows*ld)
	for r := 0; r < rows; r++ {
		for c := 0; c < cols; c++ {
			out[r*ld+c] = rng.NormFloat64()
		}
	}
	return out
}
