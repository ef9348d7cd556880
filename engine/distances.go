package engine

import (
	"errors"
	"fmt"
	"math"

	"github.com/grlgq/grlgq/kernels"
	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/svd"
)

// Distances computes, for every prototype k, the principal angles θ_k1 <=
// ... <= θ_kd between span(P) and span(W_k), θ = arccos(clamp(σ, 0, 1)) of
// the singular values σ of M_k = Pᵀ W_k, and the weighted squared geodesic
// distance dist[k] = Σ_i λ_i θ_ki². P is dim x d (any stride). lambda is
// either one vector for all prototypes (len d) or one per prototype (len
// p*d, lambda[k*d+i]). dist has len p; theta is nil or has len p*d and
// receives theta[k*d+i] = θ_ki. Afterwards Projection(k) returns M_k.
func (e *Engine) Distances(dist, theta []float64, P *linalg.Dense, lambda []float64) error {
	if e.closed {
		return ErrClosed
	}
	if len(dist) != e.p || (theta != nil && len(theta) != e.p*e.d) {
		return fmt.Errorf("%w: Distances: len(dist) = %d, len(theta) = %d, want %d and %d (or nil)", ErrShape, len(dist), len(theta), e.p, e.p*e.d)
	}
	if err := e.checkSet(P, "sample"); err != nil {
		return err
	}
	if err := e.checkLambda(lambda); err != nil {
		return err
	}
	e.tick()
	e.shadowed = false
	e.job = job{kind: jobDistances, dist: dist, theta: theta, p: P, lambda: lambda, p32: e.sampleF32(e.shards[0], P)}
	e.run()
	e.tock()
	e.job = job{}
	return e.firstErr()
}

// DistancesBatch is Distances for many samples: dist[i*p+k] is the distance
// between sets[i] and prototype k, bit-identical to calling Distances on
// each set. The samples are split into contiguous ranges, one per worker.
// Projection is not changed.
func (e *Engine) DistancesBatch(dist []float64, sets []*linalg.Dense, lambda []float64) error {
	if e.closed {
		return ErrClosed
	}
	if len(dist) != len(sets)*e.p {
		return fmt.Errorf("%w: DistancesBatch: len(dist) = %d, want %d samples x %d prototypes", ErrShape, len(dist), len(sets), e.p)
	}
	for i, s := range sets {
		if err := e.checkSet(s, "sample"); err != nil {
			return fmt.Errorf("sample %d: %w", i, err)
		}
	}
	if err := e.checkLambda(lambda); err != nil {
		return err
	}
	if len(sets) == 0 {
		return nil
	}
	e.job = job{kind: jobDistancesBatch, dist: dist, sets: sets, lambda: lambda, n: len(sets)}
	e.run()
	e.job = job{}
	return e.firstErr()
}

// ImageDistances computes, for a single image x (len dim, a 1-D subspace),
// its principal angle to every prototype, theta[k] = arccos(clamp(‖W_kᵀ x‖ /
// ‖x‖)), and dist[k] = theta[k]². dist has len p; theta is nil or len p.
// A sparse image (most pixels exactly zero, see imageSparse) is computed
// from its nonzero pixels only, with the same bits.
func (e *Engine) ImageDistances(dist, theta []float64, x []float64) error {
	if e.closed {
		return ErrClosed
	}
	if len(dist) != e.p || (theta != nil && len(theta) != e.p) || len(x) != e.dim {
		return fmt.Errorf("%w: ImageDistances: len(dist) = %d, len(theta) = %d, len(x) = %d, want %d, %d (or nil), %d", ErrShape, len(dist), len(theta), len(x), e.p, e.p, e.dim)
	}
	xnorm, err := imageNorm(x)
	if err != nil {
		return err
	}
	e.FreshAll() // the sparse path reads the float64 prototypes
	e.tick()
	if e.f32 {
		// A sparse image takes the float64 sparse path (the prototypes
		// hold float32 values; the decision depends on x alone, as in
		// imageBlock32); a dense one float32 products.
		if nz := e.imageSparse(x); nz > 0 {
			e.job = job{kind: jobImages, dist: dist, theta: theta, x: x, xnorm: xnorm, nz: nz}
		} else {
			e.imageF32(e.shards[0], x, xnorm)
			e.job = job{kind: jobImages, dist: dist, theta: theta, x: x, xnorm: 1}
		}
	} else {
		e.job = job{kind: jobImages, dist: dist, theta: theta, x: x, xnorm: xnorm, nz: e.imageSparse(x)}
	}
	e.run()
	e.tock()
	e.job = job{}
	return e.firstErr()
}

