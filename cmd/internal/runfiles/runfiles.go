package runfiles

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/grlgq/grlgq/cmd/internal/base"

	"github.com/grlgq/grlgq/dataset"
	"github.com/grlgq/grlgq/internal/safefile"
)

// New returns the guard of a run of program (which names its warnings on
// stderr).
func New(program string, stderr io.Writer) *Guard { return &Guard{program: program, stderr: stderr} }

// SetFlags sets the command whose usage errors the guard reports.
func (g *Guard) SetFlags(fs *flag.FlagSet) { g.fs = fs }

// Stderr returns the run's stderr, where its warnings go (and its
// progress bars, on a terminal).
func (g *Guard) Stderr() io.Writer { return g.stderr }

// Flags returns the command's flags given to SetFlags (nil before).
func (g *Guard) Flags() *flag.FlagSet { return g.fs }

// InputReplaceable declares path, given by flag, as a regular file the
// run reads whole before any output is written, and which -o may replace
// (train -resume M -o M: on commit only), as may -checkpoint (train
// -resume C -checkpoint C: from the first checkpoint on).
func (g *Guard) InputReplaceable(flag, path string) error {
	if err := g.Input(flag, path, false); err != nil {
		return err
	}
	g.inputs[len(g.inputs)-1].replaceable = true
	return nil
}

// Guard is a run's guard over the files it touches. Before any work the
// command declares its inputs (data files and folders, the model) and its
// outputs: an input must be a regular file (or a folder where one is
// expected) and is refused at once, without blocking, when it is a FIFO,
// a device or a socket; an output may not be an input, be inside an
// Input folder, or be named twice, and must be replaceable
// (safefile.CheckTarget). Outputs are written to temporary files and
// renamed into place together by commit, once the command has succeeded;
// Abort (deferred by run) removes them on any other way out.
type Guard struct {
	fs      *flag.FlagSet // of the command, for usage errors
	stderr  io.Writer
	program string // names the warnings
	inputs  []inputFile
	outputs []outputFile
	pending []*safefile.File
	remove  []string        // files Commit removes once the outputs are in place
	warned  map[string]bool // folders already searched for leftovers
	newDirs []string        // absolute paths of output folders to create
	outDirs []outputFile    // the output folders, as OutputDir declared them
	// dirs maps the absolute and the real path of every input folder to
	// its first index in inputs: clash looks an output's folders up in it
	// instead of comparing with every input (DataFolders may declare one
	// per linked set folder: thousands).
	dirs map[string]int
}

type inputFile struct {
	flag, path string
	fi         fs.FileInfo
	// via is the path through a symbolic link by which the data reaches
	// this folder (path is then its real path; see DataFolders).
	via string
	// replaceable: -o may name this input (train -resume M -o M): it is
	// read whole before any output is written, which replaces it only on
	// commit.
	replaceable bool
}

type outputFile struct {
	flag, path, abs string
}

// Input declares path, given by flag, as read by the run: a regular file,
// or a folder when dir.
func (g *Guard) Input(flag, path string, dir bool) error {
	if dir {
		fi, err := os.Stat(path)
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s %s is not a folder", flag, path)
		}
		g.addInput(inputFile{flag: flag, path: path, fi: fi})
		return nil
	}
	f, err := safefile.Open(path)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	f.Close()
	if err != nil {
		return err
	}
	g.addInput(inputFile{flag: flag, path: path, fi: fi})
	return nil
}

// addInput declares in, and for a folder records its absolute and real
// paths in dirs.
func (g *Guard) addInput(in inputFile) {
	g.inputs = append(g.inputs, in)
	if !in.fi.IsDir() {
		return
	}
	if g.dirs == nil {
		g.dirs = map[string]int{}
	}
	for _, key := range []string{absPath(in.path), realOrEmpty(in.path)} {
		if _, ok := g.dirs[key]; key != "" && !ok {
			g.dirs[key] = len(g.inputs) - 1
		}
	}
}

// absPath is filepath.Abs of p, "" on error.
func absPath(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return ""
	}
	return a
}

// realOrEmpty is evalAbs of p, "" on error.
func realOrEmpty(p string) string {
	r, err := evalAbs(p)
	if err != nil {
		return ""
	}
	return r
}

// dirOf returns the index of the first declared input folder that is one
// of p's ancestors or p itself, -1 when none: each of p's at most a few
// dozen ancestors looked up in dirs.
func (g *Guard) dirOf(p string) int {
	best := -1
	for d := p; ; d = filepath.Dir(d) {
		if i, ok := g.dirs[d]; ok && (best < 0 || i < best) {
			best = i
		}
		if d == filepath.Dir(d) {
			return best
		}
	}
}

