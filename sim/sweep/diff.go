package sweep

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/sim"
)

// ParseVersions parses the --flink value of a sweep: one version (model.ParseFlinkVersion, whose
// error it returns unchanged) or a comma-separated list of distinct versions.
func ParseVersions(s string) ([]model.FlinkVersion, error) {
	if !strings.Contains(s, ",") {
		v, err := model.ParseFlinkVersion(s)
		if err != nil {
			return nil, err
		}
		return []model.FlinkVersion{v}, nil
	}
	var vs []model.FlinkVersion
	for i, name := range strings.Split(s, ",") {
		if name == "" {
			return nil, fmt.Errorf("empty version at position %d of the list %q", i+1, s)
		}
		v, err := model.ParseFlinkVersion(name)
		if err != nil {
			return nil, err
		}
		for _, o := range vs {
			if o == v {
				return nil, fmt.Errorf("%s is in the list %q twice", v, s)
			}
		}
		vs = append(vs, v)
	}
	return vs, nil
}

// RunVersions runs each seed of the shard under every version of vs (c.Version is not used) and
// calls f with the seed's outcomes, one per version in the order of vs, in seed order, as Run
// does. A seed's plan does not depend on the version: sim.Generate draws nothing from it, so
// every version runs the same job and schedule and only the model's decisions differ.
func RunVersions(c Config, vs []model.FlinkVersion, f func([]sim.Outcome) bool) {
	runSeed := c.runSeed()
	runOrdered(c, func(seed uint64) []sim.Outcome {
		out := make([]sim.Outcome, len(vs))
		for i, v := range vs {
			out[i] = runSeed(seed, v, c.Steps)
		}
		return out
	}, f)
}

// Difference is where the outcomes of one seed under two Flink versions first differ: the first
// step whose trace line or violations differ. Known issues stay per version: a violation is
// compared with its known-issue name, so a known-issue finding under one version and none under
// the other is a difference.
type Difference struct {
	From string `json:"from"` // the earlier version of the pair, in --flink order
	To   string `json:"to"`
	// Step is the first differing step; -1 is the job line (and a panic before the first step).
	Step int `json:"step"`
	// Command is the step in scenario syntax ("" for step -1).
	Command string `json:"command"`
	// FromLine and ToLine are the step's trace lines under each version when they differ ("" for
	// a missing line); both are empty when only the violations differ.
	FromLine string `json:"from_line,omitempty"`
	ToLine   string `json:"to_line,omitempty"`
	// FromOnly and ToOnly are the violations of the step under one version and not the other.
	FromOnly []Violation `json:"from_only,omitempty"`
	ToOnly   []Violation `json:"to_only,omitempty"`
	// FromResult and ToResult are the seed's verdicts ("ok", "known", "fail") under each version.
	FromResult string `json:"from_result"`
	ToResult   string `json:"to_result"`
}

// Diff compares two outcomes of one seed (a under one version, b under another) and returns
// their first difference, or false when the traces and the violations are the same.
func Diff(a, b *sim.Outcome) (Difference, bool) {
	ra, rb := NewRecord(a), NewRecord(b)
	d := Difference{From: ra.Flink, To: rb.Flink, FromResult: ra.Result, ToResult: rb.Result}
	traceStep, traceDiffers := -2, false
	for i := range max(len(a.Trace), len(b.Trace)) {
		if line(a.Trace, i) != line(b.Trace, i) {
			traceStep, traceDiffers = i-1, true
			break
		}
	}
	vStep, onlyA, onlyB, vDiffer := firstViolationDiff(ra.Violations, rb.Violations)
	switch {
	case !traceDiffers && !vDiffer:
		return Difference{}, false
	case !vDiffer || traceDiffers && traceStep <= vStep:
		d.Step = traceStep
	default:
		d.Step = vStep
	}
	if traceDiffers && traceStep == d.Step {
		d.FromLine, d.ToLine = line(a.Trace, d.Step+1), line(b.Trace, d.Step+1)
	}
	if vDiffer && vStep == d.Step {
		d.FromOnly, d.ToOnly = onlyA, onlyB
	}
	d.Command = stepName(a.Plan, d.Step)
	return d, true
}

func line(trace []string, i int) string {
	if i < len(trace) {
		return trace[i]
	}
	return ""
}

// firstViolationDiff finds the first step whose violations (as multisets) differ between a
// and b, both in sim.SortViolations order, and the violations of that step only in a and only
// in b.
func firstViolationDiff(a, b []Violation) (step int, onlyA, onlyB []Violation, ok bool) {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i == len(a):
			step = b[j].Step
		case j == len(b):
			step = a[i].Step
		default:
			step = min(a[i].Step, b[j].Step)
		}
		i2, j2 := i, j
		for i2 < len(a) && a[i2].Step == step {
			i2++
		}
		for j2 < len(b) && b[j2].Step == step {
			j2++
		}
		onlyA, onlyB = subtract(a[i:i2], b[j:j2]), subtract(b[j:j2], a[i:i2])
		if len(onlyA) > 0 || len(onlyB) > 0 {
			return step, onlyA, onlyB, true
		}
		i, j = i2, j2
	}
	return 0, nil, nil, false
}

