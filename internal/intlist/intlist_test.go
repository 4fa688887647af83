package intlist

import (
	"slices"
	"testing"
)

var parallelisms = Spec{Flag: "--parallelism", Max: 32768, Want: "e.g. 1..512, 1,2,4 or 1..8,16,32", Range: "a..b", Keyword: "default"}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    []int
		keyword bool
	}{
		{"1..4", []int{1, 2, 3, 4}, false},
		{"8, 2 ,2..3,1", []int{1, 2, 3, 8}, false},
		{"3..5,1..8,7", []int{1, 2, 3, 4, 5, 6, 7, 8}, false},
		{"default,32768", []int{32768}, true},
		{"default", nil, true},
	} {
		got, kw, err := parallelisms.Parse(tc.in)
		if err != nil || !slices.Equal(got, tc.want) || kw != tc.keyword {
			t.Errorf("Parse(%q) = %v, %v, %v; want %v, %v", tc.in, got, kw, err, tc.want, tc.keyword)
		}
	}
}

func TestParseErrors(t *testing.T) {
	targets := Spec{Flag: "--target", Max: 1 << 31, Want: "T, A..B", Range: "A..B", Limit: 10, Units: "targets", BlankIsItem: true, BoundsFirst: true}
	for _, tc := range []struct {
		spec     Spec
		in, want string
	}{
		{parallelisms, " ", "--parallelism is empty (want e.g. 1..512, 1,2,4 or 1..8,16,32)"},
		{parallelisms, "1,,2", `--parallelism: empty item in "1,,2" (want e.g. 1..512, 1,2,4 or 1..8,16,32)`},
		{parallelisms, "x", `--parallelism: "x" is not a number or a range a..b`},
		{parallelisms, "40000..3", `--parallelism: "40000..3" is an empty range (the start is above the end)`},
		{parallelisms, "0..3", `--parallelism: 0 in "0..3" is out of bounds (want 1..32768)`},
		{targets, " ", `--target: empty item in " " (want T, A..B)`},
		{targets, "1..x", `--target: "1..x" is not a number or a range A..B`},
		{targets, "0..-3", `--target: 0 in "0..-3" is out of bounds (want 1..2147483648)`},
		{targets, "1..5,3..8", "--target: more than 10 targets"},
	} {
		_, _, err := tc.spec.Parse(tc.in)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s %q: got %v, want %s", tc.spec.Flag, tc.in, err, tc.want)
		}
	}
	if got, _, err := targets.Parse("1..5,3..7"); err != nil || len(got) != 7 {
		t.Errorf("10 targets with repeats: %v, %v", got, err)
	}
}
