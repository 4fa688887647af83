package sim

import (
	"fmt"
	"strings"
	"testing"
)

func TestDiffMap(t *testing.T) {
	for _, c := range []struct {
		want, got map[string][]int
		diff      string
	}{
		{map[string][]int{"a": {1}, "b": {2, 3}}, map[string][]int{"a": {1}, "b": {2, 3}}, ""},
		{map[string][]int{"keyed": {0, 1}, "source": {0}}, map[string][]int{"source": {0, 1}, "v2": {4}},
			"- \"keyed\": [0 1]\n- \"source\": [0]\n+ \"source\": [0 1]\n+ \"v2\": [4]\n"},
		{map[string][]int{}, nil, "- (empty)\n+ (nil)\n"},
		{nil, nil, ""},
		{map[string][]int{"x\x00\u00a0": nil}, map[string][]int{}, "- \"x\\x00\\u00a0\": []\n"},
	} {
		if got := diffMap(c.want, c.got); got != c.diff {
			t.Errorf("diffMap(%v, %v) = %q, want %q", c.want, c.got, got, c.diff)
		}
	}
	// Integer keys sort as numbers; the lines are capped.
	want, got := map[int]int64{}, map[int]int64{}
	for k := range 100 {
		want[k], got[k] = int64(k), int64(k+1)
	}
	d := diffMap(want, got)
	if !strings.HasPrefix(d, "- 0: 0\n+ 0: 1\n- 1: 1\n+ 1: 2\n") || !strings.HasSuffix(d, "+ 19: 20\n… and 160 more lines\n") {
		t.Errorf("diffMap of 100 differing ints:\n%s", d)
	}
}

func TestDiffLines(t *testing.T) {
	for _, c := range []struct {
		want, got []string
		diff      string
	}{
		{[]string{"a", "b"}, []string{"a", "b"}, ""},
		{[]string{"a", "b", "c", "d"}, []string{"a", "x", "c", "d", "e"}, "- b\n+ x\n+ e\n"},
		{[]string{"a", "a", "b"}, []string{"b", "a", "a"}, "+ b\n- b\n"},
		{nil, []string{"x", "y"}, "+ x\n+ y\n"},
		{[]string{"p", "q", "r"}, []string{"r", "q", "p"}, "- p\n- q\n+ q\n+ p\n"},
	} {
		if got := diffLines(c.want, c.got); got != c.diff {
			t.Errorf("diffLines(%q, %q) = %q, want %q", c.want, c.got, got, c.diff)
		}
	}
	// Beyond the table bound the middle parts are listed whole, capped.
	var a, b []string
	for i := range 3000 {
		a, b = append(a, fmt.Sprint("a", i)), append(b, fmt.Sprint("b", i))
	}
	if d := diffLines(a, b); !strings.HasPrefix(d, "- a0\n- a1\n") || !strings.HasSuffix(d, "… and 5960 more lines\n") {
		t.Errorf("long diff: %.200s", d)
	}
}
