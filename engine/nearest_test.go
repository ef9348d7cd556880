package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/grlgq/grlgq/linalg"
)

// exhaustiveNearest scans dist for the nearest prototype and the nearest
// of another label.
func exhaustiveNearest(dist []float64, labels []int) Nearest {
	r := Nearest{First: -1, Second: -1, DFirst: math.Inf(1), DSecond: math.Inf(1)}
	for k, dk := range dist {
		if r.First < 0 || dk < r.DFirst {
			r.First, r.DFirst = k, dk
		}
	}
	for k, dk := range dist {
		if labels[k] != labels[r.First] && (r.Second < 0 || dk < r.DSecond) {
			r.Second, r.DSecond = k, dk
		}
	}
	return r
}

// checkNearest compares Nearest with a scan of Distances, bit for bit.
func checkNearest(t *testing.T, name string, e *Engine, P *linalg.Dense, lambda []float64, labels []int) {
	t.Helper()
	dist := make([]float64, e.p)
	if err := e.Distances(dist, nil, P, lambda); err != nil {
		t.Fatal(err)
	}
	want := exhaustiveNearest(dist, labels)
	for _, second := range []bool{false, true} {
		var r Nearest
		if err := e.Nearest(&r, P, lambda, labels, second); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		w := want
		if !second {
			w.Second, w.DSecond = -1, math.Inf(1)
		}
		if r.First != w.First || r.Second != w.Second || math.Float64bits(r.DFirst) != math.Float64bits(w.DFirst) || math.Float64bits(r.DSecond) != math.Float64bits(w.DSecond) {
			t.Errorf("%s (second %v): %+v, scan %+v", name, second, r, w)
		}
	}
}

// TestNearestExhaustive checks Nearest against a scan of Distances on the
// search cases (few prototypes: no pivots), every label layout, 1 and 2
// workers.
func TestNearestExhaustive(t *testing.T) {
	r := rng(50)
	for _, sh := range [][3]int{{40, 1, 6}, {60, 3, 12}, {200, 5, 16}, {300, 12, 20}} {
		dim, d, p := sh[0], sh[1], sh[2]
		for _, c := range searchCases(t, dim, d, p, r) {
			for _, workers := range []int{1, 2} {
				e, err := New(dim, d, p, workers)
				if err != nil {
					t.Fatal(err)
				}
				for k, w := range c.protos {
					if err := e.SetPrototype(k, w); err != nil {
						t.Fatal(err)
					}
				}
				for _, per := range []int{1, 2, 3, p} {
					labels := make([]int, p)
					for k := range labels {
						labels[k] = k / per
					}
					for lname, lambda := range relevanceCases(d, p, r) {
						checkNearest(t, fmt.Sprintf("D=%d,d=%d,p=%d/%s/w%d/per%d/%s", dim, d, p, c.name, workers, per, lname), e, c.P, lambda, labels)
					}
				}
				e.Close()
			}
		}
	}
}

// clustered returns p prototypes around `classes` random centres (label
// k % classes), each the span of C + spread·G, and queries around the
// centres, between them, and at random.
func clustered(t testing.TB, dim, d, p, classes int, spread float64, r *rand.Rand) (protos []*linalg.Dense, labels []int, queries []*linalg.Dense) {
	centres := make([]*linalg.Dense, classes)
	for c := range centres {
		centres[c] = randomBasis(t, dim, d, r)
	}
	for k := 0; k < p; k++ {
		protos = append(protos, perturbed(t, centres[k%classes], spread, r))
		labels = append(labels, k%classes)
	}
	for i := 0; i < 6; i++ {
		queries = append(queries, perturbed(t, centres[i%classes], spread, r))
	}
	queries = append(queries, randomBasis(t, dim, d, r), protos[3], perturbed(t, protos[5], 1e-9, r))
	return protos, labels, queries
}

