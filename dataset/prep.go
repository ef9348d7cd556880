package dataset

import (
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/grlgq/grlgq/folds"
	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/subspace"
)

// Subspaces are points of the Grassmann manifold, ready for training or
// testing.
type Subspaces struct {
	Subs   []*subspace.Subspace
	Labels []int    // Labels[i] is the class of Subs[i] (index into the data set's Classes; NoLabel without labels)
	Names  []string // where Subs[i] came from: a set name, "image 17", "class 3 group 5"
	// Sources[i] are the item indices Subs[i] was built from: the images of
	// a set or group, the one image, or the one basis.
	Sources [][]int
	// Skipped lists the inputs left out (only with a SkipBad option).
	Skipped []Skip
}

// Skip is an input that could not become a subspace.
type Skip struct {
	Name string
	Err  error
}

// Len returns the number of subspaces.
func (s *Subspaces) Len() int { return len(s.Subs) }

// ErrTooSmall: a class has fewer images than a group needs.
var ErrTooSmall = errors.New("dataset: too few images")

// ErrNoLabels: what was asked needs labels (grouping images of one class,
// training) and the data have none.
var ErrNoLabels = errors.New("dataset: no labels")

// ErrArgument: an argument of a conversion to subspaces is out of range:
// an item index outside the data, a subspace dimension d below 1 or above
// the pixels, a group size m below d. It is the caller's mistake, not the
// data's (which are ErrTooSmall, subspace.ErrTooFewImages, ...).
var ErrArgument = errors.New("dataset: bad argument")

// SetOptions controls SetSubspaces.
type SetOptions struct {
	// D is the subspace dimension d (>= 1).
	D int
	// SkipBad leaves out sets with fewer than D images or rank below D and
	// lists them in Subspaces.Skipped, instead of failing.
	SkipBad bool
	// Workers computing SVDs in parallel; 0 means GOMAXPROCS. Results never
	// depend on it.
	Workers int
	// Progress, if non-nil, is called after each subspace computed with
	// the subspaces done and the total, one call at a time.
	Progress func(done, total int)
}

// SetSubspaces turns the image sets ds.Sets[i], i in sets (nil: all), into
// d-dimensional subspaces (subspace.Converter: first d left singular vectors
// of the D x m set, uncentred). A set with fewer than d images or of rank
// below d is an error naming it (errors.Is subspace.ErrTooFewImages or
// subspace.ErrRankDeficient), unless opt.SkipBad.
func SetSubspaces(ds *Dataset, sets []int, opt SetOptions) (*Subspaces, error) {
	if ds.Images == nil || ds.Sets == nil {
		return nil, fmt.Errorf("dataset: %s: no image sets", ds.Source)
	}
	if err := ds.Validate(); err != nil {
		return nil, err
	}
	if sets == nil {
		sets = allItems(len(ds.Sets))
	}
	jobs := make([]job, len(sets))
	for j, si := range sets {
		if si < 0 || si >= len(ds.Sets) {
			return nil, fmt.Errorf("%w: %s: set index %d outside [0, %d)", ErrArgument, ds.Source, si, len(ds.Sets))
		}
		s := ds.Sets[si]
		jobs[j] = job{name: s.Name, label: s.Label, images: s.Images}
	}
	return convert(ds, jobs, opt.D, opt.SkipBad, opt.Workers, opt.Progress)
}

// GroupOptions controls GroupSubspaces.
type GroupOptions struct {
	// M is the number of images per group (the m of a D x m set).
	M int
	// D is the subspace dimension d, 1 <= D <= M.
	D int
	// Groupings is how many times the training images are grouped, each
	// time with a fresh shuffle; 0 means 1.
	Groupings int
	// Seed of the PCG generator that shuffles.
	Seed uint64
	// SkipBad leaves out groups of rank below D, and classes with fewer
	// than M images, listing them in Subspaces.Skipped, instead of failing.
	SkipBad bool
	// Workers computing SVDs in parallel; 0 means GOMAXPROCS.
	Workers int
	// Progress, if non-nil, is called after each subspace computed with
	// the subspaces done and the total, one call at a time.
	Progress func(done, total int)
}

