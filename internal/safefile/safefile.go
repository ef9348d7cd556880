package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
)

// Errors of CheckTarget, Create, Commit and Open; the returned errors wrap
// them and name the path.
var (
	ErrNotRegular  = errors.New("not a regular file")
	ErrSymlink     = errors.New("a symbolic link")
	ErrHardLinks   = errors.New("has other hard links")
	ErrReadOnly    = errors.New("read-only")
	ErrInterrupted = errors.New("interrupted")
	// ErrNotRemoved: CommitRemove renamed every file into place but left
	// a file it was to remove.
	ErrNotRemoved = errors.New("not removed")
)

// tmpSuffix ends the name of every temporary file of this package.
const tmpSuffix = ".grlgq-tmp"

var (
	// mu guards temps and abandoned, and is held across the renames of a
	// Commit and the creation of a temporary file, so that Abandon sees
	// each of them either done or not started.
	mu        sync.Mutex
	temps     = map[string]struct{}{}
	abandoned bool
	seq       atomic.Uint64
)

// Kind names the type of a file that is not a regular file ("a FIFO
// (named pipe)", "a character device", "a folder", ...), as the errors of
// Open and CheckTarget say it.
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m.IsRegular():
		return "a regular file"
	}
	return "a file of type " + m.Type().String()
}

// CheckTarget reports whether path may be replaced by Create and Commit: it
// does not exist (and its folder does), or it is a regular file that is
// not a symbolic link, has no other hard link and is writable by its
// owner. It never opens path.
func CheckTarget(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		dir := filepath.Dir(path)
		st, err := os.Stat(dir)
		if err != nil {
			return fmt.Errorf("output folder: %w", err)
		}
		if !st.IsDir() {
			return fmt.Errorf("output folder %s is not a folder", dir)
		}
		return nil
	}
	if err != nil {
		return err
	}
	m := fi.Mode()
	switch {
	case m&fs.ModeSymlink != 0:
		to, _ := os.Readlink(path)
		return fmt.Errorf("refusing to replace %s: it is %w to %s (give the target's own path to replace the target)", path, ErrSymlink, to)
	case !m.IsRegular():
		return fmt.Errorf("refusing to replace %s: it is %s, %w", path, Kind(m), ErrNotRegular)
	}
	if n := links(fi); n > 1 {
		return fmt.Errorf("refusing to replace %s: it %w (%d more; replacing it would leave them with the old content)", path, ErrHardLinks, n-1)
	}
	if m.Perm()&0o200 == 0 {
		return fmt.Errorf("refusing to replace %s: it is %w (mode %v; chmod u+w to allow it)", path, ErrReadOnly, m.Perm())
	}
	return nil
}

// File is a pending replacement of a path: writes go to its temporary
// file until Commit renames it into place (or Abort removes it).
type File struct {
	path, tmp string
	f         *os.File
	closed    bool // Close: synced and closed, awaiting Commit
	done      bool // committed or aborted
	err       error
}

// Create checks path with CheckTarget and creates the temporary file that
// Commit will rename over it.
func Create(path string) (*File, error) {
	if err := CheckTarget(path); err != nil {
		return nil, err
	}
	return create(path)
}

// Probe checks that dir takes a temporary file (it is a folder and
// writable) by creating one and removing it: a program can find out
// before a long computation that its output could not be written.
func Probe(dir string) error {
	f, err := create(filepath.Join(dir, "probe"))
	if err != nil {
		return err
	}
	f.Abort()
	return nil
}

// create makes the temporary file of path.
func create(path string) (*File, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if len(base) > 200 {
		base = base[:200] // the temporary name must stay under NAME_MAX
	}
	mu.Lock()
	defer mu.Unlock()
	if abandoned {
		return nil, fmt.Errorf("%s: %w", path, ErrInterrupted)
	}
	for try := 0; ; try++ {
		tmp := filepath.Join(dir, "."+base+"."+strconv.Itoa(os.Getpid())+"-"+strconv.FormatUint(seq.Add(1), 10)+tmpSuffix)
		f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			temps[tmp] = struct{}{}
			return &File{path: path, tmp: tmp, f: f}, nil
		}
		if !errors.Is(err, fs.ErrExist) || try == 100 {
			return nil, err
		}
	}
}

// Path is the file's final path.
func (f *File) Path() string { return f.path }

// Name is the temporary file's path.
func (f *File) Name() string { return f.tmp }

