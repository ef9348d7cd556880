package paper

import (
	"os"
	"path/filepath"
	"testing"
)

// dataDir returns the real-data root (env GRLGQ_DATA, else ../../../shared/data
// or ../../shared/data relative to this package) or skips the test.
func dataDir(t testing.TB, need string) string {
	t.Helper()
	cands := []string{os.Getenv("GRLGQ_DATA"), "../../../shared/data", "../../shared/data"}
	for _, d := range cands {
		if d == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(d, need)); err == nil {
			return d
		}
	}
	t.Skipf("real data %q not found: set GRLGQ_DATA to the shared data folder (tried %q)", need, cands)
	return ""
}
