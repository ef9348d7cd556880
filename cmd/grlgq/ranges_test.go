package main

import (
	"flag"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/grlgq/grlgq/dataset"
	"github.com/grlgq/grlgq/model"
)

// helpFlags parses "grlgq help CMD": flag name -> (type, description).
func helpFlags(t *testing.T, cmd string) map[string][2]string {
	t.Helper()
	r := ok(t, "help", cmd)
	out := map[string][2]string{}
	lines := strings.Split(r.stdout, "\n")
	head := regexp.MustCompile(`^  -([a-z0-9-]+)(?: (\S+))?$`)
	for i, l := range lines {
		m := head.FindStringSubmatch(l)
		if m == nil || i+1 >= len(lines) {
			continue
		}
		out[m[1]] = [2]string{m[2], lines[i+1]}
	}
	if len(out) == 0 {
		t.Fatalf("help %s lists no flags:\n%s", cmd, r.stdout)
	}
	return out
}

var (
	intRange   = regexp.MustCompile(`range (-?\d+) to (-?\d+)`)
	floatRange = regexp.MustCompile(`range ([\[(])(\S+), (\S+)([\])])`)
)

// TestFlagRanges: every numeric flag of every command states its range in
// the help, and a value just outside it (or NaN) is a usage error, exit 2,
// whose message gives the range, before any work (no -data needed).
func TestFlagRanges(t *testing.T) {
	for _, c := range commands {
		flags := helpFlags(t, c.name)
		for name, f := range flags {
			typ, desc := f[0], f[1]
			switch typ {
			case "int", "float", "uint", "HxW":
			default:
				continue
			}
			if !strings.Contains(desc, "range ") && !strings.Contains(desc, "each side") {
				t.Errorf("%s -%s: no range in the help: %s", c.name, name, desc)
				continue
			}
			var bad []string
			var want string
			if m := intRange.FindStringSubmatch(desc); m != nil && typ == "int" {
				lo, _ := strconv.Atoi(m[1])
				hi, _ := strconv.Atoi(m[2])
				bad = []string{strconv.Itoa(lo - 1), strconv.Itoa(hi + 1), "1e3", "x"}
				want = m[1] + " to " + m[2]
			} else if m := floatRange.FindStringSubmatch(desc); m != nil && typ == "float" {
				lo, _ := strconv.ParseFloat(m[2], 64)
				hi, _ := strconv.ParseFloat(m[3], 64)
				bad = []string{"NaN", "Inf", "-Inf", fmt.Sprint(lo - 1), fmt.Sprint(hi*2 + 1)}
				if m[1] == "(" {
					bad = append(bad, m[2])
				}
				if m[4] == ")" {
					bad = append(bad, m[3])
				}
				want = m[1] + m[2] + ", " + m[3] + m[4]
			} else if typ == "uint" && strings.Contains(desc, "range 0 to 2^64-1") {
				// -seed: any uint64; a negative, too large or non-numeric
				// one is refused with the range, not "parse error".
				bad = []string{"-1", "18446744073709551616", "x"}
				want = "want an integer from 0 to 2^64-1"
			} else {
				continue // sizes: TestFlagRangesIssue
			}
			for _, v := range bad {
				fails(t, 2, []string{"-" + name, want}, c.name, "-"+name, v)
			}
		}
	}
}

