package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
)

// errHelp ends a command that printed its help on request (exit code 0).
var errHelp = errors.New("help requested")

// usageError is bad usage of a command: exit code 2 with the usage.
type usageError struct {
	fs  *flag.FlagSet
	msg string
}

func (u *usageError) Error() string { return u.msg }

func usagef(fs *flag.FlagSet, format string, a ...any) error {
	return &usageError{fs: fs, msg: fmt.Sprintf(format, a...)}
}

// report turns a command's error into its exit code, printing it.
func report(stderr io.Writer, name string, err error) int {
	if err == nil || errors.Is(err, errHelp) {
		return 0
	}
	var u *usageError
	if errors.As(err, &u) {
		fmt.Fprintf(stderr, "grlgq: %s: %s\n", name, oneLine(u.msg))
		printUsage(stderr, u.fs)
		return 2
	}
	msg := oneLine(err.Error())
	msg = strings.TrimPrefix(msg, "grlgq: ")
	fmt.Fprintf(stderr, "grlgq: %s: %s\n", name, msg)
	return 1
}

// newFlagSet returns a flag set for command name that reports errors to
// the caller instead of exiting.
func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseFlags parses args; -h prints the usage on stdout (errHelp).
func parseFlags(e *env, fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printUsage(e.stdout, fs)
			return errHelp
		}
		return &usageError{fs: fs, msg: err.Error()}
	}
	return nil
}

func printUsage(w io.Writer, fs *flag.FlagSet) {
	c := lookup(fs.Name())
	if c != nil {
		fmt.Fprintf(w, "Usage: grlgq %s %s\n\n%s.\n\nFlags:\n", c.name, c.args, upperFirst(c.summary))
	}
	printDefaults(w, fs)
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
  grlgq cv -data folder:eth80 -resize 20x20 -d 5 -protos 3 -epochs 25 -folds 5 -json
`,
	"eval": `  grlgq eval -model mnist.grlgq -data idx:t10k-images-idx3-ubyte.gz,t10k-labels-idx1-ubyte.gz
  grlgq eval -model eth80.grlgq -data folder:eth80-test -resize 20x20 -json
`,
	"predict": `  grlgq predict -model eth80.grlgq -data folder:new-objects -resize 20x20 -json
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

// noArgs rejects positional arguments left after the flags.
func noArgs(fs *flag.FlagSet) error {
	if fs.NArg() > 0 {
		return usagef(fs, "unexpected argument %q (flags go before it? every flag starts with -)", fs.Arg(0))
	}
	return nil
}

// isSet reports whether flag name was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

// choice is a flag.Value accepting one of a fixed set of words.
type choice struct {
	value   string
	allowed []string
}

func newChoice(def string, allowed ...string) *choice { return &choice{value: def, allowed: allowed} }

func (c *choice) String() string {
	if c == nil {
		return ""
	}
	return c.value
}

func (c *choice) Set(v string) error {
	for _, a := range c.allowed {
		if v == a {
			c.value = v
			return nil
		}
	}
	return fmt.Errorf("want one of %s", strings.Join(c.allowed, ", "))
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
func (p *profiler) check(g *files) error {
	if p.cpu != "" {
		if err := g.checkOutput("-cpuprofile", p.cpu); err != nil {
			return err
		}
	}
	if p.mem != "" {
		if err := g.checkOutput("-memprofile", p.mem); err != nil {
			return err
		}
	}
	return nil
}

// start starts the CPU profile into its temporary file.
func (p *profiler) start(g *files) error {
	if p.cpu == "" {
		return nil
	}
	f, err := g.create(p.cpu)
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
func (p *profiler) finish(g *files) error {
	p.stop()
	if p.mem == "" {
		return nil
	}
	f, err := g.create(p.mem)
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
