package protocol

import (
	"reflect"
	"testing"
)

func TestPrepare(t *testing.T) {
	dt, err := Prepare(M, D, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	n := len(dt.Digits.Images)
	if len(dt.TrainIdx)+len(dt.TestIdx) != n {
		t.Fatalf("%d + %d digits, want %d", len(dt.TrainIdx), len(dt.TestIdx), n)
	}
	inTest := map[int]bool{}
	for _, i := range dt.TestIdx {
		inTest[i] = true
	}
	for _, s := range dt.Train.Sources {
		for _, i := range s {
			if inTest[i] {
				t.Fatalf("test digit %d in a training set", i)
			}
		}
	}
	for _, s := range dt.TestSets.Sources {
		if len(s) != M {
			t.Fatalf("test set of %d digits", len(s))
		}
		for _, i := range s {
			if !inTest[i] {
				t.Fatalf("training digit %d in a test set", i)
			}
		}
	}
	if f := float64(len(dt.TestIdx)) / float64(n); f < TestFraction-0.01 || f > TestFraction+0.01 {
		t.Fatalf("test fraction %g", f)
	}
	again, _ := Prepare(M, D, 3, 2)
	other, _ := Prepare(M, D, 4, 1)
	if !reflect.DeepEqual(again.TestIdx, dt.TestIdx) || !reflect.DeepEqual(again.Train.Sources, dt.Train.Sources) {
		t.Fatal("not a function of the seed")
	}
	if reflect.DeepEqual(other.TestIdx, dt.TestIdx) {
		t.Fatal("seeds 3 and 4 hold out the same digits")
	}
	base, err := dt.Baseline(Config())
	if err != nil {
		t.Fatal(err)
	}
	defer base.Close()
	if base.NumPrototypes() != 10 || base.SubspaceDim() != D {
		t.Fatalf("baseline: %d prototypes, d=%d", base.NumPrototypes(), base.SubspaceDim())
	}
	for _, l := range base.Relevances() {
		if l != 1.0/D {
			t.Fatalf("baseline relevances %v", base.Relevances())
		}
	}
}
