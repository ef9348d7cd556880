package layers

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// root is the module's root, from this package's folder.
const root = "../.."

// noNumerics are the packages nothing under cmd/ imports: the tools use
// the library's public API (issue 21).
var noNumerics = []string{"engine", "svd", "linalg", "kernels"}

// row is one row of the table: its line in DESIGN.md and its packages.
type row struct {
	line int
	pkgs []string
}

// pkgField is a row's package column: module paths separated by ", ".
var pkgField = regexp.MustCompile(`^[a-z][a-z0-9_/-]*(, [a-z][a-z0-9_/-]*)*$`)

// readTable parses the first fenced block after the heading "## Packages
// and import direction" of DESIGN.md: the first 14 columns name the layer,
// the package column runs from there to the first two spaces. A line whose
// package column is blank continues the row above.
func readTable(design []byte) ([]row, error) {
	var (
		rows    []row
		in      bool // inside the section
		block   bool // inside its fenced block
		heading = false
	)
	sc := bufio.NewScanner(bytes.NewReader(design))
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "## "):
			if block {
				return nil, fmt.Errorf("line %d: a heading inside the table", n)
			}
			in = strings.HasPrefix(l, "## Packages and import direction")
			continue
		case !in:
			continue
		case strings.HasPrefix(l, "```"):
			if block {
				return rows, nil
			}
			block = true
			continue
		case !block:
			continue
		}
		if !heading {
			heading = true // the column titles
			continue
		}
		if len(l) <= 14 {
			return nil, fmt.Errorf("line %d: %q: no package column", n, l)
		}
		rest := l[14:]
		if strings.HasPrefix(rest, " ") {
			continue // the description goes on
		}
		field, _, _ := strings.Cut(rest, "  ")
		if !pkgField.MatchString(field) {
			return nil, fmt.Errorf("line %d: package column %q is not a list of package paths", n, field)
		}
		r := row{line: n}
		for _, p := range strings.Split(field, ", ") {
			r.pkgs = append(r.pkgs, strings.TrimSuffix(p, "/"))
		}
		rows = append(rows, r)
	}
	if block {
		return nil, errors.New("the table's block does not end")
	}
	return nil, errors.New("no table: a fenced block after \"## Packages and import direction\"")
}

// modulePath returns the module path of go.mod.
func modulePath(gomod []byte) (string, error) {
	for _, l := range strings.Split(string(gomod), "\n") {
		if p, ok := strings.CutPrefix(strings.TrimSpace(l), "module "); ok {
			return strings.Trim(strings.TrimSpace(p), `"`), nil
		}
	}
	return "", errors.New("go.mod: no module line")
}

// packages returns each package folder of the module under root (relative,
// slash-separated) with the module imports of its non-test Go files (over
// every build tag), as module-relative paths. Folders starting with '.' or
// '_', testdata and nested modules are not the module's.
func packages(root, module string) (map[string][]string, error) {
	pkgs := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			name := d.Name()
			if rel != "." && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
				return filepath.SkipDir
			}
			if rel != "." {
				if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
					return filepath.SkipDir // its own module
				}
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly|parser.ParseComments)
		if err != nil {
			return err
		}
		for _, c := range f.Comments {
			if c.Pos() < f.Package && strings.Contains(c.Text(), "go:build ignore") {
				return nil
			}
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		imps := pkgs[dir]
		if imps == nil {
			imps = []string{}
		}
		for _, im := range f.Imports {
			p, err := strconv.Unquote(im.Path.Value)
			if err != nil {
				return err
			}
			if p == module {
				p = "."
			} else if q, ok := strings.CutPrefix(p, module+"/"); ok {
				p = q
			} else {
				continue
			}
			if !slices.Contains(imps, p) {
				imps = append(imps, p)
			}
		}
		pkgs[dir] = imps
		return nil
	})
	return pkgs, err
}

