package baseline

import (
	"context"
	"fmt"
	"github.com/grlgq/grlgq/folds"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/grlgq/grlgq/internal/numerr"
	"github.com/grlgq/grlgq/score"
	"github.com/grlgq/grlgq/subspace"
)

// Errors, testable with errors.Is.
var (
	// ErrData: unusable samples, labels, splits or options (wrong shape,
	// a basis that is not orthonormal, a negative label, an index out of
	// range, a sample both in a split's training and validation parts);
	// the same value as model.ErrData and selection.ErrData.
	ErrData = numerr.ErrData
	// ErrNotFinite is the module's one "not finite" sentinel (the same
	// value as subspace.ErrNotFinite and model.ErrNotFinite): a NaN or ±Inf
	// in a basis.
	ErrNotFinite = numerr.ErrNotFinite
)

// Split is one train/validation split of the samples: ascending or not,
// indices into the samples. It has the fields of folds.Fold, so a fold
// converts with baseline.Split(f) (SplitsOf converts a list).
type Split struct {
	Train, Val []int
}

// SplitsOf returns the splits of folds (the same indices: a Fold's Train
// and Val are a Split's).
func SplitsOf(f []folds.Fold) []Split {
	sp := make([]Split, len(f))
	for i, x := range f {
		sp[i] = Split(x)
	}
	return sp
}

// Options are the options of Evaluate.
type Options struct {
	// Methods are the baselines to run, in the order of the result's
	// rows (nil: DefaultMethods). A method may be listed once.
	Methods []Method
	// Workers is the number of goroutines (<= 0: runtime.GOMAXPROCS(0)).
	// Results never depend on it.
	Workers int
	// Seed seeds the SVM's inner folds (outer split f uses the PCG stream
	// 0x53564d4900000000 + f).
	Seed uint64
	// InnerFolds is K of the SVM's inner cross-validation (default 5; it
	// is lowered to the number of training sets that can be validated).
	InnerFolds int
	// CGrid is the SVM's penalties to choose from (default DefaultCGrid);
	// sorted ascending, ties of inner accuracy go to the smaller C.
	CGrid []float64
	// DefaultC is the SVM's C where no inner CV is possible (default 1).
	DefaultC float64
	// GDAGrid is GDA's relative regularisations r (σ² = r·tr(K(I − V)K)/N)
	// to choose from (default DefaultGDAGrid), GDADefault the one used
	// where no inner CV is possible (default 1e-2).
	GDAGrid    []float64
	GDADefault float64
	// Tol is the SMO stopping tolerance on the maximal KKT violation
	// (default 1e-3, LIBSVM's); MaxIter caps the pair updates of one
	// binary problem (default max(100000, 100 n)).
	Tol     float64
	MaxIter int
}

// DefaultCGrid is the SVM's default grid of penalties: 2^-10, 2^-8, ...,
// 2^10. With the kernel normalised to K(X, X) = 1 both ends are plateaus
// for problems of up to a few hundred sets: at the low end every α is at
// its bound (the decision is the class-mean kernel difference, whatever
// C), at the high end the classes are separated and no α reaches C (the
// hard margin).
func DefaultCGrid() []float64 {
	var g []float64
	for e := -10; e <= 10; e += 2 {
		g = append(g, math.Ldexp(1, e))
	}
	return g
}

// DefaultGDAGrid is GDA's default grid of relative regularisations: 1e-4,
// 1e-3, ..., 100 (from barely regularised to nearly isotropic: towards
// r = 100 the within-class scatter hardly shapes the directions).
func DefaultGDAGrid() []float64 { return []float64{1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100} }

