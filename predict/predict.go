package predict

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/grlgq/grlgq/dataset"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/score"
)

// Samples are a data set made ready for a model.
type Samples struct {
	// Samples are the data's samples (kind, names, the data's labels, and
	// the images or subspaces they come from).
	*dataset.Samples
	// Data is the data set.
	Data *dataset.Dataset
	// X[i] is sample i as the model takes it.
	X []model.Sample
	// Truth[i] is the model's class of sample i's label: -1 without a
	// label, or for a class the model does not know.
	Truth []int
}

// Prepare turns ds into the samples m classifies (dataset.EvalSamples with
// opt: single images for image data, or groups of opt.M with M > 0; one
// subspace per image set for folder data; the bases of npy data), and maps
// the data's classes to the model's by name (dataset.Dataset.ClassMap: for
// a model without class names, by index when the data have as many
// classes, else every class is unknown: UnknownClasses).
// opt.D is m's subspace dimension when zero, and must be it otherwise.
// The errors are dataset.EvalSamples's, and, wrapping model.ErrData, a
// data set whose images are not m's size (model.Model.Fits) and an opt.D
// that is not m's d.
func Prepare(m *model.Model, ds *dataset.Dataset, opt dataset.EvalOptions) (*Samples, error) {
	if err := m.Fits(ds.Dim, 0, nil); err != nil {
		return nil, fmt.Errorf("predict: %s: %w", ds.Source, err)
	}
	switch d := m.SubspaceDim(); opt.D {
	case 0:
		opt.D = d
	case d:
	default:
		return nil, fmt.Errorf("predict: %w: subspaces of d=%d (EvalOptions.D), the model has d=%d (0 takes it)", model.ErrData, opt.D, d)
	}
	ts, err := dataset.EvalSamples(ds, opt)
	if err != nil {
		return nil, err
	}
	s := &Samples{Samples: ts, Data: ds}
	if ts.Kind == dataset.KindImages {
		s.X = make([]model.Sample, len(ts.Images))
		for i, k := range ts.Images {
			s.X[i] = model.Image(ds.Images[k])
		}
	} else {
		s.X = model.Sets(ts.Subs.Subs)
	}
	cm := ds.ClassMap(classNames(m))
	s.Truth = make([]int, len(ts.Labels))
	for i, c := range ts.Labels {
		s.Truth[i] = -1
		if c >= 0 {
			s.Truth[i] = cm[c]
		}
	}
	return s, nil
}

// TrueName is the data's class name of sample i ("" without a label).
func (s *Samples) TrueName(i int) string {
	if c := s.Labels[i]; c >= 0 {
		return s.Data.Classes[c]
	}
	return ""
}

// UnknownClasses returns the data's classes of the samples whose label
// the model does not know (Truth −1), sorted by name: nil when it knows
// them all, and for data without labels.
func (s *Samples) UnknownClasses() []string {
	classes, _ := s.unknownIn(len(s.Truth), func(k int) int { return k })
	return classes
}

// UnknownAmong is UnknownClasses over the samples idx only (explain's,
// which explains some of the data), and n counts those of idx that are
// Unknown.
func (s *Samples) UnknownAmong(idx []int) (classes []string, n int) {
	return s.unknownIn(len(idx), func(k int) int { return idx[k] })
}

// unknownIn is UnknownAmong over the samples at(0), ..., at(n-1).
func (s *Samples) unknownIn(n int, at func(k int) int) (classes []string, unknown int) {
	seen := map[string]bool{}
	for k := range n {
		if i := at(k); s.Unknown(i) {
			seen[s.Data.Classes[s.Labels[i]]] = true
			unknown++
		}
	}
	return slices.Sorted(maps.Keys(seen)), unknown
}

// Unknown reports whether sample i has a label the model does not know
// (a class UnknownClasses names): it is predicted, and explained, as
// unlabelled, and not scored.
func (s *Samples) Unknown(i int) bool { return s.Truth[i] < 0 && s.Labels[i] >= 0 }

