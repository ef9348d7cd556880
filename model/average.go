package model

import (
	"errors"
	"fmt"

	"github.com/grlgq/grlgq/kernels"
	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/subspace"
)

// Average returns the mean of models of one shape: snapshots of one
// training run (averaging the last epochs' iterates reduces the noise that
// constant-rate SGD leaves in the final prototypes), or models trained from
// other seeds on the same data. Every model must have the same D, d,
// classes, prototype labels, relevance kind and distance.
//
// Prototype k of the result spans the d dominant left singular vectors of
// [W_k⁽¹⁾ … W_k⁽ⁿ⁾] (D x n·d), that is the d leading eigenvectors of the
// mean projection (1/n) Σ W_k⁽ⁱ⁾ W_k⁽ⁱ⁾ᵀ: the extrinsic (projection) mean of
// the n subspaces, which depends only on their spans. It is computed by
// orthogonal iteration on that mean projection, started at the last model's
// prototype, to a residual of meanTol (a few steps when the models are
// close, as snapshots of one run are: O(n D d²) each); when that does not
// converge (nearly equal eigenvalues around the d-th) by the exact thin SVD
// of the D x n·d stack, which costs O((n d)³). The relevances are
// the arithmetic mean, renormalised to sum 1. The result keeps the first
// model's configuration and the largest epoch count. The models are not
// modified.
func Average(ms []*Model) (*Model, error) {
	if len(ms) == 0 {
		return nil, errors.New("model: Average of no models")
	}
	for i, m := range ms {
		if m == nil {
			return nil, fmt.Errorf("model: Average: model %d is nil", i)
		}
	}
	m0 := ms[0]
	if len(ms) == 1 {
		out := m0.clone()
		out.workers = 0 // a new model: all cores (Model.WithWorkers)
		return out, nil
	}
	for i, m := range ms[1:] {
		if m.dim != m0.dim || m.d != m0.d || m.classes != m0.classes || len(m.protos) != len(m0.protos) || m.cfg.Relevance != m0.cfg.Relevance {
			return nil, fmt.Errorf("model: Average: model %d (D=%d d=%d %d classes %d prototypes) differs in shape from model 0 (D=%d d=%d %d classes %d prototypes)",
				i+1, m.dim, m.d, m.classes, len(m.protos), m0.dim, m0.d, m0.classes, len(m0.protos))
		}
		if m.cfg.Distance != m0.cfg.Distance {
			// Relevances learnt for one distance mean nothing to the other.
			return nil, fmt.Errorf("model: Average: model %d has the %v distance, model 0 the %v one", i+1, m.cfg.Distance, m0.cfg.Distance)
		}
		for k, l := range m.labels {
			if l != m0.labels[k] {
				return nil, fmt.Errorf("model: Average: prototype %d has label %d in model %d, %d in model 0", k, l, i+1, m0.labels[k])
			}
		}
	}
	dim, d := m0.dim, m0.d
	out := m0.clone()
	out.ownPrototypes() // written below
	out.workers = 0     // a new model: all cores (Model.WithWorkers)
	ws := make([]*linalg.Dense, len(ms))
	mw := newMeanWork(dim, d)
	for k := range out.protos {
		for i, m := range ms {
			ws[i] = m.protos[k]
		}
		if err := mw.mean(out.protos[k], ws); err != nil {
			return nil, fmt.Errorf("model: Average: prototype %d: %w", k, err)
		}
	}
	for j := range out.lambda {
		sum := 0.0
		for _, m := range ms {
			sum += m.lambda[j]
		}
		out.lambda[j] = sum / float64(len(ms))
	}
	// Renormalise each relevance vector (one, or one per prototype).
	for lo := 0; lo < len(out.lambda); lo += d {
		l := out.lambda[lo : lo+d]
		sum := 0.0
		for _, v := range l {
			sum += v
		}
		for j := range l {
			l[j] /= sum
		}
	}
	for _, m := range ms {
		out.epochs = max(out.epochs, m.epochs)
	}
	out.roundPrototypes()
	return out, nil
}

