package scenarios

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/restoresim/restoresim/internal/realmeta"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/savepoint"
)

// TestScenarios runs every file under testdata/ (cockroachdb/datadriven form). Commands:
//
//	run                      the input is a plan in scenario syntax (see sim.ParsePlan); the
//	                         expected output is its trace and "ok" or its violations
//	ranges m=M p=P1,P2,...   the key-group ranges of every subtask at each parallelism
//	plan file=PATH [p=P] [flink=V] [allow-non-restored-state]
//	                         the restore plan of a real _metadata file (PATH relative to the
//	                         real Flink metadata folder, see internal/realmeta, e.g.
//	                         real/kafka-enum1.metadata) at parallelism P,
//	                         or into the job the input describes (the JSON of `simulate plan
//	                         --job`; P is then its default parallelism); see PlanRestore
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
			case "plan":
				return planCommand(t, d)
			}
			d.Fatalf(t, "unknown command %q", d.Cmd)
			return ""
		})
	})
}

// planCommand runs the plan command (see TestScenarios).
func planCommand(t *testing.T, d *datadriven.TestData) string {
	var file string
	d.ScanArgs(t, "file", &file)
	// file names a file of the real Flink metadata folder (internal/realmeta: a loud skip in a
	// plain clone, a failure in CI), e.g. real/kafka-enum1.metadata.
	file = filepath.Join(realmeta.Dir(t), filepath.FromSlash(file))
	var opts savepoint.Options
	if d.HasArg("p") {
		var ps string
		d.ScanArgs(t, "p", &ps)
		p, err := strconv.Atoi(ps)
		if err != nil {
			d.Fatalf(t, "p=%q: %v", ps, err)
		}
		opts.Parallelism = p
	}
	if d.HasArg("flink") {
		var fv string
		d.ScanArgs(t, "flink", &fv)
		v, err := model.ParseFlinkVersion(fv)
		if err != nil {
			d.Fatalf(t, "flink=%q: %v", fv, err)
		}
		opts.Flink = v
	}
	opts.AllowNonRestoredState = d.HasArg("allow-non-restored-state")
	if strings.TrimSpace(d.Input) != "" {
		job, err := ParseJob(d.Input, opts.Parallelism)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		opts.Job = job
	}
	out, err := PlanRestore(os.DirFS(filepath.Dir(file)), filepath.Base(file), opts)
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	return out
}
