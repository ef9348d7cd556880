package realdata

import (
	"os"
	"path/filepath"
	"testing"
)

// Env is the variable that names the data folder.
const Env = "GRLGQ_DATA"

// Dir returns the real-data folder: $GRLGQ_DATA, else the first shared/data
// found walking up from the working directory. It skips t unless the folder
// exists and holds every path of need (relative to it, e.g. "eth80" or
// "digits/digits.csv.gz").
func Dir(t testing.TB, need ...string) string {
	t.Helper()
	dir := os.Getenv(Env)
	if dir == "" {
		dir = find()
		if dir == "" {
			t.Skipf("real data not found: set %s to the shared data folder (needs %q)", Env, need)
		}
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Skipf("real data not found: %s=%s is not a folder; set it to the shared data folder", Env, dir)
	}
	for _, p := range need {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Skipf("real data %s not found under %s (set %s to the shared data folder): %v", p, dir, Env, err)
		}
	}
	return dir
}

// find returns the first shared/data folder found walking up from the
// working directory, or "".
func find() string {
	wd, err := os.Getwd()
	if err != nil {
		return ""
	}
	for d := wd; ; d = filepath.Dir(d) {
		p := filepath.Join(d, "shared", "data")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			return p
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}
