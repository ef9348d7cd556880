package main

import (
	"flag"
	"fmt"
	"io"
	"sync"

	"github.com/grlgq/grlgq/cmd/internal/base"
	"github.com/grlgq/grlgq/cmd/internal/runfiles"
	"github.com/grlgq/grlgq/model"
)

// checkpoint is train's -checkpoint FILE [-checkpoint-every N]: the latest
// model (EpochStats.Model) is written to FILE atomically every N epochs,
// and when the run is interrupted (SIGINT, SIGTERM: base.AtInterrupt; a
// cancelled context) the model after the last finished epoch is written
// before the process ends. `train -resume FILE -epochs R` with the
// remaining R epochs, the same data and flags, then gives the model the
// uninterrupted run would have, bit for bit (model.Continue says when:
// not with early stopping or -average-last, whose state is not in a
// model). The latest model, not the best so far: with -val and -patience
// the run's result is still the best epoch's model.
type checkpoint struct {
	path  string
	every int

	mu       sync.Mutex
	latest   *model.Model // after the last finished epoch
	saved    int          // lifetime epoch of the model in the file (0: none)
	total    int          // lifetime epochs the run trains to
	stderr   io.Writer
	unhook   func()
	writeErr error
}

func (c *checkpoint) addFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.path, "checkpoint", "", "keep the latest model in this file while training (replaced atomically every -checkpoint-every epochs and when interrupted); continue with -resume FILE -epochs REMAINING")
	intVar(fs, &c.every, "checkpoint-every", 1, 1, model.MaxEpochs, "with -checkpoint: write it every N epochs")
}

// check declares the checkpoint as an output (it may be the -resume
// file, not the data or -o).
func (c *checkpoint) check(fs *flag.FlagSet, g *runfiles.Guard) error {
	if c.path == "" {
		if isSet(fs, "checkpoint-every") {
			return usagef(fs, "-checkpoint-every needs -checkpoint FILE")
		}
		return nil
	}
	return g.CheckOutput("-checkpoint", c.path)
}

// start arms the checkpoint for a run to lifetime epoch total, saving it
// on SIGINT or SIGTERM; stop disarms it.
func (c *checkpoint) start(stderr io.Writer, total int) {
	if c.path == "" {
		return
	}
	c.stderr, c.total = stderr, total
	c.unhook = base.AtInterrupt(func() { c.save() })
}

func (c *checkpoint) stop() {
	if c.unhook != nil {
		c.unhook()
	}
}

// onEpoch keeps the model after the epoch and writes it every N epochs.
// A failed write ends training (the user asked for the file).
func (c *checkpoint) onEpoch(s model.EpochStats) error {
	if c.path == "" {
		return nil
	}
	m := s.Model()
	c.mu.Lock()
	c.latest = m
	c.mu.Unlock()
	if s.Epoch%c.every == 0 || s.Epoch == c.total {
		return c.write()
	}
	return nil
}

// write writes the latest model when the file holds an older one.
func (c *checkpoint) write() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.latest == nil || c.latest.Epochs() == c.saved {
		return nil
	}
	if err := c.latest.SaveFile(c.path); err != nil {
		return fmt.Errorf("-checkpoint: %w", err)
	}
	c.saved = c.latest.Epochs()
	return nil
}

// save writes the latest model at the end of an interrupted run and
// says how to continue.
func (c *checkpoint) save() {
	if c.path == "" || c.stderr == nil {
		return
	}
	if err := c.write(); err != nil {
		base.ClearLine(c.stderr)
		fmt.Fprintf(c.stderr, "grlgq: train: %v\n", err)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.saved > 0 {
		base.ClearLine(c.stderr)
		fmt.Fprintf(c.stderr, "grlgq: train: checkpoint after epoch %d of %d in %s: continue with -resume %s -epochs %d\n", c.saved, c.total, c.path, c.path, c.total-c.saved)
	}
}
