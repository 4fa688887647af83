package model

import (
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Reproductions of Flink 1.18's CheckpointCoordinatorRestoringTest
// (flink-runtime/src/test/java/org/apache/flink/runtime/checkpoint/CheckpointCoordinatorRestoringTest.java)
// with the helpers of CheckpointCoordinatorTestingUtils.java, through the model's Coordinator.
//
// Stand-ins for Flink's test data: Flink writes random Integers into byte-stream handles and
// compares what the restored handles deserialise to; the model's handles carry no bytes, so an
// offset within a named handle stands for one value — a partition is identified by (delegate,
// name, offset), a key group by its offset 10·kg (+1 for raw) in a handle, as saKeyed builds them.

// flinkPartitionableHandle models CheckpointCoordinatorTestingUtils.generatePartitionableStateHandle(
// jobVertexID, index, 2, 8, rawState): one handle with "state-0" and "state-1", SPLIT_DISTRIBUTE,
// 8 partitions each, at distinct offsets (the values run on over both names, as
// serializeTogetherAndTrackOffsets writes them).
func flinkPartitionableHandle(vertex string, index int, raw bool) OperatorStateHandle {
	kind := "managed"
	if raw {
		kind = "raw"
	}
	h := OperatorStateHandle{Delegate: StreamHandle{Path: fmt.Sprintf("%s/%d/op-%s", vertex, index, kind), Size: 16 * 81}}
	for s := range 2 {
		offs := make([]int64, 8)
		for j := range offs {
			offs[j] = int64(81 * (8*s + j))
		}
		h.States = append(h.States, NamedOperatorState{Name: fmt.Sprint("state-", s), Mode: SplitDistribute, Offsets: offs})
	}
	return h
}

// flinkPartitionableResult models comparePartitionableState's collectResult: one line
// "opIdx : name : value" per partition of the handles, sorted; the value is the partition's
// (delegate, offset).
func flinkPartitionableResult(perChain [][][]OperatorStateHandle) []string {
	var out []string
	for _, chain := range perChain {
		for opIdx, hs := range chain {
			for _, h := range hs {
				for _, s := range h.States {
					for _, o := range s.Offsets {
						out = append(out, fmt.Sprintf("%d : %s : %s@%d", opIdx, s.Name, h.Delegate.Path, o))
					}
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

// restoreViaCoordinator completes checkpoint 1 with ops in a fresh coordinator and restores it
// into vertices as the Flink test does: 1.18 restoreLatestCheckpointedStateToAll(tasks, false);
// 1.10.1 restoreLatestCheckpointedState(tasks, true, false). It fails unless something was
// restored.
func restoreViaCoordinator(t *testing.T, v FlinkVersion, ops []OperatorState, vertices []JobVertex, ignoredInFlight int64) *RestoreResult {
	t.Helper()
	c := mustCoordinator(t, v, 1)
	c.CheckpointIDOfIgnoredInFlightData = ignoredInFlight
	if _, err := c.Store.CompleteCheckpoint(&CompletedCheckpoint{CheckpointID: 1, Properties: checkpointProps, Operators: ops}); err != nil {
		t.Fatal(err)
	}
	var res *RestoreResult
	var err error
	if v == Flink118 {
		res, err = c.RestoreLatestCheckpointedStateToAll(vertices, false)
	} else {
		res, err = c.RestoreLatestCheckpointedState(vertices, true, false)
	}
	if err != nil {
		t.Fatalf("restore: %v", err)
	}
	if !res.Restored() || res.Checkpoint.CheckpointID != 1 {
		t.Fatalf("restore returned %+v, want checkpoint 1 restored", res.Checkpoint)
	}
	return res
}

// verifyStateRestore models CheckpointCoordinatorTestingUtils.verifyStateRestore(jobVertexID,
// executionJobVertex, keyGroupPartitions), CheckpointCoordinatorTestingUtils.java:232: every
// subtask i restores checkpoint 1, its managed operator state's first handle is the one
// generatePartitionableStateHandle(jobVertexID, i, 2, 8, false) gives, and its managed keyed
// state holds exactly the key groups of partition i with their values.
func verifyStateRestore(t *testing.T, vertex string, va *VertexAssignment, ranges []KeyGroupRange) {
	t.Helper()
	if len(va.Subtasks) != len(ranges) {
		t.Fatalf("%s: %d subtasks, want %d", vertex, len(va.Subtasks), len(ranges))
	}
	for i, task := range va.Subtasks {
		if task == nil || task.CheckpointID != 1 {
			t.Fatalf("%s subtask %d: restore %+v, want checkpoint 1", vertex, i, task)
		}
		st := task.Operators[0].State
		if len(st.ManagedOperatorState) == 0 {
			t.Fatalf("%s subtask %d: no managed operator state", vertex, i)
		}
		if diff := cmp.Diff(flinkPartitionableHandle(vertex, i, false), st.ManagedOperatorState[0]); diff != "" {
			t.Errorf("%s subtask %d managed operator state (-want +got):\n%s", vertex, i, diff)
		}
		saKeyGroups(t, fmt.Sprint(vertex, " subtask ", i, " managed keyed"), st.ManagedKeyedState, ranges[i], false)
	}
}

func keyGroupPartitions(t *testing.T, maxP, p int) []KeyGroupRange {
	t.Helper()
	out := make([]KeyGroupRange, p)
	for i := range out {
		r, err := ComputeKeyGroupRangeForOperatorIndex(maxP, p, i)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = r
	}
	return out
}

// restoreLatestCheckpointedStateWithChangingParallelism models
// testRestoreLatestCheckpointedStateWithChangingParallelism, CheckpointCoordinatorRestoringTest.java:291
// (1.10.1 has the same test without channel state): vertex 1 (p=3, M=42) with managed operator
// state, managed and raw keyed state and (1.18) one input-channel handle per subtask, restored
// unchanged; vertex 2 (M=13) with managed and raw operator and keyed state, checkpointed at p=13
// (scale in) or 2 (scale out) and restored at 2 or 13.
func restoreLatestCheckpointedStateWithChangingParallelism(t *testing.T, scaleOut bool) {
	const parallelism1, maxParallelism1, maxParallelism2 = 3, 42, 13
	parallelism2, newParallelism2 := 13, 2
	if scaleOut {
		parallelism2, newParallelism2 = 2, 13
	}
	for _, v := range saVersions {
		t.Run(v.String(), func(t *testing.T) {
			id1, id2 := OperatorIDFromUID("vertex1"), OperatorIDFromUID("vertex2")
			keyGroupPartitions1 := keyGroupPartitions(t, maxParallelism1, parallelism1)
			keyGroupPartitions2 := keyGroupPartitions(t, maxParallelism2, parallelism2)
			os1 := OperatorState{OperatorID: id1, Parallelism: parallelism1, MaxParallelism: maxParallelism1}
			for i, r := range keyGroupPartitions1 {
				st := &OperatorSubtaskState{
					ManagedOperatorState: []OperatorStateHandle{flinkPartitionableHandle("vertex1", i, false)},
					ManagedKeyedState:    []KeyedStateHandle{saKeyed(id1, i, r, false)},
					RawKeyedState:        []KeyedStateHandle{saKeyed(id1, i, r, true)},
				}
				if v == Flink118 { // createNewInputChannelStateHandle(3, new Random())
					st.InputChannelState = []ChannelStateHandle{{SubtaskIndex: i, Delegate: StreamHandle{Path: fmt.Sprint("vertex1/", i, "/in"), Size: 3}}}
				}
				os1.Subtasks = append(os1.Subtasks, st)
			}
			os2 := OperatorState{OperatorID: id2, Parallelism: parallelism2, MaxParallelism: maxParallelism2}
			var expectedOpStatesBackend, expectedOpStatesRaw [][][]OperatorStateHandle
			for i, r := range keyGroupPartitions2 {
				managed, raw := flinkPartitionableHandle("vertex2", i, false), flinkPartitionableHandle("vertex2", i, true)
				expectedOpStatesBackend = append(expectedOpStatesBackend, [][]OperatorStateHandle{{managed}})
				expectedOpStatesRaw = append(expectedOpStatesRaw, [][]OperatorStateHandle{{raw}})
				os2.Subtasks = append(os2.Subtasks, &OperatorSubtaskState{
					ManagedOperatorState: []OperatorStateHandle{managed},
					RawOperatorState:     []OperatorStateHandle{raw},
					ManagedKeyedState:    []KeyedStateHandle{saKeyed(id2, i, r, false)},
					RawKeyedState:        []KeyedStateHandle{saKeyed(id2, i, r, true)},
				})
			}
			newVertices := []JobVertex{
				{Name: "vertex1", Operators: []JobOperator{{ID: id1}}, Parallelism: parallelism1, MaxParallelism: maxParallelism1, MaxParallelismConfigured: true},
				{Name: "vertex2", Operators: []JobOperator{{ID: id2}}, Parallelism: newParallelism2, MaxParallelism: maxParallelism2, MaxParallelismConfigured: true},
			}
			res := restoreViaCoordinator(t, v, []OperatorState{os1, os2}, newVertices, -1)

			// verifyStateRestore(jobVertexID1, newJobVertex1, keyGroupPartitions1)
			verifyStateRestore(t, "vertex1", &res.Assignment.Vertices[0], keyGroupPartitions1)

			newKeyGroupPartitions2 := keyGroupPartitions(t, maxParallelism2, newParallelism2)
			va := &res.Assignment.Vertices[1]
			if len(va.Subtasks) != newParallelism2 {
				t.Fatalf("vertex2: %d subtasks, want %d", len(va.Subtasks), newParallelism2)
			}
			var actualOpStatesBackend, actualOpStatesRaw [][][]OperatorStateHandle
			for i, task := range va.Subtasks {
				if task == nil || task.CheckpointID != 1 {
					t.Fatalf("vertex2 subtask %d: restore %+v, want getRestoreCheckpointId() = 1", i, task)
				}
				var managed, raw [][]OperatorStateHandle
				headOpIndex := len(task.Operators) - 1
				for idx, op := range task.Operators {
					managed = append(managed, op.State.ManagedOperatorState)
					raw = append(raw, op.State.RawOperatorState)
					if idx == headOpIndex {
						saKeyGroups(t, fmt.Sprint("vertex2 subtask ", i, " managed keyed"), op.State.ManagedKeyedState, newKeyGroupPartitions2[i], false)
						saKeyGroups(t, fmt.Sprint("vertex2 subtask ", i, " raw keyed"), op.State.RawKeyedState, newKeyGroupPartitions2[i], true)
					}
				}
				actualOpStatesBackend = append(actualOpStatesBackend, managed)
				actualOpStatesRaw = append(actualOpStatesRaw, raw)
			}
			if diff := cmp.Diff(flinkPartitionableResult(expectedOpStatesBackend), flinkPartitionableResult(actualOpStatesBackend)); diff != "" {
				t.Errorf("comparePartitionableState(managed) (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(flinkPartitionableResult(expectedOpStatesRaw), flinkPartitionableResult(actualOpStatesRaw)); diff != "" {
				t.Errorf("comparePartitionableState(raw) (-want +got):\n%s", diff)
			}
		})
	}
}

// CheckpointCoordinatorRestoringTest.java:277.
func TestCheckpointCoordinatorRestoringTest_testRestoreLatestCheckpointedStateScaleIn(t *testing.T) {
	restoreLatestCheckpointedStateWithChangingParallelism(t, false)
}

// CheckpointCoordinatorRestoringTest.java:282.
func TestCheckpointCoordinatorRestoringTest_testRestoreLatestCheckpointedStateScaleOut(t *testing.T) {
	restoreLatestCheckpointedStateWithChangingParallelism(t, true)
}

// CheckpointCoordinatorRestoringTest.java:964 (1.18 only): one vertex (p=3, M=42) whose
// subtasks hold managed and raw operator state, managed and raw keyed state, and one
// input-channel and one result-subpartition handle; checkpointIdOfIgnoredInFlightData = 1;
// restoreLatestCheckpointedStateToAll(tasks, false). Flink's fourth isNotEmpty check repeats
// getManagedOperatorState (a slip for getManagedKeyedState, which verifyStateRestore checks);
// both are checked here.
func TestCheckpointCoordinatorRestoringTest_testRestoreLatestCheckpointedStateWithoutInFlightData(t *testing.T) {
	const parallelism1, maxParallelism1 = 3, 42
	id := OperatorIDFromUID("vertex")
	keyGroupPartitions1 := keyGroupPartitions(t, maxParallelism1, parallelism1)
	os := OperatorState{OperatorID: id, Parallelism: parallelism1, MaxParallelism: maxParallelism1}
	for i, r := range keyGroupPartitions1 {
		os.Subtasks = append(os.Subtasks, &OperatorSubtaskState{
			ManagedOperatorState:    []OperatorStateHandle{flinkPartitionableHandle("vertex", i, false)},
			RawOperatorState:        []OperatorStateHandle{flinkPartitionableHandle("vertex", i, true)},
			ManagedKeyedState:       []KeyedStateHandle{saKeyed(id, i, r, false)},
			RawKeyedState:           []KeyedStateHandle{saKeyed(id, i, r, true)},
			InputChannelState:       []ChannelStateHandle{{SubtaskIndex: i, Delegate: StreamHandle{Path: fmt.Sprint("vertex/", i, "/in"), Size: 3}}},
			ResultSubpartitionState: []ChannelStateHandle{{SubtaskIndex: i, Delegate: StreamHandle{Path: fmt.Sprint("vertex/", i, "/out"), Size: 3}}},
		})
	}
	vertex := JobVertex{Name: "vertex", Operators: []JobOperator{{ID: id}}, Parallelism: parallelism1, MaxParallelism: maxParallelism1, MaxParallelismConfigured: true}
	res := restoreViaCoordinator(t, Flink118, []OperatorState{os}, []JobVertex{vertex}, 1)
	if res.Flags.AllowNonRestoredState {
		t.Errorf("flags %+v: want allowNonRestoredState false, as Flink passes", res.Flags)
	}
	va := &res.Assignment.Vertices[0]
	verifyStateRestore(t, "vertex", va, keyGroupPartitions1)
	for i, task := range va.Subtasks {
		if task.CheckpointID != 1 {
			t.Errorf("subtask %d: restore checkpoint id %d, want 1", i, task.CheckpointID)
		}
		st := task.Operators[0].State
		if len(st.InputChannelState) != 0 || len(st.ResultSubpartitionState) != 0 {
			t.Errorf("subtask %d: in-flight state %v / %v, want empty", i, st.InputChannelState, st.ResultSubpartitionState)
		}
		for _, c := range []struct {
			name string
			n    int
		}{
			{"getRawOperatorState", len(st.RawOperatorState)},
			{"getManagedOperatorState", len(st.ManagedOperatorState)},
			{"getRawKeyedState", len(st.RawKeyedState)},
			{"getManagedKeyedState", len(st.ManagedKeyedState)},
		} {
			if c.n == 0 {
				t.Errorf("subtask %d: %s is empty", i, c.name)
			}
		}
	}
	if len(os.Subtasks[0].InputChannelState) != 1 {
		t.Error("stripping in-flight data changed the stored checkpoint")
	}
	// Not in Flink's test: without the ignored id, the unchanged vertex keeps its in-flight state.
	res = restoreViaCoordinator(t, Flink118, []OperatorState{os}, []JobVertex{vertex}, -1)
	for i, task := range res.Assignment.Vertices[0].Subtasks {
		if st := task.Operators[0].State; len(st.InputChannelState) != 1 || len(st.ResultSubpartitionState) != 1 {
			t.Errorf("no ignored id, subtask %d: in-flight state %v / %v, want one handle each", i, st.InputChannelState, st.ResultSubpartitionState)
		}
	}
}
