package base

import (
	"runtime/debug"
	"strings"
)

// Version returns the version of the running binary's main module, as
// debug.ReadBuildInfo records it: a release ("v1.2.0") or pseudo-version
// when built with go install MODULE@VERSION; "(devel)" when built from a
// checkout, followed by the commit, its time and "modified" when the
// tree had changes, where the build recorded them (go build in a git
// checkout); "unknown" without build information.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, at string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" || (v != "(devel)" && !strings.Contains(v, "+dirty")) {
		return v
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	v += " " + rev
	if at != "" {
		v += " " + at
	}
	if modified {
		v += " modified"
	}
	return v
}
