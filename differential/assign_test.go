package differential

import (
	"fmt"
	"os"
	"strconv"
	"testing"
)

// assignCases is how many generated cases TestAssignAgainstFlink runs per version:
// $RESTORESIM_DIFFERENTIAL_CASES, else 20,000 (2,000 with -short).
func assignCases(t *testing.T) int {
	t.Helper()
	if s := os.Getenv("RESTORESIM_DIFFERENTIAL_CASES"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("RESTORESIM_DIFFERENTIAL_CASES=%q: want a positive number", s)
		}
		return n
	}
	if testing.Short() {
		return 2000
	}
	return 20000
}

// TestAssignAgainstFlink is the assignment differential: generated cases (keyed, operator,
// union, broadcast and channel state, finished operators, missing entries, every refusal)
// through the model and through Flink's StateAssignmentOperation, on every version with sources
// (one JVM each, started once). Every case must agree — the same assignment in the same order,
// the same refusal naming the same operators — after the conventions of ASSIGN-CASE.md. A
// disagreement is reported shrunk, with the command that replays it.
func TestAssignAgainstFlink(t *testing.T) {
	n := assignCases(t)
	for _, v := range versions(t) {
		t.Run(v.String(), func(t *testing.T) {
			j := jvm(t, v)
			rep, err := Run(Config{Version: v, Cases: n, Seed: 27, Flink: j.AssignAll, FlinkSame: j.AssignAllSame, MaxShrunk: 3})
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range rep.SortedOutcomes() {
				t.Logf("%-60s %7d cases, %7d agree", o, rep.Outcomes[o].Cases, rep.Outcomes[o].Agreed)
			}
			if rep.Cases != n {
				t.Fatalf("%d cases run, want %d", rep.Cases, n)
			}
			if rep.Agreed != rep.Cases {
				t.Errorf("Flink %s: %d of %d cases disagree (seed 27)", v, rep.Cases-rep.Agreed, rep.Cases)
				for _, f := range rep.SortedFields() {
					t.Errorf("  field %s: %d cases", f, rep.Fields[f])
				}
				for _, d := range rep.Disagreements {
					t.Errorf("case %d, shrunk: %s\n  model: %s\n  flink: %s\n  %s\n  replay: go run ./cmd/simulate differential --flink %s --seed 27 --from %d --cases 1",
						d.Index, d.Case, d.Model, d.Flink, fmt.Sprint(d.Differences), v, d.Index)
				}
			}
		})
	}
}
