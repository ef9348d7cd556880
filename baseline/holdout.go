package baseline

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/grlgq/grlgq/kernels"
	"github.com/grlgq/grlgq/score"
	"github.com/grlgq/grlgq/subspace"
)

// Holdout is one split into separate training and test samples: the
// classifiers are trained on Train (labels TrainLabels) and scored on Test
// (TestLabels). Test samples are never compared with each other, so a test
// part may be far larger than a pair table over all samples allows (MNIST:
// 10,000 single test images against about 1,250 training sets).
type Holdout struct {
	Train       []*subspace.Subspace
	TrainLabels []int
	Test        []*subspace.Subspace
	TestLabels  []int
}

// holdoutBlockPairs bounds the test-against-training pairs held at once
// (32 bytes each: 32 MiB); the test part is computed and classified in
// blocks of max(1, holdoutBlockPairs/len(Train)) samples. The results do
// not depend on it (a test sample's pairs and predictions depend only on
// it and the training part); tests lower it.
var holdoutBlockPairs = 1 << 20

// holdoutBlockPixels bounds the pixels of a block's images whose nonzero
// entries are listed at once (12 bytes each: 24 MiB).
const holdoutBlockPixels = 1 << 21

// predictChunk is the test samples of one prediction job of a block.
const predictChunk = 64

// EvaluateHoldouts runs the baselines of opt.Methods on each holdout (the
// splits of the Result, in order): each is trained on the holdout's
// training part and scored on its test part, as Evaluate does for a Split
// whose validation samples train in no split, with the same results (the
// same pairs, computed from the test sample's side, the same inner folds:
// split f uses the stream 0x53564d4900000000 + f of opt.Seed). Unlike
// Evaluate it never holds a test sample against another, nor all the test
// pairs at once: per holdout it computes the kernel between the training
// samples (the packed triangle, t(t+1)/2 pairs for t training samples, at
// most MaxPairs; no angles, which nothing reads; none of it without an
// SVM or GDA), runs the inner cross-validation and trains the SVM and GDA
// once on it,
// then computes the test pairs a block of samples at a time (about 2^20
// pairs, 32 MiB) and classifies the block with every method. Holdouts run
// one after another, each with opt.Workers goroutines; the results are
// bit-identical for any number of workers.
//
// Labels are any non-negative integers (the union over all holdouts is
// used); every sample of all holdouts has the same D. Result.Samples is
// the largest training plus test count of a holdout, ValTrainRatio the
// mean test size over the mean training size. Errors are as Evaluate's,
// naming the holdout and part.
func EvaluateHoldouts(ctx context.Context, hs []Holdout, opt Options) (*Result, error) {
	if err := checkOptions(&opt); err != nil {
		return nil, err
	}
	if len(hs) == 0 {
		return nil, fmt.Errorf("baseline: %w: no holdout", ErrData)
	}
	var all []int
	for f, h := range hs {
		if len(h.Train) == 0 || len(h.Test) == 0 {
			return nil, fmt.Errorf("baseline: %w: holdout %d has %d training and %d test samples", ErrData, f, len(h.Train), len(h.Test))
		}
		if len(h.TrainLabels) != len(h.Train) || len(h.TestLabels) != len(h.Test) {
			return nil, fmt.Errorf("baseline: %w: holdout %d has %d training samples and %d labels, %d test samples and %d labels", ErrData, f, len(h.Train), len(h.TrainLabels), len(h.Test), len(h.TestLabels))
		}
	}
	for f, h := range hs {
		for part, y := range [2][]int{h.TrainLabels, h.TestLabels} {
			if i := slices.IndexFunc(y, func(l int) bool { return l < 0 }); i >= 0 {
				return nil, fmt.Errorf("baseline: %w: holdout %d, %s sample %d has label %d", ErrData, f, partName[part], i, y[i])
			}
			all = append(all, y...)
		}
	}
	labels, err := labelValues(all)
	if err != nil {
		return nil, err
	}
	all = nil
	// Every sample is checked before any work.
	dims := make([][2][]int, len(hs))
	dim := -1
	var ntr, nte float64
	res := &Result{Splits: len(hs), Methods: make([]MethodResult, len(opt.Methods))}
	for f, h := range hs {
		for part, x := range [2][]*subspace.Subspace{h.Train, h.Test} {
			d, ds, err := checkSamples(x)
			if err != nil {
				return nil, fmt.Errorf("baseline: holdout %d, %s samples: %w", f, partName[part], err)
			}
			if dim >= 0 && d != dim {
				return nil, fmt.Errorf("baseline: %w: holdout %d, %s samples have D = %d, want %d", ErrData, f, partName[part], d, dim)
			}
			dim, dims[f][part] = d, ds
			res.SubspaceDims = append(res.SubspaceDims, ds...)
			res.SubspaceDims = slices.Compact(slices.Sorted(slices.Values(res.SubspaceDims)))
		}
		ntr += float64(len(h.Train))
		nte += float64(len(h.Test))
		res.Samples = max(res.Samples, len(h.Train)+len(h.Test))
	}
	res.Dim, res.ValTrainRatio = dim, nte/ntr
	for m, meth := range opt.Methods {
		res.Methods[m].start(meth, len(hs))
	}
	e := &holdoutEval{opt: &opt, tuners: newTuners(&opt), nc: len(labels), res: res}
	e.workers, e.scratch = workersOf(&opt)
	e.pw = make([]*pairWork, max(1, e.workers))
	for f, h := range hs {
		e.ctr, e.cte = compact(labels, h.TrainLabels), compact(labels, h.TestLabels)
		e.tiles = nil
		if err := e.run(ctx, f, h, dims[f][0], dims[f][1]); err != nil {
			return nil, err
		}
	}
	for m := range res.Methods {
		r := &res.Methods[m]
		r.Mean, r.SD = score.MeanSD(r.Accuracy)
	}
	return res, nil
}

