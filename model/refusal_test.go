package model

import (
	"errors"
	"strings"
	"testing"
)

// Every refusal path of LoadAndValidateCheckpoint, AssignStates, KeyedStateHandlesForSubtask and
// CheckJobVertex gives a *RefusalError (errors.As) that names its check (one of Checks) and its
// operator, wraps the check's own typed error and sentinel, and keeps that error's message
// unchanged.
func TestRefusalsAreTyped(t *testing.T) {
	a, b := saID(1), saID(2)
	withState := func(id OperatorID, p, maxPar int) OperatorState { return saOperatorState(id, p, maxPar, true) }
	load := func(v FlinkVersion, allow bool, vx []JobVertex, ops ...OperatorState) func() error {
		return func() error {
			_, err := LoadAndValidateCheckpoint(LoadInput{Version: v, Metadata: CheckpointMetadata{CheckpointID: 3, Operators: ops},
				Vertices: vx, AllowNonRestoredState: allow})
			return err
		}
	}
	assign := func(v FlinkVersion, vx []JobVertex, ops ...OperatorState) func() error {
		return func() error {
			_, err := AssignStates(AssignmentInput{Version: v, CheckpointID: 3, Vertices: vx, Operators: ops})
			return err
		}
	}
	coordinator := OperatorState{OperatorID: b, Parallelism: 1, MaxParallelism: 128, CoordinatorState: &StreamHandle{Path: "c", Size: 1}}
	finished := OperatorState{OperatorID: a, Parallelism: 2, MaxParallelism: 128, FullyFinished: true}
	ch := []ChannelStateHandle{{SubtaskIndex: 0, Delegate: StreamHandle{Path: "ch", Size: 1}, Offsets: []int64{0}}}
	inputChannels := func(id OperatorID) OperatorState {
		os := saOperatorState(id, 2, 128, false)
		for _, st := range os.Subtasks {
			st.InputChannelState = ch
		}
		return os
	}
	badMode := saOperatorState(a, 2, 128, false)
	badMode.Subtasks[0].ManagedOperatorState[0].States[0].Mode = 9
	var typed struct {
		noOp      *NoOperatorForStateError
		nonRest   *NonRestoredStateError
		mismatch  *MaxParallelismMismatchError
		below     *MaxParallelismBelowNewParallelismError
		change    *MaxParallelismChangeNotSupportedError
		bounds    *MaxParallelismOutOfBoundsError
		mixed     *MixedFinishedOperatorsError
		null      *NullKeyedStateHandlesError
		malform   *MalformedOperatorStateHandleError
		parBound  *ParallelismOutOfBoundsError
		pointwise *UnsupportedRescaleError
		above     *VertexParallelismAboveMaxError
		vxBounds  *VertexParallelismOutOfBoundsError
	}
	edged := func(name string, p int, id OperatorID, edges ...JobEdge) JobVertex {
		v := saVertex(name, p, 128, false, id)
		v.Inputs = edges
		return v
	}
	tests := []struct {
		name      string
		run       func() error
		check     Check
		operator  *OperatorID // nil: none
		vertex    string
		typedErr  any // a pointer to a typed-error variable errors.As must fill (nil: none)
		inMessage string
	}{
		{"non-restored state", load(Flink118, false, []JobVertex{saVertex("v", 2, 128, false, a)}, withState(a, 2, 128), withState(b, 2, 128)),
			CheckNonRestoredState, &b, "", &typed.nonRest, "Cannot map checkpoint/savepoint state for operator"},
		{"non-restored coordinator state", load(Flink118, false, []JobVertex{saVertex("v", 2, 128, false, a)}, withState(a, 2, 128), coordinator),
			CheckNonRestoredState, &b, "", &typed.nonRest, "--allowNonRestoredState"},
		{"max parallelism mismatch", load(Flink118, false, []JobVertex{saVertex("v", 2, 256, true, a)}, withState(a, 2, 128)),
			CheckMaxParallelismMismatch, &a, "v", &typed.mismatch, "Max parallelism mismatch"},
		{"max parallelism mismatch (1.10.1)", load(Flink1101, false, []JobVertex{saVertex("v", 2, 256, true, a)}, withState(a, 2, 128)),
			CheckMaxParallelismMismatch, &a, "v", &typed.mismatch, "Max parallelism mismatch"},
		{"max parallelism out of bounds (load)", load(Flink118, false, []JobVertex{saVertex("v", 2, 128, true, a)}, saOperatorState(a, 2, 40000, false)),
			CheckMaxParallelismOutOfBounds, &a, "v", &typed.bounds, "found: 40000"},
		{"no operator for state", assign(Flink118, []JobVertex{saVertex("v", 2, 128, false, a)}, withState(a, 2, 128), withState(b, 2, 128)),
			CheckNoOperatorForState, &b, "", &typed.noOp, "There is no operator for the state"},
		{"max parallelism below parallelism", assign(Flink118, []JobVertex{saVertex("v", 5, 128, false, a)}, withState(a, 2, 4)),
			CheckMaxParallelismBelowParallelism, &a, "v", &typed.below, "lower than the configured parallelism (5)"},
		{"max parallelism below parallelism (1.10.1)", assign(Flink1101, []JobVertex{saVertex("v", 5, 128, false, a)}, withState(a, 2, 4)),
			CheckMaxParallelismBelowParallelism, &a, "v", &typed.below, "lower than the configured parallelism (5)"},
		{"max parallelism change", assign(Flink118, []JobVertex{saVertex("v", 3, 128, true, a)}, withState(a, 2, 256)),
			CheckMaxParallelismChange, &a, "v", &typed.change, "This is currently not supported."},
		{"max parallelism out of bounds (assign)", assign(Flink118, []JobVertex{saVertex("v", 2, 128, true, a)}, saOperatorState(a, 2, 40000, false)),
			CheckMaxParallelismOutOfBounds, &a, "v", &typed.bounds, "found: 40000"},
		{"mixed finished operators", assign(Flink118, []JobVertex{saVertex("v", 2, 128, false, a, b)}, finished, withState(b, 2, 128)),
			CheckMixedFinishedOperators, &a, "v", &typed.mixed, "mixed finished and unfinished operators (vertex v)"},
		{"null keyed state handles (1.10.1)", assign(Flink1101, []JobVertex{saVertex("v", 3, 128, false, a, b)}, withState(a, 2, 128), OperatorState{OperatorID: b, Parallelism: 2, MaxParallelism: 128}),
			CheckNullKeyedStateHandles, &b, "v", &typed.null, "NullPointerException"},
		{"null keyed state handles (reference cut)", func() error {
			os := OperatorState{OperatorID: b, Parallelism: 2, MaxParallelism: 128, Subtasks: []*OperatorSubtaskState{nil, nil}}
			_, _, err := KeyedStateHandlesForSubtask(Flink1101, &os, []KeyGroupRange{kr(0, 42), kr(43, 85), kr(86, 127)}, 0)
			return err
		}, CheckNullKeyedStateHandles, &b, "", &typed.null, "NullPointerException"},
		{"max parallelism agreement (master, FLINK-40113)", assign(FlinkMaster, []JobVertex{saVertex("v", 2, 128, false, a, b)}, withState(a, 2, 512)),
			CheckMaxParallelismAgreement, &a, "v", nil, "recorded different maximum parallelism in the checkpoint"},
		{"channel state topology change", assign(Flink118, []JobVertex{saVertex("v", 2, 128, false, b, a)}, inputChannels(a), inputChannels(b)),
			CheckChannelStateTopologyChange, &b, "v", nil, "the following operators contain channel state: [" + b.String() + "]"},
		{"pointwise in-flight data rescaled", assign(Flink118, []JobVertex{saVertex("up", 2, 128, false, a), edged("down", 3, b, EdgeFor(ForwardPartitioner, 0, 0))},
			inputChannels(b)), CheckChannelStateUnsupportedRescale, &b, "down", &typed.pointwise, "Cannot rescale the given pointwise partitioner"},
		{"repartitioning fails", assign(Flink118, []JobVertex{saVertex("v", 3, 128, false, a)}, badMode),
			CheckRestore, &a, "v", &typed.malform, "vertex v, operator " + a.String() + ", managed operator state"},
		{"vertex parallelism above its max parallelism", func() error { return CheckJobVertex(Flink118, saVertex("v", 8, 4, true, a)) },
			CheckVertexParallelism, nil, "v", &typed.above, "Vertex v's parallelism (8) is higher than the max parallelism (4)."},
		{"vertex max parallelism out of bounds", func() error { return CheckJobVertex(Flink118, saVertex("v", 8, 40000, true, a)) },
			CheckVertexParallelism, nil, "v", &typed.vxBounds, "Setting max parallelism is not in valid bounds (1..32768), found: 40000"},
		{"key-group partition fails (1.10.1 adopts an out-of-bounds max parallelism)", assign(Flink1101, []JobVertex{saVertex("v", 2, 128, false, a)}, saOperatorState(a, 2, 40000, false)),
			CheckRestore, nil, "v", &typed.parBound, "vertex v: key-group partitions"},
	}
	seen := map[Check]bool{}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run()
			var rf *RefusalError
			if !errors.As(err, &rf) {
				t.Fatalf("error %v (%T), want a *RefusalError", err, err)
			}
			seen[rf.Check] = true
			if rf.Check != tc.check || rf.Vertex != tc.vertex {
				t.Errorf("check %q vertex %q, want %q %q", rf.Check, rf.Vertex, tc.check, tc.vertex)
			}
			switch {
			case tc.operator == nil && rf.HasOperator:
				t.Errorf("names operator %v, want none", rf.OperatorID)
			case tc.operator != nil && (!rf.HasOperator || rf.OperatorID != *tc.operator):
				t.Errorf("operator %v (has %v), want %v", rf.OperatorID, rf.HasOperator, *tc.operator)
			}
			if rf.Error() != rf.Err.Error() || err.Error() != rf.Err.Error() || !strings.Contains(err.Error(), tc.inMessage) {
				t.Errorf("message %q (wrapped %q), want the wrapped error's, containing %q", err, rf.Err, tc.inMessage)
			}
			if s := tc.check.Sentinel(); s != nil && !errors.Is(err, s) {
				t.Errorf("error does not match its check's sentinel %v", s)
			}
			if tc.typedErr != nil && !errors.As(err, tc.typedErr) {
				t.Errorf("error does not reach its typed error %T", tc.typedErr)
			}
		})
	}
	for _, c := range Checks() {
		if c != CheckMetadataVersion && c != CheckRawKeyedWithoutManaged && !seen[c] {
			t.Errorf("check %q has no refusal path in this test", c)
		}
	}
}

