//go:build !unix

package bench

import "testing"

// cpuClock reports nothing where getrusage is not available.
type cpuClock struct{}

func (c *cpuClock) start()            {}
func (c *cpuClock) pause()            {}
func (c *cpuClock) resume()           {}
func (c *cpuClock) report(*testing.B) {}