var partName = [2]string{"training", "test"}

// holdoutEval is the state of EvaluateHoldouts across holdouts.
type holdoutEval struct {
	opt      *Options
	tuners   map[Kind]*tuner
	nc       int
	res      *Result
	workers  int
	scratch  []*work
	pw       []*pairWork
	ctr, cte []int // compact classes of the current holdout's parts
	// imagePairs' nonzero lists (dim entries per image of a block), their
	// lengths, and the tiles of the current holdout's training samples.
	nzIdx []int32
	nzVal []float64
	nnz   []int
	tiles [][2]int
}

// run evaluates holdout f (training and test dimensions dtr, dte) into
// column f of the result.
func (e *holdoutEval) run(ctx context.Context, f int, h Holdout, dtr, dte []int) error {
	opt, res := e.opt, e.res
	nt, ntest := len(h.Train), len(h.Test)
	block := max(1, min(ntest, holdoutBlockPairs/nt, holdoutBlockPixels/res.Dim))
	t0 := time.Now()
	tunedAny := slices.ContainsFunc(opt.Methods, func(m Method) bool { return e.tuners[m.Kind] != nil })
	p, err := e.trainPairs(ctx, h.Train, dtr, block, tunedAny)
	if err != nil {
		return err
	}
	res.PairsTime += time.Since(t0)
	train := make([]int, nt)
	for i := range train {
		train[i] = i
	}
	tuned, times, err := innerCV(ctx, p, opt, e.tuners, e.nc, [][]int{train}, [][]int{e.ctr}, f, e.workers, e.scratch)
	if err != nil {
		return fmt.Errorf("holdout %d: %w", f, err)
	}
	nm := len(opt.Methods)
	dur := make([]time.Duration, nm)
	for m := range nm {
		dur[m] = times[m][0]
	}
	// The tuned methods trained once on the whole training part.
	models := make([]predictor, nm)
	var fits []int
	for m := range nm {
		if tuned[m] != nil {
			fits = append(fits, m)
		}
	}
	err = parallel(ctx, e.workers, len(fits), func(w, j int) error {
		m := fits[j]
		t1 := time.Now()
		tf := &tuned[m][0]
		pr, it, un, err := e.tuners[opt.Methods[m].Kind].keep(p, train, e.ctr, e.nc, tf.Param, e.scratch[w])
		if err != nil {
			return fmt.Errorf("%w (holdout %d)", err, f)
		}
		models[m] = pr
		tf.Iterations += it
		tf.Unconverged += un
		dur[m] += time.Since(t1)
		return nil
	})
	if err != nil {
		return err
	}
	// The test part, a block at a time: its pairs, then every method on
	// chunks of it. durW[w][m] is goroutine w's time on method m.
	maxK := 0
	for _, meth := range opt.Methods {
		maxK = max(maxK, meth.K)
	}
	best := make([][]neighbour, len(e.scratch))
	votes := make([][]int, len(e.scratch))
	durW := make([][]time.Duration, len(e.scratch))
	for w := range e.scratch {
		best[w] = make([]neighbour, 0, min(maxK, nt))
		votes[w] = make([]int, e.nc)
		durW[w] = make([]time.Duration, nm)
	}
	pred := make([][]int, nm)
	for m := range pred {
		pred[m] = make([]int, block)
	}
	query := make([]int, block) // the block's samples in the table
	for t := range query {
		query[t] = nt + t
	}
	correct := make([]int, nm)
	xs := make([]*subspace.Subspace, nt+block)
	copy(xs, h.Train)
	for lo := 0; lo < ntest; lo += block {
		hi := min(lo+block, ntest)
		nb := hi - lo
		t1 := time.Now()
		copy(xs[nt:], h.Test[lo:hi])
		if err := e.blockPairs(ctx, p, xs[:nt+nb], dte[lo:hi]); err != nil {
			return err
		}
		res.PairsTime += time.Since(t1)
		err := parallel(ctx, e.workers, (nb+predictChunk-1)/predictChunk, func(w, c int) error {
			a, b := c*predictChunk, min(nb, (c+1)*predictChunk)
			for m, meth := range opt.Methods {
				t2 := time.Now()
				if meth.Kind == NN {
					for t := a; t < b; t++ {
						pred[m][t] = knn(p, meth.Distance, nt+t, train, e.ctr, meth.K, best[w], votes[w])
					}
				} else {
					models[m].predict(p, query[a:b], pred[m][a:b], e.scratch[w])
				}
				durW[w][m] += time.Since(t2)
			}
			return nil
		})
		if err != nil {
			return err
		}
		for m := range nm {
			correct[m] += score.Correct(e.cte[lo:hi], pred[m][:nb])
		}
	}
	for m := range nm {
		r := &res.Methods[m]
		r.score(f, correct[m], ntest)
		if tuned[m] != nil {
			r.Tuned = append(r.Tuned, tuned[m][0])
		}
		r.Time += dur[m]
		for w := range durW {
			r.Time += durW[w][m]
		}
	}
	return nil
}

