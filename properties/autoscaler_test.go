package properties

import (
	"fmt"
	"testing"

	"github.com/restoresim/restoresim/model/autoscaler"
	"pgregory.net/rapid"
)

// The operator autoscaler's alignment (SPEC-VERSIONS.md §8.2), written here a second time as a
// table of rules per operator release, independently of model/autoscaler (and of the
// simulator's oracle): which vertices a release aligns and to how many units, where its search
// for a parallelism ends, which parallelism it accepts, and what it does when it finds none.

// alignRule is one operator release's JobVertexScaler.scale.
type alignRule struct {
	// minMaxOfPartitions: a source with known partitions runs with max parallelism
	// min(M, partitions) (1.7–1.9, updateMaxParallelism).
	minMaxOfPartitions bool
	// alignsAll: every vertex is aligned (1.7); else sources and HASH inputs (1.8–1.9), or
	// sources with known partitions and HASH inputs (1.10+).
	alignsAll, partitionsUnits bool
	// searchEnd is the last parallelism the search tries (before the upper bound).
	searchEnd func(n, t, current int) int
	// divisorsOnly: only a divisor of N is accepted whatever the mode.
	divisorsOnly bool
	// sameReturns: a clamped target equal to the current parallelism is returned at once.
	sameReturns bool
	// fallback when nothing is accepted.
	fallback fallbackKind
}

type fallbackKind int

const (
	keepTarget    fallbackKind = iota + 1 // the clamped target
	stepDown                              // the first p below with more units per subtask, +1 unless a divisor, ≥ lower
	stepDownGuard                         // stepDown, but the current parallelism when it does not move in the scaling direction
)

var (
	half      = func(n, _, _ int) int { return n / 2 }
	whole     = func(n, _, _ int) int { return n }
	upToCur   = func(n, t, cur int) int { return pick(t < cur, min(n, cur), n) }
	halfOrAll = func(n, t, _ int) int { return pick(t > n/2, n, n/2) }
)

func pick(c bool, a, b int) int {
	if c {
		return a
	}
	return b
}

// alignRules: the table of SPEC-VERSIONS.md §8.2, by release name and mode ("" = the release's
// default mode, or a release without modes). main with OFF aligns nothing (handled apart).
func alignRuleOf(release, mode string) alignRule {
	switch release {
	case "1.7":
		return alignRule{minMaxOfPartitions: true, alignsAll: true, searchEnd: half, divisorsOnly: true, fallback: keepTarget}
	case "1.8", "1.9":
		return alignRule{minMaxOfPartitions: true, searchEnd: half, divisorsOnly: true, fallback: keepTarget}
	case "1.10":
		return alignRule{partitionsUnits: true, searchEnd: halfOrAll, divisorsOnly: true, fallback: stepDown}
	case "1.11", "1.12", "1.13", "1.14":
		return alignRule{partitionsUnits: true, searchEnd: whole, divisorsOnly: mode != "MAXIMIZE_UTILISATION", fallback: stepDown}
	case "1.15":
		return alignRule{partitionsUnits: true, searchEnd: upToCur, divisorsOnly: mode != "MAXIMIZE_UTILISATION", sameReturns: true, fallback: stepDownGuard}
	}
	// main: BALANCED (default) and EVENLY_SPREAD keep the target; the deprecated
	// MAXIMIZE_UTILISATION key behaves as 1.15.
	r := alignRule{partitionsUnits: true, searchEnd: upToCur, divisorsOnly: mode == "EVENLY_SPREAD", sameReturns: true, fallback: keepTarget}
	if mode == "MAXIMIZE_UTILISATION" {
		r.fallback = stepDownGuard
	}
	return r
}

// alignCase is one drawn call.
type alignCase struct {
	release, mode            string // mode "" = default
	maxPar, current, target  int
	input                    string
	partitions, lower, upper int
}

func (c alignCase) String() string {
	return fmt.Sprintf("operator %s mode %q, max parallelism %d, current %d, input %s, partitions %d, limits %d..%d, target %d",
		c.release, c.mode, c.maxPar, c.current, c.input, c.partitions, c.lower, c.upper, c.target)
}

