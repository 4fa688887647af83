package excerpt

import (
	"strings"
	"testing"
)

func TestQuote(t *testing.T) {
	for _, tt := range []struct {
		s    string
		max  int
		want string
	}{
		{"abc", 3, `"abc"`},
		{"abcd", 3, `"abc"… (4 bytes)`},
		{"a\x00b", 40, `"a\x00b"`},
		{"ééé", 2, `"éé"… (6 bytes)`},
		{"", 1, `""`},
	} {
		if got := Quote(tt.s, tt.max); got != tt.want {
			t.Errorf("Quote(%q, %d) = %s, want %s", tt.s, tt.max, got, tt.want)
		}
	}
}

func TestOneLine(t *testing.T) {
	long := strings.Repeat("é", MaxLine+3)
	for _, tt := range []struct{ msg, want string }{
		{"a\nb\n", "a; b"},
		{"tab\tok \x00 \x1b[31m", `tab` + "\t" + `ok \x00 \x1b[31m`},
		{"bad \xff byte", `bad \xff byte`},
		{long, strings.Repeat("é", MaxLine) + "… (6 more bytes)"},
	} {
		if got := OneLine(tt.msg); got != tt.want {
			t.Errorf("OneLine(%q) = %q, want %q", tt.msg, got, tt.want)
		}
	}
}
