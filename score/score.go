package score

import "math"

// Rejected is the predicted class of a sample the classifier declined to
// classify.
const Rejected = -1

// Class is the count of one true class: N samples, Correct of them
// predicted as that class.
type Class struct {
	N, Correct int
}

// Recall is Correct/N, NaN when the class has no sample.
func (c Class) Recall() float64 {
	if c.N == 0 {
		return math.NaN()
	}
	return float64(c.Correct) / float64(c.N)
}

// Scores are the counts of predictions against true classes (see Count).
type Scores struct {
	// N samples, Correct of them predicted right, Rejected of them not
	// classified, Unknown of them of a true class outside 0..C-1.
	N, Correct, Rejected, Unknown int
	// PerClass[c] counts the samples of true class c.
	PerClass []Class
	// Confusion[t][p] counts the samples of true class t predicted as p;
	// each row has C+1 entries, the last counting t's rejections.
	Confusion [][]int
	// Predicted[p] counts the samples predicted as class p, of any true
	// class (unknown ones included): the denominator of p's precision.
	Predicted []int
}

// Count scores the predictions pred against the true classes truth for a
// classifier of classes classes: pred[i] is sample i's predicted class
// (Rejected, or 0..classes-1), truth[i] its true class (outside
// 0..classes-1: unknown to the classifier). It panics when the slices'
// lengths differ or a predicted class is out of range.
func Count(classes int, truth, pred []int) *Scores {
	if len(truth) != len(pred) {
		panic("score: length mismatch")
	}
	s := &Scores{PerClass: make([]Class, classes), Confusion: make([][]int, classes), Predicted: make([]int, classes)}
	for c := range s.Confusion {
		s.Confusion[c] = make([]int, classes+1)
	}
	for i, t := range truth {
		p := pred[i]
		if p < Rejected || p >= classes {
			panic("score: predicted class out of range")
		}
		s.N++
		if p == Rejected {
			s.Rejected++
			p = classes
		} else {
			s.Predicted[p]++
		}
		if t < 0 || t >= classes {
			s.Unknown++
			continue
		}
		s.Confusion[t][p]++
		s.PerClass[t].N++
		if p == t {
			s.Correct++
			s.PerClass[t].Correct++
		}
	}
	return s
}

// Accuracy is Correct/N (0 when there is no sample).
func (s *Scores) Accuracy() float64 { return float64(s.Correct) / float64(max(s.N, 1)) }

// Correct counts the samples whose predicted class is their true class
// (rejected and unknown samples never are): Count(...).Correct without
// the tables.
func Correct(truth, pred []int) int {
	if len(truth) != len(pred) {
		panic("score: length mismatch")
	}
	n := 0
	for i, t := range truth {
		if t >= 0 && pred[i] == t {
			n++
		}
	}
	return n
}

// MeanSD returns the mean and the sample standard deviation (n−1; 0 for
// one value) of x, summed in order; NaN, NaN for none. Cross-validation
// (package selection) and the paper protocols report accuracies with it.
func MeanSD(x []float64) (mean, sd float64) {
	if len(x) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	if len(x) < 2 {
		return mean, 0
	}
	var ss float64
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(ss / float64(len(x)-1))
}
