package assigncase

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/model"
)

// A small valid case: one keyed vertex restored 1 → 1 from an operator-state handle.
const smallCase = `{"checkpoint_id": 3, "vertices": [{"name": "v", "operators": [{"id": "0000000000000000000000000000000a"}],
 "parallelism": 1, "max_parallelism_configured": false}],
 "operators": [{"operator_id": "0000000000000000000000000000000a", "parallelism": 1, "max_parallelism": 128,
  "subtasks": [{"managed_operator_state": [{"delegate": {"path": "file:///c/op-0", "size": 9},
   "states": [{"name": "b", "mode": "SPLIT_DISTRIBUTE", "offsets": [0]}, {"name": "a", "mode": "UNION", "offsets": [4]}]}]}]}]}`

func TestDecodeCaseErrors(t *testing.T) {
	if _, err := DecodeCase([]byte(smallCase)); err != nil {
		t.Fatalf("the small case: %v", err)
	}
	for _, tc := range []struct{ old, new, want string }{
		{`"checkpoint_id": 3`, `"checkpoint_id": 3, "checkpointid": 4`, `the object: unknown field "checkpointid"`},
		{`"checkpoint_id": 3`, `"checkpoint_id": 3, "checkpoint_id": 4`, `the object: field "checkpoint_id" given twice`},
		{`"checkpoint_id": 3, `, ``, `the object: missing field "checkpoint_id"`},
		{`"parallelism": 1, "max_parallelism_configured"`, `"parallelism": "1", "max_parallelism_configured"`, `vertices[0].parallelism: a string, want an integer`},
		{`"parallelism": 1, "max_parallelism_configured"`, `"parallelism": 1.5, "max_parallelism_configured"`, `vertices[0].parallelism: 1.5 is not an integer`},
		{`"parallelism": 1, "max_parallelism_configured"`, `"parallelism": 3000000000, "max_parallelism_configured"`, `vertices[0].parallelism: 3000000000 is out of range (a Java int)`},
		{`"max_parallelism_configured": false`, `"max_parallelism_configured": true`, `vertices[0]: max_parallelism_configured is true without max_parallelism`},
		{`{"id": "0000000000000000000000000000000a"}`, `{"id": "a"}`, `vertices[0].operators[0].id: "a" is not 32 hex digits`},
		{`"mode": "UNION"`, `"mode": "union"`, `operators[0].subtasks[0].managed_operator_state[0].states[1].mode: "union" is not one of`},
		{`"size": 9}`, `"size": 9, "relative": true}`, `operators[0].subtasks[0].managed_operator_state[0].delegate: relative_path goes with "relative": true`},
		{`"subtasks": [{"managed`, `"subtasks": [{"finished": true, "managed`, `operators[0].subtasks[0]: a finished subtask holds no state`},
		{`"managed_operator_state": [{"delegate": {"path": "file:///c/op-0", "size": 9},
   "states": [{"name": "b", "mode": "SPLIT_DISTRIBUTE", "offsets": [0]}, {"name": "a", "mode": "UNION", "offsets": [4]}]}]`,
			`"managed_keyed_state": [{"type": "KeyGroupsStateHandle", "delegate": {"path": "x", "size": 1}}]`,
			`operators[0].subtasks[0].managed_keyed_state[0]: a KeyGroupsStateHandle needs "key_groups"`},
		{`"managed_operator_state": [{"delegate": {"path": "file:///c/op-0", "size": 9},
   "states": [{"name": "b", "mode": "SPLIT_DISTRIBUTE", "offsets": [0]}, {"name": "a", "mode": "UNION", "offsets": [4]}]}]`,
			`"managed_keyed_state": [{"type": "KeyGroupsStateHandle", "key_groups": {"range": {"start": 0, "end": 0}, "offsets": [0]}, "delegate": {"path": "x", "size": 1}, "backend_id": "b"}]`,
			`operators[0].subtasks[0].managed_keyed_state[0]: a KeyGroupsStateHandle has no "backend_id"`},
		{`"max_parallelism_configured": false}]`, `"max_parallelism_configured": false, "inputs": [{"upstream": 0, "upstream_mapper": "ARBITRARY", "downstream_mapper": "RANGE"}]}]`,
			`vertices[0].inputs[0].upstream: 0 is not another vertex of the case`},
		{`[4]}]}]}]}]}`, `[4]}]}]}]}]`, `malformed JSON`},
		{`[4]}]}]}]}]}`, `[4]}]}]}]}]} {}`, `trailing data after the JSON object`},
	} {
		in := strings.Replace(smallCase, tc.old, tc.new, 1)
		if in == smallCase {
			t.Fatalf("%q is not in the small case", tc.old)
		}
		_, err := DecodeCase([]byte(in))
		if !errors.Is(err, ErrInvalidCase) || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s → %s: error %v, want one line with %q", tc.old, tc.new, err, tc.want)
		}
	}
}

