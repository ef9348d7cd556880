package model

import (
	"fmt"

	"github.com/grlgq/grlgq/subspace"
)

// Sample is one thing to train on, classify or explain: an image set, given
// by its subspace (Set), or a single image (Image), the 1-D subspace x/‖x‖
// at distance θ_1² = arccos(‖Wᵀx‖/‖x‖)² from a prototype W. The zero Sample
// is neither and is refused with ErrData. A Sample refers to the caller's
// subspace or pixels, which must not change while it is in use; it is
// small and is passed by value without allocating.
type Sample struct {
	set *subspace.Subspace
	img []float64
}

// Set returns the sample of an image set's subspace (its Basis must be
// D x d with orthonormal columns: training and every prediction method
// refuse, with ErrData, a basis with max |PᵀP − I| over 1e-6; Values and
// Right, when present, let Explain rank the set's images). Set(nil) is
// the zero Sample.
func Set(s *subspace.Subspace) Sample { return Sample{set: s} }

// Image returns the sample of the single image x (D pixels, any positive
// scale). Image(nil) is the zero Sample.
func Image(x []float64) Sample {
	if len(x) == 0 {
		return Sample{}
	}
	return Sample{img: x}
}

// Subspace returns the subspace of a set sample (nil for an image or the
// zero Sample), Pixels the pixels of an image sample (nil for a set or the
// zero Sample): the caller's own values, not copies.
func (s Sample) Subspace() *subspace.Subspace { return s.set }
func (s Sample) Pixels() []float64            { return s.img }

// Sets returns Set(s) for every set of xs.
func Sets(xs []*subspace.Subspace) []Sample {
	out := make([]Sample, len(xs))
	for i, s := range xs {
		out[i] = Set(s)
	}
	return out
}

// Images returns Image(x) for every image of xs. A batch of images that
// lie back to back in one slice (xs[i] = block[i*D : (i+1)*D]) is
// classified by the batch methods straight from that slice.
func Images(xs [][]float64) []Sample {
	out := make([]Sample, len(xs))
	for i, x := range xs {
		out[i] = Image(x)
	}
	return out
}

// kind is what a sample or a list of samples holds.
type kind uint8

const (
	kindNone kind = iota
	kindSet
	kindImage
)

func (s Sample) kind() kind {
	switch {
	case s.set != nil:
		return kindSet
	case s.img != nil:
		return kindImage
	}
	return kindNone
}

// kindOf returns the one kind of the samples x (all sets or all images;
// kindNone for none), or ErrData naming the first sample that is neither
// or differs.
func kindOf(x []Sample) (kind, error) {
	if len(x) == 0 {
		return kindNone, nil
	}
	k := x[0].kind()
	for i, s := range x {
		switch sk := s.kind(); {
		case sk == kindNone:
			return kindNone, fmt.Errorf("model: %w: sample %d is empty (neither a set nor an image)", ErrData, i)
		case sk != k:
			return kindNone, fmt.Errorf("model: %w: sample %d is %s, sample 0 %s: a call takes sets or images, not both", ErrData, i, sk, k)
		}
	}
	return k, nil
}

func (k kind) String() string {
	switch k {
	case kindSet:
		return "a set"
	case kindImage:
		return "an image"
	}
	return "empty"
}

// emptySample is the error of a zero Sample.
func emptySample() error {
	return fmt.Errorf("model: %w: empty sample (neither a set nor an image)", ErrData)
}

// imageBlock returns the images of x (all images, each of dim pixels) as
// one row-major block with stride dim: the memory they already share when
// they lie back to back in one slice, else a copy into buf (grown as
// needed; the second result is buf, to keep).
func imageBlock(x []Sample, dim int, buf []float64) (block, keep []float64) {
	n := len(x)
	if n == 0 {
		return nil, buf
	}
	first := x[0].img
	if len(first) == dim {
		all := first[:cap(first)]
		if len(all) >= n*dim {
			shared := true
			for i := 1; i < n; i++ {
				if xi := x[i].img; len(xi) != dim || &xi[0] != &all[i*dim] {
					shared = false
					break
				}
			}
			if shared {
				return all[:n*dim], buf
			}
		}
	}
	buf = grow(buf, n*dim)
	for i, s := range x {
		copy(buf[i*dim:(i+1)*dim], s.img)
	}
	return buf, buf
}
