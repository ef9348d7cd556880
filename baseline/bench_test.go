package baseline

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/grlgq/grlgq/kernels"
	"github.com/grlgq/grlgq/linalg"

	"github.com/grlgq/grlgq/subspace"
)

// benchSets is the tuner's budget case of issue 23: 250 training sets of
// 400 x 8 bases (10 classes of 25; sets of 18 noisy images around class
// subspaces of dimension 10 that share much of one common subspace, so
// that 1-NN is at about 40% and the SVM at about 75%, like hard real
// collections).
func benchSets(b *testing.B) ([]*subspace.Subspace, []int) {
	return synthShared(b, 10, 25, 400, 8, 10, 0.6, 0.6, 42)
}

// BenchmarkPairs: the pair table of 250 sets of 400 x 8 (31,375 pairs),
// ours with 1 and 2 workers beside the same with gonum (mat.Mul and
// mat.SVD values per pair, one goroutine).
func BenchmarkPairs(b *testing.B) {
	x, _ := benchSets(b)
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("ours/workers=%d", w), func(b *testing.B) {
			for b.Loop() {
				if _, err := NewPairs(context.Background(), x, w); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("gonum/workers=1", func(b *testing.B) {
		g := make([]*mat.Dense, len(x))
		for i, s := range x {
			g[i] = mat.NewDense(s.Basis.Rows, s.Basis.Cols, nil)
			for r := range s.Basis.Rows {
				for c := range s.Basis.Cols {
					g[i].Set(r, c, s.Basis.At(r, c))
				}
			}
		}
		var m mat.Dense
		var svd mat.SVD
		v := make([]float64, 8)
		for b.Loop() {
			for i := range g {
				for j := i; j < len(g); j++ {
					m.Mul(g[i].T(), g[j])
					if !svd.Factorize(&m, mat.SVDNone) {
						b.Fatal("svd")
					}
					svd.Values(v)
				}
			}
		}
	})
}

// BenchmarkEvaluate: every baseline (the defaults and GDA) on the 250
// sets, 3-fold (the tuner's folds at 250 sets) and 5-fold, with 1 and 2
// workers; the pair table included. It reports each method's accuracy and
// compute time (summed over goroutines) and the table's wall time.
func BenchmarkEvaluate(b *testing.B) {
	x, y := benchSets(b)
	for _, k := range []int{3, 5} {
		splits := kfold(y, k, 1)
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("folds=%d/workers=%d", k, w), func(b *testing.B) {
				var res *Result
				for b.Loop() {
					var err error
					if res, err = Evaluate(context.Background(), x, y, splits, Options{Workers: w, Methods: append(DefaultMethods(), Method{Kind: GDA})}); err != nil {
						b.Fatal(err)
					}
				}
				for _, m := range res.Methods {
					b.ReportMetric(100*m.Mean, m.Method.String()+"-%")
				}
				for _, k := range []Kind{SVM, GDA} {
					m := res.Method(Method{Kind: k})
					b.ReportMetric(m.Time.Seconds(), m.Method.String()+"-cpu-s")
				}
				b.ReportMetric(res.PairsTime.Seconds(), "pairs-s")
			})
		}
	}
}

// BenchmarkPairParts splits a row of the table (one set against 250) into
// its products (kernels.AtB) and its singular values (svd.Batch).
func BenchmarkPairParts(b *testing.B) {
	x, _ := benchSets(b)
	p, err := NewPairs(context.Background(), x, 1)
	if err != nil {
		b.Fatal(err)
	}
	w := newPairWork()
	if err := w.row(p, x, 0, cols(len(x))); err != nil {
		b.Fatal(err)
	}
	b.Run("row", func(b *testing.B) {
		for b.Loop() {
			if err := w.row(p, x, 0, cols(len(x))); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("products", func(b *testing.B) {
		a := x[0].Basis
		for b.Loop() {
			for j := range x {
				c := x[j].Basis
				kernels.AtB(w.proj[(j%pairChunk)*64:], 8, a.Data, a.Stride, c.Data, c.Stride, 400, 8, 8)
			}
		}
	})
	b.Run("values", func(b *testing.B) {
		for b.Loop() {
			for lo := 0; lo < len(x); lo += pairChunk {
				if err := w.batch[8].Values(w.sigma, 8, w.proj, 8, 64, min(pairChunk, len(x)-lo)); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// BenchmarkImageRows: the pairs of single images against sets, the shape
// of the MNIST protocol's baselines (D = 784, training sets of d = 12,
// images about two thirds nonzero; MNIST's digits are about 19% nonzero):
// a row of one image against 120 sets by the sparse path (kernels.SparseAB
// over its nonzero pixels, what the table runs) beside the general path
// (AtB into a padded square, the same bits), and EvaluateHoldouts with
// every default method on 120 sets against 1,000 images with 1 and 2
// workers (ns/pair: the whole evaluation over the test pairs).
func BenchmarkImageRows(b *testing.B) {
	xs, ys := synth(b, 10, 12, 784, 12, 12, 0.5, 81)
	xi, yi := images(b, 1000, 10, 784, 82)
	x := append(slices.Clone(xs), xi[0])
	p, err := NewPairsFor(context.Background(), x, cols(len(xs)), 1)
	if err != nil {
		b.Fatal(err)
	}
	w := newPairWork()
	c := cols(len(xs))
	q := len(xs)
	b.Run("row/sparse", func(b *testing.B) {
		for b.Loop() {
			w.imageRow(p, x, q, c)
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(c)), "ns/pair")
	})
	b.Run("row/general", func(b *testing.B) {
		for b.Loop() {
			for _, j := range c {
				if err := w.single(p, x[q].Basis, x[j].Basis, q, j); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(c)), "ns/pair")
	})
	hs := []Holdout{{Train: xs, TrainLabels: ys, Test: xi, TestLabels: yi}}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("holdout/workers=%d", workers), func(b *testing.B) {
			var res *Result
			for b.Loop() {
				if res, err = EvaluateHoldouts(context.Background(), hs, Options{Workers: workers}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(xs)*len(xi)), "ns/pair")
			b.ReportMetric(100*res.Methods[0].Mean, "1nn-%")
			b.ReportMetric(100*res.Method(Method{Kind: SVM}).Mean, "svm-%")
		})
	}
}

// BenchmarkPairsLarge: the pair table of 500 random 784 x 12 bases (the
// MNIST protocol's training sets: 50 MB of bases, beyond the caches),
// 125,250 pairs, with 1 and 2 workers (ns/pair).
func BenchmarkPairsLarge(b *testing.B) {
	rng := rand.New(rand.NewPCG(91, 91))
	x := make([]*subspace.Subspace, 500)
	for i := range x {
		u := linalg.NewDense(784, 12)
		if err := linalg.RandomOrthonormal(u, rng); err != nil {
			b.Fatal(err)
		}
		x[i] = sub(u)
	}
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", w), func(b *testing.B) {
			for b.Loop() {
				if _, err := NewPairs(context.Background(), x, w); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(x)*(len(x)+1)/2), "ns/pair")
		})
	}
}
