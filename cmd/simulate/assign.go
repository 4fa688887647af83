package main

import (
	"bytes"
	"strings"

	"github.com/restoresim/restoresim/assigncase"
	"github.com/restoresim/restoresim/internal/cliflags"
	"github.com/restoresim/restoresim/model"
)

func init() {
	register(&command{name: "assign", summary: "the model's answer to assignment cases (ASSIGN-CASE.md), one JSON line each", run: runAssign})
}

// maxAssignInput bounds the cases read at once.
const maxAssignInput = 1 << 28

func runAssign(e *env, args []string) int {
	fs := cliflags.New("assign", "assign [--flink V] [FILE|-]",
		`Answers assignment cases as the model does: what StateAssignmentOperation.assignStates
hands each new subtask when a checkpoint's operator states are restored into a new job, or
how Flink refuses (the format: ../shared/ASSIGN-CASE.md, docs/assign.md).

Reads cases from FILE, or stdin for "-" or no FILE, one JSON object a line (blank lines are
skipped), and prints one answer line per case, in the same order:
  {"vertices": [{"name", "parallelism", "max_parallelism", "subtasks": [null | {"checkpoint_id",
    "deployed_as_finished", "operators": [{"operator_id", "state": {...}}]}]}]}
or {"error": {"stage": "input"|"build"|"assign", "kind", "class", "message", "operators"}}
for a restore Flink refuses (a refusal is an answer: the exit code stays 0).

A line that is not a case (bad JSON, an unknown or missing field, a value of the wrong type)
or a case the model does not represent (e.g. recover_output_on_downstream_task, a relative
handle) stops the command before it prints anything: exit 2, one line naming the line number.`)
	version := fs.String("flink", "1.18", "the Flink version `V` to model: "+model.FlinkVersionNames())
	pos, done, code := e.parseFlags(fs, args)
	if done {
		return code
	}
	path := stdinName
	switch len(pos) {
	case 0:
	case 1:
		path = pos[0]
	default:
		return e.failf("assign", "one FILE at most, got %d arguments", len(pos))
	}
	v, err := model.ParseFlinkVersion(*version)
	if err != nil {
		return e.failf("assign", "--flink: %v", err)
	}
	data, err := readInput(e, path, maxAssignInput)
	if err != nil {
		return e.failf("assign", "%v", err)
	}
	var out bytes.Buffer
	cases := 0
	for i, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		c, err := assigncase.DecodeCase([]byte(line))
		if err != nil {
			return e.failf("assign", "%s line %d: %v", inputName(path), i+1, err)
		}
		a, err := c.Answer(v)
		if err != nil {
			return e.failf("assign", "%s line %d: %v", inputName(path), i+1, err)
		}
		out.WriteString(a.String())
		out.WriteByte('\n')
		cases++
	}
	if cases == 0 {
		return e.failf("assign", "%s: no case (one JSON object a line)", inputName(path))
	}
	return writeOut(e, "assign", out.Bytes())
}
