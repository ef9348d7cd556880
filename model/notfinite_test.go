package model

import (
	"errors"
	"math"
	"testing"

	"github.com/grlgq/grlgq/engine"
	"github.com/grlgq/grlgq/linalg"
	"github.com/grlgq/grlgq/subspace"
	"github.com/grlgq/grlgq/svd"
)

// TestOneNotFinite: every layer's ErrNotFinite is the same value, so an
// error of any layer is errors.Is(err, ErrNotFinite) without translation.
func TestOneNotFinite(t *testing.T) {
	for name, e := range map[string]error{
		"svd": svd.ErrNotFinite, "linalg": linalg.ErrNotFinite,
		"engine": engine.ErrNotFinite, "subspace": subspace.ErrNotFinite,
	} {
		if e != ErrNotFinite {
			t.Errorf("%s.ErrNotFinite is not model.ErrNotFinite", name)
		}
	}
	if _, err := subspace.FromImage([]float64{1, 0, math.Inf(1)}); !errors.Is(err, ErrNotFinite) {
		t.Errorf("subspace.FromImage: err = %v, want ErrNotFinite", err)
	}
	if err := stepError("x", engine.ErrNotFinite); !errors.Is(err, ErrNotFinite) || errors.Is(err, ErrNumerical) || errors.Is(err, ErrData) {
		t.Errorf("stepError(ErrNotFinite) = %v: want ErrNotFinite only", err)
	}
	if err := stepError("x", svd.ErrNoConvergence); !errors.Is(err, ErrNumerical) || errors.Is(err, ErrNotFinite) {
		t.Errorf("stepError(ErrNoConvergence) = %v: want ErrNumerical", err)
	}
	if err := predictError(engine.ErrZeroImage); !errors.Is(err, ErrData) {
		t.Errorf("predictError(ErrZeroImage) = %v: want ErrData", err)
	}
}
