// Package excerpt quotes user input back in a one-line error: as %q does, but at most a given
// number of characters, so an error never echoes a whole file or a binary blob. It imports only
// the standard library (a leaf, so package model and the CLI can share it).
package excerpt

import (
	"fmt"
	"strconv"
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