// ImageDistancesBatch is ImageDistances for n images, image i at
// x[i*ldx : i*ldx+dim]: dist[i*p+k] is the squared angle between image i
// and prototype k, bit-identical to calling ImageDistances on each image.
func (e *Engine) ImageDistancesBatch(dist []float64, x []float64, ldx, n int) error {
	if e.closed {
		return ErrClosed
	}
	if n < 0 || ldx < e.dim || len(dist) != n*e.p || (n > 0 && len(x) < (n-1)*ldx+e.dim) {
		return fmt.Errorf("%w: ImageDistancesBatch: n = %d, ldx = %d, len(x) = %d, len(dist) = %d (dim %d, p %d)", ErrShape, n, ldx, len(x), len(dist), e.dim, e.p)
	}
	if n == 0 {
		return nil
	}
	e.FreshAll() // the sparse path reads the float64 prototypes
	e.job = job{kind: jobImagesBatch, dist: dist, x: x, ldx: ldx, n: n}
	e.run()
	e.job = job{}
	return e.firstErr()
}

func (e *Engine) checkSet(m *linalg.Dense, what string) error {
	if m == nil {
		return fmt.Errorf("%w: nil %s", ErrShape, what)
	}
	if m.Rows != e.dim || m.Cols != e.d || m.Stride < m.Cols || len(m.Data) < (m.Rows-1)*m.Stride+m.Cols {
		return fmt.Errorf("%w: %s is %dx%d (stride %d, %d values), want %dx%d", ErrShape, what, m.Rows, m.Cols, m.Stride, len(m.Data), e.dim, e.d)
	}
	return nil
}

func (e *Engine) checkLambda(lambda []float64) error {
	if len(lambda) != e.d && len(lambda) != e.p*e.d {
		return fmt.Errorf("%w: len(lambda) = %d, want d = %d or p*d = %d", ErrShape, len(lambda), e.d, e.p*e.d)
	}
	if !linalg.Finite(lambda) {
		return fmt.Errorf("engine: %w: lambda", ErrNotFinite)
	}
	return nil
}

// distances computes prototypes lo..hi (a chunk) of one sample: projections
// into proj (the chunk's block, stride ProjStride()) and singular values
// into sigma (indexed from lo), distances into
// dist[k] and, if theta is not nil, angles into theta[k*d:], using the svd
// workspace of s. The single and the batch forms both call it once per
// chunk, so the svd batches are the same.
func (e *Engine) distances(s *shard, proj, sigma, dist, theta []float64, P *linalg.Dense, p32 []float32, lambda []float64, lo, hi int) error {
	d := e.d
	e.projectInto(proj, P, p32, lo, hi)
	if err := s.sv.Values(sigma, d, proj, chunk*d, d, hi-lo); err != nil {
		k := lo
		var be *svd.BatchError
		if errors.As(err, &be) {
			k += be.Index
		}
		if errors.Is(err, svd.ErrNotFinite) {
			if !e.protoFinite(k) {
				return fmt.Errorf("engine: %w: prototype %d", ErrNotFinite, k)
			}
			if P.Validate() != nil {
				return fmt.Errorf("engine: %w: sample", ErrNotFinite)
			}
			return fmt.Errorf("engine: %w: projection onto prototype %d overflows", ErrNotFinite, k)
		}
		return fmt.Errorf("engine: prototype %d: %w", k, err)
	}
	e.weightedN(dist, theta, sigma, lambda, lo, nil, hi-lo)
	return nil
}