// wantAlignment is what the release returns, and whether it blocked the scale.
func wantAlignment(c alignCase) (int, bool) {
	rule := alignRuleOf(c.release, c.mode)
	m := c.maxPar
	if rule.minMaxOfPartitions && c.input == "source" && c.partitions > 0 {
		m = min(m, c.partitions)
	}
	lowerLimit, upperLimit := min(c.current, c.lower), max(c.current, c.upper)
	bound := min(m, upperLimit)
	t := min(max(c.target, lowerLimit), bound)

	n := 0 // the units aligned to
	switch {
	case c.release == "main" && c.mode == "OFF":
	case rule.alignsAll:
		n = m
	case !rule.partitionsUnits && (c.input == "hash" || c.input == "source"):
		n = m
	case rule.partitionsUnits && c.input == "hash":
		n = c.maxPar
	case rule.partitionsUnits && c.input == "source":
		n = c.partitions
	}
	if n == 0 || (rule.sameReturns && t == c.current) {
		return t, false
	}
	end := min(rule.searchEnd(n, t, c.current), bound)
	for p := t; p <= end; p++ {
		if n%p == 0 || (!rule.divisorsOnly && n/p < n/t) {
			return p, false
		}
	}
	if rule.fallback == keepTarget {
		return t, false
	}
	down := 0 // the largest p ≤ t with n/p > n/t (0: none)
	for p := t; p > 0 && down == 0; p-- {
		if n/p > n/t {
			down = p
		}
	}
	if down > 0 && n%down != 0 {
		down++
	}
	down = max(down, lowerLimit)
	if rule.fallback == stepDownGuard && ((t > c.current && down <= c.current) || (t < c.current && down >= c.current)) {
		return c.current, true
	}
	return down, false
}

// releaseModes are the modes each release can be configured with (SPEC-VERSIONS.md §8.2).
func releaseModes(release string) []string {
	switch release {
	case "1.11", "1.12", "1.13", "1.14", "1.15":
		return []string{"EVENLY_SPREAD", "MAXIMIZE_UTILISATION"}
	case "main":
		return []string{"BALANCED", "EVENLY_SPREAD", "OFF", "MAXIMIZE_UTILISATION"}
	}
	return nil
}

var alignReleases = []string{"1.7", "1.8", "1.9", "1.10", "1.11", "1.12", "1.13", "1.14", "1.15", "main"}

// drawAlignCase draws a call: max parallelisms of every shape (powers of two, highly divisible,
// primes, anything up to 32,768), current and target around each other, limits mostly the
// defaults, every input kind, a source's partitions known or not.
//
// With guard, the release is one with a direction guard (1.15, main), the vertex keyed and the
// target near the current parallelism, with an upper limit just above it: the cases where the
// guard blocks a scale, too rare otherwise.
func drawAlignCase(t *rapid.T, guard bool) alignCase {
	releases := alignReleases
	if guard {
		releases = []string{"1.15", "main"}
	}
	c := alignCase{release: rapid.SampledFrom(releases).Draw(t, "operator")}
	if ms := releaseModes(c.release); guard && c.release == "main" {
		c.mode = "MAXIMIZE_UTILISATION" // the deprecated key: 1.15's guard
	} else if len(ms) > 0 && rapid.Bool().Draw(t, "mode set") {
		c.mode = rapid.SampledFrom(ms).Draw(t, "mode")
	}
	switch rapid.IntRange(0, 4).Draw(t, "max parallelism shape") {
	case 0:
		c.maxPar = rapid.SampledFrom([]int{1, 2, 8, 64, 128, 256, 1024, 32768}).Draw(t, "M power of two")
	case 1:
		c.maxPar = rapid.SampledFrom([]int{12, 60, 96, 120, 360, 720, 5040}).Draw(t, "M divisible")
	case 2:
		c.maxPar = rapid.SampledFrom([]int{7, 13, 97, 127, 1009}).Draw(t, "M prime")
	default:
		c.maxPar = rapid.IntRange(1, 32768).Draw(t, "M")
	}
	c.current = rapid.IntRange(1, min(c.maxPar, 300)).Draw(t, "current")
	near := false
	shape := rapid.IntRange(0, 6).Draw(t, "target shape")
	if guard {
		shape = 6
	}
	switch shape {
	case 6: // just past the current parallelism, where 1.15's direction guard may block
		near = true
		c.target = max(1, c.current+rapid.IntRange(-4, 4).Draw(t, "target near"))
		if guard && c.target == c.current {
			c.target = c.current + 1
		}
	case 0:
		c.target = c.current
	case 1:
		c.target = rapid.IntRange(1, c.current).Draw(t, "target below")
	case 5:
		c.target = rapid.SampledFrom([]int{1, c.maxPar, c.maxPar + 1, autoscaler.MaxTarget}).Draw(t, "target edge")
	default:
		c.target = rapid.IntRange(c.current, 3*c.current+20).Draw(t, "target above")
	}
	c.input = "hash"
	if !guard {
		c.input = rapid.SampledFrom([]string{"hash", "rebalance", "forward", "source"}).Draw(t, "input")
	}
	if c.input == "source" && rapid.IntRange(0, 2).Draw(t, "partitions known") > 0 {
		c.partitions = rapid.IntRange(1, 64).Draw(t, "few partitions")
		if rapid.Bool().Draw(t, "many partitions") {
			c.partitions = rapid.IntRange(1, 2*c.maxPar+10).Draw(t, "partitions")
		}
	}
	c.lower, c.upper = autoscaler.DefaultLower, autoscaler.DefaultUpper
	if !guard && rapid.IntRange(0, 2).Draw(t, "lower set") == 0 {
		c.lower = rapid.IntRange(1, 2*c.current+4).Draw(t, "lower")
	}
	if near && c.target > c.current && c.lower <= c.target {
		c.upper = rapid.IntRange(c.target, c.target+2).Draw(t, "upper near")
	} else if rapid.IntRange(0, 1).Draw(t, "upper set") == 0 || c.upper < c.lower {
		c.upper = rapid.IntRange(c.lower, max(c.lower, 3*c.current+20)).Draw(t, "upper")
	}
	return c
}

