//go:build unix

package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestEdgeSpecialFiles: a FIFO as the model, as the folder or among the
// images is refused at once instead of blocking.
func TestEdgeSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	makeFixture(t, dir)
	mp := filepath.Join(dir, "model.grlgq")
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "set", "zz.png"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"-model", fifo, "-"},
		{"-model", "/dev/null", "-"},
		{"-model", mp, fifo},
		{"-model", mp, filepath.Join(dir, "set")},
	} {
		done := make(chan struct{})
		var stderr string
		var code int
		go func() { _, stderr, code = runEdge(t, nil, args...); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("%v: blocked", args)
		}
		if code != 1 || !strings.Contains(stderr, "not a") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 1 and one line", args, code, stderr)
		}
	}
}

// TestEdgeSignal: SIGTERM while the binary waits for stdin ends it within
// 1 s with "grlgq-edge: interrupted" and exit code 1.
func TestEdgeSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	makeFixture(t, dir)
	bin := filepath.Join(dir, "grlgq-edge")
	slow := map[syscall.Signal]bool{}
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	// One run for each signal; a run slower than 1 s is tried again, up
	// to three times: on a loaded machine one slow exit can be the
	// scheduler's doing, three in a row are ours.
	for i, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGTERM, syscall.SIGINT, syscall.SIGTERM, syscall.SIGINT} {
		if i >= 2 && !slow[sig] {
			continue
		}
		cmd := exec.Command(bin, "-model", filepath.Join(dir, "model.grlgq"), "-")
		stdin, err := cmd.StdinPipe() // never written, never closed: a read blocks
		if err != nil {
			t.Fatal(err)
		}
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		stdin.Write([]byte("0.5 ")) // part of a line: the reader waits for more
		time.Sleep(300 * time.Millisecond)
		t0 := time.Now()
		cmd.Process.Signal(sig)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			t.Fatalf("%v: still running", sig)
		}
		took := time.Since(t0)
		stdin.Close()
		if code := cmd.ProcessState.ExitCode(); code != 1 || errb.String() != "grlgq-edge: interrupted\n" {
			t.Errorf("%v: exit %d after %v, stderr %q", sig, code, took, errb.String())
		}
		slow[sig] = took > time.Second
		if slow[sig] {
			t.Logf("%v: ended %v after the signal", sig, took)
		}
	}
	for sig, s := range slow {
		if s {
			t.Errorf("%v: three runs took more than 1 s to end after the signal", sig)
		}
	}
}
