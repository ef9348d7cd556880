package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestEdgeFlagRanges: -width and -height out of range are usage errors
// (exit 2) that state the range, before the model is read.
func TestEdgeFlagRanges(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing.grlgq") // never opened
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-width", "40000", "-height", "5"}, "0 to 32768"},
		{[]string{"-width", "-1", "-height", "5"}, "0 to 32768"},
		{[]string{"-width", "2048", "-height", "2048"}, "the limit is 1048576"},
		{[]string{"-width", "0", "-height", "5"}, "go together"},
		{[]string{"-width", "x"}, "invalid value"},
	} {
		args := append(append([]string{"-model", missing}, c.args...), "-")
		_, stderr, code := runEdge(t, nil, args...)
		if code != 2 || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "usage:") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}
