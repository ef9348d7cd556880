package main

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/grlgq/grlgq/model"
)

// TestProtosPerClass: -protos N, a list of one count per class, and
// class=N pairs, with the errors of a wrong count and an unknown class.
func TestProtosPerClass(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	writeCSV(t, data, 3, 12, 4)
	out := filepath.Join(dir, "m.grlgq")
	train := func(protos string) []string {
		return []string{"train", "-data", "csv:" + data, "-m", "4", "-d", "2", "-epochs", "1", "-o", out, "-quiet", "-protos", protos}
	}
	for _, c := range []struct {
		protos string
		want   []int
	}{
		{"2", []int{2, 2, 2}},
		{"1,3,2", []int{1, 3, 2}},
		{"1=4", []int{1, 4, 1}},
		{"2,0=3", []int{3, 2, 2}},
	} {
		ok(t, train(c.protos)...)
		m, err := model.LoadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		for cl := 0; cl < m.NumClasses(); cl++ {
			n := 0
			for _, l := range m.Labels() {
				if l == cl {
					n++
				}
			}
			got = append(got, n)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("-protos %s: prototypes per class %v, want %v", c.protos, got, c.want)
		}
	}
	for _, c := range []struct{ protos, want string }{
		{"1,2", "2 counts for 3 classes"},
		{"cat=2", `no class "cat"`},
		{"0", "1 to 32768"},
		{"1,x", "want counts"},
		{"1=2,1=3", "given twice"},
		{"2,3,1=2", "at most one plain N"},
	} {
		fails(t, 2, []string{"-protos", c.want}, train(c.protos)...)
	}
	fails(t, 2, []string{"-protos", "one count for every class"}, "demo", "-protos", "1,2")
}
