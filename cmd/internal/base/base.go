package base

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/grlgq/grlgq/dataset/imageset"
)

// ErrHelp ends a command that printed its help on request (exit code 0).
var ErrHelp = errors.New("help requested")

// UsageError is bad usage of a command: exit code 2.
type UsageError struct {
	FlagSet *flag.FlagSet // the command's flags, for its usage text
	Msg     string
}

func (u *UsageError) Error() string { return u.Msg }

// Usagef returns a *UsageError of the command fs.
func Usagef(fs *flag.FlagSet, format string, a ...any) error {
	return &UsageError{FlagSet: fs, Msg: fmt.Sprintf(format, a...)}
}

// NewFlagSet returns a flag set for command name that reports errors to
// the caller instead of exiting or printing.
func NewFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// Parse parses args: ErrHelp for -h (the caller prints the usage), a
// *UsageError for a bad flag (its range included: the ranged flags' Set
// says it).
func Parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ErrHelp
		}
		return &UsageError{FlagSet: fs, Msg: err.Error() + suggest(fs, err.Error())}
	}
	return nil
}

// suggest returns " (did you mean -NAME?)" for the message of an unknown
// flag that Suggest takes for a typo of the flag NAME, and "" otherwise.
func suggest(fs *flag.FlagSet, msg string) string {
	const unknown = "flag provided but not defined: -"
	name, ok := strings.CutPrefix(msg, unknown)
	if !ok {
		return ""
	}
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	if best := Suggest(strings.TrimPrefix(name, "-"), names); best != "" {
		return " (did you mean -" + best + "?)"
	}
	return ""
}

// Suggest returns the one of names that name is likely a typo of (a flag's
// name, a command's): one edit from it, or the same but for two adjacent
// letters swapped (widht), or a prefix of it of 3 letters or more (epoch
// for epochs); "" when none is, or more than one.
func Suggest(name string, names []string) string {
	best := ""
	for _, n := range names {
		if editDistance(name, n, 2) <= 1 || swapped(name, n) || (len(name) >= 3 && strings.HasPrefix(n, name)) {
			if best != "" {
				return ""
			}
			best = n
		}
	}
	return best
}

// swapped reports whether b is a with two adjacent bytes swapped.
func swapped(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
}

// editDistance is the Levenshtein distance of a and b, or max when it is
// at least max (the search stops there).
func editDistance(a, b string, max int) int {
	if d := len(a) - len(b); d >= max || -d >= max {
		return max
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return min(prev[len(b)], max)
}

// NoArgs rejects positional arguments left after the flags.
func NoArgs(fs *flag.FlagSet) error {
	if fs.NArg() > 0 {
		return Usagef(fs, "unexpected argument %q (flags go before it? every flag starts with -)", fs.Arg(0))
	}
	return nil
}

// IsSet reports whether flag name was given on the command line.
func IsSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

// OneLine folds a message onto one line.
func OneLine(s string) string {
	s = strings.TrimSpace(s)
	s = strings.ReplaceAll(s, "\r", "")
	return strings.ReplaceAll(s, "\n", "; ")
}

// Hint returns err with a *imageset.LimitError's "(raise max-pixels)"
// reworded as "(raise it with -max-pixels)", the flag a user of either
// binary sets (the data packages know no flags; their limit names are the
// flags' names). Other errors are returned as they are; the result
// matches what err matched (errors.Is, errors.As).
func Hint(err error) error {
	var le *imageset.LimitError
	if err == nil || !errors.As(err, &le) {
		return err
	}
	old, msg := "(raise "+le.Limit+")", err.Error()
	if !strings.Contains(msg, old) {
		return err
	}
	return &hintError{msg: strings.Replace(msg, old, "(raise it with -"+le.Limit+")", 1), err: err}
}

// hintError is an error with a reworded message.
type hintError struct {
	msg string
	err error
}

func (e *hintError) Error() string { return e.msg }
func (e *hintError) Unwrap() error { return e.err }

// Ranges of the -max-* flags: the upper ends are far above what the
// defaults need for the real data (MNIST: 47 MB, 47 M values) and keep
// every product of the loaders within int64; raising a limit lets a
// larger (or more hostile) input take the memory it says it needs.
const (
	MaxMaxPixels    = 1 << 30 // -max-pixels: 32768x32768
	MaxMaxSetImages = 1 << 24 // -max-set-images
	MaxMaxValues    = 1 << 36 // -max-values: 512 GiB of float64
	MaxMaxFileBytes = 1 << 40 // -max-file-bytes: 1 TiB
)

// AddLimitFlags registers -max-pixels, -max-set-images and -max-values,
// and -max-file-bytes when fileBytes (the edge binary reads no data file),
// the input budget of every loader, on fs with the defaults def. Their
// names are the Limit names of imageset.LimitError, so that a limit
// error's hint names a flag (Hint).
func AddLimitFlags(fs *flag.FlagSet, lim *imageset.Limits, def imageset.Limits, fileBytes bool) {
	Int64Var(fs, &lim.PixelsPerImage, imageset.LimitPixels, def.PixelsPerImage, 1, MaxMaxPixels,
		"input limit: pixels per image, as an image's header says or as a resize asks (checked before decoding)")
	Int64Var(fs, &lim.ImagesPerSet, imageset.LimitSetImages, def.ImagesPerSet, 1, MaxMaxSetImages,
		"input limit: images in one set folder")
	Int64Var(fs, &lim.TotalValues, imageset.LimitValues, def.TotalValues, 1, MaxMaxValues,
		fmt.Sprintf("input limit: pixel values of the whole data set, 8 bytes each, plus %d per image or basis", imageset.ItemCost))
	if fileBytes {
		Int64Var(fs, &lim.FileBytes, imageset.LimitFileBytes, def.FileBytes, 1, MaxMaxFileBytes,
			"input limit: bytes of one data file after decompression (gzip, MAT's zlib), or its size when stored raw")
	}
}
