package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/grlgq/grlgq/cmd/internal/plot"
	"github.com/grlgq/grlgq/dataset"
	"github.com/grlgq/grlgq/model"
)

// rankJSON is one image of a set in explain's ranking.
type rankJSON struct {
	Rank int `json:"rank"` // 1: the most influential
	// Image is the image's place in the set (0-based), Source its index
	// in the data (as the set's "images" list gives it), File its file
	// (folder data) or row (dataset.Dataset.ItemName).
	Image  int    `json:"image"`
	Source int    `json:"source"`
	File   string `json:"file"`
	Score  jnum   `json:"score"`
}

// topImages returns the top k of the images of sample i's set, ranked by
// model.Explanation.RankImages (nil when the sample has no images: a
// single image, or a precomputed basis).
func topImages(s *samples, i int, ex *model.Explanation, k int) []rankJSON {
	r := ex.RankImages()
	if r == nil || s.Kind != dataset.KindSets {
		return nil
	}
	src := s.Subs.Sources[i]
	var out []rankJSON
	for n, is := range r[:min(k, len(r))] {
		j := rankJSON{Rank: n + 1, Image: is.Image, Source: -1, Score: jnum(is.Score)}
		if is.Image < len(src) {
			j.Source, j.File = src[is.Image], s.ds.ItemName(src[is.Image])
		}
		out = append(out, j)
	}
	return out
}

// rankedTiles are the images of a set the explanation page draws: the
// top ones of the ranking, captioned with their rank and score.
func rankedTiles(s *samples, top []rankJSON) []plot.Tile {
	var out []plot.Tile
	for _, r := range top {
		if r.Source < 0 {
			continue
		}
		out = append(out, plot.Tile{Caption: fmt.Sprintf("#%d: %s, image %d, score %+.3f", r.Rank, filepath.Base(r.File), r.Image, float64(r.Score)), Values: s.ds.Images[r.Source]})
	}
	return out
}

// printTopImages writes the ranking of one sample as text.
func printTopImages(w io.Writer, top []rankJSON) {
	for _, r := range top {
		fmt.Fprintf(w, "        #%-2d %s (image %d of the set)  score %+.4f\n", r.Rank, r.File, r.Image, float64(r.Score))
	}
}