// trainPairs makes a table for the training samples x (dimensions dims)
// with room for block test samples after them and, if kernel (an SVM or
// GDA is to be trained), computes the training samples' kernel (only the
// kernel: nothing reads their angles; about 40% of a pair's time at d =
// 12 is the singular values).
func (e *holdoutEval) trainPairs(ctx context.Context, x []*subspace.Subspace, dims []int, block int, kernel bool) (*Pairs, error) {
	nt := len(x)
	size64 := int64(nt)*int64(nt+1)/2 + int64(block)*int64(nt)
	if size64 > MaxPairs {
		return nil, fmt.Errorf("baseline: %w: %d training samples make %d pairs, at most %d (32 bytes each)", ErrData, nt, size64, MaxPairs)
	}
	n := nt + block
	p := &Pairs{n: nt, dim: e.res.Dim, nt: nt, d: make([]int, n), scale: make([]float64, n), pos: make([]int32, n), rank: make([]int32, n), kernelOnly: true}
	for i := range n {
		if i < nt {
			p.d[i], p.scale[i], p.pos[i] = dims[i], 1/math.Sqrt(float64(dims[i])), int32(i)
		} else {
			p.pos[i], p.rank[i] = -1, int32(i-nt)
		}
	}
	size := int(size64)
	p.proj = make([]float64, size)
	for k := range p.dist {
		p.dist[k] = make([]float64, size)
	}
	if !kernel {
		return p, nil
	}
	cols := make([]int, nt)
	for i := range cols {
		cols[i] = i
	}
	err := parallel(ctx, e.workers, (nt+rowBlock-1)/rowBlock, func(w, b int) error {
		if e.pw[w] == nil {
			e.pw[w] = newPairWork()
		}
		is := make([]int, 0, rowBlock)
		for i := b * rowBlock; i < min(nt, (b+1)*rowBlock); i++ {
			is = append(is, i)
		}
		return e.pw[w].rows(p, x, is, func(i int) []int { return cols[i:] })
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

// panelCols is the most columns of the training bases that imagePairs
// puts side by side in one tile (kernels.SparseAB keeps 48 output columns
// in registers on AVX2, 64 on AVX-512).
const panelCols = 48

// blockPairs fills p's rows of the test samples xs[p.nt:] (dimensions
// dims) against the training samples xs[:p.nt]: the sets row by row as
// in the table, the single images by imagePairs.
func (e *holdoutEval) blockPairs(ctx context.Context, p *Pairs, xs []*subspace.Subspace, dims []int) error {
	nt := p.nt
	p.n = len(xs)
	var sets []int
	for t, d := range dims {
		p.d[nt+t], p.scale[nt+t] = d, 1/math.Sqrt(float64(d))
		if d > 1 {
			sets = append(sets, nt+t)
		}
	}
	cols := make([]int, nt)
	for i := range cols {
		cols[i] = i
	}
	err := parallel(ctx, e.workers, len(sets), func(w, k int) error {
		if e.pw[w] == nil {
			e.pw[w] = newPairWork()
		}
		return e.pw[w].row(p, xs, sets[k], cols)
	})
	if err != nil {
		return err
	}
	return e.imagePairs(ctx, p, xs)
}

// imagePairs computes the pairs of the 1-D test samples of the block
// xs[p.nt:] against the training samples: pairWork.imageRow's products
// and values (the same bits), in another order. A row streams every
// training basis (MNIST: 1,250 bases of 100 KB, far beyond the caches, so
// a row was bound by memory at about 6 us a pair); here the training
// samples are cut into tiles of at most panelCols columns, one job each,
// whose bases are copied side by side (D x 48: 300 KB at D = 784, in L2)
// and every image of the block is run against the whole tile by one
// SparseAB call from its nonzero entries, listed once for the block:
// each output is still its own chain over the listed rows in order, and
// the 12 accumulators of 48 columns overlap the latency of one chain.
func (e *holdoutEval) imagePairs(ctx context.Context, p *Pairs, xs []*subspace.Subspace) error {
	nt, dim := p.nt, p.dim
	var imgs []int
	for i := nt; i < len(xs); i++ {
		if p.d[i] == 1 {
			imgs = append(imgs, i)
		}
	}
	if len(imgs) == 0 {
		return nil
	}
	if n := len(imgs) * dim; len(e.nzIdx) < n {
		e.nzIdx, e.nzVal = make([]int32, n), make([]float64, n)
	}
	e.nnz = slices.Grow(e.nnz[:0], len(imgs))[:len(imgs)]
	err := parallel(ctx, e.workers, len(imgs), func(w, k int) error {
		a := xs[imgs[k]].Basis
		if e.pw[w] == nil {
			e.pw[w] = newPairWork()
		}
		vec := grow(e.pw[w].vec, dim)
		e.pw[w].vec = vec
		for r := range vec {
			vec[r] = a.Data[r*a.Stride]
		}
		e.nnz[k] = kernels.Nonzeros(e.nzIdx[k*dim:(k+1)*dim], e.nzVal[k*dim:(k+1)*dim], vec)
		return nil
	})
	if err != nil {
		return err
	}
	if e.tiles == nil {
		for j0 := 0; j0 < nt; {
			j1, w := j0, 0
			for j1 < nt && (j1 == j0 || w+p.d[j1] <= panelCols) {
				w += p.d[j1]
				j1++
			}
			e.tiles = append(e.tiles, [2]int{j0, j1})
			j0 = j1
		}
	}
	return parallel(ctx, e.workers, len(e.tiles), func(w, k int) error {
		pw := e.pw[w]
		if pw == nil {
			pw = newPairWork()
			e.pw[w] = pw
		}
		// The tile's bases side by side, D x wt.
		j0, j1 := e.tiles[k][0], e.tiles[k][1]
		wt := 0
		for j := j0; j < j1; j++ {
			wt += p.d[j]
		}
		pw.panel = grow(pw.panel, dim*wt)
		off := 0
		for j := j0; j < j1; j++ {
			b, dj := xs[j].Basis, p.d[j]
			for r := range dim {
				copy(pw.panel[r*wt+off:r*wt+off+dj], b.Data[r*b.Stride:r*b.Stride+dj])
			}
			off += dj
		}
		pw.prod = grow(pw.prod, wt)
		var s [1]float64
		for n, i := range imgs {
			kernels.SparseAB(pw.prod, e.nzVal[n*dim:n*dim+e.nnz[n]], e.nzIdx[n*dim:n*dim+e.nnz[n]], pw.panel, wt, wt)
			off := 0
			for j := j0; j < j1; j++ {
				dj := p.d[j]
				at := p.index(i, j)
				f := frobenius(pw.prod[off : off+dj])
				off += dj
				p.proj[at] = f
				s[0] = math.Sqrt(f)
				p.set(at, s[:])
			}
		}
		return nil
	})
}
