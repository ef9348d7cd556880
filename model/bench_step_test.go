package model

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/lapack/lapack64"
	"gonum.org/v1/gonum/mat"

	"github.com/grlgq/grlgq/internal/reference"
	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/subspace"
)

// The step benchmarks live here, beside the trainer they measure (the
// trainer is the training loop's own, not an API): the same inputs as
// package bench's benchmarks (its seed and streams), ours beside
// internal/reference's step in one run.

// benchSeed is package bench's seed of every input.
const benchSeed = 20261121

// benchOrthonormal is bench's randomOrthonormal: a rows x cols matrix with
// orthonormal columns (Householder QR of a Gaussian matrix from stream).
func benchOrthonormal(stream uint64, rows, cols int) *linalg.Dense {
	rng := rand.New(rand.NewPCG(benchSeed, stream))
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
	out := linalg.NewDense(rows, cols)
	for r := 0; r < rows; r++ {
		copy(out.Row(r), a.Data[r*cols:(r+1)*cols])
	}
	return out
}

// benchGaussian is bench's randomGaussian for one row.
func benchGaussian(stream uint64, n int) []float64 {
	rng := rand.New(rand.NewPCG(benchSeed, stream))
	out := make([]float64, n)
	for i := range out {
		out[i] = rng.NormFloat64()
	}
	return out
}

// benchModel is bench's model fixture: p prototypes, one per class, at
// random orthonormal bases (Init with InitSample and no noise), and the
// reference model at the same prototypes.
func benchModel(b *testing.B, dim, d, p, workers int) (*Model, *reference.Model) {
	b.Helper()
	sets := make([]*subspace.Subspace, p)
	labels := make([]int, p)
	for k := range sets {
		sets[k], labels[k] = &subspace.Subspace{Basis: benchOrthonormal(uint64(5000+k), dim, d)}, k
	}
	o := DefaultOptions()
	o.Train.InitNoise, o.Train.Workers = 0, workers
	m, err := Init(o, Sets(sets), labels)
	if err != nil {
		b.Fatal(err)
	}
	ref := &reference.Model{Lambda: reference.UniformLambda(d), Floor: 1e-4, Relevance: true}
	for k := 0; k < p; k++ {
		ref.Prototypes = append(ref.Prototypes, toMat(m.Prototype(k)))
		ref.Labels = append(ref.Labels, k)
	}
	return m, ref
}

// trainerBench benchmarks step(tr, i) for i = 0, 1, ... on a trainer of
// the model fixture with the given workers (0: all cores).
func trainerBench(dim, d, p, workers int, step func(tr *trainer, i int) error) func(b *testing.B) {
	return func(b *testing.B) {
		m, _ := benchModel(b, dim, d, p, workers)
		tc := DefaultTrainConfig()
		tc.Workers = workers
		tr, err := newTrainer(m, tc)
		if err != nil {
			b.Fatal(err)
		}
		defer tr.Close()
		i := 0
		b.ReportAllocs()
		for b.Loop() {
			if err := step(tr, i); err != nil {
				b.Fatal(err)
			}
			i++
		}
	}
}

// BenchmarkTrainStep: one GRLGQ SGD step (distances to all prototypes,
// winners, two d x d SVDs, gradients, updates of W⁺, W⁻ and λ,
// re-orthonormalisation), cycling over 16 random training subspaces with
// labels 0..p-1. The reference is internal/reference's Step (gonum).
func BenchmarkTrainStep(b *testing.B) {
	const dim, d, p = 784, 12, 10
	b.Run(fmt.Sprintf("D=%d,d=%d,p=%d", dim, d, p), func(b *testing.B) {
		const n = 16
		samples := make([]*linalg.Dense, n)
		for i := range samples {
			samples[i] = benchOrthonormal(uint64(6000+i), dim, d)
		}
		const eta, gamma = 1e-3, 1e-6
		sets := make([]Sample, n)
		for i, s := range samples {
			sets[i] = Set(&subspace.Subspace{Basis: s})
		}
		step := func(tr *trainer, i int) error {
			_, err := tr.stepSample(sets[i%n], i%p, eta, gamma)
			return err
		}
		b.Run("ours", trainerBench(dim, d, p, 0, step))
		b.Run("ours-1worker", trainerBench(dim, d, p, 1, step))
		b.Run("reference", func(b *testing.B) {
			_, ref := benchModel(b, dim, d, p, 1)
			gs := make([]*mat.Dense, n)
			for i, s := range samples {
				gs[i] = toMat(s)
			}
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ref.Step(gs[i%n], i%p, eta, gamma, 1); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	})
}

// BenchmarkTrainImageStep: one SGD step on a single training image (θ_1
// to every prototype, winners, the rank-one updates of W⁺ and W⁻, each an
// exact rotation of one direction), cycling over 16 dense Gaussian images
// with labels 0..p-1. The reference is internal/reference's StepImage
// (gonum; the polar factor by SVD as its Step).
func BenchmarkTrainImageStep(b *testing.B) {
	const dim, d, p = 784, 12, 10
	b.Run(fmt.Sprintf("D=%d,d=%d,p=%d", dim, d, p), func(b *testing.B) {
		const n = 16
		imgs := make([][]float64, n)
		for i := range imgs {
			imgs[i] = benchGaussian(uint64(6100+i), dim)
		}
		const eta = 1e-3
		step := func(tr *trainer, i int) error {
			_, err := tr.stepSample(Image(imgs[i%n]), i%p, eta, 0)
			return err
		}
		b.Run("ours", trainerBench(dim, d, p, 0, step))
		b.Run("ours-1worker", trainerBench(dim, d, p, 1, step))
		b.Run("reference", func(b *testing.B) {
			_, ref := benchModel(b, dim, d, p, 1)
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ref.StepImage(imgs[i%n], i%p, eta, 1); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	})
}
