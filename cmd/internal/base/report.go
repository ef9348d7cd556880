package base

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
)

// Exit codes of both binaries.
const (
	ExitOK    = 0
	ExitFail  = 1
	ExitUsage = 2
)

// Report prints how a command ended and returns its exit code, the one
// error format of both binaries: nothing and ExitOK for a nil err or
// ErrHelp; for a *UsageError two lines, "PROG: CMD: MSG" and "run 'HELP'"
// (the way cmd/go answers a typo: what is wrong, and where the full usage
// is; the second line left out when help is ""), and ExitUsage; for any
// other error the line "PROG: CMD: MSG" (Hint applied, a leading "PROG: "
// of MSG not repeated) and ExitFail. MSG is folded onto one line; "CMD: "
// is left out when cmd is "" (grlgq-edge has no commands).
func Report(w io.Writer, prog, cmd string, err error, help string) int {
	if err == nil || errors.Is(err, ErrHelp) {
		return ExitOK
	}
	head := prog + ": "
	if cmd != "" {
		head += cmd + ": "
	}
	var u *UsageError
	if errors.As(err, &u) {
		fmt.Fprintf(w, "%s%s\n", head, OneLine(u.Msg))
		if help != "" {
			fmt.Fprintf(w, "run '%s'\n", help)
		}
		return ExitUsage
	}
	fmt.Fprintf(w, "%s%s\n", head, strings.TrimPrefix(OneLine(Hint(err).Error()), prog+": "))
	return ExitFail
}

// HandleSignals ends the process on SIGINT or SIGTERM at any stage, even
// while the work is blocked in a system call: it runs the functions
// registered with AtInterrupt (a checkpoint to save), calls cleanup (if
// non-nil), clears a progress bar on a terminal stderr, prints "PROG:
// interrupted" and exits with ExitFail, without waiting for the work to
// notice. It does not cancel any context: the work would then report
// "interrupted" too, a second line racing with this one.
func HandleSignals(prog string, stderr io.Writer, cleanup func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ch
		runInterruptHooks()
		if cleanup != nil {
			cleanup()
		}
		ClearLine(stderr) // over a progress bar
		fmt.Fprintf(stderr, "%s: interrupted\n", prog)
		os.Exit(ExitFail)
	}()
}

// interruptHooks are the functions AtInterrupt registered.
var interruptHooks struct {
	sync.Mutex
	next int
	f    map[int]func()
}

// AtInterrupt registers f to run when HandleSignals ends the process,
// before its cleanup (so f may still write files: train's checkpoint),
// and returns the function that unregisters it. Hooks run one after the
// other, in the order they were registered.
func AtInterrupt(f func()) (remove func()) {
	h := &interruptHooks
	h.Lock()
	defer h.Unlock()
	if h.f == nil {
		h.f = map[int]func(){}
	}
	id := h.next
	h.next++
	h.f[id] = f
	return func() {
		h.Lock()
		delete(h.f, id)
		h.Unlock()
	}
}

func runInterruptHooks() {
	h := &interruptHooks
	h.Lock()
	ids := make([]int, 0, len(h.f))
	for id := range h.f {
		ids = append(ids, id)
	}
	fs := make([]func(), 0, len(ids))
	slices.Sort(ids)
	for _, id := range ids {
		fs = append(fs, h.f[id])
	}
	h.Unlock()
	for _, f := range fs {
		f()
	}
}

// ClearLine erases the current line of w when w is a terminal (a progress
// bar there), so that a message can follow.
func ClearLine(w io.Writer) {
	if f, ok := w.(*os.File); ok && IsTerminal(f.Fd()) {
		fmt.Fprint(w, "\r\033[K")
	}
}