// meanTol is the relative residual ‖P̄Y − Y YᵀP̄Y‖_F / ‖P̄Y‖_F at which the
// orthogonal iteration of meanWork stops; meanMaxIter bounds it (then the
// exact route; a variable for the tests).
const meanTol = 1e-14

var meanMaxIter = 300

// meanWork is the workspace of the mean subspace of D x d bases.
type meanWork struct {
	dim, d  int
	y, z, t *linalg.Dense
	c       []float64 // d x d
	orth    *linalg.Orthonormalizer
	conv    *subspace.Converter // the exact route, made on first use
	stack   *linalg.Dense
}

func newMeanWork(dim, d int) *meanWork {
	return &meanWork{
		dim: dim, d: d,
		y:    linalg.NewDense(dim, d),
		z:    linalg.NewDense(dim, d),
		t:    linalg.NewDense(dim, d),
		c:    make([]float64, d*d),
		orth: linalg.NewOrthonormalizer(dim, d),
	}
}

// apply sets w.z = Σ_i W_i W_iᵀ Y (the mean projection times n).
func (w *meanWork) apply(ws []*linalg.Dense, y *linalg.Dense) {
	dim, d := w.dim, w.d
	w.z.Zero()
	for _, wi := range ws {
		linalg.ProjectTo(w.c, d, wi, y)
		kernels.AB(w.t.Data, w.t.Stride, wi.Data, wi.Stride, w.c, d, dim, d, d)
		kernels.Axpy(1, w.t.Data, w.z.Data)
	}
}

// mean sets dst to an orthonormal basis of the mean subspace of ws.
func (w *meanWork) mean(dst *linalg.Dense, ws []*linalg.Dense) error {
	dim, d := w.dim, w.d
	w.y.CopyFrom(ws[len(ws)-1])
	for it := 0; it < meanMaxIter; it++ {
		w.apply(ws, w.y)
		// Residual of Y as an invariant subspace: Z − Y (YᵀZ).
		linalg.ProjectTo(w.c, d, w.y, w.z)
		kernels.AB(w.t.Data, w.t.Stride, w.y.Data, w.y.Stride, w.c, d, dim, d, d)
		var rr, zz float64
		for r := 0; r < dim; r++ {
			zr := w.z.Data[r*w.z.Stride : r*w.z.Stride+d]
			tr := w.t.Data[r*w.t.Stride : r*w.t.Stride+d]
			for j, v := range zr {
				e := v - tr[j]
				rr += float64(e * e)
				zz += float64(v * v)
			}
		}
		if !finite(rr) || !finite(zz) {
			return fmt.Errorf("%w: mean projection", ErrNotFinite)
		}
		if rr <= meanTol*meanTol*zz {
			dst.CopyFrom(w.y)
			return nil
		}
		if err := w.orth.OrthonormalizeTo(w.y, w.z); err != nil {
			break
		}
	}
	return w.exact(dst, ws)
}

// exact sets dst to the d leading left singular vectors of [W_1 … W_n].
func (w *meanWork) exact(dst *linalg.Dense, ws []*linalg.Dense) error {
	dim, d, n := w.dim, w.d, len(ws)
	if w.conv == nil {
		conv, err := subspace.NewConverter(dim, n*d, d)
		if err != nil {
			return err
		}
		w.conv, w.stack = conv, linalg.NewDense(dim, n*d)
	}
	for i, wi := range ws {
		for r := 0; r < dim; r++ {
			copy(w.stack.Data[r*w.stack.Stride+i*d:r*w.stack.Stride+(i+1)*d], wi.Data[r*wi.Stride:r*wi.Stride+d])
		}
	}
	s, err := w.conv.FromSet(w.stack)
	if err != nil {
		return err
	}
	dst.CopyFrom(s.Basis)
	return nil
}