// MethodResult is one baseline's row: its accuracy on every split.
type MethodResult struct {
	Method Method `json:"method"`
	// Name is Method.Title().
	Name string `json:"name"`
	// Accuracy[f] = Correct[f]/N[f] on split f's validation part.
	Accuracy []float64 `json:"accuracy"`
	Correct  []int     `json:"correct"`
	N        []int     `json:"n"`
	// Mean and SD (sample standard deviation, n−1; undefined for one
	// split: 0 here, null in JSON, "n/a" in Summary) of Accuracy.
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
	// Versus is the paired comparison with the reference given to
	// Result.CompareTo (this method minus the reference); nil without.
	Versus *Paired `json:"versus,omitempty"`
	// Tuned says, per split, how the parameter of the SVM or GDA was
	// chosen (nil for NN).
	Tuned []Tuned `json:"tuned,omitempty"`
	// Time is the compute time spent on this method (summed over the
	// goroutines; the shared pair table is Result.PairsTime).
	Time time.Duration `json:"time_ns"`
}

// Note says how the parameter of a tuned method was chosen on split f
// (Tuned.Note), "" for NN.
func (m *MethodResult) Note(f int) string {
	if m.Tuned == nil {
		return ""
	}
	return m.Tuned[f].Note(m.Method.ParamName())
}

// Reference is another method's per-split accuracies (e.g. GRLGQ's on the
// same splits), given to Result.CompareTo.
type Reference struct {
	Name     string    `json:"name"`
	Accuracy []float64 `json:"accuracy"`
	Mean     float64   `json:"mean"`
	SD       float64   `json:"sd"`
}

// Result is the outcome of Evaluate.
type Result struct {
	// Methods has one row per method, in the order of Options.Methods.
	Methods []MethodResult `json:"methods"`
	// Splits is the number of splits (each row has that many
	// accuracies); ValTrainRatio the mean validation size over the mean
	// training size, for Paired.SECorrected.
	Splits        int     `json:"splits"`
	ValTrainRatio float64 `json:"val_train_ratio"`
	// Samples and Dim (D) describe the data (EvaluateHoldouts: Samples
	// is the largest training plus test count of a holdout);
	// SubspaceDims lists the distinct subspace dimensions of the samples,
	// ascending (1: single images).
	Samples      int   `json:"samples"`
	Dim          int   `json:"dim"`
	SubspaceDims []int `json:"subspace_dims"`
	// Reference is set by CompareTo.
	Reference *Reference `json:"reference,omitempty"`
	// PairsTime is the wall time of the pair table (NewPairs; for
	// EvaluateHoldouts, of all the pairs of all holdouts).
	PairsTime time.Duration `json:"pairs_time_ns"`
}

// Method returns the row of method m, or nil.
func (r *Result) Method(m Method) *MethodResult {
	for i := range r.Methods {
		if r.Methods[i].Method == m {
			return &r.Methods[i]
		}
	}
	return nil
}

// Paired is a paired comparison of two methods on the same splits.
type Paired struct {
	// Against names the other method.
	Against string `json:"against"`
	// Diff[f] is this method's accuracy minus the other's on split f.
	Diff []float64 `json:"diff"`
	// Mean of Diff, and its standard error sd/√F (undefined for one
	// split: 0 here, null in JSON, "n/a" in Summary; so is SECorrected).
	Mean float64 `json:"mean"`
	SE   float64 `json:"se"`
	// SECorrected is the standard error corrected for the overlap of the
	// splits' training parts (Nadeau and Bengio 2003, the corrected
	// resampled t-test: sd·√(1/F + n_val/n_train)); the plain SE is too
	// small when the training parts share most of their sets, as in
	// k-fold cross-validation.
	SECorrected float64 `json:"se_corrected"`
	// Wins, Losses and Ties count the splits where this method is above,
	// below and equal to the other.
	Wins   int `json:"wins"`
	Losses int `json:"losses"`
	Ties   int `json:"ties"`
}

