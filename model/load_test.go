package model

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// ldState is an operator state with p subtask entries, each holding one managed operator-state
// handle (an empty name map still counts as state, as in Flink's tests).
func ldState(id OperatorID, p, maxPar int) OperatorState {
	os := OperatorState{OperatorID: id, Parallelism: p, MaxParallelism: maxPar, Subtasks: make([]*OperatorSubtaskState, p)}
	for i := range p {
		os.Subtasks[i] = &OperatorSubtaskState{ManagedOperatorState: []OperatorStateHandle{{Delegate: StreamHandle{Path: "op", Size: 1}}}}
	}
	return os
}

// SPEC §K.8 CheckpointMetadataLoadingTest.testAllStateRestored.
func TestCheckpointMetadataLoadingTest_testAllStateRestored(t *testing.T) {
	const checkpointID = int64(1<<31-1) + 123123
	const p = 128128 // the test's mocked vertex bypasses the 1..32768 bounds; loading does not check them
	op := saID(1)
	state := ldState(op, 1, p)
	state.Parallelism = p // one subtask entry is enough
	md := CheckpointMetadata{CheckpointID: checkpointID, Operators: []OperatorState{state},
		MasterStates: []MasterState{{Name: "hook", Version: 1, Bytes: 3}}}
	props := CheckpointProperties{Savepoint: true, Forced: true, Sharing: NoSharing}
	for _, v := range saVersions {
		cp, err := LoadAndValidateCheckpoint(LoadInput{Version: v, Metadata: md,
			Vertices: []JobVertex{saVertex("v", p, p, true, op)}, Properties: props, ExternalPointer: "file:/ckpt/chk-1"})
		if err != nil {
			t.Fatalf("%v: %v", v, err)
		}
		want := &CompletedCheckpoint{CheckpointID: checkpointID, Operators: md.Operators, MasterStates: md.MasterStates,
			Properties: props, ExternalPointer: "file:/ckpt/chk-1"}
		if v == Flink1101 {
			want.Properties = CheckpointProperties{Savepoint: true, Forced: true} // always savepoint properties
		}
		if diff := cmp.Diff(want, cp); diff != "" {
			t.Errorf("%v (-want +got):\n%s", v, diff)
		}
	}
}

// SPEC §K.8 testMaxParallelismMismatch. Flink's test mocks canRescaleMaxParallelism to false
// for M=128128 vs 128129; a real 1.18 vertex bounds-checks the value first, so the model shows
// the mismatch with in-bounds values and the bounds error separately.
func TestCheckpointMetadataLoadingTest_testMaxParallelismMismatch(t *testing.T) {
	op := saID(1)
	tests := []struct {
		name           string
		v              FlinkVersion
		stateM, vertex int
		configured     bool
		want           error
	}{
		{"1.18 configured", Flink118, 128, 129, true, ErrMaxParallelismMismatch},
		{"1.10.1 configured", Flink1101, 128, 129, true, ErrMaxParallelismMismatch},
		{"1.18 may adopt", Flink118, 128, 129, false, nil},
		{"1.10.1 may adopt", Flink1101, 128, 129, false, nil},
		{"1.10.1 out of bounds, configured", Flink1101, 128128, 128129, true, ErrMaxParallelismMismatch},
		{"1.18 out of bounds", Flink118, 128128, 128129, true, ErrMaxParallelismOutOfBounds},
		{"1.18 -1 can never be adopted", Flink118, -1, 128, false, ErrMaxParallelismMismatch},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			md := CheckpointMetadata{CheckpointID: 3, Operators: []OperatorState{ldState(op, 1, tc.stateM)}}
			_, err := LoadAndValidateCheckpoint(LoadInput{Version: tc.v, Metadata: md, Vertices: []JobVertex{saVertex("v", 1, tc.vertex, tc.configured, op)}})
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if tc.want == ErrMaxParallelismMismatch && !strings.Contains(err.Error(), "Max parallelism mismatch") {
				t.Errorf("message %q lacks %q", err, "Max parallelism mismatch")
			}
		})
	}
}