// projectInto writes M_k = Pᵀ W_k for prototypes lo..hi (at most a chunk,
// consecutive, in one shard's storage and one chunk's block) side by side
// into proj (d x (hi-lo)·d, stride ProjStride(), from proj[0]): one
// kernels.AtB over the prototypes' side-by-side columns. An output of AtB
// is the same chain whatever the number of columns of the call, so these
// are the bits of one AtB per prototype (tested). In float32 mode it is
// kernels.AtB32 of p32 (P rounded, sampleF32) and the shard's protos32,
// with the same property.
func (e *Engine) projectInto(proj []float64, P *linalg.Dense, p32 []float32, lo, hi int) {
	d := e.d
	r := e.shards[e.owner[lo]]
	// One call per block of the layout (see col); float32 products where
	// the call has a float32 sample (float32 mode, a shadow search).
	if p32 != nil {
		for a, b := lo, lo; a < hi; a = b {
			b = r.runEnd32(a, hi)
			kernels.AtB32(proj[(a-lo)*d:], chunk*d, p32, d, r.protos32[r.col32(a, d):], r.ld32, e.dim, d, (b-a)*d)
		}
		return
	}
	for a, b := lo, lo; a < hi; a = b {
		b = r.runEnd(a, hi)
		kernels.AtB(proj[(a-lo)*d:], chunk*d, P.Data, P.Stride, r.protos[r.col(a, d):], r.ld, e.dim, d, (b-a)*d)
	}
}

// copyProj copies prototype k's projection into dst (d x d, stride d).
func (e *Engine) copyProj(dst []float64, k int) {
	d, ld := e.d, chunk*e.d
	m := e.Projection(k)
	for i := 0; i < d; i++ {
		copy(dst[i*d:(i+1)*d], m[i*ld:i*ld+d])
	}
}

// weightedAngles returns Σ_i λ_i θ_i² with θ_i = arccos(clamp(σ_i, 0, 1)),
// storing θ into theta unless it is nil.
func weightedAngles(theta, sigma, lambda []float64) float64 {
	lambda = lambda[:len(sigma)]
	var sum float64
	for i, c := range sigma {
		t := kernels.Acos(min(max(c, 0), 1))
		if theta != nil {
			theta[i] = t
		}
		sum += float64(lambda[i] * float64(t*t))
	}
	return sum
}

// sumAngles returns weightedAngles' sum of the angles theta: Σ_i λ_i θ_i²
// in the same order, with the same roundings.
func sumAngles(theta, lambda []float64) float64 {
	lambda = lambda[:len(theta)]
	var sum float64
	for i, t := range theta {
		sum += float64(lambda[i] * float64(t*t))
	}
	return sum
}

// distancesAll computes one sample against all prototypes in the batch
// workspace of s, in the same chunks as the single form.
func (e *Engine) distancesAll(s *shard, dist []float64, P *linalg.Dense, lambda []float64) error {
	d := e.d
	p32 := e.sampleF32(s, P)
	for _, r := range e.shards {
		for lo := r.lo; lo < r.hi; lo += chunk {
			hi := min(lo+chunk, r.hi)
			if err := e.distances(s, s.bproj[lo*d*d:], s.bsigma[lo*d:], dist, nil, P, p32, lambda, lo, hi); err != nil {
				return err
			}
		}
	}
	return nil
}

// imageNorm returns ‖x‖, or an error for a zero, non-finite or overflowing x.
func imageNorm(x []float64) (float64, error) {
	n, err := linalg.Norm(x)
	switch {
	case err != nil:
		return 0, fmt.Errorf("engine: image: %w", err)
	case n == 0:
		return 0, ErrZeroImage
	case n > math.MaxFloat64:
		return 0, fmt.Errorf("engine: %w: image norm overflows", ErrNotFinite)
	}
	return n, nil
}

