package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/grlgq/grlgq/model"
)

// TestDistanceFlag: -distance chordal trains a chordal model (stored:
// inspect and the file say so), explain names the distance and prints
// every angle's contribution λ_k sin²θ_k, eval and cv take it, -resume
// keeps it and refuses the flag, and an unknown distance is a usage error
// naming the choices.
func TestDistanceFlag(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	writeCSV(t, data, 3, 12, 4)
	spec := "csv:" + data
	mod := filepath.Join(dir, "c.grlgq")
	r := ok(t, "train", "-data", spec, "-image", "8x8", "-m", "4", "-d", "2", "-epochs", "2", "-distance", "chordal", "-o", mod)
	if !strings.Contains(r.stdout, "chordal distance") {
		t.Errorf("train does not say the distance:\n%s", r.stdout)
	}
	r = ok(t, "train", "-data", spec, "-image", "8x8", "-m", "4", "-d", "2", "-epochs", "1", "-distance", "chordal", "-json", "-o", filepath.Join(dir, "j.grlgq"))
	if j := decodeJSON(t, r.stdout, "distance"); j["distance"] != "chordal" {
		t.Errorf("train -json: distance %v", j["distance"])
	}
	m, err := model.LoadFile(mod)
	if err != nil {
		t.Fatal(err)
	}
	if m.Config().Distance != model.Chordal {
		t.Fatalf("trained distance %v", m.Config().Distance)
	}
	r = ok(t, "inspect", mod)
	for _, want := range []string{"version 3", "distance    chordal (Σ λ_k sin²θ_k)"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, r.stdout)
		}
	}
	r = ok(t, "inspect", mod, "-json")
	if j := decodeJSON(t, r.stdout, "config"); j["config"].(map[string]any)["distance"] != "chordal" {
		t.Errorf("inspect -json: config %v", j["config"])
	}
	ex := filepath.Join(dir, "ex")
	r = ok(t, "explain", "-model", mod, "-data", spec, "-image", "8x8", "-m", "4", "-o", ex, "-n", "2")
	for _, want := range []string{"(chordal distance)", "d+ = ", "d- = ", "λ_k sin²θ_k per angle ["} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("explain output lacks %q:\n%s", want, r.stdout)
		}
	}
	r = ok(t, "explain", "-model", mod, "-data", spec, "-image", "8x8", "-o", filepath.Join(dir, "ex1"), "-n", "1")
	for _, want := range []string{"(chordal distance)", "d+ = sin²θ_1 = "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("explain output lacks %q:\n%s", want, r.stdout)
		}
	}
	b, err := os.ReadFile(filepath.Join(ex, "explanation.json"))
	if err != nil {
		t.Fatal(err)
	}
	if j := decodeJSON(t, string(b), "distance", "note"); j["distance"] != "chordal" || !strings.Contains(j["note"].(string), "sin^2") {
		t.Errorf("explanation.json: distance %v, note %v", j["distance"], j["note"])
	}
	ok(t, "eval", "-model", mod, "-data", spec)
	r = ok(t, "cv", "-data", spec, "-image", "8x8", "-m", "4", "-d", "2", "-folds", "2", "-epochs", "2", "-distance", "chordal")
	if !strings.Contains(r.stdout, "chordal") {
		t.Errorf("cv does not say the distance:\n%s", r.stdout)
	}
	// -resume keeps the model's distance and refuses the flag.
	more := filepath.Join(dir, "more.grlgq")
	ok(t, "train", "-data", spec, "-m", "4", "-epochs", "1", "-resume", mod, "-o", more, "-quiet")
	if m, err := model.LoadFile(more); err != nil || m.Config().Distance != model.Chordal {
		t.Errorf("resumed model: %v, %v", err, m.Config().Distance)
	}
	fails(t, 2, []string{"-resume", "-distance"}, "train", "-data", spec, "-epochs", "1", "-resume", mod, "-o", more, "-distance", "geodesic")
	// A geodesic model (the default) stays version 2 and says so.
	geo := filepath.Join(dir, "g.grlgq")
	ok(t, "train", "-data", spec, "-image", "8x8", "-m", "4", "-d", "2", "-epochs", "1", "-o", geo, "-quiet")
	if r := ok(t, "inspect", geo); !strings.Contains(r.stdout, "version 2") || !strings.Contains(r.stdout, "distance    geodesic (Σ λ_k θ_k²)") {
		t.Errorf("geodesic model:\n%s", r.stdout)
	}
	fails(t, 2, []string{"-distance", "geodesic", "chordal"}, "train", "-data", spec, "-distance", "euclid", "-o", mod)
}
