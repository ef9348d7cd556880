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

	"github.com/grlgq/grlgq/cmd/internal/plot"
	"github.com/grlgq/grlgq/internal/safefile"
)

// The names of the files explain writes into its -o folder besides
// explanation.json: those only explain writes (a sample's picture and
// JSON, the pages of the prototypes), and the relevances picture, which
// train and demo -plots write too.
var (
	pictureExt     = `\.(` + strings.Join(plot.Formats, "|") + `)`
	sampleFile     = regexp.MustCompile(`^sample_[0-9]+(?:\.json|` + pictureExt + `)$`)
	prototypesPage = regexp.MustCompile(`^prototypes(?:_[0-9]+)?` + pictureExt + `$`)
	relevancesPage = regexp.MustCompile(`^relevances` + pictureExt + `$`)
)

// summaryBase bounds the part of an earlier explain's explanation.json
// that does not grow with its samples: the note, the relevances, the
// model's and the data's names.
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
	// JSON that the earlier run's explanation.json does not list (an
	// older version's, or not explain's at all): left where they are,
	// named in a warning.
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
// explain's. Otherwise dir must be an earlier explain's output,
// recognised by its explanation.json (explain's summary): the files that
// summary lists (its samples' pictures and JSON) and its pages
// (prototypes in any format, which the summary does not list but only
// explain writes; relevances in the format of its pictures) go when this
// run's files are committed; the other files named like a sample's are
// kept, as are those of its names that are not regular files. A folder
// with sample or prototypes files and no summary (or one larger than
// summaryLimit) is refused, whether or not this run writes their names:
// they would mix with, or be replaced by, this run's.
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
		jsonBytes  int64         // of the samples' JSON files
		jsonFiles  int
	)
	for _, e := range ents {
		switch n := e.Name(); {
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
	if len(own) == 0 && len(relevances) == 0 {
		return r, nil
	}
	listed, format, err := readSummary(filepath.Join(dir, "explanation.json"), summaryLimit(jsonBytes, jsonFiles))
	if err != nil {
		if len(own) == 0 {
			return r, nil // relevances pictures of train or demo -plots
		}
		return nil, fmt.Errorf("-o %s holds %d file(s) named like explain's (%s) but %v: refusing to mix them with this run's; give an empty or new folder",
			dir, len(own), someNames(names(own)), err)
	}
	for _, e := range own {
		switch n := e.Name(); {
		case writes[n]: // replaced by this run's
		case !listed[n] && !prototypesPage.MatchString(n):
			r.kept = append(r.kept, n)
		case !e.Type().IsRegular():
			r.notRegular = append(r.notRegular, n+": "+safefile.Kind(e.Type()))
		default:
			r.remove = append(r.remove, filepath.Join(dir, n))
		}
	}
	for _, e := range relevances {
		if e.Type().IsRegular() && format != "" && strings.TrimPrefix(filepath.Ext(e.Name()), ".") == format {
			r.remove = append(r.remove, filepath.Join(dir, e.Name()))
		}
	}
	return r, nil
}

// readSummary reads the explanation.json at path: the names of the
// pictures and JSON files of its samples, and the format of its pictures
// ("" without samples). The error is errNoSummary when there is none, or
// it is not explain's summary, and says so when it is larger than limit
// bytes.
func readSummary(path string, limit int64) (listed map[string]bool, format string, err error) {
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return nil, "", errNoSummary
	}
	tooLarge := func(size int64) error {
		return fmt.Errorf("an explanation.json of %d bytes, more than an earlier explain writes beside them (%d at most)", size, limit)
	}
	if fi.Size() > limit {
		return nil, "", tooLarge(fi.Size())
	}
	f, err := safefile.Open(path)
	if err != nil {
		return nil, "", errNoSummary
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, "", errNoSummary
	}
	if int64(len(b)) > limit { // grown since
		return nil, "", tooLarge(int64(len(b)))
	}
	var sum struct {
		Note    string `json:"note"`
		Samples []struct {
			Picture string `json:"picture"`
			JSON    string `json:"json"`
		} `json:"samples"`
	}
	if json.Unmarshal(b, &sum) != nil || !strings.HasPrefix(sum.Note, explainNoteStart) {
		return nil, "", errNoSummary
	}
	listed = map[string]bool{}
	for _, s := range sum.Samples {
		for _, n := range []string{s.Picture, s.JSON} {
			if sampleFile.MatchString(n) { // a name in the folder, nothing else
				listed[n] = true
			}
		}
		if m := sampleFile.FindStringSubmatch(s.Picture); m != nil && m[1] != "" {
			format = m[1]
		}
	}
	return listed, format, nil
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
