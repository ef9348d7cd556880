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

// TestRaceProbeLost: a probe ends early only when it is clearly losing
// (half as long again per call as the hold's windows), and never without
// a reference.
func TestRaceProbeLost(t *testing.T) {
	us := time.Microsecond
	r := race{probe: true, ref: [2]time.Duration{100 * us, 120 * us}}
	for _, c := range []struct {
		per  time.Duration
		want bool
	}{{100 * us, false}, {160 * us, false}, {165 * us, false}, {166 * us, true}, {400 * us, true}} {
		if got := r.lost(c.per); got != c.want {
			t.Errorf("ref 100, 120 us: lost(%v) = %v, want %v", c.per, got, c.want)
		}
	}
	r.ref = [2]time.Duration{100 * us, 0}
	if !r.lost(151*us) || r.lost(150*us) {
		t.Errorf("one reference window of 100 us: the bound is not 150 us")
	}
	r.ref = [2]time.Duration{}
	if r.lost(time.Second) {
		t.Errorf("no reference: a probe lost")
	}
}

// TestRaceProbeCost runs the call-to-call race on a model machine where
// splitting takes twice as long per call as solo (a busy loop on the
// other core) for a short training (0.7 s, about a benchmark's 8 epochs)
// and a long one (20 s): the calls made in the losing mode cost at most
// 1% more time than solo throughout, because a losing probe ends after a
// quarter window. It starts solo, as a training engine does.
func TestRaceProbeCost(t *testing.T) {
	const solo, split = 150 * time.Microsecond, 300 * time.Microsecond
	for _, total := range []time.Duration{700 * time.Millisecond, 20 * time.Second} {
		r := race{solo: true}
		now := time.Unix(0, 0)
		var spent, soloTime time.Duration
		for spent < total {
			per := split
			if r.solo {
				per = solo
			}
			r.tick(now)
			now = now.Add(per)
			spent += per
			soloTime += solo
		}
		if excess := float64(spent-soloTime) / float64(soloTime); excess > 0.01 {
			t.Errorf("%v of calls: splitting's probes cost %.1f%% over solo, want <= 1%%", total, 100*excess)
		}
	}
}

// TestRaceWarmUp: a probe of splitting after a solo hold starts with a
// warm-up: its calls count in no window until a worker takes part
// (warmed), then the probe's window runs as any; a warm-up of a quarter
// window loses the probe (solo again, the hold quadrupled). A probe of
// solo, and a Crew's race, have none.
func TestRaceWarmUp(t *testing.T) {
	us := time.Microsecond
	t0 := time.Unix(1000, 0)
	start := func() race {
		r := race{solo: true, hold: raceHoldMin, left: 1}
		r.window(100 * us) // the hold's last window: a probe of splitting
		if r.solo || !r.probe || !r.warm {
			t.Fatalf("after the hold: solo %v probe %v warm %v, want a warm probe of splitting", r.solo, r.probe, r.warm)
		}
		return r
	}

	r := start()
	for i := range 5 {
		if !r.warming(t0.Add(time.Duration(i) * 100 * us)) {
			t.Fatalf("call %d of the warm-up counted", i)
		}
	}
	r.warmed()
	if r.warm || r.calls != 0 || !r.probe || r.solo {
		t.Fatalf("warmed: warm %v calls %d probe %v solo %v", r.warm, r.calls, r.probe, r.solo)
	}
	if r.warming(t0.Add(time.Millisecond)) {
		t.Fatal("a call after the warm-up did not count")
	}

	r = start()
	r.warming(t0)
	if !r.warming(t0.Add(raceMinWindow/4 + us)) {
		t.Fatal("the call ending the warm-up counted")
	}
	if r.warm || r.probe || !r.solo || r.hold != 4*raceHoldMin || r.left != r.hold {
		t.Fatalf("a warm-up of a quarter window: warm %v probe %v solo %v hold %d left %d, want a lost probe (solo, hold %d)", r.warm, r.probe, r.solo, r.hold, r.left, 4*raceHoldMin)
	}

	// A probe of solo, and a Crew's, start without a warm-up.
	r = race{solo: false, hold: raceHoldMin, left: 1}
	r.window(100 * us)
	if !r.solo || !r.probe || r.warm {
		t.Fatalf("probe of solo: solo %v probe %v warm %v", r.solo, r.probe, r.warm)
	}
	r = race{solo: true, inCall: true, hold: raceHoldMin, left: 1}
	r.window(100 * us)
	if r.warm {
		t.Fatal("a Crew's probe of splitting has a warm-up")
	}
}
