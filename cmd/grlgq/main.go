package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"

	"github.com/grlgq/grlgq/cmd/internal/base"
	"github.com/grlgq/grlgq/cmd/internal/runfiles"
	"github.com/grlgq/grlgq/internal/safefile"
	"github.com/grlgq/grlgq/model"
)

func main() {
	handleSignals(os.Stderr)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// handleSignals ends the process on SIGINT or SIGTERM at any stage
// (loading, converting, training, saving), even when the work is blocked
// in a system call (base.HandleSignals): it removes every temporary file
// of the run (waiting for a commit of the outputs in progress to finish,
// so each output is either replaced or untouched), prints one line and
// exits with code 1 without waiting for the work to notice. A caller of
// runContext (tests, a program embedding the commands) cancels the context
// instead: every loader, the training and the predictions check it, and
// the command ends within about a second with the same line and code.
func handleSignals(stderr io.Writer) { base.HandleSignals("grlgq", stderr, safefile.Abandon) }

// command is one subcommand.
type command struct {
	name, args, summary string
	run                 func(ctx context.Context, e *env, args []string) error
}

var commands []command

func init() {
	commands = []command{
		{"demo", "[-json] [-plots DIR]", "train and test on the embedded UCI digits, in a few seconds", runDemo},
		{"train", "-data SPEC -o MODEL [flags]", "train a model on image sets, images or bases", runTrain},
		{"cv", "-data SPEC [-folds K] [-repeats N] [-tune [-tune-*]] [train flags] [-format F] [-plots DIR]", "k-fold cross-validation of a training configuration, or with -tune nested cross-validation of train -tune: accuracy (mean, sd, per fold), the classification report and confusion matrix pooled over the folds", runCV},
		{"eval", "-model MODEL -data SPEC [-format text|json|csv|latex]", "accuracy, per-class precision, recall, F1 and support, macro and weighted averages, confusion matrix", runEval},
		{"predict", "-model MODEL -data SPEC [-o FILE] [-format text|csv|json]", "class, margins and probabilities of every sample, labelled or not", runPredict},
		{"explain", "-model MODEL -data SPEC -o DIR [-n N | -samples I,NAME | -misclassified]", "pictures and JSON that explain the model's decisions", runExplain},
		{"inspect", "MODEL [-json]", "what a model file is: shapes, classes, prototypes, relevances, settings, file version", runInspect},
		{"repro", "mnist|yale|eth80 -dir DATA [-runs N] [-json]", "reproduce an experiment of the paper, beside a class-PCA baseline", runRepro},
		{"version", "[-json]", "the tool's version, its Go version and the compute kernels chosen for this CPU", runVersion},
	}
}

// env is what a subcommand writes to.
type env struct {
	stdout, stderr io.Writer
	files          *runfiles.Guard // the run's inputs and outputs
	// warnings are printed on stderr once the command has succeeded
	// (warnLater), so that a failure after one still prints one line.
	warnings []string
}

// warnLater keeps a warning of the command verb for the end of a
// successful run.
func (e *env) warnLater(verb, msg string) {
	e.warnings = append(e.warnings, fmt.Sprintf("grlgq: %s: warning: %s", verb, msg))
}

// guard returns the run's file guard, reporting usage errors with fs.
func (e *env) guard(fs *flag.FlagSet) *runfiles.Guard {
	if e.files == nil {
		e.files = runfiles.New("grlgq", e.stderr)
	}
	e.files.SetFlags(fs)
	return e.files
}

// run is runContext without cancellation.
func run(args []string, stdout, stderr io.Writer) int {
	return runContext(context.Background(), args, stdout, stderr)
}

// runContext is the whole program: it parses args (without the program
// name), runs the subcommand and returns the exit code: 0 success, 1
// failure (one line on stderr), 2 bad usage. When ctx is cancelled the
// command stops soon at any stage (loading included) with "grlgq:
// interrupted" and code 1, its outputs left as they were.
func runContext(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	e := &env{stdout: stdout, stderr: stderr, files: runfiles.New("grlgq", stderr)}
	defer func() {
		// A panic is a bug, but the user still gets one line and code 1.
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "grlgq: internal error: %s\n", oneLine(fmt.Sprint(r)))
			if os.Getenv("GRLGQ_DEBUG") != "" {
				stderr.Write(debug.Stack())
			}
			code = 1
		}
	}()
	if len(args) == 0 {
		mainUsage(stderr)
		return 2
	}
	name := args[0]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			if c := lookup(args[1]); c != nil {
				return runContext(ctx, []string{c.name, "-h"}, stdout, stderr)
			}
			fmt.Fprintf(stderr, "grlgq: help: unknown command %q%s\nrun 'grlgq help'\n", args[1], suggestCommand(args[1]))
			return 2
		}
		mainUsage(stdout)
		return 0
	}
	c := lookup(name)
	if c == nil {
		fmt.Fprintf(stderr, "grlgq: unknown command %q%s\nrun 'grlgq help'\n", name, suggestCommand(name))
		return 2
	}
	// Whatever way the command ends, outputs it did not commit are removed
	// (before the panic handler above reports).
	defer e.files.Abort()
	err := c.run(ctx, e, args[1:])
	if err == nil {
		for _, w := range e.warnings {
			fmt.Fprintln(stderr, w)
		}
	}
	if err != nil && ctx.Err() != nil && !errors.Is(err, errHelp) {
		// Cancelled: whatever the work was doing when it noticed.
		fmt.Fprintln(stderr, "grlgq: interrupted")
		return 1
	}
	return report(stderr, c.name, err)
}

