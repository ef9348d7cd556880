package base

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
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
// while the work is blocked in a system call: it calls cleanup (if
// non-nil), clears a progress bar on a terminal stderr, prints "PROG:
// interrupted" and exits with ExitFail, without waiting for the work to
// notice. It does not cancel any context: the work would then report
// "interrupted" too, a second line racing with this one.
func HandleSignals(prog string, stderr io.Writer, cleanup func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ch
		if cleanup != nil {
			cleanup()
		}
		if f, ok := stderr.(*os.File); ok && IsTerminal(f.Fd()) {
			fmt.Fprint(stderr, "\r\033[K") // over a progress bar
		}
		fmt.Fprintf(stderr, "%s: interrupted\n", prog)
		os.Exit(ExitFail)
	}()
}
