package baseline

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/grlgq/grlgq/kernels"
	"github.com/grlgq/grlgq/subspace"
	"github.com/grlgq/grlgq/svd"
)

// MaxSamples is the largest number of samples Pairs takes: its table holds
// 16·n² bytes (four float64 per unordered pair), 1 GiB at n = 8192.
const MaxSamples = 8192

// OrthoTol is the largest loss of orthonormality, max |XᵀX − I|, accepted
// in a sample's basis (model.Train accepts the same).
const OrthoTol = 1e-6

// Distance is a dissimilarity of two subspaces computed from their
// principal angles θ_1 <= ... <= θ_d (θ_k = arccos σ_k, σ_k the singular
// values of XᵀY clamped to [0, 1]).
type Distance uint8

const (
	// Geodesic is Σ_k θ_k², the squared geodesic (arc-length) distance,
	// GRLGQ's distance with uniform relevances.
	Geodesic Distance = iota
	// Chordal is Σ_k sin²θ_k = Σ_k (1 − σ_k)(1 + σ_k), the squared
	// projection (chordal) distance ‖XXᵀ − YYᵀ‖²_F / 2.
	Chordal
	// FirstAngle is θ_1, the smallest principal angle (the largest
	// canonical correlation σ_1 = cos θ_1): the mutual subspace method's
	// (MSM's) similarity.
	FirstAngle
	numDistances
)

var distanceNames = [numDistances]string{"geodesic", "chordal", "msm"}

// String returns "geodesic", "chordal" or "msm".
func (d Distance) String() string {
	if d < numDistances {
		return distanceNames[d]
	}
	return fmt.Sprintf("Distance(%d)", uint8(d))
}

// Pairs holds, for every pair of n samples, the three distances and the
// projection kernel ‖XᵀY‖²_F: everything the baselines read. It is
// immutable after NewPairs and safe for concurrent use.
type Pairs struct {
	n, dim, d int
	// Packed upper triangles (j >= i) of the symmetric n x n tables:
	// element (i, j) at off(i) + j − i, off(i) = i·n − i(i−1)/2.
	dist [numDistances][]float64
	proj []float64
	// Duration is the wall time NewPairs took.
	dur time.Duration
}

// N returns the number of samples.
func (p *Pairs) N() int { return p.n }

// Dims returns the ambient dimension D and the subspace dimension d of the
// samples.
func (p *Pairs) Dims() (dim, d int) { return p.dim, p.d }

// Duration returns the wall time of the computation (NewPairs).
func (p *Pairs) Duration() time.Duration { return p.dur }

func (p *Pairs) index(i, j int) int {
	if j < i {
		i, j = j, i
	}
	return i*p.n - i*(i-1)/2 + j - i
}

// Distance returns the distance kind between samples i and j (symmetric;
// the same bits for (i, j) and (j, i)).
func (p *Pairs) Distance(kind Distance, i, j int) float64 {
	return p.dist[kind][p.index(i, j)]
}

// Kernel returns the projection kernel ‖X_iᵀ X_j‖²_F = Σ_k cos²θ_k of
// samples i and j (symmetric; d up to rounding for i = j).
func (p *Pairs) Kernel(i, j int) float64 {
	return p.proj[p.index(i, j)]
}

