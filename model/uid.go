package model

import (
	"unicode/utf8"

	"github.com/spaolacci/murmur3"
)

// OperatorIDFromUID models how Flink turns a user-set uid into an operator ID
// (StreamGraphHasherV2.generateUserSpecifiedHash): the 128-bit MurmurHash3 (x64 variant, seed 0)
// of the uid's UTF-8 bytes as Java's String.getBytes(UTF_8) gives them, the 16 digest bytes taken
// in order (Guava's HashCode.asBytes). The ID prints as Flink prints it, e.g. uid
// "kafka-source-uid" gives a4122ae5704b2a344a4284a3b4b9ee29.
//
// uid is a Java string as the project holds one (model/metadata's readUTF): UTF-8, with an
// unpaired surrogate kept as its 3-byte generalized UTF-8 form (ED A0–BF xx). Java encodes an
// unpaired surrogate as '?', so such a uid has the ID of the uid with '?' in its place (and Flink
// refuses the two in one job as a hash collision); a high and a low surrogate kept that way
// stand for one supplementary character. Any other byte that is not UTF-8 stands for U+FFFD.
func OperatorIDFromUID(uid string) OperatorID {
	h1, h2 := murmur3.Sum128(javaUTF8(uid))
	var id OperatorID
	// Guava writes h1 then h2, each little-endian.
	for i := 0; i < 8; i++ {
		id[i] = byte(h1 >> (8 * i))
		id[8+i] = byte(h2 >> (8 * i))
	}
	return id
}

// javaUTF8 is String.getBytes(UTF_8) of the Java string s stands for (see OperatorIDFromUID).
func javaUTF8(s string) []byte {
	if utf8.ValidString(s) {
		return []byte(s)
	}
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r != utf8.RuneError || size > 1 {
			out = utf8.AppendRune(out, r)
			i += size
			continue
		}
		u, ok := keptSurrogate(s[i:])
		if !ok {
			out = utf8.AppendRune(out, utf8.RuneError)
			i++
			continue
		}
		i += 3
		if u < 0xDC00 {
			if lo, ok := keptSurrogate(s[i:]); ok && lo >= 0xDC00 {
				out = utf8.AppendRune(out, 0x10000+(u-0xD800)<<10+(lo-0xDC00))
				i += 3
				continue
			}
		}
		out = append(out, '?')
	}
	return out
}

// keptSurrogate decodes a surrogate kept as its 3-byte generalized UTF-8 form at the start of s.
func keptSurrogate(s string) (rune, bool) {
	if len(s) < 3 || s[0] != 0xED || s[1] < 0xA0 || s[1] > 0xBF || s[2]&0xC0 != 0x80 {
		return 0, false
	}
	return 0xD000 | rune(s[1]&0x3F)<<6 | rune(s[2]&0x3F), true
}
