package base

import (
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Every numeric flag has a range, checked by its Set while the flags are
// parsed, so a value outside it is a usage error (exit 2) that states the
// range before any work; the usage (PrintDefaults) prints the ranges. A
// value the user gives is used as given: where 0 means "off" or "none" the
// range says so, and no value is silently replaced by a default.

// Ranged is a flag value with a documented range (IntVar, Int64Var,
// Uint64Var, FloatVar): PrintDefaults prints it.
type Ranged interface {
	flag.Value
	RangeText() string
	TypeName() string
	AllowsZero() bool
}

// intFlag is an int flag in [lo, hi].
type intFlag struct {
	p      *int
	lo, hi int
}

func (f *intFlag) String() string {
	if f == nil || f.p == nil {
		return "0"
	}
	return strconv.Itoa(*f.p)
}

func (f *intFlag) Set(s string) error {
	v, err := strconv.ParseInt(s, 0, strconv.IntSize)
	if err != nil || v < int64(f.lo) || v > int64(f.hi) {
		return fmt.Errorf("want an integer from %s", f.RangeText())
	}
	*f.p = int(v)
	return nil
}

func (f *intFlag) RangeText() string { return fmt.Sprintf("%d to %d", f.lo, f.hi) }
func (f *intFlag) TypeName() string  { return "int" }
func (f *intFlag) AllowsZero() bool  { return f.lo <= 0 && 0 <= f.hi }

// int64Flag is an int64 flag in [lo, hi] (the same on 32-bit systems).
type int64Flag struct {
	p      *int64
	lo, hi int64
}

func (f *int64Flag) String() string {
	if f == nil || f.p == nil {
		return "0"
	}
	return strconv.FormatInt(*f.p, 10)
}

func (f *int64Flag) Set(s string) error {
	v, err := strconv.ParseInt(s, 0, 64)
	if err != nil || v < f.lo || v > f.hi {
		return fmt.Errorf("want an integer from %s", f.RangeText())
	}
	*f.p = v
	return nil
}

func (f *int64Flag) RangeText() string { return fmt.Sprintf("%d to %d", f.lo, f.hi) }
func (f *int64Flag) TypeName() string  { return "int" }
func (f *int64Flag) AllowsZero() bool  { return f.lo <= 0 && 0 <= f.hi }

// Int64Var defines an int64 flag in [lo, hi] with default def.
func Int64Var(fs *flag.FlagSet, p *int64, name string, def, lo, hi int64, usage string) {
	*p = def
	fs.Var(&int64Flag{p: p, lo: lo, hi: hi}, name, usage)
}

// uint64Flag is a uint64 flag taking any uint64 (a seed): the range is
// the type's, stated in the message like every other flag's.
type uint64Flag struct{ p *uint64 }

func (f *uint64Flag) String() string {
	if f == nil || f.p == nil {
		return "0"
	}
	return strconv.FormatUint(*f.p, 10)
}

func (f *uint64Flag) Set(s string) error {
	v, err := strconv.ParseUint(s, 0, 64)
	if err != nil {
		return fmt.Errorf("want an integer from %s", f.RangeText())
	}
	*f.p = v
	return nil
}

func (f *uint64Flag) RangeText() string { return "0 to 2^64-1" }
func (f *uint64Flag) TypeName() string  { return "uint" }
func (f *uint64Flag) AllowsZero() bool  { return true }

// Uint64Var defines a uint64 flag (0 to 2^64-1) with default def.
func Uint64Var(fs *flag.FlagSet, p *uint64, name string, def uint64, usage string) {
	*p = def
	fs.Var(&uint64Flag{p: p}, name, usage)
}

// floatFlag is a float64 flag in the interval from lo to hi, each end open
// or closed; NaN is never in it.
type floatFlag struct {
	p              *float64
	lo, hi         float64
	loOpen, hiOpen bool
}

func (f *floatFlag) String() string {
	if f == nil || f.p == nil {
		return "0"
	}
	return strconv.FormatFloat(*f.p, 'g', -1, 64)
}

func (f *floatFlag) Set(s string) error {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !f.in(v) {
		return fmt.Errorf("want a number in %s", f.RangeText())
	}
	*f.p = v
	return nil
}

func (f *floatFlag) in(v float64) bool {
	if math.IsNaN(v) || v < f.lo || v > f.hi || (f.loOpen && v == f.lo) || (f.hiOpen && v == f.hi) {
		return false
	}
	return true
}

func (f *floatFlag) RangeText() string {
	l, r := "[", "]"
	if f.loOpen {
		l = "("
	}
	if f.hiOpen {
		r = ")"
	}
	return l + strconv.FormatFloat(f.lo, 'g', -1, 64) + ", " + strconv.FormatFloat(f.hi, 'g', -1, 64) + r
}

func (f *floatFlag) TypeName() string { return "float" }
func (f *floatFlag) AllowsZero() bool { return f.in(0) }

// IntVar defines an int flag in [lo, hi] with default def.
func IntVar(fs *flag.FlagSet, p *int, name string, def, lo, hi int, usage string) {
	*p = def
	fs.Var(&intFlag{p: p, lo: lo, hi: hi}, name, usage)
}

// FloatVar defines a float flag in [lo, hi] (ends open as told) with default def.
func FloatVar(fs *flag.FlagSet, p *float64, name string, def, lo, hi float64, loOpen, hiOpen bool, usage string) {
	*p = def
	fs.Var(&floatFlag{p: p, lo: lo, hi: hi, loOpen: loOpen, hiOpen: hiOpen}, name, usage)
}

// ShowDefault sets the default PrintDefaults shows for flag name to text,
// for a flag whose absence means something no value says: eval's
// -temperature, left out, keeps the model's stored one ("the model's").
// The flag's value, and what its absence does, are unchanged.
func ShowDefault(fs *flag.FlagSet, name, text string) { fs.Lookup(name).DefValue = text }

// Note describes a flag whose value is not a plain number: the word for
// its type in the usage ("HxW", "word") and a note after its help.
type Note struct{ Type, Text string }

// PrintDefaults is flag.PrintDefaults with each ranged flag's range and
// the notes of the others.
func PrintDefaults(w io.Writer, fs *flag.FlagSet, notes map[string]Note) {
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		r, isRanged := f.Value.(Ranged)
		if isRanged {
			name = r.TypeName()
		}
		extra, hasExtra := notes[f.Name]
		if hasExtra && extra.Type != "" {
			name = extra.Type
		}
		var b strings.Builder
		fmt.Fprintf(&b, "  -%s", f.Name)
		if name != "" {
			b.WriteString(" " + name)
		}
		if b.Len() <= 4 {
			b.WriteString("\t")
		} else {
			b.WriteString("\n    \t")
		}
		b.WriteString(strings.ReplaceAll(usage, "\n", "\n    \t"))
		var notes []string
		if isRanged {
			notes = append(notes, "range "+r.RangeText())
		}
		if hasExtra && extra.Text != "" {
			notes = append(notes, extra.Text)
		}
		switch {
		case f.DefValue == "" || f.DefValue == "false" || (f.DefValue == "0" && (!isRanged || !r.AllowsZero())):
			// No default to show (a 0 outside the range: the help says
			// what an absent flag means).
		case name == "string":
			notes = append(notes, fmt.Sprintf("default %q", f.DefValue))
		default:
			notes = append(notes, "default "+f.DefValue)
		}
		if len(notes) > 0 {
			b.WriteString(" (" + strings.Join(notes, "; ") + ")")
		}
		fmt.Fprintln(w, b.String())
	})
}

// choiceFlag is a string flag with a fixed set of values.
type choiceFlag struct {
	p       *string
	choices []string
}

func (f *choiceFlag) String() string {
	if f == nil || f.p == nil {
		return ""
	}
	return *f.p
}

func (f *choiceFlag) Set(s string) error {
	for _, c := range f.choices {
		if s == c {
			*f.p = s
			return nil
		}
	}
	return fmt.Errorf("want one of %s", strings.Join(f.choices, ", "))
}

// ChoiceVar defines a string flag whose value must be one of choices
// (checked as it is parsed: a usage error naming them), with default def.
func ChoiceVar(fs *flag.FlagSet, name, def string, choices []string, usage string) *string {
	p := new(string)
	*p = def
	fs.Var(&choiceFlag{p: p, choices: choices}, name, usage)
	return p
}