// Compare returns the paired comparison of the per-split accuracies a and
// b (a − b; the same splits in the same order). ratio is the mean
// validation size over the mean training size of the splits (for
// SECorrected; Result.ValTrainRatio).
func Compare(a, b []float64, ratio float64) (Paired, error) {
	if len(a) != len(b) || len(a) == 0 {
		return Paired{}, fmt.Errorf("baseline: %w: paired comparison of %d and %d splits", ErrData, len(a), len(b))
	}
	var p Paired
	p.Diff = make([]float64, len(a))
	for f := range a {
		if !finite(a[f]) || !finite(b[f]) {
			return Paired{}, fmt.Errorf("baseline: %w: accuracy of split %d is %v vs %v", ErrNotFinite, f, a[f], b[f])
		}
		d := a[f] - b[f]
		p.Diff[f] = d
		switch {
		case d > 0:
			p.Wins++
		case d < 0:
			p.Losses++
		default:
			p.Ties++
		}
	}
	mean, sd := score.MeanSD(p.Diff)
	p.Mean = mean
	if n := float64(len(a)); len(a) > 1 {
		p.SE = sd / math.Sqrt(n)
		p.SECorrected = sd * math.Sqrt(1/n+max(ratio, 0))
	}
	return p, nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// CompareTo records name's per-split accuracies acc (one per split, in
// the order of the splits given to Evaluate) as the reference and compares
// every method with it (MethodResult.Versus: method − reference).
func (r *Result) CompareTo(name string, acc []float64) error {
	if len(acc) != r.Splits {
		return fmt.Errorf("baseline: %w: %d accuracies of %s for %d splits", ErrData, len(acc), name, r.Splits)
	}
	vs := make([]Paired, len(r.Methods))
	for i, m := range r.Methods {
		p, err := Compare(m.Accuracy, acc, r.ValTrainRatio)
		if err != nil {
			return err
		}
		p.Against = name
		vs[i] = p
	}
	for i := range r.Methods {
		r.Methods[i].Versus = &vs[i]
	}
	mean, sd := score.MeanSD(acc)
	r.Reference = &Reference{Name: name, Accuracy: slices.Clone(acc), Mean: mean, SD: sd}
	return nil
}

// Evaluate runs the baselines of opt.Methods on every split of the
// samples x (D x d orthonormal bases, a single image as the 1-D subspace
// x/‖x‖) with labels y (any non-negative integers): each is trained on
// the split's Train part and scored on its Val part. The pair table
// (NewPairsFor, for the samples some split trains on) is computed once for
// all splits and methods. Results are bit-identical for any opt.Workers.
func Evaluate(ctx context.Context, x []*subspace.Subspace, y []int, splits []Split, opt Options) (*Result, error) {
	if len(y) != len(x) {
		return nil, fmt.Errorf("baseline: %w: %d samples and %d labels", ErrData, len(x), len(y))
	}
	pl, err := prepare(y, splits, &opt)
	if err != nil {
		return nil, err
	}
	p, err := NewPairsFor(ctx, x, pl.trainers(len(x)), opt.Workers)
	if err != nil {
		return nil, err
	}
	return p.Evaluate(ctx, y, splits, opt)
}

// checkGrid returns a sorted copy of grid (def if nil), or an error if it
// is empty or holds a value that is not positive and finite.
func checkGrid(what string, grid, def []float64) ([]float64, error) {
	if grid == nil {
		grid = def
	}
	grid = slices.Clone(grid)
	slices.Sort(grid)
	if len(grid) == 0 || slices.ContainsFunc(grid, func(v float64) bool { return !(v > 0) || math.IsInf(v, 0) }) {
		return nil, fmt.Errorf("baseline: %w: %s %v (want positive finite values)", ErrData, what, grid)
	}
	return grid, nil
}

// plan is Evaluate's checked input.
type plan struct {
	cls    []int // compact class of every sample
	nc     int
	train  [][]int // per split
	val    [][]int
	ctrain [][]int // classes of train[f]
	ratio  float64
}

// trainers lists, ascending, the samples that some split trains on.
func (pl *plan) trainers(n int) []int {
	in := make([]bool, n)
	for _, tr := range pl.train {
		for _, i := range tr {
			in[i] = true
		}
	}
	var out []int
	for i, b := range in {
		if b {
			out = append(out, i)
		}
	}
	return out
}

// checkOptions checks the options and fills their defaults.
func checkOptions(opt *Options) error {
	if opt.Methods == nil {
		opt.Methods = DefaultMethods()
	}
	if len(opt.Methods) == 0 {
		return fmt.Errorf("baseline: %w: no method", ErrData)
	}
	for i, m := range opt.Methods {
		if err := m.check(); err != nil {
			return err
		}
		if slices.Contains(opt.Methods[:i], m) {
			return fmt.Errorf("baseline: %w: method %v listed twice", ErrData, m)
		}
	}
	if opt.InnerFolds == 0 {
		opt.InnerFolds = 5
	}
	if opt.InnerFolds < 2 {
		return fmt.Errorf("baseline: %w: %d inner folds, want at least 2", ErrData, opt.InnerFolds)
	}
	var err error
	if opt.CGrid, err = checkGrid("C grid", opt.CGrid, DefaultCGrid()); err != nil {
		return err
	}
	if opt.GDAGrid, err = checkGrid("GDA regularisation grid", opt.GDAGrid, DefaultGDAGrid()); err != nil {
		return err
	}
	if opt.DefaultC == 0 {
		opt.DefaultC = 1
	}
	if opt.GDADefault == 0 {
		opt.GDADefault = 1e-2
	}
	for _, v := range []float64{opt.DefaultC, opt.GDADefault} {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("baseline: %w: default parameter %v (want positive and finite)", ErrData, v)
		}
	}
	if opt.Tol == 0 {
		opt.Tol = 1e-3
	}
	if !(opt.Tol > 0) || math.IsInf(opt.Tol, 0) {
		return fmt.Errorf("baseline: %w: tolerance %v", ErrData, opt.Tol)
	}
	if opt.MaxIter < 0 {
		return fmt.Errorf("baseline: %w: %d iterations", ErrData, opt.MaxIter)
	}
	return nil
}

