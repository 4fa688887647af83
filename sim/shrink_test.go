package sim

import (
	"testing"

	"github.com/restoresim/restoresim/model"
)

// hasRestart is a synthetic failure: a plan "fails" when it has a restart step.
func hasRestart(o Outcome) bool {
	for _, s := range o.Plan.Steps {
		if s.Kind == Restart {
			return true
		}
	}
	return false
}

func TestShrinkToOneRestart(t *testing.T) {
	found := 0
	for seed := uint64(0); seed < 40 && found < 3; seed++ {
		p := Generate(seed, model.Flink118, DefaultSteps)
		if !hasRestart(Outcome{Result: Result{Plan: p}}) {
			continue
		}
		found++
		m := Shrink(p, hasRestart)
		if len(m.Steps) != 1 || m.Steps[0].Kind != Restart {
			t.Fatalf("seed %d: shrunk to %d steps, want one restart:\n%s", seed, len(m.Steps), m.Render())
		}
		if len(m.Job.Stages) != 0 || m.Job.Source.Parallelism != 1 || m.Job.NumKeys != 1 {
			t.Errorf("seed %d: job not simplified: %s", seed, m.Job)
		}
		if err := m.Validate(); err != nil {
			t.Errorf("seed %d: shrunk plan invalid: %v", seed, err)
		}
		if again := Shrink(p, hasRestart); again.Render() != m.Render() {
			t.Errorf("seed %d: Shrink is not deterministic:\n%s\n%s", seed, m.Render(), again.Render())
		}
	}
	if found == 0 {
		t.Fatal("no generated plan has a restart step")
	}
}

func TestShrinkOutcomeLeavesPassingRuns(t *testing.T) {
	o := RunSeed(1, model.Flink118, 10)
	if o.Verdict().Failed() {
		t.Skip("seed 1 fails")
	}
	if ShrinkOutcome(o).Min != nil {
		t.Error("a passing run was shrunk")
	}
}

func TestSameFailure(t *testing.T) {
	o := Outcome{Result: Result{Violations: []Violation{{Invariant: "a", Known: "FLINK-1"}, {Invariant: "b"}}}}
	keep := SameFailure(o)
	if !keep(Outcome{Result: Result{Violations: []Violation{{Invariant: "b"}}}}) {
		t.Error("same invariant refused")
	}
	if keep(Outcome{Result: Result{Violations: []Violation{{Invariant: "a"}}}}) || keep(Outcome{}) {
		t.Error("other invariant or a pass accepted")
	}
}
