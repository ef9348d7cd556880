package model

import (
	"slices"
	"strings"
	"testing"
)

// TestClassCounts parses every form of ClassCounts and resolves it
// against class names, and refuses what does not fit.
func TestClassCounts(t *testing.T) {
	classes := []string{"apple", "car", "cat"}
	for _, c := range []struct {
		in     string
		all    int
		per    []int
		varies bool
	}{
		{"3", 3, nil, false},
		{"1,2,3", 1, []int{1, 2, 3}, true},
		{"cat=5", 1, []int{1, 1, 5}, true},
		{"3, cat=5", 3, []int{3, 3, 5}, true},
		{"car=2,apple=4", 1, []int{4, 2, 1}, true},
	} {
		var p ClassCounts
		if err := p.UnmarshalText([]byte(c.in)); err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		per, err := p.PerClass(classes)
		if err != nil || !slices.Equal(per, c.per) || p.All() != c.all || p.Varies() != c.varies || p.String() != c.in {
			t.Errorf("%q: PerClass %v, %v; All %d; Varies %v; String %q", c.in, per, err, p.All(), p.Varies(), p.String())
		}
	}
	for _, c := range []struct{ in, want string }{
		{"0", "1 to"}, {"x", "1 to"}, {"=3", "name is missing"}, {"cat=2,cat=3", "twice"},
		{"1,2,cat=3", "at most one plain N"}, {"70000", "1 to"},
	} {
		var p ClassCounts
		if err := p.Set(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.in, err, c.want)
		}
	}
	for _, c := range []struct{ in, want string }{{"1,2", "2 counts for 3 classes"}, {"dog=2", `no class "dog"`}} {
		var p ClassCounts
		if err := p.Set(c.in); err != nil {
			t.Fatal(err)
		}
		if _, err := p.PerClass(classes); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: PerClass error %v, want %q", c.in, err, c.want)
		}
	}
	if p := NewClassCounts(2); p.All() != 2 || p.Varies() || p.String() != "2" {
		t.Errorf("NewClassCounts(2): %d %v %q", p.All(), p.Varies(), p.String())
	}
}
