package selection

import (
	"context"
	"fmt"
	"time"

	"github.com/grlgq/grlgq/folds"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/score"
)

// NestedFold is the outcome of one outer fold of NestedCV: the model Tune
// chose and trained on the outer training part, scored on the outer test
// part (FoldScore; Duration covers the tuning too).
type NestedFold struct {
	FoldScore
	// Best is the index of the chosen setting in the settings given,
	// Setting the setting itself.
	Best    int
	Setting Setting
	// InnerMean and InnerSD are the chosen setting's inner
	// cross-validation accuracy (the best of the search on its own folds:
	// optimistic, unlike the outer score); Inner is the inner plan.
	InnerMean, InnerSD float64
	Inner              Plan
}

// NestedResult is the outcome of NestedCV.
type NestedResult struct {
	Folds []NestedFold
	// Mean and SD (n−1) of the outer folds' accuracies: the estimate of
	// the accuracy of Tune's model.
	Mean, SD float64
	// Plan is the outer cross-validation; Splits its folds, in the order
	// of Folds (for baselines on the same folds: package baseline).
	Plan   Plan
	Splits []folds.Fold
}

// Pooled returns the outer folds' Scores pooled (CVResult.Pooled).
func (r *NestedResult) Pooled() *score.Scores { return r.CVResult().Pooled() }

// CVResult returns the outer scores as a CVResult (the folds' scores,
// mean, sd, plan and splits), for code written for CrossValidate's.
func (r *NestedResult) CVResult() *CVResult {
	c := &CVResult{Folds: make([]FoldScore, len(r.Folds)), Mean: r.Mean, SD: r.SD, Plan: r.Plan, Splits: r.Splits}
	for i, f := range r.Folds {
		c.Folds[i] = f.FoldScore
	}
	return c
}

// nestedUnits is the progress units of one outer fold's tuning.
const nestedUnits = 1000

// NestedCV estimates the accuracy of tuning: for each stratified outer
// fold of (x, y) (outer.Folds, Repeats and Seed, as CrossValidate's
// folds), it runs Tune(base, settings) with the options inner on the
// outer training part alone (its own inner cross-validation, its choice,
// its final model on the whole outer training part) and scores that
// model on the outer test part, which took no part in the choice. The
// outer scores are thus unbiased estimates of the tuned model's accuracy,
// unlike the chosen row of Tune's table (the best of many settings on the
// folds that chose it).
//
// outer.Workers are shared as CrossValidate shares them: the outer folds
// run in parallel, each Tune on outer.Workers/folds workers (at least 1);
// inner.Workers and inner.Progress are ignored. outer.Progress reports
// each outer fold's tuning in nestedUnits units and its scoring in one.
// The result depends only on the data, the settings, base and the two
// Options' seeds and search, never on the workers.
func NestedCV(ctx context.Context, base model.Options, settings []Setting, x []model.Sample, y []int, outer, inner Options) (*NestedResult, error) {
	outer = outer.withDefaults()
	if err := checkTune(settings, x, y, inner); err != nil {
		return nil, err
	}
	splits, plan, err := splits(y, outer)
	if err != nil {
		return nil, err
	}
	prog := newProgress(outer.Progress, len(splits)*(nestedUnits+1))
	reported := make([]int, len(splits)) // units of each fold's tuning reported
	res := &NestedResult{Folds: make([]NestedFold, len(splits)), Plan: plan, Splits: splits}
	in := inner
	in.Workers = max(outer.Workers/len(splits), 1)
	err = parallel(ctx, len(splits), outer.Workers, func(f int) error {
		t0 := time.Now()
		xt, yt := pick(x, y, splits[f].Train)
		xv, yv := pick(x, y, splits[f].Val)
		o := in
		o.Progress = nil
		if prog.fn != nil {
			// Tune calls it from one goroutine at a time: reported[f] is
			// this fold's alone.
			o.Progress = func(done, total int) {
				if u := done * nestedUnits / max(total, 1); u > reported[f] {
					prog.add(u - reported[f])
					reported[f] = u
				}
			}
		}
		tr, err := Tune(ctx, base, settings, xt, yt, o)
		if err != nil {
			// Said so: the inner folds split the outer training part, so
			// "use fewer folds" there means the inner K.
			return fmt.Errorf("selection: outer fold %d, tuning on its %d training sets (inner folds): %w", f+1, len(xt), err)
		}
		row := tr.Table[tr.Best]
		// The model of a setting of smaller d reads the sets' first d
		// columns, as in Tune's folds.
		views, err := dimViews([]Setting{row.Setting}, xv)
		if err != nil {
			return fmt.Errorf("selection: outer fold %d: %w", f+1, err)
		}
		sc, err := scoreFold(tr.Model, views[row.Setting.Dim], yv)
		if err != nil {
			return fmt.Errorf("selection: outer fold %d: %w", f+1, err)
		}
		if d := nestedUnits - reported[f]; d > 0 {
			prog.add(d)
		}
		prog.add(1)
		res.Folds[f] = NestedFold{
			FoldScore: FoldScore{Correct: sc.Correct, N: len(yv), Accuracy: float64(sc.Correct) / float64(len(yv)), Scores: sc, Duration: time.Since(t0)},
			Best:      tr.Best, Setting: row.Setting, InnerMean: row.Mean, InnerSD: row.SD, Inner: tr.Plan,
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	acc := make([]float64, len(res.Folds))
	for i, nf := range res.Folds {
		acc[i] = nf.Accuracy
	}
	res.Mean, res.SD = score.MeanSD(acc)
	return res, nil
}