// The raw-without-managed consistency check (unreachable through AssignStates, see
// TestRawKeyedStateWithoutManagedCheck) is typed too.
func TestRawKeyedWithoutManagedRefusalIsTyped(t *testing.T) {
	op := saID(1)
	v := saVertex("v", 1, 128, false, op)
	w := &vertexWork{v: &v, out: &VertexAssignment{Subtasks: make([]*TaskRestore, 1)}, states: []*OperatorState{{OperatorID: op}},
		managedOp: [][][]OperatorStateHandle{{nil}}, rawOp: [][][]OperatorStateHandle{{nil}},
		managedKeyed: [][][]KeyedStateHandle{{nil}}, rawKeyed: [][][]KeyedStateHandle{{nil}},
		managedSet: []bool{false}, rawSet: []bool{true}}
	var rf *RefusalError
	if err := w.assign(Flink118, 1); !errors.As(err, &rf) || rf.Check != CheckRawKeyedWithoutManaged || !rf.HasOperator || rf.OperatorID != op || rf.Vertex != "v" {
		t.Errorf("error %v: %+v", err, rf)
	}
}

// Bad input is not a refusal.
func TestNonRefusalsAreNotRefusals(t *testing.T) {
	var rf *RefusalError
	_, err := AssignStates(AssignmentInput{Version: Flink118, Vertices: []JobVertex{saVertex("v", 1, 128, false)}})
	if !errors.Is(err, ErrInvalidRestoreInput) || errors.As(err, &rf) {
		t.Errorf("bad input: %v", err)
	}
	a := saVertex("a", 1, 128, false, saID(1))
	a.Inputs = []JobEdge{{Upstream: 0}}
	_, err = AssignStates(AssignmentInput{Version: Flink118, Vertices: []JobVertex{a}})
	if !errors.Is(err, ErrInvalidRestoreInput) || errors.As(err, &rf) {
		t.Errorf("an edge from the vertex itself: %v", err)
	}
}
