// Package quote is the one rule for quoting a refused value in an error
// message: the value strconv.Quote'd when that takes at most Max
// characters between the quotes, else its longest prefix of whole runes
// whose quoted form does, then "...". A value read from a file may be
// kilobytes of binary (each byte 4 characters once escaped); the error
// stays one line a person reads. The grlgq-edge binary's stdin errors and
// package dataset's CSV errors use it. It imports only the standard
// library.
package quote

import (
	"strconv"
	"unicode/utf8"
)

// Max bounds the characters between the quotes of Short's result
// (strconv.Quote's escapes included: 40 characters of text, 10 bytes of
// binary).
const Max = 40

// Short quotes b for an error message (see the package comment).
func Short(b []byte) string {
	if len(b) <= Max {
		if q := strconv.Quote(string(b)); len(q) <= Max+2 {
			return q
		}
	}
	n := 0
	for n < len(b) {
		_, w := utf8.DecodeRune(b[n:])
		if len(strconv.Quote(string(b[:n+w]))) > Max+2 {
			break
		}
		n += w
	}
	return strconv.Quote(string(b[:n])) + "..."
}