// labelValues returns the sorted distinct labels of y, or an error for a
// negative one.
func labelValues(y []int) ([]int, error) {
	labels := slices.Clone(y)
	slices.Sort(labels)
	labels = slices.Compact(labels)
	if len(labels) > 0 && labels[0] < 0 {
		i := slices.Index(y, labels[0])
		return nil, fmt.Errorf("baseline: %w: sample %d has label %d", ErrData, i, y[i])
	}
	return labels, nil
}

// compact maps each label of y to its position in labels (sorted, holding
// every label of y).
func compact(labels, y []int) []int {
	cls := make([]int, len(y))
	for i, l := range y {
		cls[i], _ = slices.BinarySearch(labels, l)
	}
	return cls
}

// prepare checks labels, splits and options (filling defaults) and maps
// the labels to 0..nc-1.
func prepare(y []int, splits []Split, opt *Options) (*plan, error) {
	n := len(y)
	if err := checkOptions(opt); err != nil {
		return nil, err
	}
	if len(splits) == 0 {
		return nil, fmt.Errorf("baseline: %w: no split", ErrData)
	}
	labels, err := labelValues(y)
	if err != nil {
		return nil, err
	}
	pl := &plan{cls: compact(labels, y), nc: len(labels)}
	seen := make([]int, n) // 1 + split index + 1 for train, negative for val
	var ntr, nva float64
	for f, s := range splits {
		if len(s.Train) == 0 || len(s.Val) == 0 {
			return nil, fmt.Errorf("baseline: %w: split %d has %d training and %d validation samples", ErrData, f, len(s.Train), len(s.Val))
		}
		for part, idx := range [2][]int{s.Train, s.Val} {
			mark := 2*f + 1 + part
			for _, i := range idx {
				if i < 0 || i >= n {
					return nil, fmt.Errorf("baseline: %w: split %d: sample %d of %d", ErrData, f, i, n)
				}
				if seen[i] == 2*f+1 || seen[i] == 2*f+2 {
					if seen[i] == mark {
						return nil, fmt.Errorf("baseline: %w: split %d lists sample %d twice", ErrData, f, i)
					}
					return nil, fmt.Errorf("baseline: %w: split %d has sample %d in both parts", ErrData, f, i)
				}
				seen[i] = mark
			}
		}
		pl.train = append(pl.train, s.Train)
		pl.val = append(pl.val, s.Val)
		pl.ctrain = append(pl.ctrain, pick(pl.cls, s.Train))
		ntr += float64(len(s.Train))
		nva += float64(len(s.Val))
	}
	pl.ratio = nva / ntr
	return pl, nil
}

