package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// snapshot records the bytes and type of files, to check that a refused
// run left them as they were.
type snapshot map[string]struct {
	b    []byte
	mode os.FileMode
}

func snap(t *testing.T, paths ...string) snapshot {
	t.Helper()
	s := snapshot{}
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		var b []byte
		if fi.Mode().IsRegular() {
			b, _ = os.ReadFile(p)
		}
		s[p] = struct {
			b    []byte
			mode os.FileMode
		}{b, fi.Mode()}
	}
	return s
}

func (s snapshot) check(t *testing.T) {
	t.Helper()
	for p, want := range s {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		var b []byte
		if fi.Mode().IsRegular() {
			b, _ = os.ReadFile(p)
		}
		if fi.Mode() != want.mode || !bytes.Equal(b, want.b) {
			t.Errorf("%s was changed (mode %v -> %v, %d -> %d bytes)", p, want.mode, fi.Mode(), len(want.b), len(b))
		}
	}
}

// noTemps fails when dir holds a file left by the atomic writer.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.Contains(e.Name(), "tmp") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

// TestOutputsAreNotInputs: no output may be an input or another output;
// refused as usage errors before any work, every file unchanged.
func TestOutputsAreNotInputs(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	writeCSV(t, data, 2, 12, 4)
	mod := filepath.Join(dir, "m.grlgq")
	ok(t, "train", "-data", "csv:"+data, "-d", "2", "-m", "4", "-epochs", "2", "-o", mod, "-quiet")
	s := snap(t, data, mod)
	train := []string{"train", "-data", "csv:" + data, "-d", "2", "-m", "4", "-epochs", "2", "-quiet"}
	other := filepath.Join(dir, "new.grlgq")
	cases := []struct {
		want []string
		args []string
	}{
		{[]string{"-cpuprofile", "also an input", "-data"}, append(train[:len(train):len(train)], "-o", other, "-cpuprofile", data)},
		{[]string{"-memprofile", "also an input"}, append(train[:len(train):len(train)], "-o", other, "-memprofile", data)},
		{[]string{"-o", "-memprofile", "same file"}, append(train[:len(train):len(train)], "-o", mod, "-memprofile", mod)},
		{[]string{"-cpuprofile", "-memprofile", "same file"}, append(train[:len(train):len(train)], "-o", other, "-cpuprofile", filepath.Join(dir, "p"), "-memprofile", filepath.Join(dir, "p"))},
		{[]string{"-o", "also an input"}, append(train[:len(train):len(train)], "-o", filepath.Join(dir, ".", "d.csv"))},
		{[]string{"-plots", "-cpuprofile", "same file"}, append(train[:len(train):len(train)], "-o", other, "-plots", dir, "-cpuprofile", filepath.Join(dir, "learning_curves.png"))},
	}
	for _, c := range cases {
		fails(t, 2, c.want, c.args...)
		s.check(t)
	}
	// A folder of data: no output inside it.
	root := filepath.Join(dir, "sets")
	writeFolder(t, root, 2, 2, 4)
	fails(t, 2, []string{"inside the data folder"}, "train", "-data", "folder:"+root, "-d", "2", "-o", filepath.Join(root, "m.grlgq"))
	fails(t, 2, []string{"inside the data folder"}, "train", "-data", "folder:"+root, "-d", "2", "-o", other, "-plots", filepath.Join(root, "c0"))
	fails(t, 2, []string{"inside the data folder"}, "explain", "-model", mod, "-data", "folder:"+root, "-o", root)
	if _, err := os.Stat(other); err == nil {
		t.Error("a refused run wrote its model")
	}
	// Another name of a data file is the data file.
	link := filepath.Join(dir, "d-link.csv")
	if err := os.Link(data, link); err == nil {
		fails(t, 2, []string{"also an input"}, append(train[:len(train):len(train)], "-o", other, "-cpuprofile", link)...)
		s.check(t)
	}
	sym := filepath.Join(dir, "d-sym.csv")
	if err := os.Symlink(data, sym); err == nil {
		fails(t, 2, []string{"also an input"}, append(train[:len(train):len(train)], "-o", other, "-memprofile", sym)...)
		s.check(t)
	}
	noTemps(t, dir)
}