// sparseImages enables the sparse image path; tests turn it off to compare.
var sparseImages = true

// Sparse images. x W is one FMA chain (generic: one sum of rounded
// products) per output over the pixels in order, starting from zero. A
// pixel x_i = ±0 against a finite w adds ±0: it leaves a nonzero sum
// unchanged and can only flip the sign of a zero one, which the squares in
// imageAngles remove. So skipping the zero pixels (kernels.SparseAB over
// the list kernels.Nonzeros makes) gives the same angles, bit for bit, on
// each implementation, provided no prototype holds a NaN or ±Inf where x
// is zero (e.finite). It reads nz of the dim rows of the prototypes, the
// memory traffic that bounds a single image; listing the pixels costs
// about 0.14 us at D = 784 with AVX-512 (0.18 us AVX2, 0.7 us pure Go),
// and the gathered rows run at the streaming speed of kernels.AB (as fast
// or faster at any density), so the crossover is close to no zeros at all.
const (
	// About sparseSample pixels, evenly spread (every n/sparseSample-th),
	// are looked at first: with fewer than sparseSampleZeros zeros among
	// them (a dense image, a photo) the image is not listed, so it pays
	// about 25 ns, not the listing.
	sparseSample      = 32
	sparseSampleZeros = 4
	// An image with more than sparseMaxNum/sparseMaxDen of its pixels
	// nonzero takes the dense path (kernels.AB): the saving would be
	// within the listing's cost.
	sparseMaxNum, sparseMaxDen = 7, 8
)

// imageSparse decides, from x alone (and e.finite), whether the image takes
// the sparse path; if so it lists x's nonzero pixels in e.nzIdx, e.nzVal
// and returns their number, else 0. x is finite and not all zero.
func (e *Engine) imageSparse(x []float64) int {
	return e.sparseList(e.nzIdx, e.nzVal, x)
}

// sparseList is imageSparse into the given lists.
func (e *Engine) sparseList(nzIdx []int32, nzVal []float64, x []float64) int {
	if !sparseImages || !e.finite {
		return 0
	}
	n := len(x)
	step := max(n/sparseSample, 1)
	zeros := 0
	for i := step / 2; i < n; i += step {
		if x[i] == 0 {
			zeros++
		}
	}
	if zeros < sparseSampleZeros {
		return 0
	}
	nz := kernels.Nonzeros(nzIdx, nzVal, x)
	if nz*sparseMaxDen > n*sparseMaxNum {
		return 0
	}
	return nz
}

// images computes prototypes lo..hi of one image (lo..hi within one
// shard): y = x W_lo..hi on the shard's side-by-side storage, one row of
// output, by kernels.AB, or by kernels.SparseAB over the listed nonzero
// pixels of a sparse image (the same bits), then the angles.
func (e *Engine) images(s *shard, dist, theta []float64, x []float64, xnorm float64, lo, hi int) error {
	r := e.shards[e.owner[lo]]
	d, nz := e.d, e.job.nz
	// One call per block of the layout (see col).
	if e.f32 && nz == 0 {
		for a, b := lo, lo; a < hi; a = b {
			b = r.runEnd32(a, hi)
			kernels.AtX32(s.y[(a-lo)*d:], r.protos32[r.col32(a, d):], r.ld32, e.shards[0].x32, e.dim, (b-a)*d)
		}
		return e.imageAngles(dist, theta, s.y[:(hi-lo)*d], xnorm, lo, hi)
	}
	for a, b := lo, lo; a < hi; a = b {
		if nz > 0 {
			b = sparseRun(s.y[(a-lo)*d:], e.nzVal[:nz], e.nzIdx[:nz], r, a, hi, d)
			continue
		}
		b = r.runEnd(a, hi)
		y, nc, w := s.y[(a-lo)*d:], (b-a)*d, r.protos[r.col(a, d):]
		kernels.AB(y, nc, x, e.dim, w, r.ld, 1, e.dim, nc)
	}
	return e.imageAngles(dist, theta, s.y[:(hi-lo)*d], xnorm, lo, hi)
}

