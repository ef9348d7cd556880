package main

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/grlgq/grlgq/baseline"
	"github.com/grlgq/grlgq/folds"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/score"
	"github.com/grlgq/grlgq/selection"
	"github.com/grlgq/grlgq/subspace"
)

// fixedSettings are named fixed settings scored beside the tuner (-fixed
// a,b,...), to see which levers matter.
var fixedSettings = map[string]selection.Setting{
	"defaults":  {Prototypes: 1, Init: model.InitSample, Relevance: model.RelevanceGlobal, Eta: 0.05, Epochs: 50},
	"sig10":     {Prototypes: 1, Init: model.InitSample, Relevance: model.RelevanceGlobal, Eta: 0.05, Epochs: 50, Beta: 10},
	"sig10e.2":  {Prototypes: 1, Init: model.InitSample, Relevance: model.RelevanceGlobal, Eta: 0.2, Epochs: 50, Beta: 10},
	"sig3":      {Prototypes: 1, Init: model.InitSample, Relevance: model.RelevanceGlobal, Eta: 0.05, Epochs: 50, Beta: 3},
	"sig30":     {Prototypes: 1, Init: model.InitSample, Relevance: model.RelevanceGlobal, Eta: 0.05, Epochs: 50, Beta: 30},
	"g1e-2":     {Prototypes: 1, Init: model.InitSample, Relevance: model.RelevanceGlobal, Eta: 0.05, Epochs: 50, Gamma: 1e-2},
	"g1e-2sig":  {Prototypes: 1, Init: model.InitSample, Relevance: model.RelevanceGlobal, Eta: 0.05, Epochs: 50, Gamma: 1e-2, Beta: 10},
	"p3sig10":   {Prototypes: 3, Init: model.InitSample, Relevance: model.RelevanceGlobal, Eta: 0.05, Epochs: 50, Beta: 10},
	"p3":        {Prototypes: 3, Init: model.InitSample, Relevance: model.RelevanceGlobal, Eta: 0.05, Epochs: 50},
	"pca":       {Prototypes: 1, Init: model.InitPCA, Relevance: model.RelevanceGlobal, Eta: 0.05, Epochs: 50},
	"pcasig10":  {Prototypes: 1, Init: model.InitPCA, Relevance: model.RelevanceGlobal, Eta: 0.05, Epochs: 50, Beta: 10},
	"allsig10":  {Prototypes: selection.AllSets, Init: model.InitSample, Relevance: model.RelevanceGlobal, Eta: 0.05, Epochs: 10, Beta: 10},
	"d5sig10":   {Prototypes: 1, Init: model.InitSample, Relevance: model.RelevanceGlobal, Eta: 0.05, Epochs: 50, Beta: 10, Dim: 5},
	"g1e-3":     {Prototypes: 1, Init: model.InitSample, Relevance: model.RelevanceGlobal, Eta: 0.05, Epochs: 50, Gamma: 1e-3},
	"g1e-1":     {Prototypes: 1, Init: model.InitSample, Relevance: model.RelevanceGlobal, Eta: 0.05, Epochs: 50, Gamma: 1e-1},
	"g1e-2pca":  {Prototypes: 1, Init: model.InitPCA, Relevance: model.RelevanceGlobal, Eta: 0.05, Epochs: 50, Gamma: 1e-2},
	"g1e-2sig3": {Prototypes: 1, Init: model.InitSample, Relevance: model.RelevanceGlobal, Eta: 0.05, Epochs: 50, Gamma: 1e-2, Beta: 3},
	"g1e-2p3":   {Prototypes: 3, Init: model.InitSample, Relevance: model.RelevanceGlobal, Eta: 0.05, Epochs: 50, Gamma: 1e-2},
	"g1e-2e.1":  {Prototypes: 1, Init: model.InitSample, Relevance: model.RelevanceGlobal, Eta: 0.1, Epochs: 50, Gamma: 1e-2},
	"pcasig3":   {Prototypes: 1, Init: model.InitPCA, Relevance: model.RelevanceGlobal, Eta: 0.05, Epochs: 50, Beta: 3},
	"pcag1e-3":  {Prototypes: 1, Init: model.InitPCA, Relevance: model.RelevanceGlobal, Eta: 0.05, Epochs: 50, Gamma: 1e-3},
	"pcae.02":   {Prototypes: 1, Init: model.InitPCA, Relevance: model.RelevanceGlobal, Eta: 0.02, Epochs: 50},
	"pcap3":     {Prototypes: 3, Init: model.InitPCA, Relevance: model.RelevanceGlobal, Eta: 0.05, Epochs: 50},
	"p3sig10e2": {Prototypes: 3, Init: model.InitSample, Relevance: model.RelevanceGlobal, Eta: 0.2, Epochs: 50, Beta: 10},
}

