package baseline

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Kind is a family of baseline classifiers.
type Kind uint8

const (
	// NN is k-nearest-neighbours under a Distance.
	NN Kind = iota
	// SVM is the one-vs-one soft-margin SVM with the projection kernel
	// ‖XᵀY‖²_F, C chosen by inner cross-validation.
	SVM
	// GDA is Grassmann Discriminant Analysis: kernel Fisher discriminant
	// analysis with the projection kernel, then the nearest neighbour in
	// the discriminant space; its regularisation chosen by inner
	// cross-validation.
	GDA
)

// Method is one baseline: a Kind and, for NN, its K and Distance.
type Method struct {
	Kind Kind
	// K is the number of neighbours of NN (>= 1).
	K int
	// Distance is NN's distance.
	Distance Distance
}

// DefaultMethods are the rows a reviewer of an image-set paper asks for:
// 1-NN with the geodesic, chordal and first-angle (MSM) distances, 5-NN
// geodesic and the projection-kernel SVM.
func DefaultMethods() []Method {
	return []Method{
		{Kind: NN, K: 1, Distance: Geodesic},
		{Kind: NN, K: 1, Distance: Chordal},
		{Kind: NN, K: 1, Distance: FirstAngle},
		{Kind: NN, K: 5, Distance: Geodesic},
		{Kind: SVM},
	}
}

// String returns the method's name as ParseMethod reads it: "1nn-geodesic",
// "5nn-chordal", "1nn-msm", "svm", "gda".
func (m Method) String() string {
	switch m.Kind {
	case NN:
		return fmt.Sprintf("%dnn-%s", m.K, m.Distance)
	case SVM:
		return "svm"
	case GDA:
		return "gda"
	}
	return fmt.Sprintf("Method(%d)", uint8(m.Kind))
}

// Title returns the method's name for a table: "1-NN geodesic", "1-NN MSM
// (first angle)", "SVM, projection kernel".
func (m Method) Title() string {
	switch m.Kind {
	case NN:
		if m.Distance == FirstAngle {
			return fmt.Sprintf("%d-NN MSM (first angle)", m.K)
		}
		return fmt.Sprintf("%d-NN %s", m.K, m.Distance)
	case SVM:
		return "SVM, projection kernel"
	case GDA:
		return "GDA, projection kernel"
	}
	return m.String()
}

// ParamName names the parameter chosen by inner cross-validation: "C"
// for SVM, "reg" for GDA, "" for NN.
func (m Method) ParamName() string {
	switch m.Kind {
	case SVM:
		return "C"
	case GDA:
		return "reg"
	}
	return ""
}

// MarshalText returns String's form.
func (m Method) MarshalText() ([]byte, error) {
	if err := m.check(); err != nil {
		return nil, err
	}
	return []byte(m.String()), nil
}

// UnmarshalText parses ParseMethod's form.
func (m *Method) UnmarshalText(b []byte) error {
	v, err := ParseMethod(string(b))
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// maxK bounds the neighbours of NN (a parse of "1000000000nn" must not
// allocate for it).
const maxK = 1 << 16

func (m Method) check() error {
	switch m.Kind {
	case NN:
		if m.K < 1 || m.K > maxK || m.Distance >= numDistances {
			return fmt.Errorf("baseline: %w: method %v (NN needs 1 <= K <= %d and a known distance)", ErrData, m, maxK)
		}
		return nil
	case SVM, GDA:
		return nil
	}
	return fmt.Errorf("baseline: %w: unknown method kind %d", ErrData, uint8(m.Kind))
}

// ParseMethod reads a method name: "Knn-geodesic", "Knn-chordal",
// "Knn-msm" (K a positive integer; "nn-..." is 1-NN), "svm" or "gda", in
// any case.
func ParseMethod(s string) (Method, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	switch t {
	case "svm":
		return Method{Kind: SVM}, nil
	case "gda":
		return Method{Kind: GDA}, nil
	}
	num, dist, ok := strings.Cut(t, "nn-")
	if ok {
		k := 1
		if num != "" {
			v, err := strconv.Atoi(num)
			if err != nil || v < 1 || v > maxK {
				ok = false
			}
			k = v
		}
		for d := range numDistances {
			if ok && dist == distanceNames[d] {
				return Method{Kind: NN, K: k, Distance: d}, nil
			}
		}
	}
	return Method{}, fmt.Errorf("baseline: unknown method %q (want Knn-geodesic, Knn-chordal, Knn-msm, svm or gda, K >= 1)", s)
}

// ParseMethods reads a comma-separated list of method names (ParseMethod);
// "default" stands for DefaultMethods.
func ParseMethods(s string) ([]Method, error) {
	var out []Method
	for f := range strings.SplitSeq(s, ",") {
		if strings.TrimSpace(strings.ToLower(f)) == "default" {
			out = append(out, DefaultMethods()...)
			continue
		}
		m, err := ParseMethod(f)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// MethodList is a list of methods as a flag.Value: Set reads
// ParseMethods' lists (duplicates dropped), and, as a boolean flag given
// alone ("true"), DefaultMethods; "false" empties it.
type MethodList []Method

// Set reads s (see MethodList).
func (l *MethodList) Set(s string) error {
	switch s {
	case "true":
		s = "default"
	case "false":
		*l = nil
		return nil
	}
	m, err := ParseMethods(s)
	if err != nil {
		return err
	}
	*l = nil
	for _, v := range m {
		if !slices.Contains(*l, v) {
			*l = append(*l, v)
		}
	}
	return nil
}

// String is the comma-separated names of the list.
func (l *MethodList) String() string {
	if l == nil {
		return ""
	}
	s := make([]string, len(*l))
	for i, m := range *l {
		s[i] = m.String()
	}
	return strings.Join(s, ",")
}

// IsBoolFlag makes the flag alone mean DefaultMethods.
func (l *MethodList) IsBoolFlag() bool { return true }