// TestNearestPivots checks Nearest with a pivot index (p >= pivotMinP)
// against the scan: prototypes in tight and loose clusters, queries near
// them, at prototypes, and at random; relevances of every kind; 1 and 2
// workers; and that the pivots skipped projections.
func TestNearestPivots(t *testing.T) {
	r := rng(51)
	for _, c := range []struct {
		dim, d, p, classes int
		spread             float64
	}{{100, 3, 80, 5, 0.02}, {200, 5, 150, 10, 0.01}, {150, 4, 100, 4, 0.5}, {300, 12, 70, 7, 0.005}} {
		protos, labels, queries := clustered(t, c.dim, c.d, c.p, c.classes, c.spread, r)
		for _, workers := range []int{1, 2} {
			e, err := New(c.dim, c.d, c.p, workers)
			if err != nil {
				t.Fatal(err)
			}
			for k, w := range protos {
				if err := e.SetPrototype(k, w); err != nil {
					t.Fatal(err)
				}
			}
			for lname, lambda := range relevanceCases(c.d, c.p, r) {
				e.piv = nil // rebuilt for these weights
				for qi, q := range queries {
					checkNearest(t, fmt.Sprintf("D=%d,d=%d,p=%d,spread=%g/w%d/%s/query %d", c.dim, c.d, c.p, c.spread, workers, lname, qi), e, q, lambda, labels)
				}
			}
			st := e.Stats()
			t.Logf("D=%d,d=%d,p=%d,spread=%g, %d workers: %.1f%% of the projections skipped", c.dim, c.d, c.p, c.spread, workers, 100*float64(st.Skipped)/float64(st.Prototypes))
			if c.spread <= 0.01 && st.Skipped == 0 {
				t.Errorf("tight clusters: no projection skipped")
			}
			e.Close()
		}
	}
}

// TestPivotBounds checks the pivot bounds of every prototype against the
// distance Distances computes.
func TestPivotBounds(t *testing.T) {
	r := rng(52)
	const dim, d, p, classes = 120, 4, 90, 6
	for _, spread := range []float64{1e-6, 0.01, 0.1, 1} {
		protos, labels, queries := clustered(t, dim, d, p, classes, spread, r)
		e, err := New(dim, d, p, 1)
		if err != nil {
			t.Fatal(err)
		}
		for k, w := range protos {
			if err := e.SetPrototype(k, w); err != nil {
				t.Fatal(err)
			}
		}
		ncand := 0
		for lname, lambda := range relevanceCases(d, p, r) {
			e.piv = nil
			e.searchSpace()
			pv := e.pivotsFor(lambda)
			if pv == nil {
				t.Fatalf("spread %g %s: no pivot index", spread, lname)
			}
			dist := make([]float64, p)
			for qi, q := range queries {
				if err := e.Distances(dist, nil, q, lambda); err != nil {
					t.Fatal(err)
				}
				if ok, err := e.pivotBounds(pv, q, lambda, labels, true); err != nil || !ok {
					t.Fatalf("pivotBounds: %v %v", ok, err)
				}
				for k := 0; k < p; k++ {
					if !(e.blo[k] <= dist[k]) {
						t.Errorf("spread %g %s query %d: prototype %d: bound %.17g above the distance %.17g", spread, lname, qi, k, e.blo[k], dist[k])
					}
				}
				// The candidates are those of a scan of every prototype
				// (the groups rule out only what the scan would).
				b, cut := e.pivotCut(pv, labels, true, orthoError(e.ogram, q, dim, d))
				var want []int32
				for k := 0; k < p; k++ {
					if lo, out := cut.bound(pv, k, e.plo, e.phi); !pv.isP[k] && !out && lo <= b {
						want = append(want, int32(k))
					}
				}
				if !slices.Equal(e.cand, want) {
					t.Errorf("spread %g %s query %d: candidates %v, a scan %v", spread, lname, qi, e.cand, want)
				}
				ncand += len(want)
			}
		}
		t.Logf("spread %g: %d candidates", spread, ncand)
		e.Close()
	}
}

