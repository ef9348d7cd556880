//go:build unix

package model

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestSaveFileMode: a new model file gets 0644 less the umask (not
// CreateTemp's 0600); a replaced one keeps its permissions.
func TestSaveFileMode(t *testing.T) {
	m := trainedModel(t, RelevanceGlobal)
	dir := t.TempDir()
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)

	fresh := filepath.Join(dir, "new.grlgq")
	if err := m.SaveFile(fresh); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(fresh); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("new file: mode %v, err %v; want 0644", fi.Mode().Perm(), err)
	}

	kept := filepath.Join(dir, "kept.grlgq")
	if err := os.WriteFile(kept, []byte("old"), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(kept, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := m.SaveFile(kept); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(kept); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("replaced file: mode %v, err %v; want 0640 kept", fi.Mode().Perm(), err)
	}
	if _, err := LoadFile(kept); err != nil {
		t.Errorf("replaced file does not load: %v", err)
	}
	// No temporary files are left behind.
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Errorf("%d files in the folder, want 2", len(ents))
	}
}
