package baseline

import (
	"context"
	"os"
	"testing"
)

func TestSmoke(t *testing.T) {
	x, y := synth(t, 4, 15, 100, 5, 6, 1.0, 1)
	res, err := Evaluate(context.Background(), x, y, kfold(y, 5, 1), Options{})
	if err != nil {
		t.Fatal(err)
	}
	res.Summary().WriteText(os.Stdout)
	res.PerSplit().WriteText(os.Stdout)
	for _, f := range res.Method(Method{Kind: SVM}).SVM {
		t.Log(f.Note(), f.InnerAccuracy, f.Iterations)
	}
}
