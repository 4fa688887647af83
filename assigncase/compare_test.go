package assigncase

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/restoresim/restoresim/model"
)

// exampleAnswer is the model's answer to a worked example at 1.18.
func exampleAnswer(t *testing.T, name string, v model.FlinkVersion) Answer {
	t.Helper()
	data, err := os.ReadFile("testdata/" + name + ".case.json")
	if err != nil {
		t.Fatal(err)
	}
	c, err := DecodeCase(data)
	if err != nil {
		t.Fatal(err)
	}
	return modelAnswer(c, v)
}

// reread is a deep copy of a through its JSON line.
func reread(t *testing.T, a Answer) Answer {
	t.Helper()
	b, err := DecodeAnswer([]byte(a.String()))
	if err != nil {
		t.Fatalf("%v\n%s", err, a)
	}
	return *b
}

// Compare finds each change made to one side, at the field's path, and nothing else; the
// conventions of the format hide exactly what they should.
func TestCompareFindsEachChange(t *testing.T) {
	const (
		st0  = "vertices[0].subtasks[0].operators[0].state"
		opSt = st0 + ".managed_operator_state"
	)
	tests := []struct {
		name    string
		example string
		v       model.FlinkVersion
		change  func(m, f *Answer) // m is the model's side, f Flink's
		want    []string           // the paths, in order; none for a change the conventions hide
	}{
		{"two handles swapped", "ex2-opstate-split-union-3to2", model.Flink118, func(m, f *Answer) {
			hs := m.Vertices[0].Subtasks[0].Operators[0].State.ManagedOperatorState
			hs[0], hs[1] = hs[1], hs[0]
		}, []string{opSt + "[0].delegate.path", opSt + "[0].states[0].offsets", opSt + "[1].delegate.path", opSt + "[1].states[0].offsets"}},
		{"two states swapped", "ex2-opstate-split-union-3to2", model.Flink118, func(m, f *Answer) {
			s := f.Vertices[0].Subtasks[1].Operators[0].State.ManagedOperatorState[1].States
			s[0], s[1] = s[1], s[0]
		}, []string{"vertices[0].subtasks[1].operators[0].state.managed_operator_state[1].states[0].name", "vertices[0].subtasks[1].operators[0].state.managed_operator_state[1].states[0].mode",
			"vertices[0].subtasks[1].operators[0].state.managed_operator_state[1].states[0].offsets", "vertices[0].subtasks[1].operators[0].state.managed_operator_state[1].states[1].name",
			"vertices[0].subtasks[1].operators[0].state.managed_operator_state[1].states[1].mode", "vertices[0].subtasks[1].operators[0].state.managed_operator_state[1].states[1].offsets"}},
		{"a state dropped", "ex2-opstate-split-union-3to2", model.Flink118, func(m, f *Answer) {
			h := &m.Vertices[0].Subtasks[0].Operators[0].State.ManagedOperatorState[2]
			h.States = h.States[:0]
		}, []string{opSt + "[2].states"}},
		{"an offset changed", "ex1-keyed-scaleout-2to3", model.Flink118, func(m, f *Answer) {
			m.Vertices[0].Subtasks[2].Operators[0].State.ManagedKeyedState[0].KeyGroups.Offsets[3]++
		}, []string{"vertices[0].subtasks[2].operators[0].state.managed_keyed_state[0].key_groups.offsets"}},
		{"a handle missing", "ex1-keyed-scaleout-2to3", model.Flink118, func(m, f *Answer) {
			s := &m.Vertices[0].Subtasks[1].Operators[0].State
			s.ManagedKeyedState = s.ManagedKeyedState[:1]
		}, []string{"vertices[0].subtasks[1].operators[0].state.managed_keyed_state"}},
		{"a path as written, not as Path prints it", "ex1-keyed-scaleout-2to3", model.Flink118, func(m, f *Answer) {
			m.Vertices[0].Subtasks[0].Operators[0].State.ManagedKeyedState[0].Delegate.Path = "file:///ckpt/chk-5/./a-0/"
		}, nil},
		{"another path", "ex1-keyed-scaleout-2to3", model.Flink118, func(m, f *Answer) {
			m.Vertices[0].Subtasks[0].Operators[0].State.ManagedKeyedState[0].Delegate.Path = "file:/ckpt/chk-5/a-9"
		}, []string{st0 + ".managed_keyed_state[0].delegate.path"}},
		{"a state-handle id the case did not give", "ex1-keyed-scaleout-2to3", model.Flink118, func(m, f *Answer) {
			m.Vertices[0].Subtasks[0].Operators[0].State.ManagedKeyedState[0].StateHandleID = nil
			id := "f1e2d3"
			f.Vertices[0].Subtasks[0].Operators[0].State.ManagedKeyedState[0].StateHandleID = &id
		}, nil},
		{"a state-handle id the case gave", "ex1b-incremental-scaleout-2to3", model.Flink118, func(m, f *Answer) {
			id := "other"
			f.Vertices[0].Subtasks[1].Operators[0].State.ManagedKeyedState[1].StateHandleID = &id
		}, []string{"vertices[0].subtasks[1].operators[0].state.managed_keyed_state[1].state_handle_id"}},
		{"an incremental handle's shared file", "ex1b-incremental-scaleout-2to3", model.Flink118, func(m, f *Answer) {
			(*m.Vertices[0].Subtasks[1].Operators[0].State.ManagedKeyedState[0].Shared)[0].LocalPath = "000009.sst"
		}, []string{"vertices[0].subtasks[1].operators[0].state.managed_keyed_state[0].shared[0].local_path"}},
		{"a subtask without restore object", "ex3e-maxpar-adopted", model.Flink118, func(m, f *Answer) {
			f.Vertices[0].Subtasks[1] = nil
		}, []string{"vertices[0].subtasks[1]"}},
		{"the adopted max parallelism", "ex3e-maxpar-adopted", model.Flink118, func(m, f *Answer) {
			m.Vertices[0].MaxParallelism = 256
		}, []string{"vertices[0].max_parallelism"}},
		{"a descriptor's mappings", "ex4-channel-state-rescale", model.Flink118, func(m, f *Answer) {
			g := &m.Vertices[0].Subtasks[1].Operators[0].State.OutputRescalingDescriptor.GatesOrPartitions[0]
			g.RescaledChannelsMappings.Mappings[1] = []int{1}
		}, []string{"vertices[0].subtasks[1].operators[0].state.output_rescaling_descriptor.gates_or_partitions[0].rescaled_channels_mappings.mappings"}},
		{"a descriptor missing", "ex4-channel-state-rescale", model.Flink118, func(m, f *Answer) {
			f.Vertices[1].Subtasks[0].Operators[0].State.InputRescalingDescriptor = nil
		}, []string{"vertices[1].subtasks[0].operators[0].state.input_rescaling_descriptor"}},
		{"a channel handle's channel", "ex4-channel-state-rescale", model.Flink118, func(m, f *Answer) {
			f.Vertices[1].Subtasks[1].Operators[0].State.InputChannelState[3].Channel = 7
		}, []string{"vertices[1].subtasks[1].operators[0].state.input_channel_state[3].channel"}},
		{"upstream output buffers where only one side has the field, empty", "ex4-channel-state-rescale", model.Flink23, func(m, f *Answer) {
			m.Vertices[1].Subtasks[0].Operators[0].State.UpstreamOutputBufferState = nil
		}, nil},
		{"upstream output buffers where only one side has the field", "ex4-channel-state-rescale", model.Flink23, func(m, f *Answer) {
			m.Vertices[1].Subtasks[0].Operators[0].State.UpstreamOutputBufferState = nil
			f.Vertices[1].Subtasks[0].Operators[0].State.UpstreamOutputBufferState = &[]ChannelHandle{f.Vertices[1].Subtasks[0].Operators[0].State.InputChannelState[0]}
		}, []string{"vertices[1].subtasks[0].operators[0].state.upstream_output_buffer_state"}},
		{"a refusal's class and stage", "ex3b-refusal-missing-operator", model.Flink118, func(m, f *Answer) {
			f.Error.Class, f.Error.Stage = "java.lang.IllegalArgumentException", "input"
		}, []string{"error.stage", "error.class"}},
		{"a refusal's message and top frame", "ex3b-refusal-missing-operator", model.Flink118, func(m, f *Answer) {
			at := "org.apache.flink.runtime.checkpoint.StateAssignmentOperation.checkStateMappingCompleteness"
			f.Error.Message, f.Error.At, f.Error.Kind, f.Error.Operators = "There is no operator for the state x", &at, nil, nil
		}, nil},
		{"a refusal's operators, both given", "ex3b-refusal-missing-operator", model.Flink118, func(m, f *Answer) {
			(*f.Error.Operators)[0] = "0000000000000000000000000000000d"
		}, []string{"error.operators"}},
		{"a refusal against an answer", "ex3c-missing-operator-allowed", model.Flink118, func(m, f *Answer) {
			*m = exampleAnswer(t, "ex3b-refusal-missing-operator", model.Flink118)
		}, []string{"error"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			orig := exampleAnswer(t, tc.example, tc.v)
			m, f := reread(t, orig), reread(t, orig)
			if d := Compare(m, f); len(d) > 0 {
				t.Fatalf("an answer differs from itself: %v", d)
			}
			tc.change(&m, &f)
			var got []string
			for _, d := range Compare(m, f) {
				got = append(got, d.Path)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("differences at %q, want %q", got, tc.want)
			}
		})
	}
}