// sparseRun computes y = x W_a.. for the prototypes of shard r from a on,
// up to hi, that one sparse call covers, x given by its nonzero pixels
// (val, idx), and returns where it stopped: a block's prototypes side by
// side are one kernels.SparseAB; prototypes in their own blocks (bw = 1,
// one after another at stride bs) are one kernels.SparseABBlocks, which
// interleaves their few FMA chains each. The same bits either way.
func sparseRun(y, val []float64, idx []int32, r *shard, a, hi, d int) int {
	if r.bw == 1 {
		kernels.SparseABBlocks(y, val, idx, r.protos[r.col(a, d):], r.ld, r.bs, hi-a, d)
		return hi
	}
	b := r.runEnd(a, hi)
	kernels.SparseAB(y, val, idx, r.protos[r.col(a, d):], r.ld, (b-a)*d)
	return b
}

// imageAngles turns y = x W_lo..hi (d values per prototype) into θ_k =
// arccos(min(‖y_k‖/‖x‖, 1)) and dist[k] = θ_k².
func (e *Engine) imageAngles(dist, theta, y []float64, xnorm float64, lo, hi int) error {
	d := e.d
	for k := lo; k < hi; k++ {
		var n2 float64
		for _, v := range y[(k-lo)*d : (k-lo+1)*d] {
			n2 += float64(v * v)
		}
		c := math.Sqrt(n2) / xnorm
		if !(c <= math.MaxFloat64) {
			return fmt.Errorf("engine: %w: prototype %d (image projection is %v)", ErrNotFinite, k, c)
		}
		if e.kind == Chordal {
			y := min(c, 1)
			if theta != nil {
				theta[k] = kernels.Acos(y)
			}
			dist[k] = sine2(y)
			continue
		}
		t := kernels.Acos(min(c, 1))
		if theta != nil {
			theta[k] = t
		}
		dist[k] = t * t
	}
	return nil
}

// imageBlock is the number of images of one chunk of ImageDistancesBatch:
// one kernels.AB call per shard computes them against all prototypes (a
// GEMM; the prototypes are read once per block instead of once per image).
const imageBlock = 32

// imageBlock computes images i0..i1 of a batch against all prototypes,
// writing dist[i*p:(i+1)*p]. Each output of kernels.AB is one FMA chain
// over the pixels in order, whatever the number of rows or columns of the
// call, so this gives the bits of ImageDistances (one row, chunks of
// prototypes). It returns the lowest failing sample and its error.
func (e *Engine) imageBlock(s *shard, dist, x []float64, ldx, i0, i1 int) (int, error) {
	p, d, m := e.p, e.d, i1-i0
	pd := p * d
	if e.f32 {
		return e.imageBlock32(s, dist, x, ldx, i0, i1)
	}
	for _, r := range e.shards {
		for a, b := r.lo, r.lo; a < r.hi; a = b {
			b = r.runEnd(a, r.hi)
			kernels.AB(s.by[a*d:], pd, x[i0*ldx:], ldx, r.protos[r.col(a, d):], r.ld, m, e.dim, (b-a)*d)
		}
	}
	for i := i0; i < i1; i++ {
		xnorm, err := imageNorm(x[i*ldx : i*ldx+e.dim])
		if err == nil {
			err = e.imageAngles(dist[i*p:(i+1)*p], nil, s.by[(i-i0)*pd:(i-i0+1)*pd], xnorm, 0, p)
		}
		if err != nil {
			return i, fmt.Errorf("sample %d: %w", i, err)
		}
	}
	return 0, nil
}
