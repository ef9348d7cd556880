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

// maxSummary bounds the explanation.json read to recognise an earlier
// explain's output folder; a larger one is not recognised.
const maxSummary = 1 << 30

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
}

// earlierExplain checks explain's -o folder dir before anything is
// written there; writes holds the names of the files this run writes into
// it. Nothing is to be done when dir is new, or holds no file named like
// explain's other than those this run replaces. Otherwise dir must be an
// earlier explain's output, recognised by its explanation.json (explain's
// summary): the files that summary lists (its samples' pictures and JSON)
// and its pages (prototypes in any format, relevances in the format of
// its pictures) go when this run's files are committed; the other files
// named like a sample's are kept. A folder with such files and no summary
// is refused: they would mix with this run's.
func earlierExplain(dir string, writes map[string]bool) (*earlierRun, error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return &earlierRun{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("-o %s: %w", dir, err)
	}
	var own, relevances []fs.DirEntry // of the files this run does not write
	for _, e := range ents {
		switch n := e.Name(); {
		case writes[n]:
		case sampleFile.MatchString(n) || prototypesPage.MatchString(n):
			own = append(own, e)
		case relevancesPage.MatchString(n):
			relevances = append(relevances, e)
		}
	}
	r := &earlierRun{}
	if len(own) == 0 && len(relevances) == 0 {
		return r, nil
	}
	listed, format, ok := readSummary(filepath.Join(dir, "explanation.json"))
	if !ok {
		if len(own) == 0 {
			return r, nil // relevances pictures of train or demo -plots
		}
		return nil, fmt.Errorf("-o %s holds %d file(s) named like explain's (%s) but no explanation.json of an earlier explain: refusing to mix them with this run's; give an empty or new folder",
			dir, len(own), someNames(names(own)))
	}
	for _, e := range own {
		switch n := e.Name(); {
		case e.Type().IsRegular() && (listed[n] || prototypesPage.MatchString(n)):
			r.remove = append(r.remove, filepath.Join(dir, n))
		default:
			r.kept = append(r.kept, n)
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
// ("" without samples). ok is false when there is none, or it is not
// explain's summary.
func readSummary(path string) (listed map[string]bool, format string, ok bool) {
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		return nil, "", false
	}
	f, err := safefile.Open(path)
	if err != nil {
		return nil, "", false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSummary+1))
	if err != nil || len(b) > maxSummary {
		return nil, "", false
	}
	var sum struct {
		Note    string `json:"note"`
		Samples []struct {
			Picture string `json:"picture"`
			JSON    string `json:"json"`
		} `json:"samples"`
	}
	if json.Unmarshal(b, &sum) != nil || !strings.HasPrefix(sum.Note, explainNoteStart) {
		return nil, "", false
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
	return listed, format, true
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
