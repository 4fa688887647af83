// Package cliflags is the flag handling of the simulate command line: a flag set that takes
// flags anywhere among the arguments ("--name value", "--name=value", single or double dash),
// keeps negative numbers and everything after "--" as positional arguments, and prints a
// command's help (synopsis, description, one line per flag).
package cliflags

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Set is a command's flag set plus the text its --help prints.
type Set struct {
	*flag.FlagSet
	Synopsis    string // e.g. "ranges --parallelism P [--max-parallelism M]"
	Description string
}

// New makes the flag set of a command; it prints nothing itself (Parse returns errors).
func New(name, synopsis, description string) *Set {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &Set{FlagSet: fs, Synopsis: synopsis, Description: description}
}

// negativeNumber reports whether a starts with "-" and a digit or "." (as "-1", "-.5"). (A test of
// two bytes, not a regexp compiled at start-up.)
func negativeNumber(a string) bool {
	return len(a) >= 2 && a[0] == '-' && ('0' <= a[1] && a[1] <= '9' || a[1] == '.')
}

// ParseArgs parses flags anywhere among args; arguments that are not flags, everything after
// "--", and negative numbers such as "-1" are returned as positional arguments, in order. It
// returns flag.ErrHelp for -h or --help, and the flag package's error for a bad flag. A string
// flag given an empty value is an error (leave the flag out for its default).
func (s *Set) ParseArgs(args []string) (positional []string, err error) {
	for len(args) > 0 {
		a := args[0]
		if a == "--" {
			return append(positional, args[1:]...), nil
		}
		if len(a) < 2 || a[0] != '-' || negativeNumber(a) {
			positional = append(positional, a)
			args = args[1:]
			continue
		}
		n := 1
		name := strings.TrimLeft(a, "-")
		if !strings.Contains(name, "=") {
			if f := s.Lookup(name); f != nil && !isBoolFlag(f) && len(args) > 1 {
				n = 2
			}
		}
		if err := s.Parse(args[:n]); err != nil {
			return nil, err
		}
		if err := s.checkNotEmpty(args[:n]); err != nil {
			return nil, err
		}
		args = args[n:]
	}
	return positional, nil
}

// checkNotEmpty refuses a string flag given an empty value (e.g. --out ""): leaving the flag out
// is how to ask for its default, so an empty value is a mistake, such as an unset shell variable.
func (s *Set) checkNotEmpty(args []string) error {
	name, value, hasValue := strings.Cut(strings.TrimLeft(args[0], "-"), "=")
	if !hasValue && len(args) > 1 {
		value, hasValue = args[1], true
	}
	f := s.Lookup(name)
	if f == nil || !hasValue || value != "" {
		return nil
	}
	if g, ok := f.Value.(flag.Getter); !ok {
		return nil
	} else if _, isString := g.Get().(string); !isString {
		return nil
	}
	what, _ := flag.UnquoteUsage(f)
	if what == "" || what == "string" {
		what = "value"
	}
	article := "a"
	if strings.ContainsRune("AEIOUaeiou", rune(what[0])) {
		article = "an"
	}
	return fmt.Errorf("--%s: an empty value (give %s %s, or leave --%s out)", name, article, what, name)
}

func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// WriteHelp prints the command's help: "usage: simulate SYNOPSIS", the description, and one
// line per flag with its usage and non-zero default.
func (s *Set) WriteHelp(w io.Writer) {
	fmt.Fprintf(w, "usage: simulate %s\n", s.Synopsis)
	if s.Description != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimSpace(s.Description))
	}
	has := false
	s.VisitAll(func(*flag.Flag) { has = true })
	if has {
		fmt.Fprintln(w, "\nflags:")
		s.VisitAll(func(f *flag.Flag) {
			name, use := flag.UnquoteUsage(f)
			line := "  --" + f.Name
			if name != "" {
				line += " " + name
			}
			fmt.Fprintf(w, "%-30s %s", line, use)
			if f.DefValue != "" && f.DefValue != "0" && f.DefValue != "false" {
				fmt.Fprintf(w, " (default %s)", f.DefValue)
			}
			fmt.Fprintln(w)
		})
	}
}

// Int is an int flag value that remembers whether it was given.
type Int struct {
	V     int
	Given bool
}

// String is the value as given, or "" when not given.
func (o *Int) String() string {
	if o == nil || !o.Given {
		return ""
	}
	return strconv.Itoa(o.V)
}

// Set parses a decimal int.
func (o *Int) Set(s string) error {
	v, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("not an integer: %q", s)
	}
	o.V, o.Given = v, true
	return nil
}

// Uint64 is a uint64 flag value (such as a seed) that remembers whether it was given.
type Uint64 struct {
	V     uint64
	Given bool
}

// String is the value as given, or "" when not given.
func (u *Uint64) String() string {
	if u == nil || !u.Given {
		return ""
	}
	return strconv.FormatUint(u.V, 10)
}

// Set parses a decimal unsigned 64-bit integer.
func (u *Uint64) Set(text string) error {
	v, err := strconv.ParseUint(text, 10, 64)
	if err != nil {
		return fmt.Errorf("not an unsigned 64-bit integer: %q", text)
	}
	u.V, u.Given = v, true
	return nil
}
