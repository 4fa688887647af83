package sim

import (
	"strings"
	"testing"
)

// TestLocalCopyAfterRescale runs in-place rescales with local recovery on: the operator-state
// hazard must be seen by the state invariants and attributed to KnownLocalAfterRescale alone;
// keyed state restored from local copies after a rescale (equal ranges; 1.19's mixed
// alternative) must be right, read where the oracle says Flink reads (no local-read violation).
// Red against a world that offers another subtask's copy, or a model that approves keyed copies
// without the range check.
func TestLocalCopyAfterRescale(t *testing.T) {
	for _, c := range []struct {
		name, plan string
		local      string // the rescale's trace must say this many states came from local copies
		hazard     bool
	}{
		{"operator-state hazard", `job keys=long/sequential/100 splits=8 offsets=split broadcast=false raw-keyed=false backend=full sink=false tms=4 local-recovery=true source=p10/uid:source keyed=none
process n=7
checkpoint
rescale source=5`, "(2 states from local copies)", true},
		{"keyed ranges kept", `job keys=int/uniform/300 splits=4 offsets=split broadcast=false raw-keyed=true backend=full sink=false tms=2 local-recovery=true source=p2/uid:source keyed=p4/uid:keyed
process n=40
checkpoint
rescale source=4
process n=10
checkpoint`, "(8 states from local copies)", false},
		{"keyed mixed 1.19", `flink 1.19
job keys=int/uniform/300 splits=4 offsets=split broadcast=false raw-keyed=false backend=incremental sink=false tms=2 local-recovery=true source=p2/uid:source keyed=p4/m128/uid:keyed
process n=40
checkpoint
rescale keyed=2
process n=10
checkpoint`, "(3 states from local copies)", false},
		{"keyed rescaled 1.18", `job keys=string/uniform/300 splits=4 offsets=split broadcast=true raw-keyed=true backend=incremental sink=false tms=3 local-recovery=true source=p2/uid:source keyed=p4/m128/uid:keyed
process n=40
broadcast n=2
checkpoint
rescale keyed=3
process n=10
checkpoint`, "", false},
		{"keyed scaled up 1.18", `job keys=int/uniform/300 splits=4 offsets=split broadcast=false raw-keyed=true backend=full sink=false tms=2 local-recovery=true source=p2/uid:source keyed=p2/m128/uid:keyed
process n=40
checkpoint
rescale keyed=4
process n=10
checkpoint`, "(2 states from local copies)", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := ParsePlan(c.plan)
			if err != nil {
				t.Fatal(err)
			}
			r := Run(p)
			if c.local != "" && !strings.Contains(r.Trace[3], c.local) {
				t.Errorf("rescale trace %q, want %q", r.Trace[3], c.local)
			}
			for _, v := range r.Violations {
				if !c.hazard || v.Known != KnownLocalAfterRescale && v.Known != "after "+KnownLocalAfterRescale {
					t.Errorf("violation %s", v)
				}
			}
			if c.hazard && (len(r.Violations) == 0 || r.Violations[0].Invariant != InvSplits) {
				t.Errorf("violations %v, want the splits invariant to see the swapped source state", r.Violations)
			}
		})
	}
}
