package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/grlgq/grlgq/cmd/internal/plot"
	"github.com/grlgq/grlgq/internal/safefile"
)

// The names of the files explain writes into its -o folder besides
// explanation.json: those only explain writes (a sample's picture and
// JSON, the pages of the prototypes), and the relevances picture, which
// train and demo -plots write too.
//
// That name stays shared rather than renamed: it is the name explain's
// page has had from the start (its "also:" line, the README, the tests
// and whatever reads an explain folder), and the page is the very
// picture train draws (plot.Relevances). A new name would not spare the
// check below either: train records its -plots pictures nowhere on disk
// (only in its -json output), so a relevances picture of an older
// explain's folder could only be told from train's by that explain's
// summary all the same. Instead explain knows its own files by what its
// explanation.json lists (its samples' files and, since this version,
// its pages; summary.owns): it replaces or removes a relevances picture
// only when its earlier summary lists it and it is no newer than that
// summary, and refuses to replace any other (earlierExplain).
var (
	pictureExt     = `\.(` + strings.Join(plot.Formats, "|") + `)`
	sampleFile     = regexp.MustCompile(`^sample_[0-9]+(?:\.json|` + pictureExt + `)$`)
	prototypesPage = regexp.MustCompile(`^prototypes(?:_[0-9]+)?` + pictureExt + `$`)
	relevancesPage = regexp.MustCompile(`^relevances` + pictureExt + `$`)
)

// summaryBase bounds the part of an earlier explain's explanation.json
// that does not grow with its samples: the note, the relevances, the
// model's and the data's names, its pages.
const summaryBase = 1 << 20

// summaryLimit bounds the explanation.json of an earlier explain whose
// folder holds n sample JSON files of size bytes in all; a larger one is
// not recognised. The summary's entry of a sample repeats what the
// sample's JSON holds (name, classes, margin, top images), indented
// deeper (less than twice its bytes), and names its two files.
func summaryLimit(size int64, n int) int64 { return summaryBase + 2*size + 256*int64(n) }

// errNoSummary: the -o folder holds no explain summary.
var errNoSummary = errors.New("no explanation.json of an earlier explain")

// earlierRun is what explain's -o folder holds of an earlier explain:
// the files this run does not write.
type earlierRun struct {
	// remove are the earlier run's files, removed when this run's are
	// committed (runfiles.Guard.RemoveOnCommit).
	remove []string
	// kept are the names of the files named like a sample's picture or
	// JSON, or like a prototypes page, that the earlier run's
	// explanation.json does not list (an older version's, or not
	// explain's at all): left where they are, named in a warning.
	kept []string
	// notRegular are the earlier run's names (listed samples' files,
	// prototype pages) that are not regular files, with what they are
	// ("sample_0.png: a symbolic link"): never removed, named in a
	// warning.
	notRegular []string
}

// earlierExplain checks explain's -o folder dir before anything is
// written there; writes holds the names of the files this run writes into
// it. Nothing is to be done when dir is new, or holds no file named like
// explain's. Otherwise:
//
//   - A folder with sample or prototypes files and no summary (or one
//     larger than summaryLimit) is refused, whether or not this run
//     writes their names: they would mix with, or be replaced by, this
//     run's.
//   - Every file already at a name this run writes must be replaceable
//     (safefile.CheckTarget) and the earlier explain's (summary.owns:
//     listed by its explanation.json, or that summary itself); any other
//     (a user's file named like a sample's, train's relevances picture)
//     is refused, in one line naming it, before anything is written.
//   - Of the earlier explain's files this run does not write, those its
//     summary lists go when this run's files are committed; the other
//     files named like a sample's or a prototypes page are kept, as are
//     those of its names that are not regular files, with a warning; a
//     relevances picture not its own is left without a word (train's or
//     demo's in another format).
func earlierExplain(dir string, writes map[string]bool) (*earlierRun, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return &earlierRun{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("-o %s: %w", dir, err)
	}
	var (
		own        []fs.DirEntry // named like a sample's or a prototypes page
		relevances []fs.DirEntry // of the pages this run does not write
		taken      []fs.DirEntry // at the names this run writes
		jsonBytes  int64         // of the samples' JSON files
		jsonFiles  int
	)
	for _, e := range ents {
		n := e.Name()
		if writes[n] {
			taken = append(taken, e)
		}
		switch {
		case sampleFile.MatchString(n) || prototypesPage.MatchString(n):
			own = append(own, e)
			if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() && strings.HasSuffix(n, ".json") {
				jsonBytes += fi.Size()
				jsonFiles++
			}
		case relevancesPage.MatchString(n) && !writes[n]:
			relevances = append(relevances, e)
		}
	}
	r := &earlierRun{}
	if len(own) == 0 && len(relevances) == 0 && len(taken) == 0 {
		return r, nil
	}
	sum, err := readSummary(filepath.Join(dir, "explanation.json"), summaryLimit(jsonBytes, jsonFiles))
	if err != nil {
		if len(own) > 0 {
			return nil, fmt.Errorf("-o %s holds %d file(s) named like explain's (%s) but %v: refusing to mix them with this run's; give an empty or new folder",
				dir, len(own), someNames(names(own)), err)
		}
		// Nothing of an earlier explain's here: relevances pictures of
		// train or demo -plots, or a user's explanation.json, none of which
		// this run may replace.
		sum = &summary{err: err}
	}
	for _, e := range taken {
		p := filepath.Join(dir, e.Name())
		if err := safefile.CheckTarget(p); err != nil {
			return nil, err
		}
		if why := sum.owns(e); why != "" {
			return nil, fmt.Errorf("refusing to replace %s: %s; move it away or give an empty or new folder", p, why)
		}
	}
	if sum.err != nil {
		return r, nil
	}
	for _, e := range own {
		switch n := e.Name(); {
		case writes[n]: // the earlier run's (checked above), replaced by this run's
		case sum.owns(e) != "":
			r.kept = append(r.kept, n)
		case !e.Type().IsRegular():
			r.notRegular = append(r.notRegular, n+": "+safefile.Kind(e.Type()))
		default:
			r.remove = append(r.remove, filepath.Join(dir, n))
		}
	}
	for _, e := range relevances {
		if e.Type().IsRegular() && sum.owns(e) == "" {
			r.remove = append(r.remove, filepath.Join(dir, e.Name()))
		}
	}
	return r, nil
}