func TestLayers(t *testing.T) {
	design, err := os.ReadFile(filepath.Join(root, "DESIGN.md"))
	if err != nil {
		t.Fatal(err)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	module, err := modulePath(gomod)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := readTable(design)
	if err != nil {
		t.Fatalf("DESIGN.md: %v", err)
	}
	pkgs, err := packages(root, module)
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range check(rows, pkgs) {
		t.Error(msg)
	}
	t.Logf("%d rows, %d packages", len(rows), len(pkgs))
}

// check returns every breach of the table's rules by pkgs (package ->
// its module imports).
func check(rows []row, pkgs map[string][]string) []string {
	var bad []string
	at := map[string]int{} // package -> its row's index
	for i, r := range rows {
		for _, p := range r.pkgs {
			if j, dup := at[p]; dup {
				bad = append(bad, fmt.Sprintf("DESIGN.md line %d: %s is on line %d too", r.line, p, rows[j].line))
				continue
			}
			at[p] = i
			if _, ok := pkgs[p]; !ok {
				bad = append(bad, fmt.Sprintf("DESIGN.md line %d: %s is no package of the module", r.line, p))
			}
		}
	}
	names := make([]string, 0, len(pkgs))
	for p := range pkgs {
		names = append(names, p)
	}
	slices.Sort(names)
	for _, p := range names {
		i, ok := at[p]
		if !ok {
			bad = append(bad, fmt.Sprintf("%s is not in DESIGN.md's layer table: add it to the row of its layer", p))
			continue
		}
		imps := slices.Clone(pkgs[p])
		slices.Sort(imps)
		for _, q := range imps {
			j, ok := at[q]
			switch {
			case !ok:
				// reported as a package missing from the table
			case j == i:
				bad = append(bad, fmt.Sprintf("%s imports %s, its sibling on DESIGN.md line %d", p, q, rows[i].line))
			case j < i:
				bad = append(bad, fmt.Sprintf("%s (DESIGN.md line %d) imports %s, a package above it (line %d)", p, rows[i].line, q, rows[j].line))
			}
			if strings.HasPrefix(p, "internal/") && !strings.HasPrefix(q, "internal/") {
				bad = append(bad, fmt.Sprintf("%s imports %s: a package under internal/ imports nothing of the module outside internal/", p, q))
			}
			if strings.HasPrefix(p, "cmd/") && slices.Contains(noNumerics, q) {
				bad = append(bad, fmt.Sprintf("%s imports %s: the tools use the library's public API, not the numerics below the model", p, q))
			}
		}
	}
	return bad
}

// TestCheck: the rules catch an upward import, a sibling import, a
// package missing from the table, a row naming no package, and the two
// rules of internal/ and cmd/.
func TestCheck(t *testing.T) {
	table := []byte("## Packages and import direction\n\n```\nlayer         package      what\n" +
		"tools         cmd/a        the tool\n" +
		"over          b, c         siblings\n" +
		"                           more about b\n" +
		"low           engine       numerics\n" +
		"internal      internal/x   helpers\n" +
		"```\n")
	rows, err := readTable(table)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 || !slices.Equal(rows[1].pkgs, []string{"b", "c"}) {
		t.Fatalf("rows %v", rows)
	}
	good := map[string][]string{"cmd/a": {"b", "c"}, "b": {"engine", "internal/x"}, "c": {}, "engine": {"internal/x"}, "internal/x": {}}
	if bad := check(rows, good); len(bad) > 0 {
		t.Fatalf("a good module breaks the rules: %v", bad)
	}
	for _, c := range []struct {
		name string
		pkgs map[string][]string
		want string
	}{
		{"upward", map[string][]string{"cmd/a": {}, "b": {}, "c": {}, "engine": {"b"}, "internal/x": {}}, "a package above it"},
		{"sibling", map[string][]string{"cmd/a": {}, "b": {"c"}, "c": {}, "engine": {}, "internal/x": {}}, "its sibling"},
		{"missing", map[string][]string{"cmd/a": {}, "b": {}, "c": {}, "engine": {}, "internal/x": {}, "d": {}}, "not in DESIGN.md"},
		{"gone", map[string][]string{"cmd/a": {}, "b": {}, "engine": {}, "internal/x": {}}, "no package of the module"},
		{"internal", map[string][]string{"cmd/a": {}, "b": {}, "c": {}, "engine": {}, "internal/x": {"engine"}}, "under internal/"},
		{"numerics", map[string][]string{"cmd/a": {"engine"}, "b": {}, "c": {}, "engine": {}, "internal/x": {}}, "public API"},
	} {
		bad := check(rows, c.pkgs)
		if len(bad) == 0 || !strings.Contains(strings.Join(bad, "\n"), c.want) {
			t.Errorf("%s: %v, want a breach saying %q", c.name, bad, c.want)
		}
	}
	if _, err := readTable([]byte("## Packages and import direction\n```\nlayer  package\ntools         Cmd A  x\n```\n")); err == nil {
		t.Error("a package column of no paths accepted")
	}
}
