package model

import (
	"errors"
	"fmt"

	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/subspace"
)

// Average returns the mean of models of one shape: snapshots of one
// training run (averaging the last epochs' iterates reduces the noise that
// constant-rate SGD leaves in the final prototypes), or models trained from
// other seeds on the same data. Every model must have the same D, d,
// classes, prototype labels and relevance kind.
//
// Prototype k of the result spans the d dominant left singular vectors of
// [W_k⁽¹⁾ … W_k⁽ⁿ⁾] (D x n·d), that is the d leading eigenvectors of the
// mean projection (1/n) Σ W_k⁽ⁱ⁾ W_k⁽ⁱ⁾ᵀ: the extrinsic (projection) mean of
// the n subspaces, which depends only on their spans. The relevances are
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
		return m0.clone(), nil
	}
	for i, m := range ms[1:] {
		if m.dim != m0.dim || m.d != m0.d || m.classes != m0.classes || len(m.protos) != len(m0.protos) || m.cfg.Relevance != m0.cfg.Relevance {
			return nil, fmt.Errorf("model: Average: model %d (D=%d d=%d %d classes %d prototypes) differs in shape from model 0 (D=%d d=%d %d classes %d prototypes)",
				i+1, m.dim, m.d, m.classes, len(m.protos), m0.dim, m0.d, m0.classes, len(m0.protos))
		}
		for k, l := range m.labels {
			if l != m0.labels[k] {
				return nil, fmt.Errorf("model: Average: prototype %d has label %d in model %d, %d in model 0", k, l, i+1, m0.labels[k])
			}
		}
	}
	dim, d, n := m0.dim, m0.d, len(ms)
	conv, err := subspace.NewConverter(dim, n*d, d)
	if err != nil {
		return nil, fmt.Errorf("model: Average of %d models: %w", n, err)
	}
	out := m0.clone()
	stack := linalg.NewDense(dim, n*d)
	for k := range out.protos {
		for i, m := range ms {
			w := m.protos[k]
			for r := 0; r < dim; r++ {
				copy(stack.Data[r*stack.Stride+i*d:r*stack.Stride+(i+1)*d], w.Data[r*w.Stride:r*w.Stride+d])
			}
		}
		s, err := conv.FromSet(stack)
		if err != nil {
			return nil, fmt.Errorf("model: Average: prototype %d: %w", k, err)
		}
		out.protos[k].CopyFrom(s.Basis)
	}
	for j := range out.lambda {
		sum := 0.0
		for _, m := range ms {
			sum += m.lambda[j]
		}
		out.lambda[j] = sum / float64(n)
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
	return out, nil
}
