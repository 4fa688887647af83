package scenarios

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/sim"
)

// Run parses a plan in scenario syntax, runs it, and renders the outcome as scenario files record
// it: the trace (one line per step, "<step> -> <outcome>"), then "ok" or one line per violation
// (a known Flink issue's name in brackets). Diffs are left out: the violation names what
// differs, and the golden files stay readable (`simulate replay` prints the diffs).
func Run(text string) (string, error) {
	p, err := sim.ParsePlan(text)
	if err != nil {
		return "", err
	}
	return Format(sim.Run(p)), nil
}

// Format renders a result as Run does.
func Format(r sim.Result) string {
	var b strings.Builder
	for _, l := range r.Trace {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if r.Verdict() == sim.VerdictOK {
		b.WriteString("ok\n")
	}
	for _, v := range r.Violations {
		fmt.Fprintf(&b, "violation: %s\n", v)
	}
	return b.String()
}

// Ranges renders the key-group ranges Flink gives each subtask for max parallelism m at each
// parallelism, e.g. for reading a rescale's scenario: "p=4: [0,31] [32,63] [64,95] [96,127]".
func Ranges(m int, ps []int) (string, error) {
	var b strings.Builder
	for _, p := range ps {
		fmt.Fprintf(&b, "p=%d:", p)
		for i := range p {
			r, err := model.ComputeKeyGroupRangeForOperatorIndex(m, p, i)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, " [%d,%d]", r.Start, r.End)
		}
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// ParseInts parses "4,8,3".
func ParseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return nil, fmt.Errorf("not an integer list: %q", s)
		}
		out = append(out, v)
	}
	return out, nil
}
