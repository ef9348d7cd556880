//go:build race

package engine

// raceEnabled: the race detector makes sync.Pool drop a share of what is
// put back, so allocation counts of pooled paths are not meaningful.
const raceEnabled = true
