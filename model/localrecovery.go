package model

import (
	"slices"
	"strings"

	"github.com/restoresim/restoresim/model/internal/mutant"
)

// Local recovery (SPEC §J.2): which copies of its state a restored task tries, in which order
// (Flink 1.18's TaskStateManagerImpl.prioritizedOperatorState and
// PrioritizedOperatorSubtaskState.Builder; 1.19+'s mixed keyed alternative, SPEC-VERSIONS.md §5.2).

// PrioritizedOperatorSubtaskState models PrioritizedOperatorSubtaskState: for each state kind,
// the alternatives a backend tries in order. Each list ends with the JobManager's state (the
// ground truth, "remote"); local alternatives, if approved, come first. A kind without state has
// the single JobManager entry (empty).
type PrioritizedOperatorSubtaskState struct {
	ManagedKeyed       [][]KeyedStateHandle
	RawKeyed           [][]KeyedStateHandle
	ManagedOperator    [][]OperatorStateHandle
	RawOperator        [][]OperatorStateHandle
	InputChannel       [][]ChannelStateHandle
	ResultSubpartition [][]ChannelStateHandle
	// RestoredCheckpointID is the checkpoint restored from; Restored is false for a task started
	// without restore information (emptyNotRestored).
	RestoredCheckpointID int64
	Restored             bool
}

// UsesLocal reports whether some state kind will first try a local copy.
func (p *PrioritizedOperatorSubtaskState) UsesLocal() bool {
	return len(p.ManagedKeyed) > 1 || len(p.RawKeyed) > 1 || len(p.ManagedOperator) > 1 ||
		len(p.RawOperator) > 1 || len(p.InputChannel) > 1 || len(p.ResultSubpartition) > 1
}

// PrioritizeOperatorSubtaskState models PrioritizedOperatorSubtaskState.Builder.build of version
// v with the JobManager's assigned state jm and the TaskManager's local copy (nil when there is
// none). In 1.18 (and 1.10.1), for each kind, the local alternative is used only if the
// JobManager's collection has state and exactly one handle, and the local one too, and they
// match: the same key-group range (keyed state), the same name → (mode, offsets) map (operator
// state), the same channel (channel state: InputChannelInfo or ResultSubpartitionInfo, i.e.
// GateOrPartition and Channel; the subtask index is not compared). From 1.19 on (FLINK-33341) keyed state instead gets a mixed alternative: every
// JobManager handle with a local handle of the same key-group range is replaced by it, local
// handles first (see PrioritizeOperatorSubtaskStateAlternatives).
func PrioritizeOperatorSubtaskState(v FlinkVersion, jm, local *OperatorSubtaskState, checkpointID int64) PrioritizedOperatorSubtaskState {
	var alternatives []*OperatorSubtaskState
	if local != nil {
		alternatives = []*OperatorSubtaskState{local}
	}
	return PrioritizeOperatorSubtaskStateAlternatives(v, jm, alternatives, checkpointID)
}

// keyedHasState models StateObjectCollection.hasState for keyed handles: some handle is non-nil.
func keyedHasState(hs []KeyedStateHandle) bool {
	return slices.ContainsFunc(hs, func(h KeyedStateHandle) bool { return !isNilKeyed(h) })
}

// anyState is StateObjectCollection.hasState for value handles, which are never null.
func anyState[T any](hs []T) bool { return len(hs) > 0 }

// sameNameToOffsets compares OperatorStateHandle.getStateNameToPartitionOffsets as maps: the same
// names, each with the same distribution mode and offsets, in any order.
func sameNameToOffsets(a, b OperatorStateHandle) bool {
	if len(a.States) != len(b.States) {
		return false
	}
	sorted := func(s []NamedOperatorState) []NamedOperatorState {
		c := slices.Clone(s)
		slices.SortStableFunc(c, func(x, y NamedOperatorState) int { return strings.Compare(x.Name, y.Name) })
		return c
	}
	as, bs := sorted(a.States), sorted(b.States)
	for i := range as {
		if as[i].Name != bs[i].Name || as[i].Mode != bs[i].Mode || !slices.Equal(as[i].Offsets, bs[i].Offsets) {
			return false
		}
	}
	return true
}

// TaskLocalSnapshot is what a TaskManager's TaskLocalStateStore keeps for one slot (allocation),
// job vertex and subtask: the local copy of one checkpoint, per operator (keyed by generated
// operator ID, as in a TaskRestore).
type TaskLocalSnapshot struct {
	CheckpointID int64
	Operators    []OperatorRestore
}

// PrioritizedOperatorState is one operator's entry of PrioritizeTaskRestore's result.
type PrioritizedOperatorState struct {
	OperatorID OperatorID
	State      PrioritizedOperatorSubtaskState
}

// PrioritizeTaskRestore models TaskStateManagerImpl.prioritizedOperatorState for every operator
// of a restored task: restore is what the JobManager assigned (nil: the task starts without
// restore information and nothing is returned — Flink gives each operator emptyNotRestored);
// local is the copy the slot's TaskManager holds (nil when none). The local copy counts only if
// it is of the restored checkpoint (TaskLocalStateStore.retrieveLocalState(checkpointId)) and
// holds an entry for the operator. Operators are returned in the restore object's order. v is
// the Flink version whose PrioritizedOperatorSubtaskState.Builder applies (FLINK-33341, 1.19+).
func PrioritizeTaskRestore(v FlinkVersion, restore *TaskRestore, local *TaskLocalSnapshot) []PrioritizedOperatorState {
	if restore == nil {
		return nil
	}
	if local != nil && local.CheckpointID != restore.CheckpointID && !mutant.On(mutant.LocalStalePreferred) {
		local = nil
	}
	out := make([]PrioritizedOperatorState, 0, len(restore.Operators))
	for i := range restore.Operators {
		op := &restore.Operators[i]
		var alt *OperatorSubtaskState
		if local != nil {
			for j := range local.Operators {
				if local.Operators[j].OperatorID == op.OperatorID {
					alt = &local.Operators[j].State
					break
				}
			}
		}
		out = append(out, PrioritizedOperatorState{OperatorID: op.OperatorID,
			State: PrioritizeOperatorSubtaskState(v, &op.State, alt, restore.CheckpointID)})
	}
	return out
}