type row struct {
	name string
	acc  []float64 // per collection: mean over splits
	diff []float64 // per collection: mean over splits of (this − 1-NN)
}

func evalAll(ctx context.Context, seeds []uint64, nsplits, workers int, fixed string, noTune bool) error {
	var names []string
	if fixed != "" {
		names = strings.Split(fixed, ",")
		for _, n := range names {
			if _, ok := fixedSettings[n]; !ok {
				return fmt.Errorf("unknown fixed setting %q", n)
			}
		}
	}
	methods := []string{"tuned", "1nn-geodesic", "1nn-chordal", "svm"}
	if noTune {
		methods = methods[1:]
	}
	methods = append(methods, names...)
	rows := map[string]*row{}
	for _, m := range methods {
		rows[m] = &row{name: m}
	}
	var tuneTimes []float64
	var majority []float64
	for _, seed := range seeds {
		sp := randomSpec(seed)
		x, y, err := generate(sp)
		if err != nil {
			return err
		}
		fmt.Printf("collection %s\n", sp)
		per := map[string][]float64{}
		for s := range nsplits {
			tr, te, err := folds.Holdout(y, seqN(len(y)), 0.5, seed*1000+uint64(s))
			if err != nil {
				return err
			}
			xt, yt := pickSets(x, y, tr)
			xv, yv := pickSets(x, y, te)
			// Majority share of the test part.
			cnt := map[int]int{}
			big := 0
			for _, c := range yv {
				cnt[c]++
				big = max(big, cnt[c])
			}
			majority = append(majority, float64(big)/float64(len(yv)))

			base := model.DefaultOptions()
			base.Train.Workers, base.Train.Seed = workers, uint64(s)
			for _, n := range names {
				o := fixedSettings[n].Apply(base, yt)
				xtt, xvv := xt, xv
				if d := fixedSettings[n].Dim; d > 0 {
					xtt, xvv = truncate(xt, d), truncate(xv, d)
				}
				m, _, err := model.Train(ctx, o, model.Sets(xtt), yt)
				if err != nil {
					return fmt.Errorf("%s: %w", n, err)
				}
				a, err := accuracy(m, xvv, yv)
				if err != nil {
					return err
				}
				per[n] = append(per[n], a)
			}
			if noTune {
				goto baselines
			}
			{
				ss, opt := selection.DefaultSearch(sp.D, false)
				opt.Seed, opt.Workers = uint64(s), workers
				t0 := time.Now()
				res, err := selection.Tune(ctx, base, ss, model.Sets(xt), yt, opt)
				if err != nil {
					return fmt.Errorf("seed %d split %d: tune: %w", seed, s, err)
				}
				tt := time.Since(t0).Seconds()
				tuneTimes = append(tuneTimes, tt)
				a, err := accuracy(res.Model, xv, yv)
				if err != nil {
					return err
				}
				per["tuned"] = append(per["tuned"], a)
				fmt.Printf("  split %d: tuned %.1f%% in %.1fs: %s (cv %.1f)\n", s, 100*a, tt, res.BestSetting(), 100*res.Table[res.Best].Mean)
			}
		baselines:
			// Baselines on the same split.
			br, err := baseline.Evaluate(ctx, x, y, []baseline.Split{{Train: tr, Val: te}}, baseline.Options{Methods: []baseline.Method{
				{Kind: baseline.NN, K: 1, Distance: baseline.Geodesic}, {Kind: baseline.NN, K: 1, Distance: baseline.Chordal}, {Kind: baseline.SVM}}, Workers: workers, Seed: uint64(s)})
			if err != nil {
				return err
			}
			for i, m := range []string{"1nn-geodesic", "1nn-chordal", "svm"} {
				per[m] = append(per[m], br.Methods[i].Accuracy[0])
			}
		}
		nn := per["1nn-geodesic"]
		var line []string
		for _, m := range methods {
			mean, _ := score.MeanSD(per[m])
			d := make([]float64, len(nn))
			for i := range nn {
				d[i] = per[m][i] - nn[i]
			}
			dm, _ := score.MeanSD(d)
			rows[m].acc = append(rows[m].acc, mean)
			rows[m].diff = append(rows[m].diff, dm)
			line = append(line, fmt.Sprintf("%s %.1f (%+.1f)", m, 100*mean, 100*dm))
		}
		fmt.Printf("  => %s\n", strings.Join(line, ", "))
	}
	fmt.Printf("\nover %d collections x %d splits (mean − 1-NN geodesic, macro mean ± se over collections, worst collection):\n", len(seeds), nsplits)
	for _, m := range methods {
		r := rows[m]
		mean, sd := score.MeanSD(r.diff)
		acc, _ := score.MeanSD(r.acc)
		worst := math.Inf(1)
		for _, v := range r.diff {
			worst = math.Min(worst, v)
		}
		fmt.Printf("%-14s acc %.2f  diff %+.2f ± %.2f  worst %+.2f\n", m, 100*acc, 100*mean, 100*sd/math.Sqrt(float64(len(r.diff))), 100*worst)
	}
	sort.Float64s(tuneTimes)
	mj, _ := score.MeanSD(majority)
	if len(tuneTimes) > 0 {
		fmt.Printf("tune time: median %.1fs, max %.1fs\n", tuneTimes[len(tuneTimes)/2], tuneTimes[len(tuneTimes)-1])
	}
	fmt.Printf("majority share of test parts %.1f%%\n", 100*mj)
	return nil
}