func lookup(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

// suggestCommand returns " (did you mean NAME?)" for an unknown command
// that is a typo of the command NAME (base.Suggest, as for a flag), and
// "" otherwise.
func suggestCommand(name string) string {
	names := []string{"help"}
	for _, c := range commands {
		names = append(names, c.name)
	}
	if best := base.Suggest(name, names); best != "" {
		return " (did you mean " + best + "?)"
	}
	return ""
}

func mainUsage(w io.Writer) {
	fmt.Fprintf(w, "grlgq: GRLGQ (Generalized Relevance Learning Grassmann Quantization) for image sets\n\nUsage:\n\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  grlgq %-8s %s\n      %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprintf(w, "\nData: -data %s\nRun \"grlgq help COMMAND\" for the flags of a command. Start with \"grlgq demo\".\n", specHelp)
}

// The flag plumbing both binaries share (package cmd/internal/base).
var (
	usagef    = base.Usagef
	noArgs    = base.NoArgs
	isSet     = base.IsSet
	intVar    = base.IntVar
	int64Var  = base.Int64Var
	uint64Var = base.Uint64Var
	floatVar  = base.FloatVar
	oneLine   = base.OneLine
	errHelp   = base.ErrHelp
)

// newFlagSet returns a flag set for command name that reports errors to
// the caller instead of exiting.
func newFlagSet(name string) *flag.FlagSet { return base.NewFlagSet(name) }

// parseFlags parses args; -h prints the usage on stdout (errHelp).
func parseFlags(e *env, fs *flag.FlagSet, args []string) error {
	err := base.Parse(fs, args)
	if errors.Is(err, base.ErrHelp) {
		printUsage(e.stdout, fs)
	}
	return err
}

// report turns a command's error into its exit code, printing it
// (base.Report: one line; after a usage error, a second one naming
// "grlgq help NAME", which prints the whole usage).
func report(stderr io.Writer, name string, err error) int {
	return base.Report(stderr, "grlgq", name, err, "grlgq help "+name)
}

func printUsage(w io.Writer, fs *flag.FlagSet) {
	c := lookup(fs.Name())
	if c != nil {
		fmt.Fprintf(w, "Usage: grlgq %s %s\n\n%s.\n\nFlags:\n", c.name, c.args, upperFirst(c.summary))
	}
	base.PrintDefaults(w, fs, flagNotes)
	if c != nil && c.name != "demo" && c.name != "repro" {
		fmt.Fprintf(w, "\nSPEC is %s.\n", specHelp)
	}
	if ex := examples[fs.Name()]; ex != "" {
		fmt.Fprintf(w, "\nExamples:\n%s", ex)
	}
}

// examples are shown at the end of a command's usage.
var examples = map[string]string{
	"demo": `  grlgq demo
  grlgq demo -json -plots plots/
  grlgq demo -export-data digits.csv.gz
`,
	"train": `  # MNIST: sets of 12 random same-class digits, d=12, the paper's rates
  grlgq train -data idx:train-images-idx3-ubyte.gz,train-labels-idx1-ubyte.gz -d 12 -m 12 -init pca \
      -lr 1e-4 -lr-rel 1e-7 -epochs 40 -o mnist.grlgq -plots plots/
  # MNIST as grlgq repro trains it: sets of 48 digits plus, every epoch, 8 copies of
  # hard sets of d=12 digits the current model misclassifies or classifies with a margin < 0.1
  grlgq train -data idx:train-images-idx3-ubyte.gz,train-labels-idx1-ubyte.gz -d 12 -m 48 -init pca \
      -lr 5e-3 -lr-rel 1e-6 -schedule step -epochs 40 -hard-copies 8 -hard-margin 0.1 -o mnist-hard.grlgq
  # choose the settings by cross-validation on the training sets, then train (docs/tuning.md)
  grlgq train -tune -data npy:bases.npy,labels.npy -o tuned.grlgq -plots plots/
  grlgq train -tune -tune-protos 1,2,4,all -tune-lr 0.05,0.1 -tune-epochs 25,50 -folds 5 -data folder:eth80 -resize 20x20 -d 5 -o eth80.grlgq
  # ETH-80: one object folder = one image set, gray 20x20
  grlgq train -data folder:eth80 -resize 20x20 -d 5 -lr 0.05 -lr-rel 1e-4 -epochs 100 -o eth80.grlgq
  # Yale B (Deng Cai's MAT layout): 32x32 column-major pixels, resized to 20x20
  grlgq train -data mat:YaleB_32x32.mat -image 32x32 -mat-transpose -pixel-max 255 -resize 20x20 -d 7 -o yale.grlgq
  # the same, trained on the single face images (1-D subspaces), with a 20% validation split
  grlgq train -data mat:YaleB_32x32.mat -image 32x32 -mat-transpose -pixel-max 255 -resize 20x20 -d 7 \
      -images -init pca -lr 1e-2 -schedule step -step-every 20 -epochs 80 -val 0.2 -o yale-images.grlgq
`,
	"cv": `  grlgq cv -data npy:bases.npy,labels.npy -folds 5
  grlgq cv -data folder:eth80 -resize 20x20 -d 5 -folds 5 -format latex -plots report/ -plot-format pdf -plot-size 4x3
  grlgq cv -data folder:eth80 -resize 20x20 -d 5 -protos 3 -epochs 25 -folds 5 -json
  # the unbiased estimate of train -tune's model: tune inside each outer fold, score on its test part,
  # and compare with the baselines on the same outer folds
  grlgq cv -tune -data folder:eth80 -resize 20x20 -d 5 -folds 5 -baselines
`,
	"eval": `  grlgq eval -model mnist.grlgq -data idx:t10k-images-idx3-ubyte.gz,t10k-labels-idx1-ubyte.gz
  grlgq eval -model eth80.grlgq -data folder:eth80-test -resize 20x20 -json
  grlgq eval -model eth80.grlgq -data folder:eth80-test -resize 20x20 -format csv > report.csv
`,
	"predict": `  grlgq predict -model eth80.grlgq -data folder:new-objects -resize 20x20 -json
  # labelled data is scored too; the samples of a class the model does not know are
  # predicted but not scored (no * mark, left out of the count), and a warning names the class
  grlgq predict -model eth80.grlgq -data folder:eth80-test -resize 20x20 -o test.csv
`,
	"explain": `  grlgq explain -model eth80.grlgq -data folder:eth80-test -resize 20x20 -o why/ -n 8
  grlgq explain -model mnist.grlgq -data idx:t10k-images-idx3-ubyte.gz,t10k-labels-idx1-ubyte.gz -o why/ -samples 0,1,2
`,
	"repro": `  grlgq repro eth80 -dir ../shared/data
  grlgq repro mnist -dir ../shared/data -runs 3 -json
`,
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// flagNotes describe the flags whose values are not plain numbers.
var flagNotes = map[string]base.Note{
	"image":       {Type: "HxW", Text: fmt.Sprintf("each side 1 to %d, at most %d pixels", maxSide, maxImagePixels)},
	"mat-image":   {Type: "HxW", Text: fmt.Sprintf("each side 1 to %d, at most %d pixels", maxSide, maxImagePixels)},
	"resize":      {Type: "HxW", Text: fmt.Sprintf("each side 1 to %d, at most -max-pixels pixels and at most %d: a model's D", maxSide, model.MaxDim)},
	"init":        {Type: "word"},
	"relevance":   {Type: "word"},
	"precision":   {Type: "word"},
	"distance":    {Type: "word"},
	"schedule":    {Type: "word"},
	"csv-label":   {Type: "word"},
	"layout":      {Type: "word"},
	"format":      {Type: "word"},
	"plot-format": {Type: "word"},
	"plot-size":   {Type: "WxH"},
}

// jnum is a float64 that encodes NaN and ±Inf as JSON null.
type jnum float64

func (f jnum) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, v, 'g', -1, 64), nil
}

