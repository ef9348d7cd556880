package dataset

import (
	"reflect"
	"testing"
)

func TestTrainingAndEvalSamples(t *testing.T) {
	// Image sets: one subspace per set, for training and testing alike.
	ds := synthSets([]int{4, 5, 4, 6}, 2)
	tr, err := TrainingSubspaces(ds, TrainingOptions{D: 2})
	if err != nil || tr.Len() != 4 || tr.Subs[0].D() != 2 {
		t.Fatalf("sets: %v %v", tr, err)
	}
	ts, err := EvalSamples(ds, EvalOptions{D: 2})
	if err != nil || ts.Kind != KindSets || ts.Len() != 4 || !reflect.DeepEqual(ts.Labels, tr.Labels) || ts.Images != nil {
		t.Fatalf("test sets: %+v %v", ts, err)
	}
	// Single images: grouped for training (the same groups as
	// GroupSubspaces), one by one or grouped for testing.
	img := &Dataset{Source: "img", Dim: ds.Dim, Classes: ds.Classes, Images: ds.Images, Labels: ds.Labels}
	tr, err = TrainingSubspaces(img, TrainingOptions{D: 2, M: 3, Groupings: 2, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := GroupSubspaces(img, allItems(len(img.Images)), GroupOptions{M: 3, D: 2, Groupings: 2, Seed: 5})
	if !reflect.DeepEqual(tr.Sources, want.Sources) || !reflect.DeepEqual(tr.Names, want.Names) {
		t.Fatalf("groups %v, want %v", tr.Sources, want.Sources)
	}
	if _, err := TrainingSubspaces(img, TrainingOptions{D: 4, M: 3}); err == nil {
		t.Fatal("m < d: no error")
	}
	ts, err = EvalSamples(img, EvalOptions{D: 2})
	if err != nil || ts.Kind != KindImages || ts.Len() != len(img.Images) || ts.Names[3] != "row 3" || ts.Images[3] != 3 || ts.Labels[3] != img.Labels[3] {
		t.Fatalf("test images: %+v %v", ts, err)
	}
	ts, err = EvalSamples(img, EvalOptions{D: 2, M: 3, Seed: 5})
	if err != nil || ts.Kind != KindSets || ts.Subs == nil || ts.Len() != ts.Subs.Len() {
		t.Fatalf("test groups: %+v %v", ts, err)
	}
	// Bases: their d, or their first D columns; never more.
	b := &Dataset{Source: "b", Classes: []string{"0", "1"}, Labels: []int{1, 0}, Dim: 3, SubDim: 2,
		Bases: [][]float64{twoBases()[:6], twoBases()[6:]}}
	if _, err := TrainingSubspaces(b, TrainingOptions{D: 3}); err == nil {
		t.Fatal("bases of d=2 with D 3: no error")
	}
	tb, err := TrainingSubspaces(b, TrainingOptions{D: 1})
	if err != nil || tb.Len() != 2 {
		t.Fatalf("bases of d=2 with D 1: %v", err)
	}
	for i, s := range tb.Subs {
		for r := range 3 {
			if s.Basis.Cols != 1 || s.Basis.At(r, 0) != b.Bases[i][2*r] {
				t.Fatalf("basis %d truncated to D 1: %v, want the first column of %v", i, s.Basis, b.Bases[i])
			}
		}
	}
	ts, err = EvalSamples(b, EvalOptions{D: 2})
	if err != nil || ts.Kind != KindBases || !reflect.DeepEqual(ts.Labels, []int{1, 0}) {
		t.Fatalf("test bases: %+v %v", ts, err)
	}
	if _, err := EvalSamples(b, EvalOptions{D: 3}); err == nil {
		t.Fatal("test bases of d=2 with D 3: no error")
	}
	if ts, err = EvalSamples(b, EvalOptions{D: 1}); err != nil || ts.Subs.Subs[1].Basis.Cols != 1 {
		t.Fatalf("test bases of d=2 with D 1: %v", err)
	}
}

func TestClassMap(t *testing.T) {
	ds := &Dataset{Classes: []string{"cat", "dog", "eel"}}
	for _, c := range []struct {
		names []string
		want  []int
	}{
		{[]string{"dog", "cat"}, []int{1, 0, -1}}, // by name
		{[]string{"", "eel"}, []int{-1, -1, 1}},   // one name is enough to map by name
		{[]string{"", "", ""}, []int{0, 1, 2}},    // no names, as many classes: by index
		{nil, []int{-1, -1, -1}},                  // no classes
		// No names and another number of classes: nothing can be matched,
		// not class i of the data to class i of the classifier.
		{[]string{"", ""}, []int{-1, -1, -1}},
		{[]string{"", "", "", ""}, []int{-1, -1, -1}},
	} {
		if got := ds.ClassMap(c.names); !reflect.DeepEqual(got, c.want) {
			t.Errorf("ClassMap(%q) = %v, want %v", c.names, got, c.want)
		}
	}
}
