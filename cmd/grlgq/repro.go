package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/grlgq/grlgq/cmd/internal/base"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/paper"
)

func runRepro(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("repro")
	var (
		dir     string
		runs    int
		seed    uint64
		workers int
		asJSON  bool
		quiet   bool
		prec    model.Precision
	)
	fs.StringVar(&dir, "dir", os.Getenv("GRLGQ_DATA"), "the data folder holding mnist/, yaleb32/ and eth80/ (default $GRLGQ_DATA)")
	intVar(fs, &runs, "runs", 0, 1, maxRuns, "runs (mnist), repetitions of 4-fold cross-validation (yale) or random splits (eth80) (default: the paper's: 3, 10, 10)")
	uint64Var(fs, &seed, "seed", 1, "seed of every random choice")
	intVar(fs, &workers, "workers", defaultWorkers(), 1, model.MaxWorkers, "goroutines (results never depend on it)")
	fs.BoolVar(&asJSON, "json", false, `print one JSON object: "mean_accuracy", "std", "baseline_mean_accuracy", "baseline_std" (fractions), ...`)
	fs.BoolVar(&quiet, "quiet", false, "no progress messages on stderr")
	fs.TextVar(&prec, "precision", model.Float64, "the models' precision: float64 (the paper's), or float32")
	bl := newBaselineFlags(fs, false)
	// The experiment's name may come before or after the flags.
	var name string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		name, args = args[0], args[1:]
	}
	if err := parseFlags(e, fs, args); err != nil {
		return err
	}
	if name == "" && fs.NArg() > 0 {
		name = fs.Arg(0)
		if err := fs.Parse(fs.Args()[1:]); err != nil {
			return usagef(fs, "%v", err)
		}
	}
	if err := noArgs(fs); err != nil {
		return err
	}
	if name == "" {
		return usagef(fs, "which experiment? want one of %s", strings.Join(paper.Names(), ", "))
	}
	known := false
	for _, n := range paper.Names() {
		known = known || n == name
	}
	if !known {
		return usagef(fs, "unknown experiment %q, want one of %s", name, strings.Join(paper.Names(), ", "))
	}
	if dir == "" {
		return usagef(fs, "-dir DATA is required (the folder holding mnist/, yaleb32/, eth80/), or set GRLGQ_DATA")
	}
	if err := e.guard(fs).Input("-dir", dir, true); err != nil {
		return fmt.Errorf("data folder: %w", err)
	}
	opt := paper.Options{Dir: dir, Runs: runs, Seed: seed, Workers: workers, Precision: prec, Baselines: bl.methods}
	bar := base.NewPercent(e.stderr, name+": training and testing", quiet)
	if !quiet {
		start := time.Now()
		opt.Progress = func(msg string) {
			bar.Clear()
			fmt.Fprintf(e.stderr, "[%7s] %s\n", base.RoundDur(time.Since(start)), oneLine(msg))
			bar.Redraw()
		}
		opt.Step = bar.Update
	}
	t0 := time.Now()
	res, err := paper.Run(ctx, name, opt)
	bar.Clear()
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return errors.New("interrupted")
		}
		return err
	}
	wall := time.Since(t0)
	if asJSON {
		return writeJSON(e.stdout, map[string]any{
			"name":                   res.Name,
			"protocol":               res.Protocol,
			"mean_accuracy":          jnum(res.Mean),
			"std":                    jnum(res.Std),
			"accuracies":             jnums(res.Accuracies),
			"baseline_mean_accuracy": jnum(res.BaselineMean),
			"baseline_std":           jnum(res.BaselineStd),
			"baseline_accuracies":    jnums(res.BaselineAccuracies),
			"paper_mean_accuracy":    jnum(res.Paper),
			"paper_std":              jnum(res.PaperStd),
			"wall_seconds":           res.Wall.Seconds(),
			"baseline_wall_seconds":  res.BaselineWall.Seconds(),
			"total_seconds":          wall.Seconds(),
			"subspace_dim":           res.Setup.Model.SubspaceDim,
			"eta":                    res.Setup.Train.Eta,
			"gamma":                  res.Setup.Train.Gamma,
			"config_epochs":          res.Setup.Train.Epochs,
			"precision":              res.Setup.Model.Precision.String(),
			"baselines":              res.Baselines,
		})
	}
	w := e.stdout
	fmt.Fprintf(w, "%s: %s\n", res.Name, res.Protocol)
	precText := ""
	if res.Setup.Model.Precision != model.Float64 {
		precText = ", precision " + res.Setup.Model.Precision.String()
	}
	fmt.Fprintf(w, "config: d=%d, η=%g, γ=%g (factor 2 in G kept)%s\n\n", res.Setup.Model.SubspaceDim, res.Setup.Train.Eta, res.Setup.Train.Gamma, precText)
	fmt.Fprintf(w, "%-34s %-18s %s\n", "method", "accuracy (%)", "wall time")
	fmt.Fprintf(w, "%-34s %-18s %s\n", "GRLGQ (this run)", meanStd(res.Mean, res.Std, len(res.Accuracies)), base.RoundDur(res.Wall))
	fmt.Fprintf(w, "%-34s %-18s %s\n", "class-PCA baseline (untrained)", meanStd(res.BaselineMean, res.BaselineStd, len(res.BaselineAccuracies)), base.RoundDur(res.BaselineWall))
	fmt.Fprintf(w, "%-34s %-18s\n", "GRLGQ (paper)", meanStd(res.Paper, res.PaperStd, 2))
	fmt.Fprintf(w, "\nper run: GRLGQ %s\n         baseline %s\n", fmtPct(res.Accuracies), fmtPct(res.BaselineAccuracies))
	if res.Baselines != nil {
		return bl.write(e, w, res.Baselines)
	}
	return nil
}

func meanStd(mean, std float64, n int) string {
	if n <= 1 {
		return fmt.Sprintf("%.2f", 100*mean)
	}
	return fmt.Sprintf("%.2f ± %.2f", 100*mean, 100*std)
}

func fmtPct(x []float64) string {
	parts := make([]string, len(x))
	for i, v := range x {
		parts[i] = fmt.Sprintf("%.2f", 100*v)
	}
	return "[" + strings.Join(parts, " ") + "]"
}
