//go:build unix

package model

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/grlgq/grlgq/internal/safefile"
)

// TestLoadFileFIFO: a FIFO as the model file is refused at once; opening
// it for reading in the usual way would block until a writer comes.
func TestLoadFileFIFO(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Skip(err)
	}
	done := make(chan error, 1)
	go func() { _, err := LoadFile(p); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, safefile.ErrNotRegular) {
			t.Errorf("LoadFile(FIFO) = %v, want ErrNotRegular", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("LoadFile blocks on a FIFO")
	}
}