// subtract is the violations of xs not matched one for one in ys, in the order of xs.
func subtract(xs, ys []Violation) []Violation {
	used := make([]bool, len(ys))
	var out []Violation
	for _, x := range xs {
		found := false
		for k, y := range ys {
			if !used[k] && x == y {
				used[k], found = true, true
				break
			}
		}
		if !found {
			out = append(out, x)
		}
	}
	return out
}

// Comparison is one seed of a cross-version sweep: one line of 'simulate sweep --flink A,B,…
// --format json'. Records holds the seed's record under each version (the single-version
// record shape), in --flink order; Differences the first difference of each pair of versions
// adjacent in that order whose outcomes differ (empty when every version agrees).
type Comparison struct {
	Seed        uint64       `json:"seed"`
	Records     []*Record    `json:"records"`
	Differences []Difference `json:"differences"`
}

// Compare is the comparison of one seed's outcomes, one per version in --flink order.
func Compare(outs []sim.Outcome) *Comparison {
	c := &Comparison{Differences: []Difference{}}
	for i := range outs {
		c.Records = append(c.Records, NewRecord(&outs[i]))
		if i > 0 {
			if d, ok := Diff(&outs[i-1], &outs[i]); ok {
				c.Differences = append(c.Differences, d)
			}
		}
	}
	if len(outs) > 0 {
		c.Seed = outs[0].Plan.Seed
	}
	return c
}

// VersionsSummary is the summary of a cross-version sweep: a Summary per version and, for each
// pair of versions adjacent in --flink order, the differential summary of where their outcomes
// differ. Like Summary, it keeps counts and bounded lists only.
type VersionsSummary struct {
	versions []string
	per      []*Summary
	pairs    []*pairSummary
	seeds    int
	differ   int // seeds with a difference in some pair
}

// pairSummary counts the differences of one pair of versions.
type pairSummary struct {
	from, to   string
	differ     int
	lines      int            // seeds whose first difference is in the step's trace line
	verdicts   map[string]int // "from -> to" verdicts of the differing seeds
	steps      map[string]int // the kind of the first differing step
	violations map[string]int // seeds with a violation of the first differing step under one version only
	listed     []listedDiff   // the smallest differing seeds, sorted, at most MaxListed
}

type listedDiff struct {
	seed uint64
	d    Difference
}

// NewVersionsSummary is the summary of no seed under vs (in --flink order).
func NewVersionsSummary(vs []model.FlinkVersion) *VersionsSummary {
	s := &VersionsSummary{}
	for i, v := range vs {
		s.versions = append(s.versions, v.String())
		s.per = append(s.per, NewSummary())
		if i > 0 {
			s.pairs = append(s.pairs, &pairSummary{from: vs[i-1].String(), to: v.String(),
				verdicts: map[string]int{}, steps: map[string]int{}, violations: map[string]int{}})
		}
	}
	return s
}

// Failed is the number of failing (seed, version) runs.
func (s *VersionsSummary) Failed() int {
	n := 0
	for _, p := range s.per {
		n += p.Failed()
	}
	return n
}

// Differing is the number of seeds whose outcomes differ between some pair of versions.
func (s *VersionsSummary) Differing() int { return s.differ }

// Add counts one seed's comparison (its records in the summary's version order).
func (s *VersionsSummary) Add(c *Comparison) {
	s.seeds++
	for i, r := range c.Records {
		if i < len(s.per) {
			s.per[i].Add(r)
		}
	}
	if len(c.Differences) > 0 {
		s.differ++
	}
	for _, d := range c.Differences {
		for _, p := range s.pairs {
			if p.from == d.From && p.to == d.To {
				p.add(c.Seed, d)
			}
		}
	}
}

func (p *pairSummary) add(seed uint64, d Difference) {
	p.differ++
	if d.FromLine != "" || d.ToLine != "" {
		p.lines++
	}
	p.verdicts[d.FromResult+" -> "+d.ToResult]++
	kind := "(before the first step)"
	if d.Command != "" {
		kind, _, _ = strings.Cut(d.Command, " ")
	}
	p.steps[kind]++
	seen := map[string]bool{}
	for _, side := range []struct {
		version string
		vs      []Violation
	}{{d.From, d.FromOnly}, {d.To, d.ToOnly}} {
		for _, v := range side.vs {
			k := violationLabel(v) + " (" + side.version + " only)"
			if !seen[k] {
				seen[k] = true
				p.violations[k]++
			}
		}
	}
	i := sort.Search(len(p.listed), func(i int) bool { return seed < p.listed[i].seed })
	if i < MaxListed {
		p.listed = append(p.listed, listedDiff{})
		copy(p.listed[i+1:], p.listed[i:])
		p.listed[i] = listedDiff{seed, d}
		if len(p.listed) > MaxListed {
			p.listed = p.listed[:MaxListed]
		}
	}
}

