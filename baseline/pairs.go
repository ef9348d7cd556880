package baseline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/grlgq/grlgq/kernels"
	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/subspace"
	"github.com/grlgq/grlgq/svd"
)

// MaxPairs is the largest number of pairs a table holds: 32 bytes each
// (four float64), 1 GiB in all. A table of n samples that all train holds
// n(n+1)/2 pairs (n = 8191 at most); a holdout of t training and v other
// samples t(t+1)/2 + v·t.
const MaxPairs = 1 << 25

// MaxSamples bounds the number of samples (their bookkeeping is O(n)).
const MaxSamples = 1 << 22

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

// Pairs holds, for every pair of samples of which at least one trains
// (NewPairsFor; NewPairs: all pairs), the three distances and the
// projection kernel ‖X_iᵀX_j‖²_F: everything the baselines read. It is
// immutable after NewPairs and safe for concurrent use.
type Pairs struct {
	n, dim int
	d      []int     // subspace dimension of each sample
	scale  []float64 // 1/√d of each sample (the kernel's normalisation)
	// pos[i] is sample i's position among the trainers, or −1; rank[i]
	// its position among the others.
	pos, rank []int32
	nt        int // trainers
	// The trainer block is the packed upper triangle of the symmetric
	// nt x nt table (element (a, b), a <= b, at a·nt − a(a−1)/2 + b − a),
	// followed by the (n − nt) x nt block of the other samples against
	// the trainers, row-major.
	dist [numDistances][]float64
	proj []float64
	dur  time.Duration
	// kernelOnly: pairs of two trainers get only the kernel, not the
	// angles (EvaluateHoldouts: its trainers are compared with each other
	// by the SVM and GDA alone; their distances stay zero, never read).
	kernelOnly bool
}

// N returns the number of samples.
func (p *Pairs) N() int { return p.n }

// Dim returns the ambient dimension D of the samples.
func (p *Pairs) Dim() int { return p.dim }

// SubspaceDim returns the subspace dimension d of sample i.
func (p *Pairs) SubspaceDim(i int) int { return p.d[i] }

// Duration returns the wall time of the computation (NewPairs).
func (p *Pairs) Duration() time.Duration { return p.dur }

// Has reports whether the table holds the pair (i, j): whether i or j is
// a trainer.
func (p *Pairs) Has(i, j int) bool { return p.pos[i] >= 0 || p.pos[j] >= 0 }

// index returns the position of the pair (i, j) in the tables, or −1.
func (p *Pairs) index(i, j int) int {
	a, b := int(p.pos[i]), int(p.pos[j])
	switch {
	case a >= 0 && b >= 0:
		if b < a {
			a, b = b, a
		}
		return a*p.nt - a*(a-1)/2 + b - a
	case b >= 0:
		return p.nt*(p.nt+1)/2 + int(p.rank[i])*p.nt + b
	case a >= 0:
		return p.nt*(p.nt+1)/2 + int(p.rank[j])*p.nt + a
	}
	return -1
}

// Distance returns the distance kind between samples i and j (symmetric;
// the same bits for (i, j) and (j, i)), over their min(d_i, d_j) principal
// angles; NaN when the table does not hold the pair (Has).
func (p *Pairs) Distance(kind Distance, i, j int) float64 {
	if k := p.index(i, j); k >= 0 {
		return p.dist[kind][k]
	}
	return math.NaN()
}

// Kernel returns the projection kernel ‖X_iᵀ X_j‖²_F = Σ_k cos²θ_k of
// samples i and j (symmetric; d up to rounding for i = j); NaN when the
// table does not hold the pair.
func (p *Pairs) Kernel(i, j int) float64 {
	if k := p.index(i, j); k >= 0 {
		return p.proj[k]
	}
	return math.NaN()
}

// normKernel is Kernel(i, j)/√(d_i d_j): 1 on the diagonal (the SVM's and
// GDA's kernel). The pair must be in the table.
func (p *Pairs) normKernel(i, j int) float64 {
	return p.proj[p.index(i, j)] * p.scale[i] * p.scale[j]
}

// NewPairs computes the principal angles between every pair of the
// samples x and keeps from them the distances and the projection kernel
// (see Pairs): NewPairsFor with every sample a trainer.
func NewPairs(ctx context.Context, x []*subspace.Subspace, workers int) (*Pairs, error) {
	return NewPairsFor(ctx, x, nil, workers)
}