// TestSharedNearest checks Shared.Nearest and NearestBatch against
// Engine.Nearest, with and without a pivot index.
func TestSharedNearest(t *testing.T) {
	r := rng(53)
	for _, p := range []int{12, 90} {
		const dim, d, classes = 100, 4, 6
		protos, labels, queries := clustered(t, dim, d, p, classes, 0.03, r)
		e, err := New(dim, d, p, 2)
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		for k, w := range protos {
			if err := e.SetPrototype(k, w); err != nil {
				t.Fatal(err)
			}
		}
		sh, err := NewShared(dim, d, protos, 2)
		if err != nil {
			t.Fatal(err)
		}
		lambda := []float64{0.4, 0.3, 0.2, 0.1}
		rs := make([]Nearest, len(queries))
		saved := splitWork
		splitWork = 0
		err = sh.NearestBatch(rs, queries, lambda, labels, true)
		splitWork = saved
		if err != nil {
			t.Fatal(err)
		}
		for i, q := range queries {
			var want, got Nearest
			if err := e.Nearest(&want, q, lambda, labels, true); err != nil {
				t.Fatal(err)
			}
			if err := sh.Nearest(&got, q, lambda, labels, true); err != nil {
				t.Fatal(err)
			}
			if got != want || rs[i] != want {
				t.Errorf("p=%d query %d: Shared %+v, batch %+v, Engine %+v", p, i, got, rs[i], want)
			}
			// A batch of one runs on the caller alone (no split job): the
			// same result, counted once.
			one := make([]Nearest, 1)
			before := sh.Stats().Searches
			if err := sh.NearestBatch(one, queries[i:i+1], lambda, labels, true); err != nil {
				t.Fatal(err)
			}
			if one[0] != want {
				t.Errorf("p=%d query %d: batch of one %+v, Engine %+v", p, i, one[0], want)
			}
			if n := sh.Stats().Searches - before; n != 1 {
				t.Errorf("p=%d query %d: a batch of one added %d searches to Stats", p, i, n)
			}
		}
		bad := linalg.NewDense(dim, d)
		bad.Data[3] = math.NaN()
		if err := sh.NearestBatch(make([]Nearest, 1), []*linalg.Dense{bad}, lambda, labels, true); err == nil || !strings.Contains(err.Error(), "sample 0") {
			t.Errorf("p=%d: a batch of one NaN set: %v, want an error naming sample 0", p, err)
		}
		// A crew of the Shared (2 and 3 workers) finds the same, with the
		// Shared's pivot index, and adds its searches to the Shared's Stats.
		for _, workers := range []int{2, 3} {
			c := sh.Crew(workers)
			before := sh.Stats().Searches
			for i, q := range queries {
				var got Nearest
				if err := c.Nearest(&got, q, lambda, labels, true); err != nil {
					t.Fatal(err)
				}
				if got != rs[i] {
					t.Errorf("p=%d query %d: crew of %d %+v, Shared %+v", p, i, workers, got, rs[i])
				}
			}
			if n := sh.Stats().Searches - before; n != int64(len(queries)) {
				t.Errorf("p=%d: the crew's %d searches added %d to the Shared's Stats", p, len(queries), n)
			}
			if p >= pivotMinP && c.piv == nil {
				t.Errorf("p=%d: the crew searched without the Shared's pivot index", p)
			}
			c.Close()
		}
	}
}

// TestNearestAllocs checks that Nearest allocates nothing once its index
// and workspace exist.
func TestNearestAllocs(t *testing.T) {
	r := rng(54)
	const dim, d, p, classes = 100, 4, 80, 5
	protos, labels, queries := clustered(t, dim, d, p, classes, 0.03, r)
	for _, workers := range []int{1, 2} {
		e, err := New(dim, d, p, workers)
		if err != nil {
			t.Fatal(err)
		}
		for k, w := range protos {
			if err := e.SetPrototype(k, w); err != nil {
				t.Fatal(err)
			}
		}
		lambda := uniform(d)
		var res Nearest
		f := func() {
			if err := e.Nearest(&res, queries[0], lambda, labels, true); err != nil {
				t.Fatal(err)
			}
		}
		f()
		if got := testing.AllocsPerRun(10, f); got != 0 {
			t.Errorf("workers=%d: %v allocations per Nearest", workers, got)
		}
		e.Close()
	}
}