// Evaluate is the package function Evaluate on the samples of the table
// (y has one label per sample of p).
func (p *Pairs) Evaluate(ctx context.Context, y []int, splits []Split, opt Options) (*Result, error) {
	if len(y) != p.n {
		return nil, fmt.Errorf("baseline: %w: %d labels for %d samples", ErrData, len(y), p.n)
	}
	pl, err := prepare(y, splits, &opt)
	if err != nil {
		return nil, err
	}
	for f, tr := range pl.train {
		for _, i := range tr {
			if p.pos[i] < 0 {
				return nil, fmt.Errorf("baseline: %w: split %d trains on sample %d, which the pair table was not made to train on (NewPairsFor)", ErrData, f, i)
			}
		}
	}
	tuners := newTuners(&opt)
	nf, nm := len(splits), len(opt.Methods)
	res := &Result{
		Methods:       make([]MethodResult, nm),
		Splits:        nf,
		ValTrainRatio: pl.ratio,
		Samples:       p.n,
		Dim:           p.dim,
		SubspaceDims:  slices.Compact(slices.Sorted(slices.Values(p.d))),
		PairsTime:     p.dur,
	}
	// pred[m][f] are method m's predictions on split f's validation part.
	pred := make([][][]int, nm)
	for m := range opt.Methods {
		pred[m] = make([][]int, nf)
		for f := range nf {
			pred[m][f] = make([]int, len(pl.val[f]))
		}
	}
	workers, scratch := workersOf(&opt)

	// Phase 1: the inner cross-validation of each tuned method on every
	// split (tuned[m][f], times[m][f] the time spent), then the NN
	// methods, one job per split.
	tuned, times, err := innerCV(ctx, p, &opt, tuners, pl.nc, pl.train, pl.ctrain, 0, workers, scratch)
	if err != nil {
		return nil, err
	}
	maxK := 0
	for _, m := range opt.Methods {
		maxK = max(maxK, m.K)
	}
	if slices.ContainsFunc(opt.Methods, func(m Method) bool { return m.Kind == NN }) {
		err = parallel(ctx, workers, nf, func(w, f int) error {
			best := make([]neighbour, 0, min(maxK, len(pl.train[f])))
			votes := make([]int, pl.nc)
			for m, meth := range opt.Methods {
				if meth.Kind != NN {
					continue
				}
				t1 := time.Now()
				for t, q := range pl.val[f] {
					pred[m][f][t] = knn(p, meth.Distance, q, pl.train[f], pl.ctrain[f], meth.K, best, votes)
				}
				times[m][f] = time.Since(t1)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}

	// Phase 2: each tuned method on each split with the parameter its
	// inner CV chose.
	type finalJob struct{ m, f int }
	var finals []finalJob
	for m := range opt.Methods {
		if tuned[m] != nil {
			res.Methods[m].Tuned = tuned[m]
			for f := range nf {
				finals = append(finals, finalJob{m, f})
			}
		}
	}
	err = parallel(ctx, workers, len(finals), func(w, j int) error {
		m, f := finals[j].m, finals[j].f
		t0 := time.Now()
		tf := &tuned[m][f]
		it, un, err := tuners[opt.Methods[m].Kind].fit(p, pl.train[f], pl.ctrain[f], pl.nc, []float64{tf.Param}, pl.val[f], pred[m][f], scratch[w])
		if err != nil {
			return fmt.Errorf("%w (split %d)", err, f)
		}
		tf.Iterations += it
		tf.Unconverged += un
		times[m][f] += time.Since(t0)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for m, meth := range opt.Methods {
		r := &res.Methods[m]
		r.start(meth, nf)
		for f := range nf {
			r.score(f, score.Correct(pick(pl.cls, pl.val[f]), pred[m][f]), len(pl.val[f]))
			r.Time += times[m][f]
		}
		r.Mean, r.SD = score.MeanSD(r.Accuracy)
	}
	return res, nil
}

// start names the row of method meth and sizes it for nf splits.
func (r *MethodResult) start(meth Method, nf int) {
	r.Method, r.Name = meth, meth.Title()
	r.Accuracy = make([]float64, nf)
	r.Correct = make([]int, nf)
	r.N = make([]int, nf)
}

// score records correct of n on split f.
func (r *MethodResult) score(f, correct, n int) {
	r.Correct[f], r.N[f] = correct, n
	r.Accuracy[f] = float64(correct) / float64(n)
}

// workersOf returns the number of goroutines of opt and a scratch for
// each.
func workersOf(opt *Options) (int, []*work) {
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	scratch := make([]*work, max(1, workers))
	for w := range scratch {
		scratch[w] = new(work)
	}
	return workers, scratch
}

// newTuners returns the tuned methods' fits with opt's grids and settings.
func newTuners(opt *Options) map[Kind]*tuner {
	st := &svmSetup{tol: opt.Tol, maxIter: opt.MaxIter}
	return map[Kind]*tuner{
		SVM: {grid: opt.CGrid, def: opt.DefaultC,
			fit: func(p *Pairs, train, cls []int, nc int, grid []float64, test, pred []int, w *work) (int, int, error) {
				it, un := ovoPredict(p, train, cls, nc, grid, test, pred, st, &w.svm)
				return it, un, nil
			},
			keep: func(p *Pairs, train, cls []int, nc int, param float64, w *work) (predictor, int, int, error) {
				m, it, un := ovoFit(p, train, cls, nc, param, st, &w.svm)
				return m, it, un, nil
			}},
		GDA: {grid: opt.GDAGrid, def: opt.GDADefault, up: true,
			fit: func(p *Pairs, train, cls []int, nc int, grid []float64, test, pred []int, w *work) (int, int, error) {
				return 0, 0, gdaPredict(p, train, cls, nc, grid, test, pred, &w.gda)
			},
			keep: func(p *Pairs, train, cls []int, nc int, param float64, w *work) (predictor, int, int, error) {
				m, err := gdaKeep(p, train, cls, nc, param, &w.gda)
				return m, 0, 0, err
			}},
	}
}

// innerCV runs the inner cross-validation of every tuned method of opt on
// the training part train[f] (compact classes ctrain[f], nc classes) of
// each split f, whose inner folds use the stream of split first+f, one job
// per (method, split, inner fold), and chooses each one's parameter: the
// highest inner accuracy, ties to the more regularised model (the smaller
// C, the larger GDA regularisation); the default without inner CV.
// tuned[m] is nil for an NN method; times[m][f] is the time spent.
func innerCV(ctx context.Context, p *Pairs, opt *Options, tuners map[Kind]*tuner, nc int, train, ctrain [][]int, first, workers int, scratch []*work) (tuned [][]Tuned, times [][]time.Duration, err error) {
	nf, nm := len(train), len(opt.Methods)
	// The inner folds of every split (shared by the tuned methods).
	type innerSplit struct {
		tr, va, ctr, cva []int // sample indices and their classes
	}
	inner := make([][]innerSplit, nf)
	kept := make([]int, nf)
	for f := range nf {
		tr, va, k := innerSplits(train[f], ctrain[f], nc, opt.InnerFolds, opt.Seed, first+f)
		kept[f] = k
		for i := range tr {
			inner[f] = append(inner[f], innerSplit{
				tr: pick(train[f], tr[i]), va: pick(train[f], va[i]),
				ctr: pick(ctrain[f], tr[i]), cva: pick(ctrain[f], va[i]),
			})
		}
	}
	type innerJob struct {
		m, f, i    int
		correct    []int // per grid value
		iters, unc int
		dur        time.Duration
	}
	var jobs []*innerJob
	tuned = make([][]Tuned, nm)
	times = make([][]time.Duration, nm)
	for m, meth := range opt.Methods {
		times[m] = make([]time.Duration, nf)
		tu := tuners[meth.Kind]
		if tu == nil {
			continue
		}
		tuned[m] = make([]Tuned, nf)
		for f := range nf {
			for i := range inner[f] {
				jobs = append(jobs, &innerJob{m: m, f: f, i: i, correct: make([]int, len(tu.grid))})
			}
		}
	}
	err = parallel(ctx, workers, len(jobs), func(w, j int) error {
		t0 := time.Now()
		job := jobs[j]
		tu := tuners[opt.Methods[job.m].Kind]
		in := inner[job.f][job.i]
		ip := make([]int, len(tu.grid)*len(in.va))
		var err error
		job.iters, job.unc, err = tu.fit(p, in.tr, in.ctr, nc, tu.grid, in.va, ip, scratch[w])
		if err != nil {
			return fmt.Errorf("%w (split %d, inner fold %d)", err, first+job.f, job.i)
		}
		for g := range tu.grid {
			for t, c := range in.cva {
				if ip[g*len(in.va)+t] == c {
					job.correct[g]++
				}
			}
		}
		job.dur = time.Since(t0)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	correct := make([][][]int, nm) // [m][f][g]
	for _, job := range jobs {
		if correct[job.m] == nil {
			correct[job.m] = make([][]int, nf)
		}
		c := correct[job.m]
		if c[job.f] == nil {
			c[job.f] = make([]int, len(job.correct))
		}
		for g, v := range job.correct {
			c[job.f][g] += v
		}
		tf := &tuned[job.m][job.f]
		tf.Iterations += job.iters
		tf.Unconverged += job.unc
		times[job.m][job.f] += job.dur
	}
	for m, meth := range opt.Methods {
		tu := tuners[meth.Kind]
		if tu == nil {
			continue
		}
		for f := range nf {
			tf := &tuned[m][f]
			tf.Kept = kept[f]
			if len(inner[f]) == 0 {
				tf.Param = tu.def
				continue
			}
			tf.InnerFolds = len(inner[f])
			total := 0
			for _, in := range inner[f] {
				total += len(in.va)
			}
			cf := correct[m][f]
			best := 0
			for g := range cf {
				if cf[g] > cf[best] || tu.up && cf[g] == cf[best] {
					best = g
				}
			}
			tf.Param = tu.grid[best]
			tf.InnerAccuracy = float64(cf[best]) / float64(total)
		}
	}
	return tuned, times, nil
}

// parallel runs job(w, i) for i = 0..n-1 on up to workers goroutines (w
// is the goroutine's number, for its scratch), claiming i from an atomic
// counter; it returns the error of the lowest failing i, or ctx's error
// when ctx is cancelled (checked before every job).
func parallel(ctx context.Context, workers, n int, job func(w, i int) error) error {
	workers = max(1, min(workers, n))
	var (
		next   atomic.Int64
		failed atomic.Bool
		wg     sync.WaitGroup
		errs   = make([]error, n)
	)
	run := func(w int) {
		defer wg.Done()
		for {
			i := int(next.Add(1) - 1)
			if i >= n || failed.Load() {
				return
			}
			if err := ctx.Err(); err != nil {
				errs[i] = err
				failed.Store(true)
				return
			}
			if err := job(w, i); err != nil {
				errs[i] = err
				failed.Store(true)
				return
			}
		}
	}
	wg.Add(workers)
	for w := 1; w < workers; w++ {
		go run(w)
	}
	run(0)
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
