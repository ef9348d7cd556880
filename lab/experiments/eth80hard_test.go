package experiments

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

// Hard view subsets on ETH-80 (GRLGQ_TUNE=1; validation data only), the
// set-level analogue of hardSpec: every training object also has a pool of
// X_POOL random view subsets (X_PSIZE views each, drawn once per inner
// fold; X_PSEED varies the draws); before every epoch the current model
// classifies the pool, and the subsets it misclassifies or separates with
// a relative margin μ = (δ⁻ − δ⁺)/(δ⁻ + δ⁺) below X_HMARGIN (distances of
// the training cost, Σ λ_k sin² θ_k) enter that epoch X_HCOPIES times,
// besides the adopted training sets (the full sets and X_NSUB random
// 20-view subsets per object, β = X_SIGMOID; X_ASEED varies their draws).
// Inner leave-one-object-per-category-out over the 10 splits, as
// TestStudyETH80 with X_INNER=1; X_CPS lists the checkpoints (epochs).
// X_SWA, X_SWAEVERY, X_SEEDAVG and X_SEEDEPOCHS add averaged models (tail
// and seed averages, see avgSpec and docs/notebook.md), X_PAR sets the splits run
// in parallel (default 2).
//
//	GRLGQ_TUNE=1 X_SIGMOID=5 X_POOL=16 X_HMARGIN=0.3 X_HCOPIES=2 go test -run TestStudyHardETH80 -v ./experiments

// viewSubsets draws k random size-view subsets of every object of idx.
func viewSubsets(data *eth80Data, idx []int, k, size int, rng *rand.Rand) ([]*subspace.Subspace, []int, error) {
	var xs []*subspace.Subspace
	var ys []int
	sub := make([][]float64, size)
	for _, i := range idx {
		for range k {
			for j, v := range rng.Perm(len(data.imgs[i]))[:size] {
				sub[j] = data.imgs[i][v]
			}
			s, err := setSubspace(sub, 5)
			if err != nil {
				return nil, nil, err
			}
			xs, ys = append(xs, s), append(ys, data.y[i])
		}
	}
	return xs, ys, nil
}

// avgSpec is the model averaging of TestStudyHardETH80 (X_SWA, X_SEEDAVG):
// every window (E0, E1] averages (model.Average) the models after epochs
// E0+Every, E0+2·Every, ... E1 of one run (tail averaging); Seeds > 1 also trains Seeds-1
// models that differ only in the model seed (seed(j), j = 1 ... Seeds-1;
// the same training sets and pool) up to SeedEpochs epochs and averages
// the Seeds models at every checkpoint up to SeedEpochs, and the Seeds
// tail averages of every window with E1 <= SeedEpochs.
type avgSpec struct {
	Windows    [][2]int
	Every      int
	Seeds      int
	SeedEpochs int
	seed       func(j int) uint64
}

// curveResult is one inner fold of TestStudyHardETH80: the accuracy at
// each checkpoint, the mean number of hard subsets per epoch, and the
// accuracy and the seconds (training up to the epochs it needs, plus
// averaging; evaluation excluded) of every averaging variant by name.
type curveResult struct {
	acc   []float64
	nhard float64
	vacc  map[string]float64
	vsec  map[string]float64
	names []string
	// spread[c]: mean over pairs of seeds of the Σ sin² θ (unweighted)
	// between their prototypes of class c at SeedEpochs; sep[c]: in the
	// first model, the smallest Σ sin² θ from that prototype to one of
	// another class.
	spread, sep []float64
}

func (r *curveResult) put(name string, acc, sec float64) {
	if _, ok := r.vacc[name]; !ok {
		r.names = append(r.names, name)
	}
	r.vacc[name], r.vsec[name] = acc, sec
}

// sin2 returns Σ sin² θ_k = d − ‖AᵀB‖²_F between the spans of the
// orthonormal bases a and b.
func sin2(a, b *linalg.Dense) float64 {
	s := 0.0
	for i := 0; i < a.Cols; i++ {
		for j := 0; j < b.Cols; j++ {
			v := 0.0
			for r := 0; r < a.Rows; r++ {
				v += a.Data[r*a.Stride+i] * b.Data[r*b.Stride+j]
			}
			s += v * v
		}
	}
	return float64(a.Cols) - s
}

