package engine

import (
	"testing"

	"github.com/grlgq/grlgq/linalg"
)

// TestClaimStaleParticipant replays the interleaving behind the lost
// wake-up: a participant of job 1 loads the exhausted claim word, the caller
// starts job 2 (more chunks) and has stored the new limit but not yet the
// new claim word, and the participant goes on with the word it loaded. Its
// claim must fail; with an untagged limit it took chunk 1 of job 2 under job
// 1's tag, and job 2's remaining count went one too low (the caller returned
// early or parked forever).
func TestClaimStaleParticipant(t *testing.T) {
	s := &shard{}
	s.prepare(1, 1)
	if c, ok := s.claimChunk(1); !ok || c != 0 {
		t.Fatalf("job 1: claim = %d, %v; want 0, true", c, ok)
	}
	stale := s.claim.Load()
	if _, ok := s.claimChunk(1); ok {
		t.Fatal("job 1 has one chunk, claimed two")
	}
	s.limit.Store(2<<32 | 5) // first store of s.prepare(2, 5)
	if c, ok, _ := s.claimFrom(stale, 1); ok {
		t.Fatalf("stale participant of job 1 claimed chunk %d after job 2's limit was stored", c)
	}
	s.claim.Store(2 << 32) // second store of s.prepare(2, 5)
	if c, ok, _ := s.claimFrom(stale, 1); ok {
		t.Fatalf("stale participant of job 1 claimed chunk %d of job 2", c)
	}
	for want := 0; want < 5; want++ {
		if _, ok := s.claimChunk(1); ok {
			t.Fatal("job 1's tag claimed a chunk of job 2")
		}
		if c, ok := s.claimChunk(2); !ok || c != want {
			t.Fatalf("job 2: claim = %d, %v; want %d, true", c, ok, want)
		}
	}
	if _, ok := s.claimChunk(2); ok {
		t.Fatal("job 2 has 5 chunks, claimed 6")
	}
}

// TestSoloCalls: single-sample calls run by the caller alone (after calls
// no worker took part in) give the same bits as published ones, and the
// engine goes back to publishing afterwards.
func TestSoloCalls(t *testing.T) {
	const p = 13
	e, P, x, lambda, want, wantI := soloFixture(t, 8, p)
	got := make([]float64, p)
	e.solo, e.absent = 2*soloCalls+3, 0
	for i := 0; i < 2*soloCalls+3+absentCalls-1; i++ {
		clear(got)
		if i%2 == 0 {
			if err := e.Distances(got, nil, P, lambda); err != nil {
				t.Fatal(err)
			}
			sameBits(t, "solo Distances", got, want)
		} else {
			if err := e.ImageDistances(got, nil, x); err != nil {
				t.Fatal(err)
			}
			sameBits(t, "solo ImageDistances", got, wantI)
		}
	}
	if e.solo != 0 {
		t.Fatalf("solo = %d after the solo calls", e.solo)
	}
	bd := make([]float64, 2*p)
	if err := e.ImageDistancesBatch(bd, append(append([]float64(nil), x...), x...), len(x), 2); err != nil {
		t.Fatal(err)
	}
	sameBits(t, "batch after solo", bd[p:], wantI)
}

// TestSetSolo: with SetSolo(true) single-sample calls give the same bits
// and no worker takes part; batch calls still split; SetSolo(false)
// publishes again.
func TestSetSolo(t *testing.T) {
	const p = 13
	e, P, x, lambda, want, wantI := soloFixture(t, 9, p)
	e.SetSolo(true)
	got := make([]float64, p)
	for i := 0; i < 20; i++ {
		e.helped.Store(0)
		if err := e.Distances(got, nil, P, lambda); err != nil {
			t.Fatal(err)
		}
		sameBits(t, "SetSolo Distances", got, want)
		if err := e.ImageDistances(got, nil, x); err != nil {
			t.Fatal(err)
		}
		sameBits(t, "SetSolo ImageDistances", got, wantI)
		if h := e.helped.Load(); h != 0 {
			t.Fatalf("a worker ran %d chunks of a solo call", h)
		}
	}
	bd := make([]float64, 2*p)
	if err := e.ImageDistancesBatch(bd, append(append([]float64(nil), x...), x...), len(x), 2); err != nil {
		t.Fatal(err)
	}
	sameBits(t, "batch with SetSolo", bd[p:], wantI)
	e.SetSolo(false)
	if err := e.ImageDistances(got, nil, x); err != nil {
		t.Fatal(err)
	}
	sameBits(t, "after SetSolo(false)", got, wantI)
}

// soloFixture returns a 3-worker engine of p prototypes (D = 100, d = 5),
// a set P, an image x, uniform relevances, and the published distances of
// P and x to compare single-sample calls with.
func soloFixture(t *testing.T, seed uint64, p int) (e *Engine, P *linalg.Dense, x, lambda, want, wantI []float64) {
	t.Helper()
	const dim, d = 100, 5
	e = newEngine(t, dim, d, p, 3)
	r := rng(seed)
	P = randomBasis(t, dim, d, r)
	x = make([]float64, dim)
	for i := range x {
		x[i] = r.Float64() + 0.1
	}
	lambda = uniform(d)
	want, wantI = make([]float64, p), make([]float64, p)
	if err := e.Distances(want, nil, P, lambda); err != nil {
		t.Fatal(err)
	}
	if err := e.ImageDistances(wantI, nil, x); err != nil {
		t.Fatal(err)
	}
	return e, P, x, lambda, want, wantI
}
