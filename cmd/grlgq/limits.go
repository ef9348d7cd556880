package main

import (
	"flag"

	"github.com/grlgq/grlgq/dataset"
	"github.com/grlgq/grlgq/model"
	"github.com/grlgq/grlgq/subspace"
)

// Limits of the flags that multiply work or memory: far above any real
// use, low enough that a mistyped value is a usage error instead of a run
// that takes all memory. The model's own limits (model.MaxEpochs, ...)
// bound the training flags.
const (
	maxSetImages  = 100000 // -m, -hard-m: images per set
	maxGroupings  = 100    // -groupings
	maxFolds      = 1000   // -folds (cv, train -tune): at most the smallest class's size
	maxHardCopies = 100    // -hard-copies
	maxShift      = 1000   // -shift, pixels
	maxExplain    = 10000  // explain -n
	maxRuns       = 1000   // repro -runs
	maxCVRepeats  = 100    // cv -repeats (as -tune-repeats)

	// Once the data are loaded: the training sets of one epoch (random
	// groups, and hard sets with their copies), and the memory of their
	// bases.
	maxTrainSets  = 1 << 22
	maxTrainBytes = 4 << 30
)

// checkSizes checks, once the data are loaded and before any set is
// built, that the flags' product with the data stays within the limits:
// the prototypes fit a model file (model.MaxFileBytes, what Load reads),
// -groupings and -hard-copies do not make more training sets than
// maxTrainSets, nor bases of more than maxTrainBytes.
//
// It also bounds what training holds in memory, since -resize can make a
// few tiny images into a large D: the D-dependent working memory (the
// prototypes' copies, model.TrainingValues; and, while images become
// subspaces, each worker's converter, subspace.ConverterValues) may take
// half of -max-values (lim.TotalValues, the budget the loaders apply to
// the data), and the data, the training bases (for -precision float32
// also their float32 copy) and that working memory together one and a
// half times it: with the default 2^26 values, about 768 MiB. When a -protos given is what takes the working memory over,
// the message names the prototypes first, with the most that fit.
func checkSizes(fs *flag.FlagSet, ds *dataset.Dataset, o model.Options, m, groups, copies, hardM int, images bool, lim dataset.Limits) error {
	classes := len(ds.Classes)
	d := o.Model.SubspaceDim
	basis := model.BasisValues(ds.Dim, d) * 8 // bytes of one basis in memory
	p := o.Model.NumPrototypes(classes)
	if p > model.MaxPrototype {
		return usagef(fs, "-protos for %d classes: %d prototypes, the limit is %d", classes, p, model.MaxPrototype)
	}
	if p*basis > model.MaxFileBytes {
		return usagef(fs, "%d prototypes of D=%d x d=%d take %d bytes, a model holds at most %d: lower -protos or -d, or resize the images", p, ds.Dim, d, p*basis, int64(model.MaxFileBytes))
	}
	budget := lim.WithDefaults().TotalValues
	work := workingValues(ds, o, p, m, images)
	if work > budget/2 {
		if fit := prototypesFit(ds, o, p, work, budget/2); isSet(fs, "protos") && fit >= int64(classes) {
			// Fewer prototypes would fit: the count asked for comes first.
			return usagef(fs, "-protos for %d classes: %d prototypes, the limit is %d at D=%d, d=%d: they need about %d values of working memory, over the limit of %d, half of -max-values (lower -protos, raise -max-values, or resize the images smaller)", classes, p, fit, ds.Dim, d, work, budget/2)
		}
		return usagef(fs, "training at D=%d (d=%d, %d prototypes) needs about %d values of working memory, over the limit of %d, half of -max-values (raise it with -max-values, or resize the images smaller)", ds.Dim, d, p, work, budget/2)
	}
	if images || ds.Kind() != dataset.KindImages {
		return nil
	}
	n := int64(len(ds.Images))
	sets := int64(groups) * (n/int64(m) + int64(classes))
	if sets > maxTrainSets || sets*basis > maxTrainBytes {
		return usagef(fs, "-groupings %d: about %d training sets of %d bytes each; the limits are %d sets and %d bytes: lower -groupings or raise -m", groups, sets, basis, maxTrainSets, int64(maxTrainBytes))
	}
	bases := sets * basis / 8
	if o.Model.Precision == model.Float32 {
		// Its training also holds the bases rounded to float32, once
		// (4 bytes a value, no padding: half a value each).
		bases += sets * int64(ds.Dim) * int64(d) / 2
	}
	if total := n*int64(ds.Dim) + bases + work; total > budget+budget/2 {
		return usagef(fs, "training on %d images of D=%d in about %d sets holds about %d values (data, training bases, working memory), over the limit of %d, 1.5 times -max-values (raise it with -max-values, or lower -groupings, or resize the images smaller)", n, ds.Dim, sets, total, budget+budget/2)
	}
	if copies > 0 {
		if hardM == 0 {
			hardM = d
		}
		hard := int64(copies) * (n/int64(max(hardM, 1)) + int64(classes))
		if sets+hard > maxTrainSets {
			return usagef(fs, "-hard-copies %d: up to %d hard sets per epoch, %d training sets in all; the limit is %d: lower -hard-copies or raise -hard-m", copies, hard, sets+hard, maxTrainSets)
		}
	}
	return nil
}

// prototypesFit is how many prototypes of ds's D and o's d fit in limit
// values of working memory, the rest of work (that of p prototypes)
// staying what it is.
func prototypesFit(ds *dataset.Dataset, o model.Options, p, work, limit int64) int64 {
	per := model.TrainingValues(ds.Dim, o.Model.SubspaceDim, 1)
	rest := work - model.TrainingValues(ds.Dim, o.Model.SubspaceDim, int(min(p, model.MaxPrototype)))
	if per <= 0 || rest >= limit {
		return 0
	}
	return (limit - rest) / per
}

// workingValues estimates the float64 values training allocates besides
// the data and the training bases, for the D-dependent parts: the
// prototypes' copies, and (when images become subspaces) each worker's
// converter.
func workingValues(ds *dataset.Dataset, o model.Options, p int64, m int, images bool) int64 {
	work := model.TrainingValues(ds.Dim, o.Model.SubspaceDim, int(min(p, model.MaxPrototype)))
	if ds.Kind() != dataset.KindBases && !images {
		if ds.Kind() == dataset.KindSets {
			m = 0
			for _, s := range ds.Sets {
				m = max(m, len(s.Images))
			}
		}
		work += int64(max(o.Train.Workers, 1)) * subspace.ConverterValues(ds.Dim, m)
	}
	return work
}
