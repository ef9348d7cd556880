package baseline

import (
	"context"
	"errors"
	"testing"
)

// FuzzEvaluate feeds arbitrary labels, splits and options to Evaluate on
// a fixed small table: it must return a result or an ErrData error, never
// panic, hang or allocate by what the bytes claim.
func FuzzEvaluate(f *testing.F) {
	x, _ := synth(f, 3, 3, 12, 2, 3, 0.5, 5)
	p, err := NewPairs(context.Background(), x, 1)
	if err != nil {
		f.Fatal(err)
	}
	n := len(x)
	f.Add([]byte{0, 0, 0, 1, 1, 1, 2, 2, 2, 2, 6, 0, 1, 2, 3, 4, 5, 3, 6, 7, 8}, uint8(5), uint8(3), uint8(1))
	f.Add([]byte{5, 5, 9, 9, 0, 0, 7, 7, 7, 1, 1, 0, 1, 0}, uint8(2), uint8(1), uint8(0))
	f.Fuzz(func(t *testing.T, b []byte, inner, k, dist uint8) {
		if len(b) < n {
			return
		}
		y := make([]int, n)
		for i := range y {
			y[i] = int(int8(b[i]))
		}
		b = b[n:]
		// Splits: a count, then for each part a length and indices
		// (as signed bytes, so out of range and negative ones occur).
		var splits []Split
		for len(b) > 0 && len(splits) < 4 {
			var s Split
			for part := range 2 {
				if len(b) == 0 {
					break
				}
				m := int(b[0]) % 16
				b = b[1:]
				for j := 0; j < m && len(b) > 0; j++ {
					v := int(int8(b[0]))
					b = b[1:]
					if part == 0 {
						s.Train = append(s.Train, v)
					} else {
						s.Val = append(s.Val, v)
					}
				}
			}
			splits = append(splits, s)
		}
		opt := Options{
			InnerFolds: int(inner) % 8,
			Methods:    []Method{{Kind: NN, K: int(k), Distance: Distance(dist % 4)}, {Kind: SVM}, {Kind: GDA}},
			GDAGrid:    []float64{1e-2, 1},
			CGrid:      []float64{0.25, 4},
		}
		res, err := p.Evaluate(context.Background(), y, splits, opt)
		if err != nil {
			if !errors.Is(err, ErrData) {
				t.Fatalf("error not ErrData: %v", err)
			}
			return
		}
		for _, m := range res.Methods {
			for f, c := range m.Correct {
				if c < 0 || c > m.N[f] || m.N[f] != len(splits[f].Val) {
					t.Fatalf("%s split %d: %d of %d", m.Name, f, c, m.N[f])
				}
			}
		}
	})
}

// FuzzParseMethod: any string parses or fails; what parses prints back
// to itself.
func FuzzParseMethod(f *testing.F) {
	for _, s := range []string{"svm", "gda", "1nn-geodesic", "5NN-chordal", "nn-msm", "0nn-msm", "99999999999nn-msm"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMethod(s)
		if err != nil {
			return
		}
		back, err := ParseMethod(m.String())
		if err != nil || back != m {
			t.Fatalf("%q -> %v -> %q -> %v, %v", s, m, m.String(), back, err)
		}
	})
}
