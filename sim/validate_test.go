package sim

import (
	"errors"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/model"
)

// TestParseRefusesStepsTheJobCannotTake: every kind of step a job cannot take is refused when
// the scenario is parsed, with the line and the step named.
func TestParseRefusesStepsTheJobCannotTake(t *testing.T) {
	const job = "job keys=int/uniform/10 splits=1 tms=2 broadcast=false source=p2/uid:s keyed=p2/uid:k\n"
	const noKeyed = "job keys=int/uniform/10 splits=1 source=p2/uid:s keyed=none v2=source/rebalance/blocking/c1/p3/uid:x\n"
	for _, c := range []struct{ text, want string }{
		{job + "process n=1\nbroadcast n=1", "line 3: broadcast: the job has no broadcast state (broadcast=false): no rule update reaches it"},
		{job + "tm-restart tm=2", "line 2: tm-restart: the job has no TaskManager 2: it runs on tms=2 (want tm=0..1)"},
		{job + "tm-loss tm=5", "line 2: tm-loss: the job has no TaskManager 5"},
		{job + "rescale v2=3", "line 2: rescale: the job has no vertex v2 (its vertices: 0 source, 1 keyed)"},
		{noKeyed + "rescale keyed=3", "line 2: rescale: the job has no keyed vertex (its vertices: 0 source, 2 v2)"},
		{noKeyed + "rescale v3=3", "line 2: rescale: the job has no vertex v3"},
		{job + "process n=1\n" + job, "line 3: job: a plan has one 'job' line, and line 1 is one"},
		{noKeyed + "restart source=p2/uid:s keyed=p2/uid:k", "line 2: restart: keyed=none must stay as in the job line"},
		{"flink 1.10.1\n" + job + "resume legacy", "line 3: resume: legacy: Flink 1.10.1 has no restore modes"},
	} {
		_, err := ParsePlan(c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParsePlan(%q) = %v, want one line mentioning %q", c.text, err, c.want)
		}
	}
	for _, ok := range []string{
		strings.Replace(job, "broadcast=false", "broadcast=true", 1) + "broadcast n=1",
		job + "tm-loss tm=1",
		noKeyed + "rescale v2=1 source=4",
		// A restart may add a stage: later steps may name it, whether or not the restart is taken.
		job + "restart source=p2/uid:s keyed=p2/uid:k v2=keyed/rebalance/pipelined/c1/p2/uid:x\nrescale v2=3\nfail vertex=2 subtask=2",
	} {
		if _, err := ParsePlan(ok); err != nil {
			t.Errorf("ParsePlan(%q): %v", ok, err)
		}
	}
}

// TestValidateRefusesMalformedPlans: a plan built in Go is checked as a parsed one is, fields
// the parser bounds included, and a step's error is a *StepError naming it.
func TestValidateRefusesMalformedPlans(t *testing.T) {
	base := Generate(1, model.Flink118, 1)
	base.Steps = nil
	if err := base.Validate(); err != nil {
		t.Fatalf("the generated job is refused: %v", err)
	}
	for _, c := range []struct {
		name string
		edit func(*Plan)
		want string
		step bool
	}{
		{"unknown version", func(p *Plan) { p.Version = 99 }, "flink version 99", false},
		{"no keys", func(p *Plan) { p.Job.NumKeys = 0 }, "job: key count 0", false},
		{"no TaskManager", func(p *Plan) { p.Job.TaskManagers = 0 }, "job: tms 0", false},
		{"source without a uid", func(p *Plan) { p.Job.Source.UID = "" }, "job: source: uid", false},
		{"zero step", func(p *Plan) { p.Steps = []Step{{}} }, "step 0 (step(0)): unknown step kind 0", true},
		{"no records", func(p *Plan) { p.Steps = []Step{{Kind: Process}} }, "n=0: want 1..", true},
		{"retain 0", func(p *Plan) { p.Steps = []Step{{Kind: Retain}} }, "n=0: want 1..", true},
		{"negative rollback", func(p *Plan) { p.Steps = []Step{{Kind: Rollback, N: -1}} }, "n=-1", true},
		{"negative subtask", func(p *Plan) { p.Steps = []Step{{Kind: Fail, Subtask: -1}} }, "want indexes >= 0", true},
		{"fault of no kind", func(p *Plan) { p.Steps = []Step{{Kind: Fault}} }, "fault kind 0", true},
		{"empty rescale", func(p *Plan) { p.Steps = []Step{{Kind: Rescale, Parallelism: []int{0}}} }, "want at least one of", true},
		{"rescale past the vertices", func(p *Plan) { p.Steps = []Step{{Kind: Rescale, Parallelism: []int{1, 0, 0, 0, 0, 0, 0, 2}}} }, "the job has no vertex v7", true},
		{"restart with a stage reading a later one", func(p *Plan) {
			p.Steps = []Step{{Kind: Restart, Change: Change{Source: p.Job.Source, Keyed: p.Job.Keyed,
				Stages: []Stage{{Input: 3, Edge: EdgeRebalance, Chain: 1, Config: VertexConfig{Parallelism: 1, UID: "x"}}}}}}
		}, "v2: input v3 is not an earlier vertex", true},
	} {
		p := clonePlan(base)
		c.edit(&p)
		err := p.Validate()
		var se *StepError
		if err == nil || !strings.Contains(err.Error(), c.want) || errors.As(err, &se) != c.step {
			t.Errorf("%s: Validate = %v, want an error mentioning %q (a step's: %t)", c.name, err, c.want, c.step)
		}
	}
}
