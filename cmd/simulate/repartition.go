package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	"github.com/restoresim/restoresim/model"
)

func init() {
	register(&command{name: "repartition", summary: "what Flink does with operator (non-keyed) state on rescale, from JSON", run: runRepartition})
}

// Limits that keep a typo from allocating gigabytes; Flink itself caps parallelism at 32768.
// The output is measured by repartitionOutputCost: a partition costs 1, a (handle, state) entry
// handed to a new subtask costs repartitionEntryCost (an entry costs memory and output even with
// no partition: a UNION state reported with "num_offsets": 0 by each of 32768 old subtasks hands
// 32768² entries to the new subtasks).
const (
	repartitionMaxInputOffsets = 1 << 22
	repartitionMaxOutputCost   = 1 << 24
	repartitionEntryCost       = 8
)

// rrCaseIn is one case on stdin (SPEC §L.1); other fields, such as a golden case's id or
// output, are ignored. Pointers tell a missing field from a zero one.
type rrCaseIn struct {
	OldParallelism *int              `json:"old_parallelism"`
	NewParallelism *int              `json:"new_parallelism"`
	Input          *[]*[]*rrHandleIn `json:"input"`
}

type rrHandleIn struct {
	Handle *int          `json:"handle"`
	States *[]*rrStateIn `json:"states"`
}

type rrStateIn struct {
	Name       *string `json:"name"`
	Mode       *string `json:"mode"`
	NumOffsets *int    `json:"num_offsets"`
}

// rrStateOut is what one new subtask receives for one state name (SPEC §L.1 "output").
type rrStateOut struct {
	Mode    string        `json:"mode"`
	Pairs   [][2]int      `json:"pairs"`
	Handles []rrHandleOut `json:"handles"`
}

type rrHandleOut struct {
	OldSubtask int     `json:"old_subtask"`
	Handle     int     `json:"handle"`
	Offsets    []int64 `json:"offsets"`
}

func runRepartition(e *env, args []string) int {
	fs := newFlags("repartition", "repartition [--flink V] < case.json",
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
	version := fs.String("flink", "1.18", "the Flink version `V` to model: "+model.FlinkVersionNames())
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
	c, err := readRepartitionCase(e.stdin)
	if err != nil {
		return e.failf("repartition", "%v", err)
	}
	prev, where, err := c.previous()
	if err != nil {
		return e.failf("repartition", "%v", err)
	}
	result, err := model.RepartitionOperatorState(v, prev, *c.NewParallelism)
	if err != nil {
		return e.failf("repartition", "%v", err)
	}
	out, err := renderRepartition(result, where)
	if err != nil {
		return e.failf("repartition", "%v", err)
	}
	return writeOut(e, "repartition", out)
}

// readRepartitionCase decodes exactly one JSON value from r.
func readRepartitionCase(r io.Reader) (*rrCaseIn, error) {
	dec := json.NewDecoder(r)
	var c rrCaseIn
	if err := dec.Decode(&c); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errors.New("no input: expected one JSON case on stdin")
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			if te.Field == "" {
				return nil, fmt.Errorf("malformed JSON on stdin: the case must be an object, not %s", jsonValue(te.Value))
			}
			return nil, fmt.Errorf("malformed JSON on stdin: field %q must be %s, not %s", te.Field, jsonKind(te.Type.Kind()), jsonValue(te.Value))
		}
		return nil, fmt.Errorf("malformed JSON on stdin: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("malformed JSON on stdin: unexpected data after the case (want exactly one JSON value)")
	}
	switch {
	case c.OldParallelism == nil:
		return nil, errors.New(`missing field "old_parallelism"`)
	case c.NewParallelism == nil:
		return nil, errors.New(`missing field "new_parallelism"`)
	case c.Input == nil:
		return nil, errors.New(`missing field "input"`)
	}
	for _, f := range []struct {
		name string
		p    int
	}{{"old_parallelism", *c.OldParallelism}, {"new_parallelism", *c.NewParallelism}} {
		if err := model.CheckParallelismPreconditions(f.p); err != nil {
			return nil, fmt.Errorf("%s %d is out of bounds (want 1..%d)", f.name, f.p, model.UpperBoundMaxParallelism)
		}
	}
	if n := len(*c.Input); n != *c.OldParallelism {
		return nil, fmt.Errorf(`"input" has %d entries but old_parallelism is %d (want one list per old subtask, [] for a subtask without state)`, n, *c.OldParallelism)
	}
	return &c, nil
}

