package assigncase

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/model"
)

// exampleBranches are the Flink branches the worked examples were answered on, with the model
// version standing for each.
var exampleBranches = []struct {
	branch string
	v      model.FlinkVersion
}{{"release-1.18", model.Flink118}, {"release-2.3", model.Flink23}, {"master", model.FlinkMaster}}

// knownDisagreements are the examples where the model's answer is not Flink's, by
// "case@branch", each with the difference Compare must find and the reason.
var knownDisagreements = map[string]struct{ path, reason string }{
	"ex5-channel-state-recover-output-on-downstream@release-2.3": {"error", "FLINK-38542 (recover_output_on_downstream_task) is not modelled: Case.Input refuses the case"},
	"ex5-channel-state-recover-output-on-downstream@master":      {"error", "FLINK-38542 (recover_output_on_downstream_task) is not modelled: Case.Input refuses the case"},
}

// modelAnswer is the model's answer to c at v: Case.Input, model.AssignStates, FromAssignment.
func modelAnswer(c *Case, v model.FlinkVersion) Answer {
	in, err := c.Input(v)
	if err != nil {
		return FromAssignment(nil, err)
	}
	return FromAssignment(model.AssignStates(in))
}

// TestExamples runs every worked example of testdata (copied from ../shared/assign-cases: the
// case, and the answer Flink's own classes gave on each branch; a branch without an answer file
// answers as release-1.18) through the model at 1.18, 2.3 and master and compares the answers
// with Compare. Every example agrees except knownDisagreements, which must differ exactly as
// listed; an answer that agrees and carries no refusal must also be Flink's line byte for byte
// (the model writes the format's field order, and the paths Flink's Path prints).
func TestExamples(t *testing.T) {
	cases, err := filepath.Glob("testdata/*.case.json")
	if err != nil || len(cases) < 10 {
		t.Fatalf("%d example cases in testdata (%v)", len(cases), err)
	}
	var table []string
	for _, file := range cases {
		name := strings.TrimSuffix(filepath.Base(file), ".case.json")
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		c, err := DecodeCase(data)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, b := range exampleBranches {
			answerFile := strings.TrimSuffix(file, ".case.json") + "." + b.branch + ".answer.json"
			if _, err := os.Stat(answerFile); err != nil {
				answerFile = strings.TrimSuffix(file, ".case.json") + ".release-1.18.answer.json"
			}
			want, err := os.ReadFile(answerFile)
			if err != nil {
				t.Fatal(err)
			}
			flink, err := DecodeAnswer(want)
			if err != nil {
				t.Fatalf("%s: %v", answerFile, err)
			}
			got := modelAnswer(c, b.v)
			diffs := Compare(got, *flink)
			key := name + "@" + b.branch
			known, isKnown := knownDisagreements[key]
			switch {
			case isKnown && (len(diffs) != 1 || diffs[0].Path != known.path):
				t.Errorf("%s: known to differ at %s (%s), the differences are now %v", key, known.path, known.reason, diffs)
			case !isKnown && len(diffs) > 0:
				t.Errorf("%s: the model's answer differs from Flink's:\n  %s", key, joinDiffs(diffs))
			case !isKnown && flink.Error == nil && got.String() != strings.TrimSpace(string(want)):
				t.Errorf("%s: the answers agree field by field but the model's line is not Flink's:\nmodel %s\nflink %s", key, got, strings.TrimSpace(string(want)))
			}
			verdict := "agrees"
			if len(diffs) > 0 {
				verdict = "differs: " + diffs[0].String()
			}
			table = append(table, fmt.Sprintf("%-52s %-12s %s", name, b.branch, verdict))
		}
	}
	t.Log("examples:\n" + strings.Join(table, "\n"))
}

func joinDiffs(ds []Difference) string {
	var lines []string
	for _, d := range ds {
		lines = append(lines, d.String())
	}
	return strings.Join(lines, "\n  ")
}
