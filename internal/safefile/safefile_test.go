package safefile

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// noTemps fails the test when dir holds a temporary file.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	if err := WriteFile(p, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("two")); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil || string(b) != "two" {
		t.Fatalf("read %q, %v; want two", b, err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o600 {
		t.Errorf("replaced file has mode %v, want 0600 kept", fi.Mode().Perm())
	}
	// A failing writer leaves the old file.
	boom := errors.New("boom")
	if err := Write(p, func(w io.Writer) error { w.Write([]byte("half")); return boom }); !errors.Is(err, boom) {
		t.Errorf("Write: %v, want boom", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "two" {
		t.Errorf("a failed write changed the file: %q", b)
	}
	noTemps(t, dir)
}

// TestRefuse: every target that is not a plain regular file is refused
// with its error, before anything is created, and is left as it was.
func TestRefuse(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("target"), 0o644)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	dangling := filepath.Join(dir, "dangling")
	os.Symlink(filepath.Join(dir, "nowhere"), dangling)
	hard := filepath.Join(dir, "hard")
	if err := os.Link(target, hard); err != nil {
		t.Fatal(err)
	}
	ro := filepath.Join(dir, "ro")
	os.WriteFile(ro, []byte("ro"), 0o444)
	os.Chmod(ro, 0o444)
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	fifo := filepath.Join(dir, "fifo")
	hasFIFO := mkfifo(fifo) == nil
	cases := []struct {
		path string
		want error
	}{
		{link, ErrSymlink},
		{dangling, ErrSymlink},
		{hard, ErrHardLinks},
		{target, ErrHardLinks},
		{ro, ErrReadOnly},
		{sub, ErrNotRegular},
	}
	if hasFIFO {
		cases = append(cases, struct {
			path string
			want error
		}{fifo, ErrNotRegular})
	}
	if fi, err := os.Stat(os.DevNull); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		cases = append(cases, struct {
			path string
			want error
		}{os.DevNull, ErrNotRegular})
	}
	for _, c := range cases {
		before, _ := os.Lstat(c.path)
		err := WriteFile(c.path, []byte("new"))
		if !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.path, err, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.path) {
			t.Errorf("%s: the error does not name it: %v", c.path, err)
		}
		after, _ := os.Lstat(c.path)
		if before.Mode() != after.Mode() || !os.SameFile(before, after) || before.Size() != after.Size() {
			t.Errorf("%s was changed", c.path)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "target" {
		t.Errorf("the link's target was changed: %q", b)
	}
	if err := WriteFile(filepath.Join(dir, "missing", "x"), nil); err == nil {
		t.Error("a missing folder was accepted")
	}
	noTemps(t, dir)
}

func TestProbe(t *testing.T) {
	dir := t.TempDir()
	os.Symlink("nowhere", filepath.Join(dir, "probe")) // a name that cannot mislead it
	if err := Probe(dir); err != nil {
		t.Errorf("Probe(%s) = %v", dir, err)
	}
	if err := Probe(filepath.Join(dir, "missing")); err == nil {
		t.Error("Probe of a missing folder succeeded")
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("Probe left %d files", len(ents)-1)
	}
}

func TestCommitMany(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	fa, err := Create(a)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := Create(b)
	if err != nil {
		t.Fatal(err)
	}
	fa.Write([]byte("A"))
	fb.Write([]byte("B"))
	if _, err := os.Stat(a); err == nil {
		t.Fatal("a exists before the commit")
	}
	if err := Commit(fa, fb); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{a: "A", b: "B"} {
		if got, _ := os.ReadFile(p); string(got) != want {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
	fa.Abort() // after a commit: nothing
	if _, err := os.Stat(a); err != nil {
		t.Error("Abort after Commit removed the file")
	}
	// The same path twice is refused, and nothing is written.
	f1, _ := Create(a)
	f2, _ := Create(a)
	f1.Write([]byte("x"))
	if err := Commit(f1, f2); err == nil {
		t.Error("one path committed twice")
	}
	if got, _ := os.ReadFile(a); string(got) != "A" {
		t.Errorf("a = %q after a refused commit", got)
	}
	noTemps(t, dir)
}

func TestLeftovers(t *testing.T) {
	dir := t.TempDir()
	// PID 2^22+1 is above Linux's pid_max limit: no such process.
	dead := []string{".m.grlgq.4194305-3.grlgq-tmp", ".m.grlgq.tmp4194305-99", ".x.png.123456.tmp"}
	for _, n := range dead {
		os.WriteFile(filepath.Join(dir, n), nil, 0o644)
	}
	mine, err := Create(filepath.Join(dir, "m.grlgq"))
	if err != nil {
		t.Fatal(err)
	}
	defer mine.Abort()
	os.WriteFile(filepath.Join(dir, "m.grlgq.tmp"), nil, 0o644)       // not ours
	os.WriteFile(filepath.Join(dir, ".notes.txt.12.tmp"), nil, 0o644) // nor this
	got := Leftovers(dir)
	var names []string
	for _, p := range got {
		names = append(names, filepath.Base(p))
	}
	if strings.Join(names, " ") != ".m.grlgq.4194305-3.grlgq-tmp .m.grlgq.tmp4194305-99 .x.png.123456.tmp" {
		t.Errorf("Leftovers = %v", names)
	}
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte("data"), 0o644)
	f, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(f)
	f.Close()
	if !bytes.Equal(b, []byte("data")) {
		t.Errorf("read %q", b)
	}
	bad := []string{dir}
	if fi, err := os.Stat(os.DevNull); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		bad = append(bad, os.DevNull)
	}
	fifo := filepath.Join(dir, "fifo")
	if mkfifo(fifo) == nil {
		bad = append(bad, fifo) // would block forever without O_NONBLOCK
	}
	for _, p := range bad {
		if f, err := Open(p); !errors.Is(err, ErrNotRegular) {
			t.Errorf("Open(%s) = %v, want ErrNotRegular", p, err)
			if f != nil {
				f.Close()
			}
		}
	}
}

// TestCommitRemove: the files to remove go only when the commit succeeds,
// after the renames; a committed path, a missing file and a symbolic link
// are not removed, and a link is named by an error wrapping ErrNotRemoved.
func TestCommitRemove(t *testing.T) {
	dir := t.TempDir()
	a, old1, old2 := filepath.Join(dir, "a"), filepath.Join(dir, "old1"), filepath.Join(dir, "old2")
	for _, p := range []string{a, old1, old2} {
		os.WriteFile(p, []byte("old"), 0o644)
	}
	// A failed commit (a path written twice) removes nothing.
	f1, _ := Create(a)
	f2, _ := Create(a)
	if err := CommitRemove([]string{old1}, f1, f2); err == nil || errors.Is(err, ErrNotRemoved) {
		t.Errorf("a refused commit: %v", err)
	}
	if _, err := os.Stat(old1); err != nil {
		t.Error("a refused commit removed a file")
	}
	fa, err := Create(a)
	if err != nil {
		t.Fatal(err)
	}
	fa.Write([]byte("A"))
	if err := CommitRemove([]string{old1, a, filepath.Join(dir, "gone")}, fa); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(a); string(got) != "A" {
		t.Errorf("a = %q, want the committed A", got)
	}
	if _, err := os.Stat(old1); err == nil {
		t.Error("old1 was not removed")
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(old2, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	fa, _ = Create(a)
	err = CommitRemove([]string{link}, fa)
	if !errors.Is(err, ErrNotRemoved) || !strings.Contains(err.Error(), link) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("removing a link: %v", err)
	}
	if _, err := os.Lstat(link); err != nil {
		t.Error("the link was removed")
	}
	if _, err := os.Stat(old2); err != nil {
		t.Error("the link's target was removed")
	}
	noTemps(t, dir)
}

// TestAbandon runs last: it leaves the package abandoned until reset.
func TestAbandon(t *testing.T) {
	defer func() { mu.Lock(); abandoned = false; mu.Unlock() }()
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	os.WriteFile(p, []byte("old"), 0o644)
	f, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("new"))
	Abandon()
	if _, err := os.Stat(f.Name()); err == nil {
		t.Error("Abandon left the temporary file")
	}
	if err := f.Commit(); !errors.Is(err, ErrInterrupted) {
		t.Errorf("Commit after Abandon: %v", err)
	}
	if _, err := Create(p); !errors.Is(err, ErrInterrupted) {
		t.Errorf("Create after Abandon: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "old" {
		t.Errorf("the file changed: %q", b)
	}
	noTemps(t, dir)
}

// TestClose: a file closed before the commit holds no descriptor, refuses
// further writes, and is committed like any other (content, a replaced
// file's permissions) or removed by Abort; closed beside open files in
// one Commit.
func TestClose(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	if err := os.WriteFile(a, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	fa, err := Create(a)
	if err != nil {
		t.Fatal(err)
	}
	fb, err := Create(b)
	if err != nil {
		t.Fatal(err)
	}
	fa.Write([]byte("A"))
	if err := fa.Close(); err != nil {
		t.Fatal(err)
	}
	if err := fa.f.Close(); err == nil {
		t.Error("the temporary file is still open after Close")
	}
	if _, err := fa.Write([]byte("more")); err == nil {
		t.Error("a write after Close succeeded")
	}
	if err := fa.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
	fb.Write([]byte("B"))
	if got, _ := os.ReadFile(a); string(got) != "old" {
		t.Errorf("a = %q before the commit", got)
	}
	if err := Commit(fa, fb); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{a: "A", b: "B"} {
		if got, _ := os.ReadFile(p); string(got) != want {
			t.Errorf("%s = %q, want %q", p, got, want)
		}
	}
	if fi, err := os.Stat(a); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("replaced a: %v, %v; want mode 0600", fi.Mode(), err)
	}
	fc, err := Create(c)
	if err != nil {
		t.Fatal(err)
	}
	fc.Write([]byte("C"))
	fc.Close()
	fc.Abort()
	if _, err := os.Stat(c); err == nil {
		t.Error("an aborted closed file was committed")
	}
	noTemps(t, dir)
}