func jnums(x []float64) []jnum {
	if x == nil {
		return []jnum{}
	}
	out := make([]jnum, len(x))
	for i, v := range x {
		out[i] = jnum(v)
	}
	return out
}

// writeJSON prints v as one indented JSON object.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// profiler handles -cpuprofile and -memprofile. The profiles are outputs
// like the model: written to temporary files, renamed into place only
// when the command succeeds, never over one of its inputs or outputs.
type profiler struct {
	cpu, mem string
	cpuOn    bool
}

func (p *profiler) addFlags(fs *flag.FlagSet) {
	fs.StringVar(&p.cpu, "cpuprofile", "", "write a CPU profile to this file (go tool pprof), when the command succeeds")
	fs.StringVar(&p.mem, "memprofile", "", "write a heap profile to this file at the end, when the command succeeds")
}

// check declares the profiles as outputs of the run.
func (p *profiler) check(g *runfiles.Guard) error {
	if p.cpu != "" {
		if err := g.CheckOutput("-cpuprofile", p.cpu); err != nil {
			return err
		}
	}
	if p.mem != "" {
		if err := g.CheckOutput("-memprofile", p.mem); err != nil {
			return err
		}
	}
	return nil
}

// start starts the CPU profile into its temporary file.
func (p *profiler) start(g *runfiles.Guard) error {
	if p.cpu == "" {
		return nil
	}
	f, err := g.Create(p.cpu)
	if err != nil {
		return fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		return fmt.Errorf("cpu profile: %w", err)
	}
	p.cpuOn = true
	return nil
}

// stop ends the CPU profile (deferred: the file is committed or aborted
// with the run's other outputs).
func (p *profiler) stop() {
	if p.cpuOn {
		pprof.StopCPUProfile()
		p.cpuOn = false
	}
}

// finish ends the CPU profile and writes the heap profile, to be
// committed with the other outputs.
func (p *profiler) finish(g *runfiles.Guard) error {
	p.stop()
	if p.mem == "" {
		return nil
	}
	f, err := g.Create(p.mem)
	if err != nil {
		return fmt.Errorf("memory profile: %w", err)
	}
	runtime.GC()
	if err := pprof.WriteHeapProfile(f); err != nil {
		return fmt.Errorf("memory profile: %w", err)
	}
	return nil
}

// fmtFloats formats a short vector for text output.
func fmtFloats(x []float64, prec int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, v := range x {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.FormatFloat(v, 'f', prec, 64))
	}
	b.WriteByte(']')
	return b.String()
}

// pct formats a fraction as a percentage.
func pct(f float64) string {
	if math.IsNaN(f) {
		return "-"
	}
	return strconv.FormatFloat(100*f, 'f', 2, 64) + "%"
}

func nan() float64 { return math.NaN() }
