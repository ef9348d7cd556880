// Command grlgq trains, evaluates and explains GRLGQ models (Generalized
// Relevance Learning Grassmann Quantization: image sets become subspaces,
// classified by labelled prototype subspaces with learned relevances of the
// principal angles).
//
// Usage:
//
//	grlgq demo    [-json]                        train and test on the embedded UCI digits
//	grlgq train   -data SPEC -o MODEL [flags]    train a model
//	grlgq train   -tune -data SPEC -o MODEL      choose the settings by cross-validation, then train
//	grlgq cv      -data SPEC [-folds K] [flags]  k-fold cross-validation accuracy of a configuration
//	grlgq eval    -model MODEL -data SPEC        accuracy, per-class accuracy, confusion matrix
//	grlgq predict -model MODEL -data SPEC        label, margin and distances per sample
//	grlgq explain -model MODEL -data SPEC -o DIR pictures and JSON explaining decisions
//	grlgq repro   mnist|yale|eth80 -dir DATA     the paper's experiments
//
// SPEC is idx:IMAGES,LABELS, folder:DIR, mat:FILE, npy:DATA,LABELS or
// csv:FILE. Run "grlgq help COMMAND" for a command's flags.
//
// Errors are printed to stderr as one line "grlgq: WHAT: WHY" with exit
// code 1; bad usage prints the command's usage with exit code 2. A failed
// run never replaces a file the user had: models and pictures are written
// to a temporary file and renamed into place only once complete.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

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
		{"cv", "-data SPEC [-folds K] [train flags] [-json]", "k-fold cross-validation accuracy (mean, sd, per fold) of a training configuration", runCV},
		{"eval", "-model MODEL -data SPEC [-json]", "accuracy, per-class accuracy and confusion matrix", runEval},
		{"predict", "-model MODEL -data SPEC [-json]", "label, margin and distances of every sample", runPredict},
		{"explain", "-model MODEL -data SPEC -o DIR [-n N]", "pictures and JSON that explain the model's decisions", runExplain},
		{"repro", "mnist|yale|eth80 -dir DATA [-runs N] [-json]", "reproduce an experiment of the paper, beside a class-PCA baseline", runRepro},
	}
}

// env is what a subcommand writes to.
type env struct {
	stdout, stderr io.Writer
}

// run is the whole program: it parses args (without the program name),
// runs the subcommand and returns the exit code: 0 success, 1 failure
// (one line on stderr), 2 bad usage.
func run(args []string, stdout, stderr io.Writer) (code int) {
	e := &env{stdout: stdout, stderr: stderr}
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
				return run([]string{c.name, "-h"}, stdout, stderr)
			}
			fmt.Fprintf(stderr, "grlgq: help: unknown command %q\n", args[1])
			mainUsage(stderr)
			return 2
		}
		mainUsage(stdout)
		return 0
	}
	c := lookup(name)
	if c == nil {
		fmt.Fprintf(stderr, "grlgq: unknown command %q\n", name)
		mainUsage(stderr)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := c.run(ctx, e, args[1:])
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

func mainUsage(w io.Writer) {
	fmt.Fprintf(w, "grlgq: GRLGQ (Generalized Relevance Learning Grassmann Quantization) for image sets\n\nUsage:\n\n")
	for _, c := range commands {
		fmt.Fprintf(w, "  grlgq %-8s %s\n      %s\n", c.name, c.args, c.summary)
	}
	fmt.Fprintf(w, "\nData: -data %s\nRun \"grlgq help COMMAND\" for the flags of a command. Start with \"grlgq demo\".\n", specHelp)
}

// oneLine folds a message onto one line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	s = strings.ReplaceAll(s, "\r", "")
	return strings.ReplaceAll(s, "\n", "; ")
}