// TestFlagRangesIssue: the cases of the issue, one by one: no value is
// silently replaced, every refusal is a usage error naming the range.
func TestFlagRangesIssue(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	writeCSV(t, data, 2, 12, 4)
	out := filepath.Join(dir, "m.grlgq")
	train := func(args ...string) []string {
		return append([]string{"train", "-data", "csv:" + data, "-m", "4", "-d", "2", "-epochs", "2", "-o", out, "-quiet"}, args...)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{train("-d", "0"), "1 to 64"},
		{train("-temperature", "0"), "(0, 1e+06]"},
		{train("-tau", "0"), "(0, 1e+09]"},
		{train("-step-every", "0"), "1 to 100000"},
		{[]string{"repro", "eth80", "-dir", dir, "-runs", "0"}, "1 to 1000"},
		{train("-floor", "-5"), "[0, 1)"},
		{train("-workers", "1025"), "1 to 1024"},
		{train("-npy-tol", "NaN"), "(0, 1]"},
		{train("-npy-tol", "-1"), "(0, 1]"},
		{train("-groupings", "1000000000"), "1 to 100"},
		{train("-hard-copies", "1000000000"), "0 to 100"},
		{train("-epochs", "2147483647"), "1 to 100000"},
		{train("-resize", "2048x2048"), "limit is 1048576"},
		{train("-width", "2048", "-height", "2048"), "limit is 1048576"},
		{[]string{"eval", "-model", out, "-data", "csv:" + data, "-resize", "2048x2048"}, "limit is 1048576"},
	} {
		fails(t, 2, []string{c.want}, c.args...)
	}
	// Checked before the data are read: a missing data file is not reached.
	fails(t, 2, []string{"limit is 1048576"}, "train", "-data", "csv:"+filepath.Join(dir, "missing"), "-o", out, "-resize", "2048x2048")
	// Values in range are used as given: -workers 1000 runs; -floor 0
	// and -noise 0 mean none, not the default.
	ok(t, train("-workers", "1000")...)
	ok(t, train("-floor", "0", "-noise", "0", "-tau", "0.5", "-schedule", "anneal", "-temperature", "1e-3")...)
	ok(t, "eval", "-model", out, "-data", "csv:"+data, "-workers", "1000")
}

// TestCheckSizes: -groupings, -hard-copies and -protos multiplied by the
// data's size stay within the limits (MNIST-sized data here, with
// -max-values raised so that only the flags' own limits apply).
func TestCheckSizes(t *testing.T) {
	ds := &dataset.Dataset{Images: make([][]float64, 60000), Dim: 784, Classes: make([]string, 10)}
	cfg := model.Options{Model: model.Config{SubspaceDim: 12, PrototypesPerClass: 1}}
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	for _, c := range []struct {
		groups, copies, protos int
		want                   string
	}{
		{1, 0, 1, ""},
		{1, 8, 1, ""},               // the MNIST protocol
		{10, 0, 1, ""},              // 10 groupings of 48: 12,600 sets, 1 GB of bases
		{40, 0, 1, "-groupings 40"}, // 5 GB
		{1000, 0, 1, "-groupings 1000"},
		{1, 1000, 1, "-hard-copies 1000"},
		{1, 0, 6000, "lower -protos"}, // 60,000 prototypes of 784 x 16: 6 GB
	} {
		cfg.Model.PrototypesPerClass = c.protos
		err := checkSizes(fs, ds, cfg, 48, c.groups, c.copies, 0, false, dataset.Limits{TotalValues: 1 << 32})
		if (c.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), c.want)) {
			t.Errorf("groupings %d, copies %d, protos %d: %v, want %q", c.groups, c.copies, c.protos, err, c.want)
		}
	}
}

// TestCheckSizesMemory: under the default -max-values, what training
// holds is bounded: the MNIST protocol's one grouping passes, ten
// groupings (1 GB of bases), three in float32 (their float32 copy on top)
// and a few tiny images resized to a large D
// (prototypes and conversion workspace of D = 2^20) are refused, naming
// -max-values.
func TestCheckSizesMemory(t *testing.T) {
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	mnist := &dataset.Dataset{Images: make([][]float64, 60000), Dim: 784, Classes: make([]string, 10)}
	cfg := model.Options{Model: model.Config{SubspaceDim: 12, PrototypesPerClass: 1}, Train: model.TrainConfig{Workers: 2}}
	if err := checkSizes(fs, mnist, cfg, 48, 1, 8, 0, false, dataset.Limits{}); err != nil {
		t.Errorf("the MNIST protocol's sizes: %v", err)
	}
	if err := checkSizes(fs, mnist, cfg, 48, 10, 0, 0, false, dataset.Limits{}); err == nil || !strings.Contains(err.Error(), "-max-values") {
		t.Errorf("10 groupings of MNIST under the default -max-values: %v, want a -max-values error", err)
	}
	// Three groupings fit in float64; in float32 the bases' float32 copy
	// (half a value each) takes them over.
	if err := checkSizes(fs, mnist, cfg, 48, 3, 0, 0, false, dataset.Limits{}); err != nil {
		t.Errorf("3 groupings of MNIST: %v", err)
	}
	cfg32 := cfg
	cfg32.Model.Precision = model.Float32
	if err := checkSizes(fs, mnist, cfg32, 48, 3, 0, 0, false, dataset.Limits{}); err == nil || !strings.Contains(err.Error(), "-max-values") {
		t.Errorf("3 groupings of MNIST in float32: %v, want a -max-values error", err)
	}
	tiny := &dataset.Dataset{Images: make([][]float64, 40), Dim: 1 << 20, Classes: make([]string, 2)}
	cfg = model.Options{Model: model.Config{SubspaceDim: 2, PrototypesPerClass: 1}, Train: model.TrainConfig{Workers: 2}}
	if err := checkSizes(fs, tiny, cfg, 10, 1, 0, 0, false, dataset.Limits{}); err == nil || !strings.Contains(err.Error(), "working memory") {
		t.Errorf("40 images resized to 1024x1024: %v, want a working-memory error", err)
	}
	tiny.Dim = 1 << 16
	if err := checkSizes(fs, tiny, cfg, 10, 1, 0, 0, false, dataset.Limits{}); err != nil {
		t.Errorf("40 images of 256x256: %v", err)
	}
}

