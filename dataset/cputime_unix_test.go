//go:build unix

package dataset

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time (user and system) the process has used, and
// true; the hostile-input tests bound a load by it, which a loaded machine
// does not stretch as it stretches the wall clock.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
