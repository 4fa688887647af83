package model_test

import (
	"fmt"

	"github.com/restoresim/restoresim/model"
)

// keyedState is a checkpointed keyed operator: one KeyGroupsStateHandle per old subtask over
// its key-group range.
func keyedState(id model.OperatorID, p, maxPar int) model.OperatorState {
	os := model.OperatorState{OperatorID: id, Parallelism: p, MaxParallelism: maxPar}
	for i := range p {
		r, _ := model.ComputeKeyGroupRangeForOperatorIndex(maxPar, p, i)
		h := &model.KeyGroupsStateHandle{
			Offsets:  model.KeyGroupRangeOffsets{Range: r, Offsets: make([]int64, r.NumberOfKeyGroups())},
			Delegate: model.StreamHandle{Path: fmt.Sprintf("chk-7/keyed-%d", i), Size: 1024},
		}
		os.Subtasks = append(os.Subtasks, &model.OperatorSubtaskState{ManagedKeyedState: []model.KeyedStateHandle{h}})
	}
	return os
}

// Rescaling a keyed operator from 2 to 3 subtasks: every new subtask gets the pieces of the old
// handles that overlap its key-group range, in old-subtask order.
func ExampleAssignStates() {
	id := model.OperatorIDFromUID("counter")
	a, err := model.AssignStates(model.AssignmentInput{
		Version:      model.Flink118,
		CheckpointID: 7,
		Vertices: []model.JobVertex{{
			Name: "counter", Operators: []model.JobOperator{{ID: id}},
			Parallelism: 3, MaxParallelism: 128, // derived default, not configured
		}},
		Operators: []model.OperatorState{keyedState(id, 2, 128)},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	v := a.Vertices[0]
	fmt.Println("max parallelism", v.MaxParallelism, "adopted", v.Adopted)
	for i, task := range v.Subtasks {
		fmt.Printf("subtask %d %v checkpoint %d:", i, v.Ranges[i], task.CheckpointID)
		for _, h := range task.Operators[0].State.ManagedKeyedState {
			kg := h.(*model.KeyGroupsStateHandle)
			fmt.Printf(" %s[%d,%d]", kg.Delegate.Path, kg.Offsets.Range.Start, kg.Offsets.Range.End)
		}
		fmt.Println()
	}
	// Output:
	// max parallelism 128 adopted false
	// subtask 0 KeyGroupRange{startKeyGroup=0, endKeyGroup=42} checkpoint 7: chk-7/keyed-0[0,42]
	// subtask 1 KeyGroupRange{startKeyGroup=43, endKeyGroup=85} checkpoint 7: chk-7/keyed-0[43,63] chk-7/keyed-1[64,85]
	// subtask 2 KeyGroupRange{startKeyGroup=86, endKeyGroup=127} checkpoint 7: chk-7/keyed-1[86,127]
}

// A savepoint restored via setUidHash: loading accepts it in both versions, but Flink 1.10.1's
// state assignment knows only generated IDs (FLINK-16638).
func ExampleAssignStates_flink16638() {
	generated, user := model.OperatorIDFromUID("map-v2"), model.OperatorIDFromUID("map")
	vertices := []model.JobVertex{{
		Name: "map", Operators: []model.JobOperator{{ID: generated, UserDefinedID: &user}},
		Parallelism: 2, MaxParallelism: 128,
	}}
	for _, v := range []model.FlinkVersion{model.Flink1101, model.Flink118} {
		_, err := model.AssignStates(model.AssignmentInput{Version: v, CheckpointID: 1, Vertices: vertices,
			Operators: []model.OperatorState{keyedState(user, 2, 128)}})
		fmt.Printf("%s: %v\n", v, err)
	}
	// Output:
	// 1.10.1: There is no operator for the state 23ab3a59b17e9c45f95cff4c728611fc
	// 1.18: <nil>
}

// Loading a savepoint whose operator "audit" no longer exists.
func ExampleLoadAndValidateCheckpoint() {
	kept, gone := model.OperatorIDFromUID("counter"), model.OperatorIDFromUID("audit")
	md := model.CheckpointMetadata{CheckpointID: 42, Operators: []model.OperatorState{
		keyedState(gone, 1, 128), keyedState(kept, 2, 256),
	}}
	job := []model.JobVertex{{Name: "counter", Operators: []model.JobOperator{{ID: kept}}, Parallelism: 4, MaxParallelism: 128}}
	for _, allow := range []bool{false, true} {
		cp, err := model.LoadAndValidateCheckpoint(model.LoadInput{Version: model.Flink118, Metadata: md, Vertices: job,
			AllowNonRestoredState: allow, ExternalPointer: "file:/savepoints/savepoint-42"})
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println("checkpoint", cp.CheckpointID, "keeps", len(cp.Operators), "operator state(s) from", cp.ExternalPointer)
	}
	// Output:
	// Failed to rollback to checkpoint/savepoint file:/savepoints/savepoint-42. Cannot map checkpoint/savepoint state for operator b864716503adbe27d91981bb81974494 to the new program, because the operator is not available in the new program. If you want to allow to skip this, you can set the --allowNonRestoredState option on the CLI.
	// checkpoint 42 keeps 1 operator state(s) from file:/savepoints/savepoint-42
}

// RocksDB after scaling in: the target range overlaps three incremental handles; 1.18 opens the
// one with the largest overlap as its base DB and copies the rest.
func ExampleRocksDBRestore() {
	handles := []model.KeyedStateHandle{
		&model.IncrementalKeyedStateHandle{BackendID: "a", Range: model.KeyGroupRange{Start: 0, End: 42}},
		&model.IncrementalKeyedStateHandle{BackendID: "b", Range: model.KeyGroupRange{Start: 43, End: 85}},
		&model.IncrementalKeyedStateHandle{BackendID: "c", Range: model.KeyGroupRange{Start: 86, End: 127}},
	}
	target := model.KeyGroupRange{Start: 32, End: 95}
	for _, v := range []model.FlinkVersion{model.Flink118, model.Flink1101} {
		plan, _ := model.RocksDBRestore(v, handles, target)
		fmt.Println(v, plan.Mode, "initial", plan.Initial, "holding", plan.Holding)
	}
	// Output:
	// 1.18 restoreWithRescaling initial 1 holding [KeyGroupRange{startKeyGroup=32, endKeyGroup=95}]
	// 1.10.1 restoreWithRescaling initial 1 holding [KeyGroupRange{startKeyGroup=32, endKeyGroup=95}]
}
