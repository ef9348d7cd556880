//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within runs f and fails the test if it takes longer than d: a run that
// blocks on a special file must not hang the tests.
func within(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { f(); close(done) }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s: no answer after %v", what, d)
	}
}

// TestFIFOInputs: a FIFO as -model or as the data is refused at once
// (reading it would block until a writer comes).
func TestFIFOInputs(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	writeCSV(t, data, 2, 12, 4)
	mod := filepath.Join(dir, "m.grlgq")
	ok(t, "train", "-data", "csv:"+data, "-d", "2", "-m", "4", "-epochs", "2", "-o", mod, "-quiet")
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	s := snap(t, data, mod, fifo)
	for _, args := range [][]string{
		{"eval", "-model", fifo, "-data", "csv:" + data},
		{"predict", "-model", fifo, "-data", "csv:" + data},
		{"explain", "-model", fifo, "-data", "csv:" + data, "-o", filepath.Join(dir, "ex")},
		{"eval", "-model", mod, "-data", "csv:" + fifo},
		{"train", "-data", "csv:" + fifo, "-o", filepath.Join(dir, "new")},
		{"train", "-data", "idx:" + fifo + "," + data, "-o", filepath.Join(dir, "new")},
		{"train", "-data", "csv:" + data, "-o", fifo},
	} {
		within(t, 5*time.Second, strings.Join(args, " "), func() {
			fails(t, 1, []string{"not a regular file"}, args...)
		})
	}
	s.check(t)
	noTemps(t, dir)
}

// grlgqBinary builds the command into a temporary folder.
func grlgqBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "grlgq")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// signalRun starts the binary, sends sig once ready(stdout so far) is true
// (polled) or after at most wait, and returns the exit code, the output
// and how long the process took to exit after the signal.
func signalRun(t *testing.T, bin string, sig syscall.Signal, wait time.Duration, ready func() bool, args ...string) (code int, stdout, stderr string, took time.Duration) {
	t.Helper()
	var out, errb bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) && (ready == nil || !ready()) {
		time.Sleep(10 * time.Millisecond)
	}
	t0 := time.Now()
	cmd.Process.Signal(sig)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("%v: still running 10 s after the signal", sig)
	}
	took = time.Since(t0)
	return cmd.ProcessState.ExitCode(), out.String(), errb.String(), took
}