// Lookup returns the index of the sample named name (a set's name, or an
// image's file, or "row N"), or, when name is a number, that index; ok is
// false when there is none. A set of a labelled folder tree ("class/set")
// may also be named by its set folder alone, when no other class has a
// set of that name.
func (s *Samples) Lookup(name string) (i int, ok bool) {
	if i, err := strconv.Atoi(name); err == nil {
		return i, i >= 0 && i < s.Len()
	}
	found := -1
	for k, n := range s.Names {
		switch {
		case n == name:
			return k, true
		case s.Kind == dataset.KindSets && s.Data.Labelled() && len(n) > len(name) && n[len(n)-len(name)-1:] == "/"+name:
			if found >= 0 {
				return 0, false // ambiguous
			}
			found = k
		}
	}
	return found, found >= 0
}

// Images returns the data's indices of the images of sample i (a set's
// images in order, the one image of single-image data; none for a basis).
func (s *Samples) Images(i int) []int {
	switch s.Kind {
	case dataset.KindImages:
		return []int{s.Samples.Images[i]}
	case dataset.KindSets:
		return s.Subs.Sources[i]
	}
	return nil
}

// Misclassified returns the indices of the samples whose prediction is
// not their label (rejected ones included), in order; samples without a
// label, or with a class the model does not know, are not among them.
// preds are one per sample of s, in order: another number panics.
func (s *Samples) Misclassified(preds []model.Prediction) []int {
	checkCount(s, preds)
	var out []int
	for i, p := range preds {
		if t := s.Truth[i]; t >= 0 && p.Label != t {
			out = append(out, i)
		}
	}
	return out
}

// Block is the number of samples Run and All classify between two checks
// of their context.
const Block = 4096

// All classifies the samples x with m (model.Model.PredictBatchTo, on all
// the model's workers), in blocks of Block samples between checks of ctx:
// a cancelled ctx ends it soon with an error wrapping ctx.Err().
func All(ctx context.Context, m *model.Model, x []model.Sample) ([]model.Prediction, error) {
	out := make([]model.Prediction, len(x))
	err := blocks(ctx, len(x), func(i0, i1 int) error {
		return m.PredictBatchTo(out[i0:i1], x[i0:i1])
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Score classifies the samples x with m and counts the labels against
// the true classes y as model.Model.Score does (the same Scores), in
// blocks of Block samples between checks of ctx: a cancelled ctx ends it
// soon with an error wrapping ctx.Err().
func Score(ctx context.Context, m *model.Model, x []model.Sample, y []int) (*score.Scores, error) {
	if len(y) != len(x) {
		return nil, fmt.Errorf("predict: %w: %d samples and %d labels", model.ErrData, len(x), len(y))
	}
	pred := make([]int, len(x))
	err := blocks(ctx, len(x), func(i0, i1 int) error {
		return m.PredictLabelsTo(pred[i0:i1], x[i0:i1])
	})
	if err != nil {
		return nil, err
	}
	return score.Count(m.NumClasses(), y, pred), nil
}

// blocks calls do(i0, i1) for the blocks [i0, i1) of Block samples of n,
// in order, checking ctx before each; an error of a block after the
// first names the block's samples (the model's errors count a call's
// samples from 0).
func blocks(ctx context.Context, n int, do func(i0, i1 int) error) error {
	for i0 := 0; i0 < n; i0 += Block {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("predict: %w", err)
		}
		i1 := min(n, i0+Block)
		if err := do(i0, i1); err != nil {
			if i0 > 0 {
				return fmt.Errorf("samples %d..%d: %w", i0, i1-1, err)
			}
			return err
		}
	}
	return nil
}

// Run classifies every sample of s with m (All) and returns the table of
// the predictions (NewTable).
func Run(ctx context.Context, m *model.Model, s *Samples) (*Table, error) {
	preds, err := All(ctx, m, s.X)
	if err != nil {
		return nil, err
	}
	return NewTable(m, s, preds), nil
}

// checkCount panics unless preds are one per sample of s: a programming
// error, as a wrong count is for package score.
func checkCount(s *Samples, preds []model.Prediction) {
	if len(preds) != s.Len() {
		panic(fmt.Sprintf("predict: %d predictions for %d samples", len(preds), s.Len()))
	}
}

// classNames are the model's class names ("" for a class without one).
func classNames(m *model.Model) []string {
	out := make([]string, m.NumClasses())
	for c := range out {
		out[c] = m.ClassName(c)
	}
	return out
}
