// Package opstate is the JSON form of an operator-state repartitioning case (SPEC §L.1, the
// cases of model/testdata/flink/roundrobin.json): the old subtasks' operator-state handles as
// named states with a distribution mode and a number of partitions, and, per new subtask, what
// Flink's RoundRobinOperatorStateRepartitioner (model.RepartitionOperatorState) hands it.
//
// Decode reads and checks one case; Case.Previous turns it into the model's input, each handle
// its own stream with partitions numbered 0..num_offsets-1, bounded so that a typo cannot ask
// for gigabytes of output (OutputCost); Output groups the model's result per new subtask and
// state name, as the "output" of a golden case. 'simulate repartition' is this package on stdin.
package opstate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	"github.com/restoresim/restoresim/model"
)

// Limits that keep a typo from allocating gigabytes; Flink itself caps parallelism at 32768.
// The output is measured by OutputCost: a partition costs 1, a (handle, state) entry handed to
// a new subtask costs EntryCost (an entry costs memory and output even with no partition: a
// UNION state reported with "num_offsets": 0 by each of 32768 old subtasks hands 32768²
// entries to the new subtasks).
const (
	MaxInputOffsets = 1 << 22
	MaxOutputCost   = 1 << 24
	EntryCost       = 8
)

// Case is one case (SPEC §L.1 "old_parallelism", "new_parallelism", "input"); other fields,
// such as a golden case's id or output, are ignored. Pointers tell a missing field from a zero
// one.
type Case struct {
	OldParallelism *int          `json:"old_parallelism"`
	NewParallelism *int          `json:"new_parallelism"`
	Input          *[]*[]*Handle `json:"input"` // one list per old subtask
}

// Handle is one operator-state handle of an old subtask; Handle is its index in the list.
type Handle struct {
	Handle *int      `json:"handle"`
	States *[]*State `json:"states"`
}

// State is one named state of a handle: its mode (SPLIT_DISTRIBUTE, UNION or BROADCAST) and
// its number of partitions.
type State struct {
	Name       *string `json:"name"`
	Mode       *string `json:"mode"`
	NumOffsets *int    `json:"num_offsets"`
}

// Received is what one new subtask receives for one state name (SPEC §L.1 "output"): every
// (old subtask, partition) pair, and the handles it came in.
type Received struct {
	Mode    string           `json:"mode"`
	Pairs   [][2]int         `json:"pairs"`
	Handles []ReceivedHandle `json:"handles"`
}

// ReceivedHandle is one old handle a new subtask receives for a state, with the partitions of
// that state it carries (none is possible).
type ReceivedHandle struct {
	OldSubtask int     `json:"old_subtask"`
	Handle     int     `json:"handle"`
	Offsets    []int64 `json:"offsets"`
}

// Position is where an input handle came from: (old subtask, handle index).
type Position struct{ Subtask, Handle int }

