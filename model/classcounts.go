package model

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ClassCounts is a number of prototypes per class given as text (the
// command line's -protos; a flag.Value and an encoding.TextUnmarshaler),
// one of
//
//	N               N prototypes for every class
//	N1,N2,...,NC    one count per class, in the data's class order
//	name=N,...      counts of the named classes; the others get 1, or the
//	                one plain count given among the pairs (3,cat=5: 5 for
//	                cat, 3 for every other class)
//
// Each count is 1 to MaxClassCount. A list or names become
// Config.PrototypesOfClass once the data's classes are known (PerClass);
// one count for every class is Config.PrototypesPerClass (All).
type ClassCounts struct {
	all   int            // every class without a count of its own
	list  []int          // one count per class, nil: none
	named map[string]int // counts by class name, nil: none
	names []string       // the named classes, in the order given
	text  string
}

// MaxClassCount bounds each count of a ClassCounts.
const MaxClassCount = MaxPrototype / 2

// NewClassCounts returns def prototypes for every class.
func NewClassCounts(def int) *ClassCounts {
	return &ClassCounts{all: def, text: strconv.Itoa(def)}
}

// String returns the text the counts were set from.
func (p *ClassCounts) String() string {
	if p == nil {
		return ""
	}
	return p.text
}

// UnmarshalText parses counts (see ClassCounts).
func (p *ClassCounts) UnmarshalText(b []byte) error { return p.Set(string(b)) }

// Set parses counts (see ClassCounts); it is the flag.Value method.
func (p *ClassCounts) Set(s string) error {
	count := func(v string) (int, error) {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 || n > MaxClassCount {
			return 0, fmt.Errorf("%q: want counts from 1 to %d: N, N1,N2,... (one per class) or class=N pairs", v, MaxClassCount)
		}
		return n, nil
	}
	q := ClassCounts{all: 1, text: s}
	var plain []int
	for _, f := range strings.Split(s, ",") {
		name, v, isPair := strings.Cut(f, "=")
		if !isPair {
			n, err := count(f)
			if err != nil {
				return err
			}
			plain = append(plain, n)
			continue
		}
		name = strings.TrimSpace(name)
		if name == "" {
			return fmt.Errorf("%q: a class name is missing before =", f)
		}
		n, err := count(v)
		if err != nil {
			return err
		}
		if q.named == nil {
			q.named = map[string]int{}
		}
		if _, dup := q.named[name]; dup {
			return fmt.Errorf("class %q is given twice", name)
		}
		q.named[name] = n
		q.names = append(q.names, name)
	}
	switch {
	case q.named != nil && len(plain) > 1:
		return fmt.Errorf("%q: with class=N pairs give at most one plain N (the count of the other classes)", s)
	case len(plain) == 1:
		q.all = plain[0]
	case len(plain) > 1:
		q.list = plain
	}
	*p = q
	return nil
}

// All returns the count of every class without a count of its own.
func (p *ClassCounts) All() int { return p.all }

// PerClass returns the count of each of the classes (nil when one count
// is for every class: All), or why the counts do not fit them.
func (p *ClassCounts) PerClass(classes []string) ([]int, error) {
	switch {
	case p.list != nil:
		if len(p.list) != len(classes) {
			return nil, fmt.Errorf("counts %s give %d counts for %d classes (%s): give one per class, or class=N pairs", p.text, len(p.list), len(classes), classList(classes))
		}
		return append([]int(nil), p.list...), nil
	case p.named != nil:
		out := make([]int, len(classes))
		for c := range out {
			out[c] = p.all
		}
		for _, name := range p.names {
			c := slices.Index(classes, name)
			if c < 0 {
				return nil, fmt.Errorf("counts %s: no class %q in the data (classes: %s)", p.text, name, classList(classes))
			}
			out[c] = p.named[name]
		}
		return out, nil
	}
	return nil, nil
}

// Varies reports whether the counts depend on the class (a list or names).
func (p *ClassCounts) Varies() bool { return p.list != nil || p.named != nil }
