package base

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/grlgq/grlgq/dataset/imageset"
)

// TestReport: the one error format of both binaries.
func TestReport(t *testing.T) {
	fs := NewFlagSet("train")
	usage := func(w io.Writer) { fmt.Fprintln(w, "Usage: grlgq train ...") }
	limit := fmt.Errorf("load: %w", &imageset.LimitError{File: "x.csv", What: "line 1", Limit: imageset.LimitPixels, Value: 9, Max: 4})
	for _, c := range []struct {
		prog, cmd string
		err       error
		code      int
		want      string
	}{
		{"grlgq", "train", nil, ExitOK, ""},
		{"grlgq", "train", ErrHelp, ExitOK, ""},
		{"grlgq", "train", Usagef(fs, "-d %d: too\nlarge", 0), ExitUsage, "grlgq: train: -d 0: too; large\nUsage: grlgq train ...\n"},
		{"grlgq", "train", errors.New("grlgq: no data"), ExitFail, "grlgq: train: no data\n"},
		{"grlgq-edge", "", limit, ExitFail, "grlgq-edge: load: x.csv: line 1: 9 pixels per image, over the limit of 4 (raise it with -max-pixels)\n"},
	} {
		var b bytes.Buffer
		if code := Report(&b, c.prog, c.cmd, c.err, usage); code != c.code || b.String() != c.want {
			t.Errorf("%v: code %d, printed %q; want %d, %q", c.err, code, b.String(), c.code, c.want)
		}
	}
}
