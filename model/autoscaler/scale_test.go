package autoscaler

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/model"
)

// rel parses a comma list of releases and ranges "1.11-1.14" for the test tables.
func rel(t *testing.T, s string) []Release {
	t.Helper()
	var out []Release
	for _, item := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(item, "-")
		a, err := ParseRelease(lo)
		if err != nil {
			t.Fatal(err)
		}
		b := a
		if isRange {
			if b, err = ParseRelease(hi); err != nil {
				t.Fatal(err)
			}
		}
		for r := a; r <= b; r++ {
			out = append(out, r)
		}
	}
	return out
}

// handCase is one hand-derived expectation: the releases it holds for, the vertex, the limits and
// the target, and what the release returns, with the rule it follows (rule).
type handCase struct {
	releases string
	mode     Mode
	m        int
	in       Input
	k        int
	current  int
	lower    int // configured job.autoscaler.vertex.min-parallelism (0: the default 1)
	upper    int // configured job.autoscaler.vertex.max-parallelism (0: the default 200)
	target   int
	want     int
	flags    string // "" or a combination of "aligned", "limited", "blocked"
	rule     string
}

// TestScaleHandDerived checks cases worked out by hand from the operator's branches (the rules
// of SPEC-VERSIONS.md §8.2) at max parallelisms and current parallelisms other than the golden
// file's M = 128, current 10.
func TestScaleHandDerived(t *testing.T) {
	cases := []handCase{
		// SPEC-VERSIONS.md §8.2 worked examples (M = 128).
		{"1.7-1.9", 0, 128, Hash, 0, 10, 0, 0, 70, 70, "", "1.7–1.9 search only up to N/2 = 64: empty, keep the target"},
		{"1.10-1.15", 0, 128, Hash, 0, 10, 0, 0, 70, 128, "aligned", "1.10: target > N/2 so search up to N; 1.11+: up to N"},
		{"main", 0, 128, Hash, 0, 10, 0, 0, 70, 128, "aligned", "BALANCED: 128 divides N"},
		{"1.7-1.9", 0, 128, Hash, 0, 10, 0, 100, 70, 70, "", "upper bound 100, search [70, 64] empty"},
		{"1.10-1.14", 0, 128, Hash, 0, 10, 0, 100, 70, 64, "limited", "no divisor in [70, 100]; fallback walks down to 64 (128/64 = 2 > 128/70 = 1)"},
		{"1.15", 0, 128, Hash, 0, 10, 0, 100, 70, 64, "limited", "fallback 64 > current 10 keeps the direction; SCALING_LIMITED as 64 ≠ 70"},
		{"main", 0, 128, Hash, 0, 10, 0, 100, 70, 70, "", "BALANCED keeps the target when the region has nothing"},
		{"1.7-1.10", 0, 128, Hash, 0, 64, 0, 0, 40, 64, "aligned", "first divisor from 40 is 64"},
		{"1.11-1.15", EvenlySpread, 128, Hash, 0, 64, 0, 0, 40, 64, "aligned", "EVENLY_SPREAD: first divisor from 40 is 64 (1.15: region capped at current 64)"},
		{"main", 0, 128, Hash, 0, 64, 0, 0, 40, 43, "aligned", "BALANCED: 128/43 = 2 < 128/40 = 3"},
		{"main", EvenlySpread, 128, Hash, 0, 64, 0, 0, 40, 64, "aligned", "EVENLY_SPREAD: divisor 64 in [40, 64]"},
		{"1.11-1.15", MaximizeUtilisation, 128, Hash, 0, 64, 0, 0, 40, 43, "aligned", "MAXIMIZE_UTILISATION: 128/43 < 128/40"},

		// M = 720 (highly composite), M = 100, M = 90, other currents.
		{"1.7-main", 0, 720, Hash, 0, 7, 0, 0, 11, 12, "aligned", "12 divides 720"},
		{"1.7-1.9", 0, 100, Hash, 0, 40, 0, 0, 60, 60, "", "search [60, 50] is empty"},
		{"1.10-1.15", 0, 100, Hash, 0, 40, 0, 0, 60, 100, "aligned", "1.10: 60 > N/2, search to 100; 100 divides"},
		{"1.11-1.15", MaximizeUtilisation, 100, Hash, 0, 40, 0, 0, 60, 100, "aligned", "N/p < N/60 = 1 needs p > 100; 100 divides"},
		{"1.7-1.9", 0, 100, Hash, 0, 10, 0, 48, 45, 45, "", "no divisor of 100 in [45, 48]"},
		{"1.10-1.14", 0, 100, Hash, 0, 10, 0, 48, 45, 34, "limited", "45 ≤ N/2: search [45, 48]; fallback: 100/33 = 3 > 100/45 = 2, 33 does not divide 100, so 34"},
		{"1.15", 0, 100, Hash, 0, 10, 0, 48, 45, 34, "limited", "as 1.14, 34 > current 10"},
		{"main", 0, 100, Hash, 0, 10, 0, 48, 45, 45, "", "BALANCED: nothing in [45, 48] with 100/p < 2; keep 45"},
		{"main", MaximizeUtilisation, 100, Hash, 0, 10, 0, 48, 45, 34, "limited", "main's deprecated MAXIMIZE_UTILISATION is 1.15's"},
		{"1.11-1.15", EvenlySpread, 128, Hash, 0, 10, 0, 0, 19, 32, "aligned", "first divisor from 19"},
		{"1.11-1.15", MaximizeUtilisation, 128, Hash, 0, 10, 0, 0, 19, 22, "aligned", "128/22 = 5 < 128/19 = 6"},
		{"1.11-1.15", EvenlySpread, 90, Hash, 0, 10, 0, 0, 16, 18, "aligned", "18 divides 90"},
		{"1.11-1.15", MaximizeUtilisation, 90, Hash, 0, 10, 0, 0, 16, 18, "aligned", "90/16 = 90/17 = 5; 18 divides"},

		// 1.15 direction guard (FLINK-39299): M = 128, current 65, vertex.max-parallelism 100.
		{"1.11-1.14", 0, 128, Hash, 0, 65, 0, 100, 70, 64, "limited", "fallback 64: a scale-up turned into a scale-down"},
		{"1.15", 0, 128, Hash, 0, 65, 0, 100, 70, 65, "limited,blocked", "fallback 64 ≤ current 65: keep 65"},
		{"main", 0, 128, Hash, 0, 65, 0, 100, 70, 70, "", "BALANCED never blocks"},
		{"main", MaximizeUtilisation, 128, Hash, 0, 65, 0, 100, 70, 65, "limited,blocked", "the deprecated mode blocks as 1.15"},

		// 1.15 returns the clamped target when it equals the current parallelism.
		{"1.10-1.14", 0, 128, Hash, 0, 10, 0, 0, 10, 16, "aligned", "search from 10 finds 16"},
		{"1.15-main", 0, 128, Hash, 0, 10, 0, 0, 10, 10, "", "target == current: returned at once"},
		{"1.7-1.9", 0, 128, Hash, 0, 10, 0, 0, 10, 16, "aligned", "search from 10 finds 16"},

		// Limits: current above vertex.max-parallelism (the upper limit is max(current, upper)).
		{"1.7-1.9", 0, 256, Hash, 0, 150, 0, 100, 160, 150, "", "upper limit max(150, 100) = 150; search [150, 128] empty"},
		{"1.10-1.14", 0, 256, Hash, 0, 150, 0, 100, 160, 128, "limited", "clamped 150, no divisor in [150, 150]; fallback 128"},
		{"1.15-main", 0, 256, Hash, 0, 150, 0, 100, 160, 150, "", "clamped 150 == current"},
		// Limits: lower limit min(current, min-parallelism) wins in the fallback.
		{"1.11-1.14", 0, 128, Hash, 0, 50, 44, 0, 45, 64, "aligned", "search from 45 up to 128 finds 64"},
		{"1.15", 0, 128, Hash, 0, 50, 44, 0, 45, 44, "limited", "scale-down region [45, 50] empty; fallback 43 raised to the lower limit 44"},
		{"1.15", 0, 128, Hash, 0, 50, 40, 0, 45, 43, "limited", "fallback: 128/42 = 3 > 2, 42 does not divide, 43"},
		{"1.7-1.14", 0, 128, Hash, 0, 3, 5, 0, 1, 4, "aligned", "lower limit min(3, 5) = 3 clamps the target to 3; the search from 3 finds 4 (a scale-up)"},
		{"1.15-main", 0, 128, Hash, 0, 3, 5, 0, 1, 3, "", "lower limit min(3, 5) = 3 clamps the target to the current parallelism: returned at once"},

		// Inputs: 1.7 aligns every vertex; 1.8+ only sources (1.8–1.9) or known partitions (1.10+) and HASH.
		{"1.7", 0, 128, Rebalance, 0, 5, 0, 0, 33, 64, "aligned", "1.7 aligns every vertex"},
		{"1.7", 0, 128, Forward, 0, 5, 0, 0, 33, 64, "aligned", "1.7 aligns every vertex"},
		{"1.8-main", 0, 128, Rebalance, 0, 5, 0, 0, 33, 33, "", "no HASH input"},
		{"1.8-main", 0, 128, Forward, 0, 5, 0, 0, 33, 33, "", "no HASH input"},
		{"1.7-1.9", 0, 128, Source, 0, 5, 0, 0, 33, 64, "aligned", "sources align (partitions unknown: N = M)"},
		{"1.10-main", 0, 128, Source, 0, 5, 0, 0, 33, 33, "", "1.10+: a source aligns only with known partitions"},

		// Sources with known partitions.
		{"1.7-1.9", 0, 128, Source, 12, 4, 0, 0, 5, 6, "aligned", "N = min(128, 12) = 12; 6 divides"},
		{"1.7-1.9", 0, 128, Source, 12, 4, 0, 0, 7, 7, "", "search [7, 6] empty"},
		{"1.7-1.9", 0, 128, Source, 12, 4, 0, 0, 20, 12, "", "upper bound min(12, 200) = 12: clamped to 12, search [12, 6] empty"},
		{"1.10-1.15", 0, 128, Source, 12, 4, 0, 0, 7, 12, "aligned", "7 > 12/2: search [7, 12]"},
		{"1.10-1.14", 0, 128, Source, 12, 4, 0, 0, 20, 12, "limited", "upper bound 128: search [20, 12] empty, fallback 12"},
		{"1.15", 0, 128, Source, 12, 4, 0, 0, 20, 12, "limited", "fallback 12 > current 4"},
		{"main", 0, 128, Source, 12, 4, 0, 0, 20, 20, "", "BALANCED keeps 20 (more subtasks than partitions)"},
		{"1.15", 0, 128, Source, 12, 20, 0, 0, 30, 20, "limited,blocked", "fallback 12 ≤ current 20"},
		{"1.11-1.14", 0, 128, Source, 12, 20, 0, 0, 30, 12, "limited", "fallback 12"},
		{"1.11-1.15", MaximizeUtilisation, 512, Source, 199, 24, 0, 0, 96, 100, "aligned", "199/100 = 1 < 199/96 = 2"},
		{"1.11-1.15", EvenlySpread, 512, Source, 199, 24, 0, 0, 96, 199, "aligned", "199 is prime"},
	}
	for _, c := range cases {
		for _, r := range rel(t, c.releases) {
			m := c.mode
			if r.CheckMode(m) != nil {
				continue
			}
			lower, upper := c.lower, c.upper
			if lower == 0 {
				lower = DefaultLower
			}
			if upper == 0 {
				upper = DefaultUpper
			}
			p := Params{Release: r, Mode: m, MaxParallelism: c.m, Input: c.in, SourcePartitions: c.k, Current: c.current, Lower: lower, Upper: upper}
			d, err := Scale(p, c.target)
			if err != nil {
				t.Errorf("%v: %v", p, err)
				continue
			}
			flags := []string{}
			if d.Aligned {
				flags = append(flags, "aligned")
			}
			if d.Limited {
				flags = append(flags, "limited")
			}
			if d.Blocked {
				flags = append(flags, "blocked")
			}
			if d.Parallelism != c.want || strings.Join(flags, ",") != c.flags {
				t.Errorf("operator %v mode %v M=%d %v K=%d C=%d limits %d/%d target %d: got %d %v, want %d [%s] (%s)",
					r, m, c.m, c.in, c.k, c.current, lower, upper, c.target, d.Parallelism, flags, c.want, c.flags, c.rule)
			}
		}
	}
}