// TestRefusedTargets: -o, profiles, plots and explanations never replace
// a device, a symbolic link, a hard link, a read-only file or a folder.
func TestRefusedTargets(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	writeCSV(t, data, 2, 12, 4)
	mod := filepath.Join(dir, "m.grlgq")
	ok(t, "train", "-data", "csv:"+data, "-d", "2", "-m", "4", "-epochs", "2", "-o", mod, "-quiet")
	target := filepath.Join(dir, "target.grlgq")
	os.WriteFile(target, []byte("the link's target"), 0o644)
	link := filepath.Join(dir, "link.grlgq")
	if err := os.Symlink(target, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	h1, h2 := filepath.Join(dir, "h1"), filepath.Join(dir, "h2")
	os.WriteFile(h1, []byte("hard"), 0o644)
	if err := os.Link(h1, h2); err != nil {
		t.Skip("no hard links here:", err)
	}
	ro := filepath.Join(dir, "ro.grlgq")
	os.WriteFile(ro, []byte("read-only"), 0o444)
	os.Chmod(ro, 0o444)
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	exdir := filepath.Join(dir, "ex")
	os.Mkdir(exdir, 0o755)
	exLink := filepath.Join(exdir, "relevances.png")
	os.Symlink(target, exLink)
	paths := []string{data, mod, target, link, h1, h2, ro, sub, exLink}
	dev := ""
	if fi, err := os.Stat(os.DevNull); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		dev = os.DevNull
		paths = append(paths, dev)
	}
	s := snap(t, paths...)
	train := []string{"train", "-data", "csv:" + data, "-d", "2", "-m", "4", "-epochs", "2", "-quiet"}
	other := filepath.Join(dir, "new.grlgq")
	type tc struct {
		want []string
		args []string
	}
	cases := []tc{
		{[]string{link, "symbolic link"}, append(train[:len(train):len(train)], "-o", link)},
		{[]string{h2, "hard links"}, append(train[:len(train):len(train)], "-o", h2)},
		{[]string{ro, "read-only"}, append(train[:len(train):len(train)], "-o", ro)},
		{[]string{sub, "folder"}, append(train[:len(train):len(train)], "-o", sub)},
		{[]string{link, "symbolic link"}, append(train[:len(train):len(train)], "-o", other, "-cpuprofile", link)},
		{[]string{ro, "read-only"}, append(train[:len(train):len(train)], "-o", other, "-memprofile", ro)},
		{[]string{link, "symbolic link"}, []string{"demo", "-epochs", "1", "-quiet", "-o", link}},
		{[]string{link, "symbolic link"}, []string{"demo", "-export-data", link}},
		{[]string{"relevances.png", "symbolic link"}, []string{"explain", "-model", mod, "-data", "csv:" + data, "-o", exdir, "-n", "1"}},
	}
	if dev != "" {
		cases = append(cases,
			tc{[]string{dev, "character device"}, append(train[:len(train):len(train)], "-o", dev)},
			tc{[]string{dev, "character device"}, append(train[:len(train):len(train)], "-o", other, "-cpuprofile", dev)},
			tc{[]string{dev, "character device"}, []string{"demo", "-export-data", dev}},
			tc{[]string{dev, "not a folder"}, []string{"explain", "-model", mod, "-data", "csv:" + data, "-o", dev}},
			tc{[]string{dev, "character device"}, []string{"eval", "-model", dev, "-data", "csv:" + data}},
			tc{[]string{dev, "character device"}, []string{"eval", "-model", mod, "-data", "csv:" + dev}},
		)
	}
	for _, c := range cases {
		fails(t, 1, c.want, c.args...)
		s.check(t)
	}
	if _, err := os.Stat(other); err == nil {
		t.Error("a refused run wrote its model")
	}
	noTemps(t, dir)
	noTemps(t, exdir)
	// What is refused can be written by its real name.
	ok(t, append(train[:len(train):len(train)], "-o", target)...)
}

// TestProfilesCommitted: profiles are written only when the command
// succeeds, together with the model.
func TestProfilesCommitted(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	writeCSV(t, data, 2, 12, 4)
	cpu, mem, mod := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "mem.prof"), filepath.Join(dir, "m.grlgq")
	// A failing run (one class) writes neither.
	one := filepath.Join(dir, "one.csv")
	writeCSV(t, one, 1, 12, 4)
	fails(t, 1, nil, "train", "-data", "csv:"+one, "-d", "2", "-m", "4", "-epochs", "2", "-o", mod, "-cpuprofile", cpu, "-memprofile", mem)
	for _, p := range []string{cpu, mem, mod} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("a failed run wrote %s", p)
		}
	}
	noTemps(t, dir)
	r := ok(t, "train", "-data", "csv:"+data, "-d", "2", "-m", "4", "-epochs", "2", "-o", mod, "-cpuprofile", cpu, "-memprofile", mem, "-quiet")
	for _, p := range []string{cpu, mem, mod} {
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 {
			t.Errorf("%s not written: %v", p, err)
		}
	}
	if !strings.Contains(r.stdout, "saved "+mod) {
		t.Errorf("stdout: %q", r.stdout)
	}
	noTemps(t, dir)
}