// Decode reads exactly one JSON case from r and checks its top-level fields: present, both
// parallelisms in 1..32768, one input list per old subtask. source names r in messages
// ("malformed JSON on stdin: …").
func Decode(r io.Reader, source string) (*Case, error) {
	dec := json.NewDecoder(r)
	var c Case
	if err := dec.Decode(&c); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("no input: expected one JSON case on %s", source)
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			if te.Field == "" {
				return nil, fmt.Errorf("malformed JSON on %s: the case must be an object, not %s", source, jsonValue(te.Value))
			}
			return nil, fmt.Errorf("malformed JSON on %s: field %q must be %s, not %s", source, te.Field, jsonKind(te.Type.Kind()), jsonValue(te.Value))
		}
		return nil, fmt.Errorf("malformed JSON on %s: %v", source, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("malformed JSON on %s: unexpected data after the case (want exactly one JSON value)", source)
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

// Previous builds the model input of a decoded case: each handle gets its own stream,
// partitions are numbered 0..num_offsets-1. It returns where each stream came from. It refuses
// null entries, missing fields, a handle whose "handle" is not its index, an unknown mode, one
// name with two modes, more than MaxInputOffsets partitions, and an input whose output would
// cost more than MaxOutputCost.
func (c *Case) Previous() ([][]model.OperatorStateHandle, map[model.StreamHandle]Position, error) {
	in := *c.Input
	prev := make([][]model.OperatorStateHandle, len(in))
	where := make(map[model.StreamHandle]Position)
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
			where[d] = Position{s, h}
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
				if total += n; total > MaxInputOffsets {
					return nil, nil, fmt.Errorf("too many partitions (more than %d in all)", MaxInputOffsets)
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
	if cost := OutputCost(prev, *c.NewParallelism); cost > MaxOutputCost {
		return nil, nil, fmt.Errorf("output too large: Flink would hand out about %d partitions and handle entries (UNION state goes to every new subtask; limit %d)",
			cost, MaxOutputCost)
	}
	return prev, where, nil
}

// OutputCost bounds what RoundRobinOperatorStateRepartitioner hands out for prev
// (SPEC §E.2, §E.3), in partitions plus EntryCost per (handle, state) entry:
//   - SPLIT_DISTRIBUTE: every partition once; a name is cut into at most (its entries +
//     newParallelism) pieces, and never into more pieces than it has partitions and
//     zero-partition entries;
//   - UNION: every entry to every new subtask;
//   - BROADCAST: new subtask i gets entry i mod (entries of the name).
//
// At unchanged parallelism each new subtask also keeps its old subtask's own handles, which
// adds at most the size of the input (bounded by MaxInputOffsets and the input's length).
func OutputCost(prev [][]model.OperatorStateHandle, newParallelism int) int {
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
					g.costs = append(g.costs, EntryCost+n)
				}
			}
		}
	}
	cost := 0
	for _, g := range order[model.SplitDistribute] {
		cost += g.partitions + EntryCost*min(g.pieces, g.entries+newParallelism)
	}
	for _, g := range order[model.Union] {
		cost += newParallelism * (g.partitions + EntryCost*g.entries)
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

// Output groups the model's result per new subtask and state name, in the "output" schema of
// SPEC §L.1: each state's handles sorted by (old subtask, handle) and its pairs in that order.
// where is Previous's map from stream to position; a stream not in it is an internal error.
func Output(result [][]model.OperatorStateHandle, where map[model.StreamHandle]Position) ([]map[string]*Received, error) {
	out := make([]map[string]*Received, len(result))
	for i, hs := range result {
		sub := make(map[string]*Received)
		for _, h := range hs {
			pos, ok := where[h.Delegate]
			if !ok {
				return nil, fmt.Errorf("internal error: new subtask %d received unknown stream %q", i, h.Delegate.Path)
			}
			for _, st := range h.States {
				o := sub[st.Name]
				if o == nil {
					o = &Received{Mode: st.Mode.String(), Pairs: [][2]int{}}
					sub[st.Name] = o
				}
				offsets := make([]int64, len(st.Offsets))
				copy(offsets, st.Offsets)
				o.Handles = append(o.Handles, ReceivedHandle{OldSubtask: pos.Subtask, Handle: pos.Handle, Offsets: offsets})
			}
		}
		for _, o := range sub {
			slices.SortStableFunc(o.Handles, func(a, b ReceivedHandle) int {
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
		out[i] = sub
	}
	return out, nil
}

// Run is Previous, model.RepartitionOperatorState for Flink version v, then Output: what every
// new subtask receives.
func (c *Case) Run(v model.FlinkVersion) ([]map[string]*Received, error) {
	prev, where, err := c.Previous()
	if err != nil {
		return nil, err
	}
	result, err := model.RepartitionOperatorState(v, prev, *c.NewParallelism)
	if err != nil {
		return nil, err
	}
	return Output(result, where)
}
