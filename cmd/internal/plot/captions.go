package plot

import (
	"strings"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// minCaptionSize is the smallest font a caption is shrunk to.
const minCaptionSize = 6

// fitLines fits text into width: on one line at sty's size if it fits, else
// on two lines broken at the last ", ", ": " or space that lets both fit,
// else at a smaller size (down to minCaptionSize points), else with the
// start of each line elided ("…tail": the end of a file name says most).
// Every returned line is at most width wide in the returned style, so
// captions of neighbouring tiles never run into each other, however many
// there are and however long their names.
func fitLines(sty draw.TextStyle, text string, width vg.Length) ([]string, draw.TextStyle) {
	for size := sty.Font.Size; ; size-- {
		s := sty
		s.Font.Size = size
		if s.Width(text) <= width {
			return []string{text}, s
		}
		if a, b, ok := breakText(s, text, width); ok {
			return []string{a, b}, s
		}
		if size-1 < minCaptionSize {
			a, b := breakAt(text)
			lines := []string{elide(s, a, width)}
			if b != "" {
				lines = append(lines, elide(s, b, width))
			}
			return lines, s
		}
	}
}

// breakText breaks text into two lines that fit width, at the last break
// that does.
func breakText(sty draw.TextStyle, text string, width vg.Length) (a, b string, ok bool) {
	for _, sep := range []string{", ", ": ", " "} {
		for i := strings.LastIndex(text, sep); i > 0; i = strings.LastIndex(text[:i], sep) {
			a, b := strings.TrimSpace(text[:i+len(sep)-1]), strings.TrimSpace(text[i+len(sep):])
			if sty.Width(a) <= width && sty.Width(b) <= width {
				return a, b, true
			}
		}
	}
	return "", "", false
}

// breakAt splits text at its first ", " or ": " (the whole text and ""
// when it has neither).
func breakAt(text string) (a, b string) {
	for _, sep := range []string{", ", ": "} {
		if i := strings.Index(text, sep); i > 0 {
			return strings.TrimSpace(text[:i+len(sep)-1]), strings.TrimSpace(text[i+len(sep):])
		}
	}
	return text, ""
}

// elide shortens text from the start, "…" + the longest tail that fits.
func elide(sty draw.TextStyle, text string, width vg.Length) string {
	if sty.Width(text) <= width {
		return text
	}
	r := []rune(text)
	for i := range r {
		if t := "…" + string(r[i+1:]); sty.Width(t) <= width {
			return t
		}
	}
	return ""
}
