package cliflags

import (
	"errors"
	"flag"
	"slices"
	"strings"
	"testing"
)

func TestParseArgs(t *testing.T) {
	s := New("x", "x [--n N] [--v] ARG", "Does x.")
	n := s.Int("n", 0, "the `N`")
	v := s.Bool("v", false, "verbose")
	pos, err := s.ParseArgs([]string{"a", "--n", "-3", "-1", "-v", "b", "--", "--n", "c"})
	if err != nil {
		t.Fatal(err)
	}
	if *n != -3 || !*v || !slices.Equal(pos, []string{"a", "-1", "b", "--n", "c"}) {
		t.Errorf("n %d, v %t, positional %q", *n, *v, pos)
	}
	if _, err := s.ParseArgs([]string{"--n=x"}); err == nil || errors.Is(err, flag.ErrHelp) {
		t.Errorf("--n=x: %v, want a parse error", err)
	}
	if _, err := s.ParseArgs([]string{"a", "--help"}); !errors.Is(err, flag.ErrHelp) {
		t.Errorf("--help: %v, want flag.ErrHelp", err)
	}
}

func TestWriteHelp(t *testing.T) {
	s := New("x", "x [--n N]", "\nDoes x.\n")
	s.Int("n", 4, "the `N`")
	s.String("s", "", "a string")
	var b strings.Builder
	s.WriteHelp(&b)
	want := "usage: simulate x [--n N]\n\nDoes x.\n\nflags:\n" +
		"  --n N                        the N (default 4)\n" +
		"  --s string                   a string\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
