package baseline

import (
	"flag"
	"io"
	"slices"
	"testing"
)

// TestMethodList: the flag alone is DefaultMethods, a list is read with
// duplicates dropped, a bad name is an error.
func TestMethodList(t *testing.T) {
	parse := func(args ...string) (MethodList, error) {
		var l MethodList
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Var(&l, "baselines", "")
		err := fs.Parse(args)
		return l, err
	}
	if l, err := parse("-baselines"); err != nil || !slices.Equal(l, DefaultMethods()) {
		t.Errorf("alone: %v, %v", l, err)
	}
	l, err := parse("-baselines=svm,1nn-geodesic,SVM,3nn-msm")
	if want := (MethodList{{Kind: SVM}, {Kind: NN, K: 1, Distance: Geodesic}, {Kind: NN, K: 3, Distance: FirstAngle}}); err != nil || !slices.Equal(l, want) || l.String() != "svm,1nn-geodesic,3nn-msm" {
		t.Errorf("list: %v (%q), %v", l, l.String(), err)
	}
	if _, err := parse("-baselines=svm,knn"); err == nil {
		t.Error("bad name: no error")
	}
	if l, err := parse("-baselines=false"); err != nil || l != nil {
		t.Errorf("false: %v, %v", l, err)
	}
}