// NewPairs computes the principal angles between every pair of the
// samples x (all D x d bases with orthonormal columns, the same D and d)
// and keeps from them the distances and the projection kernel (see Pairs).
// The pair (i, j), i <= j, is computed once: M = X_iᵀ X_j with kernels.AtB,
// its singular values with svd.Batch, θ = arccos(clamp(σ, 0, 1)) with
// kernels.Acos (the engine's steps, so the geodesic distance is the one
// GRLGQ's 1-NN with uniform relevances uses), and ‖M‖²_F summed over M's
// entries in row order. Rows of the table are shared out to workers
// goroutines (<= 0: runtime.GOMAXPROCS(0)) by an atomic counter; every
// value depends only on its two samples, so the table is bit-identical
// for any number of workers. Errors (wrapping ErrData, ErrNotFinite or
// svd.ErrNoConvergence) name the sample; cancelling ctx stops the work
// and returns ctx's error.
func NewPairs(ctx context.Context, x []*subspace.Subspace, workers int) (*Pairs, error) {
	t0 := time.Now()
	dim, d, err := checkSamples(x)
	if err != nil {
		return nil, err
	}
	n := len(x)
	size := n * (n + 1) / 2
	p := &Pairs{n: n, dim: dim, d: d, proj: make([]float64, size)}
	for k := range p.dist {
		p.dist[k] = make([]float64, size)
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	work := make([]*pairWork, max(1, min(workers, n)))
	err = parallel(ctx, workers, n, func(w, i int) error {
		if work[w] == nil {
			work[w] = newPairWork(d)
		}
		return work[w].row(p, x, i)
	})
	if err != nil {
		return nil, err
	}
	p.dur = time.Since(t0)
	return p, nil
}

// pairChunk is the number of pairs whose products go to one svd.Batch
// call (a multiple of the 8 AVX-512 lanes and the 4 AVX2 lanes).
const pairChunk = 32

// pairWork is one worker's scratch.
type pairWork struct {
	d     int
	proj  []float64 // pairChunk products, d x d each, stride d
	sigma []float64 // their singular values
	sv    *svd.Batch
}

func newPairWork(d int) *pairWork {
	return &pairWork{
		d:     d,
		proj:  make([]float64, pairChunk*d*d),
		sigma: make([]float64, pairChunk*d),
		sv:    svd.NewBatch(d),
	}
}

// row computes the pairs (i, j), j >= i, of the table.
func (w *pairWork) row(p *Pairs, x []*subspace.Subspace, i int) error {
	d, dd := w.d, w.d*w.d
	a := x[i].Basis
	base := p.index(i, i) - i // element (i, j) at base + j
	for lo := i; lo < p.n; lo += pairChunk {
		hi := min(lo+pairChunk, p.n)
		for j := lo; j < hi; j++ {
			b := x[j].Basis
			m := w.proj[(j-lo)*dd : (j-lo+1)*dd]
			kernels.AtB(m, d, a.Data, a.Stride, b.Data, b.Stride, p.dim, d, d)
			var f float64
			for _, v := range m {
				f += float64(v * v)
			}
			p.proj[base+j] = f
		}
		if err := w.sv.Values(w.sigma, d, w.proj, d, dd, hi-lo); err != nil {
			j := lo
			var be *svd.BatchError
			if errors.As(err, &be) {
				j += be.Index
			}
			return fmt.Errorf("baseline: samples %d and %d: %w", i, j, err)
		}
		for j := lo; j < hi; j++ {
			s := w.sigma[(j-lo)*d : (j-lo+1)*d]
			var geo, chord float64
			for _, c := range s {
				c = min(max(c, 0), 1)
				t := kernels.Acos(c)
				geo += float64(t * t)
				chord += float64((1 - c) * (1 + c))
			}
			p.dist[Geodesic][base+j] = geo
			p.dist[Chordal][base+j] = chord
			p.dist[FirstAngle][base+j] = kernels.Acos(min(max(s[0], 0), 1))
		}
	}
	return nil
}

// checkSamples validates the samples (shape, finiteness, orthonormality)
// and returns their D and d.
func checkSamples(x []*subspace.Subspace) (dim, d int, err error) {
	if len(x) == 0 {
		return 0, 0, fmt.Errorf("baseline: %w: no samples", ErrData)
	}
	if len(x) > MaxSamples {
		return 0, 0, fmt.Errorf("baseline: %w: %d samples, at most %d (the pair table grows as n²)", ErrData, len(x), MaxSamples)
	}
	var gram []float64
	for i, s := range x {
		if s == nil || s.Basis == nil {
			return 0, 0, fmt.Errorf("baseline: %w: sample %d has no basis", ErrData, i)
		}
		b := s.Basis
		if i == 0 {
			dim, d = b.Rows, b.Cols
			if d < 1 || d > svd.MaxSmall || dim < d {
				return 0, 0, fmt.Errorf("baseline: %w: sample 0 has a %d x %d basis (want D >= d, 1 <= d <= %d)", ErrData, dim, d, svd.MaxSmall)
			}
			gram = make([]float64, d*d)
		}
		if b.Rows != dim || b.Cols != d {
			return 0, 0, fmt.Errorf("baseline: %w: sample %d has a %d x %d basis, sample 0 a %d x %d one", ErrData, i, b.Rows, b.Cols, dim, d)
		}
		if b.Stride < b.Cols || len(b.Data) < (b.Rows-1)*b.Stride+b.Cols {
			return 0, 0, fmt.Errorf("baseline: %w: sample %d: basis of %d x %d has stride %d and %d values", ErrData, i, b.Rows, b.Cols, b.Stride, len(b.Data))
		}
		if err := b.Validate(); err != nil {
			return 0, 0, fmt.Errorf("baseline: sample %d: %w", i, err)
		}
		kernels.AtB(gram, d, b.Data, b.Stride, b.Data, b.Stride, dim, d, d)
		var worst float64
		for r := range d {
			for c, v := range gram[r*d : r*d+d] {
				if r == c {
					v--
				}
				if v < 0 {
					v = -v
				}
				if !(v <= worst) {
					worst = v
				}
			}
		}
		if !(worst <= OrthoTol) {
			return 0, 0, fmt.Errorf("baseline: %w: sample %d: basis columns not orthonormal (max |XᵀX − I| = %.3g)", ErrData, i, worst)
		}
	}
	return dim, d, nil
}
