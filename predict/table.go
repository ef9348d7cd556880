package predict

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/grlgq/grlgq/model"
)

// Row is the prediction of one sample.
type Row struct {
	// Index is the sample's place in the data (0-based), Name its name
	// (see the package documentation).
	Index int    `json:"index"`
	Name  string `json:"name"`
	// True is the data's class of the sample ("" without a label).
	True string `json:"true,omitempty"`
	// Predicted is the nearest class (model.Prediction.Class), rejected or
	// not, and Class its index among Table.Classes.
	Predicted string `json:"predicted"`
	Class     int    `json:"class"`
	// Rejected reports a margin below the model's reject threshold.
	Rejected bool `json:"rejected"`
	// Correct is set for labelled data whose class the model knows: not
	// rejected, and Predicted is True. A sample of a class the model does
	// not know is not scored (nil).
	Correct *bool `json:"correct,omitempty"`
	// Margin is the label-free margin in [0, 1] (model.Prediction.Margin).
	Margin float64 `json:"margin"`
	// Mu is the paper's μ (model.Model.Mu), nil when the model does not
	// know the sample's label (or it has none).
	Mu *float64 `json:"mu,omitempty"`
	// Probabilities[c] is the probability of class Table.Classes[c].
	Probabilities []float64 `json:"probabilities"`
	// Nearest is the nearest prototype, Distances the distance to every
	// prototype (in the order of Table.PrototypeClasses).
	Nearest   int       `json:"nearest_prototype"`
	Distances []float64 `json:"distances"`
}

// Table is the predictions of a data set.
type Table struct {
	// Data names the data (its source), Samples what its samples are
	// ("images", "sets", "bases").
	Data    string `json:"data"`
	Samples string `json:"samples"`
	// Classes are the model's class names (its index for a class without
	// a name), PrototypeClasses the class of every prototype.
	Classes          []string `json:"classes"`
	PrototypeClasses []int    `json:"prototype_classes"`
	// Labelled reports labelled data; Correct counts the correct rows of
	// labelled data, among the N − Unscored rows that are scored.
	Labelled bool `json:"labelled"`
	Correct  int  `json:"correct"`
	// Unscored counts the rows of labelled data that are not scored, the
	// samples of the data's classes the model does not know, Unknown
	// (Samples.UnknownClasses); both are left out of the JSON when empty.
	Unscored int      `json:"unscored,omitempty"`
	Unknown  []string `json:"unknown_classes,omitempty"`
	// RejectMargin is the model's reject threshold of the margin.
	RejectMargin float64 `json:"reject_margin"`
	N            int     `json:"n"`
	Rows         []Row   `json:"predictions"`
}

// NewTable makes the table of the predictions preds (one per sample of s,
// in order) of the model m. Labelled data is scored, except the samples
// of classes m does not know: they are predicted like the others, but
// have no Correct, and Correct counts among the others only (Unscored,
// Unknown), so that one extra class in a test set neither marks its
// samples wrong nor changes the accuracy of the rest unsaid. Predictions
// of another number than s's samples, or of a class m does not have (of
// another model), are a programming error: NewTable panics.
func NewTable(m *model.Model, s *Samples, preds []model.Prediction) *Table {
	checkCount(s, preds)
	for i, p := range preds {
		if p.Class < 0 || p.Class >= m.NumClasses() {
			panic(fmt.Sprintf("predict: prediction %d is of class %d, the model has %d classes", i, p.Class, m.NumClasses()))
		}
	}
	t := &Table{Data: s.Data.Source, Samples: s.Kind.String(), PrototypeClasses: m.Labels(),
		Labelled: s.Data.Labelled(), RejectMargin: m.PredictConfig().RejectMargin, N: len(preds), Rows: make([]Row, len(preds))}
	if t.Labelled {
		t.Unknown = s.UnknownClasses()
	}
	for c, n := range classNames(m) {
		if n == "" {
			n = strconv.Itoa(c)
		}
		t.Classes = append(t.Classes, n)
	}
	for i := range preds {
		p := &preds[i]
		r := Row{Index: i, Name: s.Names[i], True: s.TrueName(i), Predicted: t.Classes[p.Class], Class: p.Class,
			Rejected: p.Rejected, Margin: p.Margin, Nearest: p.Nearest,
			Probabilities: append([]float64(nil), p.Probabilities...), Distances: append([]float64(nil), p.Distances...)}
		switch {
		case t.Labelled && s.Truth[i] >= 0:
			ok := p.Label >= 0 && p.Label == s.Truth[i]
			r.Correct = &ok
			if ok {
				t.Correct++
			}
		case t.Labelled:
			t.Unscored++
		}
		if s.Truth[i] >= 0 {
			mu := m.Mu(p, s.Truth[i])
			r.Mu = &mu
		}
		t.Rows[i] = r
	}
	return t
}

// WriteJSON writes the table as one indented JSON object (the fields'
// tags name its keys; floats in the shortest form that parses back to
// the same bits).
func (t *Table) WriteJSON(w io.Writer) error {
	b, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteCSV writes the table as CSV (RFC 4180), one line per sample after
// a header: index, name, then for labelled data true; predicted,
// rejected, margin; for labelled data mu and correct (both empty when the
// model does not know the class); then p_CLASS, the probability of each
// class. Floats are in the shortest form that parses back to the same
// bits, booleans true or false.
func (t *Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := []string{"index", "name"}
	if t.Labelled {
		head = append(head, "true")
	}
	head = append(head, "predicted", "rejected", "margin")
	if t.Labelled {
		head = append(head, "mu", "correct")
	}
	for _, c := range t.Classes {
		head = append(head, "p_"+c)
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	rec := make([]string, 0, len(head))
	for _, r := range t.Rows {
		rec = append(rec[:0], strconv.Itoa(r.Index), r.Name)
		if t.Labelled {
			rec = append(rec, r.True)
		}
		rec = append(rec, r.Predicted, strconv.FormatBool(r.Rejected), g(r.Margin))
		if t.Labelled {
			mu := ""
			if r.Mu != nil {
				mu = g(*r.Mu)
			}
			correct := ""
			if r.Correct != nil {
				correct = strconv.FormatBool(*r.Correct)
			}
			rec = append(rec, mu, correct)
		}
		for _, p := range r.Probabilities {
			rec = append(rec, g(p))
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
