package baseline

import (
	"fmt"
	"math/rand/v2"

	"github.com/grlgq/grlgq/folds"
)

// Tuned is how a method whose parameter is chosen by inner
// cross-validation (the SVM's C, GDA's regularisation) was set up on one
// split.
type Tuned struct {
	// Param is the parameter used for the split's classifier (Method's
	// ParamName says which).
	Param float64 `json:"param"`
	// InnerFolds is K of the inner cross-validation that chose Param; 0
	// when there was none (fewer than two training sets could be
	// validated, or the training part has a single class) and Param is
	// the method's default.
	InnerFolds int `json:"inner_folds"`
	// Kept counts the training sets of one-set classes: they are in every
	// inner training part and never validated.
	Kept int `json:"kept,omitempty"`
	// InnerAccuracy is the chosen parameter's inner cross-validation
	// accuracy (0 without inner CV).
	InnerAccuracy float64 `json:"inner_accuracy"`
	// Iterations counts the SVM's SMO pair updates on the split (inner CV
	// and final fit); Unconverged the binary problems stopped by the
	// iteration cap before meeting the tolerance (their solution is
	// still used).
	Iterations  int `json:"iterations,omitempty"`
	Unconverged int `json:"unconverged,omitempty"`
}

// Note says in words how the parameter (named name: "C", "reg") was
// chosen: "C=4 by inner 5-fold CV", "... (3 one-set classes always
// trained)" or "C=1 default: no inner CV (fewer than 2 sets to validate
// or 1 class)".
func (f Tuned) Note(name string) string {
	if f.InnerFolds == 0 {
		return fmt.Sprintf("%s=%g default: no inner CV (fewer than 2 sets to validate or 1 class)", name, f.Param)
	}
	s := fmt.Sprintf("%s=%g by inner %d-fold CV", name, f.Param, f.InnerFolds)
	if f.Kept > 0 {
		s += fmt.Sprintf(" (%d one-set classes always trained)", f.Kept)
	}
	if f.Unconverged > 0 {
		s += fmt.Sprintf(", %d SMO problems stopped at the iteration cap", f.Unconverged)
	}
	return s
}

// streamInner is the PCG stream of the inner folds ("SVMI"); outer split f
// uses streamInner + f. The SVM and GDA share the inner folds of a split.
const streamInner = 0x53564d49_00000000

// innerSplits deals the training part train (classes cls) into at most
// inner folds with folds.Deal and the stream of split fold: classes of one
// item are kept out of every validation part; with fewer than 2 items left,
// or a single class, there are no folds. Returned indices are positions in
// train.
func innerSplits(train, cls []int, nc, inner int, seed uint64, fold int) (tr, va [][]int, kept int) {
	byClass := make([][]int, nc)
	for t := range train {
		byClass[cls[t]] = append(byClass[cls[t]], t)
	}
	eligible, classes := 0, 0
	for c, idx := range byClass {
		if len(idx) > 0 {
			classes++
		}
		if len(idx) == 1 {
			kept++
			byClass[c] = nil
		} else {
			eligible += len(idx)
		}
	}
	k := min(inner, eligible)
	if k < 2 || classes < 2 {
		return nil, nil, kept
	}
	rng := rand.New(rand.NewPCG(seed, streamInner+uint64(fold)))
	in := folds.Deal(len(train), byClass, k, rng)
	val := make([]bool, len(train))
	for _, idx := range byClass {
		for _, t := range idx {
			val[t] = true
		}
	}
	tr, va = make([][]int, k), make([][]int, k)
	for t := range train {
		for f := range k {
			if val[t] && in[t] == f {
				va[f] = append(va[f], t)
			} else {
				tr[f] = append(tr[f], t)
			}
		}
	}
	return tr, va, kept
}

// work is one goroutine's scratch.
type work struct {
	svm svmWork
	gda gdaWork
}

// tuner is a method with a parameter chosen over grid by inner CV.
type tuner struct {
	grid []float64 // ascending
	def  float64
	// up: ties of inner accuracy go to the larger value (GDA's
	// regularisation) instead of the smaller (the SVM's C): to the more
	// regularised model either way.
	up bool
	// fit trains on train (compact classes cls) for every value of grid
	// and writes the predictions of test for grid[g] to
	// pred[g*len(test)+t]; it returns SMO's iterations and unconverged
	// problems (0 for GDA).
	fit func(p *Pairs, train, cls []int, nc int, grid []float64, test, pred []int, w *work) (iters, unconverged int, err error)
	// keep trains on train with the parameter param and returns the
	// classifier (its own memory), for predictions on samples of the
	// table made later (EvaluateHoldouts' blocks).
	keep func(p *Pairs, train, cls []int, nc int, param float64, w *work) (m predictor, iters, unconverged int, err error)
}

// predictor is a trained classifier: it writes the class of test[t] (samples
// of the table) to pred[t].
type predictor interface {
	predict(p *Pairs, test, pred []int, w *work)
}
