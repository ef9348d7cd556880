package model

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/grlgq/grlgq/kernels"
	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/subspace"
	"github.com/grlgq/grlgq/svd"
)

// initPrototypes fills m.protos from training sets following m.train.Init
// (see placePrototypes).
func initPrototypes(ctx context.Context, m *Model, x []*subspace.Subspace, y []int) error {
	var pca *pcaWork
	return placePrototypes(ctx, m, y, "set", 1, func(c int, idx []int, rng *rand.Rand, orth *linalg.Orthonormalizer) placeFunc {
		var chosen []int
		if m.train.Init == InitSample {
			// Distinct sets while the class has enough (a partial
			// Fisher–Yates on a copy of its indices), then repeats.
			n := m.cfg.prototypesOf(c)
			perm := append([]int(nil), idx...)
			chosen = make([]int, n)
			for j := 0; j < n; j++ {
				r := j % len(perm)
				if r == 0 && j > 0 {
					perm = append(perm[:0], idx...)
				}
				s := r + rng.IntN(len(perm)-r)
				perm[r], perm[s] = perm[s], perm[r]
				chosen[j] = perm[r]
			}
		}
		return func(w *linalg.Dense, j int) error {
			if m.train.Init == InitSample {
				w.CopyFrom(x[chosen[j]].Basis)
				addNoise(w, m.train.InitNoise, rng)
				return orth.Orthonormalize(w)
			}
			// InitPCA: class sets (j = 0) or a bootstrap resample (j >= 1),
			// each distinct set once with its multiplicity as weight.
			count := resample(len(idx), j, rng)
			var sets []*linalg.Dense
			var weights []float64
			for i, k := range idx {
				if count[i] > 0 {
					sets = append(sets, x[k].Basis)
					weights = append(weights, count[i])
				}
			}
			if pca == nil {
				pca = newPCAWork(m.dim, m.d)
			}
			return pca.dominant(ctx, w, sets, weights, rng)
		}
	})
}

// placeFunc writes prototype j of a class into w.
type placeFunc func(w *linalg.Dense, j int) error

// placePrototypes fills m.protos following m.train.Init, drawing from one PCG
// stream (seed, "INIT"): classes in order, prototypes of a class in order.
// InitRandom draws random orthonormal bases; otherwise every class needs at
// least minItems training items (called item in messages; y labels them),
// and class(c, idx, ...) (idx: the items of class c) returns the function
// that places the class's prototypes from them. It stops with ctx's error
// before a prototype when ctx is done (InitPCA's subspace iteration checks
// it too, every iteration).
func placePrototypes(ctx context.Context, m *Model, y []int, item string, minItems int, class func(c int, idx []int, rng *rand.Rand, orth *linalg.Orthonormalizer) placeFunc) error {
	cfg, tc := &m.cfg, &m.train
	rng := rand.New(rand.NewPCG(tc.Seed, streamInit))
	orth := linalg.NewOrthonormalizer(m.dim, m.d)
	byClass := make([][]int, m.classes)
	for i, c := range y {
		byClass[c] = append(byClass[c], i)
	}
	if tc.Init != InitRandom {
		for c, idx := range byClass {
			if len(idx) == 0 {
				return fmt.Errorf("model: %w: class %d has no training %s to initialise from", ErrData, c, item)
			}
			if len(idx) < minItems {
				return fmt.Errorf("model: %w: class %d has %d training %ss, InitSample needs d = %d", ErrData, c, len(idx), item, minItems)
			}
		}
	}
	m.protos = make([]*linalg.Dense, 0, len(m.labels))
	for c := 0; c < m.classes; c++ {
		var place placeFunc
		if tc.Init != InitRandom {
			place = class(c, byClass[c], rng, orth)
		}
		for j := 0; j < cfg.prototypesOf(c); j++ {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("model: initialising prototype %d of class %d: %w", j, c, err)
			}
			w := linalg.NewDense(m.dim, m.d)
			var err error
			if place == nil {
				err = orth.Random(w, rng)
			} else {
				err = place(w, j)
			}
			if err != nil {
				return fmt.Errorf("model: initialising prototype %d of class %d: %w", j, c, err)
			}
			m.protos = append(m.protos, w)
		}
	}
	m.roundPrototypes()
	return nil
}

// addNoise adds independent N(0, s²) draws to every entry of w, row by
// row (nothing when s <= 0).
func addNoise(w *linalg.Dense, s float64, rng *rand.Rand) {
	if s <= 0 {
		return
	}
	for r := 0; r < w.Rows; r++ {
		row := w.Row(r)
		for i := range row {
			row[i] += float64(s * rng.NormFloat64())
		}
	}
}

// resample returns how many times each of n items enters the j-th PCA
// prototype of a class: once each for j = 0, a bootstrap resample (n
// draws with replacement) for j >= 1.
func resample(n, j int, rng *rand.Rand) []float64 {
	count := make([]float64, n)
	for i := range count {
		if j == 0 {
			count[i]++
		} else {
			count[rng.IntN(n)]++
		}
	}
	return count
}

// pcaWork finds the dominant d-dimensional subspace of Σ_i P_i P_iᵀ, the
// span of the top d left singular vectors of the stacked bases
// [P_1 ... P_n].
type pcaWork struct {
	dim, d int
	orth   *linalg.Orthonormalizer
}

// pcaMaxIter bounds the subspace iteration of InitPCA.
const pcaMaxIter = 500

