package main

import (
	"bytes"
	"encoding/json"

	"github.com/restoresim/restoresim/internal/cliflags"
	"github.com/restoresim/restoresim/model"
	"github.com/restoresim/restoresim/model/opstate"
)

func init() {
	register(&command{name: "repartition", summary: "what Flink does with operator (non-keyed) state on rescale, from JSON", run: runRepartition})
}

func runRepartition(e *env, args []string) int {
	fs := cliflags.New("repartition", "repartition [--flink V] < case.json",
		`Explains what Flink will do with your operator (non-keyed) state when a job is restored with
another parallelism: which new subtask receives which partitions of every list, union and
broadcast state. It runs a bit-exact model of Flink's RoundRobinOperatorStateRepartitioner.

Reads ONE case as JSON on stdin:
  {"old_parallelism": 2, "new_parallelism": 3,
   "input": [                                   one list per old subtask ([] = no state)
     [{"handle": 0, "states": [                 handles in order; "handle" = its index
        {"name": "offsets", "mode": "SPLIT_DISTRIBUTE", "num_offsets": 4}]}],
     [...]]}
Modes are SPLIT_DISTRIBUTE (getListState), UNION (getUnionListState) and BROADCAST (broadcast
state). A handle's states are listed in the order Flink visits its map. The partitions of a
state are numbered 0..num_offsets-1; each handle is its own stream. Other fields are ignored,
so a whole case of the golden roundrobin.json can be piped in.

Prints {"output": [...]}, one object per new subtask (one per line), keyed by state name:
  {"mode": ..., "pairs": [[old_subtask, partition], ...],
   "handles": [{"old_subtask": s, "handle": h, "offsets": [partition, ...]}, ...]}
An entry in "handles" with "offsets": [] is a handle the subtask receives with no partition of
that state. With unchanged parallelism Flink usually keeps every subtask's own state, but
redistributes UNION state, and in 1.18 BROADCAST state that some subtask lacks.`)
	version := fs.String("flink", simFlinkDefault.String(), "the Flink version `V` to model: "+model.FlinkVersionNames())
	fs.Description += "\n\n" + simFlinkNote
	pos, done, code := e.parseFlags(fs, args)
	if done {
		return code
	}
	if len(pos) > 0 && pos[0] == stdinName { // "-": stdin, where the case is read anyway
		pos = pos[1:]
	}
	if len(pos) > 0 {
		return e.failf("repartition", "unexpected argument %q (the case is read from stdin)", pos[0])
	}
	v, err := model.ParseFlinkVersion(*version)
	if err != nil {
		return e.failf("repartition", "--flink: %v", err)
	}
	c, err := opstate.Decode(e.stdin, "stdin")
	if err != nil {
		return e.failf("repartition", "%v", err)
	}
	received, err := c.Run(v)
	if err != nil {
		return e.failf("repartition", "%v", err)
	}
	out, err := renderRepartition(received)
	if err != nil {
		return e.failf("repartition", "%v", err)
	}
	return writeOut(e, "repartition", out)
}

// renderRepartition prints what each new subtask receives in the "output" schema of SPEC
// §L.1, one new subtask per line.
func renderRepartition(received []map[string]*opstate.Received) ([]byte, error) {
	var out bytes.Buffer
	out.WriteString("{\"output\": [")
	for i, sub := range received {
		var line bytes.Buffer
		enc := json.NewEncoder(&line)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(sub); err != nil { // map keys come out sorted
			return nil, err
		}
		if i > 0 {
			out.WriteString(",")
		}
		out.WriteString("\n  ")
		out.Write(bytes.TrimRight(line.Bytes(), "\n"))
	}
	out.WriteString("\n]}\n")
	return out.Bytes(), nil
}