// SPEC §K.8 testNonRestoredStateWhenDisallowed / …WhenAllowed / testUnmatchedCoordinatorOnlyStateFails,
// and the silently skipped empty state.
func TestCheckpointMetadataLoadingTest_testNonRestoredState(t *testing.T) {
	op := saID(1)
	coordinatorOnly := OperatorState{OperatorID: op, Parallelism: 617, MaxParallelism: 1234, CoordinatorState: &StreamHandle{Path: "coord", Size: 1}}
	emptyEntries := OperatorState{OperatorID: op, Parallelism: 2, MaxParallelism: 128, Subtasks: []*OperatorSubtaskState{{}, {}}}
	tests := []struct {
		name    string
		v       FlinkVersion
		state   OperatorState
		allow   bool
		wantErr bool
		wantOps int
	}{
		{"testNonRestoredStateWhenDisallowed", Flink118, ldState(op, 9, 9), false, true, 0},
		{"testNonRestoredStateWhenDisallowed 1.10.1", Flink1101, ldState(op, 9, 9), false, true, 0},
		{"testNonRestoredStateWhenAllowed", Flink118, ldState(op, 9, 9), true, false, 0},
		{"testNonRestoredStateWhenAllowed 1.10.1", Flink1101, ldState(op, 9, 9), true, false, 0},
		{"testUnmatchedCoordinatorOnlyStateFails", Flink118, coordinatorOnly, false, true, 0},
		{"1.10.1 has no coordinator state", Flink1101, coordinatorOnly, false, false, 0},
		{"empty state is skipped silently", Flink118, emptyEntries, false, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cp, err := LoadAndValidateCheckpoint(LoadInput{Version: tc.v, AllowNonRestoredState: tc.allow, ExternalPointer: "file:/sp/savepoint-1",
				Metadata: CheckpointMetadata{CheckpointID: 1, Operators: []OperatorState{tc.state}}})
			if tc.wantErr {
				var e *NonRestoredStateError
				if !errors.As(err, &e) || e.OperatorID != op || !strings.Contains(err.Error(), "allowNonRestoredState") ||
					!strings.Contains(err.Error(), "file:/sp/savepoint-1") {
					t.Fatalf("error %v, want *NonRestoredStateError mentioning allowNonRestoredState", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(cp.Operators) != tc.wantOps {
				t.Errorf("%d operator states, want %d", len(cp.Operators), tc.wantOps)
			}
		})
	}
}

// Loading walks the metadata in order: the first offending state decides the error.
func TestLoadAndValidateCheckpointOrder(t *testing.T) {
	a, b := saID(1), saID(2)
	md := CheckpointMetadata{CheckpointID: 4, Operators: []OperatorState{ldState(b, 1, 64), ldState(a, 1, 256)}}
	_, err := LoadAndValidateCheckpoint(LoadInput{Version: Flink118, Metadata: md, Vertices: []JobVertex{saVertex("v", 1, 128, true, a)}})
	var e *NonRestoredStateError
	if !errors.As(err, &e) || e.OperatorID != b || e.Checkpoint != "checkpoint 4" {
		t.Errorf("error %v, want the unmatched %v first", err, b)
	}
}

// User-defined IDs: 1.18 maps them with the generated ones; 1.10.1 adds them after a miss but
// never over a generated ID.
func TestLoadAndValidateCheckpointUserDefinedIDs(t *testing.T) {
	gen1, gen2 := saID(1), saID(2)
	// Vertex 2's user-defined ID equals vertex 1's generated ID.
	v1 := saVertex("v1", 1, 128, true, gen1)
	v2 := saVertex("v2", 1, 256, true)
	v2.Operators = []JobOperator{{ID: gen2, UserDefinedID: &gen1}}
	md := CheckpointMetadata{CheckpointID: 1, Operators: []OperatorState{ldState(gen1, 1, 128)}}
	// 1.10.1: gen1 maps to v1 (generated wins) → M 128 matches.
	if _, err := LoadAndValidateCheckpoint(LoadInput{Version: Flink1101, Metadata: md, Vertices: []JobVertex{v1, v2}}); err != nil {
		t.Errorf("1.10.1: %v", err)
	}
	// 1.18: the later vertex's user-defined mapping wins → v2 (M 256, configured) → mismatch.
	if _, err := LoadAndValidateCheckpoint(LoadInput{Version: Flink118, Metadata: md, Vertices: []JobVertex{v1, v2}}); !errors.Is(err, ErrMaxParallelismMismatch) {
		t.Errorf("1.18: error %v, want ErrMaxParallelismMismatch", err)
	}
}

func TestLoadAndValidateCheckpointInvalidInput(t *testing.T) {
	op := saID(1)
	for _, in := range []LoadInput{
		{Version: 9},
		{Metadata: CheckpointMetadata{Operators: []OperatorState{ldState(op, 1, 1), ldState(op, 1, 1)}}},
		{Metadata: CheckpointMetadata{Operators: []OperatorState{{OperatorID: op, Parallelism: 1, Subtasks: make([]*OperatorSubtaskState, 2)}}}},
	} {
		if _, err := LoadAndValidateCheckpoint(in); err == nil {
			t.Errorf("%+v: no error", in)
		}
	}
}
