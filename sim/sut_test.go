package sim

import (
	"strings"
	"testing"

	"github.com/restoresim/restoresim/model"
)

// differingSUT is a system under test that answers as the model and reports a difference on every
// restore.
type differingSUT struct{ n int }

func (*differingSUT) Name() string { return "differ" }

func (d *differingSUT) Assign(in model.AssignmentInput) Assigned {
	d.n++
	a, err := model.AssignStates(in)
	return Assigned{Assignment: a, Err: err, Difference: "first line\nsecond line"}
}

// TestSUTSeam: every restore's assignment goes through the plan's SUT; a difference it reports is
// a violation 'reference' of the step that restored (detail: its first line, diff: the rest),
// attributed to no known issue; the trace names the SUT; a nil SUT is the model, unchanged.
func TestSUTSeam(t *testing.T) {
	for seed := range uint64(20) {
		p := Generate(seed, model.Flink118, DefaultSteps)
		want := Run(p)
		d := &differingSUT{}
		p.SUT = d
		got := Run(p)
		if d.n == 0 {
			continue
		}
		if !strings.HasSuffix(got.Trace[0], " (sut differ)") || strings.Join(got.Trace[1:], "\n") != strings.Join(want.Trace[1:], "\n") {
			t.Fatalf("seed %d: the trace with the SUT is not the model's but for its first line", seed)
		}
		refs := 0
		for _, v := range got.Violations {
			if v.Invariant == InvReference {
				refs++
				if v.Detail != "first line" || v.Diff != "second line" || v.Known != "" || v.Step < 0 {
					t.Fatalf("seed %d: %+v", seed, v)
				}
			}
		}
		if refs != d.n {
			t.Fatalf("seed %d: %d restores, %d violations 'reference'", seed, d.n, refs)
		}
		return
	}
	t.Fatal("no seed restored")
}