// summary is what an earlier explain's explanation.json says of the
// files it wrote beside it.
type summary struct {
	// err is why there is no summary (errNoSummary, or one too large).
	err error
	// listed are the names of its samples' pictures and JSON files.
	listed map[string]bool
	// pages are the names of its relevances and prototypes pages; nil for
	// a summary written before explain listed them.
	pages map[string]bool
	// format is the format of its samples' pictures ("" without samples).
	format string
	// modTime is when explanation.json was written, after every other
	// file of its run.
	modTime time.Time
}

// owns says why the file e of the -o folder is not the earlier explain's
// of summary s, "" when it is: explanation.json itself (the summary), a
// sample's picture or JSON file the summary lists, a page it lists.
// A summary from before explain listed its pages owns every prototypes
// page (only explain writes them) and the relevances page in the format
// of its samples' pictures. A relevances page, a name train and demo
// -plots write too, must also be no newer than the summary: one written
// since is another command's.
func (s *summary) owns(e fs.DirEntry) string {
	n := e.Name()
	shared := ""
	if relevancesPage.MatchString(n) {
		shared = " (train and demo -plots write that name too)"
	}
	switch {
	case n == "explanation.json" && errors.Is(s.err, errNoSummary):
		return "it is not the summary of an earlier explain"
	case s.err != nil && n == "explanation.json":
		return s.err.Error()
	case s.err != nil:
		return "no explanation.json of an earlier explain lists it" + shared
	case n == "explanation.json":
		return ""
	}
	notListed := "the earlier explain's explanation.json there does not list it" + shared
	switch {
	case sampleFile.MatchString(n):
		if !s.listed[n] {
			return notListed
		}
	case prototypesPage.MatchString(n):
		if s.pages != nil && !s.pages[n] {
			return notListed
		}
	case relevancesPage.MatchString(n):
		if s.pages != nil && !s.pages[n] || s.pages == nil && (s.format == "" || filepath.Ext(n) != "."+s.format) {
			return notListed
		}
		if fi, err := e.Info(); err != nil || fi.ModTime().After(s.modTime) {
			return "it was written after the earlier explain's explanation.json there, not by that run" + shared
		}
	default:
		return "it is not a file explain writes" // not reached: writes holds explain's names
	}
	return ""
}

// readSummary reads the explanation.json at path: the names of the files
// it lists and when it was written. The error is errNoSummary when there
// is none, or it is not explain's summary, and says so when it is larger
// than limit bytes.
func readSummary(path string, limit int64) (*summary, error) {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return nil, errNoSummary
	}
	tooLarge := func(size int64) error {
		return fmt.Errorf("an explanation.json of %d bytes, more than an earlier explain writes beside them (%d at most)", size, limit)
	}
	if fi.Size() > limit {
		return nil, tooLarge(fi.Size())
	}
	f, err := safefile.Open(path)
	if err != nil {
		return nil, errNoSummary
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, errNoSummary
	}
	if int64(len(b)) > limit { // grown since
		return nil, tooLarge(int64(len(b)))
	}
	var sum struct {
		Note    string `json:"note"`
		Samples []struct {
			Picture string `json:"picture"`
			JSON    string `json:"json"`
		} `json:"samples"`
		Pages *[]string `json:"pages"`
	}
	if json.Unmarshal(b, &sum) != nil || !strings.HasPrefix(sum.Note, explainNoteStart) {
		return nil, errNoSummary
	}
	s := &summary{listed: map[string]bool{}, modTime: fi.ModTime()}
	if st, err := f.Stat(); err == nil {
		s.modTime = st.ModTime()
	}
	for _, sm := range sum.Samples {
		for _, n := range []string{sm.Picture, sm.JSON} {
			if sampleFile.MatchString(n) { // a name in the folder, nothing else
				s.listed[n] = true
			}
		}
		if m := sampleFile.FindStringSubmatch(sm.Picture); m != nil && m[1] != "" {
			s.format = m[1]
		}
	}
	if sum.Pages != nil {
		s.pages = map[string]bool{}
		for _, n := range *sum.Pages {
			if relevancesPage.MatchString(n) || prototypesPage.MatchString(n) {
				s.pages[n] = true
			}
		}
	}
	return s, nil
}

// removed are those of paths that are gone: the files Commit removed of
// those declared with RemoveOnCommit (it leaves, with a warning, those
// it cannot remove).
func removed(paths []string) []string {
	var out []string
	for _, p := range paths {
		if _, err := os.Lstat(p); errors.Is(err, fs.ErrNotExist) {
			out = append(out, p)
		}
	}
	return out
}

// names are the names of the entries es.
func names(es []fs.DirEntry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Name()
	}
	return out
}

// someNames lists the first three of names, and "..." for the others.
func someNames(names []string) string {
	if len(names) > 3 {
		return strings.Join(names[:3], ", ") + ", ..."
	}
	return strings.Join(names, ", ")
}
