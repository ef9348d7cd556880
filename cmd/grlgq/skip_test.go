package main

import (
	"bytes"
	"encoding/binary"
	"path/filepath"
	"strings"
	"testing"
)

// Sets that are one subspace in two classes give steps whose two winners
// are both at distance 0: no gradient. Training skips them, counts them
// per epoch, reports them, and goes on (it used to stop with a numerical
// failure).
func TestTrainSkipsStepsWithoutGradient(t *testing.T) {
	dir := t.TempDir()
	data, labels := filepath.Join(dir, "x.npy"), filepath.Join(dir, "y.npy")
	const n, dim, d = 6, 5, 2
	var vals []float64
	labs := make([]int64, n)
	for i := 0; i < n; i++ {
		for r := 0; r < dim; r++ { // every set spans e1, e2
			for j := 0; j < d; j++ {
				v := 0.0
				if r == j {
					v = 1
				}
				vals = append(vals, v)
			}
		}
		labs[i] = int64(i % 2)
	}
	writeNPYFile(t, data, "<f8", "(6, 5, 2)", vals)
	lb := new(bytes.Buffer)
	binary.Write(lb, binary.LittleEndian, labs)
	writeNPYRaw(t, labels, "<i8", "(6,)", lb.Bytes())
	out := filepath.Join(dir, "m.grlgq")
	spec := "npy:" + data + "," + labels
	r := ok(t, "train", "-data", spec, "-d", "2", "-init", "sample", "-noise", "0", "-epochs", "3", "-o", out, "-json")
	js := decodeJSON(t, r.stdout, "history")
	hist := js["history"].([]any)
	if len(hist) != 3 {
		t.Fatalf("%d epochs in the history, want 3", len(hist))
	}
	for _, e := range hist {
		if got := e.(map[string]any)["skipped"].(float64); got != n {
			t.Fatalf("epoch skipped %v steps, want %d (every step)", got, n)
		}
	}
	r = ok(t, "train", "-data", spec, "-d", "2", "-init", "sample", "-noise", "0", "-epochs", "2", "-o", out)
	if !strings.Contains(r.stdout, "12 steps skipped") {
		t.Fatalf("the report does not count the skipped steps:\n%s", r.stdout)
	}
}
