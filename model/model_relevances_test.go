package model

import (
	"errors"
	"math"
	"testing"
)

func TestWithRelevances(t *testing.T) {
	x, y := synth(t, 3, 30, 3, 2, 4, 0.3)
	m, err := Init(legacyOptions(Config{}, TrainConfig{Seed: 1}), Sets(x), y)
	if err != nil {
		t.Fatal(err)
	}
	c, err := m.WithRelevances([]float64{2, 1, 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Relevances(); math.Abs(got[0]-0.5) > 1e-15 || math.Abs(got[1]-0.25) > 1e-15 || math.Abs(got[2]-0.25) > 1e-15 {
		t.Errorf("relevances %v", got)
	}
	if got := m.Relevances(); got[0] != 1.0/3 {
		t.Errorf("the original changed: %v", got)
	}
	r, err := c.Predict(Set(x[0]))
	if err != nil {
		t.Fatal(err)
	}
	for k := 0; k < c.NumPrototypes(); k++ {
		a := r.Angles[k*3 : k*3+3]
		want := 0.5*a[0]*a[0] + 0.25*a[1]*a[1] + 0.25*a[2]*a[2]
		if math.Abs(r.Distances[k]-want) > 1e-12 {
			t.Errorf("prototype %d: distance %v, want %v", k, r.Distances[k], want)
		}
	}
	for _, bad := range [][]float64{{1, 1}, {1, -1, 1}, {0, 0, 0}, {math.NaN(), 1, 1}, {math.Inf(1), 1, 1}} {
		if _, err := m.WithRelevances(bad); !errors.Is(err, ErrConfig) {
			t.Errorf("%v: %v", bad, err)
		}
	}
}