// TestCheckSizesProtos: when -protos asks for more prototypes than the
// working memory admits, the message names the prototypes first, their
// count and the limit (the most that fit: that many pass, one more does
// not), then the memory; without -protos (one per class) it names the
// memory alone, as there is no count to lower.
func TestCheckSizesProtos(t *testing.T) {
	ds := &dataset.Dataset{Images: make([][]float64, 1797), Dim: 64, Classes: make([]string, 10)}
	cfg := model.Options{Model: model.Config{SubspaceDim: 5, PrototypesPerClass: 6000}, Train: model.TrainConfig{Workers: 2}}
	fs := flag.NewFlagSet("train", flag.ContinueOnError)
	fs.String("protos", "1", "")
	if err := fs.Parse([]string{"-protos", "6000"}); err != nil {
		t.Fatal(err)
	}
	lim := dataset.Limits{}
	err := checkSizes(fs, ds, cfg, 10, 1, 0, 0, false, lim)
	m := regexp.MustCompile(`^-protos for 10 classes: 60000 prototypes, the limit is (\d+) at D=64, d=5: they need about \d+ values of working memory, over the limit of \d+, half of -max-values \(lower -protos`).FindStringSubmatch(fmt.Sprint(err))
	if m == nil {
		t.Fatalf("-protos 6000: %v, want the prototypes and their limit first", err)
	}
	fit, _ := strconv.Atoi(m[1])
	cfg.Model.PrototypesPerClass = 1
	cfg.Model.PrototypesOfClass = make([]int, 10)
	for c := range cfg.Model.PrototypesOfClass {
		cfg.Model.PrototypesOfClass[c] = fit / 10
	}
	cfg.Model.PrototypesOfClass[0] += fit % 10
	if err := checkSizes(fs, ds, cfg, 10, 1, 0, 0, false, lim); err != nil {
		t.Errorf("%d prototypes, the limit: %v", fit, err)
	}
	cfg.Model.PrototypesOfClass[0]++
	if err := checkSizes(fs, ds, cfg, 10, 1, 0, 0, false, lim); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%d prototypes, the limit is %d", fit+1, fit)) {
		t.Errorf("%d prototypes, one over the limit: %v", fit+1, err)
	}
	// -protos not given: one prototype per class, nothing to lower.
	big := &dataset.Dataset{Images: make([][]float64, 40), Dim: 1 << 20, Classes: make([]string, 2)}
	cfg = model.Options{Model: model.Config{SubspaceDim: 2, PrototypesPerClass: 1}, Train: model.TrainConfig{Workers: 2}}
	if err := checkSizes(flag.NewFlagSet("train", flag.ContinueOnError), big, cfg, 10, 1, 0, 0, false, lim); err == nil || !strings.HasPrefix(err.Error(), "training at D=1048576") {
		t.Errorf("1 prototype per class at D=2^20: %v, want the working memory alone", err)
	}
	// The command: a usage error, as before.
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	writeCSV(t, data, 2, 12, 4)
	fails(t, 2, []string{"-protos for 2 classes: 12000 prototypes, the limit is ", "lower -protos"},
		"train", "-data", "csv:"+data, "-m", "4", "-d", "2", "-protos", "6000", "-max-values", "1000000", "-o", filepath.Join(dir, "m.grlgq"))
}
