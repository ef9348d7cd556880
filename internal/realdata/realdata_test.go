package realdata

import (
	"os"
	"path/filepath"
	"testing"
)

// dirOf runs Dir in a subtest and reports what it returned and whether it
// skipped.
func dirOf(t *testing.T, need ...string) (dir string, skipped bool) {
	t.Run("Dir", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		dir = Dir(t, need...)
	})
	return dir, skipped
}

func TestDir(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "eth80"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(Env, root)
	if dir, skipped := dirOf(t, "eth80"); skipped || dir != root {
		t.Fatalf("eth80 present: %q, skipped %v", dir, skipped)
	}
	if dir, skipped := dirOf(t); skipped || dir != root {
		t.Fatalf("nothing needed: %q, skipped %v", dir, skipped)
	}
	if _, skipped := dirOf(t, "eth80", "mnist"); !skipped {
		t.Fatal("mnist absent: not skipped")
	}
	t.Setenv(Env, filepath.Join(root, "none"))
	if _, skipped := dirOf(t); !skipped {
		t.Fatal("GRLGQ_DATA names no folder: not skipped")
	}
}

// Without GRLGQ_DATA, Dir finds shared/data above the working directory.
func TestDirWalksUp(t *testing.T) {
	root := t.TempDir()
	data := filepath.Join(root, "shared", "data")
	pkg := filepath.Join(root, "repo", "pkg")
	for _, d := range []string{data, pkg} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(Env, "")
	t.Chdir(pkg)
	if dir, skipped := dirOf(t); skipped || dir != data {
		t.Fatalf("got %q (skipped %v), want %q", dir, skipped, data)
	}
}
