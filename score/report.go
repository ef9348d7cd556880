package score

// Metrics are the precision, recall and F1 score of one class, or their
// average over classes, and the support (the number of samples of the
// class or classes).
type Metrics struct {
	Precision float64 `json:"precision"`
	Recall    float64 `json:"recall"`
	F1        float64 `json:"f1"`
	Support   int     `json:"support"`
}

// ClassReport is the report of one class: its Metrics, the number of
// samples predicted as it (Predicted, of any true class, unknown ones
// included) and predicted right (Correct), and whether it enters the
// averages (Present: it has a sample or a prediction).
type ClassReport struct {
	Metrics
	Predicted int  `json:"predicted"`
	Correct   int  `json:"correct"`
	Present   bool `json:"present"`
}

// Report is scikit-learn's classification report of a Scores: per class
// precision, recall, F1 and support, their macro and weighted averages,
// and the accuracy.
//
// The definitions are scikit-learn's (precision_recall_fscore_support,
// classification_report) with zero_division=0: precision = Correct /
// Predicted, recall = Correct / Support, F1 = 2·P·R / (P+R), and each is
// 0 where its denominator is (a class never predicted has precision 0, a
// class without samples recall 0, P = R = 0 gives F1 0). Scikit-learn's
// default, zero_division="warn", gives the same numbers and a warning.
//
// The averages run over the present classes (with a sample or a
// prediction), the labels scikit-learn's classification_report takes by
// default: Macro is their plain mean, Weighted their mean weighted by
// support (0 when no class has a sample). A class of the classifier that
// no sample has and no prediction names is reported with zeros and
// Present false, and enters no average.
//
// Rejected samples (predicted Rejected) count in the support and against
// the recall of their true class and in no class's Predicted; samples of
// an unknown true class count in Predicted (against the precision) of the
// class they were given and in no class's support. The equivalent
// scikit-learn call is classification_report(y_true, y_pred,
// labels=PRESENT, zero_division=0) with PRESENT the present classes,
// which leaves out the rejections' label and the unknown classes. The
// Accuracy is Correct / N over all samples, rejected and unknown ones
// included (scikit-learn's accuracy_score).
type Report struct {
	Classes  []ClassReport `json:"per_class"`
	Macro    Metrics       `json:"macro_avg"`
	Weighted Metrics       `json:"weighted_avg"`
	Accuracy float64       `json:"accuracy"`
	// N, Correct, Rejected and Unknown are the Scores' counts.
	N        int `json:"n"`
	Correct  int `json:"correct"`
	Rejected int `json:"rejected"`
	Unknown  int `json:"unknown"`
}

// Report returns the classification report of s (see Report).
func (s *Scores) Report() *Report {
	r := &Report{Classes: make([]ClassReport, len(s.PerClass)), N: s.N, Correct: s.Correct, Rejected: s.Rejected, Unknown: s.Unknown}
	r.Accuracy = s.Accuracy()
	present, support := 0, 0
	for c, pc := range s.PerClass {
		pred := 0
		if c < len(s.Predicted) {
			pred = s.Predicted[c]
		}
		cr := ClassReport{Metrics: Metrics{Support: pc.N}, Predicted: pred, Correct: pc.Correct, Present: pc.N > 0 || pred > 0}
		cr.Precision = ratio(pc.Correct, pred)
		cr.Recall = ratio(pc.Correct, pc.N)
		if p, q := cr.Precision, cr.Recall; p+q > 0 {
			cr.F1 = 2 * p * q / (p + q)
		}
		r.Classes[c] = cr
		if !cr.Present {
			continue
		}
		present++
		support += pc.N
		r.Macro.Precision += cr.Precision
		r.Macro.Recall += cr.Recall
		r.Macro.F1 += cr.F1
		w := float64(pc.N)
		r.Weighted.Precision += w * cr.Precision
		r.Weighted.Recall += w * cr.Recall
		r.Weighted.F1 += w * cr.F1
	}
	r.Macro.Support, r.Weighted.Support = support, support
	if present > 0 {
		n := float64(present)
		r.Macro.Precision /= n
		r.Macro.Recall /= n
		r.Macro.F1 /= n
	}
	if support > 0 {
		n := float64(support)
		r.Weighted.Precision /= n
		r.Weighted.Recall /= n
		r.Weighted.F1 /= n
	}
	return r
}

// ratio is a/b, 0 when b is 0 (zero_division=0).
func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Pool returns the Scores of all the predictions that s counted, as if
// counted at once (the pooled scores of cross-validation's folds). The
// Scores must be of the same number of classes (else Pool panics); Pool
// of none is nil.
func Pool(s ...*Scores) *Scores {
	if len(s) == 0 {
		return nil
	}
	classes := len(s[0].PerClass)
	p := Count(classes, nil, nil)
	for _, x := range s {
		if len(x.PerClass) != classes || len(x.Confusion) != classes {
			panic("score: pooling scores of different numbers of classes")
		}
		p.N += x.N
		p.Correct += x.Correct
		p.Rejected += x.Rejected
		p.Unknown += x.Unknown
		for c := range classes {
			p.PerClass[c].N += x.PerClass[c].N
			p.PerClass[c].Correct += x.PerClass[c].Correct
			if c < len(x.Predicted) {
				p.Predicted[c] += x.Predicted[c]
			}
			for j, v := range x.Confusion[c] {
				p.Confusion[c][j] += v
			}
		}
	}
	return p
}
