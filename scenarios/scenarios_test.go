package scenarios

import (
	"strconv"
	"testing"

	"github.com/cockroachdb/datadriven"
)

// TestScenarios runs every file under testdata/ (cockroachdb/datadriven form). Commands:
//
//	run                      the input is a plan in scenario syntax (see sim.ParsePlan); the
//	                         expected output is its trace and "ok" or its violations
//	ranges m=M p=P1,P2,...   the key-group ranges of every subtask at each parallelism
//
// Regenerate the expected output with `go test ./scenarios -rewrite` and review the diff.
func TestScenarios(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "run":
				out, err := Run(d.Input)
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				return out
			case "ranges":
				var ms, ps string
				d.ScanArgs(t, "m", &ms)
				d.ScanArgs(t, "p", &ps)
				m, err := strconv.Atoi(ms)
				if err != nil {
					d.Fatalf(t, "m=%q: %v", ms, err)
				}
				list, err := ParseInts(ps)
				if err != nil {
					d.Fatalf(t, "%v", err)
				}
				out, err := Ranges(m, list)
				if err != nil {
					return "error: " + err.Error() + "\n"
				}
				return out
			}
			d.Fatalf(t, "unknown command %q", d.Cmd)
			return ""
		})
	})
}