// GroupSubspaces builds training subspaces for image-classification data
// (MNIST, Yale B): for each class (ascending) and each grouping, the
// class's images among items (nil: all) are grouped by Groups (shuffled,
// cut into groups of M, the last group completed with images from the
// start of the shuffle); each group is a D x M set turned into a
// d-dimensional subspace. A class of items with fewer than M images is an
// error (ErrTooSmall) unless opt.SkipBad; no class with M images (or no
// items) is an error (ErrTooSmall) even with SkipBad. An index outside the
// images, or M and D out of range, is an error wrapping ErrArgument.
// Deterministic for a given seed, whatever Workers.
func GroupSubspaces(ds *Dataset, items []int, opt GroupOptions) (*Subspaces, error) {
	if ds.Images == nil {
		return nil, fmt.Errorf("dataset: %s: no images to group", ds.Source)
	}
	if !ds.Labelled() {
		return nil, fmt.Errorf("%w: %s: grouping images into sets of one class needs their classes", ErrNoLabels, ds.Source)
	}
	if err := ds.Validate(); err != nil {
		return nil, err
	}
	if opt.M < 1 || opt.D < 1 || opt.D > opt.M {
		return nil, fmt.Errorf("%w: groups of m=%d images for d=%d: want 1 <= d <= m", ErrArgument, opt.M, opt.D)
	}
	if items == nil {
		items = allItems(len(ds.Images))
	}
	groupings := max(opt.Groupings, 1)
	sub := make([]int, len(items))
	for i, it := range items {
		if it < 0 || it >= len(ds.Images) {
			return nil, fmt.Errorf("%w: %s: image index %d outside [0, %d)", ErrArgument, ds.Source, it, len(ds.Images))
		}
		sub[i] = ds.Labels[it]
	}
	var (
		jobs    []job
		skipped []Skip
	)
	rng := newRand(opt.Seed, streamGroups)
	largest := 0
	for c, idx := range folds.ByClass(sub) { // labels of a loaded data set are never negative
		largest = max(largest, len(idx))
		if len(idx) == 0 {
			continue
		}
		name := ds.className(c)
		if len(idx) < opt.M {
			err := fmt.Errorf("dataset: %s: class %s has %d training images, a group needs m=%d: %w", ds.Source, name, len(idx), opt.M, ErrTooSmall)
			if !opt.SkipBad {
				return nil, err
			}
			skipped = append(skipped, Skip{Name: "class " + name, Err: err})
			continue
		}
		p := make([]int, len(idx))
		for k, i := range idx {
			p[k] = items[i]
		}
		for g := range groupings {
			for k, imgs := range Groups(p, opt.M, rng) {
				jn := fmt.Sprintf("class %s group %d", name, k)
				if groupings > 1 {
					jn = fmt.Sprintf("class %s grouping %d group %d", name, g, k)
				}
				jobs = append(jobs, job{name: jn, label: c, images: imgs})
			}
		}
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("dataset: %s: no class has m=%d images among the %d given (the largest has %d): %w", ds.Source, opt.M, len(items), largest, ErrTooSmall)
	}
	out, err := convert(ds, jobs, opt.D, opt.SkipBad, opt.Workers, opt.Progress)
	if err != nil {
		return nil, err
	}
	out.Skipped = append(skipped, out.Skipped...)
	return out, nil
}

// ImageSubspaces turns single images ds.Images[i], i in items (nil: all),
// into 1-D subspaces x/‖x‖ (the test side of the image-classification
// protocol). An all-zero image is an error naming it (errors.Is
// subspace.ErrZeroImage) unless skipBad.
func ImageSubspaces(ds *Dataset, items []int, skipBad bool) (*Subspaces, error) {
	if ds.Images == nil {
		return nil, fmt.Errorf("dataset: %s: no images", ds.Source)
	}
	if ds.Labels != nil && len(ds.Labels) != len(ds.Images) {
		return nil, fmt.Errorf("dataset: %s: %d images, %d labels", ds.Source, len(ds.Images), len(ds.Labels))
	}
	if items == nil {
		items = allItems(len(ds.Images))
	}
	out := &Subspaces{}
	for _, i := range items {
		if i < 0 || i >= len(ds.Images) {
			return nil, fmt.Errorf("%w: %s: image index %d outside [0, %d)", ErrArgument, ds.Source, i, len(ds.Images))
		}
		name := "image " + strconv.Itoa(i)
		s, err := subspace.FromImage(ds.Images[i])
		if err != nil {
			err = fmt.Errorf("dataset: %s: %s: %w", ds.Source, name, err)
			if !skipBad {
				return nil, err
			}
			out.Skipped = append(out.Skipped, Skip{Name: name, Err: err})
			continue
		}
		out.add(s, ds.label(i), name, []int{i})
	}
	return out, nil
}

