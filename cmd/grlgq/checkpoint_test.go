package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/grlgq/grlgq/model"
)

// TestCheckpointResume: train -checkpoint keeps the latest model while
// training; -resume of a checkpoint for the remaining epochs gives the
// uninterrupted run's model bit for bit; SIGINT saves a checkpoint and
// says how to continue.
func TestCheckpointResume(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "train.csv")
	writeCSV(t, data, 3, 12, 2)
	spec := []string{"-data", "csv:" + data, "-image", "8x8", "-pixel-max", "16", "-d", "3", "-m", "6", "-schedule", "step", "-step-every", "2", "-seed", "5", "-quiet"}
	train := func(extra ...string) {
		t.Helper()
		ok(t, append(append([]string{"train"}, spec...), extra...)...)
	}
	full := filepath.Join(dir, "full.grlgq")
	ck := filepath.Join(dir, "ck.grlgq")
	train("-epochs", "6", "-o", full, "-checkpoint", ck, "-checkpoint-every", "4")
	// Every 4 epochs and at the end: the last checkpoint is the model.
	if a, b := modelBytes(t, full), modelBytes(t, ck); !bytes.Equal(a, b) {
		t.Errorf("the checkpoint after the last epoch differs from the model")
	}
	// Three epochs, then three more from the checkpoint.
	half := filepath.Join(dir, "half.grlgq")
	train("-epochs", "3", "-o", half, "-checkpoint", ck)
	resumed := filepath.Join(dir, "resumed.grlgq")
	rspec := []string{"-data", "csv:" + data, "-image", "8x8", "-pixel-max", "16", "-m", "6", "-schedule", "step", "-step-every", "2", "-seed", "5", "-quiet"} // -d is the model's
	ok(t, append(append([]string{"train"}, rspec...), "-resume", ck, "-epochs", "3", "-o", resumed, "-checkpoint", ck)...)
	a, b := loadModel(t, full), loadModel(t, resumed)
	if a.Epochs() != 6 || b.Epochs() != 6 || !sameWeights(a, b) {
		t.Errorf("resumed after 3 of 6 epochs: not the uninterrupted model (epochs %d, %d)", a.Epochs(), b.Epochs())
	}
	fails(t, 2, []string{"-checkpoint FILE (with -checkpoint-every N)"}, append(append([]string{"train"}, spec...), "-o", half, "-checkpoint-every", "2")...)
	fails(t, 2, []string{"-checkpoint", "-o"}, append(append([]string{"train"}, spec...), "-o", half, "-checkpoint", half)...)

	// A cancelled run (what a program embedding the commands does): the
	// checkpoint of the last finished epoch and its line, then the usual
	// "interrupted".
	cc := filepath.Join(dir, "cancel.grlgq")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	var out, errb bytes.Buffer
	go func() {
		done <- runContext(ctx, append(append([]string{"train"}, spec...), "-epochs", "100000", "-o", filepath.Join(dir, "never.grlgq"), "-checkpoint", cc), &out, &errb)
	}()
	for start := time.Now(); time.Since(start) < 20*time.Second; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(cc); err == nil {
			break
		}
	}
	cancel()
	if code := <-done; code != 1 || !strings.Contains(errb.String(), "grlgq: train: checkpoint after epoch ") || !strings.HasSuffix(errb.String(), "\ngrlgq: interrupted\n") {
		t.Errorf("cancelled: exit %d, stderr %q", code, errb.String())
	}
	if m := loadModel(t, cc); m.Epochs() < 1 {
		t.Errorf("the cancelled run's checkpoint has %d epochs", m.Epochs())
	}

	// SIGINT while training: the checkpoint of the last finished epoch,
	// and the line that says how to continue.
	bin := grlgqBinary(t)
	sig := filepath.Join(dir, "sig.grlgq")
	args := append(append([]string{"train"}, spec...), "-epochs", "100000", "-o", filepath.Join(dir, "never.grlgq"), "-checkpoint", sig, "-checkpoint-every", "100000")
	var n int
	code, _, stderr, _ := signalRun(t, bin, syscall.SIGINT, 5*time.Second, func() bool {
		n++
		return n > 30
	}, args...)
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if code != 1 || len(lines) != 2 || !strings.Contains(lines[0], "checkpoint after epoch ") || !strings.Contains(lines[0], "-resume "+sig+" -epochs ") || lines[1] != "grlgq: interrupted" {
		t.Fatalf("SIGINT: exit %d, stderr %q", code, stderr)
	}
	m := loadModel(t, sig)
	if m.Epochs() < 1 || !strings.Contains(lines[0], "after epoch "+strconv.Itoa(m.Epochs())+" of 100000") {
		t.Errorf("the checkpoint has %d epochs; stderr %q", m.Epochs(), stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "never.grlgq")); err == nil {
		t.Error("the interrupted run wrote -o")
	}
	noTemps(t, dir)
}

