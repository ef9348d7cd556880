package record

import (
	"fmt"
	"io"
	"sync"

	"github.com/grlgq/grlgq/cmd/internal/base"
	"github.com/grlgq/grlgq/model"
)

// Checkpoint is train's -checkpoint FILE [-checkpoint-every N]: the latest
// model (EpochStats.Model) is written to Path atomically every Every
// epochs, and when the run is interrupted (SIGINT, SIGTERM through
// base.AtInterrupt, or a cancelled context: Save) the model after the
// last finished epoch is written before the process ends. `train -resume
// FILE -epochs R` with the remaining R epochs, the same data and flags,
// then gives the model the uninterrupted run would have, bit for bit
// (model.Continue says when: not with early stopping or -average-last,
// whose state is not in a model). It keeps the latest model, not the best
// so far: with -val and -patience the run's result is the best epoch's.
// The zero Path is off: every method does nothing.
type Checkpoint struct {
	Path  string
	Every int
	// Meta is written into every checkpoint (the run's provenance).
	Meta map[string]string

	mu     sync.Mutex
	latest *model.Model // after the last finished epoch
	saved  int          // lifetime epoch of the model in the file (0: none)
	total  int          // lifetime epochs the run trains to
	stderr io.Writer
	unhook func()
}

// Start arms the checkpoint for a run to lifetime epoch total: on SIGINT
// or SIGTERM it is saved, with its line on stderr. Stop disarms it.
func (c *Checkpoint) Start(stderr io.Writer, total int) {
	if c.Path == "" {
		return
	}
	c.stderr, c.total = stderr, total
	c.unhook = base.AtInterrupt(c.Save)
}

// Stop disarms the checkpoint's signal hook.
func (c *Checkpoint) Stop() {
	if c.unhook != nil {
		c.unhook()
	}
}

// OnEpoch (a TrainConfig.OnEpoch) keeps the model after the epoch and
// writes it every Every epochs and after the last. A failed write ends
// training: the user asked for the file.
func (c *Checkpoint) OnEpoch(s model.EpochStats) error {
	if c.Path == "" {
		return nil
	}
	m := s.Model()
	c.mu.Lock()
	c.latest = m
	c.mu.Unlock()
	if s.Epoch%max(c.Every, 1) == 0 || s.Epoch == c.total {
		return c.write()
	}
	return nil
}

// write writes the latest model when the file holds an older one.
func (c *Checkpoint) write() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.latest == nil || c.latest.Epochs() == c.saved {
		return nil
	}
	m, err := c.latest.WithMetadata(c.Meta)
	if err == nil {
		err = m.SaveFile(c.Path)
	}
	if err != nil {
		return fmt.Errorf("-checkpoint: %w", err)
	}
	c.saved = c.latest.Epochs()
	return nil
}

// Save writes the latest model at the end of an interrupted run and
// prints the line that says how to continue.
func (c *Checkpoint) Save() {
	if c.Path == "" || c.stderr == nil {
		return
	}
	err := c.write()
	c.mu.Lock()
	defer c.mu.Unlock()
	base.ClearLine(c.stderr)
	switch {
	case err != nil:
		fmt.Fprintf(c.stderr, "grlgq: train: %v\n", err)
	case c.saved > 0:
		fmt.Fprintf(c.stderr, "grlgq: train: checkpoint after epoch %d of %d in %s: continue with -resume %s -epochs %d\n", c.saved, c.total, c.Path, c.Path, c.total-c.saved)
	}
}
