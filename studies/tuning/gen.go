package main

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/subspace"
)

// spec describes a generated image-set collection.
type spec struct {
	Seed             uint64
	Dim, D           int     // pixels, subspace dimension of the bases
	Classes          int     // number of classes
	Sets             []int   // sets per class (imbalanced)
	Modes            int     // clusters per class (1: one cluster)
	Rank             int     // dimension of a mode's subspace
	Shared           int     // dimension of the subspace every set shares
	Overlap          float64 // how much a mode shares with the other classes' (0..1)
	Noise            float64 // per-pixel noise against unit signal per direction
	Nuisance         int     // per-set random directions (pose, lighting)
	Images           int     // images per set
	SharedVar, Decay float64
	Spread           float64 // how far a set's subspace strays from its mode
}

func (s spec) String() string {
	n := 0
	for _, v := range s.Sets {
		n += v
	}
	return fmt.Sprintf("seed %d: %d classes, %d sets (%d..%d a class), %d mode(s), rank %d, shared %d, overlap %.2f, spread %.2f, noise %.2f, nuisance %d, %d images, D=%d d=%d",
		s.Seed, s.Classes, n, minOf(s.Sets), maxOf(s.Sets), s.Modes, s.Rank, s.Shared, s.Overlap, s.Spread, s.Noise, s.Nuisance, s.Images, s.Dim, s.D)
}

func minOf(v []int) int {
	m := v[0]
	for _, x := range v {
		m = min(m, x)
	}
	return m
}

func maxOf(v []int) int {
	m := v[0]
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

// randomSpec draws a collection like the held-out ones of issue 23: 400
// pixels, bases of 8 columns, 60 to 260 sets, 3 to 28 classes, class
// sizes from 2 to 40 (imbalanced), 1 to 3 clusters per class, and
// difficulty from easy to near chance.
func randomSpec(seed uint64) spec {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	s := spec{Seed: seed, Dim: 400, D: 8}
	s.Classes = []int{3, 4, 5, 7, 10, 14, 20, 28}[r.IntN(8)]
	total := 60 + r.IntN(200)
	// Imbalance: class weights w_c = exp(skew·z), z standard normal.
	skew := []float64{0, 0.3, 0.7, 1.1}[r.IntN(4)]
	w := make([]float64, s.Classes)
	sum := 0.0
	for c := range w {
		w[c] = math.Exp(skew * r.NormFloat64())
		sum += w[c]
	}
	s.Sets = make([]int, s.Classes)
	for c := range w {
		s.Sets[c] = max(2, int(math.Round(float64(total)*w[c]/sum)))
	}
	s.Modes = 1 + r.IntN(3)
	s.Rank = 3 + r.IntN(6)
	s.Shared = 1 + r.IntN(4)
	s.Overlap = 0.6 + 0.38*r.Float64()
	s.Noise = 0.4 + 1.8*r.Float64()
	s.Nuisance = r.IntN(5)
	s.Images = 12 + r.IntN(40)
	s.SharedVar = 2 + 6*r.Float64()
	s.Decay = 0.6 + 0.35*r.Float64()
	s.Spread = 0.6 + 1.6*r.Float64()
	return s
}

// generate makes the collection: per set, images x = G a + U b + N c + e
// with G the shared subspace (large variance: every pair of sets has small
// first angles there, uninformative), U the set's class mode (a mix of
// class-specific and common directions, by Overlap), N the set's own
// nuisance directions and e pixel noise; the set's subspace is spanned by
// the first D left singular vectors of its images.
func generate(s spec) ([]*subspace.Subspace, []int, error) {
	r := rand.New(rand.NewPCG(s.Seed, 0x9e4))
	orth := func(cols int) (*linalg.Dense, error) {
		w := linalg.NewDense(s.Dim, cols)
		return w, linalg.NewOrthonormalizer(s.Dim, cols).Random(w, r)
	}
	shared, err := orth(s.Shared)
	if err != nil {
		return nil, nil, err
	}
	common, err := orth(s.Rank)
	if err != nil {
		return nil, nil, err
	}
	modes := make([][]*linalg.Dense, s.Classes)
	for c := range modes {
		for range s.Modes {
			own, err := orth(s.Rank)
			if err != nil {
				return nil, nil, err
			}
			m := linalg.NewDense(s.Dim, s.Rank)
			mix := rand.New(rand.NewPCG(s.Seed, uint64(c)))
			for i := range s.Dim {
				for j := range s.Rank {
					m.Set(i, j, math.Sqrt(1-s.Overlap)*own.At(i, j)+math.Sqrt(s.Overlap)*common.At(i, (j+mix.IntN(s.Rank))%s.Rank))
				}
			}
			if err := linalg.NewOrthonormalizer(s.Dim, s.Rank).Orthonormalize(m); err != nil {
				return nil, nil, err
			}
			modes[c] = append(modes[c], m)
		}
	}
	var xs []*subspace.Subspace
	var ys []int
	for c, n := range s.Sets {
		for i := range n {
			u, err := stray(modes[c][i%s.Modes], s.Spread, orth)
			if err != nil {
				return nil, nil, err
			}
			var nu *linalg.Dense
			if s.Nuisance > 0 {
				if nu, err = orth(s.Nuisance); err != nil {
					return nil, nil, err
				}
			}
			imgs := make([][]float64, s.Images)
			for k := range imgs {
				x := make([]float64, s.Dim)
				for j := range s.Shared {
					a := math.Sqrt(s.SharedVar) * r.NormFloat64()
					for p := range x {
						x[p] += a * shared.At(p, j)
					}
				}
				for j := range s.Rank {
					b := math.Pow(s.Decay, float64(j)) * r.NormFloat64()
					for p := range x {
						x[p] += b * u.At(p, j)
					}
				}
				for j := range s.Nuisance {
					b := 0.8 * r.NormFloat64()
					for p := range x {
						x[p] += b * nu.At(p, j)
					}
				}
				for p := range x {
					x[p] += s.Noise / math.Sqrt(float64(s.Dim)) * 3 * r.NormFloat64()
				}
				imgs[k] = x
			}
			sub, err := subspace.FromImages(imgs, min(s.D, s.Images))
			if err != nil {
				return nil, nil, err
			}
			xs = append(xs, &subspace.Subspace{Basis: sub.Basis})
			ys = append(ys, c)
		}
	}
	return xs, ys, nil
}

// stray returns the span of u + spread·R, R a random orthonormal basis:
// the set's own version of its class mode.
func stray(u *linalg.Dense, spread float64, orth func(int) (*linalg.Dense, error)) (*linalg.Dense, error) {
	r, err := orth(u.Cols)
	if err != nil {
		return nil, err
	}
	m := linalg.NewDense(u.Rows, u.Cols)
	for i := range u.Rows {
		for j := range u.Cols {
			m.Set(i, j, u.At(i, j)+spread*r.At(i, j))
		}
	}
	return m, linalg.NewOrthonormalizer(u.Rows, u.Cols).Orthonormalize(m)
}