func seqN(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

func pickSets(x []*subspace.Subspace, y []int, idx []int) ([]*subspace.Subspace, []int) {
	xs, ys := make([]*subspace.Subspace, len(idx)), make([]int, len(idx))
	for i, j := range idx {
		xs[i], ys[i] = x[j], y[j]
	}
	return xs, ys
}

func truncate(x []*subspace.Subspace, d int) []*subspace.Subspace {
	out := make([]*subspace.Subspace, len(x))
	for i, s := range x {
		out[i], _ = subspace.Truncate(s, d)
	}
	return out
}

// accuracy classifies the sets x with m, truncated to its d.
func accuracy(m *model.Model, x []*subspace.Subspace, y []int) (float64, error) {
	if d := m.SubspaceDim(); d < x[0].D() {
		x = truncate(x, d)
	}
	m, err := m.WithWorkers(m.TrainConfig().Workers)
	if err != nil {
		return 0, err
	}
	p, err := m.PredictBatch(model.Sets(x))
	if err != nil {
		return 0, err
	}
	c := 0
	for i := range p {
		if p[i].Class == y[i] {
			c++
		}
	}
	return float64(c) / float64(len(y)), nil
}

// timeTune runs the default search on 250 sets of 400 x 8.
func timeTune(ctx context.Context, workers int) error {
	x, y, err := generate(bigSpec())
	if err != nil {
		return err
	}
	base := model.DefaultOptions()
	base.Train.Workers = workers
	ss, opt := selection.DefaultSearch(8, false)
	opt.Workers = workers
	t0 := time.Now()
	res, err := selection.Tune(ctx, base, ss, model.Sets(x), y, opt)
	if err != nil {
		return err
	}
	fmt.Printf("%d settings, plan %+v, rungs %v alive %v: %v, chose %s\n", len(ss), res.Plan, res.Rungs, res.Alive, time.Since(t0), res.BestSetting())
	return nil
}

// difficulty prints 1-NN's and the SVM's accuracy on one half of each
// collection.
func difficulty(ctx context.Context, seeds []uint64, workers int) error {
	for _, seed := range seeds {
		sp := randomSpec(seed)
		x, y, err := generate(sp)
		if err != nil {
			return err
		}
		tr, te, err := folds.Holdout(y, seqN(len(y)), 0.5, seed*1000)
		if err != nil {
			return err
		}
		br, err := baseline.Evaluate(ctx, x, y, []baseline.Split{{Train: tr, Val: te}}, baseline.Options{Methods: []baseline.Method{
			{Kind: baseline.NN, K: 1, Distance: baseline.Geodesic}, {Kind: baseline.SVM}}, Workers: workers})
		if err != nil {
			return err
		}
		fmt.Printf("%5.1f %5.1f  %s\n", 100*br.Methods[0].Accuracy[0], 100*br.Methods[1].Accuracy[0], sp)
	}
	return nil
}
