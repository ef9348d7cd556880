package dataset

import (
	"errors"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/grlgq/grlgq/subspace"
)

// synthSets builds a data set of nsets image sets of D = 12 pixels: set s
// has sizes[s] images, random combinations of 3 fixed random vectors of its
// class (so each set spans a 3-D subspace).
func synthSets(sizes []int, classes int) *Dataset {
	const dim = 12
	rng := rand.New(rand.NewPCG(1, 2))
	basis := make([][][]float64, classes)
	for c := range basis {
		for range 3 {
			v := make([]float64, dim)
			for i := range v {
				v[i] = rng.NormFloat64()
			}
			basis[c] = append(basis[c], v)
		}
	}
	ds := &Dataset{Source: "synth", Dim: dim}
	for c := range classes {
		ds.Classes = append(ds.Classes, string(rune('a'+c)))
	}
	for s, m := range sizes {
		c := s % classes
		set := Set{Name: "set" + string(rune('0'+s)), Label: c}
		for range m {
			x := make([]float64, dim)
			for _, b := range basis[c] {
				a := rng.NormFloat64()
				for i := range x {
					x[i] += a * b[i]
				}
			}
			set.Images = append(set.Images, len(ds.Images))
			ds.Images = append(ds.Images, x)
			ds.Labels = append(ds.Labels, c)
		}
		ds.Sets = append(ds.Sets, set)
	}
	return ds
}

// residual returns ‖x − P Pᵀ x‖ / ‖x‖.
func residual(s *subspace.Subspace, x []float64) float64 {
	b := s.Basis
	coef := make([]float64, b.Cols)
	for r, v := range x {
		for j := range coef {
			coef[j] += b.At(r, j) * v
		}
	}
	var res, nx float64
	for r, v := range x {
		p := 0.0
		for j, c := range coef {
			p += b.At(r, j) * c
		}
		res += (v - p) * (v - p)
		nx += v * v
	}
	return math.Sqrt(res / nx)
}