// DataInputs declares the files (or folder) of a data source as inputs.
func (g *Guard) DataInputs(src dataset.Source) error {
	for _, p := range src.Inputs() {
		if err := g.Input("-data", p, src.Kind() == dataset.KindSets); err != nil {
			return fmt.Errorf("load %s: %w", src, err)
		}
	}
	return nil
}

// clash returns why path, given by flag, may not be written: it names
// an input or lies inside an input folder, or another output has its
// name (for a folder of outputs, dir: it is or lies inside an input
// folder). Other outputs count only when outputs is true. It returns ""
// when path is free.
func (g *Guard) clash(flag, path string, dir, outputs bool) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	// The input folders: path, or the real path of its nearest existing
	// folder (path itself when dir: an output folder that is a link is
	// written through it), lies in one (an ancestor of either is one).
	in := g.dirOf(abs)
	if rp, ok := realPath(path, dir); ok {
		if j := g.dirOf(rp); j >= 0 && (in < 0 || j < in) {
			in = j
		}
	}
	if in >= 0 {
		d := g.inputs[in]
		if d.via != "" {
			return fmt.Sprintf("%s %s is inside the data folder %s (the data's %s links there): refusing to write there", flag, path, d.path, d.via)
		}
		return fmt.Sprintf("%s %s is inside the data folder %s: refusing to write there", flag, path, d.path)
	}
	fi, ferr := os.Stat(path)
	for _, in := range g.inputs {
		if dir || in.fi.IsDir() {
			continue
		}
		inAbs, _ := filepath.Abs(in.path)
		if abs == inAbs || (ferr == nil && os.SameFile(fi, in.fi)) {
			if in.replaceable && (flag == "-o" || flag == "output" || flag == "-checkpoint") {
				continue
			}
			return fmt.Sprintf("%s %s is also an input (%s %s): refusing to overwrite it", flag, path, in.flag, in.path)
		}
	}
	if dir || !outputs {
		return ""
	}
	for _, o := range g.outputs {
		if abs == o.abs {
			return fmt.Sprintf("%s %s and %s %s are the same file: give each output its own name", o.flag, o.path, flag, path)
		}
	}
	return ""
}

// evalAbs is filepath.EvalSymlinks of p's absolute path.
func evalAbs(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	return filepath.EvalSymlinks(abs)
}

// realPath is the absolute path p names once the symbolic links of its
// nearest existing folder are resolved; p itself, when it is a link, only
// when follow (an output file never replaces one).
func realPath(p string, follow bool) (string, bool) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", false
	}
	if r, err := filepath.EvalSymlinks(abs); follow && err == nil {
		return r, true
	}
	rest := filepath.Base(abs)
	for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
		if r, err := filepath.EvalSymlinks(d); err == nil {
			return filepath.Join(r, rest), true
		}
		if d == filepath.Dir(d) {
			return "", false
		}
		rest = filepath.Join(filepath.Base(d), rest)
	}
}

// CheckOutput declares path, given by flag, as a file the run will write
// (a usage error when it clashes with an input or another output), checks
// that it can be replaced, and names temporary files left in its folder
// by interrupted runs.
func (g *Guard) CheckOutput(flag, path string) error {
	if why := g.clash(flag, path, false, true); why != "" {
		return base.Usagef(g.fs, "%s", why)
	}
	abs, _ := filepath.Abs(path)
	g.outputs = append(g.outputs, outputFile{flag, path, abs})
	if g.isNewDir(filepath.Dir(path)) {
		return nil // nothing there to replace yet
	}
	if err := safefile.CheckTarget(path); err != nil {
		return err
	}
	g.leftovers(filepath.Dir(path))
	return probe(filepath.Dir(path))
}

// probe checks that a temporary file can be made in dir, so that a run
// whose output folder is not writable fails before its work, not after.
func probe(dir string) error {
	if err := safefile.Probe(dir); err != nil {
		return fmt.Errorf("output folder %s is not writable: %w", dir, err)
	}
	return nil
}

// OutputDir declares dir, given by flag, as a folder the run writes into.
// A missing folder is created when the first output is written into it,
// not before: a run that fails before that leaves no empty folder.
func (g *Guard) OutputDir(flag, dir string) error {
	if why := g.clash(flag, dir, true, false); why != "" {
		return base.Usagef(g.fs, "%s", why)
	}
	abs, _ := filepath.Abs(dir)
	g.outDirs = append(g.outDirs, outputFile{flag, dir, abs})
	fi, err := os.Stat(dir)
	switch {
	case err == nil && !fi.IsDir():
		return fmt.Errorf("%s %s exists and is not a folder", flag, dir)
	case err == nil:
		g.leftovers(dir)
		return probe(dir)
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%s: %w", flag, err)
	}
	// Its nearest existing ancestor must be a folder.
	for p := filepath.Dir(dir); ; p = filepath.Dir(p) {
		if fi, err := os.Stat(p); err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("%s %s: %s is not a folder", flag, dir, p)
			}
			break
		}
		if p == filepath.Dir(p) {
			break
		}
	}
	g.newDirs = append(g.newDirs, abs)
	return nil
}