// Write writes to the temporary file. The first error is kept: Commit
// returns it.
func (f *File) Write(p []byte) (int, error) {
	if f.err != nil {
		return 0, f.err
	}
	if f.done || f.closed {
		return 0, fmt.Errorf("%s: write after close, commit or abort", f.path)
	}
	n, err := f.f.Write(p)
	if err != nil {
		f.err = err
	}
	return n, err
}

// Close syncs and closes the temporary file when nothing more will be
// written to it, before Commit renames it: a program that writes many
// outputs and commits them together (an explanation's pictures) holds
// no descriptor per output while it runs. The first error is kept:
// Commit returns it. Writes after Close are an error.
func (f *File) Close() error {
	if !f.done && !f.closed {
		f.closed = true
		if f.err == nil {
			if err := f.f.Sync(); err != nil {
				f.err = err
			}
		}
		if err := f.f.Close(); err != nil && f.err == nil {
			f.err = err
		}
	}
	if f.err != nil {
		return fmt.Errorf("%s: %w", f.path, f.err) // the output's path, as Commit names it
	}
	return nil
}

// chmod sets the temporary file's permissions: through its descriptor
// while it is open, by its name after Close.
func (f *File) chmod(m fs.FileMode) error {
	if f.closed {
		return os.Chmod(f.tmp, m)
	}
	return f.f.Chmod(m)
}

// Commit renames f over its path; see the package function Commit.
func (f *File) Commit() error { return Commit(f) }

// Abort removes the temporary file; it does nothing after Commit or a
// previous Abort.
func (f *File) Abort() {
	if f == nil || f.done {
		return
	}
	f.done = true
	if !f.closed {
		f.f.Close()
	}
	mu.Lock()
	if _, ok := temps[f.tmp]; ok {
		os.Remove(f.tmp)
		delete(temps, f.tmp)
	}
	mu.Unlock()
}

// Commit syncs and closes every file, checks their paths again with
// CheckTarget, and renames them all into place under one lock: after a
// concurrent Abandon either all were renamed or none was. On any error the
// files not yet renamed are aborted. Files already committed or aborted
// are an error.
func Commit(files ...*File) error { return CommitRemove(nil, files...) }

// CommitRemove is Commit, and once every file is renamed into place it
// removes the files remove names, under the same lock: after a concurrent
// Abandon either the renames and the removals are all done or none is
// started. It is for outputs that supersede files of an earlier run (an
// explanation's pictures of samples the new one has not): they go only
// when the new files are in place. A path to remove that is gone is
// skipped, one that is among the files' paths is not removed, and one
// that is not a regular file (a symbolic link, a folder) is left. A
// removal that fails does not undo the commit: the error wraps
// ErrNotRemoved and names the first file left (and how many more).
func CommitRemove(remove []string, files ...*File) (err error) {
	defer func() {
		if err != nil {
			for _, f := range files {
				f.Abort()
			}
		}
	}()
	seen := map[string]bool{}
	for _, f := range files {
		if f.done {
			return fmt.Errorf("%s: already committed or aborted", f.path)
		}
		abs, aerr := filepath.Abs(f.path)
		if aerr != nil {
			return aerr
		}
		if seen[abs] {
			return fmt.Errorf("%s is written twice", f.path)
		}
		seen[abs] = true
		if f.err != nil {
			return fmt.Errorf("%s: %w", f.path, f.err)
		}
		if err := CheckTarget(f.path); err != nil {
			return err
		}
		// A replaced file keeps its permissions.
		if fi, serr := os.Stat(f.path); serr == nil && fi.Mode().IsRegular() {
			if err := f.chmod(fi.Mode().Perm()); err != nil {
				return fmt.Errorf("%s: %w", f.path, err)
			}
		}
		if err := f.Close(); err != nil { // synced and closed (once)
			return err
		}
	}
	mu.Lock()
	if abandoned {
		mu.Unlock()
		return ErrInterrupted
	}
	for _, f := range files {
		if rerr := os.Rename(f.tmp, f.path); rerr != nil {
			mu.Unlock()
			return rerr
		}
		delete(temps, f.tmp)
		f.done = true
	}
	left, first := removeAll(remove, seen)
	mu.Unlock()
	dirs := map[string]bool{}
	for _, f := range files {
		dirs[filepath.Dir(f.path)] = true
	}
	for _, p := range remove {
		dirs[filepath.Dir(p)] = true
	}
	for d := range dirs {
		// Make the renames durable. Some systems cannot sync a folder;
		// the files themselves are complete either way.
		if df, derr := os.Open(d); derr == nil {
			_ = df.Sync()
			df.Close()
		}
	}
	if left > 0 {
		more := ""
		if left > 1 {
			more = fmt.Sprintf(" (and %d more)", left-1)
		}
		return fmt.Errorf("%w: %v%s", ErrNotRemoved, first, more)
	}
	return nil
}

