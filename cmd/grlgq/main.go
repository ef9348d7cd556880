package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/grlgq/grlgq/internal/safefile"
)

func main() {
	handleSignals(os.Stderr)
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// handleSignals ends the process on SIGINT or SIGTERM at any stage
// (loading, converting, training, saving), even when the work is blocked
// in a system call: it removes every temporary file of the run (waiting
// for a commit of the outputs in progress to finish, so each output is
// either replaced or untouched), prints one line and exits with code 1
// without waiting for the work to notice. It does not cancel the run's
// context: the work would then report "interrupted" too, a second line
// racing with this one. A caller of runContext (tests, a program
// embedding the commands) cancels the context instead: every loader, the
// training and the predictions check it, and the command ends within
// about a second with the same line and code.
func handleSignals(stderr io.Writer) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ch
		safefile.Abandon()
		if f, ok := stderr.(*os.File); ok && isTerminal(f.Fd()) {
			fmt.Fprint(stderr, "\r\033[K") // over a progress bar
		}
		fmt.Fprintln(stderr, "grlgq: interrupted")
		os.Exit(1)
	}()
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
		{"inspect", "MODEL [-json]", "what a model file is: shapes, classes, prototypes, relevances, settings, file version", runInspect},
		{"repro", "mnist|yale|eth80 -dir DATA [-runs N] [-json]", "reproduce an experiment of the paper, beside a class-PCA baseline", runRepro},
	}
}

// env is what a subcommand writes to.
type env struct {
	stdout, stderr io.Writer
	files          *files // the run's inputs and outputs
}

// guard returns the run's file guard, reporting usage errors with fs.
func (e *env) guard(fs *flag.FlagSet) *files {
	if e.files == nil {
		e.files = &files{stderr: e.stderr}
	}
	e.files.fs = fs
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
	e := &env{stdout: stdout, stderr: stderr, files: &files{stderr: stderr}}
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
	// Whatever way the command ends, outputs it did not commit are removed
	// (before the panic handler above reports).
	defer e.files.abort()
	err := c.run(ctx, e, args[1:])
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