// NewPairsFor computes the pairs of the samples x (D x d_i bases with
// orthonormal columns, the same D; a single image is the 1-D subspace
// x/‖x‖) of which at least one is in train (nil: all samples): the pairs
// Evaluate needs for splits whose training parts lie in train. The pair
// (i, j) is computed once: M = X_iᵀ X_j with kernels.AtB, its singular
// values with svd.Batch (32 pairs of one d per call; for pairs of unequal
// d above 1, svd.Small on M padded with zeros to a square; for d = 1 on
// either side, σ_1 = ‖M‖), θ = arccos(clamp(σ, 0, 1)) with kernels.Acos
// (the engine's steps, so the geodesic distance is the one GRLGQ's 1-NN
// with uniform relevances uses), and ‖M‖²_F summed over M's entries in row
// order. Rows of the table are shared out to workers goroutines (<= 0:
// runtime.GOMAXPROCS(0)) by an atomic counter; every value depends only on
// its two samples, so the table is bit-identical for any number of
// workers. Errors (wrapping ErrData, ErrNotFinite or svd.ErrNoConvergence)
// name the sample; cancelling ctx stops the work and returns ctx's error.
func NewPairsFor(ctx context.Context, x []*subspace.Subspace, train []int, workers int) (*Pairs, error) {
	t0 := time.Now()
	dim, dims, err := checkSamples(x)
	if err != nil {
		return nil, err
	}
	n := len(x)
	p := &Pairs{n: n, dim: dim, d: dims, scale: make([]float64, n), pos: make([]int32, n), rank: make([]int32, n)}
	for i, d := range dims {
		p.scale[i] = 1 / math.Sqrt(float64(d))
	}
	if train == nil {
		for i := range p.pos {
			p.pos[i] = int32(i)
		}
		p.nt = n
	} else {
		for i := range p.pos {
			p.pos[i] = -1
		}
		for _, i := range train {
			if i < 0 || i >= n {
				return nil, fmt.Errorf("baseline: %w: training sample %d of %d", ErrData, i, n)
			}
			p.pos[i] = 0
		}
		nr := 0
		for i := range p.pos {
			if p.pos[i] == 0 {
				p.pos[i] = int32(p.nt)
				p.nt++
			} else {
				p.pos[i] = -1
				p.rank[i] = int32(nr)
				nr++
			}
		}
	}
	nt := p.nt
	// In int64: n² overflows a 32-bit int long before MaxSamples.
	size64 := int64(nt)*int64(nt+1)/2 + int64(n-nt)*int64(nt)
	if size64 > MaxPairs {
		return nil, fmt.Errorf("baseline: %w: %d samples (%d training) make %d pairs, at most %d (32 bytes each)", ErrData, n, nt, size64, MaxPairs)
	}
	size := int(size64)
	p.proj = make([]float64, size)
	for k := range p.dist {
		p.dist[k] = make([]float64, size)
	}
	// The trainers in order, the columns of every row.
	cols := make([]int, 0, nt)
	for i, a := range p.pos {
		if a >= 0 {
			cols = append(cols, i)
		}
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	work := make([]*pairWork, max(1, min(workers, n)))
	colsOf := func(i int) []int {
		if a := p.pos[i]; a >= 0 {
			return cols[a:]
		}
		return cols
	}
	err = parallel(ctx, workers, (n+rowBlock-1)/rowBlock, func(w, b int) error {
		if work[w] == nil {
			work[w] = newPairWork()
		}
		is := make([]int, 0, rowBlock)
		for i := b * rowBlock; i < min(n, (b+1)*rowBlock); i++ {
			is = append(is, i)
		}
		return work[w].rows(p, x, is, colsOf)
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
	proj  []float64 // pairChunk products of d x d, stride d
	sigma []float64 // their singular values
	batch map[int]*svd.Batch
	small map[int]*svd.Small
	pad   []float64 // one product padded to a square
	sig1  []float64 // its singular values
	same  []int     // the columns of a chunk with the row's d, in order
	// A 1-D row (imageRow): its basis as one contiguous vector, its
	// nonzero entries (kernels.Nonzeros) and one product.
	vec   []float64
	nzIdx []int32
	nzVal []float64
	prod  []float64
	panel []float64 // imagePairs: a tile's bases side by side
}

func newPairWork() *pairWork {
	return &pairWork{batch: map[int]*svd.Batch{}, small: map[int]*svd.Small{}}
}

// row computes the pairs (i, j) of the table for the columns cols.
func (w *pairWork) row(p *Pairs, x []*subspace.Subspace, i int, cols []int) error {
	if p.d[i] == 1 {
		w.imageRow(p, x, i, cols)
		return nil
	}
	for lo := 0; lo < len(cols); lo += pairChunk {
		if err := w.chunk(p, x, i, cols, lo); err != nil {
			return err
		}
	}
	return nil
}

// rowBlock is the number of consecutive rows of the table one job of
// NewPairsFor computes (rows).
const rowBlock = 4

// rows computes the rows is of the table, row i against the columns
// colsOf(i), with row's calls (the same bits), but chunk by chunk across
// the rows: chunk c of every row, then chunk c+1. Consecutive rows' chunks
// hold nearly the same columns, so a basis read from memory for one row
// is still in cache for the others (MNIST's training sets: 1,250 bases
// of 100 KB, beyond the caches; read once per row, they bound the table
// by memory).
func (w *pairWork) rows(p *Pairs, x []*subspace.Subspace, is []int, colsOf func(i int) []int) error {
	for c := 0; ; c++ {
		more := false
		for _, i := range is {
			cols := colsOf(i)
			if p.d[i] == 1 {
				if c == 0 {
					w.imageRow(p, x, i, cols)
				}
				continue
			}
			if lo := c * pairChunk; lo < len(cols) {
				more = true
				if err := w.chunk(p, x, i, cols, lo); err != nil {
					return err
				}
			}
		}
		if !more {
			return nil
		}
	}
}

// chunk computes the pairs of row i (of d > 1) with the columns
// cols[lo:lo+pairChunk]: the products by kernels.AtB, those of the row's d
// batched into one svd.Batch call, the others by single.
func (w *pairWork) chunk(p *Pairs, x []*subspace.Subspace, i int, cols []int, lo int) error {
	a := x[i].Basis
	di := p.d[i]
	dd := di * di
	if len(w.proj) < pairChunk*dd {
		w.proj = make([]float64, pairChunk*dd)
	}
	if len(w.sigma) < pairChunk*di {
		w.sigma = make([]float64, pairChunk*di)
	}
	hi := min(lo+pairChunk, len(cols))
	w.same = w.same[:0]
	kernelOnly := p.kernelOnly && p.pos[i] >= 0 // then every column trains too
	for _, j := range cols[lo:hi] {
		b := x[j].Basis
		dj := p.d[j]
		if dj == di || kernelOnly {
			// Batched below.
			m := w.proj[len(w.same)*dd : (len(w.same)+1)*dd]
			if n := max(di, dj); dj != di {
				if len(w.pad) < n*n {
					w.pad = make([]float64, n*n)
				}
				m = w.pad[:n*n]
				clear(m)
			}
			kernels.AtB(m, max(di, dj), a.Data, a.Stride, b.Data, b.Stride, p.dim, di, dj)
			p.proj[p.index(i, j)] = frobenius(m)
			if !kernelOnly {
				w.same = append(w.same, j)
			}
			continue
		}
		if err := w.single(p, a, b, i, j); err != nil {
			return err
		}
	}
	if len(w.same) == 0 {
		return nil
	}
	sv := w.batch[di]
	if sv == nil {
		sv = svd.NewBatch(di)
		w.batch[di] = sv
	}
	if err := sv.Values(w.sigma, di, w.proj, di, dd, len(w.same)); err != nil {
		j := w.same[0]
		var be *svd.BatchError
		if errors.As(err, &be) {
			j = w.same[be.Index]
		}
		return fmt.Errorf("baseline: samples %d and %d: %w", i, j, err)
	}
	for k, j := range w.same {
		p.set(p.index(i, j), w.sigma[k*di:(k+1)*di])
	}
	return nil
}

// imageRow computes the pairs (i, j) of the 1-D sample i (a single image)
// for the columns cols: M = x_iᵀ X_j is one row, computed by
// kernels.SparseAB over the nonzero entries of x_i (kernels.Nonzeros,
// listed once for the row), σ_1 = ‖M‖. That is single's result bit for
// bit: SparseAB is the FMA chain of AtB's outputs over the listed rows in
// order (kernels' doc), a skipped x_i[r] = ±0 adds exactly nothing to a
// nonzero sum and at most flips the sign of a zero output, which the
// squares remove, and single's padding adds +0 to ‖M‖²_F. It reads only
// the rows of X_j where x_i is not zero: on a digit of MNIST (about 19%
// of its 784 pixels) about a fifth of the products.
func (w *pairWork) imageRow(p *Pairs, x []*subspace.Subspace, i int, cols []int) {
	a := x[i].Basis
	dim := p.dim
	w.vec = grow(w.vec, dim)
	for r := range dim {
		w.vec[r] = a.Data[r*a.Stride]
	}
	if len(w.nzIdx) < dim {
		w.nzIdx = make([]int32, dim)
		w.nzVal = make([]float64, dim)
	}
	nz := kernels.Nonzeros(w.nzIdx[:dim], w.nzVal[:dim], w.vec)
	idx, val := w.nzIdx[:nz], w.nzVal[:nz]
	var s [1]float64
	for _, j := range cols {
		b := x[j].Basis
		dj := p.d[j]
		w.prod = grow(w.prod, dj)
		kernels.SparseAB(w.prod, val, idx, b.Data, b.Stride, dj)
		k := p.index(i, j)
		f := frobenius(w.prod[:dj])
		p.proj[k] = f
		s[0] = math.Sqrt(f)
		p.set(k, s[:])
	}
}

// single computes the pair (i, j) of unequal dimensions (or both 1).
func (w *pairWork) single(p *Pairs, a, b *linalg.Dense, i, j int) error {
	di, dj := a.Cols, b.Cols
	n := max(di, dj)
	if len(w.pad) < n*n {
		w.pad = make([]float64, n*n)
	}
	m := w.pad[:n*n]
	clear(m)
	kernels.AtB(m, n, a.Data, a.Stride, b.Data, b.Stride, p.dim, di, dj)
	k := p.index(i, j)
	f := frobenius(m)
	p.proj[k] = f
	var s [1]float64
	if min(di, dj) == 1 {
		// One angle: σ_1 = ‖M‖.
		s[0] = math.Sqrt(f)
		p.set(k, s[:])
		return nil
	}
	sv := w.small[n]
	if sv == nil {
		sv = svd.NewSmall(n)
		w.small[n] = sv
	}
	if len(w.sig1) < n {
		w.sig1 = make([]float64, n)
	}
	if err := sv.Values(w.sig1, m, n); err != nil {
		return fmt.Errorf("baseline: samples %d and %d: %w", i, j, err)
	}
	p.set(k, w.sig1[:min(di, dj)])
	return nil
}

// frobenius is Σ m_k², in order.
func frobenius(m []float64) float64 {
	var f float64
	for _, v := range m {
		f += float64(v * v)
	}
	return f
}

// set stores the distances of the pair at k from its singular values s
// (descending).
func (p *Pairs) set(k int, s []float64) {
	var geo, chord, first float64
	for n, c := range s {
		c = min(max(c, 0), 1)
		t := kernels.Acos(c)
		if n == 0 {
			first = t
		}
		geo += float64(t * t)
		chord += float64((1 - c) * (1 + c))
	}
	p.dist[Geodesic][k] = geo
	p.dist[Chordal][k] = chord
	p.dist[FirstAngle][k] = first
}

// checkSamples validates the samples (shape, finiteness, orthonormality)
// and returns their D and each one's d.
func checkSamples(x []*subspace.Subspace) (dim int, dims []int, err error) {
	if len(x) == 0 {
		return 0, nil, fmt.Errorf("baseline: %w: no samples", ErrData)
	}
	if len(x) > MaxSamples {
		return 0, nil, fmt.Errorf("baseline: %w: %d samples, at most %d", ErrData, len(x), MaxSamples)
	}
	dims = make([]int, len(x))
	var gram []float64
	for i, s := range x {
		if s == nil || s.Basis == nil {
			return 0, nil, fmt.Errorf("baseline: %w: sample %d has no basis", ErrData, i)
		}
		b := s.Basis
		if i == 0 {
			dim = b.Rows
		}
		d := b.Cols
		if b.Rows != dim || d < 1 || d > svd.MaxSmall || dim < d {
			return 0, nil, fmt.Errorf("baseline: %w: sample %d has a %d x %d basis (want %d rows, as sample 0, and 1 <= d <= min(D, %d) columns)", ErrData, i, b.Rows, d, dim, svd.MaxSmall)
		}
		if b.Stride < b.Cols || len(b.Data) < (b.Rows-1)*b.Stride+b.Cols {
			return 0, nil, fmt.Errorf("baseline: %w: sample %d: basis of %d x %d has stride %d and %d values", ErrData, i, b.Rows, b.Cols, b.Stride, len(b.Data))
		}
		if err := b.Validate(); err != nil {
			return 0, nil, fmt.Errorf("baseline: sample %d: %w", i, err)
		}
		if len(gram) < d*d {
			gram = make([]float64, d*d)
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
			return 0, nil, fmt.Errorf("baseline: %w: sample %d: basis columns not orthonormal (max |XᵀX − I| = %.3g)", ErrData, i, worst)
		}
		dims[i] = d
	}
	return dim, dims, nil
}
