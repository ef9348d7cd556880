package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/grlgq/grlgq/baseline"
	"github.com/grlgq/grlgq/folds"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

// Baselines on the folds of cv and train -tune: flags and tables; the
// work is package baseline's.

// baselineFlag is -baselines[=LIST] (alone: baseline.DefaultMethods)
// and -baselines-csv.
type baselineFlag struct {
	methods baseline.MethodList
	csv     string
}

func newBaselineFlags(fs *flag.FlagSet, csv bool) *baselineFlag {
	b := &baselineFlag{}
	fs.Var(&b.methods, "baselines", "also run these classifiers on the same folds, with their paired differences to GRLGQ: -baselines alone for "+
		"1nn-geodesic,1nn-chordal,1nn-msm,5nn-geodesic,svm, or -baselines=LIST of Knn-geodesic, Knn-chordal, Knn-msm, svm (projection kernel, C by inner cross-validation), gda, default")
	if csv {
		fs.StringVar(&b.csv, "baselines-csv", "", "with -baselines: write the per-fold accuracies of GRLGQ and the baselines to this CSV file")
	}
	return b
}

// check rejects -baselines-csv without -baselines and declares the file.
func (b *baselineFlag) check(e *env, fs *flag.FlagSet) error {
	if b.csv == "" {
		return nil
	}
	if b.methods == nil {
		return usagef(fs, "-baselines-csv needs -baselines")
	}
	return e.guard(fs).CheckOutput("-baselines-csv", b.csv)
}

// run evaluates the baselines on the splits of the sets x (labels y) and
// compares them with GRLGQ's per-split accuracies acc (the row name).
func (b *baselineFlag) run(ctx context.Context, name string, x []model.Sample, y []int, splits []folds.Fold, acc []float64, seed uint64, workers int) (*baseline.Result, error) {
	subs := make([]*subspace.Subspace, len(x))
	for i, s := range x {
		if subs[i] = s.Subspace(); subs[i] == nil {
			return nil, fmt.Errorf("-baselines: the baselines compare image sets, not single images")
		}
	}
	res, err := baseline.Evaluate(ctx, subs, y, baseline.SplitsOf(splits), baseline.Options{Methods: []baseline.Method(b.methods), Workers: workers, Seed: seed})
	if err != nil {
		return nil, fmt.Errorf("-baselines: %w", selectionError(err))
	}
	if err := res.CompareTo(name, acc); err != nil {
		return nil, err
	}
	return res, nil
}

// write prints the summary (mean ± sd, paired differences to GRLGQ) and
// the per-fold table, and writes the CSV of -baselines-csv if asked.
func (b *baselineFlag) write(e *env, w io.Writer, res *baseline.Result) error {
	if b.csv != "" {
		f, err := e.files.Create(b.csv)
		if err != nil {
			return err
		}
		if err := res.PerSplit().WriteCSV(f); err != nil {
			return err
		}
		if err := e.files.Commit(); err != nil {
			return err
		}
	}
	return res.WriteText(w)
}
