//go:build unix

package bench

import (
	"syscall"
	"testing"
	"time"
)

// cpuClock measures the process's CPU time (user and system, getrusage)
// from start to report, less what ran between pause and resume, and
// reports it per op as cpu-ns/op.
type cpuClock struct{ t0, paused time.Duration }

func cpuNow() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func (c *cpuClock) start() { c.t0, c.paused = cpuNow(), 0 }

// pause and resume leave out the CPU time between them.
func (c *cpuClock) pause()  { c.paused -= cpuNow() }
func (c *cpuClock) resume() { c.paused += cpuNow() }

func (c *cpuClock) report(b *testing.B) {
	if b.N > 0 && c.t0 > 0 {
		b.ReportMetric(float64(cpuNow()-c.t0-c.paused)/float64(b.N), "cpu-ns/op")
	}
}
