package base

import (
	"strings"
	"testing"
)

// TestUint64Var: a uint64 flag takes any uint64 (decimal or 0x) and
// refuses the rest with its range, as the other ranged flags do.
func TestUint64Var(t *testing.T) {
	fs := NewFlagSet("x")
	var seed uint64
	Uint64Var(fs, &seed, "seed", 1, "seed")
	for in, want := range map[string]uint64{"0": 0, "18446744073709551615": 1<<64 - 1, "0x10": 16} {
		if err := Parse(fs, []string{"-seed", in}); err != nil || seed != want {
			t.Errorf("-seed %s: %d, %v; want %d", in, seed, err, want)
		}
	}
	for _, in := range []string{"-1", "18446744073709551616", "1e3", "x", ""} {
		err := Parse(fs, []string{"-seed", in})
		if err == nil || !strings.Contains(err.Error(), "want an integer from 0 to 2^64-1") {
			t.Errorf("-seed %q: %v, want the range", in, err)
		}
	}
	var b strings.Builder
	PrintDefaults(&b, fs, nil)
	if want := "  -seed uint\n    \tseed (range 0 to 2^64-1; default 1)\n"; b.String() != want {
		t.Errorf("usage %q, want %q", b.String(), want)
	}
}
