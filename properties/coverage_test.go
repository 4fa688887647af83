package properties

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"testing"
)

// coverage counts, over the cases one property generated, how often each label was hit, and
// fails the test when a required label falls below its minimum share — QuickCheck's
// checkCoverage: a label fails when its share is significantly below the minimum (see
// violations), and only once enough cases ran (minCoverageCases), so -rapid.checks=1 replays
// are not failed for coverage.
//
//	cov := newCoverage(t)
//	cov.require("scale-up", 0.10)
//	rapid.Check(t, func(t *rapid.T) { …; cov.label("scale-up"); … cov.next() })
//
// The check runs in t.Cleanup, after rapid.Check returned; it is skipped when the property
// already failed (a failing case's labels say nothing about the generator).
type coverage struct {
	tb      testing.TB
	cases   int
	current map[string]bool
	hits    map[string]int
	minimum map[string]float64
	skipped bool
}

// minCoverageCases is the number of cases below which shares are reported but not enforced.
const minCoverageCases = 50

func newCoverage(tb testing.TB) *coverage {
	c := &coverage{tb: tb, current: map[string]bool{}, hits: map[string]int{}, minimum: map[string]float64{}}
	tb.Cleanup(c.check)
	return c
}

// scratchCoverage returns a coverage that is never checked, for generators whose labels a
// property does not enforce.
func scratchCoverage() *coverage {
	return &coverage{current: map[string]bool{}, hits: map[string]int{}, minimum: map[string]float64{}}
}

// require sets label's minimum share of cases (0 < share ≤ 1).
func (c *coverage) require(label string, share float64) { c.minimum[label] = share }

// label marks the current case with labels (each counts once per case).
func (c *coverage) label(labels ...string) {
	for _, l := range labels {
		c.current[l] = true
	}
}

// labelIf marks the current case with label when cond holds.
func (c *coverage) labelIf(cond bool, label string) {
	if cond {
		c.label(label)
	}
}

// next closes the current case: call it once at the end of each case (also on early return,
// e.g. with defer).
func (c *coverage) next() {
	if c.skipped {
		c.skipped = false
		clear(c.current)
		return
	}
	c.cases++
	for l := range c.current {
		c.hits[l]++
	}
	clear(c.current)
}

// skip makes the current case not count (call it before t.Skip).
func (c *coverage) skip() { c.skipped = true }

// shares renders every label's share, sorted by label.
func (c *coverage) shares() string {
	names := make([]string, 0, len(c.hits)+len(c.minimum))
	for l := range c.hits {
		names = append(names, l)
	}
	for l := range c.minimum {
		if _, ok := c.hits[l]; !ok {
			names = append(names, l)
		}
	}
	sort.Strings(names)
	var b strings.Builder
	for _, l := range names {
		fmt.Fprintf(&b, "  %-36s %6.1f%%", l, 100*float64(c.hits[l])/float64(max(1, c.cases)))
		if m, ok := c.minimum[l]; ok {
			fmt.Fprintf(&b, "  (min %.0f%%)", 100*m)
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// violations lists, sorted by label, a message for each label whose share is significantly
// below its minimum: even the upper end of the share's Wilson score interval (z = 2, about
// 95%) lies below it. So a label a broken generator no longer produces fails the run (0 of 100
// cases: at most 3.8%; set minimums above that), while a label whose true share is about twice
// its minimum practically never fails by chance.
func (c *coverage) violations() []string {
	var out []string
	for l, m := range c.minimum {
		got := float64(c.hits[l]) / float64(max(1, c.cases))
		if hi := wilsonUpper(c.hits[l], c.cases, 2); hi < m {
			out = append(out, fmt.Sprintf("coverage: label %s reached %.1f%% of %d cases, below the minimum %.0f%% (its true share is at most %.1f%%)", l, 100*got, c.cases, 100*m, 100*hi))
		}
	}
	slices.Sort(out)
	return out
}

// wilsonUpper is the upper bound of the Wilson score interval for k successes in n trials.
func wilsonUpper(k, n int, z float64) float64 {
	if n == 0 {
		return 1
	}
	p, nf := float64(k)/float64(n), float64(n)
	return (p + z*z/(2*nf) + z*math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf))) / (1 + z*z/nf)
}

func (c *coverage) check() {
	if c.tb.Failed() || c.tb.Skipped() {
		return
	}
	if testing.Verbose() {
		c.tb.Logf("coverage over %d cases:\n%s", c.cases, c.shares())
	}
	if c.cases < minCoverageCases {
		return
	}
	if v := c.violations(); len(v) > 0 {
		c.tb.Errorf("%s\n(a generator stopped producing these cases; all shares:\n%s)", strings.Join(v, "\n"), c.shares())
	}
}

func TestCoverageHelperFailsBelowMinimum(t *testing.T) {
	c := scratchCoverage()
	c.require("rare", 0.10)
	c.require("common", 0.5)
	for i := range 400 {
		c.labelIf(i%31 == 0, "rare")
		c.label("common")
		c.next()
	}
	got := c.violations()
	want := []string{"coverage: label rare reached 3.2% of 400 cases, below the minimum 10% (its true share is at most 5.5%)"}
	if !slices.Equal(got, want) {
		t.Errorf("violations = %q, want %q", got, want)
	}
}