// removeAll removes the regular files paths names, except those whose
// absolute path is in keep (the files just committed), and returns how
// many it left and the error of the first.
func removeAll(paths []string, keep map[string]bool) (left int, first error) {
	for _, p := range paths {
		if abs, err := filepath.Abs(p); err != nil || keep[abs] {
			continue
		}
		fi, err := os.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			continue
		case err == nil && !fi.Mode().IsRegular():
			err = fmt.Errorf("%s is %s", p, Kind(fi.Mode()))
		case err == nil:
			if err = os.Remove(p); errors.Is(err, fs.ErrNotExist) {
				err = nil
			}
		}
		if err != nil {
			if left == 0 {
				first = err
			}
			left++
		}
	}
	return left, first
}

// WriteFile replaces path atomically with data.
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write replaces path atomically with what fn writes; when fn fails,
// path is left as it was.
func Write(path string, fn func(w io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// Abandon removes every temporary file not yet committed and makes every
// later Create and Commit fail with ErrInterrupted. It waits for a Commit
// in progress to finish its renames. It is for a process about to exit
// (on SIGINT or SIGTERM).
func Abandon() {
	mu.Lock()
	defer mu.Unlock()
	abandoned = true
	for tmp := range temps {
		os.Remove(tmp)
		delete(temps, tmp)
	}
}

// tmpName matches the temporary files of this package (".NAME.PID-N.grlgq-tmp")
// and of earlier versions of the tools (".NAME.tmpPID-N" for models,
// ".NAME.png.RANDOM.tmp" and ".NAME.json.RANDOM.tmp" for pictures and JSON).
var tmpName = regexp.MustCompile(`^\..+(?:\.([0-9]+)-[0-9]+\.grlgq-tmp|\.tmp([0-9]+)-[0-9]+|\.(?:png|json|gz)\.[0-9]+\.tmp)$`)

// Leftovers lists the temporary files in dir that no running process
// owns: those of this package (and of the tools' earlier writers) whose
// process has ended, left by a run that was killed before it could remove
// them. Files of this process and of live processes are not listed.
func Leftovers(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	self := os.Getpid()
	for _, e := range ents {
		m := tmpName.FindStringSubmatch(e.Name())
		if m == nil || !e.Type().IsRegular() {
			continue
		}
		pid := -1
		for _, s := range m[1:] {
			if s != "" {
				pid, _ = strconv.Atoi(s)
			}
		}
		if pid == self || (pid > 0 && alive(pid)) {
			continue
		}
		out = append(out, filepath.Join(dir, e.Name()))
	}
	sort.Strings(out)
	return out
}

// Open opens path for reading. It refuses, without blocking, anything that
// is not a regular file (a FIFO, a device, a socket, a folder), after
// following symbolic links: the open uses O_NONBLOCK where the system has
// it (opening a FIFO without a writer returns at once; regular files ignore
// the flag), and the type is checked on the open file. The error is the
// os error (errors.Is(err, fs.ErrNotExist) works) or that of CheckRegular,
// "PATH: a FIFO (named pipe), not a regular file", wrapping ErrNotRegular.
//
// This is the one implementation of the rule for the module: package
// dataset/imageset (and through it package dataset) and the model loader
// use it too.
func Open(path string) (*os.File, error) {
	f, err := OpenNonblock(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if err := CheckRegular(path, fi.Mode()); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// OpenNonblock opens path read-only with O_NONBLOCK where the system has
// it, whatever its type, so that opening a FIFO does not wait for a
// writer. It is for a caller that checks the type itself (a folder to
// list); Open is the one for files to read.
func OpenNonblock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|oNonblock, 0)
}

// CheckRegular returns nil when m is a regular file's mode, else the error
// "PATH: KIND, not a regular file" (KIND as Kind names it), wrapping
// ErrNotRegular. It is how a caller that has the mode from a directory
// entry refuses a special file before opening it.
func CheckRegular(path string, m fs.FileMode) error {
	if m.IsRegular() {
		return nil
	}
	return fmt.Errorf("%s: %s, %w", path, Kind(m), ErrNotRegular)
}