func violationLabel(v Violation) string {
	if v.Known != "" {
		return v.Invariant + " [" + v.Known + "]"
	}
	return v.Invariant
}

// maxShownViolations bounds the violations a listed difference shows per version.
const maxShownViolations = 2

// WriteText prints the summary as 'simulate sweep --flink A,B,…' does: each version's Summary
// under a "# flink V" heading, then the differences of each adjacent pair (counts by where the
// first difference is, by verdicts, by step kind and by violation, then the MaxListed smallest
// differing seeds), and a last line "FAIL: …" or "ok: …" on the versions' verdicts.
func (s *VersionsSummary) WriteText(w io.Writer, steps int) {
	for i, v := range s.versions {
		fmt.Fprintf(w, "# flink %s\n", v)
		s.per[i].WriteText(w)
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "# differences (each version against the one before it in --flink %s; the same seeds and plans)\n", strings.Join(s.versions, ","))
	for _, p := range s.pairs {
		p.writeText(w, s.seeds, steps)
	}
	fmt.Fprintln(w)
	diffs := fmt.Sprintf("%d of %d seeds differ between versions", s.differ, s.seeds)
	if n := s.Failed(); n > 0 {
		fmt.Fprintf(w, "FAIL: %d seed runs failed (%s)\n", n, diffs)
	} else {
		fmt.Fprintf(w, "ok: no seed failed under any version; %s\n", diffs)
	}
}

func (p *pairSummary) writeText(w io.Writer, seeds, steps int) {
	fmt.Fprintf(w, "%s -> %s: %d of %d seeds differ (%s)\n", p.from, p.to, p.differ, seeds, sharePct(p.differ, seeds))
	if p.differ == 0 {
		return
	}
	width := len("step of the first difference")
	for _, m := range []map[string]int{p.verdicts, p.steps, p.violations} {
		for k := range m {
			width = max(width, len(k)+2)
		}
	}
	heading := func(t string) { fmt.Fprintf(w, "  %-*s %7s\n", width, t, "seeds") }
	row := func(k string, n int) { fmt.Fprintf(w, "    %-*s %7d\n", width-2, k, n) }
	heading("first difference in")
	row("the step's outcome", p.lines)
	row("the violations only", p.differ-p.lines)
	for _, t := range []struct {
		title string
		m     map[string]int
	}{{"verdicts", p.verdicts}, {"step of the first difference", p.steps}, {"violations of that step", p.violations}} {
		if len(t.m) == 0 {
			continue
		}
		heading(t.title)
		for _, k := range sortedNames(t.m) {
			row(k, t.m[k])
		}
	}
	fmt.Fprintf(w, "  differing seeds (%d)\n", p.differ)
	vw := max(len(p.from), len(p.to)) + 1
	for _, l := range p.listed {
		d := l.d
		fmt.Fprintf(w, "    seed %d step %d", l.seed, d.Step)
		if d.Command != "" {
			kind, _, _ := strings.Cut(d.Command, " ")
			fmt.Fprintf(w, " (%s)", kind)
		}
		fmt.Fprintf(w, ": %s -> %s\n", d.FromResult, d.ToResult)
		if d.FromLine != "" || d.ToLine != "" {
			for _, x := range [][2]string{{d.From, d.FromLine}, {d.To, d.ToLine}} {
				fmt.Fprintf(w, "      %-*s %s\n", vw, x[0]+":", outcomeOf(x[1], d.Command))
			}
		}
		for _, x := range []struct {
			v  string
			vs []Violation
		}{{d.From, d.FromOnly}, {d.To, d.ToOnly}} {
			for k, v := range x.vs {
				if k == maxShownViolations {
					fmt.Fprintf(w, "      %s only: ... and %d more\n", x.v, len(x.vs)-k)
					break
				}
				what := "violation"
				if v.Known != "" {
					what = "known issue " + v.Known
				}
				fmt.Fprintf(w, "      %s only: %s: %s: %s\n", x.v, what, v.Invariant, v.Detail)
			}
		}
	}
	if more := p.differ - len(p.listed); more > 0 {
		fmt.Fprintf(w, "    ... and %d more (the %d smallest seeds are listed)\n", more, MaxListed)
	}
	if len(p.listed) > 0 {
		fmt.Fprintf(w, "  to compare one seed S: simulate sweep --flink %s,%s --steps %d --seeds 1 --start S\n", p.from, p.to, steps)
	}
}

// outcomeOf is a trace line without its step text (the plan's, the same under every version):
// "-> outcome", or "(no line)" when the run has none.
func outcomeOf(line, command string) string {
	switch {
	case line == "":
		return "(no line)"
	case command != "" && strings.HasPrefix(line, command+" -> "):
		return line[len(command)+1:]
	}
	return line
}
