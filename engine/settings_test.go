package engine

import (
	"math"
	"sync"
	"testing"
	"time"
)

// TestSettings: SetSpinTime and SetCrewMinWork clamp what means nothing,
// and engines and crews copy the values when they are made.
func TestSettings(t *testing.T) {
	defer SetSpinTime(SpinTime())
	defer SetCrewMinWork(CrewMinWork())
	if SpinTime() != DefaultSpinTime || CrewMinWork() != DefaultCrewMinWork {
		t.Fatalf("defaults: SpinTime %v, CrewMinWork %g", SpinTime(), CrewMinWork())
	}
	for _, c := range []struct{ set, want time.Duration }{{-time.Second, 0}, {0, 0}, {time.Millisecond, time.Millisecond}} {
		SetSpinTime(c.set)
		if got := SpinTime(); got != c.want {
			t.Errorf("SetSpinTime(%v): SpinTime() = %v, want %v", c.set, got, c.want)
		}
	}
	for _, c := range []struct{ set, want float64 }{{-1, 0}, {math.NaN(), 0}, {0, 0}, {5e3, 5e3}, {math.Inf(1), math.Inf(1)}} {
		SetCrewMinWork(c.set)
		if got := CrewMinWork(); got != c.want {
			t.Errorf("SetCrewMinWork(%v): CrewMinWork() = %v, want %v", c.set, got, c.want)
		}
	}
	SetSpinTime(3 * time.Microsecond)
	SetCrewMinWork(1234)
	sh, e := newShared(t, 40, 3, 6, 2)
	c := sh.Crew(2)
	defer c.Close()
	SetSpinTime(time.Second)
	SetCrewMinWork(0)
	if e.spin != 3*time.Microsecond || c.spin != 3*time.Microsecond || c.minSplit != 1234 {
		t.Errorf("engine spin %v, crew spin %v and minSplit %g: want the values when they were made", e.spin, c.spin, c.minSplit)
	}
}

// TestSettingsConcurrent changes the settings while crews are made and
// used, as a server tuning them at run time while a model makes its crew
// at its first prediction: under -race this finds any unsynchronised read.
func TestSettingsConcurrent(t *testing.T) {
	defer SetSpinTime(SpinTime())
	defer SetCrewMinWork(CrewMinWork())
	const dim, d, p = 40, 3, 6
	sh, _ := newShared(t, dim, d, p, 2)
	P := randomBasis(t, dim, d, rng(3))
	want := make([]float64, p)
	if err := sh.Distances(want, nil, P, uniform(d)); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			dist := make([]float64, p)
			for range 20 {
				c := sh.Crew(2)
				err := c.Distances(dist, nil, P, uniform(d))
				c.Close()
				if err != nil {
					t.Error(err)
					return
				}
				for k := range dist {
					if math.Float64bits(dist[k]) != math.Float64bits(want[k]) {
						t.Errorf("crew distance %d: %v, want %v", k, dist[k], want[k])
						return
					}
				}
			}
		})
	}
	for i := range 200 {
		SetSpinTime(time.Duration(i) * time.Microsecond)
		SetCrewMinWork(float64(i * 100))
	}
	wg.Wait()
}
