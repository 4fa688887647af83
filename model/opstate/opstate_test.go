package opstate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/restoresim/restoresim/model"
)

// goldenRoundRobin is model/testdata/flink/roundrobin.json (SPEC §L.1), cases kept raw so that
// each is decoded as a client would send it.
func goldenRoundRobin(t *testing.T) []json.RawMessage {
	t.Helper()
	data, err := os.ReadFile("../testdata/flink/roundrobin.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []json.RawMessage `json:"cases"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Cases) == 0 {
		t.Fatal("no cases")
	}
	return f.Cases
}

// Every golden case, decoded whole (id and the expected outputs are extra fields Decode
// ignores) and run, gives Flink's output for both versions.
func TestRunGolden(t *testing.T) {
	for _, raw := range goldenRoundRobin(t) {
		var g struct {
			ID          int                    `json:"id"`
			Output      []map[string]*Received `json:"output"`
			Differs1101 bool                   `json:"differs_in_1_10_1"`
			Output1101  []map[string]*Received `json:"output_1_10_1"`
		}
		if err := json.Unmarshal(raw, &g); err != nil {
			t.Fatal(err)
		}
		c, err := Decode(bytes.NewReader(raw), "golden")
		if err != nil {
			t.Fatalf("case %d: %v", g.ID, err)
		}
		for _, v := range []model.FlinkVersion{model.Flink118, model.Flink1101} {
			want := g.Output
			if v == model.Flink1101 && g.Differs1101 {
				want = g.Output1101
			}
			got, err := c.Run(v)
			if err != nil {
				t.Fatalf("case %d %v: %v", g.ID, v, err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("case %d %v (-want +got):\n%s", g.ID, v, diff)
			}
		}
	}
}

// Decode and Previous name the field and the source in every refusal.
func TestDecodeErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "no input: expected one JSON case on stdin"},
		{"[1]", "malformed JSON on stdin: the case must be an object, not an array"},
		{`{"old_parallelism": 2.5}`, `malformed JSON on stdin: field "old_parallelism" must be an integer, not the number 2.5`},
		{`{} {}`, "malformed JSON on stdin: unexpected data after the case (want exactly one JSON value)"},
		{`{"new_parallelism": 1, "input": []}`, `missing field "old_parallelism"`},
		{`{"old_parallelism": 0, "new_parallelism": 1, "input": []}`, "old_parallelism 0 is out of bounds (want 1..32768)"},
		{`{"old_parallelism": 2, "new_parallelism": 1, "input": [[]]}`, `"input" has 1 entries but old_parallelism is 2 (want one list per old subtask, [] for a subtask without state)`},
		{`{"old_parallelism": 1, "new_parallelism": 1, "input": [[{"handle": 1, "states": []}]]}`, `input[0][0]: "handle" is 1, want its index 0`},
		{`{"old_parallelism": 1, "new_parallelism": 1, "input": [[{"handle": 0, "states": [{"name": "a", "mode": "UNION"}]}]]}`, `input[0][0].states[0]: missing field "num_offsets"`},
		{`{"old_parallelism": 2, "new_parallelism": 1, "input": [[{"handle": 0, "states": [{"name": "a", "mode": "UNION", "num_offsets": 1}]}],
		  [{"handle": 0, "states": [{"name": "a", "mode": "BROADCAST", "num_offsets": 1}]}]]}`,
			`input[1][0].states[0]: state "a" is BROADCAST here but UNION elsewhere (Flink registers one mode per name)`},
	} {
		c, err := Decode(strings.NewReader(tc.in), "stdin")
		if err == nil {
			_, _, err = c.Previous()
		}
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: got error %v, want %s", tc.in, err, tc.want)
		}
	}
}

// OutputCost bounds what the model builds (checked on every golden case, both
// versions, and on cases where a name is cut into many pieces), and is exact for BROADCAST
// state after a rescale.
func TestOutputCost(t *testing.T) {
	actual := func(result [][]model.OperatorStateHandle) int {
		n := 0
		for _, hs := range result {
			for _, h := range hs {
				for _, st := range h.States {
					n += EntryCost + len(st.Offsets)
				}
			}
		}
		return n
	}
	var inputs []*Case
	for _, raw := range goldenRoundRobin(t) {
		c, err := Decode(bytes.NewReader(raw), "golden")
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, c)
	}
	for _, in := range []string{
		// One split entry with many partitions cut for many subtasks, and zero-partition entries.
		`{"old_parallelism": 2, "new_parallelism": 7, "input": [[{"handle": 0, "states": [{"name": "s", "mode": "SPLIT_DISTRIBUTE", "num_offsets": 20}]}],
		 [{"handle": 0, "states": [{"name": "s", "mode": "SPLIT_DISTRIBUTE", "num_offsets": 0}, {"name": "u", "mode": "UNION", "num_offsets": 0}]}]]}`,
		// Unchanged parallelism, partly reported broadcast state and union state (SPEC §E.2).
		`{"old_parallelism": 3, "new_parallelism": 3, "input": [[{"handle": 0, "states": [{"name": "b", "mode": "BROADCAST", "num_offsets": 5}]}], [],
		 [{"handle": 0, "states": [{"name": "u", "mode": "UNION", "num_offsets": 2}, {"name": "s", "mode": "SPLIT_DISTRIBUTE", "num_offsets": 3}]}]]}`,
	} {
		c, err := Decode(strings.NewReader(in), "test")
		if err != nil {
			t.Fatal(err)
		}
		inputs = append(inputs, c)
	}
	for i, c := range inputs {
		prev, _, err := c.Previous()
		if err != nil {
			t.Fatal(err)
		}
		inputSize := 0
		for _, hs := range prev {
			for _, h := range hs {
				for _, st := range h.States {
					inputSize += EntryCost + len(st.Offsets)
				}
			}
		}
		bound := OutputCost(prev, *c.NewParallelism)
		if len(prev) == *c.NewParallelism {
			bound += inputSize // each new subtask also keeps its old subtask's handles
		}
		for _, v := range []model.FlinkVersion{model.Flink118, model.Flink1101} {
			result, err := model.RepartitionOperatorState(v, prev, *c.NewParallelism)
			if err != nil {
				t.Fatal(err)
			}
			if got := actual(result); got > bound {
				t.Errorf("input %d %v %d → %d: output costs %d, over the bound %d", i, v, len(prev), *c.NewParallelism, got, bound)
			}
		}
	}
	// Exact for broadcast after a rescale: 5 → 7 gives old subtasks 0 and 1 two readers each.
	prev := make([][]model.OperatorStateHandle, 5)
	for s := range prev {
		prev[s] = []model.OperatorStateHandle{{Delegate: model.StreamHandle{Path: fmt.Sprint(s)},
			States: []model.NamedOperatorState{{Name: "b", Mode: model.Broadcast, Offsets: make([]int64, s)}}}}
	}
	want := 7*EntryCost + (0 + 1 + 2 + 3 + 4) + (0 + 1)
	if got := OutputCost(prev, 7); got != want {
		t.Errorf("broadcast 5 → 7: cost %d, want %d", got, want)
	}
}