// TestLeftoverNamed: a temporary file of a killed run (its process gone)
// is named on stderr by the next run writing into its folder.
func TestLeftoverNamed(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "d.csv")
	writeCSV(t, data, 2, 12, 4)
	// PID 2^22+1 is above Linux's limit: no such process.
	left := filepath.Join(dir, ".m.grlgq.4194305-1.grlgq-tmp")
	os.WriteFile(left, []byte("half a model"), 0o644)
	r := ok(t, "train", "-data", "csv:"+data, "-d", "2", "-m", "4", "-epochs", "2", "-o", filepath.Join(dir, "m.grlgq"), "-quiet")
	if !strings.Contains(r.stderr, "leftover temporary file "+left) || !strings.Contains(r.stderr, "remove it") {
		t.Errorf("stderr %q does not name the leftover %s", r.stderr, left)
	}
	if _, err := os.Stat(left); err != nil {
		t.Error("the leftover was removed: the user decides")
	}
}

// TestPanicRemovesTemporaries: a panic inside a command (a bug) is one
// line and exit code 1, and the outputs it had begun are removed.
func TestPanicRemovesTemporaries(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	defer func(c []command) { commands = c }(commands)
	commands = append(commands[:len(commands):len(commands)], command{name: "boom", run: func(_ context.Context, e *env, _ []string) error {
		fs := newFlagSet("boom")
		g := e.guard(fs)
		if err := g.CheckOutput("-o", out); err != nil {
			return err
		}
		f, err := g.Create(out)
		if err != nil {
			return err
		}
		f.Write([]byte("half"))
		panic("a bug")
	}})
	fails(t, 1, []string{"internal error", "a bug"}, "boom")
	if _, err := os.Stat(out); err == nil {
		t.Error("the output was committed")
	}
	noTemps(t, dir)
}

// TestOutputsNotInLinkedData: a folder that folder data reaches through
// a symbolic link (a linked set, a linked class) is data too: no output
// is written there or in a new folder under it (named through another
// link), a usage error like one inside the data folder itself, and
// nothing is written.
func TestOutputsNotInLinkedData(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "train")
	writeFolder(t, train, 2, 3, 4)
	mod := filepath.Join(dir, "m.grlgq")
	ok(t, "train", "-data", "folder:"+train, "-d", "2", "-epochs", "2", "-o", mod, "-quiet")
	// test/classa/linked -> ext/obj (a set elsewhere), test/classb -> realb.
	test, ext, realb := filepath.Join(dir, "test"), filepath.Join(dir, "ext"), filepath.Join(dir, "realb")
	os.MkdirAll(filepath.Join(test, "classa"), 0o755)
	if err := os.CopyFS(filepath.Join(ext, "obj"), os.DirFS(filepath.Join(train, "classa", "obj0"))); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(realb, os.DirFS(filepath.Join(train, "classb"))); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(ext, "obj"), filepath.Join(test, "classa", "linked")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	os.Symlink(realb, filepath.Join(test, "classb"))
	alias := filepath.Join(dir, "alias") // another way to realb
	os.Symlink(realb, alias)
	before := dirNames(t, filepath.Join(ext, "obj"))
	spec := "folder:" + test
	for _, c := range [][]string{
		{"explain", "-model", mod, "-data", spec, "-n", "1", "-o", filepath.Join(ext, "obj")},
		{"explain", "-model", mod, "-data", spec, "-n", "1", "-o", filepath.Join(alias, "new", "why")},
		{"predict", "-model", mod, "-data", spec, "-o", filepath.Join(realb, "p.csv")},
		{"eval", "-model", mod, "-data", spec, "-plots", filepath.Join(ext, "obj")},
		{"train", "-data", spec, "-d", "2", "-epochs", "1", "-o", filepath.Join(realb, "m.grlgq")},
		{"train", "-data", spec, "-d", "2", "-epochs", "1", "-o", filepath.Join(dir, "m2.grlgq"), "-plots", filepath.Join(ext, "obj")},
		{"cv", "-data", spec, "-d", "2", "-epochs", "1", "-folds", "2", "-plots", filepath.Join(ext, "obj")},
	} {
		fails(t, 2, []string{"inside the data folder", "links there"}, c...)
	}
	if got := dirNames(t, filepath.Join(ext, "obj")); got != before {
		t.Errorf("a refused run wrote into the linked set: %s", got)
	}
	if got := dirNames(t, realb); got != "obj0 obj1 obj2" {
		t.Errorf("a refused run wrote into the linked class: %s", got)
	}
	noTemps(t, filepath.Join(ext, "obj"))
	// Beside the linked set is not in the data.
	ok(t, "explain", "-model", mod, "-data", spec, "-n", "1", "-o", filepath.Join(ext, "why"))
}