// bigCSV writes n synthetic 8x8 images as CSV: large enough that loading
// takes a while.
func bigCSV(t *testing.T, path string, n int) {
	t.Helper()
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		for j := 0; j < 64; j++ {
			b.WriteString(strconv.Itoa((i*7 + j*13) % 17))
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(i % 3))
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSignals: SIGTERM and SIGINT end the command within 1 s at any stage
// (loading, training), with exit code 1 and the one line "grlgq:
// interrupted"; every file is as it was and no temporary file is left. A
// SIGKILL leaves a temporary file, which the next run names.
func TestSignals(t *testing.T) {
	bin := grlgqBinary(t)
	dir := t.TempDir()
	small := filepath.Join(dir, "small.csv")
	writeCSV(t, small, 2, 12, 4)
	mod := filepath.Join(dir, "m.grlgq")
	ok(t, "train", "-data", "csv:"+small, "-d", "2", "-m", "4", "-epochs", "2", "-o", mod, "-quiet")
	big := filepath.Join(dir, "big.csv")
	bigCSV(t, big, 300000)
	s := snap(t, small, big, mod)
	outs := []string{"-o", mod, "-cpuprofile", filepath.Join(dir, "cpu.prof"), "-memprofile", filepath.Join(dir, "mem.prof"), "-plots", filepath.Join(dir, "plots")}
	// check checks one interrupted run; it reports false when the run
	// took longer than 1 s to end, for the caller to try again: on a
	// loaded machine one slow exit can be the scheduler's doing, three in
	// a row are ours.
	check := func(name string, code int, stdout, stderr string, took time.Duration) bool {
		t.Helper()
		if code != 1 || stderr != "grlgq: interrupted\n" {
			t.Errorf("%s: exit %d after %v, stderr %q; want 1 and \"grlgq: interrupted\"", name, code, took, stderr)
		}
		s.check(t)
		noTemps(t, dir)
		for _, p := range []string{"cpu.prof", "mem.prof", "plots"} {
			if _, err := os.Stat(filepath.Join(dir, p)); err == nil {
				t.Errorf("%s: %s was written", name, p)
			}
		}
		if took > time.Second {
			t.Logf("%s: ended %v after the signal", name, took)
			return false
		}
		return true
	}
	// thrice runs an interrupted run until it ends within 1 s, three times
	// at most.
	thrice := func(name string, f func() bool) {
		t.Helper()
		for try := 0; try < 3; try++ {
			if f() {
				return
			}
		}
		t.Errorf("%s: three runs took more than 1 s to end after the signal", name)
	}
	t.Run("load", func(t *testing.T) {
		args := append([]string{"train", "-data", "csv:" + big, "-image", "8x8", "-d", "2", "-epochs", "1"}, outs...)
		thrice("SIGTERM while loading", func() bool {
			code, stdout, stderr, took := signalRun(t, bin, syscall.SIGTERM, 300*time.Millisecond, nil, args...)
			if strings.Contains(stdout, "data ") {
				t.Logf("the data were loaded before the signal (a fast machine): %q", stdout)
			}
			return check("SIGTERM while loading", code, stdout, stderr, took)
		})
	})
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run("train "+sig.String(), func(t *testing.T) {
			args := append([]string{"train", "-data", "csv:" + small, "-m", "4", "-d", "2", "-epochs", "100000"}, outs...)
			thrice(sig.String()+" while training", func() bool {
				var n int
				code, stdout, stderr, took := signalRun(t, bin, sig, 5*time.Second, func() bool {
					n++
					return n > 30 // 300 ms: well into training
				}, args...)
				return check(sig.String()+" while training", code, stdout, stderr, took)
			})
		})
	}
	t.Run("SIGKILL leftover", func(t *testing.T) {
		prof := filepath.Join(dir, "k.prof")
		args := []string{"train", "-data", "csv:" + small, "-m", "4", "-d", "2", "-epochs", "100000", "-o", filepath.Join(dir, "k.grlgq"), "-cpuprofile", prof, "-quiet"}
		var left []string
		signalRun(t, bin, syscall.SIGKILL, 5*time.Second, func() bool {
			left, _ = filepath.Glob(filepath.Join(dir, ".k.prof.*.grlgq-tmp"))
			return len(left) > 0
		}, args...)
		if len(left) != 1 {
			t.Fatalf("the killed run's CPU profile: temporary files %v, want one", left)
		}
		r := ok(t, "train", "-data", "csv:"+small, "-m", "4", "-d", "2", "-epochs", "1", "-o", filepath.Join(dir, "k2.grlgq"), "-quiet")
		want := fmt.Sprintf("grlgq: warning: leftover temporary file %s from an interrupted run; remove it\n", left[0])
		if r.stderr != want {
			t.Errorf("the next run's stderr %q, want %q", r.stderr, want)
		}
		os.Remove(left[0])
		os.Remove(filepath.Join(dir, "k2.grlgq"))
	})
}

// TestCancelDuringLoad: a cancelled run context (what SIGINT and SIGTERM
// cancel, and what a caller of runContext cancels) ends a command while it
// is still loading, within 1 s, with "grlgq: interrupted" and code 1, and
// every file as it was.
func TestCancelDuringLoad(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.csv")
	bigCSV(t, big, 300000) // about a second to load, unloaded
	mod := filepath.Join(dir, "m.grlgq")
	s := snap(t, big)
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- runContext(ctx, []string{"train", "-data", "csv:" + big, "-image", "8x8", "-d", "2", "-epochs", "1", "-o", mod, "-cpuprofile", filepath.Join(dir, "c.prof")}, &out, &errb)
	}()
	time.Sleep(100 * time.Millisecond)
	cancel()
	start := time.Now()
	select {
	case code := <-done:
		if took := time.Since(start); took > time.Second {
			t.Errorf("ended %v after the cancellation", took)
		}
		if code != 1 || errb.String() != "grlgq: interrupted\n" {
			t.Errorf("exit %d, stderr %q; want 1 and \"grlgq: interrupted\"", code, errb.String())
		}
		if strings.Contains(out.String(), "data ") {
			t.Logf("the data were loaded before the cancellation (a fast machine): %q", out.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("still running 10 s after the cancellation")
	}
	s.check(t)
	noTemps(t, dir)
	for _, p := range []string{mod, filepath.Join(dir, "c.prof")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was written", p)
		}
	}
}