// DataFolders declares the folders of loaded folder data as inputs when
// the data reaches them through a symbolic link: files are the data's
// image files as the loader listed them (dataset.Dataset.Files,
// ROOT/<class>/<set>/<file> through the links), and the real path of every
// set folder and of the folder holding it (a class folder, or ROOT) that
// lies outside the input folders declared so far becomes an input folder
// too, since a picture written there would be loaded with the data next
// time. The outputs and output folders declared so far are checked again:
// one inside such a folder is a usage error, like one inside ROOT.
func (g *Guard) DataFolders(files []string) error {
	seen := map[string]bool{}
	for _, f := range files {
		set := filepath.Dir(f)
		for _, d := range []string{set, filepath.Dir(set)} {
			if seen[d] {
				continue
			}
			seen[d] = true
			r, err := evalAbs(d)
			if err != nil || g.dirOf(r) >= 0 {
				continue // in an input folder already
			}
			fi, err := os.Stat(r)
			if err != nil || !fi.IsDir() {
				continue
			}
			g.addInput(inputFile{flag: "-data", path: r, fi: fi, via: d})
		}
	}
	for _, o := range g.outDirs {
		if why := g.clash(o.flag, o.path, true, false); why != "" {
			return base.Usagef(g.fs, "%s", why)
		}
	}
	for _, o := range g.outputs {
		if why := g.clash(o.flag, o.path, false, false); why != "" {
			return base.Usagef(g.fs, "%s", why)
		}
	}
	return nil
}

// isNewDir reports whether dir is a folder outputDir will create.
func (g *Guard) isNewDir(dir string) bool {
	abs, _ := filepath.Abs(dir)
	for _, d := range g.newDirs {
		if d == abs {
			return true
		}
	}
	return false
}

// Create makes the temporary file of an output path (declared before with
// CheckOutput or inside an outputDir), to be committed with the others.
func (g *Guard) Create(path string) (*safefile.File, error) {
	for _, o := range g.pending {
		if filepath.Clean(o.Path()) == filepath.Clean(path) {
			return nil, fmt.Errorf("%s is written twice", path)
		}
	}
	if why := g.clash("output", path, false, false); why != "" {
		return nil, errors.New(why)
	}
	if dir := filepath.Dir(path); g.isNewDir(dir) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	f, err := safefile.Create(path)
	if err != nil {
		return nil, err
	}
	g.pending = append(g.pending, f)
	return f, nil
}

// Write writes b to the temporary file of the output path (see Create),
// to be committed with the others, and closes it (no descriptor stays
// open per output until the commit).
func (g *Guard) Write(path string, b []byte) error {
	f, err := g.Create(path)
	if err != nil {
		return err
	}
	if _, err = f.Write(b); err != nil {
		return err
	}
	return f.Close()
}

// leftovers prints a warning for every temporary file an interrupted run
// left in dir.
func (g *Guard) leftovers(dir string) {
	if g.warned == nil {
		g.warned = map[string]bool{}
	}
	if abs, err := filepath.Abs(dir); err == nil {
		if g.warned[abs] {
			return
		}
		g.warned[abs] = true
	}
	for _, p := range safefile.Leftovers(dir) {
		fmt.Fprintf(g.stderr, "%s: warning: leftover temporary file %s from an interrupted run; remove it\n", g.program, p)
	}
}

// RemoveOnCommit declares path, a file of an earlier run in an output
// folder that this run's outputs supersede, to be removed by Commit once
// they are in place (safefile.CommitRemove); a failed or interrupted run
// removes nothing. A path that clashes with an input is refused.
func (g *Guard) RemoveOnCommit(path string) error {
	if why := g.clash("output", path, false, false); why != "" {
		return errors.New(why)
	}
	g.remove = append(g.remove, path)
	return nil
}

// Commit renames every output into place and removes the files declared
// with RemoveOnCommit, all under one lock. A file it could not remove is
// a warning on stderr, named by the program and the command (SetFlags),
// not an error: the outputs are in place.
func (g *Guard) Commit() error {
	err := safefile.CommitRemove(g.remove, g.pending...)
	g.pending, g.remove = nil, nil
	if errors.Is(err, safefile.ErrNotRemoved) {
		prefix := g.program
		if g.fs != nil {
			prefix += ": " + g.fs.Name()
		}
		fmt.Fprintf(g.stderr, "%s: warning: %v\n", prefix, err)
		return nil
	}
	return err
}

// Abort removes the temporary files of outputs not committed, and removes
// none of the files declared with RemoveOnCommit.
func (g *Guard) Abort() {
	for _, f := range g.pending {
		f.Abort()
	}
	g.pending, g.remove = nil, nil
}