// TestPredictOverrides: eval and predict take -reject and -temperature in
// place of the model's stored ones.
func TestPredictOverrides(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "train.csv")
	writeCSV(t, data, 3, 12, 2)
	mod := filepath.Join(dir, "m.grlgq")
	spec := []string{"-data", "csv:" + data, "-image", "8x8", "-pixel-max", "16"}
	ok(t, append(append([]string{"train"}, spec...), "-d", "3", "-m", "6", "-epochs", "2", "-o", mod, "-quiet")...)
	js := decodeJSON(t, ok(t, append(append([]string{"eval", "-model", mod}, spec...), "-json", "-reject", "1")...).stdout, "rejected", "n")
	if js["rejected"].(float64) != js["n"].(float64) {
		t.Errorf("-reject 1: %v of %v rejected, want all", js["rejected"], js["n"])
	}
	js = decodeJSON(t, ok(t, append(append([]string{"eval", "-model", mod}, spec...), "-json")...).stdout, "rejected")
	if js["rejected"].(float64) != 0 {
		t.Errorf("the stored reject margin 0: %v rejected", js["rejected"])
	}
	hot := ok(t, append(append([]string{"predict", "-model", mod}, spec...), "-json", "-temperature", "1000")...).stdout
	cold := ok(t, append(append([]string{"predict", "-model", mod}, spec...), "-json")...).stdout
	if hot == cold {
		t.Error("-temperature 1000 changed nothing in predict's output")
	}
	fails(t, 2, []string{"-temperature", "(0, 1e+06]"}, append(append([]string{"eval", "-model", mod}, spec...), "-temperature", "0")...)
	fails(t, 2, []string{"-reject", "[0, 1]"}, append(append([]string{"predict", "-model", mod}, spec...), "-reject", "2")...)
	// The help says so: left out, they are the model's, not a number
	// (train's are the defaults it stores).
	for _, cmd := range []string{"eval", "predict", "explain"} {
		flags := helpFlags(t, cmd)
		for _, name := range []string{"temperature", "reject"} {
			if d := flags[name][1]; !strings.HasSuffix(d, "; default the model's)") {
				t.Errorf("%s -%s: %s", cmd, name, d)
			}
		}
	}
	if d := helpFlags(t, "train")["temperature"][1]; !strings.HasSuffix(d, "; default 0.1)") {
		t.Errorf("train -temperature: %s", d)
	}
}

func modelBytes(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func loadModel(t *testing.T, path string) *model.Model {
	t.Helper()
	m, err := model.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// sameWeights compares two models' prototypes and relevances bit for bit
// (through their JSON export, whose numbers round-trip exactly).
func sameWeights(a, b *model.Model) bool {
	type weights struct {
		Relevances []float64     `json:"relevances"`
		Prototypes [][][]float64 `json:"prototypes"`
	}
	var wa, wb weights
	ja, err1 := a.MarshalJSON()
	jb, err2 := b.MarshalJSON()
	if err1 != nil || err2 != nil || json.Unmarshal(ja, &wa) != nil || json.Unmarshal(jb, &wb) != nil || len(wa.Prototypes) == 0 {
		return false
	}
	return reflect.DeepEqual(wa, wb)
}
