package model

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/subspace"
)

// The images share the relevance-weighted pull of the set exactly:
// Σ_j s_j = Σ_i (2 λ_i θ_i / sin θ_i) cos θ_i for each side, and the
// scores are the sides' difference.
func TestImageSupportSums(t *testing.T) {
	const dim, d, m = 30, 3, 8
	xs, ys, _ := synthSets(t, 82, dim, d, m, 3, 4, 0.2)
	for _, rel := range []RelevanceKind{RelevanceGlobal, RelevanceLocal} {
		mod, _, err := Train(context.Background(), legacyOptions(Config{Relevance: rel, PrototypesPerClass: 2}, TrainConfig{Epochs: 2, Seed: 2, Gamma: 0.01}), Sets(xs), ys)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 6; i++ {
			ex, err := mod.Explain(Set(xs[i]), ys[i])
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []Side{ex.Plus, ex.Minus} {
				lam := mod.relevanceOf(s.Prototype)
				var want, got float64
				for k, th := range s.Angles {
					want += 2 * lam[k] * thetaOverSin(th) * math.Cos(th)
				}
				for _, v := range s.ImageSupport {
					got += v
				}
				if len(s.ImageSupport) != m || math.Abs(got-want) > 1e-10 {
					t.Errorf("%v relevances, set %d: Σ s_j = %v over %d images, want %v over %d", rel, i, got, len(s.ImageSupport), want, m)
				}
			}
			r := ex.RankImages()
			if len(r) != m {
				t.Fatalf("ranking of %d images, want %d", len(r), m)
			}
			for k, is := range r {
				if is.Score != ex.Plus.ImageSupport[is.Image]-ex.Minus.ImageSupport[is.Image] || k > 0 && math.Abs(is.Score) > math.Abs(r[k-1].Score) {
					t.Errorf("ranking %v not by |score|", r)
					break
				}
			}
		}
	}
	// No images, no ranking: a single image, a subspace of a bare basis.
	mod, _, err := Train(context.Background(), legacyOptions(Config{}, TrainConfig{Epochs: 1}), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := mod.Explain(Set(&subspace.Subspace{Basis: xs[0].Basis}), -1)
	if err != nil || ex.ImageScores != nil || ex.RankImages() != nil {
		t.Errorf("bare basis: %v, scores %v", err, ex.ImageScores)
	}
	img := make([]float64, dim)
	img[0] = 1
	if ex, err := mod.Explain(Image(img), -1); err != nil || ex.RankImages() != nil {
		t.Errorf("single image: %v, ranking %v", err, ex.RankImages())
	}
}

// A set whose one strong image lies in the span of the explained class's
// nearest prototype, the others weak noise: that image ranks first, with
// a positive score far above the others'.
func TestRankImagesDominant(t *testing.T) {
	const dim, d, m = 40, 2, 7
	xs, ys, _ := synthSets(t, 83, dim, d, m, 2, 4, 0.1)
	mod, _, err := Train(context.Background(), legacyOptions(Config{}, TrainConfig{Epochs: 2, Seed: 1}), Sets(xs), ys)
	if err != nil {
		t.Fatal(err)
	}
	w := mod.Prototype(0) // class 0
	rng := rand.New(rand.NewPCG(5, 5))
	conv, err := subspace.NewConverter(dim, m, d)
	if err != nil {
		t.Fatal(err)
	}
	for _, strong := range []int{0, 3, 6} {
		x := linalg.NewDense(dim, m)
		for r := 0; r < dim; r++ {
			row := x.Row(r)
			for j := range row {
				row[j] = 0.05 * rng.NormFloat64()
			}
			wr := w.Row(r)
			row[strong] = 3*wr[0] + 2*wr[1] // in span(W)
		}
		s, err := conv.FromSet(x)
		if err != nil {
			t.Fatal(err)
		}
		ex, err := mod.Explain(Set(s), 0)
		if err != nil {
			t.Fatal(err)
		}
		if ex.Plus.Prototype != 0 {
			t.Fatalf("W⁺ = %d, want 0", ex.Plus.Prototype)
		}
		r := ex.RankImages()
		if r[0].Image != strong || r[0].Score <= 0 || r[0].Score < 5*math.Abs(r[1].Score) {
			t.Errorf("strong image %d: ranking %v", strong, r)
		}
	}
}
