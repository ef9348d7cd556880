package dataset

import (
	"math"
	"testing"
)

// TestContentHash: the hash is the same for the same content from any
// source, and changes with any pixel's bits, a label, a class name or the
// grouping into sets.
func TestContentHash(t *testing.T) {
	mk := func() *Dataset {
		return &Dataset{Source: "a", Classes: []string{"x", "y"}, Labels: []int{0, 1, 1}, Dim: 2, Width: 2, Height: 1,
			Images: [][]float64{{0, 0.5}, {1, 0.25}, {0.75, 0}}, Sets: []Set{{Name: "x/s", Label: 0, Images: []int{0}}, {Name: "y/s", Label: 1, Images: []int{1, 2}}}}
	}
	base := mk().ContentHash()
	if len(base) != 64 {
		t.Fatalf("hash %q", base)
	}
	other := mk()
	other.Source = "elsewhere"
	if other.ContentHash() != base {
		t.Error("the source changed the hash")
	}
	for name, f := range map[string]func(d *Dataset){
		"pixel": func(d *Dataset) { d.Images[2][1] = math.Copysign(0, -1) },
		"label": func(d *Dataset) { d.Labels[2] = 0 },
		"class": func(d *Dataset) { d.Classes[1] = "z" },
		"sets": func(d *Dataset) {
			d.Sets[1].Images = []int{1}
			d.Sets = append(d.Sets, Set{Name: "y/t", Label: 1, Images: []int{2}})
		},
		"shape":     func(d *Dataset) { d.Width, d.Height = 1, 2 },
		"set name":  func(d *Dataset) { d.Sets[0].Name = "x/t" },
		"no labels": func(d *Dataset) { d.Labels = nil },
	} {
		d := mk()
		f(d)
		if d.ContentHash() == base {
			t.Errorf("%s: the hash did not change", name)
		}
	}
}
