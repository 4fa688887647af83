// Package intlist parses the integer lists of the CLI's flags: comma-separated values and
// inclusive ranges, such as "1..512", "1,2,4" or "1..8,16,32", into an ascending list without
// duplicates. Every error is one line that names the flag and the offending item.
package intlist

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Spec describes one list flag.
type Spec struct {
	Flag  string // the flag, first in every message: "--parallelism"
	Max   int    // every value must be in 1..Max
	Want  string // what a valid list looks like, for messages: "e.g. 1..512, 1,2,4 or 1..8,16,32"
	Range string // how messages name a range: "a..b"
	// Keyword is a word accepted as an item instead of a number ("default"); Parse reports
	// whether it was given. "" accepts none.
	Keyword string
	// Limit bounds the values, counted with repeats ("1..10,1..10" is 20), checked item by
	// item; 0 is no limit. Units names them in its message ("more than 1048576 targets").
	Limit int
	Units string
	// BlankIsItem reports a blank list as an empty item; else it has its own message.
	BlankIsItem bool
	// BoundsFirst checks a range's values against 1..Max before the order of its ends; else a
	// reversed range is reported first.
	BoundsFirst bool
}

// Parse parses s. Items are separated by commas, spaces around them are ignored; each is a
// value or a range a..b with a ≤ b.
func (sp Spec) Parse(s string) (vals []int, keyword bool, err error) {
	if !sp.BlankIsItem && strings.TrimSpace(s) == "" {
		return nil, false, fmt.Errorf("%s is empty (want %s)", sp.Flag, sp.Want)
	}
	var ranges [][2]int
	count := 0
	for _, tok := range strings.Split(s, ",") {
		tok = strings.TrimSpace(tok)
		if sp.Keyword != "" && tok == sp.Keyword {
			keyword = true
			continue
		}
		if tok == "" {
			return nil, false, fmt.Errorf("%s: empty item in %q (want %s)", sp.Flag, s, sp.Want)
		}
		lo, hi, isRange := strings.Cut(tok, "..")
		a, errA := strconv.Atoi(strings.TrimSpace(lo))
		b, errB := a, error(nil)
		if isRange {
			b, errB = strconv.Atoi(strings.TrimSpace(hi))
		}
		if errA != nil || errB != nil {
			return nil, false, fmt.Errorf("%s: %q is not a number or a range %s", sp.Flag, tok, sp.Range)
		}
		order := func() error {
			if a > b {
				return fmt.Errorf("%s: %q is an empty range (the start is above the end)", sp.Flag, tok)
			}
			return nil
		}
		bounds := func() error {
			for _, v := range []int{a, b} {
				if v < 1 || v > sp.Max {
					return fmt.Errorf("%s: %d in %q is out of bounds (want 1..%d)", sp.Flag, v, tok, sp.Max)
				}
			}
			return nil
		}
		checks := []func() error{order, bounds}
		if sp.BoundsFirst {
			checks = []func() error{bounds, order}
		}
		for _, check := range checks {
			if err := check(); err != nil {
				return nil, false, err
			}
		}
		if count += b - a + 1; sp.Limit > 0 && count > sp.Limit {
			return nil, false, fmt.Errorf("%s: more than %d %s", sp.Flag, sp.Limit, sp.Units)
		}
		ranges = append(ranges, [2]int{a, b})
	}
	return merge(ranges), keyword, nil
}

// merge returns the values of the ranges, ascending and without duplicates.
func merge(ranges [][2]int) []int {
	slices.SortFunc(ranges, func(x, y [2]int) int { return x[0] - y[0] })
	var out []int
	next := 0 // the smallest value not yet in out
	for _, r := range ranges {
		for v := max(r[0], next); v <= r[1]; v++ {
			out = append(out, v)
		}
		next = max(next, r[1]+1)
	}
	return out
}