// limitCase is a call of JobVertexScaler.scale as the operator's own unit tests make it
// (flink-autoscaler/src/test/java/org/apache/flink/autoscaler/JobVertexScalerTest.java), with
// the limits passed directly; the target is ceil(scaleFactor × current) of the test's factor.
type limitCase struct {
	releases     string
	mode         Mode
	current      int
	in           Input
	k, m         int
	target       int
	lower, upper int
	want         int
}

// TestScaleOperatorUnitTests replays the scale(…) assertions of the operator's
// JobVertexScalerTest (release-1.15, and release-1.14 where 1.15 changed the expectation) and
// main's AlignmentModeTest.
func TestScaleOperatorUnitTests(t *testing.T) {
	const maxInt = math.MaxInt32
	cases := []limitCase{
		// testParallelismComputation (NOT_ADJUST_INPUTS = REBALANCE, RESCALE).
		{"1.8-main", 0, 1, Rebalance, 0, 720, 1, 1, maxInt, 1},       // 0.0001
		{"1.8-main", 0, 2, Rebalance, 0, 720, 1, 1, maxInt, 1},       // 0.1
		{"1.8-main", 0, 6, Rebalance, 0, 720, 5, 1, maxInt, 5},       // 0.8
		{"1.8-main", 0, 16, Rebalance, 0, 128, 24, 1, maxInt, 24},    // 1.5
		{"1.8-main", 0, 200, Rebalance, 0, 720, 400, 1, maxInt, 400}, // 2
		{"1.8-main", 0, 200, Rebalance, 0, 720, maxInt, 1, maxInt, 720},
		// testParallelismComputationWithAdjustment (HASH).
		{"1.11-1.15", 0, 6, Hash, 0, 36, 5, 1, maxInt, 6},
		{"1.11-1.15", 0, 16, Hash, 0, 128, 24, 1, maxInt, 32},
		{"1.11-1.15", 0, 200, Hash, 0, 720, 260, 1, maxInt, 360},
		{"1.11-1.15", 0, 200, Hash, 0, 720, maxInt, 1, maxInt, 720},
		{"1.11-1.15", 0, 10, Hash, 0, 128, 25, 1, maxInt, 32},
		{"1.11-1.15", MaximizeUtilisation, 10, Hash, 0, 128, 25, 1, 128, 26},
		// testParallelismComputationWithLimit (HASH).
		{"1.11-1.15", 0, 6, Hash, 0, 720, 5, 1, 700, 5},
		{"1.11-1.15", 0, 8, Hash, 0, 720, 7, 8, 700, 8},
		{"1.11-1.15", 0, 16, Hash, 0, 128, 24, 1, maxInt, 32},
		{"1.11-1.15", 0, 16, Hash, 0, 128, 24, 60, maxInt, 64},
		{"1.11-1.15", 0, 200, Hash, 0, 720, 400, 1, 300, 240},
		{"1.11-1.15", 0, 200, Hash, 0, 720, maxInt, 1, 600, 360},
		// testNumPartitionsAdjustment (sources: no inputs).
		{"1.11-1.15", 0, 6, Source, 15, 128, 3, 1, maxInt, 3},
		{"1.11-1.15", 0, 7, Source, 15, 128, 9, 1, maxInt, 15},
		{"1.11-1.15", 0, 20, Source, 35, 30, 18, 1, maxInt, 18},
		{"1.11-1.14", 0, 22, Source, 35, 30, 25, 20, maxInt, 20}, // release-1.14's expectation
		{"1.15", 0, 22, Source, 35, 30, 25, 20, maxInt, 22},      // FLINK-39299 changed it to 22 (blocked)
		{"1.11-1.15", 0, 80, Source, 200, 128, 112, 1, maxInt, 100},
		{"1.11-1.15", 0, 24, Source, 199, 32768, 96, 1, maxInt, 199}, // the test's max parallelism is Integer.MAX_VALUE
		{"1.11-1.15", MaximizeUtilisation, 24, Source, 199, 32768, 96, 1, maxInt, 100},
		// main AlignmentModeTest (the context's target is already clamped).
		{"main", Balanced, 16, Hash, 0, 128, 24, 1, maxInt, 26},
		{"main", EvenlySpread, 16, Hash, 0, 128, 24, 1, maxInt, 32},
		{"main", Off, 16, Hash, 0, 128, 24, 1, maxInt, 24},
		{"main", EvenlySpread, 22, Source, 35, 128, 25, 20, 30, 25},
		{"main", Balanced, 22, Source, 35, 128, 25, 20, 30, 25},
		{"main", EvenlySpread, 5, Source, 12, 8, 7, 1, maxInt, 7},
		{"1.15", EvenlySpread, 5, Source, 12, 8, 7, 1, maxInt, 6}, // the legacy mode relaxes to 6
		{"1.15", EvenlySpread, 22, Source, 35, 128, 25, 20, 30, 22},
	}
	for _, c := range cases {
		for _, r := range rel(t, c.releases) {
			p := Params{Release: r, Mode: c.mode, MaxParallelism: c.m, Input: c.in, SourcePartitions: c.k, Current: c.current}
			d, err := ScaleWithLimits(p, c.target, c.lower, c.upper)
			if err != nil {
				t.Errorf("%+v: %v", c, err)
				continue
			}
			if d.Parallelism != c.want {
				t.Errorf("operator %v %+v: got %d (%+v), want %d", r, c, d.Parallelism, d, c.want)
			}
		}
	}
}