func TestSetSubspaces(t *testing.T) {
	ds := synthSets([]int{6, 5, 7, 6}, 2)
	if err := ds.Validate(); err != nil {
		t.Fatal(err)
	}
	var steps []int
	subs, err := SetSubspaces(ds, nil, SetOptions{D: 3, Workers: 2, Progress: func(done, total int) {
		if total != 4 {
			t.Errorf("progress total %d, want 4", total)
		}
		steps = append(steps, done)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 4 || steps[3] != 4 {
		t.Errorf("progress %v, want 1..4", steps)
	}
	if subs.Len() != 4 || subs.Labels[1] != 1 || subs.Names[2] != "set2" {
		t.Fatalf("%v labels %v names %v", subs, subs.Labels, subs.Names)
	}
	for k, s := range subs.Subs {
		if s.Dim() != 12 || s.D() != 3 {
			t.Fatalf("subspace %d is %dx%d", k, s.Dim(), s.D())
		}
		for _, i := range ds.Sets[k].Images { // the set lies in its subspace
			if r := residual(s, ds.Images[i]); r > 1e-10 {
				t.Fatalf("set %d image %d: residual %g", k, i, r)
			}
		}
	}
	// Rank 3 < d = 4: an error naming the set, or skipped on request.
	_, err = SetSubspaces(ds, []int{1, 0}, SetOptions{D: 4})
	if !errors.Is(err, subspace.ErrRankDeficient) || !strings.Contains(err.Error(), "set set1") {
		t.Fatalf("rank-deficient set: %v", err)
	}
	// Fewer images than d.
	small := synthSets([]int{6, 2, 6}, 3)
	_, err = SetSubspaces(small, nil, SetOptions{D: 3})
	if !errors.Is(err, subspace.ErrTooFewImages) || !strings.Contains(err.Error(), "set set1 has 2 images, fewer than d=3") {
		t.Fatalf("small set: %v", err)
	}
	subs, err = SetSubspaces(small, nil, SetOptions{D: 3, SkipBad: true})
	if err != nil || subs.Len() != 2 || len(subs.Skipped) != 1 || subs.Skipped[0].Name != "set1" || subs.Names[1] != "set2" {
		t.Fatalf("skip: %v %v", subs, err)
	}
	if _, err := SetSubspaces(small, []int{5}, SetOptions{D: 3}); !errors.Is(err, ErrArgument) {
		t.Fatalf("bad set index: %v", err)
	}
}

func TestGroupSubspaces(t *testing.T) {
	ds := synthSets([]int{10, 9, 12}, 3) // classes a: 10, b: 9, c: 12 images
	var items []int
	for i := range ds.Images {
		if i != 3 { // leave one image out of training
			items = append(items, i)
		}
	}
	opt := GroupOptions{M: 4, D: 2, Seed: 9, Groupings: 2, Workers: 1}
	g, err := GroupSubspaces(ds, items, opt)
	if err != nil {
		t.Fatal(err)
	}
	// Per grouping: a has 9 items -> 3 groups, b 9 -> 3, c 12 -> 3.
	if g.Len() != 18 {
		t.Fatalf("%d groups, want 18", g.Len())
	}
	used := map[int]int{}
	for k, src := range g.Sources {
		if len(src) != 4 {
			t.Fatalf("group %d has %d images", k, len(src))
		}
		if len(slices.Compact(slices.Sorted(slices.Values(src)))) != 4 {
			t.Fatalf("group %d repeats an image: %v", k, src)
		}
		for _, i := range src {
			if ds.Labels[i] != g.Labels[k] || i == 3 {
				t.Fatalf("group %d (class %d) holds image %d of class %d", k, g.Labels[k], i, ds.Labels[i])
			}
			used[i]++
		}
	}
	for _, i := range items {
		// 2 groupings; a and b need 3 extra images each per grouping (12 slots, 9 images).
		if n := used[i]; n < 2 || n > 4 {
			t.Fatalf("image %d used %d times", i, n)
		}
	}
	// Deterministic, whatever the workers.
	opt.Workers = 3
	g2, err := GroupSubspaces(ds, items, opt)
	if err != nil {
		t.Fatal(err)
	}
	for k := range g.Subs {
		if !slices.Equal(g.Sources[k], g2.Sources[k]) || !slices.Equal(g.Subs[k].Basis.Data, g2.Subs[k].Basis.Data) {
			t.Fatalf("group %d differs between 1 and 3 workers", k)
		}
	}
	opt.Seed = 10
	g3, _ := GroupSubspaces(ds, items, opt)
	if slices.Equal(g.Sources[0], g3.Sources[0]) && slices.Equal(g.Sources[1], g3.Sources[1]) {
		t.Fatal("another seed gave the same groups")
	}
	// A class with fewer than M images.
	_, err = GroupSubspaces(ds, items, GroupOptions{M: 10, D: 2})
	if !errors.Is(err, ErrTooSmall) || !strings.Contains(err.Error(), `class "a" has 9 training images`) {
		t.Fatalf("small class: %v", err)
	}
	g4, err := GroupSubspaces(ds, items, GroupOptions{M: 10, D: 2, SkipBad: true})
	if err != nil || g4.Len() != 2 || len(g4.Skipped) != 2 {
		t.Fatalf("skip small classes: %v %v", g4, err)
	}
	if _, err := GroupSubspaces(ds, items, GroupOptions{M: 2, D: 3}); !errors.Is(err, ErrArgument) {
		t.Fatalf("d > m: %v", err)
	}
	if _, err := GroupSubspaces(ds, []int{0, 31}, GroupOptions{M: 2, D: 1}); !errors.Is(err, ErrArgument) {
		t.Fatalf("image index 31 of 31: %v", err)
	}
}

// TestGroupSubspacesAll: nil items are all the images, as for the
// siblings; no class with a group is an error, with SkipBad too.
func TestGroupSubspacesAll(t *testing.T) {
	ds := synthSets([]int{10, 9, 12}, 3)
	opt := GroupOptions{M: 4, D: 2, Seed: 9}
	all, err := GroupSubspaces(ds, nil, opt)
	if err != nil {
		t.Fatal(err)
	}
	want, err := GroupSubspaces(ds, allItems(len(ds.Images)), opt)
	if err != nil {
		t.Fatal(err)
	}
	if all.Len() != 9 || !reflect.DeepEqual(all.Sources, want.Sources) {
		t.Fatalf("nil items: %d groups %v, want %d %v", all.Len(), all.Sources, want.Len(), want.Sources)
	}
	for _, c := range []struct {
		name  string
		items []int
		opt   GroupOptions
		want  string
	}{
		{"M above every class", nil, GroupOptions{M: 20, D: 2}, `class "a" has 10 training images`},
		{"M above every class, SkipBad", nil, GroupOptions{M: 20, D: 2, SkipBad: true}, "no class has m=20 images among the 31 given (the largest has 12)"},
		{"no items", []int{}, GroupOptions{M: 4, D: 2}, "no class has m=4 images among the 0 given"},
	} {
		g, err := GroupSubspaces(ds, c.items, c.opt)
		if !errors.Is(err, ErrTooSmall) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, %v; want ErrTooSmall, %q", c.name, g, err, c.want)
		}
	}
}

func TestImageAndBasisSubspaces(t *testing.T) {
	ds := synthSets([]int{3}, 1)
	ds.Images[1] = make([]float64, ds.Dim)
	if _, err := ImageSubspaces(ds, nil, false); !errors.Is(err, subspace.ErrZeroImage) || !strings.Contains(err.Error(), "image 1") {
		t.Fatalf("zero image: %v", err)
	}
	s, err := ImageSubspaces(ds, []int{2, 1, 0}, true)
	if err != nil || s.Len() != 2 || s.Names[1] != "image 0" || len(s.Skipped) != 1 || s.Subs[0].D() != 1 {
		t.Fatalf("%v %v", s, err)
	}
	if r := residual(s.Subs[0], ds.Images[2]); r > 1e-12 {
		t.Fatalf("image subspace residual %g", r)
	}
	b := &Dataset{Source: "b", Classes: []string{"0", "1"}, Labels: []int{1, 0}, Dim: 3, SubDim: 2,
		Bases: [][]float64{twoBases()[:6], twoBases()[6:]}}
	bs, err := BasisSubspaces(b, nil)
	if err != nil || bs.Len() != 2 || bs.Labels[0] != 1 || bs.Subs[1].Basis.At(2, 1) != 1 || bs.Subs[1].Basis.Stride%8 != 0 {
		t.Fatalf("bases: %v %v", bs, err)
	}
	if _, err := ImageSubspaces(ds, []int{3}, false); !errors.Is(err, ErrArgument) {
		t.Errorf("image index 3 of 3: %v", err)
	}
	if _, err := BasisSubspaces(b, []int{-1}); !errors.Is(err, ErrArgument) {
		t.Errorf("basis index -1: %v", err)
	}
}
