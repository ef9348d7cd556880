//go:build linux || darwin

package model

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

// cpuTime returns the process's user plus system CPU time.
func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestIdleUsesNoCPU: after a burst of concurrent predictions (single and
// batch) a model that is not called costs no CPU: no goroutine is left
// but the parked workers of its crew (one fewer than the cores), and the
// process's CPU time over one idle second stays near zero (a worker left
// spinning would burn the whole second). Measured on the 2-core build
// machine: 0.1-1 ms per idle second. When the model is dropped, the
// crew's goroutines exit too (the server's cleanup closes it).
func TestIdleUsesNoCPU(t *testing.T) {
	if testing.Short() {
		t.Skip("takes over a second")
	}
	m := mnistShapedModel(t)
	before := runtime.NumGoroutine()
	predictBurst(t, m, 300*time.Millisecond)
	time.Sleep(20 * time.Millisecond) // let the burst's last goroutines exit
	crew := 0
	if s := m.srv.Load(); s != nil && s.crew != nil {
		crew = s.crew.Workers() - 1
	}
	if n := runtime.NumGoroutine(); n > before+crew {
		t.Errorf("%d goroutines before the burst, %d after (crew: %d)", before, n, crew)
	}
	c0, w0 := cpuTime(t), time.Now()
	time.Sleep(time.Second)
	used, wall := cpuTime(t)-c0, time.Since(w0)
	t.Logf("CPU time over %v idle after a burst: %v (%.2f%% of one core)", wall.Round(time.Millisecond), used, 100*used.Seconds()/wall.Seconds())
	if used > 50*time.Millisecond {
		t.Errorf("idle model used %v of CPU in %v", used, wall)
	}
}

// TestCrewCollected: a model whose predictions started a crew leaves no
// goroutine behind once it is unreachable, and nothing to close.
func TestCrewCollected(t *testing.T) {
	before := runtime.NumGoroutine()
	func() {
		m := mnistShapedModel(t)
		predictBurst(t, m, 50*time.Millisecond)
		if s := m.srv.Load(); runtime.GOMAXPROCS(0) > 1 && (s == nil || s.crew == nil) {
			t.Fatal("no crew on a multi-core machine")
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines before the model, %d 10 s after it was dropped", before, runtime.NumGoroutine())
		}
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
	}
}