// TestAutoscalerAlignment: for every operator release and mode, any max parallelism, current and
// target parallelism, limits, input kind and source partitions, autoscaler.Scale returns the
// parallelism of the rules above, and reports a blocked scale exactly when they do.
func TestAutoscalerAlignment(t *testing.T) {
	cov := newCoverage(t)
	for _, r := range alignReleases {
		cov.require("operator-"+r, 0.04)
	}
	// (measured over 3,000 cases: 29%, 16%, 24%, 15%, 7%; each release 7% to 17%)
	for l, share := range map[string]float64{"aligned-moved": 0.15, "source-partitions": 0.08, "mode-set": 0.1, "scale-down": 0.07, "fallback": 0.04} {
		cov.require(l, share)
	}
	rapid.Check(t, func(t *rapid.T) { checkAlignment(t, cov, drawAlignCase(t, false)) })
}

// TestAutoscalerDirectionGuard: the same on 1.15 and main (with the deprecated
// MAXIMIZE_UTILISATION key) near the current parallelism, where the direction guard of
// FLINK-39299 blocks a scale.
func TestAutoscalerDirectionGuard(t *testing.T) {
	cov := newCoverage(t)
	cov.require("blocked", 0.06) // (measured over 3,000 cases: 13%, 27%)
	cov.require("fallback", 0.12)
	rapid.Check(t, func(t *rapid.T) { checkAlignment(t, cov, drawAlignCase(t, true)) })
}

// checkAlignment runs autoscaler.Scale on c and compares with wantAlignment.
func checkAlignment(t *rapid.T, cov *coverage, c alignCase) {
	defer cov.next()
	p := autoscaler.Params{MaxParallelism: c.maxPar, Current: c.current, SourcePartitions: c.partitions, Lower: c.lower, Upper: c.upper}
	var err error
	if p.Release, err = autoscaler.ParseRelease(c.release); err != nil {
		t.Fatal(err)
	}
	if c.mode != "" {
		if p.Mode, err = autoscaler.ParseMode(c.mode); err != nil {
			t.Fatal(err)
		}
	}
	if p.Input, err = autoscaler.ParseInput(c.input); err != nil {
		t.Fatal(err)
	}
	d, err := autoscaler.Scale(p, c.target)
	if err != nil {
		t.Fatalf("%v: %v", c, err)
	}
	want, blocked := wantAlignment(c)
	clamped := min(max(c.target, min(c.current, c.lower)), max(c.current, c.upper))
	cov.label("operator-" + c.release)
	cov.labelIf(want != clamped && !blocked, "aligned-moved")
	cov.labelIf(d.Limited, "fallback")
	cov.labelIf(blocked, "blocked")
	cov.labelIf(c.partitions > 0, "source-partitions")
	cov.labelIf(c.mode != "", "mode-set")
	cov.labelIf(clamped < c.current, "scale-down")
	if d.Parallelism != want || d.Blocked != blocked {
		t.Fatalf("%v: Scale gives parallelism %d (blocked %t), want %d (blocked %t)", c, d.Parallelism, d.Blocked, want, blocked)
	}
}