// BasisSubspaces wraps the precomputed bases ds.Bases[i], i in items (nil:
// all), as subspaces (copied into padded linalg.Dense; Values and Right
// are nil).
func BasisSubspaces(ds *Dataset, items []int) (*Subspaces, error) {
	if ds.Bases == nil {
		return nil, fmt.Errorf("dataset: %s: no bases", ds.Source)
	}
	if err := ds.Validate(); err != nil {
		return nil, err
	}
	if items == nil {
		items = allItems(len(ds.Bases))
	}
	out := &Subspaces{}
	d := ds.SubDim
	for _, i := range items {
		if i < 0 || i >= len(ds.Bases) {
			return nil, fmt.Errorf("%w: %s: basis index %d outside [0, %d)", ErrArgument, ds.Source, i, len(ds.Bases))
		}
		b := linalg.NewDense(ds.Dim, d)
		for r := 0; r < ds.Dim; r++ {
			copy(b.Row(r), ds.Bases[i][r*d:(r+1)*d])
		}
		out.add(&subspace.Subspace{Basis: b}, ds.label(i), ds.ItemName(i), []int{i})
	}
	return out, nil
}

func (s *Subspaces) add(sub *subspace.Subspace, label int, name string, src []int) {
	s.Subs = append(s.Subs, sub)
	s.Labels = append(s.Labels, label)
	s.Names = append(s.Names, name)
	s.Sources = append(s.Sources, src)
}

// label returns the class of item i, NoLabel without labels.
func (ds *Dataset) label(i int) int {
	if ds.Labels == nil {
		return NoLabel
	}
	return ds.Labels[i]
}

func (ds *Dataset) className(c int) string {
	if c >= 0 && c < len(ds.Classes) {
		return strconv.Quote(ds.Classes[c])
	}
	return strconv.Itoa(c)
}

// job is one image set to convert.
type job struct {
	name   string
	label  int
	images []int
}

// convert runs the SVDs of jobs on workers goroutines; each result depends
// only on its job, and results are kept in job order.
func convert(ds *Dataset, jobs []job, d int, skipBad bool, workers int, progress func(done, total int)) (*Subspaces, error) {
	if d < 1 {
		return nil, fmt.Errorf("%w: subspace dimension d=%d, want >= 1", ErrArgument, d)
	}
	if d > ds.Dim {
		return nil, fmt.Errorf("%w: %s: subspace dimension d=%d exceeds the %d pixels", ErrArgument, ds.Source, d, ds.Dim)
	}
	subs := make([]*subspace.Subspace, len(jobs))
	errs := make([]error, len(jobs))
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var (
		wg   sync.WaitGroup
		next = make(chan int)
		mu   sync.Mutex
		done int
	)
	tick := func() {
		if progress != nil {
			mu.Lock()
			done++
			progress(done, len(jobs))
			mu.Unlock()
		}
	}
	for range min(workers, max(len(jobs), 1)) {
		wg.Go(func() {
			conv := map[int]*subspace.Converter{} // one per set size m
			var imgs [][]float64
			convertOne := func(j int) {
				jb := jobs[j]
				m := len(jb.images)
				if m < d {
					errs[j] = fmt.Errorf("dataset: %s: set %s has %d images, fewer than d=%d: %w", ds.Source, jb.name, m, d, subspace.ErrTooFewImages)
					return
				}
				c := conv[m]
				if c == nil {
					var err error
					if c, err = subspace.NewConverter(ds.Dim, m, d); err != nil {
						errs[j] = fmt.Errorf("dataset: %s: set %s: %w", ds.Source, jb.name, err)
						return
					}
					conv[m] = c
				}
				imgs = imgs[:0]
				for _, i := range jb.images { // image k is column k
					imgs = append(imgs, ds.Images[i])
				}
				s, err := c.FromImages(imgs)
				if err != nil {
					errs[j] = fmt.Errorf("dataset: %s: set %s: %w", ds.Source, jb.name, err)
					return
				}
				subs[j] = s
			}
			for j := range next {
				convertOne(j)
				tick()
			}
		})
	}
	for j := range jobs {
		next <- j
	}
	close(next)
	wg.Wait()
	out := &Subspaces{}
	for j, jb := range jobs {
		if errs[j] != nil {
			if !skipBad || !skippable(errs[j]) {
				return nil, errs[j]
			}
			out.Skipped = append(out.Skipped, Skip{Name: jb.name, Err: errs[j]})
			continue
		}
		out.add(subs[j], jb.label, jb.name, jb.images)
	}
	return out, nil
}

// skippable tells data problems (which SkipBad may skip) from others.
func skippable(err error) bool {
	return errors.Is(err, subspace.ErrTooFewImages) || errors.Is(err, subspace.ErrRankDeficient) ||
		errors.Is(err, subspace.ErrNotFinite) || errors.Is(err, ErrTooSmall)
}

// String summarises s for logs: "N subspaces (K skipped: a, b, ...)".
func (s *Subspaces) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d subspaces", len(s.Subs))
	if len(s.Skipped) > 0 {
		names := make([]string, len(s.Skipped))
		for i, k := range s.Skipped {
			names[i] = k.Name
		}
		fmt.Fprintf(&b, " (%d skipped: %s)", len(s.Skipped), strings.Join(names, ", "))
	}
	return b.String()
}
