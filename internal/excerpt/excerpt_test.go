package excerpt

import "testing"

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