// jsonKind names what a Go kind accepts, in JSON words.
func jsonKind(k reflect.Kind) string {
	switch k {
	case reflect.Int:
		return "an integer"
	case reflect.String:
		return "a string"
	case reflect.Slice:
		return "an array"
	case reflect.Struct:
		return "an object"
	}
	return "a " + k.String()
}

// jsonValue names the JSON value json.UnmarshalTypeError reports ("string", "number 2.5").
func jsonValue(v string) string {
	switch {
	case v == "array" || v == "object":
		return "an " + v
	case strings.HasPrefix(v, "number "):
		return "the " + v
	}
	return "a " + v
}

// rrPos is an input handle's position: (old subtask, handle index).
type rrPos struct{ subtask, handle int }

// previous builds the model input: each handle gets its own stream, partitions are numbered
// 0..num_offsets-1. It returns where each stream came from.
func (c *rrCaseIn) previous() ([][]model.OperatorStateHandle, map[model.StreamHandle]rrPos, error) {
	in := *c.Input
	prev := make([][]model.OperatorStateHandle, len(in))
	where := make(map[model.StreamHandle]rrPos)
	modes := make(map[string]model.DistributionMode)
	total := 0
	for s, hs := range in {
		if hs == nil {
			return nil, nil, fmt.Errorf("input[%d] is null (an old subtask without state is [])", s)
		}
		prev[s] = make([]model.OperatorStateHandle, 0, len(*hs))
		for h, hd := range *hs {
			at := fmt.Sprintf("input[%d][%d]", s, h)
			switch {
			case hd == nil:
				return nil, nil, fmt.Errorf("%s is null", at)
			case hd.Handle == nil:
				return nil, nil, fmt.Errorf(`%s: missing field "handle"`, at)
			case *hd.Handle != h:
				return nil, nil, fmt.Errorf(`%s: "handle" is %d, want its index %d`, at, *hd.Handle, h)
			case hd.States == nil:
				return nil, nil, fmt.Errorf(`%s: missing field "states"`, at)
			}
			d := model.StreamHandle{Path: fmt.Sprintf("old-subtask-%d/handle-%d", s, h)}
			where[d] = rrPos{s, h}
			oh := model.OperatorStateHandle{Delegate: d, States: make([]model.NamedOperatorState, 0, len(*hd.States))}
			for k, st := range *hd.States {
				at := fmt.Sprintf("%s.states[%d]", at, k)
				switch {
				case st == nil:
					return nil, nil, fmt.Errorf("%s is null", at)
				case st.Name == nil:
					return nil, nil, fmt.Errorf(`%s: missing field "name"`, at)
				case st.Mode == nil:
					return nil, nil, fmt.Errorf(`%s: missing field "mode"`, at)
				case st.NumOffsets == nil:
					return nil, nil, fmt.Errorf(`%s: missing field "num_offsets"`, at)
				case *st.NumOffsets < 0:
					return nil, nil, fmt.Errorf(`%s: "num_offsets" is %d, want >= 0`, at, *st.NumOffsets)
				}
				m, err := model.ParseDistributionMode(*st.Mode)
				if err != nil {
					return nil, nil, fmt.Errorf("%s: %v", at, err)
				}
				if old, ok := modes[*st.Name]; ok && old != m {
					return nil, nil, fmt.Errorf("%s: state %q is %v here but %v elsewhere (Flink registers one mode per name)", at, *st.Name, m, old)
				}
				modes[*st.Name] = m
				n := *st.NumOffsets
				if total += n; total > repartitionMaxInputOffsets {
					return nil, nil, fmt.Errorf("too many partitions (more than %d in all)", repartitionMaxInputOffsets)
				}
				offsets := make([]int64, n)
				for i := range offsets {
					offsets[i] = int64(i)
				}
				oh.States = append(oh.States, model.NamedOperatorState{Name: *st.Name, Mode: m, Offsets: offsets})
			}
			prev[s] = append(prev[s], oh)
		}
	}
	if cost := repartitionOutputCost(prev, *c.NewParallelism); cost > repartitionMaxOutputCost {
		return nil, nil, fmt.Errorf("output too large: Flink would hand out about %d partitions and handle entries (UNION state goes to every new subtask; limit %d)",
			cost, repartitionMaxOutputCost)
	}
	return prev, where, nil
}