func TestScaleBadInput(t *testing.T) {
	ok := Params{Release: Operator115, MaxParallelism: 128, Current: 10, Input: Hash, Lower: 1, Upper: 200}
	if _, err := Scale(ok, 20); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		edit func(*Params)
		want string
	}{
		{"no release", func(p *Params) { p.Release = 0 }, "unknown operator release"},
		{"mode on 1.10", func(p *Params) { p.Release, p.Mode = Operator110, EvenlySpread }, "no alignment modes"},
		{"BALANCED on 1.15", func(p *Params) { p.Mode = Balanced }, "no alignment mode BALANCED"},
		{"M 0", func(p *Params) { p.MaxParallelism = 0 }, "max parallelism 0"},
		{"M too big", func(p *Params) { p.MaxParallelism = 32769 }, "max parallelism 32769"},
		{"C above M", func(p *Params) { p.Current = 129 }, "current parallelism 129"},
		{"C 0", func(p *Params) { p.Current = 0 }, "current parallelism 0"},
		{"no input", func(p *Params) { p.Input = 0 }, "unknown input"},
		{"partitions of a keyed vertex", func(p *Params) { p.SourcePartitions = 4 }, "need a source"},
		{"negative partitions", func(p *Params) { p.Input, p.SourcePartitions = Source, -1 }, "source partitions -1"},
		{"lower 0", func(p *Params) { p.Lower = 0 }, "lower limit 0"},
		{"upper 0", func(p *Params) { p.Upper = 0 }, "upper limit 0"},
		{"lower above upper", func(p *Params) { p.Lower, p.Upper = 50, 20 }, "above the upper limit"},
	} {
		p := ok
		c.edit(&p)
		if _, err := Scale(p, 20); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	for _, target := range []int{0, -1, MaxTarget + 1} {
		if _, err := Scale(ok, target); !errors.Is(err, ErrTarget) {
			t.Errorf("target %d: error %v, want ErrTarget", target, err)
		}
	}
	if _, err := Scale(ok, MaxTarget); err != nil {
		t.Errorf("target MaxTarget: %v", err)
	}
	if _, err := ScaleWithLimits(ok, 20, 30, 20); err == nil {
		t.Error("ScaleWithLimits with lower > upper: no error (the operator's checkArgument fails)")
	}
}

