package sim

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restoresim/restoresim/model"
)

func TestJudge(t *testing.T) {
	known := Violation{Step: 1, Invariant: InvKeyedState, Known: "FLINK-16638"}
	bad := Violation{Step: 2, Invariant: InvSplits}
	for _, tc := range []struct {
		vs   []Violation
		want Verdict
	}{
		{nil, VerdictOK},
		{[]Violation{known}, VerdictKnown},
		{[]Violation{known, bad}, VerdictFailed},
		{[]Violation{bad, known}, VerdictFailed},
	} {
		got := Judge(tc.vs)
		if got != tc.want || got.Failed() != (tc.want == VerdictFailed) {
			t.Errorf("Judge(%v) = %v, want %v", tc.vs, got, tc.want)
		}
		if back, err := ParseVerdict(got.String()); err != nil || back != got {
			t.Errorf("ParseVerdict(%q) = %v, %v", got, back, err)
		}
	}
	if _, err := ParseVerdict("passed"); err == nil {
		t.Error("ParseVerdict(passed): no error")
	}
	if s := Verdict(0).String(); s != "Verdict(0)" {
		t.Errorf("zero Verdict prints %q", s)
	}
}

func TestSortViolations(t *testing.T) {
	v := func(step int, inv, detail string) Violation {
		return Violation{Step: step, Invariant: inv, Detail: detail}
	}
	got := []Violation{v(3, "key-owner", "b"), v(1, "splits", "x"), v(3, "key-owner", "a"), v(3, "broadcast", "z"), v(-1, "panic", "p")}
	want := []Violation{v(-1, "panic", "p"), v(1, "splits", "x"), v(3, "broadcast", "z"), v(3, "key-owner", "a"), v(3, "key-owner", "b")}
	SortViolations(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("sorted violations (-want +got):\n%s", diff)
	}
}

// TestRunSafe: a panic in a run is a failed outcome with one InvPanic violation and a stack.
func TestRunSafe(t *testing.T) {
	p := Generate(3, model.Flink118, 4)
	if o := RunSafe(p); o.Stack != "" || o.Steps != 4 || len(o.Trace) != 5 {
		t.Errorf("RunSafe of a good plan: %+v", o)
	}
	p.Steps = append(p.Steps, Step{Kind: StepKind(250)}) // no such step: Run panics
	o := RunSafe(p)
	if o.Verdict() != VerdictFailed || o.Stack == "" || len(o.Violations) != 1 {
		t.Fatalf("RunSafe of a panicking plan: %+v", o)
	}
	if v := o.Violations[0]; v.Step != -1 || v.Invariant != InvPanic || !strings.HasPrefix(v.Detail, "sim: internal error: unknown step kind") {
		t.Errorf("violation %+v", v)
	}
}