// repartitionOutputCost bounds what RoundRobinOperatorStateRepartitioner hands out for prev
// (SPEC §E.2, §E.3), in partitions plus repartitionEntryCost per (handle, state) entry:
//   - SPLIT_DISTRIBUTE: every partition once; a name is cut into at most (its entries +
//     newParallelism) pieces, and never into more pieces than it has partitions and
//     zero-partition entries;
//   - UNION: every entry to every new subtask;
//   - BROADCAST: new subtask i gets entry i mod (entries of the name).
//
// At unchanged parallelism each new subtask also keeps its old subtask's own handles, which
// adds at most the size of the input (bounded by repartitionMaxInputOffsets and the input's
// length).
func repartitionOutputCost(prev [][]model.OperatorStateHandle, newParallelism int) int {
	type name struct {
		partitions, entries, pieces int   // pieces: partitions, counting a zero-partition entry as 1
		costs                       []int // BROADCAST: the cost of each entry, in order
	}
	byName := [4]map[string]*name{} // indexed by mode
	var order [4][]*name            // first appearance; only sums are taken, but never range over a map
	for _, hs := range prev {
		for _, h := range hs {
			for _, st := range h.States {
				m := byName[st.Mode]
				if m == nil {
					m = make(map[string]*name)
					byName[st.Mode] = m
				}
				g := m[st.Name]
				if g == nil {
					g = &name{}
					m[st.Name] = g
					order[st.Mode] = append(order[st.Mode], g)
				}
				n := len(st.Offsets)
				g.partitions += n
				g.entries++
				g.pieces += max(n, 1)
				if st.Mode == model.Broadcast {
					g.costs = append(g.costs, repartitionEntryCost+n)
				}
			}
		}
	}
	cost := 0
	for _, g := range order[model.SplitDistribute] {
		cost += g.partitions + repartitionEntryCost*min(g.pieces, g.entries+newParallelism)
	}
	for _, g := range order[model.Union] {
		cost += newParallelism * (g.partitions + repartitionEntryCost*g.entries)
	}
	for _, g := range order[model.Broadcast] {
		all := 0
		for _, c := range g.costs {
			all += c
		}
		q, r := newParallelism/len(g.costs), newParallelism%len(g.costs)
		cost += q * all
		for _, c := range g.costs[:r] {
			cost += c
		}
	}
	return cost
}

// renderRepartition prints the result in the "output" schema of SPEC §L.1, one new subtask
// per line.
func renderRepartition(result [][]model.OperatorStateHandle, where map[model.StreamHandle]rrPos) ([]byte, error) {
	var out bytes.Buffer
	out.WriteString("{\"output\": [")
	for i, hs := range result {
		sub := make(map[string]*rrStateOut)
		for _, h := range hs {
			pos, ok := where[h.Delegate]
			if !ok {
				return nil, fmt.Errorf("internal error: new subtask %d received unknown stream %q", i, h.Delegate.Path)
			}
			for _, st := range h.States {
				o := sub[st.Name]
				if o == nil {
					o = &rrStateOut{Mode: st.Mode.String(), Pairs: [][2]int{}}
					sub[st.Name] = o
				}
				offsets := make([]int64, len(st.Offsets))
				copy(offsets, st.Offsets)
				o.Handles = append(o.Handles, rrHandleOut{OldSubtask: pos.subtask, Handle: pos.handle, Offsets: offsets})
			}
		}
		for _, o := range sub {
			slices.SortStableFunc(o.Handles, func(a, b rrHandleOut) int {
				if a.OldSubtask != b.OldSubtask {
					return a.OldSubtask - b.OldSubtask
				}
				return a.Handle - b.Handle
			})
			for _, h := range o.Handles {
				for _, off := range h.Offsets {
					o.Pairs = append(o.Pairs, [2]int{h.OldSubtask, int(off)})
				}
			}
		}
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
