package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/grlgq/grlgq/model"
)

// protoCounts is the value of train's -protos: prototypes per class. It
// is one of
//
//	N               N prototypes for every class
//	N1,N2,...,NC    one count per class, in the data's class order
//	name=N,...      counts of the named classes; the others get 1, or the
//	                one plain count given among the pairs (3,cat=5: 5 for
//	                cat, 3 for every other class)
//
// Each count is 1 to maxCount. A list or names become
// model.Config.PrototypesOfClass once the data's classes are known
// (perClass).
type protoCounts struct {
	all   int            // every class without a count of its own
	list  []int          // one count per class, nil: none
	named map[string]int // counts by class name, nil: none
	names []string       // the named classes, in the order given
	text  string
}

const maxProtoCount = model.MaxPrototype / 2

const protosHelp = "prototypes per class: `N` for every class, a list N1,N2,... with one count per class (in the data's class order: sorted folder names or labels, as grlgq inspect lists a model's), " +
	"or class=N pairs (the other classes get 1, or the one plain N among the pairs: 3,cat=5); each count 1 to %d, at most %d prototypes in all"

func newProtoCounts(def int) *protoCounts {
	return &protoCounts{all: def, text: strconv.Itoa(def)}
}

func (p *protoCounts) String() string {
	if p == nil {
		return ""
	}
	return p.text
}

func (p *protoCounts) Set(s string) error {
	count := func(v string) (int, error) {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 || n > maxProtoCount {
			return 0, fmt.Errorf("%q: want counts from 1 to %d: N, N1,N2,... (one per class) or class=N pairs", v, maxProtoCount)
		}
		return n, nil
	}
	q := protoCounts{all: 1, text: s}
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

// perClass returns the count of each of the classes (nil when one count
// is for every class), or why the flag does not fit them.
func (p *protoCounts) perClass(classes []string) ([]int, error) {
	switch {
	case p.list != nil:
		if len(p.list) != len(classes) {
			return nil, fmt.Errorf("-protos %s gives %d counts for %d classes (%s): give one per class, or class=N pairs", p.text, len(p.list), len(classes), classList(classes))
		}
		return append([]int(nil), p.list...), nil
	case p.named != nil:
		out := make([]int, len(classes))
		for c := range out {
			out[c] = p.all
		}
		for _, name := range p.names {
			c := indexOf(classes, name)
			if c < 0 {
				return nil, fmt.Errorf("-protos %s: no class %q in the data (classes: %s)", p.text, name, classList(classes))
			}
			out[c] = p.named[name]
		}
		return out, nil
	}
	return nil, nil
}

// given reports whether the counts depend on the class (a list or names).
func (p *protoCounts) given() bool { return p.list != nil || p.named != nil }

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// classList names the classes for a message (the first 20).
func classList(classes []string) string {
	if len(classes) > 20 {
		return strings.Join(classes[:20], ", ") + fmt.Sprintf(", ... (%d in all)", len(classes))
	}
	return strings.Join(classes, ", ")
}
