package dataset

import (
	"fmt"

	"github.com/grlgq/grlgq/subspace"
)

// TrainingOptions controls TrainingSubspaces.
type TrainingOptions struct {
	// D is the subspace dimension d (>= 1); bases of more columns are
	// truncated to their first D.
	D int
	// M is the number of images per set of single-image data (M >= D).
	M int
	// Groupings of single-image data (GroupOptions.Groupings; 0 means 1).
	Groupings int
	// Seed of the grouping of single-image data.
	Seed uint64
	// SkipBad leaves out what cannot become a d-dimensional subspace
	// (SetOptions.SkipBad, GroupOptions.SkipBad).
	SkipBad bool
	// Workers computing SVDs in parallel; 0 means GOMAXPROCS.
	Workers int
	// Progress, if non-nil, is called after each subspace computed with
	// the subspaces done and the total, one call at a time.
	Progress func(done, total int)
}

// TrainingSubspaces turns the whole of ds into training subspaces, the
// way each kind of data is trained on: image sets one subspace each
// (SetSubspaces), single images grouped into sets of opt.M random
// same-class images (GroupSubspaces, opt.Groupings times), bases as they
// are (BasisSubspaces, their first opt.D columns). Its errors are theirs, a wrong opt.D or opt.M, and
// data without labels (ErrNoLabels).
func TrainingSubspaces(ds *Dataset, opt TrainingOptions) (*Subspaces, error) {
	if !ds.Labelled() {
		return nil, fmt.Errorf("%w: %s: training needs labelled data", ErrNoLabels, ds.Source)
	}
	switch {
	case ds.Bases != nil:
		return basesOfDim(ds, opt.D)
	case ds.Sets != nil:
		return SetSubspaces(ds, nil, SetOptions{D: opt.D, SkipBad: opt.SkipBad, Workers: opt.Workers, Progress: opt.Progress})
	default:
		if opt.M < opt.D {
			return nil, fmt.Errorf("dataset: sets of m=%d images cannot span d=%d dimensions", opt.M, opt.D)
		}
		return GroupSubspaces(ds, allItems(len(ds.Images)), GroupOptions{M: opt.M, D: opt.D, Groupings: opt.Groupings, Seed: opt.Seed, SkipBad: opt.SkipBad, Workers: opt.Workers, Progress: opt.Progress})
	}
}

// Samples are the items a trained classifier is applied to (see
// EvalSamples).
type Samples struct {
	// Kind is KindImages (single images), KindSets (image sets, or groups
	// of images, as subspaces) or KindBases.
	Kind   Kind
	Images []int      // KindImages: indices into the data set's Images
	Subs   *Subspaces // KindSets and KindBases
	Labels []int      // the data set's class of each sample (NoLabel without labels)
	Names  []string   // a set's name, an image's (Dataset.ItemName: its file, or "row 17"), ...
}

// Len returns the number of samples.
func (s *Samples) Len() int { return len(s.Names) }

// EvalOptions controls EvalSamples.
type EvalOptions struct {
	// D is the classifier's subspace dimension; bases of more columns are
	// truncated to their first D (basesOfDim).
	D int
	// M > 0 groups single images into sets of M random same-class images
	// (GroupSubspaces, seeded by Seed) instead of classifying them one by one.
	M    int
	Seed uint64
	// SkipBad and Workers as in SetOptions.
	SkipBad bool
	Workers int
	// Progress, if non-nil, is called after each subspace computed with
	// the subspaces done and the total, one call at a time.
	Progress func(done, total int)
}

// EvalSamples turns the whole of ds into the samples a classifier of
// d-dimensional subspaces is evaluated on (or applied to: the data may
// have no labels): single images for image data (unless opt.M > 0 groups
// them into sets of one class, which needs labels), one subspace per
// image set for folder data, the bases of npy data.
func EvalSamples(ds *Dataset, opt EvalOptions) (*Samples, error) {
	s := &Samples{}
	switch {
	case ds.Bases != nil:
		subs, err := basesOfDim(ds, opt.D)
		if err != nil {
			return nil, err
		}
		s.Kind, s.Subs = KindBases, subs
	case ds.Sets != nil:
		subs, err := SetSubspaces(ds, nil, SetOptions{D: opt.D, Workers: opt.Workers, SkipBad: opt.SkipBad, Progress: opt.Progress})
		if err != nil {
			return nil, err
		}
		s.Kind, s.Subs = KindSets, subs
	case opt.M > 0:
		subs, err := GroupSubspaces(ds, allItems(len(ds.Images)), GroupOptions{M: opt.M, D: opt.D, Seed: opt.Seed, Workers: opt.Workers, SkipBad: opt.SkipBad, Progress: opt.Progress})
		if err != nil {
			return nil, err
		}
		s.Kind, s.Subs = KindSets, subs
	default:
		s.Kind = KindImages
		for i := range ds.Images {
			s.Images = append(s.Images, i)
			s.Labels = append(s.Labels, ds.label(i))
			s.Names = append(s.Names, ds.ItemName(i))
		}
	}
	if s.Subs != nil {
		s.Labels, s.Names = s.Subs.Labels, s.Subs.Names
	}
	return s, nil
}

// ClassMap maps the data set's classes to the classes of a classifier
// whose class c is named names[c] ("" when it has no name): by name when
// some class has a name; else, only when the data have as many classes as
// the classifier, by index (class i of the data is class i of the
// classifier). out[i] is the classifier's class of ds.Classes[i], -1
// when the classifier does not know it (empty for data without labels).
// A classifier without names and data with another number of classes
// share no class that can be told: every class is -1, rather than
// class i of a subset (apple, cup, pear of eight) silently matched to the
// classifier's class i.
func (ds *Dataset) ClassMap(names []string) []int {
	byName := map[string]int{}
	for c, n := range names {
		if n != "" {
			byName[n] = c
		}
	}
	byIndex := len(byName) == 0 && len(names) == len(ds.Classes)
	out := make([]int, len(ds.Classes))
	for i, n := range ds.Classes {
		out[i] = -1
		if c, ok := byName[n]; ok {
			out[i] = c
		} else if byIndex {
			out[i] = i
		}
	}
	return out
}

// allItems returns 0, 1, ..., n-1.
func allItems(n int) []int {
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	return all
}

// basesOfDim returns the bases of ds (BasisSubspaces) with their first d
// columns (subspace.Truncate): for bases of left singular vectors in
// descending order, as an SVD gives them, the subspace of d images' worth
// of the set's leading directions, as if built with d. d above the bases'
// columns is an error.
func basesOfDim(ds *Dataset, d int) (*Subspaces, error) {
	if d < 1 || d > ds.SubDim {
		return nil, fmt.Errorf("dataset: %s holds bases of d=%d, not %d", ds.Source, ds.SubDim, d)
	}
	subs, err := BasisSubspaces(ds, nil)
	if err != nil || d == ds.SubDim {
		return subs, err
	}
	for i, s := range subs.Subs {
		if subs.Subs[i], err = subspace.Truncate(s, d); err != nil {
			return nil, err
		}
	}
	return subs, nil
}
