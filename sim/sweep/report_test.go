package sweep

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/sim"
)

// TestReportText checks the text of each verdict on hand-made results.
func TestReportText(t *testing.T) {
	p := sim.Plan{Seed: 5, Version: model.Flink1101, Job: sim.Job{}, Steps: []sim.Step{{Kind: sim.Checkpoint}, {Kind: sim.Process, N: 3}}}
	known := sim.Violation{Step: 0, Invariant: "keyed-state", Detail: "lost keys", Known: "FLINK-16638"}
	bad := sim.Violation{Step: 1, Invariant: "splits", Detail: "split 2 twice", Diff: "- 2: 10\n+ 2: 12\n"}
	trace := []string{"job x -> started", "checkpoint -> completed 1", "process n=3 -> ok"}
	replay := "simulate run --seed 5 --flink 1.10.1 --steps 2"
	head := "seed 5 flink 1.10.1\njob x -> started\ncheckpoint -> completed 1\nprocess n=3 -> ok\n"
	for _, tc := range []struct {
		name   string
		vs     []sim.Violation
		result string
		want   string
	}{
		{"ok", nil, "ok", head + "# ok: every invariant held\n"},
		{"known", []sim.Violation{known}, "known", head +
			"# known issue FLINK-16638 at step 0 (checkpoint): keyed-state: lost keys\n" +
			"# known: 1 finding reproducing known Flink issues (FLINK-16638), no other violation\n" +
			"# To reproduce: " + replay + "\n"},
		{"fail", []sim.Violation{known, bad}, "fail", head +
			"# known issue FLINK-16638 at step 0 (checkpoint): keyed-state: lost keys\n" +
			"# violation at step 1 (process n=3): splits: split 2 twice\n" +
			"#   (-want +got):\n#     - 2: 10\n#     + 2: 12\n" +
			"# FAIL: 1 violation, plus 1 finding of known Flink issues (FLINK-16638)\n" +
			"# To reproduce: " + replay + "\n"},
	} {
		o := Report{sim.Outcome{Result: sim.Result{Plan: p, Trace: trace, Violations: tc.vs}, Steps: 2}, replay}
		if got := o.Verdict().String(); got != tc.result {
			t.Errorf("%s: result %q, want %q", tc.name, got, tc.result)
		}
		if diff := cmp.Diff(tc.want, o.Text()); diff != "" {
			t.Errorf("%s: text (-want +got):\n%s", tc.name, diff)
		}
	}
}

func TestReplayCommand(t *testing.T) {
	generated := sim.Generate(4, model.Flink118, 6)
	if got, want := ReplayCommand(generated, "x.txt"), "simulate run --seed 4 --flink 1.18 --steps 6"; got != want {
		t.Errorf("generated plan: %q, want %q", got, want)
	}
	edited := generated
	edited.Seed = 5 // the steps of seed 4 under another seed: not what seed 5 generates
	for path, want := range map[string]string{
		"dir/a-b.txt": "simulate replay dir/a-b.txt",
		"it's here":   `simulate replay 'it'\''s here'`,
	} {
		if got := ReplayCommand(edited, path); got != want {
			t.Errorf("edited plan from %q: %q, want %q", path, got, want)
		}
	}
}

func TestParseScenario(t *testing.T) {
	p := sim.Generate(9, model.Flink1101, 4)
	r := Report{Outcome: sim.RunSafe(p), Replay: RunCommand(9, model.Flink1101, 4)}
	_, file := r.FailureFile(".")
	for name, text := range map[string]string{"plan": p.Render(), "report": r.Text(), "failure file": string(file)} {
		got, err := ParseScenario([]byte(text))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if diff := cmp.Diff(p.Render(), got.Render()); diff != "" {
			t.Errorf("%s parses to another plan (-want +got):\n%s", name, diff)
		}
	}
	for text, want := range map[string]string{
		"seed 1\n\xff":   "not a scenario: line 2, column 1: byte 0xff is not UTF-8 text",
		"seed 1\nab\x00": "not a scenario: line 2, column 3: control character U+0000 is not text",
	} {
		if _, err := ParseScenario([]byte(text)); err == nil || err.Error() != want {
			t.Errorf("ParseScenario(%q) = %v, want %s", text, err, want)
		}
	}
}

func TestMinFileAndShrunkText(t *testing.T) {
	o := sim.RunSeed(3, model.Flink118, 6)
	r := NewReport(o)
	if _, _, ok := r.MinFile("."); ok {
		t.Fatal("a report without a shrunk plan has a MinFile")
	}
	m := sim.RunSafe(sim.Plan{Seed: o.Plan.Seed, Version: o.Plan.Version, Job: o.Plan.Job, Steps: o.Plan.Steps[:2]})
	r.Min = &m
	name, data, ok := r.MinFile(".")
	if !ok || name != "seed-3-flink-1.18-steps-6-min.txt" {
		t.Fatalf("MinFile name %q, ok %t", name, ok)
	}
	p, err := ParseScenario(data)
	if err != nil || p.Render() != m.Plan.Render() {
		t.Fatalf("MinFile does not parse back to the shrunk plan (%v):\n%s", err, data)
	}
	var b strings.Builder
	r.WriteShrunk(&b)
	if !strings.Contains(b.String(), "# Shrunk to 2 of 6 steps") || !strings.Contains(b.String(), "# "+m.Plan.Steps[1].String()+"\n") {
		t.Errorf("WriteShrunk:\n%s", b.String())
	}
	if got := Command("replay x"); got != "simulate replay x" {
		t.Errorf("Command in a normal build = %q", got)
	}
}

// TestFailureFilesReplayFromWhereTheyAre: the replay hints of a saved failing seed name the file
// with the directory it was saved in (quoted for a shell), so that pasted as written they run
// it (issue 28: "(or: simulate replay seed-….txt)" named no directory).
func TestFailureFilesReplayFromWhereTheyAre(t *testing.T) {
	o := sim.RunSeed(3, model.Flink118, 6)
	r := NewReport(o)
	m := sim.RunSafe(sim.Plan{Seed: o.Plan.Seed, Version: o.Plan.Version, Job: o.Plan.Job, Steps: o.Plan.Steps[:2]})
	m.Violations = []sim.Violation{{Step: 1, Invariant: "splits", Detail: "made up"}}
	r.Min = &m
	_, data := r.FailureFile("out dir/failures")
	if want := "(or: simulate replay 'out dir/failures/seed-3-flink-1.18-steps-6.txt')"; !strings.Contains(string(data), want) {
		t.Errorf("FailureFile lacks %q:\n%s", want, data)
	}
	_, data, _ = r.MinFile("failures")
	if want := "\n# # To reproduce: simulate replay failures/seed-3-flink-1.18-steps-6-min.txt\n"; !strings.Contains(string(data), want) {
		t.Errorf("MinFile lacks %q:\n%s", want, data)
	}
}