func newPCAWork(dim, d int) *pcaWork { return &pcaWork{dim: dim, d: d} }

// dominant writes into dst (D x d) the top d left singular vectors of the
// stacked, weighted bases X = [√c_1 P_1 ... √c_n P_n], i.e. the dominant
// subspace of Σ c_i P_i P_iᵀ (the P_i may have any number of columns: the
// d-column bases of training sets, or a class's unit images side by side). When X has at most svd.MaxSmall columns, or
// D <= svd.MaxSmall, this is one thin SVD (of X, or of Xᵀ); otherwise a
// block subspace iteration with Rayleigh–Ritz on a block of
// b = min(2d+8, n·d, MaxSmall) columns, run until the top d Ritz values
// change by less than 1e-13 relative (at most pcaMaxIter iterations): an
// initialisation, accurate to far better than it needs. The iteration
// stops with ctx's error when ctx is done.
func (w *pcaWork) dominant(ctx context.Context, dst *linalg.Dense, sets []*linalg.Dense, weights []float64, rng *rand.Rand) error {
	dim, d := w.dim, w.d
	cols, widest := 0, 0
	for _, s := range sets {
		cols += s.Cols
		widest = max(widest, s.Cols)
	}
	if cols < d {
		return fmt.Errorf("model: %w: %d columns for a %d-dimensional subspace", ErrData, cols, d)
	}
	if min(cols, dim) <= svd.MaxSmall {
		stack := func(r int, row []float64) {
			off := 0
			for i, s := range sets {
				sc := math.Sqrt(weights[i])
				for j, v := range s.Row(r) {
					row[off+j] = float64(sc * v)
				}
				off += s.Cols
			}
		}
		if cols <= dim {
			x := linalg.NewDense(dim, cols)
			for r := 0; r < dim; r++ {
				stack(r, x.Row(r))
			}
			u := linalg.NewDense(dim, cols)
			v := linalg.NewDense(cols, cols)
			s := make([]float64, cols)
			if err := svd.NewTall(dim, cols).Factorize(u.Data, u.Stride, s, v.Data, v.Stride, x.Data, x.Stride); err != nil {
				return err
			}
			for r := 0; r < dim; r++ {
				copy(dst.Row(r), u.Row(r)[:d])
			}
			return nil
		}
		// Xᵀ (cols x dim) = U Σ Vᵀ: the left singular vectors of X are V.
		xt := linalg.NewDense(cols, dim)
		row := make([]float64, cols)
		for r := 0; r < dim; r++ {
			stack(r, row)
			for c, v := range row {
				xt.Data[c*xt.Stride+r] = v
			}
		}
		u := linalg.NewDense(cols, dim)
		v := linalg.NewDense(dim, dim)
		s := make([]float64, dim)
		if err := svd.NewTall(cols, dim).Factorize(u.Data, u.Stride, s, v.Data, v.Stride, xt.Data, xt.Stride); err != nil {
			return err
		}
		for r := 0; r < dim; r++ {
			copy(dst.Row(r), v.Row(r)[:d])
		}
		return nil
	}
	b := min(2*d+8, cols, svd.MaxSmall)
	q := linalg.NewDense(dim, b)
	z := linalg.NewDense(dim, b)
	tmp := linalg.NewDense(dim, b)
	small := linalg.NewDense(widest, b) // Pᵀ Q
	h := make([]float64, b*b)
	ev := make([]float64, b*b)
	vals := make([]float64, b)
	prev := make([]float64, b)
	orth := linalg.NewOrthonormalizer(dim, b)
	sv := svd.NewSmall(b)
	if err := orth.Random(q, rng); err != nil {
		return err
	}
	apply := func() { // z = Σ_i P_i (P_iᵀ q)
		z.Zero()
		for i, p := range sets {
			n := p.Cols
			kernels.AtB(small.Data, small.Stride, p.Data, p.Stride, q.Data, q.Stride, dim, n, b)
			kernels.Scale(weights[i], small.Data[:n*small.Stride])
			kernels.AB(tmp.Data, tmp.Stride, p.Data, p.Stride, small.Data, small.Stride, dim, n, b)
			addTo(z, tmp)
		}
	}
	for it := 0; ; it++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		apply()
		kernels.AtB(h, b, q.Data, q.Stride, z.Data, z.Stride, dim, b, b)
		if err := sv.Values(vals, h, b); err != nil {
			return err
		}
		done := it > 2
		for k := 0; k < d; k++ {
			if math.Abs(vals[k]-prev[k]) > 1e-13*vals[0] {
				done = false
			}
		}
		copy(prev, vals)
		if done || it == pcaMaxIter {
			break // h = qᵀ C q for the current q
		}
		if err := orth.OrthonormalizeTo(q, z); err != nil {
			return err
		}
	}
	// Rayleigh–Ritz: h = qᵀ C q is symmetric PSD, its SVD is its eigen-
	// decomposition; the top d Ritz vectors are q E[:, :d].
	if err := sv.Factorize(ev, b, vals, make([]float64, b*b), b, h, b); err != nil {
		return err
	}
	kernels.AB(tmp.Data, tmp.Stride, q.Data, q.Stride, ev, b, dim, b, b)
	for r := 0; r < dim; r++ {
		copy(dst.Row(r), tmp.Row(r)[:d])
	}
	if w.orth == nil {
		w.orth = linalg.NewOrthonormalizer(dim, d)
	}
	return w.orth.Orthonormalize(dst)
}