func mustCase(t *testing.T, s string) *Case {
	t.Helper()
	c, err := DecodeCase([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// An operator-state handle's states go through the loader's HashMap: listed in its iteration
// order ("a" before "b"; "BB" and "Aa" share a bucket, so they keep the order written); a name
// written twice keeps its first place and its last value. At unchanged parallelism without UNION
// state Flink hands the handle on as it is.
func TestInputLoaderOrder(t *testing.T) {
	for _, tc := range []struct {
		states string
		want   []string
	}{
		{`{"name": "b", "mode": "SPLIT_DISTRIBUTE", "offsets": [0]}, {"name": "a", "mode": "SPLIT_DISTRIBUTE", "offsets": [4]}`, []string{"a:[4]", "b:[0]"}},
		{`{"name": "BB", "mode": "SPLIT_DISTRIBUTE", "offsets": [0]}, {"name": "Aa", "mode": "SPLIT_DISTRIBUTE", "offsets": [4]}`, []string{"BB:[0]", "Aa:[4]"}},
		{`{"name": "y", "mode": "SPLIT_DISTRIBUTE", "offsets": [0]}, {"name": "x", "mode": "SPLIT_DISTRIBUTE", "offsets": [4]}, {"name": "y", "mode": "SPLIT_DISTRIBUTE", "offsets": [5]}`, []string{"x:[4]", "y:[5]"}},
	} {
		s := strings.Replace(smallCase, `{"name": "b", "mode": "SPLIT_DISTRIBUTE", "offsets": [0]}, {"name": "a", "mode": "UNION", "offsets": [4]}`, tc.states, 1)
		a := modelAnswer(mustCase(t, s), model.Flink118)
		if a.Error != nil {
			t.Fatal(a.Error.Message)
		}
		var got []string
		for _, st := range a.Vertices[0].Subtasks[0].Operators[0].State.ManagedOperatorState[0].States {
			got = append(got, st.Name+":"+render(st.Offsets))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: states %v, want %v", tc.states, got, tc.want)
		}
	}
}

// The defaults of the format: Flink's default max parallelism (or a given value standing for
// it), a channel handle's subtask index and size, an edge's partition.
func TestInputDefaults(t *testing.T) {
	c := mustCase(t, `{"checkpoint_id": 1, "vertices": [
	 {"name": "up", "operators": [{"id": "0000000000000000000000000000000c"}], "parallelism": 200, "max_parallelism_configured": false},
	 {"name": "a", "operators": [{"id": "0000000000000000000000000000000d"}], "parallelism": 2, "max_parallelism": 256, "max_parallelism_configured": false,
	  "inputs": [{"upstream": 0, "upstream_mapper": "ARBITRARY", "downstream_mapper": "RANGE"}]},
	 {"name": "b", "operators": [{"id": "0000000000000000000000000000000e"}], "parallelism": 2, "max_parallelism": 64, "max_parallelism_configured": true,
	  "inputs": [{"upstream": 0, "upstream_mapper": "ARBITRARY", "downstream_mapper": "ROUND_ROBIN"}, {"upstream": 1, "partition": 0, "upstream_mapper": "ARBITRARY", "downstream_mapper": "FULL"}]},
	 {"name": "c", "operators": [{"id": "0000000000000000000000000000000f"}], "parallelism": 2, "max_parallelism_configured": false,
	  "inputs": [{"upstream": 0, "partition": 0, "upstream_mapper": "ARBITRARY", "downstream_mapper": "RANGE"}]}],
	 "operators": [{"operator_id": "0000000000000000000000000000000d", "parallelism": 2, "max_parallelism": 256, "subtasks": [null,
	  {"input_channel_state": [{"gate_or_partition": 0, "channel": 1, "offsets": [0], "delegate": {"path": "/c/in", "size": 40}},
	   {"subtask_index": 0, "gate_or_partition": 0, "channel": 0, "offsets": [], "state_size": 7, "delegate": {"path": "/c/in", "size": 40}}]}]}]}`)
	in, err := c.Input(model.Flink118)
	if err != nil {
		t.Fatal(err)
	}
	type maxPar struct {
		m          int
		configured bool
	}
	var gotMax []maxPar
	var gotPartitions []int
	for _, v := range in.Vertices {
		gotMax = append(gotMax, maxPar{v.MaxParallelism, v.MaxParallelismConfigured})
		for _, e := range v.Inputs {
			gotPartitions = append(gotPartitions, e.Partition)
		}
	}
	if want := []maxPar{{512, false}, {256, false}, {64, true}, {128, false}}; !slices.Equal(gotMax, want) {
		t.Errorf("max parallelisms %v, want %v", gotMax, want)
	}
	// "up" has data sets 0 (taken by c) and 1, 2 (the next free ones, for a and b).
	if want := []int{1, 2, 0, 0}; !slices.Equal(gotPartitions, want) {
		t.Errorf("partitions %v, want %v", gotPartitions, want)
	}
	hs := in.Operators[0].Subtasks[1].InputChannelState
	if len(in.Operators[0].Subtasks) != 2 || in.Operators[0].Subtasks[0] != nil || len(hs) != 2 {
		t.Fatalf("subtasks %+v", in.Operators[0].Subtasks)
	}
	if hs[0].SubtaskIndex != 1 || hs[0].StateSize != 40 || hs[1].SubtaskIndex != 0 || hs[1].StateSize != 7 {
		t.Errorf("channel handles %+v", hs)
	}
}

// Flink's constructors refuse some states ("input"), its job graph some vertices ("build"); the
// model refuses what it does not represent.
func TestInputRefusals(t *testing.T) {
	for _, tc := range []struct {
		name, old, new string
		v              model.FlinkVersion
		stage, kind    string
		class          string
	}{
		{"parallelism above max parallelism", `"parallelism": 1, "max_parallelism": 128`, `"parallelism": 1, "max_parallelism": 0`, model.Flink118,
			"input", KindInput, "java.lang.IllegalArgumentException"},
		{"more subtask entries than the parallelism", `"subtasks": [{"managed`, `"subtasks": [null, {"managed`, model.Flink118,
			"input", KindInput, "java.lang.IndexOutOfBoundsException"},
		{"a fully finished operator with subtask entries", `"max_parallelism": 128,`, `"max_parallelism": 128, "fully_finished": true,`, model.Flink118,
			"input", KindInput, "java.lang.UnsupportedOperationException"},
		{"recover_output_on_downstream_task before 2.3", `"checkpoint_id": 3,`, `"checkpoint_id": 3, "recover_output_on_downstream_task": false,`, model.Flink118,
			"input", KindInput, "java.lang.IllegalArgumentException"},
		{"recover_output_on_downstream_task off at 2.3", `"checkpoint_id": 3,`, `"checkpoint_id": 3, "recover_output_on_downstream_task": false,`, model.Flink23,
			"", "", ""},
		{"recover_output_on_downstream_task on at 2.3", `"checkpoint_id": 3,`, `"checkpoint_id": 3, "recover_output_on_downstream_task": true,`, model.Flink23,
			"input", KindNotModelled, ""},
		{"an operator state's name before 2.0", `"max_parallelism": 128,`, `"max_parallelism": 128, "name": "map",`, model.Flink118,
			"input", KindInput, "java.lang.IllegalArgumentException"},
		{"an operator state's name in 2.x", `"max_parallelism": 128,`, `"max_parallelism": 128, "name": "map",`, model.Flink23,
			"", "", ""},
		{"a relative handle", `"size": 9}`, `"size": 9, "relative": true, "relative_path": "op-0"}`, model.Flink118,
			"input", KindNotModelled, ""},
		{"a path Flink's Path refuses", `"file:///c/op-0"`, `"s3:bucket"`, model.Flink118,
			"input", KindInput, "java.lang.IllegalArgumentException"},
		{"parallelism above a configured max parallelism", `"parallelism": 1, "max_parallelism_configured": false`, `"parallelism": 8, "max_parallelism": 4, "max_parallelism_configured": true`, model.Flink118,
			"build", string(model.CheckVertexParallelism), "org.apache.flink.runtime.JobException"},
		{"max parallelism out of bounds", `"parallelism": 1, "max_parallelism_configured": false`, `"parallelism": 1, "max_parallelism": 40000, "max_parallelism_configured": false`, model.Flink118,
			"build", string(model.CheckVertexParallelism), "java.lang.IllegalArgumentException"},
	} {
		in := strings.Replace(smallCase, tc.old, tc.new, 1)
		if in == smallCase {
			t.Fatalf("%s: %q is not in the small case", tc.name, tc.old)
		}
		a := modelAnswer(mustCase(t, in), tc.v)
		switch {
		case tc.stage == "" && a.Error != nil:
			t.Errorf("%s: refused: %s", tc.name, a)
		case tc.stage == "":
		case a.Error == nil:
			t.Errorf("%s: not refused: %s", tc.name, a)
		case a.Error.Stage != tc.stage || *a.Error.Kind != tc.kind || a.Error.Class != tc.class:
			t.Errorf("%s: %s, want stage %s, kind %s, class %q", tc.name, a, tc.stage, tc.kind, tc.class)
		}
	}
}

// Two handles of one file with different sizes are one stream for Flink and two for the model.
func TestInputSamePathOtherSize(t *testing.T) {
	s := strings.Replace(smallCase, `"states": [{"name": "b"`, `"states": []}, {"delegate": {"path": "file:/c/op-0", "size": 10}, "states": [{"name": "b"`, 1)
	_, err := mustCase(t, s).Input(model.Flink118)
	if !errors.Is(err, ErrNotModelled) || !strings.Contains(err.Error(), "file:/c/op-0 with sizes 9 and 10") {
		t.Errorf("error %v", err)
	}
}
