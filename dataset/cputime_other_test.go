//go:build !unix

package dataset

import "time"

// cpuTime is not known here: the tests bound the wall clock instead.
func cpuTime() (time.Duration, bool) { return 0, false }