// TestPivotCount checks the number of pivots an index keeps: at least one
// in each of k tight clusters (the clusters far apart, each query's own
// cluster's pivot is what rules the others out), none beyond the clusters
// where a second in a cluster rules nothing out, and few among subspaces
// in general position (random, all near 90° apart), where no pivot rules
// anything out.
func TestPivotCount(t *testing.T) {
	r := rng(57)
	lambda := uniform(5)
	for _, c := range []struct {
		p, classes int
		spread     float64
		lo, hi     int
	}{{200, 6, 0.01, 6, 14}, {300, 9, 0.01, 9, 17}, {150, 150, 1, 1, 3}} {
		protos, _, _ := clustered(t, 200, 5, c.p, c.classes, c.spread, r)
		if c.spread >= 1 {
			for k := range protos {
				protos[k] = randomBasis(t, 200, 5, r)
			}
		}
		e, err := New(200, 5, c.p, 1)
		if err != nil {
			t.Fatal(err)
		}
		for k, w := range protos {
			if err := e.SetPrototype(k, w); err != nil {
				t.Fatal(err)
			}
		}
		e.searchSpace()
		pv := e.buildPivots(lambda)
		if pv == nil {
			t.Fatal("no index")
		}
		n := len(pv.piv)
		t.Logf("p=%d, %d clusters: %d pivots of %d", c.p, c.classes, n, int(math.Sqrt(float64(c.p))))
		if n < c.lo || n > c.hi {
			t.Errorf("p=%d, %d clusters: %d pivots, want %d..%d", c.p, c.classes, n, c.lo, c.hi)
		}
		clusters := map[int]bool{}
		for _, k := range pv.piv {
			clusters[int(k)%c.classes] = true
		}
		if c.spread < 1 && len(clusters) < c.classes {
			t.Errorf("p=%d: pivots in %d of %d clusters", c.p, len(clusters), c.classes)
		}
		e.Close()
	}
}

// TestNearestBestFirst checks Nearest against a scan where tier 2 values
// its candidates in two rounds (valueBestFirst: d < gramMinDim, more
// candidates than a chunk per worker): a few classes of many prototypes
// each around one centre, so that a query's candidates are its class's
// dozens, with relevances from even (the lower bounds order the
// candidates, the first round holds the nearest) to skewed (the lower
// bounds say little, the nearest may be in the second round: in a
// throwaway count, 629 second rounds of 60,000 candidates in all, 380 of
// which lowered the threshold), with and without pivots, on 1 and 2
// workers.
func TestNearestBestFirst(t *testing.T) {
	r := rng(59)
	const dim, d = 120, 4
	if d >= gramMinDim {
		t.Skipf("gramMinDim = %d: tier 2 is the Gram enclosure at d = %d", gramMinDim, d)
	}
	for _, c := range []struct {
		p, classes int
		spread     float64
	}{{40, 2, 0.05}, {120, 3, 0.03}, {200, 2, 0.1}} {
		protos, labels, queries := clustered(t, dim, d, c.p, c.classes, c.spread, r)
		for i := 0; i < 6; i++ {
			queries = append(queries, perturbed(t, protos[r.IntN(c.p)], c.spread/2, r))
		}
		for _, workers := range []int{1, 2} {
			e, err := New(dim, d, c.p, workers)
			if err != nil {
				t.Fatal(err)
			}
			for k, w := range protos {
				if err := e.SetPrototype(k, w); err != nil {
					t.Fatal(err)
				}
			}
			for lname, lambda := range relevanceCases(d, c.p, r) {
				e.piv = nil
				for qi, q := range queries {
					checkNearest(t, fmt.Sprintf("p=%d/w%d/%s/query %d", c.p, workers, lname, qi), e, q, lambda, labels)
				}
			}
			e.Close()
		}
	}
}
