package quote

import (
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestShort: a value whose quoted form fits is quoted whole; a longer one
// is its longest prefix of whole runes whose quoted form fits, then "...",
// for text, multi-byte text and binary.
func TestShort(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", `""`},
		{"abc", `"abc"`},
		{strings.Repeat("x", Max), strconv.Quote(strings.Repeat("x", Max))},
		{strings.Repeat("x", Max+1), strconv.Quote(strings.Repeat("x", Max)) + "..."},
		{strings.Repeat("\x80", 100), strconv.Quote(strings.Repeat("\x80", Max/4)) + "..."},
		{strings.Repeat("é", 100), strconv.Quote(strings.Repeat("é", Max/2)) + "..."},
		{"ab\ncd", `"ab\ncd"`},
	} {
		if got := Short([]byte(c.in)); got != c.want {
			t.Errorf("Short(%.20q) = %s, want %s", c.in, got, c.want)
		}
	}
	long := []byte(strings.Repeat("€\x01z", 1000))
	got := Short(long)
	q, err := strconv.Unquote(strings.TrimSuffix(got, "..."))
	if err != nil || !strings.HasSuffix(got, "...") || len(got) > Max+5 || !strings.HasPrefix(string(long), q) || !utf8.ValidString(q) {
		t.Errorf("Short of 5 KB: %s (%v)", got, err)
	}
}
