package sim

import (
	"slices"
	"strings"
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
	// A panic is the same failure only at the same place.
	panicAt := func(at string) Outcome {
		return Outcome{PanicAt: at, Result: Result{Violations: []Violation{{Step: -1, Invariant: InvPanic, Detail: "boom (in " + at + ")"}}}}
	}
	keep = SameFailure(panicAt("model.f at model/f.go:1"))
	if !keep(panicAt("model.f at model/f.go:1")) {
		t.Error("a panic at the same place refused")
	}
	if keep(panicAt("sim.(*World).broadcast at sim/run.go:408")) || keep(panicAt("model.f at model/f.go:2")) {
		t.Error("a panic at another place accepted")
	}
}

// TestPanicPlace: a panic's place is the innermost frame of the module's code, named from the
// module root, the same in every run; the InvPanic detail ends with it.
func TestPanicPlace(t *testing.T) {
	p := Plan{Job: Generate(1, model.Flink118, 1).Job}
	p.Job.Broadcast = false
	p.Steps = []Step{{Kind: BroadcastUpdate, N: 1}} // (refused by Validate: the world panics)
	if p.Job.HasKeyed() == false {
		t.Fatal("seed 1's job has no keyed vertex")
	}
	o := RunSafe(p)
	const want = "sim.(*World).broadcast at sim/run.go:"
	if !strings.HasPrefix(o.PanicAt, want) || len(o.Violations) != 1 || !strings.HasSuffix(o.Violations[0].Detail, " (in "+o.PanicAt+")") {
		t.Fatalf("PanicAt %q, violations %v: want the place %q… at the end of the detail", o.PanicAt, o.Violations, want)
	}
	if again := RunSafe(p); again.PanicAt != o.PanicAt || again.Violations[0].Detail != o.Violations[0].Detail {
		t.Errorf("two runs panic at %q and %q", o.PanicAt, again.PanicAt)
	}
	if RunSafe(Plan{Job: p.Job}).PanicAt != "" {
		t.Error("a run without a panic has a panic place")
	}
}

// TestValidPlansDoNotPanic: the world takes every plan Validate accepts. The candidates are the
// shrinker's (steps dropped, counts lowered, features off, stages dropped) of generated plans
// with rule updates (a job without broadcast state cannot take them), the plans a shrink can
// reach that the generator never writes; none may panic.
func TestValidPlansDoNotPanic(t *testing.T) {
	plans := 8
	if testing.Short() {
		plans = 3
	}
	runs := 0
	for seed := uint64(1); plans > 0; seed++ {
		p := Generate(seed, model.Flink118, 12)
		if !slices.ContainsFunc(p.Steps, func(s Step) bool { return s.Kind == BroadcastUpdate }) {
			continue
		}
		plans--
		// keep refuses every candidate, so the shrinker tries each first step from p once.
		Shrink(p, func(o Outcome) bool {
			runs++
			if o.PanicAt != "" || FirstFailure(o.Violations) == InvPanic {
				t.Errorf("seed %d: a valid plan panics: %s\n%s", seed, o.Violations[0].Detail, o.Plan.Render())
			}
			return false
		})
	}
	t.Logf("%d candidates run", runs)
	if runs < 100 {
		t.Errorf("%d candidates run, want more", runs)
	}
}