func TestParse(t *testing.T) {
	for _, r := range Releases() {
		got, err := ParseRelease(r.String())
		if err != nil || got != r {
			t.Errorf("ParseRelease(%q) = %v, %v", r.String(), got, err)
		}
	}
	if len(Releases()) != 10 {
		t.Errorf("%d releases, want 10", len(Releases()))
	}
	for s, want := range map[string]Release{"v1.13": Operator113, "1.13.2": Operator113, "main": OperatorMain} {
		if got, err := ParseRelease(s); err != nil || got != want {
			t.Errorf("ParseRelease(%q) = %v, %v; want %v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "1.6", "1.16", "1", "master", "1.7.0.1"} {
		if _, err := ParseRelease(s); err == nil {
			t.Errorf("ParseRelease(%q): no error", s)
		}
	}
	for _, s := range []string{"EVENLY_SPREAD", "MAXIMIZE_UTILISATION", "BALANCED", "OFF"} {
		m, err := ParseMode(s)
		if err != nil || m.String() != s {
			t.Errorf("ParseMode(%q) = %v, %v", s, m, err)
		}
	}
	for _, s := range []string{"", "-", "evenly_spread", "MAXIMIZE_UTILIZATION"} {
		if _, err := ParseMode(s); err == nil {
			t.Errorf("ParseMode(%q): no error", s)
		}
	}
	for _, s := range []string{"hash", "rebalance", "forward", "source"} {
		in, err := ParseInput(s)
		if err != nil || in.String() != s {
			t.Errorf("ParseInput(%q) = %v, %v", s, in, err)
		}
	}
	if _, err := ParseInput("broadcast"); err == nil {
		t.Error(`ParseInput("broadcast"): no error`)
	}
	for r, want := range map[Release]Mode{Operator17: ModeUnset, Operator110: ModeUnset, Operator111: EvenlySpread, Operator115: EvenlySpread, OperatorMain: Balanced} {
		if got := r.DefaultMode(); got != want {
			t.Errorf("%v.DefaultMode() = %v, want %v", r, got, want)
		}
	}
}

func TestSkew(t *testing.T) {
	for _, c := range []struct {
		m, p int
		want float64
	}{
		{128, 80, 1.25}, {128, 64, 1}, {128, 3, 43.0 * 3 / 128}, {128, 127, 2 * 127.0 / 128}, {720, 7, 103.0 * 7 / 720}, {1, 1, 1},
	} {
		got, err := KeyGroupSkew(c.m, c.p)
		if err != nil || got != c.want {
			t.Errorf("KeyGroupSkew(%d, %d) = %v, %v; want %v", c.m, c.p, got, err, c.want)
		}
		// The most key groups any subtask owns, over all of Flink's ranges.
		most := 0
		for i := range c.p {
			r, _ := model.ComputeKeyGroupRangeForOperatorIndex(c.m, c.p, i)
			most = max(most, r.NumberOfKeyGroups())
		}
		if want := float64(most) * float64(c.p) / float64(c.m); got != want {
			t.Errorf("KeyGroupSkew(%d, %d) = %v, but the ranges give %v", c.m, c.p, got, want)
		}
	}
	if _, err := KeyGroupSkew(128, 129); !errors.Is(err, model.ErrMaxParallelismBelowParallelism) {
		t.Errorf("KeyGroupSkew(128, 129): %v", err)
	}
	if got := PartitionSkew(12, 20); got != 20.0/12 {
		t.Errorf("PartitionSkew(12, 20) = %v", got)
	}
	if got := PartitionSkew(12, 5); got != 3*5.0/12 {
		t.Errorf("PartitionSkew(12, 5) = %v", got)
	}
	// A source with known partitions reports the partition skew; a keyed vertex the key-group skew.
	d, _ := Scale(Params{Release: OperatorMain, MaxParallelism: 128, Current: 4, Input: Source, SourcePartitions: 12, Lower: 1, Upper: 200}, 20)
	if d.Parallelism != 20 || d.Skew != 20.0/12 {
		t.Errorf("main source K=12 target 20: %+v", d)
	}
	d, _ = Scale(Params{Release: Operator114, MaxParallelism: 128, Current: 10, Input: Hash, Lower: 1, Upper: 100}, 70)
	if d.Parallelism != 64 || d.Skew != 1 || d.Units != 128 || d.Clamped != 70 {
		t.Errorf("1.14 M=128 target 70 upper 100: %+v", d)
	}
}
