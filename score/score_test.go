package score

import (
	"math"
	"reflect"
	"testing"
)

func TestCount(t *testing.T) {
	truth := []int{0, 0, 0, 1, 1, 2, -1, 5, 2}
	pred := []int{0, 1, -1, 1, 1, 0, 2, 2, -1}
	s := Count(3, truth, pred)
	if s.N != 9 || s.Correct != 3 || s.Rejected != 2 || s.Unknown != 2 {
		t.Fatalf("N %d correct %d rejected %d unknown %d", s.N, s.Correct, s.Rejected, s.Unknown)
	}
	wantConf := [][]int{{1, 1, 0, 1}, {0, 2, 0, 0}, {1, 0, 0, 1}}
	if !reflect.DeepEqual(s.Confusion, wantConf) {
		t.Fatalf("confusion %v, want %v", s.Confusion, wantConf)
	}
	wantPer := []Class{{3, 1}, {2, 2}, {2, 0}}
	if !reflect.DeepEqual(s.PerClass, wantPer) {
		t.Fatalf("per class %v, want %v", s.PerClass, wantPer)
	}
	if got := s.Accuracy(); got != 3.0/9 {
		t.Fatalf("accuracy %v", got)
	}
	if got := Correct(truth, pred); got != s.Correct {
		t.Fatalf("Correct %d, Count %d", got, s.Correct)
	}
	if r := s.PerClass[0].Recall(); r != 1.0/3 {
		t.Fatalf("recall %v", r)
	}
	if r := (Class{}).Recall(); !math.IsNaN(r) {
		t.Fatalf("recall of an empty class %v", r)
	}
	if a := Count(2, nil, nil).Accuracy(); a != 0 {
		t.Fatalf("accuracy of nothing %v", a)
	}
	// A rejected sample of an unknown class is both.
	if s := Count(1, []int{-1}, []int{-1}); s.Rejected != 1 || s.Unknown != 1 || s.Correct != 0 {
		t.Fatalf("%+v", s)
	}
}

func TestCountPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"length":  func() { Count(2, []int{0}, nil) },
		"range":   func() { Count(2, []int{0}, []int{2}) },
		"below":   func() { Count(2, []int{0}, []int{-2}) },
		"correct": func() { Correct([]int{0}, nil) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

func TestMeanSD(t *testing.T) {
	m, s := MeanSD([]float64{0.9, 0.95, 1})
	if math.Abs(m-0.95) > 1e-15 || s < 0.0499 || s > 0.0501 {
		t.Errorf("MeanSD = %g, %g", m, s)
	}
	if m, s := MeanSD([]float64{0.5}); m != 0.5 || s != 0 {
		t.Errorf("MeanSD of one value = %g, %g", m, s)
	}
	if m, s := MeanSD(nil); !math.IsNaN(m) || !math.IsNaN(s) {
		t.Errorf("MeanSD of none = %g, %g", m, s)
	}
}
