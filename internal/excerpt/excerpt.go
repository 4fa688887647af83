// Package excerpt quotes user input back in a one-line error: as %q does, but at most a given
// number of characters, so an error never echoes a whole file or a binary blob; OneLine makes
// a whole message safe for one line of a terminal. It imports only
// the standard library (a leaf, so package model and the CLI can share it).
package excerpt

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Quote quotes s as strconv.Quote does, but at most max characters of it: a longer s is cut,
// followed by "…" and its length in bytes.
func Quote(s string, max int) string {
	n, cut := 0, len(s)
	for i := 0; i < len(s); n++ {
		if n == max {
			cut = i
			break
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	if cut == len(s) {
		return strconv.Quote(s)
	}
	return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(s[:cut]), len(s))
}

// MaxLine bounds the message OneLine returns, in runes: a longer one is cut.
const MaxLine = 1000

// OneLine makes msg safe for a one-line error on a terminal: newlines become "; ", other
// control characters but tab and invalid UTF-8 are escaped (\x00), and a message longer than
// MaxLine runes is cut, followed by "…" and the number of bytes cut.
func OneLine(msg string) string {
	msg = strings.ReplaceAll(strings.TrimRight(msg, "\n"), "\n", "; ")
	var b strings.Builder
	n := 0
	for i := 0; i < len(msg); n++ {
		if n == MaxLine {
			fmt.Fprintf(&b, "… (%d more bytes)", len(msg)-i)
			break
		}
		r, size := utf8.DecodeRuneInString(msg[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, msg[i])
		case unicode.IsControl(r) && r != '\t':
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(msg[i : i+size])
		}
		i += size
	}
	return b.String()
}
