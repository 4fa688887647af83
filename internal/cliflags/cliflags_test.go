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

func TestIntAndUint64(t *testing.T) {
	s := New("x", "x", "")
	var n Int
	var u Uint64
	s.Var(&n, "n", "")
	s.Var(&u, "u", "")
	if n.String() != "" || u.String() != "" || n.Given || u.Given {
		t.Fatalf("zero values: %q %q", n.String(), u.String())
	}
	if _, err := s.ParseArgs([]string{"--n", "-4", "--u", "18446744073709551615"}); err != nil {
		t.Fatal(err)
	}
	if !n.Given || n.V != -4 || n.String() != "-4" || !u.Given || u.V != 1<<64-1 || u.String() != "18446744073709551615" {
		t.Errorf("n %+v, u %+v", n, u)
	}
	for _, tc := range []struct {
		v    flag.Value
		in   string
		want string
	}{{&n, "2.5", `not an integer: "2.5"`}, {&u, "-1", `not an unsigned 64-bit integer: "-1"`}} {
		if err := tc.v.Set(tc.in); err == nil || err.Error() != tc.want {
			t.Errorf("Set(%q) = %v, want %s", tc.in, err, tc.want)
		}
	}
}

// TestEmptyStringRefused: a string flag given an empty value (--out "") is an error naming the
// flag, not the flag left out (issue 28: skew --out "" exited 0 and drew nothing).
func TestEmptyStringRefused(t *testing.T) {
	for _, args := range [][]string{{"--out", ""}, {"--out="}, {"a", "-out", "", "b"}} {
		s := New("x", "x", "")
		s.String("out", "", "the `FILE`")
		_, err := s.ParseArgs(args)
		if err == nil || err.Error() != "--out: an empty value (give a FILE, or leave --out out)" {
			t.Errorf("%q: %v, want the empty --out refused", args, err)
		}
	}
	s := New("x", "x", "")
	s.String("format", "text", "output format")
	if _, err := s.ParseArgs([]string{"--format", ""}); err == nil || !strings.Contains(err.Error(), "--format: an empty value (give a value, or leave --format out)") {
		t.Errorf("--format '': %v", err)
	}
}