// A difference names its path and both values as JSON.
func TestDifferenceText(t *testing.T) {
	m := exampleAnswer(t, "ex1-keyed-scaleout-2to3", model.Flink118)
	f := reread(t, m)
	f.Vertices[0].Parallelism = 4
	f.Vertices[0].Name = `a "quoted" <name>`
	var lines []string
	for _, d := range Compare(m, f) {
		lines = append(lines, d.String())
	}
	want := []string{`vertices[0].name: model "keyed-map", flink "a \"quoted\" <name>"`, "vertices[0].parallelism: model 3, flink 4"}
	if !slices.Equal(lines, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// An answer line reads back to the same line; a line with both or neither of "vertices" and
// "error" is no answer.
func TestAnswerRoundTrip(t *testing.T) {
	for _, name := range []string{"ex1b-incremental-scaleout-2to3", "ex2-opstate-split-union-3to2", "ex3f-refusal-build-parallelism-above-configured-max", "ex4-channel-state-rescale"} {
		for _, b := range exampleBranches {
			a := exampleAnswer(t, name, b.v)
			if got := reread(t, a).String(); got != a.String() {
				t.Errorf("%s %s: read back as\n%s\nnot\n%s", name, b.branch, got, a)
			}
		}
	}
	for _, bad := range []string{`{}`, `{"vertices": [], "error": {"stage": "input", "class": "x", "message": "m"}}`, `{"vertices": [{"name": "v"}]}`} {
		if _, err := DecodeAnswer([]byte(bad)); err == nil {
			t.Errorf("%s: read as an answer", bad)
		}
	}
}
