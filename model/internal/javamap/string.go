package javamap

import "unicode/utf16"

// StringHashCode models java.lang.String.hashCode: h = 31*h + c over the UTF-16 code units of s
// (characters outside the BMP count as a surrogate pair). Invalid UTF-8 bytes in s decode to
// U+FFFD, one per invalid byte, as Go's range over a string does.
func StringHashCode(s string) int32 {
	var h int32
	for _, r := range s {
		if r >= 0x10000 {
			hi, lo := utf16.EncodeRune(r)
			h = 31*h + hi
			h = 31*h + lo
			continue
		}
		h = 31*h + r
	}
	return h
}

// StringCompareTo models java.lang.String.compareTo: lexicographic over UTF-16 code units
// (invalid UTF-8 bytes count as U+FFFD, as in StringHashCode); the sign is what matters.
func StringCompareTo(a, b string) int {
	ua, ub := utf16.Encode([]rune(a)), utf16.Encode([]rune(b))
	for i := range min(len(ua), len(ub)) {
		if ua[i] != ub[i] {
			return int(ua[i]) - int(ub[i])
		}
	}
	return len(ua) - len(ub)
}
