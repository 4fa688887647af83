package sweep

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/sim"
)

func TestParseVersions(t *testing.T) {
	for in, want := range map[string][]model.FlinkVersion{
		"2.3":             {model.Flink23},
		"1.18,2.3":        {model.Flink118, model.Flink23},
		"master,2.3,1.18": {model.FlinkMaster, model.Flink23, model.Flink118},
	} {
		got, err := ParseVersions(in)
		if err != nil || !cmp.Equal(want, got) {
			t.Errorf("ParseVersions(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"":             `unknown Flink version (want 1.10.1, 1.18, 1.19, 1.20, 2.0, 2.1, 2.2, 2.3, master): ""`,
		"2.4":          `unknown Flink version (want 1.10.1, 1.18, 1.19, 1.20, 2.0, 2.1, 2.2, 2.3, master): "2.4"`,
		"1.18,2.4":     `unknown Flink version (want 1.10.1, 1.18, 1.19, 1.20, 2.0, 2.1, 2.2, 2.3, master): "2.4"`,
		"1.18,,2.3":    `empty version at position 2 of the list "1.18,,2.3"`,
		"1.18,":        `empty version at position 2 of the list "1.18,"`,
		",":            `empty version at position 1 of the list ","`,
		"2.3,1.18,2.3": `2.3 is in the list "2.3,1.18,2.3" twice`,
	} {
		if _, err := ParseVersions(in); err == nil || err.Error() != want {
			t.Errorf("ParseVersions(%q) = %v, want %s", in, err, want)
		}
	}
}

// TestPlanIndependentOfVersion: a seed's plan is the same under every version, but for the
// version it names (and on 1.10.1, which has no restore modes, NO_CLAIM for LEGACY), so a
// cross-version sweep compares one plan.
func TestPlanIndependentOfVersion(t *testing.T) {
	vs, _ := ParseVersions(model.FlinkVersionNames())
	if len(vs) != 0 {
		t.Fatal("FlinkVersionNames is a list with spaces; ParseVersions should refuse it")
	}
	vs, err := ParseVersions(strings.ReplaceAll(model.FlinkVersionNames(), " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(30) {
		want := sim.Generate(seed, model.Flink118, 40)
		for _, v := range vs {
			p := sim.Generate(seed, v, 40)
			p.Version = model.Flink118
			w := want
			if v == model.Flink1101 {
				w = withoutLegacy(want)
			}
			if p.Render() != w.Render() {
				t.Fatalf("seed %d: the plan under %s differs from 1.18's", seed, v)
			}
		}
	}
}

// TestDiffFLINK40113: seed 72 is the known issue FLINK-40113 under 2.3; master refuses the
// restart of step 36 instead.
func TestDiffFLINK40113(t *testing.T) {
	a, b := sim.RunSeed(72, model.Flink23, 40), sim.RunSeed(72, model.FlinkMaster, 40)
	d, ok := Diff(&a, &b)
	if !ok {
		t.Fatal("seed 72: 2.3 and master agree")
	}
	if d.From != "2.3" || d.To != "master" || d.Step != 36 || !strings.HasPrefix(d.Command, "restart ") ||
		d.FromResult != "known" || d.ToResult != "ok" {
		t.Errorf("difference %+v, want 2.3 -> master at step 36 (restart), known -> ok", d)
	}
	if !strings.Contains(d.FromLine, "-> restored savepoint 15") || !strings.Contains(d.ToLine, "-> refused (The state for the execution job vertex keyed can not be restored.") {
		t.Errorf("lines %q / %q, want restored / refused", d.FromLine, d.ToLine)
	}
	if len(d.FromOnly) == 0 || len(d.ToOnly) != 0 {
		t.Fatalf("violations only under 2.3: %+v, only under master: %+v", d.FromOnly, d.ToOnly)
	}
	for _, v := range d.FromOnly {
		if v.Known != "FLINK-40113" || v.Step != 36 {
			t.Errorf("violation %+v, want a FLINK-40113 finding at step 36", v)
		}
	}
	if _, ok := Diff(&a, &a); ok {
		t.Error("an outcome differs from itself")
	}
}

// TestDiff1101Known: 1.10.1 and 1.18 differ on most seeds, and the known issue FLINK-16638
// stays 1.10.1's.
func TestDiff1101Known(t *testing.T) {
	vs := []model.FlinkVersion{model.Flink1101, model.Flink118}
	s := NewVersionsSummary(vs)
	known := 0
	RunVersions(Config{Seeds: 20, Steps: 40, Workers: 2}, vs, func(outs []sim.Outcome) bool {
		c := Compare(outs)
		s.Add(c)
		for _, d := range c.Differences {
			for _, v := range d.FromOnly {
				if v.Known == "FLINK-16638" {
					known++
				}
			}
			for _, v := range d.ToOnly {
				if v.Known != "" {
					t.Errorf("seed %d: 1.18 has the known issue %s", c.Seed, v.Known)
				}
			}
		}
		return true
	})
	if s.Differing() < 10 || known == 0 {
		t.Errorf("%d of 20 seeds differ, %d FLINK-16638 findings at the first difference; want most seeds and some", s.Differing(), known)
	}
}

// TestDiffViolationsOnly: identical traces with different violations differ at the first step
// whose violations differ, with no lines.
func TestDiffViolationsOnly(t *testing.T) {
	p := sim.Plan{Seed: 1, Version: model.Flink118, Steps: []sim.Step{{Kind: sim.Checkpoint}, {Kind: sim.Process, N: 3}}}
	trace := []string{"job", "checkpoint -> completed 1", "process n=3 -> ok"}
	same := sim.Violation{Step: 0, Invariant: "splits", Detail: "x", Known: "FLINK-16638"}
	a := sim.Outcome{Result: sim.Result{Plan: p, Trace: trace, Violations: []sim.Violation{same, {Step: 1, Invariant: "keyed-state", Detail: "y"}}}, Steps: 2}
	q := p
	q.Version = model.Flink23
	b := sim.Outcome{Result: sim.Result{Plan: q, Trace: trace, Violations: []sim.Violation{same, {Step: 1, Invariant: "keyed-state", Detail: "y", Known: "FLINK-40113"}}}, Steps: 2}
	d, ok := Diff(&a, &b)
	want := Difference{From: "1.18", To: "2.3", Step: 1, Command: "process n=3",
		FromOnly: []Violation{{Step: 1, Invariant: "keyed-state", Detail: "y"}}, ToOnly: []Violation{{Step: 1, Invariant: "keyed-state", Detail: "y", Known: "FLINK-40113"}},
		FromResult: "fail", ToResult: "known"}
	if diff := cmp.Diff(want, d); !ok || diff != "" {
		t.Errorf("difference (-want +got):\n%s", diff)
	}
}

// TestRunVersionsDeterministic: the JSON lines and the summary of a cross-version sweep are
// byte-identical for any number of workers.
func TestRunVersionsDeterministic(t *testing.T) {
	vs := []model.FlinkVersion{model.Flink23, model.FlinkMaster}
	run := func(workers int) string {
		var b bytes.Buffer
		s := NewVersionsSummary(vs)
		enc := json.NewEncoder(&b)
		RunVersions(Config{Start: 60, Seeds: 16, Steps: 40, Workers: workers}, vs, func(outs []sim.Outcome) bool {
			c := Compare(outs)
			s.Add(c)
			_ = enc.Encode(c)
			return true
		})
		s.WriteText(&b, 40)
		return b.String()
	}
	one := run(1)
	if diff := cmp.Diff(one, run(3)); diff != "" {
		t.Errorf("3 workers vs 1 (-1 +3):\n%s", diff)
	}
	for _, want := range []string{"2.3 -> master: ", "seed 72 step 36 (restart): known -> ok", "2.3 only: known issue FLINK-40113: key-owner:", "\nok: no seed failed under any version; "} {
		if !strings.Contains(one, want) {
			t.Errorf("output lacks %q:\n%s", want, one)
		}
	}
}

// withoutLegacy is p with every LEGACY restore mode replaced by NO_CLAIM (the steps copied).
func withoutLegacy(p sim.Plan) sim.Plan {
	p.Steps = slices.Clone(p.Steps)
	for i := range p.Steps {
		if p.Steps[i].Mode == model.Legacy {
			p.Steps[i].Mode = model.NoClaim
		}
		if p.Steps[i].Change.Mode == model.Legacy {
			p.Steps[i].Change.Mode = model.NoClaim
		}
	}
	return p
}