// hardCurve trains on the objects tr (plus augSubsets and the hard pool
// subsets) and returns the accuracy on the whole sets te at each
// checkpoint, the mean number of hard subsets per epoch and, with av, the
// averaged models' accuracies (see avgSpec).
func hardCurve(ctx context.Context, cfg Setup, data *eth80Data, tr, te []int, cps []int, h setHard, av avgSpec, rng *rand.Rand) (*curveResult, error) {
	xtr, ytr := pickSets(data.x, data.y, tr)
	if augSubsets != nil {
		for _, i := range tr {
			for _, s := range augSubsets[i] {
				xtr, ytr = append(xtr, s), append(ytr, data.y[i])
			}
		}
	}
	xte, yte := pickSets(data.x, data.y, te)
	px, py, err := viewSubsets(data, tr, h.Pool, h.Size, rng)
	if err != nil {
		return nil, err
	}
	res := &curveResult{acc: make([]float64, len(cps)), vacc: map[string]float64{}, vsec: map[string]float64{}}
	copies := h.Copies
	if h.Pool == 0 {
		copies = 0
	}
	last := cps[len(cps)-1]
	seeds := max(1, av.Seeds)
	// run j: its models at the checkpoints, its snapshots, its training
	// seconds up to each epoch.
	type run struct {
		at   map[int]*model.Model
		snap map[int]*model.Model
		sec  []float64
	}
	runs := make([]run, seeds)
	for j := range seeds {
		c := cfg
		c.Epochs = last
		if j > 0 {
			c.Seed, c.Epochs = av.seed(j), av.SeedEpochs
		}
		keep := c.Epochs + 1 // the first epoch to keep a snapshot of
		for _, w := range av.Windows {
			if w[1] <= c.Epochs {
				keep = min(keep, w[0]+1)
			}
		}
		r := run{at: map[int]*model.Model{}, snap: map[int]*model.Model{}, sec: make([]float64, c.Epochs+1)}
		g, nh := 0, 0
		start, inCB := time.Now(), time.Duration(0)
		m, err := trainHardSets(ctx, c, xtr, ytr, px, py, h.Margin, copies, func(e int, m *model.Model, n int) error {
			t0 := time.Now()
			r.sec[e] = t0.Sub(start).Seconds() - inCB.Seconds()
			defer func() { inCB += time.Since(t0) }()
			nh += n
			if e >= keep || (j > 0 || av.Seeds > 1) && slices.Contains(cps, e) {
				cp, err := model.Average([]*model.Model{m})
				if err != nil {
					return err
				}
				if e >= keep {
					r.snap[e] = cp
				}
				if slices.Contains(cps, e) {
					r.at[e] = cp
				}
			}
			if j == 0 && g < len(cps) && e == cps[g] {
				var err error
				if res.acc[g], err = setAccuracy(m, xte, yte, 1); err != nil {
					return err
				}
				res.put(fmt.Sprintf("plain@%d", e), res.acc[g], r.sec[e])
				g++
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		m.Close()
		if j == 0 {
			res.nhard = float64(nh) / float64(last)
		}
		runs[j] = r
	}
	// evaluate averages one and returns its accuracy.
	evaluate := func(ms []*model.Model) (*model.Model, float64, float64, error) {
		t0 := time.Now()
		a, err := model.Average(ms)
		if err != nil {
			return nil, 0, 0, err
		}
		sec := time.Since(t0).Seconds()
		acc, err := setAccuracy(a, xte, yte, 1)
		a.Close()
		return a, acc, sec, err
	}
	// tail averages of each run, by window
	tails := make([]map[[2]int]*model.Model, seeds)
	tailSec := make([]map[[2]int]float64, seeds)
	for j, r := range runs {
		tails[j], tailSec[j] = map[[2]int]*model.Model{}, map[[2]int]float64{}
		for _, w := range av.Windows {
			if w[1] >= len(r.sec) {
				continue
			}
			var ms []*model.Model
			for e := w[0] + av.Every; e <= w[1]; e += av.Every {
				ms = append(ms, r.snap[e])
			}
			a, acc, sec, err := evaluate(ms)
			if err != nil {
				return nil, err
			}
			tails[j][w], tailSec[j][w] = a, r.sec[w[1]]+sec
			if j == 0 {
				res.put(fmt.Sprintf("swa%d-%d", w[0]+1, w[1]), acc, tailSec[j][w])
			}
		}
	}
	if seeds > 1 {
		for _, e := range cps {
			if e > av.SeedEpochs {
				break
			}
			var ms []*model.Model
			sec, single := 0.0, 0.0
			for _, r := range runs {
				ms = append(ms, r.at[e])
				sec += r.sec[e]
				acc, err := setAccuracy(r.at[e], xte, yte, 1)
				r.at[e].Close()
				if err != nil {
					return nil, err
				}
				single += acc / float64(seeds)
			}
			_, acc, asec, err := evaluate(ms)
			if err != nil {
				return nil, err
			}
			res.put(fmt.Sprintf("seed%d@%d", seeds, e), acc, sec+asec)
			res.put(fmt.Sprintf("single-mean@%d", e), single, sec/float64(seeds))
		}
		for _, w := range av.Windows {
			if w[1] > av.SeedEpochs {
				continue
			}
			var ms []*model.Model
			sec := 0.0
			for j := range runs {
				ms = append(ms, tails[j][w])
				sec += tailSec[j][w]
			}
			_, acc, asec, err := evaluate(ms)
			if err != nil {
				return nil, err
			}
			res.put(fmt.Sprintf("seed%d+swa%d-%d", seeds, w[0]+1, w[1]), acc, sec+asec)
		}
		// how far apart the runs' prototypes are
		e := av.SeedEpochs
		m0 := runs[0].at[e]
		np := m0.NumPrototypes()
		res.spread, res.sep = make([]float64, np), make([]float64, np)
		for k := range np {
			pairs := 0
			for i := range runs {
				for j := i + 1; j < len(runs); j++ {
					res.spread[k] += sin2(runs[i].at[e].Prototype(k), runs[j].at[e].Prototype(k))
					pairs++
				}
			}
			res.spread[k] /= float64(pairs)
			res.sep[k] = math.Inf(1)
			for l := range np {
				if m0.Label(l) != m0.Label(k) {
					res.sep[k] = min(res.sep[k], sin2(m0.Prototype(k), m0.Prototype(l)))
				}
			}
		}
	}
	return res, nil
}

func TestStudyHardETH80(t *testing.T) {
	tuning(t)
	dir := dataDir(t, "eth80")
	data, err := loadETH80(dir, 5, 2)
	if err != nil {
		t.Fatal(err)
	}
	augSubsets = subsetSets(t, data, envI("X_NSUB", 4), envI("X_SUBSIZE", 20))
	defer func() { augSubsets = nil }()
	h := setHard{Pool: envI("X_POOL", 16), Size: envI("X_PSIZE", 20), Copies: envI("X_HCOPIES", 1), Margin: envF("X_HMARGIN", 0.1)}
	var cps []int
	for _, s := range strings.Split(envS("X_CPS", "10,20,40,80,160,300"), ",") {
		var v int
		fmt.Sscan(s, &v)
		cps = append(cps, v)
	}
	cfg := Setup{Config: model.Config{SubspaceDim: 5, ClassNames: data.classes, PrototypesPerClass: envI("X_PPC", 1)}, TrainConfig: model.TrainConfig{Eta: envF("X_ETA", 0.05), Gamma: envF("X_GAMMA", 1e-4), Workers: 1, Activation: model.Sigmoid, Beta: envF("X_SIGMOID", 5)}}
	// X_SCHED=step (η and γ halved every X_STEPEVERY epochs) or anneal
	// (η/(1 + t/X_TAU)); default constant, as the protocol.
	switch envS("X_SCHED", "constant") {
	case "step":
		cfg.Schedule, cfg.StepEvery = model.ScheduleStep, envI("X_STEPEVERY", 40)
	case "anneal":
		cfg.Schedule, cfg.Tau = model.ScheduleAnneal, envF("X_TAU", 40)
	case "constant":
	default:
		t.Fatalf("X_SCHED %q", envS("X_SCHED", ""))
	}
	// Model averaging (default none): X_SWA lists tail-averaging windows
	// E0:E1 (the models after epochs E0+k, E0+2k, ... E1 of the run, k =
	// X_SWAEVERY, default 1, averaged by model.Average; E1 <= the last
	// checkpoint), X_SEEDAVG = K > 1 also
	// trains K-1 models with other model seeds (X_MSEED+j, j = 1 ... K-1)
	// up to X_SEEDEPOCHS epochs (default the last checkpoint) and averages
	// the K models (and their tail averages). X_PAR: splits in parallel.
	var av avgSpec
	for _, w := range strings.Split(envS("X_SWA", ""), ",") {
		if w == "" {
			continue
		}
		var e0, e1 int
		if _, err := fmt.Sscanf(w, "%d:%d", &e0, &e1); err != nil || e0 < 0 || e1 <= e0 || e1 > cps[len(cps)-1] {
			t.Fatalf("X_SWA window %q", w)
		}
		av.Windows = append(av.Windows, [2]int{e0, e1})
	}
	av.Every = max(1, envI("X_SWAEVERY", 1))
	av.Seeds, av.SeedEpochs = envI("X_SEEDAVG", 1), envI("X_SEEDEPOCHS", cps[len(cps)-1])
	if av.Seeds > 1 && !slices.Contains(cps, av.SeedEpochs) {
		t.Fatalf("X_SEEDEPOCHS %d is not a checkpoint", av.SeedEpochs)
	}
	splits := envI("X_SPLITS", 10)
	acc := make([][]float64, splits)
	nhard := make([]float64, splits)
	vacc := make([]map[string]float64, splits)
	vsec := make([]map[string]float64, splits)
	var names []string
	np := len(data.classes)
	spread, sep := make([]float64, np), make([]float64, np)
	var mu sync.Mutex
	err = forEach(context.Background(), splits, envI("X_PAR", 2), func(s int) error {
		tr, _ := splitSets(data.y, len(data.classes), 5, runRNG(1, streamSplit, s))
		c := cfg
		c.Seed = modelSeed(1+uint64(envI("X_MSEED", 0)), s) // X_MSEED varies the prototype draws and permutations
		pos := map[int]int{}
		rank := make([]int, len(tr))
		for k, i := range tr {
			rank[k] = pos[data.y[i]]
			pos[data.y[i]]++
		}
		sum := make([]float64, len(cps))
		for f := range 5 {
			var a, b []int
			for k, i := range tr {
				if rank[k] == f {
					b = append(b, i)
				} else {
					a = append(a, i)
				}
			}
			rng := rand.New(rand.NewPCG(uint64(s)+uint64(envI("X_PSEED", 0))<<32, uint64(f)+77))
			fav := av
			fav.seed = func(j int) uint64 { return modelSeed(1+uint64(envI("X_MSEED", 0)+j), s) }
			r, err := hardCurve(context.Background(), c, data, a, b, cps, h, fav, rng)
			if err != nil {
				return err
			}
			for g := range cps {
				sum[g] += r.acc[g] / 5
			}
			nhard[s] += r.nhard / 5
			if f == 0 {
				vacc[s], vsec[s] = map[string]float64{}, map[string]float64{}
			}
			for _, k := range r.names {
				vacc[s][k] += r.vacc[k] / 5
				vsec[s][k] += r.vsec[k]
			}
			mu.Lock()
			if names == nil {
				names = r.names
			}
			for k := range r.spread {
				spread[k] += r.spread[k] / float64(5*splits)
				sep[k] += r.sep[k] / float64(5*splits)
			}
			mu.Unlock()
		}
		acc[s] = sum
		mu.Lock()
		t.Logf("split %d inner %v (hard subsets per epoch %.1f)", s, fmtv(sum), nhard[s])
		mu.Unlock()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("hard=%+v β=%g η=%g nsub=%d subsize=%d sched=%s step=%d τ=%g aseed=%d pseed=%d mseed=%d", h, cfg.Beta, cfg.Eta, envI("X_NSUB", 4), envI("X_SUBSIZE", 20),
		envS("X_SCHED", "constant"), cfg.StepEvery, cfg.Tau, envI("X_ASEED", 0), envI("X_PSEED", 0), envI("X_MSEED", 0))
	for g, e := range cps {
		col := make([]float64, splits)
		for s := range col {
			col[s] = acc[s][g]
		}
		m, sd := meanStd(col)
		t.Logf("epochs %4d: inner %.2f ± %.2f", e, 100*m, 100*sd)
	}
	if len(av.Windows) == 0 && av.Seeds <= 1 {
		return
	}
	// Every variant: mean inner accuracy over the splits, and its seconds
	// (training it needs plus averaging, summed over folds and splits)
	// relative to the plain model at X_CTRL epochs.
	ctrl := fmt.Sprintf("plain@%d", envI("X_CTRL", 80))
	tc := 0.0
	for s := range splits {
		tc += vsec[s][ctrl]
	}
	for _, k := range names {
		col := make([]float64, splits)
		ts := 0.0
		for s := range splits {
			col[s], ts = vacc[s][k], ts+vsec[s][k]
		}
		m, sd := meanStd(col)
		t.Logf("variant %-18s inner %6.2f ± %.2f  time %.2f x %s", k, 100*m, 100*sd, ts/tc, ctrl)
	}
	if av.Seeds > 1 {
		for k := range spread {
			t.Logf("class %-10s prototypes of the %d seeds at %d epochs: mean pairwise Σ sin² θ %.3f, to the nearest other class %.3f", data.classes[k], av.Seeds, av.SeedEpochs, spread[k], sep[k])
		}
	}
}

func envS(k, def string) string {
	if s := os.Getenv(k); s != "" {
		return s
	}
	return def
}

// TestDiagnoseETH80Selection (GRLGQ_TUNE=1; a diagnosis that reads TEST
// accuracies and decides nothing): the adopted ETH-80 protocol over
// X_RUNS splits (default 100; the first 10 are the protocol's), with the
// test accuracy of every split after every epoch. It reports what the
// protocol reports (the model after the last epoch) beside what the
// authors' code would report (per split, the epoch of best test
// accuracy), per block of 10 splits, to measure how much that selection
// adds.
//
//	GRLGQ_TUNE=1 go test -run TestDiagnoseETH80Selection -v ./experiments
func TestDiagnoseETH80Selection(t *testing.T) {
	if os.Getenv("GRLGQ_TUNE") == "" {
		t.Skip("a diagnosis on test data: set GRLGQ_TUNE=1")
	}
	dir := dataDir(t, "eth80")
	runs := envI("X_RUNS", 100)
	spec := eth80Default()
	epochs := spec.Config.Epochs
	data, err := loadETH80(dir, spec.Config.SubspaceDim, 2)
	if err != nil {
		t.Fatal(err)
	}
	acc := make([][]float64, runs)
	for r := range acc {
		acc[r] = make([]float64, epochs+1)
	}
	spec.epochHook = func(r, e int, m *model.Model) error {
		_, te := splitSets(data.y, len(data.classes), spec.Train, runRNG(1, streamSplit, r))
		xte, yte := pickSets(data.x, data.y, te)
		a, err := setAccuracy(m, xte, yte, 1)
		acc[r][e] = a
		return err
	}
	res, err := runETH80With(context.Background(), Options{Dir: dir, Runs: runs, Seed: 1, Workers: 2}, spec)
	if err != nil {
		t.Fatal(err)
	}
	final, best := make([]float64, runs), make([]float64, runs)
	for r := range acc {
		final[r] = acc[r][epochs]
		for e := 1; e <= epochs; e++ {
			best[r] = max(best[r], acc[r][e])
		}
		if final[r] != res.Accuracies[r] {
			t.Fatalf("split %d: hook's last-epoch accuracy %v, protocol's %v", r, final[r], res.Accuracies[r])
		}
	}
	mean := func(x []float64) float64 {
		s := 0.0
		for _, v := range x {
			s += v
		}
		return 100 * s / float64(len(x))
	}
	for b := 0; b+10 <= runs; b += 10 {
		t.Logf("splits %3d-%3d: last epoch %.2f%%, best test epoch per split (authors' selection) %.2f%%", b+1, b+10, mean(final[b:b+10]), mean(best[b:b+10]))
	}
	bestGlobal, at := 0.0, 0
	for e := 1; e <= epochs; e++ {
		col := make([]float64, runs)
		for r := range acc {
			col[r] = acc[r][e]
		}
		if m := mean(col); m > bestGlobal {
			bestGlobal, at = m, e
		}
	}
	t.Logf("all %d splits: last epoch %.2f%%, best test epoch per split %.2f%%, best single epoch for all splits %.2f%% (epoch %d)", runs, mean(final), mean(best), bestGlobal, at)
}
