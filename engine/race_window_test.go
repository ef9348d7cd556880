package engine

import (
	"testing"
	"time"
)

// TestRaceWindows: the adaptive splitting's choice of mode, fed the time
// per call of each window by a model machine: the faster mode gets almost
// every window (its holds double, the other mode's probes are rare), and
// when the machine changes (a busy loop starts or stops) the engine
// follows within a few holds.
func TestRaceWindows(t *testing.T) {
	run := func(r *race, windows int, split, solo time.Duration) (nSolo int) {
		for range windows {
			per := split
			if r.solo {
				per, nSolo = solo, nSolo+1
			}
			r.window(per)
		}
		return nSolo
	}
	var r race
	if n := run(&r, 1000, 100*time.Microsecond, 140*time.Microsecond); n > 40 {
		t.Errorf("quiet machine (split faster): %d of 1000 windows solo", n)
	}
	if r.hold != raceHoldMax {
		t.Errorf("hold %d after 1000 windows of split winning, want %d", r.hold, raceHoldMax)
	}
	// A busy loop starts: solo is faster now.
	if n := run(&r, 1000, 200*time.Microsecond, 120*time.Microsecond); n < 900 {
		t.Errorf("busy machine (solo faster): %d of 1000 windows solo", n)
	}
	// It stops again.
	if n := run(&r, 1000, 100*time.Microsecond, 140*time.Microsecond); n > 100 {
		t.Errorf("quiet again: %d of 1000 windows solo", n)
	}
	// Level modes (split 3% faster, within the margin): solo keeps the
	// other core free, from either mode.
	for _, start := range []bool{false, true} {
		r := race{solo: start}
		if n := run(&r, 1000, 97*time.Microsecond, 100*time.Microsecond); n < 900 {
			t.Errorf("level modes, starting solo=%v: %d of 1000 windows solo", start, n)
		}
	}
	// Split clearly faster (10%): split.
	r = race{solo: true}
	if n := run(&r, 1000, 90*time.Microsecond, 100*time.Microsecond); n > 100 {
		t.Errorf("split 10%% faster: %d of 1000 windows solo", n)
	}
}
