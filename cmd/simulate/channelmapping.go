package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strconv"

	"github.com/restoresim/restoresim/internal/cliflags"
	"github.com/restoresim/restoresim/model"
)

func init() {
	register(&command{name: "channel-mapping", summary: "which old subtasks' in-flight data each new subtask reads on rescale", run: runChannelMapping})
}

// maxFullIndexes bounds the output of FULL, which prints old × new indexes.
const maxFullIndexes = 1 << 24

const mapperNames = "ARBITRARY, FIRST, FULL, RANGE or ROUND_ROBIN"

func runChannelMapping(e *env, args []string) int {
	const name = "channel-mapping"
	fs := cliflags.New(name, "channel-mapping --mapper ARBITRARY|FIRST|FULL|RANGE|ROUND_ROBIN --old P --new Q",
		`Prints, for every new subtask of a rescale from P to Q subtasks, the old subtasks whose in-flight
channel state (unaligned checkpoints) it reads, as Flink's SubtaskStateMapper.
getNewToOldSubtasksMapping computes it for the partitioner's mapper. CSV:
new_subtask,old_subtasks,ambiguous with the old indexes space-separated in Flink's order (empty
when none) and ambiguous the mapper's isAmbiguous() (true for FULL and RANGE, whose receivers
filter the records they share). UNSUPPORTED (forward and rescale partitioners) is refused as
Flink refuses it. FULL prints P*Q indexes, at most 16777216.`)
	mapper := fs.String("mapper", "", "the partitioner's `mapper`: "+mapperNames)
	var oldP, newP cliflags.Int
	fs.Var(&oldP, "old", "the old parallelism `P` (1..32768)")
	fs.Var(&newP, "new", "the new parallelism `Q` (1..32768)")
	pos, done, code := e.parseFlags(fs, args)
	if done {
		return code
	}
	if len(pos) > 0 {
		return e.failf(name, "unexpected argument %q (channel-mapping takes only flags)", pos[0])
	}
	m, err := parseMapper(*mapper)
	if err != nil {
		return e.failf(name, "%v", err)
	}
	for _, p := range []struct {
		flag string
		o    cliflags.Int
	}{{"--old", oldP}, {"--new", newP}} {
		if !p.o.Given {
			return e.failf(name, "%s is required", p.flag)
		}
		if err := model.CheckParallelismPreconditions(p.o.V); err != nil {
			return e.failf(name, "%s %d: %v (want 1..%d)", p.flag, p.o.V, err, model.UpperBoundMaxParallelism)
		}
	}
	if m == model.FullMapper && oldP.V*newP.V > maxFullIndexes {
		return e.failf(name, "FULL from %d to %d would print %d old indexes, more than %d", oldP.V, newP.V, oldP.V*newP.V, maxFullIndexes)
	}
	mapping, err := m.NewToOldSubtasksMapping(oldP.V, newP.V)
	if err != nil {
		return e.failf(name, "%v: %v", m, err)
	}
	var out bytes.Buffer
	w := bufio.NewWriter(&out)
	fmt.Fprintln(w, "new_subtask,old_subtasks,ambiguous")
	ambiguous := strconv.FormatBool(m.IsAmbiguous())
	for i := range newP.V {
		w.WriteString(strconv.Itoa(i))
		w.WriteByte(',')
		for j, o := range mapping.MappedIndexes(i) {
			if j > 0 {
				w.WriteByte(' ')
			}
			w.WriteString(strconv.Itoa(o))
		}
		w.WriteByte(',')
		w.WriteString(ambiguous)
		w.WriteByte('\n')
	}
	w.Flush()
	return writeOut(e, name, out.Bytes())
}

// parseMapper parses --mapper: one of Flink's SubtaskStateMapper names (exact spelling).
func parseMapper(s string) (model.SubtaskStateMapper, error) {
	if s == "" {
		return 0, errors.New("--mapper is required (" + mapperNames + ")")
	}
	m, err := model.ParseSubtaskStateMapper(s)
	if err != nil {
		return 0, fmt.Errorf("unknown mapper %q (want %s)", s, mapperNames)
	}
	return m, nil
}
